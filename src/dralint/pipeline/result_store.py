"""The result cache's store: one sealed pack file per run configuration in `.dralint_cache/`.

A pack maps a file's path to (digest of its content and context, whether its
report quotes it, when it was stored, and where in a chunk what a run keeps of
the file is); a chunk is one blob of the partials of up to a few dozen files,
pickled one after the other with a shared memo (dralint.pipeline.result_cache), named
by an id made of a random number of the run that stored it and a count. The cache key
(dralint.pipeline.result_cache.run_key) names the pack, so a pack holds only entries made
under the same version, code, rules, release and configuration; the key is also inside
the pack and checked.

On disk: MAGIC, the seal, the index's length, the index (marshal: the format, the key,
the entries and, per chunk, its offset and length after the index and its digest), then
the chunks one after the other. Only the index is read at a run's start; a chunk is read
by offset when a hit needs it (`Pack.chunk`), and what a run adds is written as it is
made to an unnamed file in the folder (`_Spill`), then copied into the new pack at
`save` a chunk at a time: neither the pack read nor the chunks made are held in memory
(a first run of 100,000 files held both, 2 x 43 MB, and its peak was 210-222 MiB).

Nothing in a pack is trusted until its seal verifies: a keyed BLAKE2b over the index,
made with the per-user secret of the CEL verdict cache (dralint.cache: `key`, mode 0600,
in the user's cache folder, never in the project), and each chunk's keyed digest, in the
sealed index, is checked against the bytes read before they are unpickled. A pack copied
from another machine or committed to a repository (a hostile one saying "this file has no
problems") fails the seal and is ignored; a pack whose index promises more bytes than the
file holds is ignored; a chunk whose bytes changed after the index was read (a pack is
never changed in place by dralint: only replaced) raises PackChanged, and the run is made
again without the cache (dralint.cli). A pack that is not a regular file within
MAX_PACK_BYTES is ignored with a note.

Concurrent runs (pre-commit batches, two terminals, `--jobs` workers that only read) are
safe: a pack is replaced atomically (written beside it, then renamed), so a reader sees a
whole old one or a whole new one, and keeps reading the one it opened; writers take an
advisory lock and merge what is on disk with their own entries, so they do not lose each
other's. Bounded: at most MAX_ENTRIES entries and MAX_PACK_BYTES a pack (the oldest go
first, and the chunks no entry names with them), MAX_PACKS packs a folder.
"""

from __future__ import annotations

import marshal
import os
import stat
import time

from ..cache import _note, blake2b, compare_digest, write_private

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

MAGIC = b"DRALINT-RESULTS\n"
FORMAT = 4
SEAL_BYTES = 32
LENGTH_BYTES = 8  # the index's length, big-endian, after the seal
HEAD_BYTES = len(MAGIC) + SEAL_BYTES + LENGTH_BYTES
CHUNK_DIGEST_BYTES = 32
MAX_PACK_BYTES = 128 * 1024 * 1024
MAX_ENTRIES = 200_000
MAX_PACKS = 8
LOCK_WAIT = 5.0  # seconds a writer waits for another's lock before it gives up saving (speed, not results)
COPY_BYTES = 1024 * 1024  # a chunk is copied into a new pack this much at a time at most
GITIGNORE = "# Made by dralint: the result cache is local, never committed.\n*\n"

# An entry is one bytes object, a third of the memory of a tuple of its parts (100,000 of them are held by a
# first run): the file's digest, its chunk's id, then its index in the chunk and whether its report quotes it.
Entry = bytes
DIGEST_BYTES = 16
ID_BYTES = 16
ENTRY_BYTES = DIGEST_BYTES + ID_BYTES + 4
Place = tuple[int, int, bytes, int]  # a chunk's offset (after the index, or in the spill), length, digest, when made (ns)
Table = dict[bytes, Place]  # chunk id -> where it is


