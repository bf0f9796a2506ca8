"""The result cache (`.dralint_cache/`): what a run kept of each file, reused while nothing it depends on changed.

What a file contributes to a run is its partial (dralint.pipeline.partial): problems
positioned and with fixes, counters, names, the run-scope records and the
suppressions met, what the CLI run absorbs as it absorbs a `--jobs` worker's
chunk (dralint.pipeline.parallel). A serial run checks a fresh file itself, the
file's part set aside while it is checked (`_InRun`); a worker checks its files
with one run that starts each afresh (`FileChecker`). That partial is stored under the file's path and the digest of its bytes
and of the kustomizations above it (`digest`), in the pack of the run's key
(`run_key`: dralint's version and code, every rule module's bytes, policies,
release, gates and the effective configuration). The run-scope rules are
judged at the end over cached and fresh records alike, so the report is the
one a run without the cache gives, byte for byte, whatever the format.

Not stored, so always checked: standard input, unreadable files, kustomize
patches and rendered streams whose problems move to their origin files (both
depend on other files). `--fix` bypasses the cache. The store is
dralint.pipeline.result_store (sealed, atomic, bounded).
"""

from __future__ import annotations

import importlib
import io
import os
import pickle
import sys

from .. import __version__, schemas
from ..cache import _secret, blake2b, cache_dir
from ..model import Span
from ..registry import BUILTIN_PACKAGE
from .kustomize import MAX_LEVELS, NAMES, Kustomizations
from .options import LintOptions
from .partial import LintResult, PartialResult
from .result_store import Pack
from .sources import Source

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence

    from ..api import Rule

FOLDER = ".dralint_cache"
MAX_BLOB = 4 * 1024 * 1024  # a file whose kept results are larger is checked each time
CHUNK_FILES = 32  # fresh files whose partials share a chunk (a hit decodes its whole chunk)
CHUNK_BYTES = 1024 * 1024  # a chunk this large is closed early


def project_root(config_path: str | None) -> str:
    """Where `.dralint_cache/` goes: the config file's folder, else the git work tree's top, else here."""
    if config_path:
        return os.path.dirname(os.path.abspath(config_path))
    here = folder = os.getcwd()
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return here
        folder = parent


def open_pack(options: LintOptions, folder: str | None, config_path: str | None) -> Pack | None:
    """The pack of this run's key in `folder` (default: the project root's `.dralint_cache`), or None when the
    cache cannot be used: DRALINT_NO_CACHE, no per-user secret, a legacy run-scope rule, fixers."""
    user = cache_dir()
    if user is None or options.keep is None or options.fixers or any(r.scope == "run" and r.collect is None for r in _rules_to_see(options)):
        return None
    secret = _secret(user)
    if not secret:
        return None
    folder = folder or os.path.join(project_root(config_path), FOLDER)
    if os.path.islink(folder):
        return None  # a link committed in the folder's place must not make dralint write (or prune) elsewhere
    return Pack(folder, run_key(options, config_path), secret)


