"""Sources: turn the command line's paths into named byte strings.

Files named explicitly are always read; directories are walked for
`*.yaml`, `*.yml` and `*.json`, in a stable order, skipping hidden folders
(`.git`, `.venv`) so a repository root can be linted as it is.

Only regular files are read: a FIFO or a device named `x.yaml` would block the
run forever, so it becomes a Source with an error (DRA006), as does a folder
that cannot be listed. A file is read in one call of its own size (not of the
size cap: a cap-sized buffer per file keeps a memory mapping per file alive,
and ~65,000 of them hit the kernel's limit).
"""


import os
import stat
import sys
from typing import BinaryIO, Iterable, Iterator, NamedTuple

EXTENSIONS = (".yaml", ".yml", ".json")
MAX_BYTES = 16 * 1024 * 1024


class Source(NamedTuple):
    name: str
    data: bytes | None  # None when it could not be read; `error` says why
    error: str | None = None


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
    folder that cannot be listed: names only, so that worker processes read their own (dralint.parallel)."""
    seen: set[str] = set()
    for path in paths:
        if path == "-":
            yield "-", None
            continue
        if os.path.isdir(path):
            for file, error in _walk(path):
                if error is not None:
                    yield file, error
                    continue
                real = os.path.realpath(file)
                if real not in seen:
                    seen.add(real)
                    yield file, None
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        yield path, None


def _walk(root: str) -> Iterator[tuple[str, str | None]]:
    """(path, None) for each file to read, (folder, why) for each folder that cannot be listed; sorted."""
    found: list[tuple[str, str | None]] = []
    visited: set[tuple[int, int]] = set()

    def unreadable(exc: OSError) -> None:
        folder = exc.filename if isinstance(exc.filename, str) else root
        found.append((os.path.normpath(folder), f"the folder cannot be listed ({exc.strerror or exc})"))

    for folder, dirs, files in os.walk(root, onerror=unreadable, followlinks=True):
        try:
            st = os.stat(folder)
        except OSError as exc:
            unreadable(exc)
            dirs[:] = []
            continue
        # Symlinked folders can loop back on themselves.
        if (st.st_dev, st.st_ino) in visited:
            dirs[:] = []
            continue
        visited.add((st.st_dev, st.st_ino))
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if name.lower().endswith(EXTENSIONS) and not name.startswith("."):
                # normpath: `dralint .` reports tests/a.yaml, as editors and CI annotations expect.
                found.append((os.path.normpath(os.path.join(folder, name)), None))
    yield from sorted(found)


def _read(path: str) -> Source:
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
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
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            return Source(path, _read_regular(handle, st.st_size))
    except OSError as exc:
        return Source(path, None, exc.strerror or str(exc))
    finally:
        if fd != -1:
            os.close(fd)


def _read_regular(handle: BinaryIO, size: int) -> bytes:
    """The file's bytes, at most MAX_BYTES + 1 (enough to tell the loader it is too big)."""
    want = min(size, MAX_BYTES) + 1
    data = handle.read(want)
    if len(data) == want and want <= MAX_BYTES:  # it grew, or reports no size (/proc): read on, to the cap
        data += handle.read(MAX_BYTES + 1 - want)
    return data


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


read = _read  # one file as a Source: what worker processes call (dralint.parallel)
