"""The result cache's store: one sealed pack file per run configuration in `.dralint_cache/`.

A pack maps a file's path to (digest of its content and context, whether its
report quotes it, when it was stored, and where in a chunk what a run keeps of
the file is); a chunk is one blob of the partials of up to a few dozen files,
pickled one after the other with a shared memo (dralint.pipeline.result_cache), named
by an id made of a random number of the run that stored it and a count (not its digest: the seal already
covers its bytes, which are hashed once, not twice). Read in one call, written in one call. The cache key (dralint.pipeline.result_cache.run_key)
names the pack, so a pack holds only entries made under the same version,
code, rules, release and configuration; the key is also inside the pack and
checked.

Nothing in a pack is trusted until its seal verifies: a keyed BLAKE2b over
the whole payload, made with the per-user secret of the CEL verdict cache
(dralint.cache: `key`, mode 0600, in the user's cache folder, never in the
project). A pack copied from another machine or committed to a repository
(a hostile one saying "this file has no problems") fails the seal and is
ignored; only then is the payload decoded (marshal, plain data) and its
chunks (pickles of what this code stored) are loaded. A pack that is
not a regular file within MAX_PACK_BYTES is ignored with a note.

Concurrent runs (pre-commit batches, two terminals, `--jobs` workers that
only read) are safe: a pack is replaced atomically (written beside it, then
renamed), so a reader sees a whole old one or a whole new one; writers take
an advisory lock and merge what is on disk with their own entries, so they
do not lose each other's. Bounded: at most MAX_ENTRIES entries and
MAX_PACK_BYTES a pack (the oldest go first, and the chunks no entry names
with them), MAX_PACKS packs a folder.
"""

from __future__ import annotations

import marshal
import os
import time

from ..cache import blake2b, compare_digest, read_regular, write_private

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"DRALINT-RESULTS\n"
FORMAT = 3
SEAL_BYTES = 32
MAX_PACK_BYTES = 128 * 1024 * 1024
MAX_ENTRIES = 200_000
MAX_PACKS = 8
LOCK_WAIT = 5.0  # seconds a writer waits for another's lock before it gives up saving (speed, not results)
GITIGNORE = "# Made by dralint: the result cache is local, never committed.\n*\n"

Entry = tuple[bytes, bool, int, bytes, int]  # digest, has text, stamp, chunk id, index in the chunk
Chunks = dict[bytes, bytes]  # chunk id -> blob


def seal(secret: bytes, payload: bytes) -> bytes:
    return blake2b(payload, key=secret, digest_size=SEAL_BYTES, person=b"dralint-results").digest()


class Pack:
    """The entries and chunks of one pack: those read (verified) and those this run adds."""

    def __init__(self, folder: str, key: str, secret: bytes):
        self.folder = folder
        self.key = key
        self.secret = secret
        self.path = os.path.join(folder, f"results-{blake2b(key.encode(), digest_size=8).hexdigest()}.pack")
        self._read_as = _identity(self.path)  # taken before reading: a pack replaced meanwhile is read again on save
        self.entries, self.chunks = read_pack(self.path, key, secret)
        self.added: dict[str, Entry] = {}
        self.added_chunks: Chunks = {}
        self._chunk_prefix = os.urandom(12)  # this run's chunks' ids: no other run's (or pack's) chunk has them
        self._chunk_count = 0

    def get(self, name: str, digest: bytes) -> tuple[bool, bytes, int] | None:
        """(has text, chunk id, index) of the entry of `name` stored with `digest`, or None."""
        entry = self.entries.get(name)
        if entry is None or entry[0] != digest:
            return None
        return entry[1], entry[3], entry[4]

    def written_ns(self) -> int | None:
        """When the pack read was written (its modification time, ns), or None when there was none."""
        return self._read_as[3] if self._read_as is not None and self.entries else None

    def holds(self, name: str) -> bool:
        """Whether there is an entry for `name`, whatever its digest."""
        return name in self.entries

    def chunk(self, chunk_id: bytes) -> bytes:
        found = self.added_chunks.get(chunk_id)
        return found if found is not None else self.chunks[chunk_id]

    def put_chunk(self, blob: bytes) -> bytes:
        """Add a chunk; its id."""
        self._chunk_count += 1
        chunk_id = self._chunk_prefix + self._chunk_count.to_bytes(4, "big")
        self.added_chunks[chunk_id] = blob
        return chunk_id

    def put(self, name: str, digest: bytes, has_text: bool, chunk_id: bytes, index: int) -> None:
        self.added[name] = (digest, has_text, time.time_ns(), chunk_id, index)

    def save(self) -> bool:
        """Merge the added entries into the pack on disk, under the folder's lock. False when it could not."""
        if not self.added:
            return True
        try:
            prepare(self.folder)
            with _Lock(os.path.join(self.folder, "lock")) as locked:
                if not locked:
                    return False
                unchanged = self._read_as is not None and _identity(self.path) == self._read_as
                # What other runs saved since this one read the pack, unless none did.
                entries, chunks = (dict(self.entries), dict(self.chunks)) if unchanged else read_pack(self.path, self.key, self.secret)
                entries.update(self.added)
                chunks.update(self.added_chunks)
                write_private(self.path, *encode(*bounded(entries, chunks), self.key, self.secret))
                _prune(self.folder, keep=self.path)
            self.added, self.added_chunks = {}, {}
            return True
        except OSError:
            return False  # a read-only project or a full disk costs speed only


