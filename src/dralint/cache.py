"""A small on-disk cache of verdicts that are expensive to reach and never change for the same input.

Used for CEL selector checks: building the CEL environment (protobuf
descriptors, the C++ checker) costs more than the rest of a pre-commit run on
one file, while the verdict for a given expression, release and gate set is
fixed. The cache file is keyed by everything that could change a verdict
(dralint's version and the modification times of the checking code), so a
stale entry is never read; writes are atomic (temp file + rename), so
parallel pre-commit processes at worst lose each other's additions.

`DRALINT_CACHE_DIR` moves it; `DRALINT_NO_CACHE=1` turns it off.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import tempfile
from typing import Any

MAX_ENTRIES = 20_000


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
        folder = cache_dir()
        if folder:
            digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:16]
            self._path = os.path.join(folder, f"{name}-{digest}.json")
        self._entries: dict[str, Any] | None = None
        self._dirty = False

    @staticmethod
    def key(*parts: str) -> str:
        return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = {}
            if self._path:
                try:
                    with open(self._path, encoding="utf-8") as handle:
                        data = json.load(handle)
                    if isinstance(data, dict):
                        self._entries = data
                except (OSError, ValueError):
                    pass
        return self._entries

    def get(self, key: str) -> Any:
        return self._load().get(key)

    def put(self, key: str, value: Any) -> None:
        entries = self._load()
        if entries.get(key) == value or self._path is None:
            return
        if len(entries) >= MAX_ENTRIES:
            entries.clear()
        entries[key] = value
        if not self._dirty:
            self._dirty = True
            atexit.register(self.save)

    def save(self) -> None:
        if not (self._dirty and self._path and self._entries is not None):
            return
        self._dirty = False
        folder = os.path.dirname(self._path)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(self._entries, handle, separators=(",", ":"))
            os.replace(tmp, self._path)
        except OSError:
            # A read-only home or a full disk only costs speed.
            try:
                os.unlink(tmp)  # type: ignore[possibly-undefined]
            except (OSError, NameError):
                pass


def code_fingerprint(*module_files: str) -> str:
    """dralint's version plus size and mtime of the given files: changes whenever the checking code does."""
    from . import __version__

    parts = [__version__]
    for path in module_files:
        try:
            st = os.stat(path)
            parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{path}:missing")
    return "|".join(parts)
