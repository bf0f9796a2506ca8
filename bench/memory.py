"""What a `--jobs 1` run holds in memory, and where, at the points where it holds the most.

    python bench/memory.py [--documents 30000] [--per-file 1] [--keep DIR] [--folder DIR]

Runs the CLI (`--no-config --format json --jobs 1`, report to /dev/null) in
this process over bench/scale.py's corpus (or --folder), and prints the
process's resident memory (current and peak) when the file loop ends, when
the cross-file judgment ends and when the report is written; and, when the
file loop ends, the bytes of every object reachable from what the run keeps,
by owner and type (sys.getsizeof over gc referents, in a forked copy of the
process: each object counted once, for the first owner that reaches it, in the
order printed):

  records     the cross-file rules' index (dralint.pipeline.run._Run.records)
  problems    the problems listed so far, with their spans and strings
  memos       the bounded caches of name checks and shared values

Run it at two sizes: what grows per file is what the run keeps per file.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import pickle
import pkgutil
import resource
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import corpus  # noqa: E402

import dralint  # noqa: E402
import dralint.cli as cli_module  # noqa: E402
import dralint.pipeline.run as lint_module  # noqa: E402
from dralint import api  # noqa: E402
from dralint.k8s import names  # noqa: E402

SCALARS = (str, bytes, int, float, bool, type(None))


def rss_mib() -> tuple[float, float]:
    """Current and peak resident memory of this process, MiB."""
    with open("/proc/self/statm") as statm:
        current = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return current, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def census(owners: list[tuple[str, Any]]) -> collections.Counter:
    """(owner, type name) -> [bytes, objects] of everything reachable from each owner, each object once."""
    seen: set[int] = set()
    sizes: collections.Counter = collections.Counter()
    counts: collections.Counter = collections.Counter()
    for owner, root in owners:
        pending = [root]
        while pending:
            obj = pending.pop()
            if id(obj) in seen or isinstance(obj, type) or type(obj).__name__ in ("module", "function", "builtin_function_or_method"):
                continue
            seen.add(id(obj))
            key = (owner, type(obj).__name__)
            sizes[key] += sys.getsizeof(obj)
            counts[key] += 1
            if not isinstance(obj, SCALARS):
                pending.extend(gc.get_referents(obj))
    return collections.Counter({key: (size, counts[key]) for key, size in sizes.items()})


def in_child(func: Any, *args: Any) -> Any:
    """`func(*args)` in a forked copy of this process, its result pickled back."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        with os.fdopen(write_end, "wb") as out:
            pickle.dump(func(*args), out)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as result:
        value = pickle.load(result)
    os.waitpid(pid, 0)
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=30000)
    parser.add_argument("--per-file", type=int, default=1)
    parser.add_argument("--keep", metavar="DIR", help="write the corpus here and reuse it (default: a temporary folder)")
    parser.add_argument("--folder", metavar="DIR", help="lint this folder instead")
    args = parser.parse_args()
    if args.folder:
        folder = Path(args.folder)
    else:
        import tempfile

        root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dralint-memory-"))
        folder = corpus(root, args.documents, args.per_file)

    held: dict[str, Any] = {}
    points: list[tuple[str, float, float]] = []
    finish, judge, write = lint_module._Run.finish, lint_module.run_index_rules, cli_module.write

    def finishing(run: Any) -> Any:
        points.append(("files checked", *rss_mib()))
        owners = [("records", run.records), ("problems", run.result.problems),
                  ("memos", [api._SHARED, names._valid_labels, names._valid_subdomains, names._valid_qualified, names._valid_label_values])]
        held["census"] = in_child(census, owners)  # its own bookkeeping must not count in this process's peak
        held["files"] = run.result.files
        return finish(run)

    def judging(*a: Any, **k: Any) -> Any:
        found = judge(*a, **k)
        points.append(("a release judged", *rss_mib()))
        return found

    def writing(*a: Any, **k: Any) -> Any:
        write(*a, **k)
        points.append(("report written", *rss_mib()))

    lint_module._Run.finish = finishing  # type: ignore[method-assign]
    lint_module.run_index_rules = judging
    cli_module.write = writing
    points.append(("start", *rss_mib()))
    stdout = sys.stdout
    with open(os.devnull, "w") as sys.stdout:
        # The linting itself, not the result cache (a checkout without one has no such flag).
        off = ["--no-cache"] if "result_cache" in {m.name for m in pkgutil.iter_modules(dralint.__path__)} else []
        cli_module.main(["--no-config", *off, "--format", "json", "--jobs", "1", str(folder)])
    sys.stdout = stdout

    files = held["files"]
    print(f"{folder}: {files} files")
    for label, current, peak in points:
        print(f"  {label:<18} RSS {current:7.1f} MiB   peak {peak:7.1f} MiB")
    found = held["census"]
    print(f"  held when the files are checked ({'bytes a file':>12}):")
    for owner in ("records", "problems", "memos"):
        rows = sorted(((size, count, kind) for (who, kind), (size, count) in found.items() if who == owner), reverse=True)
        total = sum(size for size, _, _ in rows)
        print(f"  {owner:<10} {total / 2**20:7.1f} MiB  {total / files:8.0f}")
        for size, count, kind in rows[:6]:
            print(f"    {kind:<14} {size / 2**20:7.1f} MiB  {size / files:8.0f}   {count:,} objects")


if __name__ == "__main__":
    main()
