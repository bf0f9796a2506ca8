"""What rule dispatch (`@rule(needs=...)`, dralint.pipeline.dispatch) saves, paired and alternated in one run.

    python bench/dispatch.py [--documents 5000] [--repeat 7] [--sets synthetic,corpus,a,b]
                             [--baseline DIR] [--calls]

In process: lints each set alternating dispatch on and off (dralint.pipeline.dispatch.ENABLED), so that
machine noise hits both alike, and prints the median CPU time of each and their ratio (both give
the same problems: tests/test_dispatch.py). Sets: the synthetic documents of bench/bench.py, the
real-world corpus (../shared/corpus/real-world) as it is, and its bench sets (a) and (b)
(bench/corpus_sets.py); the real-world ones are skipped when ../shared is absent.

--baseline DIR: also runs the command line (`python -m dralint --no-config --format json`, one
process per run, CPU of the child) of this tree and of the checkout at DIR (e.g. a worktree of
main before dispatch), alternated, on each set. --calls: how many document-rule calls each set
makes with dispatch on and off.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import corpus_sets  # noqa: E402

from bench import generate  # noqa: E402
from dralint.pipeline import dispatch  # noqa: E402
from dralint.pipeline import stages as lint_module  # noqa: E402

from engine import lint_paths  # noqa: E402

CORPUS = HERE.parent.parent / "shared" / "corpus" / "real-world"


def cpu(files: list[str], enabled: bool) -> float:
    dispatch.ENABLED = enabled
    start = time.process_time()
    lint_paths(files)
    return time.process_time() - start


def _median_ratio(a: list[float], b: list[float]) -> str:
    ratios = sorted(x / y for x, y in zip(a, b, strict=True))
    return f"{statistics.median(a):.3f} s and {statistics.median(b):.3f} s; ratio median {statistics.median(ratios):.3f} (range {ratios[0]:.3f}-{ratios[-1]:.3f})"


def paired(name: str, files: list[str], repeat: int) -> None:
    on: list[float] = []
    off: list[float] = []
    cpu(files, True)  # warm: imports, schemas, CEL programs
    for i in range(repeat):
        for enabled in (False, True) if i % 2 else (True, False):
            (on if enabled else off).append(cpu(files, enabled))
    print(f"{name}, in process, dispatch on / off CPU (median of {repeat} pairs): {_median_ratio(on, off)}")


def calls(name: str, files: list[str]) -> None:
    counted = [0]
    real = lint_module.run_document_rules

    def counting(rules, view):
        counted[0] += len(rules)
        return real(rules, view)

    lint_module.run_document_rules = counting
    try:
        for enabled in (False, True):
            dispatch.ENABLED = enabled
            counted[0] = 0
            lint_paths(files)
            print(f"{name}: {counted[0]} document-rule calls with dispatch {'on' if enabled else 'off'}")
    finally:
        lint_module.run_document_rules = real
        dispatch.ENABLED = True


def _cli_cpu(tree: Path, files: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), DRALINT_NO_CACHE="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "dralint", "--no-config", "--no-cache", "--jobs", "1", "--format", "json", *files],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=tree)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"dralint in {tree} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def against(name: str, files: list[str], baseline: Path, repeat: int) -> None:
    here = HERE.parent
    ours: list[float] = []
    theirs: list[float] = []
    _cli_cpu(here, files), _cli_cpu(baseline, files)  # warm the page cache and both trees' bytecode
    for i in range(repeat):
        for tree in (baseline, here) if i % 2 else (here, baseline):
            (ours if tree is here else theirs).append(_cli_cpu(tree, files))
    print(f"{name}, command line, this tree / {baseline} CPU (median of {repeat} pairs): {_median_ratio(ours, theirs)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sets", default="synthetic,corpus,a,b")
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--calls", action="store_true")
    args = parser.parse_args()
    wanted = args.sets.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        sets: list[tuple[str, list[str]]] = []
        if "synthetic" in wanted:
            sets.append((f"synthetic ({args.documents} documents)", [str(p) for p in generate(Path(tmp), args.documents)]))
        if CORPUS.is_dir():
            if "corpus" in wanted:
                sets.append(("real-world corpus", [str(CORPUS)]))
            for name in ("a", "b"):
                if name in wanted:
                    sets.append((f"real-world ({name})", [str(corpus_sets.build_set(Path(tmp) / name, name))]))
        for name, files in sets:
            if args.calls:
                calls(name, files)
            paired(name, files, args.repeat)
            if args.baseline is not None:
                against(name, files, args.baseline.resolve(), args.repeat)


if __name__ == "__main__":
    main()
