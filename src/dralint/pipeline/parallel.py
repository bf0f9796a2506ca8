"""`--jobs N`: the files of one CLI run split across worker processes.

The files are cut into contiguous chunks of about CHUNK_BYTES as the walk
finds them, the last ones smaller and smaller; each worker (forked, so it
inherits the loaded rules, plugins and policies without pickling them) reads
and checks the files of a chunk with its own run (dralint.pipeline.run) and sends back
what the run keeps of them: problems, already positioned and with their fixes
built, counters, the texts and names a report needs, the run-scope records
and the suppressions it met. The parent merges the chunks in file order and
judges the run-scope rules over the merged records, so the report is the one
`--jobs 1` gives, byte for byte.

Serial whatever `--jobs` says: fewer than MIN_FILES files holding less than
MIN_BYTES (forking and pickling cost more than they save), standard input, runs with a legacy
run-scope rule (it needs every document in one process), and re-runs whose files the result cache
holds with none new or modified since it was written (`since_stored`); with fewer than RERUN_FRESH, one worker
checks those (dralint.pipeline.rerun). The pre-commit hook
is `require_serial`: pre-commit hands one dralint every file, and this spreads them.
"""

from __future__ import annotations

import os
import sys
from collections import deque

from .. import runtime
from .options import LintOptions
from .partial import LintResult, PartialResult
from .sources import Source, read

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from typing import Callable, Iterable, Iterator

    from .result_store import Pack

# Below this many files a run stays serial. Importing concurrent.futures and multiprocessing and
# starting two forked workers cost 55-190 ms (measured on the busy 2-core development machine, idle
# to loaded), and --jobs 2 on 200 one-document files took 1.1 s against 0.85 s serially; 500 files
# take ~0.5 s of one core, so the start-up is at most a third of what the second core saves.
MIN_FILES = 500
# ...unless they are large: 100 files of 100 documents (10k documents, ~3.7 s of one core) were as slow on
# two workers as on one while MIN_FILES alone decided. 500 one-document files are ~0.35 MB of YAML.
MIN_BYTES = 512 * 1024
# A re-run with fewer files than this new or modified since the result cache was written has one worker check
# those while the parent takes the others from the pack (`since_stored`, dralint.pipeline.rerun); with more, the
# workers of a first run check it. Set (a), 10,000 files: 450 modified took 0.52-0.58 s that way, 500 on the
# workers 0.64-0.68 s; where the two meet was not measured further (docs/performance.md).
RERUN_FRESH = 500
# A chunk is cut once its files hold this many bytes (~0.3 s of one core), or at MAX_CHUNK files: small enough
# that the workers end within a fraction of a second of each other, large enough that sending each chunk's
# results back stays a few per cent of the work. Cut by bytes, not by count: 100 files of 100 documents
# each are as much work as 10,000 files of one.
CHUNK_BYTES = 256 * 1024
MAX_CHUNK = 2000
# The smallest of the last chunks (~0.03 s of one core): sending a chunk and its results back costs ~1-5 ms.
TAIL_BYTES = 24 * 1024

_OPTIONS: LintOptions | None = None  # the run's options, inherited by forked workers
_PACK: Pack | None = None  # the result cache's entries (dralint.pipeline.result_cache), read before the fork: inherited too


