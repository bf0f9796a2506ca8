"""A small on-disk cache of verdicts that are expensive to reach and never change for the same input.

Used for CEL selector checks: building the CEL environment (protobuf
descriptors, the C++ checker) costs more than the rest of a pre-commit run on
one file, while the verdict for a given expression, release and gate set is
fixed. The cache file is keyed by everything that could change a verdict
(dralint's version and the modification times of the checking code), so a
stale entry is never read; writes are atomic (temp file + rename), so
parallel pre-commit processes at worst lose each other's additions.

The cache is not trusted: an entry that says "this expression is fine" would
make a bad one pass. Each entry is looked up by a hash of what was judged and
stored with a seal, a keyed BLAKE2b over that hash, the verdict and the code
fingerprint, made with a random key kept beside the cache (`key`, mode 0600,
made on first use). An entry whose seal does not verify (edited, moved to
another key, copied from another machine or another dralint, or written by
anything but this code) is ignored and judged again. Whoever can write the
key file can also write your shell profile: that is outside what a cache can
defend. `DRALINT_NO_CACHE=1` judges everything afresh.

`DRALINT_CACHE_DIR` moves it; `DRALINT_NO_CACHE=1` turns it off.

Neither file is trusted to be a file either: both are opened non-blocking and
read only when they are regular files within MAX_BYTES (a FIFO would block every
run, a link to /dev/zero would fill memory, a huge cache cost more to parse than
its verdicts save). Anything else is ignored, with a note on standard error,
and replaced when verdicts are saved.
"""

from __future__ import annotations

import atexit
import os
import stat
import sys
import time

from . import __version__

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterable

# Digests and seals without loading OpenSSL, which `hashlib` and `hmac` do at import for their other
# algorithms (a few ms of every start-up that uses a cache, bench/startup.py): BLAKE2 is hashlib's own C
# module (keyed, it is a MAC), and the constant-time comparison is the one hmac falls back to.
try:
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b
try:
    from _operator import _compare_digest as compare_digest
except ImportError:
    from hmac import compare_digest  # noqa: F401

MAX_ENTRIES = 20_000
MAX_BYTES = 16 * 1024 * 1024  # 20,000 entries of a few hundred bytes each fit several times over
KEY_FILE = "key"
KEY_BYTES = 32


def cache_dir() -> str | None:
    if os.environ.get("DRALINT_NO_CACHE"):
        return None
    explicit = os.environ.get("DRALINT_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dralint")


class VerdictCache:
    def __init__(self, name: str, fingerprint: str):
        self._path: str | None = None
        self._folder = cache_dir()
        if self._folder:
            digest = blake2b(fingerprint.encode(), digest_size=8).hexdigest()
            self._path = os.path.join(self._folder, f"{name}-{digest}.json")
        self._fingerprint = fingerprint
        self._entries: dict[str, Any] | None = None  # key -> [verdict, seal], as read: verified on use
        self._secret: bytes | None = None
        self._dirty = False

    @staticmethod
    def key(*parts: str) -> str:
        return blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = {}
            raw = read_regular(self._path, MAX_BYTES) if self._path else None
            if raw:
                import json  # noqa: PLC0415 - here and below: only verdicts asked for cost it (a clean lint imports no json)

                try:
                    data = json.loads(raw)
                    if isinstance(data, dict):
                        self._entries = data
                except (ValueError, RecursionError):
                    pass
        return self._entries

    def _seal(self, key: str, value: Any) -> str | None:
        if self._secret is None and self._folder:
            self._secret = _secret(self._folder)
        if not self._secret:
            return None
        import json  # noqa: PLC0415

        payload = json.dumps([self._fingerprint, key, value], separators=(",", ":"), sort_keys=True)
        return blake2b(payload.encode("utf-8", "surrogatepass"), key=self._secret, digest_size=32, person=b"dralint-verdict").hexdigest()

    def get(self, key: str) -> Any:
        entry = self._load().get(key)
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], str)):
            return None
        seal = self._seal(key, entry[0])
        return entry[0] if seal is not None and compare_digest(seal, entry[1]) else None

    def put(self, key: str, value: Any) -> None:
        if self._path is None or self.get(key) == value:
            return
        seal = self._seal(key, value)
        if seal is None:
            return
        entries = self._load()
        if len(entries) >= MAX_ENTRIES:
            entries.clear()
        entries[key] = [value, seal]
        if not self._dirty:
            self._dirty = True
            atexit.register(self.save)

    def save(self) -> None:
        if not (self._dirty and self._path and self._entries is not None):
            return
        self._dirty = False
        try:
            os.makedirs(os.path.dirname(self._path), exist_ok=True)
            import json  # noqa: PLC0415

            write_private(self._path, json.dumps(self._entries, separators=(",", ":")).encode())
        except OSError:
            pass  # a read-only home or a full disk only costs speed


