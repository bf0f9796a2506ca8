"""Sources: turn the command line's paths into named byte strings.

Files named explicitly are always read; directories are walked for
`*.yaml`, `*.yml` and `*.json`, in a stable order, so that a repository root
can be linted as it is: hidden folders are walked (`.github/`, `.k8s/` hold
manifests), hidden files are not, nor the folders of tools (TOOL_FOLDERS:
`.git`, `.venv`, `node_modules` ...), nor what the `.gitignore` files of the
walked tree and of the git work tree above it exclude (dralint.pipeline.gitignore). A
symlinked folder is followed only when it leads to a folder inside the folder
being walked: a link to `/` or `/proc/self` in a tree must not make the run
walk the whole file system.

Only regular files are read: a FIFO or a device named `x.yaml` would block the
run forever, so it becomes a Source with an error (DRA006), as does a folder
that cannot be listed. A file is read in one call of its own size (not of the
size cap: a cap-sized buffer per file keeps a memory mapping per file alive,
and ~65,000 of them hit the kernel's limit).
"""

from __future__ import annotations

import os
import stat
import sys

from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import BinaryIO, Iterable, Iterator

    from .gitignore import Ignores, Patterns

GITIGNORE = ".gitignore"  # dralint.pipeline.gitignore.FILE, loaded only for a folder walked

EXTENSIONS = (".yaml", ".yml", ".json")
# Folders of version control, virtual environments, package managers and caches: never manifests of
# the repository's own, and often huge.
TOOL_FOLDERS = frozenset({
    ".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul", "CVS",
    ".venv", "venv", ".direnv", ".pyenv", "__pypackages__", "site-packages", ".eggs", "node_modules",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".pytype", ".hypothesis", "__pycache__",
    ".ipynb_checkpoints", ".pants.d", ".dralint_cache", ".terraform", ".idea", ".vscode",
})
MAX_BYTES = 16 * 1024 * 1024
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
READ_CHUNK = 1 << 16  # past the reported size: a cap-sized read would allocate (and may keep a mapping of) 16 MiB


class Source(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        name: str,
        data: bytes | None,  # None when it could not be read; `error` says why
        error: str | None = None,
        # The file's size when it was opened (os.fstat), when known: `data` stops one byte past MAX_BYTES,
        # and a file over the cap is reported with its own size, not the length of what was read.
        size: int | None = None,
    ) -> "Source":
        return tuple_new(_cls, (name, data, error, size))


def collect(paths: list[str], stdin: BinaryIO | None = None) -> Iterator[Source]:
    return read_all(files(paths), stdin)


def read_all(entries: Iterable[tuple[str, str | None]], stdin: BinaryIO | None = None) -> Iterator[Source]:
    """The Sources of what `files` found, read one at a time."""
    for name, error in entries:
        if error is not None:
            yield Source(name, None, error)
        elif name == "-":
            yield Source("-", _read_stream(stdin if stdin is not None else sys.stdin.buffer))
        else:
            yield _read(name)


def files(paths: list[str]) -> Iterator[tuple[str, str | None]]:
    """(name, None) for each file `collect` would read ("-": standard input), (folder, why) for each
    folder that cannot be listed: names only, so that worker processes read their own (dralint.pipeline.parallel).

    Streamed: a folder's listing is held only while it is walked, not the names of the whole tree. A file
    reached twice (two arguments, a symlink, a hard link) is read once: files are told apart by device and
    inode, one stat each, where a real path costs an lstat per component (a third of the walk of a
    100,000-file tree) and keeps a string per file.
    """
    seen: set[int | str] = set()
    for path in paths:
        if path == "-":
            yield "-", None
            continue
        if os.path.isdir(path):
            for file, error in _walk(path):
                if error is not None:
                    yield file, error
                elif _first_time(file, seen) is not False:
                    yield file, None
        elif _first_time(path, seen) is not False:
            yield path, None