def entry(digest: bytes, has_text: bool, chunk_id: bytes, index: int) -> Entry:
    """The entry of a file whose partial is the `index`th of chunk `chunk_id` (ids and digests have fixed lengths)."""
    return digest + chunk_id + (index * 2 + has_text).to_bytes(4, "big")


def chunk_of(stored: Entry) -> bytes:
    return stored[DIGEST_BYTES:DIGEST_BYTES + ID_BYTES]


class PackChanged(Exception):
    """A chunk's bytes are not those the verified index names: the pack was changed in place after it was read
    (never by dralint, which only replaces a pack whole), or its disk is failing. Nothing of it was unpickled."""

    def __init__(self, path: str):
        super().__init__(path)  # its only argument: pickled whole from a worker process, and made again the same
        self.path = path

    def __str__(self) -> str:
        return f"the result cache {self.path} changed while it was read"


def seal(secret: bytes, index: bytes) -> bytes:
    return blake2b(index, key=secret, digest_size=SEAL_BYTES, person=b"dralint-results").digest()


def chunk_digest(secret: bytes, blob: bytes) -> bytes:
    return blake2b(blob, key=secret, digest_size=CHUNK_DIGEST_BYTES, person=b"dralint-chunk").digest()


class Pack:
    """The entries of one pack, those read (verified) and those this run adds, and their chunks, read by offset."""

    def __init__(self, folder: str, key: str, secret: bytes):
        self.folder = folder
        self.key = key
        self.secret = secret
        self.path = os.path.join(folder, f"results-{blake2b(key.encode(), digest_size=8).hexdigest()}.pack")
        self._file: _Opened | None = read_pack(self.path, key, secret)
        self.entries: dict[str, Entry] = self._file.entries if self._file else {}
        self.added: dict[str, Entry] = {}
        self._spill: _Spill | None = None  # this run's chunks, made at the first
        self._chunk_prefix = os.urandom(12)  # this run's chunks' ids: no other run's (or pack's) chunk has them
        self._chunk_count = 0

    def get(self, name: str, digest: bytes) -> tuple[bool, bytes, int] | None:
        """(has text, chunk id, index) of the entry of `name` stored with `digest`, or None."""
        stored = self.entries.get(name)
        if stored is None or stored[:DIGEST_BYTES] != digest:
            return None
        flags = int.from_bytes(stored[DIGEST_BYTES + ID_BYTES:], "big")
        return bool(flags & 1), chunk_of(stored), flags >> 1

    def written_ns(self) -> int | None:
        """When the pack read was written (its modification time, ns), or None when there was none."""
        return self._file.identity[3] if self._file is not None and self.entries else None

    def holds(self, name: str) -> bool:
        """Whether there is an entry for `name`, whatever its digest."""
        return name in self.entries

    def chunk(self, chunk_id: bytes) -> bytes:
        """A chunk's bytes, checked against its digest (PackChanged when they do not match)."""
        spill = self._spill
        if spill is not None and chunk_id in spill.table:
            return spill.read(chunk_id)
        assert self._file is not None, "a chunk id of an entry read: there is a pack"  # noqa: S101
        return self._file.read(chunk_id, self.secret)

    def put_chunk(self, blob: bytes) -> bytes:
        """Add a chunk (written now to this run's spill); its id."""
        self._chunk_count += 1
        chunk_id = self._chunk_prefix + self._chunk_count.to_bytes(4, "big")
        if self._spill is None:
            self._spill = _Spill(self.folder, self.secret)
        self._spill.add(chunk_id, blob)
        return chunk_id

    def put(self, name: str, digest: bytes, has_text: bool, chunk_id: bytes, index: int) -> None:
        self.added[name] = entry(digest, has_text, chunk_id, index)

    def save(self) -> bool:
        """Merge the added entries into the pack on disk, under the folder's lock. False when it could not."""
        if not self.added:
            return True
        try:
            prepare(self.folder)
            with _Lock(os.path.join(self.folder, "lock")) as locked:
                if not locked:
                    return False
                current = self._file
                # What other runs saved since this one read the pack, unless none did.
                if current is None or _identity(self.path) != current.identity:
                    current = read_pack(self.path, self.key, self.secret)
                try:
                    entries = dict(current.entries) if current else {}
                    entries.update(self.added)
                    sources: dict[bytes, tuple[Any, Place]] = {c: (current, p) for c, p in current.table.items()} if current else {}
                    spill = self._spill
                    if spill is not None:
                        sources.update((c, (spill, p)) for c, p in spill.table.items())
                    entries, kept = bounded(entries, {c: (p[1], p[3]) for c, (_, p) in sources.items()})
                    write_pack(self.path, entries, {c: sources[c] for c in kept}, self.key, self.secret)
                finally:
                    if current is not None and current is not self._file:
                        current.close()
                _prune(self.folder, keep=self.path)
            self.added = {}
            return True
        except (OSError, PackChanged):
            return False  # a read-only project, a full disk or a pack changed in place costs speed only

    def close(self) -> None:
        """Close the pack read and this run's spill (a run's end; the pack is not used after)."""
        for held in (self._file, self._spill):
            if held is not None:
                held.close()
        self._file = self._spill = None

    def discard(self) -> None:
        """Remove the pack read, when it is still the file at its path (changed in place: its size or time may
        differ), not one another run put there since: a chunk of it changed after its index was read."""
        opened = self._file
        now = _identity(self.path)
        if opened is not None and now is not None and now[:2] == opened.identity[:2]:
            try:
                os.unlink(self.path)
            except OSError:
                pass
        self.close()


