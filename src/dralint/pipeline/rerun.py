"""A re-run with the result cache and `--jobs` 2 or more on two processes: the files modified since the pack was
written (fewer than parallel.RERUN_FRESH) are checked by one forked worker while this process reads and digests
the others and merges their stored parts; with none modified, the worker reads and digests part of the files and
the run stored whole answers when every file is a hit (`_digested`, `_answered_whole`).

Which process looks at a file is chosen by its modification time, taken by the walk's own stat
(dralint.pipeline.sources.stamped_files): a file the pack holds nothing for, or modified at or after the time the
pack was written, goes to the worker. Whether a stored part is used is decided by the file's bytes alone, in
either process, as in every run with the cache: a file the worker gets that is unchanged (touched, or checked
out again) is a hit there, and a file this process gets whose bytes differ from the stored ones however old its
time (a "racily clean" file, edited within the timestamp granularity of the pack's write; a time set back by
`touch -d` or an archive) is a miss here, checked here, in its place. A wrong time costs speed, never a result.

The report is the serial run's byte for byte: the files' parts are absorbed in file order, each maximal run of
this process's hits merged first into a part of its own (`_Segment`, as a `--jobs` worker merges its fresh
files: dralint.pipeline.partial merges associatively) while the worker checks, then the segments, the worker's
answers and the misses found here in turn (dralint.pipeline.result_cache.absorb_items), and the run-scope rules
judged over them all.

Why one worker, forked by hand: the few files modified are checked at ~0.3 ms each plus what the first
checks load (the pipeline, the rules of their kinds, jsonschema, CEL environments: ~0.15 s), while this process
reads, digests, decodes and merges 10,000 stored parts in ~0.13 s; a pool (concurrent.futures, multiprocessing)
costs ~20 ms to import and start, a bare fork and two pipes ~1 ms. The worker is forked at the first modified
file the walk meets and makes ready while the walk goes on (`start_worker`; bench/cache.py --jobs 2:
docs/performance.md, "Re-runs on two processes").
"""

from __future__ import annotations

import itertools
import os
import pickle
import sys

from .. import runtime
from ..model import Span
from . import result_cache
from .parallel import WorkerError, _frozen_each
from .partial import LintResult, PartialResult
from .result_cache import Chunks, Digests, FileChecker, absorb_items, store_run
from .sources import Source, read, read_sized

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable

    from .options import LintOptions
    from .result_store import Pack

Stamped = tuple[str, "str | None", "int | None"]  # name, error, size (None: a suspect): parallel.since_stored

_WORKER, _HERE, _LOOKED, _SEGMENT, _CHECK, _DIGESTS = range(6)  # the kinds of a run's parts (and the worker's tasks)


def lint_shared(walked: list[Stamped], options: LintOptions, pack: Pack, worker: Worker) -> LintResult:
    """`lint()` of the files `walked` (every one of the run's, in order) with the result cache `pack`: the
    suspects (parallel.suspect) checked by the `worker` (`start_worker`), the other files by this process. With no
    suspect, the worker reads and digests the last files (`_digested`) and, when every file is a hit, the run
    stored whole answers (result_cache.lint_serial's way, its reading shared); otherwise this process takes them
    all (a file changed under an old time, or no run stored whole: not the common case)."""
    parts, groups = _plan(walked)
    whole = not groups
    try:
        digests = Digests()
        if whole:
            cut = int(len(walked) * HERE_SHARE)
            worker.send((_DIGESTS, walked[cut:]))
            looked = list(_looked(walked[:cut], pack, digests))
            found = _answered_whole(walked, looked, worker.result(), pack)
            if found is not None:
                return found
            parts = [(_LOOKED, looked), (_HERE, walked[cut:])]
        else:
            worker.send((_WORKER, groups))
        parts = _here(parts, pack, digests)
        from .run import _Run  # noqa: PLC0415 - after the fork: the worker has it already, for itself

        run = _Run(options)
        stored = Chunks(pack)
        answers = [] if whole else worker.result()
    except BaseException:
        worker.stop()
        raise
    seen: list[tuple[str, bytes | None]] = []
    checker: FileChecker | None = None
    for kind, value in parts:
        if kind == _SEGMENT:
            run.absorb(value.part)
            seen.extend(value.seen)
        elif kind == _WORKER:
            absorb_items(run, answers[value], pack, stored, seen)
        else:  # a file read here that the pack has no part for with its bytes
            checker = checker or FileChecker(options)
            absorb_items(run, checker.items([value], pack), pack, stored, seen)
        runtime.freeze()
    result = run.finish()
    store_run(pack, seen, result)
    pack.save()
    return result