def stamped_files(paths: list[str]) -> Iterator[tuple[str, str | None, int | None, int | None]]:
    """`files`, each with the modification time (ns) of the stat that told it apart and its size when that stat
    found a regular file (None when there was none: standard input, a folder that cannot be listed, a file
    that cannot be stat'ed): a re-run with the result cache (dralint.pipeline.rerun) chooses by the time which
    process checks a file, without a second stat per file, and reads a file with its size (`read_sized`). Kept
    apart from `files`, whose runs pay no extra step per file for it."""
    seen: set[int | str] = set()
    for path in paths:
        if path == "-":
            yield "-", None, None, None
            continue
        if os.path.isdir(path):
            for file, error in _walk(path):
                if error is not None:
                    yield file, error, None, None
                else:
                    st = _first_time(file, seen)
                    if st is not False:
                        yield _stamped(file, st)
        else:
            st = _first_time(path, seen)
            if st is not False:
                yield _stamped(path, st)


def _stamped(path: str, st: os.stat_result | None) -> tuple[str, None, int | None, int | None]:
    if st is None:
        return path, None, None, None
    return path, None, st.st_mtime_ns, st.st_size if stat.S_ISREG(st.st_mode) else None


def _first_time(path: str, seen: set[int | str]) -> os.stat_result | None | bool:
    """False when `path` was met before (the same device and inode), else its stat, None when it has none."""
    identity: int | str
    try:
        st: os.stat_result | None = os.stat(path)
        identity = st.st_dev << 64 | st.st_ino  # type: ignore[union-attr]  # one int: a tuple per file would double the set's memory
    except (OSError, ValueError):
        identity = os.path.abspath(path)  # read anyway (reading it says why it cannot be), once
        st = None
    if identity in seen:
        return False
    seen.add(identity)
    return st


def _walk(root: str) -> Iterator[tuple[str, str | None]]:
    """(path, None) for each file to read, (folder, why) for each folder that cannot be listed.

    In the order of the paths sorted as strings, without sorting them all: within a folder a subfolder
    `d` sorts as `d/` (all its paths start so), a file by its name. Symlinked folders are followed, once
    each (they can loop back on themselves) and only when they lead inside `root`. A stack of listings,
    not recursion: a deep tree must not exhaust the interpreter's stack.
    """
    # normpath'd: `dralint .` reports tests/a.yaml, as editors and CI annotations expect.
    root = os.path.normpath(root)
    try:
        st = os.stat(root)
    except OSError as exc:
        yield root, _unlistable(exc)
        return
    from . import gitignore  # noqa: PLC0415 - files named one by one (pre-commit) need none of it

    visited: set[tuple[int, int]] = set()
    inside = _Inside(root)
    stack = [_listing(root, (st.st_dev, st.st_ino), visited, inside, gitignore.above(root, _gitignore))]
    while stack:
        for path, kind, ignores in stack[-1]:
            if kind is None or isinstance(kind, str):
                yield path, kind
            elif kind not in visited:
                stack.append(_listing(path, kind, visited, inside, ignores))
                break
        else:
            stack.pop()


# A path and: None (a file), why it fails, or a folder's identity; and for a folder, the .gitignore files over it.
Listed = tuple[str, "None | str | tuple[int, int]", "Ignores"]


class _Inside:
    """Whether a symlinked folder leads inside the walked folder (its real path under the root's)."""

    def __init__(self, root: str):
        self._root = os.path.realpath(root)
        self._prefix = self._root if self._root.endswith(os.sep) else self._root + os.sep

    def __call__(self, link: str) -> bool:
        try:
            target = os.path.realpath(link, strict=True)
        except (OSError, ValueError):
            return False
        return target == self._root or target.startswith(self._prefix)