class _Held:
    """An open file of the pack's (a pack read, a run's spill), closed at a run's end or when it is dropped."""

    fd = -1

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __del__(self) -> None:
        self.close()


class _Opened(_Held):
    """A pack whose index verified, open: its entries, its chunks' places, read by offset as the run needs them."""

    def __init__(self, fd: int, path: str, identity: tuple[int, int, int, int], start: int, entries: dict[str, Entry], table: Table):
        self.fd, self.path, self.identity, self.start = fd, path, identity, start
        self.entries, self.table = entries, table

    def read(self, chunk_id: bytes, secret: bytes) -> bytes:
        offset, length, digest, _ = self.table[chunk_id]
        blob = _pread(self.fd, length, self.start + offset) if self.fd >= 0 else b""
        if len(blob) != length or not compare_digest(chunk_digest(secret, blob), digest):
            raise PackChanged(self.path)
        return blob

    def pieces(self, chunk_id: bytes) -> Iterator[bytes]:
        """A chunk's bytes as they are in the file, COPY_BYTES at a time (into a new pack: its digest goes with it,
        so a chunk changed in place since is caught when a run reads it from there)."""
        offset, length, _, _ = self.table[chunk_id]
        yield from _pieces(self.fd, self.start + offset, length, self.path)



class _Spill(_Held):
    """The chunks a run makes, written as they come to an unnamed file in the cache folder (O_TMPFILE, or a file
    removed as soon as it is made), then copied into the pack at `save`. Where the folder cannot take it (a
    read-only project), they are held in memory instead: the save that follows fails there anyway."""

    def __init__(self, folder: str, secret: bytes):
        self.secret = secret
        self.table: Table = {}
        self.size = 0
        self.fd = -1
        self._memory: dict[bytes, bytes] | None = None
        try:
            prepare(folder)
            self.fd = _unnamed(folder)
        except OSError:
            self._memory = {}

    def add(self, chunk_id: bytes, blob: bytes) -> None:
        digest = chunk_digest(self.secret, blob)
        if self._memory is not None:
            self._memory[chunk_id] = blob
        else:
            view = memoryview(blob)
            while view:
                view = view[os.write(self.fd, view):]
        self.table[chunk_id] = (self.size, len(blob), digest, time.time_ns())
        self.size += len(blob)

    def read(self, chunk_id: bytes) -> bytes:
        offset, length, digest, _ = self.table[chunk_id]
        blob = self._memory[chunk_id] if self._memory is not None else _pread(self.fd, length, offset)
        if len(blob) != length or not compare_digest(chunk_digest(self.secret, blob), digest):
            raise PackChanged("(this run's chunks)")
        return blob

    def pieces(self, chunk_id: bytes) -> Iterator[bytes]:
        if self._memory is not None:
            yield self._memory[chunk_id]
            return
        offset, length, _, _ = self.table[chunk_id]
        yield from _pieces(self.fd, offset, length, "(this run's chunks)")