# With no suspect, the share of the files this process reads: the worker begins reading once it is forked, after
# the walk, and its digests are joined here (bench/cache.py --jobs 2, warm).
HERE_SHARE = 0.55


def _answered_whole(walked: list[Stamped], looked: list[tuple], answer: tuple[bytes, dict[str, bytes]] | None, pack: Pack) -> LintResult | None:
    """The run stored whole, when every file is a hit (`looked`: those read here; `answer`: the worker's digests,
    16 bytes each, and the bytes its reports quote, `_digested`) and the files and their digests are those of the
    run stored whole (result_cache.lint_serial); None otherwise."""
    if answer is None or any(hit is None for _, _, _, hit in looked):
        return None
    blob, texts = answer
    digests = [digest for _, _, digest, _ in looked] + [blob[at:at + 16] for at in range(0, len(blob), 16)]
    found = pack.get(result_cache.RUN, result_cache._signature([entry[0] for entry in walked], digests))
    if found is None:
        return None
    quoted = [(name, None, text) for name, text, _, _ in looked if text is not None]  # the bytes its report quotes
    quoted += [(name, None, text) for name, text in texts.items()]
    return result_cache._stored_run(Chunks(pack).plain(found[1], found[2]), quoted)


def _digested(entries: list[Stamped], pack: Pack) -> tuple[bytes, dict[str, bytes]] | None:
    """In the worker, with no suspect: each file's digest, 16 bytes each in order, and the bytes of those whose
    report quotes them; None at the first file that is no hit (this process then takes every file itself).
    Compact: a run of 100,000 files sends 45,000 digests, not a tuple of names and places each."""
    digests = Digests()
    out = bytearray()
    texts: dict[str, bytes] = {}
    for name, error, size in entries:
        data = read_sized(name, size).data if error is None else None
        digest = digests.of(name, data) if data is not None else None
        hit = pack.get(name, digest) if digest is not None else None
        if hit is None:
            return None
        out += digest  # type: ignore[operator]
        if hit[0]:
            texts[name] = data  # type: ignore[assignment]
    return bytes(out), texts


def _plan(walked: list[Stamped]) -> tuple[list[tuple[int, Any]], list[list[Stamped]]]:
    """The run's parts in file order: (_WORKER, index of a group of consecutive suspects) and (_HERE, the
    entries of consecutive others, as walked); and the groups."""
    parts: list[tuple[int, Any]] = []
    groups: list[list[Stamped]] = []
    for entry in walked:
        if entry[2] is None:  # a suspect (parallel.since_stored)
            if parts and parts[-1][0] == _WORKER:
                groups[-1].append(entry)
            else:
                parts.append((_WORKER, len(groups)))
                groups.append([entry])
        elif parts and parts[-1][0] == _HERE:
            parts[-1][1].append(entry)
        else:
            parts.append((_HERE, [entry]))
    return parts, groups


class _Segment:
    """Consecutive hits merged into one part, and each file's name and digest for the signature of the run
    stored whole (result_cache.store_run)."""

    __slots__ = ("part", "seen")

    def __init__(self) -> None:
        self.part = PartialResult()
        self.seen: list[tuple[str, bytes]] = []

    def add(self, plain: tuple, name: str, text: bytes | None) -> None:
        """A stored partial (result_cache.plain_of) merged in, after the others: what result_cache.merge and then
        PartialResult.merge do, without building the file's LintResult and PartialResult (or a Place for a
        release the segment has one for) on the way: half of this process's time merging 10,000 files
        (tests/test_result_cache.py compares every report with a run without the cache)."""
        problems, counts, passed_over_files, objects, source_names, records, first, late, suppressor, rendered, texts = plain
        part = self.part
        result = part.result
        result.problems += problems
        files, documents, checked, passed_over, files_passed_over, empty = counts
        result.files += files
        result.documents += documents
        result.checked += checked
        result.passed_over += passed_over
        result.files_passed_over += files_passed_over
        result.empty += empty
        result.passed_over_files += passed_over_files
        result.objects += objects
        result.source_names += source_names
        if text is not None:
            result.texts[name] = text
        if texts:
            result.texts.update(texts)
        if rendered:
            part.rendered.update(rendered)
        mine = part.first
        for release, by_key in records.items():
            if release not in mine:
                place = first[release]
                mine[release] = _place(*place[:4], Span(*place[4]), *place[5:])
            kept = part.records.setdefault(release, {})
            for key, found in by_key.items():
                kept.setdefault(key, []).extend(found)
        if late:
            part.late += late
        if suppressor is not None:
            if part.suppressor is None:
                part.suppressor = suppressor
            else:
                part.suppressor.absorb(suppressor)