def _identity(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def encode(entries: dict[str, Entry], chunks: Chunks, key: str, secret: bytes) -> tuple[bytes, bytes]:
    """The pack's file as its head (magic and seal) and its payload, written one after the other: a pack of
    100,000 files is tens of MB, and joining them would hold a third copy at the run's peak."""
    payload = marshal.dumps((FORMAT, key, entries, chunks))
    return MAGIC + seal(secret, payload), payload


def read_pack(path: str, key: str, secret: bytes) -> tuple[dict[str, Entry], Chunks]:
    """The verified entries and chunks of the pack at `path`; nothing for anything else (absent, damaged,
    foreign, forged). An entry whose chunk is not in the pack is left out."""
    raw = read_regular(path, MAX_PACK_BYTES, what="result cache")
    if not raw or not raw.startswith(MAGIC):
        return {}, {}
    start = len(MAGIC) + SEAL_BYTES
    payload = memoryview(raw)[start:]  # not a copy of the whole pack: read at every run's start
    if not compare_digest(raw[len(MAGIC):start], seal(secret, payload)):
        return {}, {}
    try:
        decoded = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return {}, {}
    if not (isinstance(decoded, tuple) and len(decoded) == 4 and decoded[0] == FORMAT and decoded[1] == key
            and isinstance(decoded[2], dict) and isinstance(decoded[3], dict)):
        return {}, {}
    chunks = {i: blob for i, blob in decoded[3].items() if isinstance(i, bytes) and isinstance(blob, bytes)}
    entries = {name: entry for name, entry in decoded[2].items() if isinstance(name, str) and _is_entry(entry) and entry[3] in chunks}
    return entries, chunks


def _is_entry(entry: Any) -> bool:
    return (isinstance(entry, tuple) and len(entry) == 5 and isinstance(entry[0], bytes) and isinstance(entry[1], bool)
            and isinstance(entry[2], int) and isinstance(entry[3], bytes) and isinstance(entry[4], int))


def bounded(entries: dict[str, Entry], chunks: Chunks) -> tuple[dict[str, Entry], Chunks]:
    """`entries` and the chunks they name, the oldest entries dropped until at most MAX_ENTRIES and half of
    MAX_PACK_BYTES remain when over either (a chunk counts once, with the newest entry that names it)."""
    named = {entry[3] for entry in entries.values()}
    size = sum(len(name) + 64 for name in entries) + sum(len(chunks[c]) for c in named)
    if len(entries) <= MAX_ENTRIES and size <= MAX_PACK_BYTES // 2:
        return entries, {c: chunks[c] for c in named}
    kept: dict[str, Entry] = {}
    kept_chunks: Chunks = {}
    budget = MAX_PACK_BYTES // 4
    for name, entry in sorted(entries.items(), key=lambda item: item[1][2], reverse=True):
        cost = len(name) + 64 + (0 if entry[3] in kept_chunks else len(chunks[entry[3]]))
        if len(kept) >= MAX_ENTRIES // 2 or cost > budget:
            break
        kept[name] = entry
        kept_chunks[entry[3]] = chunks[entry[3]]
        budget -= cost
    return kept, kept_chunks


def prepare(folder: str) -> None:
    """The cache folder, with a `.gitignore` that keeps it out of commits (as ruff's `.ruff_cache`)."""
    os.makedirs(folder, exist_ok=True)
    ignore = os.path.join(folder, ".gitignore")
    if not os.path.lexists(ignore):
        write_private(ignore, GITIGNORE.encode())


def _prune(folder: str, keep: str) -> None:
    """At most MAX_PACKS packs (one per configuration): the least recently written go."""
    packs = []
    for name in os.listdir(folder):
        if name.startswith("results-") and name.endswith(".pack"):
            path = os.path.join(folder, name)
            try:
                packs.append((os.lstat(path).st_mtime_ns, path))
            except OSError:
                continue
    packs.sort(reverse=True)
    for _, path in packs[MAX_PACKS:]:
        if path != keep:
            try:
                os.unlink(path)
            except OSError:
                pass


class _Lock:
    """An advisory lock on the folder's `lock` file (no lock where fcntl is missing: writes stay atomic)."""

    def __init__(self, path: str):
        self.path = path
        self.fd: int | None = None

    def __enter__(self) -> bool:
        try:
            import fcntl  # noqa: PLC0415 - POSIX only; imported only when a run saves
        except ImportError:
            return True
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0), 0o600)
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.01)

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