def run_key(options: LintOptions, config_path: str | None) -> str:
    """Everything besides a file's own bytes that a file's results depend on, as one hex digest."""
    h = blake2b(digest_size=32)

    def add(*parts: Any) -> None:
        h.update(repr(parts).encode("utf-8", "surrogatepass"))
        h.update(b"\0")

    add(__version__, sys.implementation.name, sys.version_info[:2], os.getcwd())
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the whole of dralint, not only the pipeline
    for top in (package, schemas.schemas_dir()):
        _add_tree_stats(add, top)  # the engine and schemas: an edited checkout changes the key
    rules = _rules_to_see(options)
    for path in _rule_files(rules, options.rules_dirs, builtin=rules is options.extra_rules):
        add(path, _file_hash(path))
    selection = options.selection
    add(options.release, options.rules_dirs, options.plugins, selection.select, selection.ignore,
        sorted((k, int(v)) for k, v in selection.severities.items()), _canonical(options.rule_options),
        options.target_version, sorted(options.feature_gates.items()), options.inline_suppressions,
        sorted(options.keep or ()), options.origins, [(r.code, r.slug, r.origin) for r in rules], rules is options.extra_rules)
    add(config_path, _file_hash(config_path) if config_path else None)  # ignore-paths, relative to it
    return h.hexdigest()


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return sorted((repr(k), _canonical(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return repr(value)


def _add_tree_stats(add: Any, top: str) -> None:
    """Each file's path under `top`, size and modification time (bytecode caches left out)."""
    folders = [""]
    while folders:
        relative = folders.pop()
        try:
            with os.scandir(os.path.join(top, relative)) as listing:
                found = sorted((entry.name, entry) for entry in listing)
        except OSError:
            continue
        for name, entry in found:
            path = relative + name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name != "__pycache__":
                        folders.append(path + "/")
                    continue
                st = entry.stat()
            except OSError:
                continue
            add(path, st.st_size, st.st_mtime_ns)


def _rules_to_see(options: LintOptions) -> Sequence[Rule]:
    """The rules whose identity the key holds: with only the built-in rules (and policies), the policies alone,
    the built-in rules being their files (`_rule_files`), so that neither the key nor a re-run the cache
    answers whole loads them (none of them is a legacy run-scope rule: tests/test_result_cache.py)."""
    return options.extra_rules if options.builtin_rules_only() else options.rules()


def _rule_files(rules: Sequence[Rule], rules_dirs: Sequence[str], builtin: bool) -> list[str]:
    """The files every rule in use comes from (their modules and the `.py` files beside them), the built-in
    rules' folder when `builtin`, and policy files."""
    folders: set[str] = set()
    files: set[str] = set()
    if builtin:
        folders.update(os.path.abspath(folder) for folder in importlib.import_module(BUILTIN_PACKAGE).__path__)
    for rule in rules:
        if rule.origin.startswith("policy "):
            files.add(rule.origin[len("policy "):])
            continue
        module = sys.modules.get(rule.origin)
        path = getattr(module, "__file__", None)
        if path:
            folders.add(os.path.dirname(os.path.abspath(path)))
    folders.update(os.path.abspath(d) for d in rules_dirs)
    for folder in folders:
        try:
            files.update(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".py"))
        except OSError:
            continue
    return sorted(files)


def _file_hash(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return blake2b(handle.read(), digest_size=16).hexdigest()
    except OSError:
        return None


_SLASH_ONLY = os.sep == "/" and os.altsep is None


class Digests:
    """A file's digest: its bytes and the kustomizations of its folder and those above (a file a kustomization
    names as a patch is judged as one), so adding, editing or removing a kustomization changes it."""

    def __init__(self) -> None:
        # Per folder (on POSIX the name up to its last "/"): a hasher keyed with the folder's context, copied per file.
        self._keyed: dict[str, Any] = {}

    def of(self, name: str, data: bytes) -> bytes:
        folder = name[:name.rfind("/") + 1] if _SLASH_ONLY else os.path.dirname(name)  # the same dirname for the same head
        keyed = self._keyed.get(folder)
        if keyed is None:
            context = self._kustomizations_above(os.path.abspath(os.path.dirname(name) or "."))
            keyed = self._keyed[folder] = blake2b(digest_size=16, key=context)
        h = keyed.copy()
        h.update(data)
        return h.digest()

    @staticmethod
    def _kustomizations_above(folder: str) -> bytes:
        h = blake2b(digest_size=32)
        for _ in range(MAX_LEVELS):
            for name in NAMES:
                path = os.path.join(folder, name)
                found = _file_hash(path) if os.path.isfile(path) else None
                if found is not None:
                    h.update(f"{path}\0{found}\0".encode("utf-8", "surrogateescape"))
            parent = os.path.dirname(folder)
            if parent == folder or os.path.isdir(os.path.join(folder, ".git")):
                break
            folder = parent
        return h.digest()


class FileChecker:
    """Checks one file at a time with a run of its own, for a run that absorbs the partials in file order.

    One run serves every file: its per-file state (result, records, first documents, failures, rendered
    documents, suppressor) starts afresh for each, while what only speeds checking up (rule tables, gate
    states, kustomizations, one copy of each message) is kept, as one run over all the files keeps it."""

    def __init__(self, options: LintOptions):
        from .run import _Run  # noqa: PLC0415 - a re-run answered whole from the cache loads none of the pipeline

        run = self._run = _Run(options)
        if run.kustomizations is None:
            run.kustomizations = Kustomizations()  # shared: read once per folder, not once per file
        self._fresh_suppressor = options.ignore_paths is not None
        self._spare: Any = None  # a suppressor a file left holding nothing, for the next file (as `_InRun`'s)
        self.digests = Digests()

    def partial(self, source: Source) -> tuple[PartialResult, bool]:
        """The file's partial (dralint.pipeline.run._Run.partial) and whether it may be stored."""
        run = self._run
        run.result = LintResult()
        run.records, run.first, run.late, run.rendered, run.views_by_release = {}, {}, [], {}, {}
        run.suppressor, self._spare = (run.new_suppressor() if self._fresh_suppressor else self._spare), None
        run.check_source(source)
        if run.suppressor is not None and run.suppressor.holds_nothing():  # none: not stored, not merged
            run.suppressor, self._spare = None, run.suppressor
        storable = source.data is not None and not run.rendered and run.patch_of(source.name) is None
        return run.partial(), storable

    def items(self, sources: Iterable[Source], pack: Pack) -> tuple[list[tuple], list[bytes]]:
        """What a `--jobs` worker sends back for its files, in file order: for a hit, (name, digest, has_text,
        where, text), where is its (chunk id, index) in the pack (not even decoded here); for a fresh file,
        (name, digest, has_text, (number, index), None), its partial's place among the returned chunks' blobs
        (digest None: not to be stored); and after each run of fresh files, (None, None, False, their partials
        merged, None), which the parent absorbs as a worker's chunk without the cache (it decodes no fresh
        blob and merges once a run, not once a file)."""
        chunks = [Chunk()]
        items: list[tuple] = []
        merged: PartialResult | None = None  # the fresh files' since the last hit
        for source in sources:
            digest = self.digests.of(source.name, source.data) if source.data is not None else None
            hit = pack.get(source.name, digest) if digest is not None else None
            if hit is not None:
                if merged is not None:
                    items.append((None, None, False, merged, None))
                    merged = None
                items.append((source.name, digest, hit[0], hit[1:], source.data if hit[0] else None))
                continue
            partial, storable = self.partial(source)
            has_text, plain = plain_of(source.name, partial)
            if chunks[-1].count >= CHUNK_FILES or chunks[-1].size() >= CHUNK_BYTES:
                chunks.append(Chunk())
            where = (len(chunks) - 1, chunks[-1].add(plain))  # pickled before the merge below changes what it holds
            items.append((source.name, digest if storable else None, has_text, where, None))
            if merged is None:
                merged = partial
            else:
                merged.merge(partial)
        if merged is not None:
            items.append((None, None, False, merged, None))
        return items, [chunk.blob() for chunk in chunks if chunk.count]


def plain_of(name: str, partial: PartialResult) -> tuple[bool, tuple]:
    """A partial as plain tuples (what `merge` takes), without the file's own bytes (read again on a hit),
    and whether its report quotes them."""
    result = partial.result
    texts = result.texts
    has_text = name in texts
    # A new dict each time, even empty: `merge` puts the file's bytes back into the one it decodes.
    others = {k: v for k, v in texts.items() if k != name} if len(texts) > has_text else {}
    # A Place as a plain tuple: pickled and loaded in C, made a Place only for the first file of a release.
    firsts = {release: (*place[:4], tuple(place.at), *place[5:]) for release, place in partial.first.items()}
    plain = (result.problems, (result.files, result.documents, result.checked, result.passed_over, result.files_passed_over, result.empty),
             result.passed_over_files, result.objects, result.source_names, partial.records, firsts, partial.late, partial.suppressor,
             partial.rendered, others)
    return has_text, plain


class Chunk:
    """Partials pickled one after the other into one blob with one memo, so that a class or a string the files
    share is written once a chunk, not once a file; read back whole and in order (`read_chunk`)."""

    def __init__(self) -> None:
        self._buffer = io.BytesIO()
        self._pickler = pickle.Pickler(self._buffer, pickle.HIGHEST_PROTOCOL)
        self.count = 0

    def add(self, plain: tuple) -> int:
        """Pickle `plain` now, before the run absorbs (and may change) what it holds; its index in the chunk."""
        self._pickler.dump(plain)
        self.count += 1
        return self.count - 1

    def size(self) -> int:
        return self._buffer.tell()

    def blob(self) -> bytes:
        return self._buffer.getvalue()


def read_chunk(blob: bytes) -> list:
    """Every pickle of a chunk, in order (the later ones refer to the memo of the earlier)."""
    unpickler = pickle.Unpickler(io.BytesIO(blob))  # noqa: S301 - from a pack whose seal verified, or our own worker
    plains = []
    while True:
        try:
            plains.append(unpickler.load())
        except EOFError:
            return plains


class Chunks:
    """The pack's chunks a run's hits are in, each decoded once while its files come (files come in the order
    they were stored in, so the last few decoded are kept)."""

    KEEP = 4

    def __init__(self, pack: Pack):
        self._pack = pack
        self._decoded: dict[bytes, list] = {}

    def plain(self, chunk_id: bytes, index: int) -> Any:
        plains = self._decoded.get(chunk_id)
        if plains is None or plains[index] is None:
            if len(self._decoded) >= self.KEEP:
                del self._decoded[next(iter(self._decoded))]
            plains = self._decoded[chunk_id] = read_chunk(self._pack.chunk(chunk_id))
        plain, plains[index] = plains[index], None  # each is merged once, and may be changed by the merge
        return plain


class _Writer:
    """A serial run's fresh partials, into chunks of CHUNK_FILES files. Pickled, digested and stored a chunk
    at a time rather than file by file between checks, which then find their own code and data still in the
    processor's caches; a partial waits only while nothing the run does can change it (`_InRun`)."""

    def __init__(self, pack: Pack, digests: Digests, file_digests: list[bytes | None]):
        self._pack = pack
        self._digests = digests
        self._file_digests = file_digests  # the run's, in order: a digest put off is put in its place
        self._chunk = Chunk()
        self._names: list[tuple[str, bytes, bool]] = []
        self._pending: list[tuple[int, str, bytes, bytes | None, bool, tuple]] = []
        self.complete = True  # every file given was stored (none too large)

    def add(self, position: int, name: str, data: bytes, digest: bytes | None, has_text: bool, plain: tuple) -> None:
        """Store the file's partial (`plain_of`); `digest` None: not computed yet (the file at `position` of the
        run's digests)."""
        pending = self._pending
        pending.append((position, name, data, digest, has_text, plain))
        if len(pending) >= CHUNK_FILES:
            self.flush()

    def flush(self) -> None:
        """Pickle the partials given so far, in order, into chunks, storing each chunk that fills."""
        pending, self._pending = self._pending, []
        for position, name, data, digest, has_text, plain in pending:
            if digest is None:
                digest = self._file_digests[position] = self._digests.of(name, data)
            chunk = self._chunk
            before = chunk.size()
            chunk.add(plain)
            size = chunk.size()
            if size > MAX_BLOB:
                self._store(chunk.blob()[:before])  # the pickles before this one's stand without it
                self.complete = False
                continue
            names = self._names
            names.append((name, digest, has_text))
            if len(names) >= CHUNK_FILES or size >= CHUNK_BYTES:
                self._store(chunk.blob())

    def close(self) -> None:
        self.flush()
        self._store(self._chunk.blob())

    def _store(self, blob: bytes) -> None:
        if self._names:
            chunk_id = self._pack.put_chunk(blob)
            for index, (name, digest, has_text) in enumerate(self._names):
                self._pack.put(name, digest, has_text, chunk_id, index)
        self._chunk, self._names = Chunk(), []


def merge(run: Any, plain: tuple, name: str, text: bytes | None) -> None:
    """A stored partial (`plain_of`) back as a PartialResult, merged by `run.absorb` as a worker's is; the
    file's own bytes (`text`, read again on a hit) are put back among the texts its report quotes."""
    problems, counts, passed_over_files, objects, source_names, records, first, late, suppressor, rendered, texts = plain
    result = LintResult()
    result.problems = problems
    result.files, result.documents, result.checked, result.passed_over, result.files_passed_over, result.empty = counts
    result.passed_over_files, result.objects, result.source_names, result.texts = passed_over_files, objects, source_names, texts
    if text is not None:
        texts[name] = text
    from ..api import Place  # noqa: PLC0415 - a re-run answered whole loads none of the rule API

    # A Place only for a release the run has none for yet: the first file's wins (PartialResult.merge).
    known = run.first
    firsts = {release: Place(*place[:4], Span(*place[4]), *place[5:]) for release, place in first.items() if release not in known}
    run.absorb(PartialResult(result, records, firsts, late, suppressor, rendered))


def absorb_items(run: Any, part: tuple[list[tuple], list[bytes]], pack: Pack, stored: Chunks,
                 seen: list[tuple[str, bytes | None]]) -> None:
    """A worker's `FileChecker.items`, absorbed in order; its fresh chunks stored (those not too large). `seen`
    gets each file's name and digest, None when the pack holds nothing for it (`store_run`)."""
    items, blobs = part
    ids = [pack.put_chunk(blob) if len(blob) <= MAX_BLOB else None for blob in blobs]
    for name, digest, has_text, where, text in items:
        if name is None:  # fresh files' partials, merged by the worker
            run.absorb(where)
            continue
        if isinstance(where[0], bytes):
            merge(run, stored.plain(*where), name, text)
            seen.append((name, digest))
            continue
        number, index = where
        if ids[number] is not None and digest is not None:
            pack.put(name, digest, has_text, ids[number], index)
            seen.append((name, digest))
        else:
            seen.append((name, None))


def store_run(pack: Pack, seen: list[tuple[str, bytes | None]], result: LintResult) -> None:
    """Store a `--jobs` run's finished result whole when the pack holds every one of its files (`seen`, in
    order), as `lint_serial` stores its own: the next run with the same files and bytes, serial since the
    pack holds them all (dralint.pipeline.parallel.since_stored), is answered with it."""
    if seen and result.files and all(digest is not None for _, digest in seen):
        signature = _signature([name for name, _ in seen], [digest for _, digest in seen])  # type: ignore[misc]
        pack.put(RUN, signature, False, pack.put_chunk(_encode_run(result)), 0)


def lint_serial(sources: Iterable[Source], options: LintOptions, pack: Pack) -> LintResult:
    """`lint()` of `sources` with the cache: a hit is absorbed as stored, a miss checked, absorbed and stored.

    Hits are held back (name, digest, their text) until the first miss: when every file hits and the run's
    files and digests, in order, are those of a run stored whole (`RUN`), its finished result is the answer,
    and no file's partial is decoded, no run-scope rule judged again and no part of the pipeline loaded."""
    digests = Digests()
    stored = Chunks(pack)
    names: list[str] = []  # and `file_digests`: the run's files in order, for the signature of the run stored whole
    file_digests: list[bytes | None] = []
    writer = _Writer(pack, digests, file_digests)
    held: list[tuple[str, tuple[bool, bytes, int], bytes | None]] = []
    checker: _InRun | None = None  # and its run, made at the first miss
    complete = True  # every file stored or found: the run can be stored whole
    for source in sources:
        name, data = source.name, source.data
        if data is None:
            complete, digest, hit = False, None, None
        else:
            # A file the pack holds nothing for is a miss whatever its bytes: its digest waits for its chunk.
            digest = digests.of(name, data) if pack.holds(name) else None
            hit = pack.get(name, digest) if digest is not None else None
            names.append(name)
            file_digests.append(digest)
        if hit is not None and checker is None:
            held.append((name, hit, data if hit[0] else None))
            continue
        if checker is None:
            checker = _start(options, held, stored, writer)
        if hit is not None:
            merge(checker.run, stored.plain(hit[1], hit[2]), name, data if hit[0] else None)
            continue
        complete = checker.check(source, digest, len(file_digests) - 1) and complete
    writer.close()
    complete = complete and writer.complete
    if checker is None:  # every file with bytes hit: each digest was computed
        found = pack.get(RUN, _signature(names, file_digests)) if held else None
        if found is not None:
            return _stored_run(stored.plain(found[1], found[2]), held)
        checker = _start(options, held, stored, writer)
    run = checker.run
    result = run.finish()
    if complete and run.result.files:  # every file stored or hit: each digest was computed
        pack.put(RUN, _signature(names, file_digests), False, pack.put_chunk(_encode_run(result)), 0)
    pack.save()
    return result


def _signature(names: list[str], digests: list[bytes]) -> bytes:
    """The run's files and their digests, in order: one value for one list (the count first; a name holds no
    NUL; every digest is 16 bytes)."""
    h = blake2b(digest_size=16)
    h.update(len(names).to_bytes(8, "big"))
    h.update("\0".join(names).encode("utf-8", "surrogateescape"))
    h.update(b"\0" + b"".join(digests))
    return h.digest()


def _start(options: LintOptions, held: list, stored: Chunks, writer: _Writer) -> _InRun:
    """The checker of a run that is not answered whole: the hits held so far absorbed."""
    from .run import _Run  # noqa: PLC0415 - a re-run answered whole from the cache loads none of the pipeline

    checker = _InRun(_Run(options), writer)
    for name, (_, chunk_id, index), text in held:
        merge(checker.run, stored.plain(chunk_id, index), name, text)
    return checker


class _InRun:
    """A serial run's fresh files, checked by the run itself, each with what a run of its own would hold set
    aside while it is checked (its problems, texts, run-scope records and first documents, failures, rendered
    documents and suppressor; its counters and names are the run's growth): that is the file's partial,
    stored (`_Writer`) before it joins the run's, as `_Run.absorb` would join it."""

    def __init__(self, run: Any, writer: _Writer):
        self.run = run
        self._writer = writer
        self._fresh_suppressor = run.options.ignore_paths is not None
        self._spare: Any = None  # a suppressor a file left holding nothing, for the next file (`check`)

    def check(self, source: Source, digest: bytes | None, position: int) -> bool:
        """Check `source` (the run's file at `position`; `digest` None: not computed yet); whether it is stored."""
        run, name = self.run, source.name
        result = run.result
        problems, texts, records, first, late, rendered, suppressor = result.problems, result.texts, run.records, run.first, run.late, run.rendered, run.suppressor
        counts = (result.files, result.documents, result.checked, result.passed_over, result.files_passed_over, result.empty)
        lengths = (len(result.passed_over_files), len(result.objects), len(result.source_names))
        result.problems, result.texts, run.records, run.first, run.late, run.rendered = [], {}, {}, {}, [], {}
        run.suppressor, self._spare = (run.new_suppressor() if self._fresh_suppressor else self._spare), None
        run.check_source(source)
        # A suppressor that met nothing to suppress with (a release comment, say) is none: not stored, not joined,
        # and the next file's to begin with (what it holds is still nothing).
        own = run.suppressor
        if own is not None and own.holds_nothing():
            own, self._spare = None, own
        mine = (result.problems, result.texts, run.records, run.first, run.late, run.rendered, own)
        result.problems, result.texts, run.records, run.first, run.late, run.rendered, run.suppressor = problems, texts, records, first, late, rendered, suppressor
        storable = source.data is not None and not mine[5] and run.patch_of(name) is None
        if storable:
            self._writer.add(position, name, source.data, digest, *self._plain(name, result, counts, lengths, mine))
        self._join(mine)
        return storable

    @staticmethod
    def _plain(name: str, result: LintResult, counts: tuple, lengths: tuple, mine: tuple) -> tuple[bool, tuple]:
        """`plain_of` the file's partial, from what it set aside and what the run's counters and lists grew by.
        Nothing in it changes once the file joins the run (no later file's check, nor the run, changes a problem,
        a record, the file's suppressor or what holds them: `_join`); the run's end, whose run-scope problems
        mark the comments that suppress them, comes after the writer's last chunk (`lint_serial`)."""
        file_problems, file_texts, file_records, file_first, file_late, _, file_suppressor = mine
        has_text = name in file_texts
        others = {k: v for k, v in file_texts.items() if k != name} if len(file_texts) > has_text else {}
        grown = (result.files - counts[0], result.documents - counts[1], result.checked - counts[2], result.passed_over - counts[3],
                 result.files_passed_over - counts[4], result.empty - counts[5])
        firsts = {release: (*place[:4], tuple(place.at), *place[5:]) for release, place in file_first.items()}
        plain = (file_problems, grown, result.passed_over_files[lengths[0]:], result.objects[lengths[1]:], result.source_names[lengths[2]:],
                 file_records, firsts, [p for problems in file_late for p in problems], file_suppressor, {}, others)
        return has_text, plain

    def _join(self, mine: tuple) -> None:
        """The file's set-aside part joins the run's, as `_Run.absorb` joins a partial (PartialResult.merge)."""
        run = self.run
        file_problems, file_texts, file_records, file_first, file_late, file_rendered, file_suppressor = mine
        part = LintResult()  # its counters and names are already the run's: only problems and texts were set aside
        part.problems, part.texts = file_problems, file_texts
        if file_suppressor is not None and run.suppressor is None:
            # The run's own, which later files' join: the file's waits unchanged in the writer's chunk, to be
            # pickled with the next ones (PartialResult.merge would take it as the run's and add to it).
            run.suppressor = run.new_suppressor()
        joined = PartialResult(run.result, run.records, run.first, run.late, run.suppressor, run.rendered)
        joined.merge(PartialResult(part, file_records, file_first, file_late, file_suppressor, file_rendered))
        run.suppressor = joined.suppressor


RUN = "\0run"  # the pack's entry for the last run whose every file hit: its finished result


def _encode_run(result: LintResult) -> bytes:
    texts, result.texts = result.texts, {}
    try:
        return pickle.dumps((result, sorted(texts)), protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        result.texts = texts


def _stored_run(plain: tuple, held: list) -> LintResult:
    result, quoted = plain
    texts = {name: text for name, _, text in held if text is not None}
    result.texts = {name: texts[name] for name in quoted if name in texts}
    return result


__all__ = ["open_pack", "lint_serial", "FileChecker", "Chunks", "absorb_items", "store_run", "project_root", "FOLDER"]