def write_private(path: str, data: bytes, more: Iterable[bytes] = ()) -> None:
    """`data` (then each piece `more` yields, so that a large file need not be held in memory first) at `path`,
    atomically and readable by its owner only: written to a file of this process beside it, then renamed
    over it, so a concurrent reader sees the old bytes or the new, never a part. The temporary file goes on
    any failure, which is raised."""
    tmp = f"{path}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            for piece in more:
                handle.write(piece)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_regular(path: str, limit: int, what: str = "verdict cache") -> bytes | None:
    """The bytes of the regular file at `path` when it holds at most `limit`; None when there is none.
    Anything else there (a FIFO, a device, a folder, a file past `limit`) is None, with a note."""
    try:
        # O_NONBLOCK: opening a FIFO waits for a writer otherwise, forever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        _note(path, exc.strerror or str(exc), what)
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            _note(path, "not a regular file", what)
            return None
        data = os.read(fd, limit + 1) if st.st_size <= limit else b""
        if st.st_size > limit or len(data) > limit:
            _note(path, f"larger than {limit:,} bytes", what)
            return None
        return data
    except OSError as exc:
        _note(path, exc.strerror or str(exc), what)
        return None
    finally:
        os.close(fd)


_NOTED: set[str] = set()


def _note(path: str, why: str, what: str) -> None:
    # Standard error: standard output may be a report or the language server's stream.
    if path in _NOTED:
        return
    _NOTED.add(path)
    print(f"dralint: note: {what} {path} ignored: {why}", file=sys.stderr)


def _read_key(path: str) -> bytes:
    secret = read_regular(path, KEY_BYTES)
    return secret if secret is not None and len(secret) == KEY_BYTES else b""


def _secret(folder: str) -> bytes:
    """The cache's sealing key: read, or made (readable by its owner only) when there is none. Empty when neither works."""
    path = os.path.join(folder, KEY_FILE)
    secret = _read_key(path)
    if secret:
        return secret
    fresh = os.urandom(KEY_BYTES)
    tmp = None
    try:
        os.makedirs(folder, exist_ok=True)
        import tempfile  # once per cache folder, as in save()

        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".key-")  # mode 0600
        with os.fdopen(fd, "wb") as handle:
            handle.write(fresh)
        try:
            os.link(tmp, path)  # only where there is none: a key another process made meanwhile wins
            return fresh
        except FileExistsError:
            secret = _read_key(path)
            if secret:
                return secret
        except OSError:
            pass  # no hard links on this file system
        os.replace(tmp, path)  # a damaged key file, or no links: ours replaces it
        tmp = None
        return fresh
    except OSError:
        return b""
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def code_fingerprint(*module_files: str) -> str:
    """dralint's version plus size and mtime of the given files: changes whenever the checking code does."""
    parts = [__version__]
    for path in module_files:
        try:
            st = os.stat(path)
            parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{path}:missing")
    return "|".join(parts)