class WorkerError(RuntimeError):
    """A worker process died (killed, out of memory, a crash in a C extension): the run cannot be trusted."""


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    counter = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counter is not None:
        return max(1, counter() or 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS, Windows
        return max(1, os.cpu_count() or 1)


# More workers than this many per usable core only add processes (each a fork of the parent's heap)
# that wait for a core: `jobs: 300` in a repository's config must not fork 300 processes.
JOBS_PER_CORE = 2


def capped_jobs(jobs: int) -> tuple[int, str | None]:
    """`jobs`, at most JOBS_PER_CORE per usable core, and a warning when it was more."""
    cores = usable_cores()
    cap = JOBS_PER_CORE * cores
    if jobs <= cap:
        return jobs, None
    return cap, f"{jobs} worker processes asked for, {cap} used ({JOBS_PER_CORE} per usable core, {cores} usable)"


def can_fork() -> bool:
    return sys.platform != "win32" and hasattr(os, "fork")


def serial_reason(head: list[tuple[str, str | None]], options: LintOptions, jobs: int, rules_seen: bool = False) -> str | None:
    """Why this run stays serial, or None when it can use `jobs` workers. `head`: the first MIN_FILES
    entries of dralint.pipeline.sources.files, and at least two (all of them, when there are fewer). The caller keeps standard input
    serial: it is read once, by the process that has it. `rules_seen`: the run has a result cache, which it has
    only without legacy run-scope rules (dralint.pipeline.result_cache.open_pack): the rules need not be loaded to
    say so."""
    if jobs <= 1:
        return "--jobs 1"
    if len(head) < 2 or (len(head) < MIN_FILES and not _at_least_bytes(head, MIN_BYTES)):
        return "few files"
    if options.keep is None:
        return "the report keeps documents"
    if not rules_seen and any(r.scope == "run" and r.collect is None for r in options.rules()):
        return "a legacy run-scope rule"
    if not can_fork():
        return "no fork on this platform"
    return None


def since_stored(pack: Pack, entries: Iterator[tuple[str, str | None, int | None, int | None]], at_first: Callable[[], object] | None = None) -> tuple[list[tuple[str, str | None, int | None]], int]:
    """(The entries walked (dralint.pipeline.sources.stamped_files) as (name, error, size): the size of a file that
    has not changed since the result cache's `pack` was written, None for one that may have (`suspect`); how many
    may have.)

    The walk stops at the RERUN_FRESH-th such file, and the rest of `entries` is the caller's to check after
    what was walked: a run with that many is a first run or close to one, on the workers (`lint_parallel`).
    With fewer, one worker checks those while the parent takes the others from the pack; with none, the run
    stored whole answers when no byte changed either (dralint.pipeline.rerun; bench/cache.py --jobs 2 on set (a):
    docs/performance.md). The modification times only choose the way: each file's bytes decide whether its
    stored result is used. `at_first` is called at the first such file, as the walk goes on. Three fields, not
    the walk's four: a run of 100,000 files holds them all (~4 MB less)."""
    stored_at = pack.written_ns()
    walked: list[tuple[str, str | None, int | None]] = []
    if stored_at is None:
        return walked, RERUN_FRESH
    fresh = 0
    for entry in entries:
        if suspect(pack, entry, stored_at):
            walked.append((entry[0], entry[1], None))
            fresh += 1
            if fresh == 1 and at_first is not None:
                at_first()
            if fresh >= RERUN_FRESH:
                break
        else:
            walked.append((entry[0], None, entry[3]))
    return walked, fresh


def suspect(pack: Pack, entry: tuple[str, str | None, int | None, int | None], stored_at: int) -> bool:
    """Whether the file may have changed since the pack was written: the pack holds nothing for it, or its
    time is not before the pack's (equal included: within the timestamp's granularity, a write after the
    pack's may carry the pack's time), or it has none, or is no regular file (no size). Only chooses the process:
    the bytes decide."""
    name, error, stamp, size = entry
    return error is not None or stamp is None or size is None or stamp >= stored_at or not pack.holds(name)


def _at_least_bytes(entries: list[tuple[str, str | None]], limit: int) -> bool:
    """Whether the files hold `limit` bytes or more (stat only until they do: a few hundred calls at most)."""
    total = 0
    for name, error in entries:
        if error is None and name != "-":
            try:
                total += os.stat(name).st_size
            except OSError:
                continue  # reported when the file is read
            if total >= limit:
                return True
    return False


def frozen(sources: Iterable[Source]) -> Iterator[Source]:
    """`sources`, with what the run keeps of each file moved out of the cyclic collector's sight once the
    file is checked: what lives to the end (problems, records) is never scanned again, and a 100,000-file
    run does not pay ever longer collections for it; what each load builds is frozen as soon as it is
    built (runtime.loads_frozen). Only for the CLI (a process that ends with the run)."""
    with runtime.loads_frozen():
        runtime.start_up_over()  # the run's rules and tables are made by now (dralint.console)
        for source in sources:
            yield source
            runtime.freeze()


def lint_parallel(entries: Iterable[tuple[str, str | None]], options: LintOptions, jobs: int, pack: Pack | None = None) -> LintResult:
    """`lint()` of the files `entries` names (dralint.pipeline.sources.files), on `jobs` worker processes. The
    entries are consumed as the workers start: the directory walk overlaps their work. With `pack`, each
    worker answers a file from the result cache when it can (the parent decodes the stored partial) and
    sends back its other files' partials in chunks (dralint.pipeline.result_cache), which the parent absorbs in
    order and stores."""
    global _OPTIONS, _PACK
    # Imported only for parallel runs: concurrent.futures and multiprocessing are ~15 ms of start-up.
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    from .run import _Run  # noqa: PLC0415 - a run that answers from the result cache needs none of it

    run = _Run(options)
    _OPTIONS, _PACK = options, pack
    runtime.freeze()  # the parent's heap, shared with the forked workers: not touched (copied) by their collections
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork"), initializer=_ignore_interrupts)
    try:
        # Executor.map submits every chunk before it returns: the workers (forked at the first) check
        # chunks while the walk goes on here.
        stored = None
        seen: list[tuple[str, bytes | None]] = []  # with a cache: each file's name and stored digest, in order
        for part in pool.map(_check_chunk, _chunks(entries, jobs)):
            if pack is None:
                run.absorb(part)
            else:
                from .result_cache import Chunks, absorb_items  # imported already by a run with a cache

                stored = stored or Chunks(pack)
                absorb_items(run, part, pack, stored, seen)
            runtime.freeze()
    except BrokenProcessPool as exc:
        raise WorkerError(f"a worker process ended unexpectedly ({exc}); no report, rerun with --jobs 1 to find the file") from None
    except KeyboardInterrupt:
        _stop(pool)
        raise
    finally:
        # cancel_futures: after a failure, the chunks not started yet are not checked for nothing.
        pool.shutdown(wait=True, cancel_futures=True)
        _OPTIONS = _PACK = None
    result = run.finish()
    if pack is not None:
        from .result_cache import store_run

        store_run(pack, seen, result)
        pack.save()
    return result


def _chunks(entries: Iterable[tuple[str, str | None]], jobs: int) -> Iterator[list[tuple[str, str | None]]]:
    """Consecutive runs of `entries`, in order (one stat a file): CHUNK_BYTES each while the walk goes
    on, then, once it has ended, what is left in ever smaller chunks, each a 1/(2 jobs) of the rest
    and at least TAIL_BYTES: every worker gets one of the last small ones and they end together (equal
    chunks left one worker checking the last while the others waited: 0.12 of 1.8 s at 10,000 files).
    What is left for those is held back from the full chunks only once each worker has its first."""
    pending: deque[tuple[tuple[str, str | None], int]] = deque()
    left = 0  # bytes in `pending`
    reserve = 0
    cut = 0
    for entry in entries:
        name, error = entry
        size = 0
        if error is None:
            try:
                size = os.stat(name).st_size
            except OSError:
                pass  # reported when the file is read
        pending.append((entry, size))
        left += size
        if left >= CHUNK_BYTES + reserve or len(pending) >= MAX_CHUNK * (jobs + 1):
            chunk, taken = _take(pending, CHUNK_BYTES)
            left -= taken
            cut += 1
            if cut == jobs:
                reserve = jobs * CHUNK_BYTES
            yield chunk
    while pending:
        chunk, taken = _take(pending, max(left // (2 * jobs), TAIL_BYTES))
        left -= taken
        yield chunk


def _take(pending: deque, limit: int) -> tuple[list[tuple[str, str | None]], int]:
    """The first entries of `pending` up to `limit` bytes (at least one, at most MAX_CHUNK), and their bytes."""
    chunk: list[tuple[str, str | None]] = []
    taken = 0
    while pending and taken < limit and len(chunk) < MAX_CHUNK:
        entry, size = pending.popleft()
        chunk.append(entry)
        taken += size
    return chunk, taken


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the workers, which would
    # otherwise each print a traceback of where the interrupt found them.
    import signal  # in workers only: ~1-2 ms (its enums) of every run's start-up otherwise

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Interrupted: end the workers now rather than after their current chunk."""
    for process in list(getattr(pool, "_processes", {}).values()):
        process.terminate()


def _frozen_each(sources: Iterable[Source]) -> Iterator[Source]:
    """`sources`, what each file's check left moved out of the collector's sight before the next is read, as
    `_check_chunk` does without the cache (bench/cache.py --jobs 2: the first run 1.24 -> 1.19 of the CPU without it)."""
    for source in sources:
        yield source
        runtime.freeze()


def _check_chunk(chunk: list[tuple[str, str | None]]) -> PartialResult:
    """In a worker: check the files of one chunk; their partial result, which the parent merges."""
    assert _OPTIONS is not None
    if _PACK is not None:
        from .result_cache import FileChecker

        checker = FileChecker(_OPTIONS)
        return checker.items(_frozen_each(Source(name, None, error) if error is not None else read(name) for name, error in chunk), _PACK)
    from .run import _Run  # noqa: PLC0415 - imported already by the parent the worker was forked from

    run = _Run(_OPTIONS)
    for name, error in chunk:
        run.check_source(Source(name, None, error) if error is not None else read(name))
        runtime.freeze()
    return run.take_partial()


__all__ = ["lint_parallel", "usable_cores", "capped_jobs", "serial_reason", "since_stored", "frozen", "WorkerError", "MIN_FILES", "MIN_BYTES", "RERUN_FRESH", "CHUNK_BYTES"]