def _place(*fields: Any) -> Any:
    from ..api import Place  # noqa: PLC0415 - as result_cache.merge: a re-run answered whole loads none of the rule API

    return Place(*fields)


def _looked(entries: list[Stamped], pack: Pack, digests: Digests) -> Any:
    """Each file of `entries` (as walked: with its size, sources.stamped_files) read, digested and looked up: (its name, its bytes
    when its report quotes them (a hit's), its digest, the pack's hit or None); no other file's bytes are kept
    (a run of 100,000 files holds these until the worker answers). Read without an fstat (sources.read_sized):
    the digest judges the bytes."""
    for name, _, size in entries:
        data = read_sized(name, size).data
        digest = digests.of(name, data) if data is not None else None
        hit = pack.get(name, digest) if digest is not None else None
        yield name, data if hit is not None and hit[0] else None, digest, hit


def _here(parts: list[tuple[int, Any]], pack: Pack, digests: Digests) -> list[tuple[int, Any]]:
    """`parts` with each run of this process's files (_HERE, or _LOOKED: what `_looked` made of them) read, digested and
    its hits decoded and merged into segments (_SEGMENT); a file the pack has no part for with its bytes, or
    that cannot be read, left to be checked here in its place (_CHECK, its Source)."""
    stored = Chunks(pack)
    out: list[tuple[int, Any]] = []
    for kind, value in parts:
        if kind == _WORKER:
            out.append((kind, value))
            continue
        segment: _Segment | None = None
        for name, text, digest, hit in (value if kind == _LOOKED else _looked(value, pack, digests)):
            if hit is None:  # read again as any file is (sources.read_sized): the check sees what `read` gives
                out.append((_CHECK, read(name)))
                segment = None
                continue
            if segment is None:
                segment = _Segment()
                out.append((_SEGMENT, segment))
            segment.add(stored.plain(hit[1], hit[2]), name, text)
            segment.seen.append((name, digest))
            runtime.freeze()
    return out


def _check_groups(groups: list[list[Stamped]], options: LintOptions, pack: Pack, checker: FileChecker | None = None) -> list:
    """In the worker: each group's `FileChecker.items` (hits as places in the pack, fresh files' partials), with
    the `checker` made while the parent walked. The hits before a group's first miss are looked up here, without
    the run's per-file state and chunks that `items` makes."""
    digests = Digests()
    answers = []
    for group in groups:
        sources = (Source(name, None, error) if error is not None else read(name) for name, error, _ in group)
        items: list[tuple] = []
        blobs: list[bytes] = []
        for source in sources:
            data = source.data
            digest = digests.of(source.name, data) if data is not None else None
            hit = pack.get(source.name, digest) if digest is not None else None
            if hit is None:
                checker = checker or FileChecker(options)
                more, blobs = checker.items(_frozen_each(itertools.chain([source], sources)), pack)
                items += more
                break
            items.append((source.name, digest, hit[0], hit[1:], data if hit[0] else None))
        answers.append((items, blobs))
    return answers