def _listing(folder: str, identity: tuple[int, int], visited: set[tuple[int, int]], inside: _Inside, ignores: "Ignores") -> Iterator[Listed]:
    """The files and subfolders of one folder, in walk order. Held while the folder's subtree is walked
    (the whole run, for the top folder): names only, ~70 bytes a file, the paths made as they are given."""
    visited.add(identity)
    prefix = "" if folder == "." else folder if folder.endswith(os.sep) else folder + os.sep
    names: list[str] = []
    folders: dict[str, str | tuple[int, int]] = {}  # subfolder name -> its identity, or why it cannot be listed
    has_gitignore = False
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name in TOOL_FOLDERS:
                    continue
                try:
                    st = entry.stat() if entry.is_dir() else None  # both follow symlinks, as os.walk(followlinks=True)
                    if st is not None and entry.is_symlink() and not inside(entry.path):
                        continue  # leads out of the walked tree
                except OSError as exc:
                    folders[name] = _unlistable(exc)
                    names.append(name)
                    continue
                if st is not None:
                    folders[name] = (st.st_dev, st.st_ino)
                    names.append(name)
                elif name == GITIGNORE:
                    has_gitignore = True
                elif name.lower().endswith(EXTENSIONS) and not name.startswith("."):
                    names.append(name)
    except OSError as exc:
        yield folder, _unlistable(exc), ignores
        return
    if has_gitignore:
        ignores = ignores.with_file(_gitignore(folder))
    if ignores.levels:
        names = [name for name in names if not ignores.excluded(name, name in folders)]
    names.sort(key=(lambda name: name + "/" if name in folders else name) if folders else None)
    for name in names:
        kind = folders.get(name)
        yield prefix + name, kind, ignores.below(name) if isinstance(kind, tuple) and ignores.levels else ignores


def _gitignore(folder: str) -> "Patterns | None":
    """The patterns of `folder`'s .gitignore (read as any file here: a FIFO or a device is not waited on)."""
    from . import gitignore  # noqa: PLC0415 - loaded by _walk already

    source = _read(os.path.join(folder, GITIGNORE))
    if source.data is None:
        return None
    return gitignore.parse(source.data.decode("utf-8", "surrogateescape"), os.path.join(folder, GITIGNORE))


def _unlistable(exc: OSError) -> str:
    return f"the folder cannot be listed ({exc.strerror or exc})"


def _read(path: str) -> Source:
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        return Source(path, None, "no such file or directory")
    except IsADirectoryError:
        return Source(path, None, "is a directory")
    except OSError as exc:
        return Source(path, None, exc.strerror or str(exc))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            return Source(path, None, "is a directory")
        if not stat.S_ISREG(st.st_mode):
            return Source(path, None, f"not a regular file ({_file_type(st.st_mode)}); only files are read")
        return Source(path, _read_regular(fd, st.st_size), size=st.st_size)
    except OSError as exc:
        return Source(path, None, exc.strerror or str(exc))
    finally:
        os.close(fd)


def read_sized(path: str, size: int | None) -> Source:
    """`read`, for a file the walk's stat found regular and of `size` bytes, without the fstat that `read` makes to
    tell so (~1 us of a re-run's ~14 us a file: dralint.pipeline.rerun). For a caller that judges the bytes by
    their digest alone: a file replaced or grown since the walk reads as bytes whose digest is not the stored
    one (a FIFO without a writer as none, a device as what it gives), and is read again by `read` when checked.
    `size` None: `read`."""
    if size is None:
        return _read(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return _read(path)
    try:
        data = _read_regular(fd, size)
    except OSError:
        data = None
    finally:
        os.close(fd)
    return Source(path, data, size=size) if data is not None else _read(path)


def _read_regular(fd: int, size: int) -> bytes:
    """The file's bytes, at most MAX_BYTES + 1 (enough to tell the loader it is too big).

    os.read, not a file object: a buffered reader per file is a cost a run over many small files
    pays per file (bench/scale.py).
    """
    want = min(size, MAX_BYTES) + 1
    data = os.read(fd, want)
    if len(data) == size or len(data) > MAX_BYTES:
        return data  # the whole file, or enough to say it is too big
    # It grew, reports no size (/proc), or a read came back short: read on to the end, or to the cap.
    chunks = [data]
    got = len(data)
    while got <= MAX_BYTES:
        chunk = os.read(fd, min(MAX_BYTES + 1 - got, READ_CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "another kind of file"


def _read_stream(stream: BinaryIO) -> bytes:
    return stream.read(MAX_BYTES + 1)


read = _read  # one file as a Source: what worker processes call (dralint.pipeline.parallel)