def _unnamed(folder: str) -> int:
    """A file open for reading and writing that no name reaches, in `folder` (so its bytes stay on that disk)."""
    flags = os.O_RDWR | getattr(os, "O_BINARY", 0)
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if tmpfile:
        try:
            return os.open(folder, flags | tmpfile, 0o600)
        except OSError:
            pass  # a file system without it: a named file, removed at once
    path = os.path.join(folder, f"spill.{os.getpid()}.{os.urandom(8).hex()}.tmp")
    fd = os.open(path, flags | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.unlink(path)
    except OSError:
        os.close(fd)
        raise
    return fd


def _pread(fd: int, length: int, offset: int) -> bytes:
    """`length` bytes at `offset`, fewer only at the file's end."""
    blob = os.pread(fd, length, offset)
    if len(blob) == length or not blob:
        return blob
    parts = [blob]
    got = len(blob)
    while got < length:
        more = os.pread(fd, length - got, offset + got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def _pieces(fd: int, offset: int, length: int, path: str) -> Iterator[bytes]:
    end = offset + length
    while offset < end:
        piece = _pread(fd, min(COPY_BYTES, end - offset), offset)
        if not piece:
            raise PackChanged(path)  # shorter than its verified index says: never written with it
        yield piece
        offset += len(piece)


def _identity(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def encode_index(entries: dict[str, Entry], table: Table, key: str, secret: bytes, version: int = FORMAT) -> bytes:
    """A pack's head and index: MAGIC, the seal over the index, the index's length, the index (marshal's version 2,
    which keeps no table of every object written, as 3 and 4 do: less memory at a first run's end)."""
    index = marshal.dumps((version, key, entries, table), 2)
    return MAGIC + seal(secret, index) + len(index).to_bytes(LENGTH_BYTES, "big") + index


def encode(entries: dict[str, Entry], chunks: dict[bytes, bytes], key: str, secret: bytes, version: int = FORMAT) -> list[bytes]:
    """A whole pack from chunks held in memory, as pieces to join (the tests' forged and damaged packs)."""
    table: Table = {}
    offset = 0
    for chunk_id, blob in chunks.items():
        table[chunk_id] = (offset, len(blob), chunk_digest(secret, blob), 0)
        offset += len(blob)
    return [encode_index(entries, table, key, secret, version), *chunks.values()]


def write_pack(path: str, entries: dict[str, Entry], sources: dict[bytes, tuple[Any, Place]], key: str, secret: bytes) -> None:
    """The pack of `entries` and the chunks they name, each copied from where it is now (`sources`: the pack read,
    or this run's spill) a piece at a time, with the digest it had there."""
    table: Table = {}
    offset = 0
    for chunk_id, (_, (_, length, digest, stamp)) in sources.items():
        table[chunk_id] = (offset, length, digest, stamp)
        offset += length

    def chunks() -> Iterator[bytes]:
        for chunk_id, (source, _) in sources.items():
            yield from source.pieces(chunk_id)

    write_private(path, encode_index(entries, table, key, secret), chunks())


def read_pack(path: str, key: str, secret: bytes) -> _Opened | None:
    """The pack at `path`, open, when its index verifies; None for anything else (absent, damaged, foreign, forged,
    an index naming bytes past the file's end). An entry whose chunk is not in the index is left out."""
    try:
        # O_NONBLOCK: opening a FIFO waits for a writer otherwise, forever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        _note(path, exc.strerror or str(exc), "result cache")
        return None
    try:
        opened = _verified(fd, path, key, secret)
    except OSError as exc:
        _note(path, exc.strerror or str(exc), "result cache")
        opened = None
    if opened is None:
        os.close(fd)
    return opened


def _verified(fd: int, path: str, key: str, secret: bytes) -> _Opened | None:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_PACK_BYTES:
        _note(path, "not a regular file" if not stat.S_ISREG(st.st_mode) else f"larger than {MAX_PACK_BYTES:,} bytes", "result cache")
        return None
    head = _pread(fd, HEAD_BYTES, 0)
    length = int.from_bytes(head[-LENGTH_BYTES:], "big")
    if len(head) < HEAD_BYTES or not head.startswith(MAGIC) or HEAD_BYTES + length > st.st_size:
        return None
    index = _pread(fd, length, HEAD_BYTES)
    if len(index) != length or not compare_digest(head[len(MAGIC):len(MAGIC) + SEAL_BYTES], seal(secret, index)):
        return None
    try:
        decoded = marshal.loads(index)
    except (ValueError, EOFError, TypeError):
        return None
    if not (isinstance(decoded, tuple) and len(decoded) == 4 and decoded[0] == FORMAT and decoded[1] == key
            and isinstance(decoded[2], dict) and isinstance(decoded[3], dict)):
        return None
    start = HEAD_BYTES + length
    table = {c: p for c, p in decoded[3].items() if isinstance(c, bytes) and _is_place(p)}
    if any(start + offset + size > st.st_size for offset, size, _, _ in table.values()):
        return None  # truncated: ignored whole, and written again whole by this run
    entries = {name: e for name, e in decoded[2].items() if isinstance(name, str) and isinstance(e, bytes) and len(e) == ENTRY_BYTES
               and chunk_of(e) in table}
    return _Opened(fd, path, (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns), start, entries, table)


def _is_place(place: Any) -> bool:
    return (isinstance(place, tuple) and len(place) == 4 and isinstance(place[0], int) and isinstance(place[1], int)
            and place[0] >= 0 and place[1] >= 0 and isinstance(place[2], bytes) and isinstance(place[3], int))


def bounded(entries: dict[str, Entry], chunks: dict[bytes, tuple[int, int]]) -> tuple[dict[str, Entry], list[bytes]]:
    """`entries` and the chunks they name (of `chunks`: each one's length and when it was made), the entries of the
    oldest chunks dropped until at most MAX_ENTRIES and half of MAX_PACK_BYTES remain when over either (a chunk
    counts once, with the first of its entries kept)."""
    named = list(dict.fromkeys(chunk_of(e) for e in entries.values()))
    size = len(entries) * (ENTRY_BYTES + 64) + sum(len(name) for name in entries) + sum(chunks[c][0] + 64 for c in named)
    if len(entries) <= MAX_ENTRIES and size <= MAX_PACK_BYTES // 2:
        return entries, named
    kept: dict[str, Entry] = {}
    kept_chunks: dict[bytes, None] = {}
    budget = MAX_PACK_BYTES // 4
    for name, e in sorted(entries.items(), key=lambda item: chunks[chunk_of(item[1])][1], reverse=True):
        chunk_id = chunk_of(e)
        cost = len(name) + ENTRY_BYTES + 64 + (0 if chunk_id in kept_chunks else chunks[chunk_id][0] + 64)
        if len(kept) >= MAX_ENTRIES // 2 or cost > budget:
            break
        kept[name] = e
        kept_chunks[chunk_id] = None
        budget -= cost
    return kept, list(kept_chunks)


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