class Worker:
    """A forked process that makes ready (`warm()`: the pipeline imported and a FileChecker made, ~20-40 ms) while
    this process walks the files, then does `work(task, what warm() made)` with the task this process sends
    (`send`); its value, or the exception it raised, comes back pickled through a pipe (`result`)."""

    def __init__(self, warm: Callable[[], Any], work: Callable[[Any, Any], Any]):
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # nothing buffered here is written twice, once by the worker
        task_read, task_write = os.pipe()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the worker (its work is covered, run in the parent by tests)
            os.close(read_end)
            os.close(task_write)
            _in_worker(warm, work, task_read, write_end)
        os.close(write_end)
        os.close(task_read)
        self.pid, self.fd, self.task_fd = pid, read_end, task_write

    def send(self, task: Any) -> None:
        """The worker's task: read whole before it starts (a pipe's buffer is smaller than a long list of names)."""
        with os.fdopen(self.task_fd, "wb") as pipe:
            self.task_fd = -1
            pipe.write(pickle.dumps(task, pickle.HIGHEST_PROTOCOL))

    def result(self) -> Any:
        """The worker's value, once it has ended; WorkerError when it died without one."""
        with os.fdopen(self.fd, "rb") as pipe:
            self.fd = -1
            payload = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if status != 0 or not payload:
            raise WorkerError(f"the worker process ended unexpectedly (status {status}); no report, rerun with --jobs 1 to find the file")
        done, value = pickle.loads(payload)  # noqa: S301 - from our own worker, forked from this process
        if not done:
            raise value
        return value

    def stop(self) -> None:
        """Not needed after all (the run is not a shared one), or after a failure here (or Ctrl-C): ended now."""
        for fd in (self.fd, self.task_fd):
            if fd >= 0:
                os.close(fd)
        self.fd = self.task_fd = -1
        if self.pid:
            import signal  # noqa: PLC0415 - only when a worker is not waited for

            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = 0


def start_worker(options: LintOptions, pack: Pack, checks: bool) -> Worker:
    """The worker of a re-run that may be shared (`lint_shared`). `checks`: forked during the walk, at the first
    suspect: what checking loads is loaded while this process walks on (bench/cache.py --jobs 2, 1 % changed:
    docs/performance.md); else forked after it, to read and digest (nothing is loaded ahead, in its way)."""
    runtime.start_up_over()
    runtime.freeze()  # what lives now is shared with the worker: not touched (copied) by its collections
    return Worker((lambda: _warm(options)) if checks else (lambda: None), lambda task, checker: _work(task, options, pack, checker))


def _work(task: tuple[int, list], options: LintOptions, pack: Pack, checker: FileChecker | None) -> Any:
    """In the worker: the groups of suspects checked (_WORKER) or, with none, files digested (_DIGESTS)."""
    kind, value = task
    return _check_groups(value, options, pack, checker) if kind == _WORKER else _digested(value, pack)


def _warm(options: LintOptions) -> FileChecker:
    """In the worker, while the parent walks: the run that checks the suspects, and jsonschema, which the first file
    with a schema error loads (schema_check._full_validator: ~40 ms, a quarter of checking 100 files of set (a))."""
    checker = FileChecker(options)
    import jsonschema  # noqa: F401, PLC0415 - loaded here, not at the first file with a schema error

    return checker


def _in_worker(warm: Callable[[], Any], work: Callable[[Any, Any], Any], task_fd: int, write_end: int) -> None:  # pragma: no cover - runs in the worker
    """Make ready, read the task, run `work`, write (True, its value) or (False, the exception) to `write_end`, and
    end the process at once: neither the parent's exit handlers nor its buffered output run or are written
    twice. No task (the pipe closed unwritten): nothing to do."""
    code = 1
    try:
        import signal  # noqa: PLC0415 - in the worker only

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group: the parent stops the worker
        try:
            state = warm()
            with os.fdopen(task_fd, "rb") as pipe:
                task = pipe.read()
            if not task:
                code = 0
                return
            payload = pickle.dumps((True, work(pickle.loads(task), state)), pickle.HIGHEST_PROTOCOL)  # noqa: S301 - from the parent
        except Exception as exc:  # noqa: BLE001 - raised again in the parent
            try:
                payload = pickle.dumps((False, exc), pickle.HIGHEST_PROTOCOL)
            except Exception:  # noqa: BLE001 - an exception that does not pickle: said as text
                payload = pickle.dumps((False, WorkerError(f"the worker failed: {exc!r}")), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
        code = 0
    finally:
        os._exit(code)


__all__ = ["lint_shared", "start_worker", "Worker"]
