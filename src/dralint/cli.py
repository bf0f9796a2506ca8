"""The `dralint` command line.

    dralint [lint] PATH...        lint files, folders (recursively) or - for stdin
    dralint rules                 list every rule
    dralint gates [-k 1.NN]       the DRA feature gates of a release: stage, default, fields
    dralint serve ...             admission webhook
    dralint migrate ...           rewrite manifests to another API version
    dralint lsp                   language server over stdio (needs the lsp extra)

Exit codes: 0 clean, 1 a problem at or above --fail-on, 2 usage or internal error.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import itertools
import os
import sys

from . import __version__, runtime, schemas
from .arguments import Parser, UsageError, add_rule_arguments, epilog_as_written, install_extra, overrides_from
from .config import ConfigError, build_options
from .model import Problem, Severity
from .pipeline import parallel
from .pipeline.sources import collect, files, read_all, stamped_files
from .registry import RuleLoadError
from .report import FORMATS, ReportOptions, printable, reads, write
from .report.text import summary_line
from .schemas import DEFAULT_RELEASE, RELEASES

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Sequence, TextIO

SUBCOMMANDS = ("lint", "rules", "gates", "serve", "migrate", "lsp")
# The optional extra each subcommand needs, and the modules of it that tell whether it is installed.
EXTRAS = {"serve": ("webhook", ("uvicorn",)), "lsp": ("lsp", ("pygls", "lsprotocol"))}


def lint_parser(prog: str = "dralint") -> argparse.ArgumentParser:
    parser = Parser(
        prog=prog,
        description="Lint Kubernetes Dynamic Resource Allocation (resource.k8s.io) manifests.",
        formatter_class=epilog_as_written,
        epilog=(
            "other commands:\n"
            "  dralint rules                  every rule with code, slug, severity and summary\n"
            "  dralint gates [-k 1.NN]        the DRA feature gates of a release: stage, default, fields\n"
            "  dralint serve --help           validating admission webhook (the webhook extra)\n"
            "  dralint migrate --help         rewrite manifests to another API version\n"
            "  dralint lsp                    language server over stdio for editors (the lsp extra)\n"
            "\n"
            "environment: NO_COLOR (set and not empty) turns colour off unless --color always;\n"
            "DRALINT_DEBUG=1 shows the traceback of an internal error.\n"
            "exit codes: 0 clean, 1 a problem at or above --fail-on, 2 usage or internal error"
        ),
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, folders (searched for *.yaml, *.yml, *.json) or - for standard input")
    parser.add_argument(
        "-k", "--kubernetes-version", metavar="1.NN", help=f"Kubernetes release to judge against: {RELEASES[0]}..{RELEASES[-1]} (default {DEFAULT_RELEASE})"
    )
    parser.add_argument("-f", "--format", default=None, help="text, json, sarif, github, junit or auto (default: auto — github inside GitHub Actions, else text)")
    parser.add_argument("--fail-on", choices=("error", "warning", "info"), default=None, help="lowest severity that makes the exit code 1 (default: error)")
    parser.add_argument("-q", "--quiet", action="store_true", help="report errors only and no summary")
    add_rule_arguments(parser)
    parser.add_argument("-j", "--jobs", type=int, metavar="N", help="worker processes (default: one per usable core; at most 2 per core; 1: serial; small runs are serial, and a re-run with fewer than 500 files new or modified since the result cache was written uses one worker)")
    parser.add_argument("--fix", action="store_true", help="apply the known fixes to the files (atomically, whole files), then report what is left")
    parser.add_argument("--break-hard-links", action="store_true",
                        help="with --fix: rewrite a file that has other hard links too (its other names keep the old content); refused by default")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    parser.add_argument("--cache-dir", metavar="DIR", help="the result cache's folder (default: .dralint_cache at the project root)")
    parser.add_argument("--target-version", metavar="1.NN", help="also warn about API versions deprecated or removed by this release (upgrade check)")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the text report: auto (default) on a terminal unless NO_COLOR is set, always or never")
    parser.add_argument("--version", action="version", version=f"dralint {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The `dralint` command: the runtime seam on for the run (for the process, from the command line)."""
    if argv is None:
        # The command line, not a caller in process: the process is dralint's. The interpreter's last
        # act would be a full collection over every object still alive, though the ending process
        # frees them all (bench/startup.py). Frozen objects are skipped.
        runtime.enable()
        atexit.register(runtime.freeze)
    with runtime.enabled():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in SUBCOMMANDS:
            command, rest = args[0], args[1:]
        else:
            command, rest = "lint", args
        if command == "lint":
            try:
                return run_lint(rest)
            finally:
                gc.unfreeze()  # what the run froze (dralint.pipeline.parallel.frozen), for callers of main() in process
        runtime.start_up_over()  # the other subcommands' work (a server's, a migration's) runs with the collector on
        if command in EXTRAS and not {"-h", "--help"} & set(rest):
            _require_extra(command)
        # Each other subcommand loads only what it runs: `rules` (jsonschema and every rule's docs), `serve`
        # (uvicorn, the judges), `lsp` (pygls), `migrate` (ruamel's round-trip loader); a lint run pays for
        # none of them (bench/startup.py; figures in docs/performance.md).
        if command == "rules":
            from .commands import rules_command

            return rules_command(rest)
        if command == "gates":
            from .gates_command import gates_command

            return gates_command(rest)
        if command == "serve":
            from .webhook.cli import serve_command

            return serve_command(rest)
        if command == "lsp":
            from .lsp import lsp_command

            return lsp_command(rest)
        from .migrate import migrate_command

        return migrate_command(rest)
    except UsageError as exc:
        print(f"dralint: error: {exc}", file=sys.stderr)
        print("Try 'dralint --help'.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `dralint ... | head`: the reader left; not an error of ours.
        sys.stderr.close()
        return 1
    except Exception as exc:  # never a traceback for users; exit 2 says "do not trust this run"
        if os.environ.get("DRALINT_DEBUG"):
            raise
        print(f"dralint: internal error: {type(exc).__name__}: {exc} (set DRALINT_DEBUG=1 for a traceback)", file=sys.stderr)
        return 2


def _require_extra(command: str) -> None:
    import importlib.util  # noqa: PLC0415 - only for the subcommands that need an extra

    extra, modules = EXTRAS[command]
    if any(importlib.util.find_spec(module) is None for module in modules):
        raise UsageError(f"'dralint {command}' needs the {extra} extra: {install_extra(extra)}")


def run_lint(argv: list[str]) -> int:
    args = lint_parser().parse_args(argv)
    out = sys.stdout
    # Only the report goes to standard output: what a plugin or rule prints while loaded or run (and so
    # in forked --jobs workers too) goes to standard error, where it cannot corrupt JSON, SARIF or JUnit.
    # contextlib.redirect_stdout's swap, without importing contextlib (bench/startup.py).
    saved, sys.stdout = sys.stdout, sys.stderr
    try:
        return _run_lint(args, out)
    finally:
        sys.stdout = saved


def _run_lint(args: argparse.Namespace, out: TextIO) -> int:
    if not args.paths:
        raise UsageError("no PATH given (use - to read standard input)")
    try:
        options, settings = build_options(overrides_from(args))
    except (ConfigError, RuleLoadError) as exc:
        raise UsageError(str(exc)) from exc
    if args.fix:
        runtime.start_up_over()  # fixing runs outside the serial run's frozen sources (dralint.pipeline.parallel.frozen)
    if args.fix and "-" in args.paths:
        return _fix_standard_input(args, options, settings, out)

    notice = schemas.preview_notice(options.release)
    if notice is not None:
        print(f"dralint: note: {notice}", file=sys.stderr)
    fmt = settings.format
    if fmt == "auto":
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" and not out.isatty() else "text"
    report = _report_options(fmt, args, out)
    not_written: list[Problem] = []
    if args.fix:
        # Only runs that apply fixes load the fix modules, migrate and tempfile, not a clean file's start-up.
        # The migrate rewrite runs ruamel's round trip over a whole file (slow, per document), so reports
        # list it only for a --fix run; `dralint migrate` shows it as a diff.
        from .fix import fix_sources
        from .migration_fixes import with_fixes

        with_fixes(options)
        written, not_written = fix_sources(collect(args.paths), options, break_hard_links=args.break_hard_links)
        for name, notes in written:
            print(f"dralint: fixed {printable(name)}", file=sys.stderr)
            for note in notes:
                print(f"dralint: {printable(name)}: {note}", file=sys.stderr)
    elif args.break_hard_links:
        raise UsageError("--break-hard-links only applies with --fix")
    options.keep = reads(fmt, report)
    result = _cached_lint(args.paths, options, 1 if args.fix else settings.jobs, None if args.fix else _pack(options, settings, args.paths))
    if not_written:
        # A file whose fixes could not be written is reported with the rest, selected and re-levelled as they are.
        result.problems = sorted([*result.problems, *options.selection.apply(not_written)], key=Problem.sort_key)
    if result.files == 0:
        # Not an error (a pre-commit run may have nothing to check), but a CI gate
        # pointed at the wrong folder should not pass in silence.
        print(f"dralint: warning: no *.yaml, *.yml or *.json files found in {', '.join(args.paths)}", file=sys.stderr)

    # Decided before -q trims the report: quiet changes what is shown, never the verdict.
    failed = any(p.severity >= settings.fail_on for p in result.problems)
    if args.quiet:
        result.problems = [p for p in result.problems if p.severity >= Severity.ERROR]
    _write_report(result, fmt, report, args, out)
    return 1 if failed else 0


def _fix_standard_input(args: argparse.Namespace, options, settings, out: TextIO) -> int:
    """`dralint --fix -`, as `ruff --fix -`: the fixed manifest on standard output (the input as it came when
    nothing applies), the report of what is left on standard error, exit 1 when that fails the run."""
    if args.paths != ["-"]:
        raise UsageError("--fix -: standard input is fixed alone (its fixed text is written to standard output)")
    from .fix import fix_stream
    from .migration_fixes import with_fixes
    from .pipeline.run import lint
    from .pipeline.sources import MAX_BYTES, Source

    fmt = settings.format
    if fmt == "auto":
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    report = _report_options(fmt, args, sys.stderr)
    with_fixes(options)
    data = sys.stdin.buffer.read(MAX_BYTES + 1)
    fixed = fix_stream(data, options)
    out.buffer.write(fixed)
    while len(data) > MAX_BYTES and (data := sys.stdin.buffer.read(1 << 16)):
        out.buffer.write(data)  # too big to lint (the report says so): passed through whole
    out.flush()
    options.keep = reads(fmt, report)
    result = lint([Source("-", fixed)], options)
    failed = any(p.severity >= settings.fail_on for p in result.problems)
    if args.quiet:
        result.problems = [p for p in result.problems if p.severity >= Severity.ERROR]
    write(fmt, result, report, sys.stderr)
    if fmt == "text" and not args.quiet:
        print(summary_line(result), file=sys.stderr)
    return 1 if failed else 0


def _report_options(fmt: str, args: argparse.Namespace, out: TextIO) -> ReportOptions:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose from {', '.join(sorted(FORMATS))} or auto")
    tty = out.isatty()
    color = args.color == "always" or (args.color == "auto" and tty and not os.environ.get("NO_COLOR"))
    return ReportOptions(color=color, show_source=tty or args.color == "always", quiet=args.quiet)


def _pack(options, settings, paths: list[str]):
    """The result cache's pack for this run, or None (--no-cache, DRALINT_NO_CACHE, standard input)."""
    if not settings.cache or "-" in paths or os.environ.get("DRALINT_NO_CACHE"):
        return None
    from .pipeline.result_cache import open_pack  # not for runs without the cache

    return open_pack(options, settings.cache_dir, settings.config_path)


def _cached_lint(paths: list[str], options, jobs: int | None, pack):
    """`_lint` with the result cache's `pack` (or without, None); made again without it, the pack removed, when a
    chunk of it changed after its index was read (dralint.pipeline.result_store.PackChanged: nothing of it was
    trusted, and nothing is reported before a run ends)."""
    if pack is None:
        return _lint(paths, options, jobs)
    from .pipeline.result_store import PackChanged

    try:
        return _lint(paths, options, jobs, pack)
    except PackChanged as exc:
        pack.discard()
        print(f"dralint: note: {exc}; checked without it", file=sys.stderr)
        return _lint(paths, options, jobs)
    finally:
        pack.close()


def _lint(paths: list[str], options, jobs: int | None, pack=None):
    """The run: serial (each file's leftovers frozen out of the collector's way) or on worker processes,
    with the result cache's `pack` when given (dralint.pipeline.result_cache)."""
    if jobs is None:
        jobs = parallel.usable_cores()
    else:
        jobs, capped = parallel.capped_jobs(jobs)
        if capped:
            print(f"dralint: warning: {capped}", file=sys.stderr)
    # Streamed: not even the list of files is kept. Standard input is read once, by this process.
    if jobs == 1 or "-" in paths:
        return _serial(parallel.frozen(read_all(files(paths))), options, pack)
    if pack is not None and pack.written_ns() is not None:
        return _rerun(paths, options, jobs, pack)
    entries = files(paths)
    head = list(itertools.islice(entries, max(parallel.MIN_FILES, 2)))  # what serial_reason needs to see
    if parallel.serial_reason(head, options, jobs) is None:
        runtime.start_up_over()  # before the workers are forked: they inherit the collector's state
        return parallel.lint_parallel(itertools.chain(head, entries), options, jobs, **({"pack": pack} if pack else {}))
    return _serial(parallel.frozen(read_all(itertools.chain(head, entries))), options, pack)


def _rerun(paths: list[str], options, jobs: int, pack):
    """A run with a result cache that holds files, on two processes (dralint.pipeline.rerun) unless it is small
    (parallel.serial_reason): when fewer than RERUN_FRESH of its files may have changed since the cache was written,
    a worker forked at the first of them checks those (with none, forked after the walk, it reads part of the
    files, and the run stored whole may answer) while this process takes the others from the pack; with more,
    the workers of a first run. Asked before any rule is loaded (a run answered whole loads none)."""
    # Not for a few files named one by one (the pre-commit hook): they stay serial, and a fork costs ~1-3 ms.
    forks = (len(paths) >= parallel.MIN_FILES or any(os.path.isdir(path) for path in paths)) and parallel.can_fork()
    if forks:
        from .pipeline import rerun  # noqa: PLC0415 - not for the pre-commit hook's re-run (bench/startup.py)
    workers: list = []
    try:
        stamped = stamped_files(paths)
        walked, fresh = parallel.since_stored(pack, stamped, (lambda: workers.append(rerun.start_worker(options, pack, True))) if forks else None)
        head = [(name, error) for name, error, _ in walked[:max(parallel.MIN_FILES, 2)]]  # what serial_reason needs to see
        if forks and parallel.serial_reason(head, options, jobs, rules_seen=True) is None:
            if fresh < parallel.RERUN_FRESH:
                worker = workers.pop() if workers else rerun.start_worker(options, pack, False)
                return rerun.lint_shared(walked, options, pack, worker)
            while workers:  # not needed: stopped before the workers of the run are forked
                workers.pop().stop()
            return parallel.lint_parallel(((entry[0], entry[1]) for entry in itertools.chain(walked, stamped)), options, jobs, pack=pack)
    finally:
        for worker in workers:
            worker.stop()
    return _serial(parallel.frozen(read_all((entry[0], entry[1]) for entry in itertools.chain(walked, stamped))), options, pack)


def _serial(sources, options, pack):
    if pack is None:
        from .pipeline.run import lint  # noqa: PLC0415 - a re-run the result cache answers needs none of the pipeline

        return lint(sources, options)
    from .pipeline.result_cache import lint_serial

    return lint_serial(sources, options, pack)


def _write_report(result, fmt: str, report, args: argparse.Namespace, out: TextIO) -> None:
    write(fmt, result, report, out)
    out.flush()
    if fmt == "text" and not args.quiet:
        print(summary_line(result), file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
