"""The result cache: cold, first, warm and 1 %-changed runs of `dralint` on the real-world corpus, paired.

    python bench/cache.py [--files 10000] [--repeat 3] [--jobs 1] [--changed 0.01] [--dralint PATH] [--baseline PATH]

Set (a) of issue 23 as bench/corpus_sets.py builds it (the documents of
../shared/corpus/real-world, one a file, each opening with the `# dralint:` comment of
its release and gates, repeated to --files files), in a temporary folder. Each round runs, one
after the other so that machine noise hits all alike:

  * no cache: `dralint --no-config --format json --jobs N --no-cache DIR`;
  * first: the same with an empty cache (`--cache-dir`), which it fills;
  * warm: again, nothing changed;
  * changed: after a comment is appended to --changed of the files.

It prints the medians and each kind's ratio to the no-cache run (wall and CPU
of the child, workers included), and checks that every cached run's report
is byte-identical to the no-cache run's over the same files. Goals (issue 23):
warm <= 0.15, changed <= 0.25, first <= 1.15. Skips when ../shared is absent.

With --baseline (another install's `dralint`, e.g. a `git worktree add --detach` of main with its own
venv), --repeat more rounds then time the first run alone against both installs: each round runs
no-cache and first for one install then the other (the order swapped every round), and it prints the
median of each install's first/no-cache ratios of the same round, which the load moves less than the
medians of separate invocations.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_sets import build, corpus_root  # noqa: E402


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out, _ = proc.communicate()
    wall = time.perf_counter() - start
    cpu = _children_cpu_delta()  # the child's and its workers' CPU, once waited for
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}")
    return wall, cpu, out


_last_children = [0.0]


def _children_cpu_delta() -> float:
    t = os.times()
    total = t.children_user + t.children_system
    delta, _last_children[0] = total - _last_children[0], total
    return delta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--changed", type=float, default=0.01)
    parser.add_argument("--dralint", default=str(Path(sys.executable).parent / "dralint"))
    parser.add_argument("--baseline", help="another install's dralint: the first run timed against it, paired")
    args = parser.parse_args()
    if corpus_root() is None:
        print("skipped: ../shared/corpus/real-world is absent")
        return
    with tempfile.TemporaryDirectory(prefix="dralint-cache-bench-") as tmp:
        root = Path(tmp)
        folder = root / "a"
        build(folder, args.files, 1)  # set (a) of bench/corpus_sets.py, each file with its release comment
        paths = sorted(folder.glob("doc-*.yaml"))
        env = {k: v for k, v in os.environ.items() if k not in ("DRALINT_NO_CACHE", "GITHUB_ACTIONS")}
        env["DRALINT_CACHE_DIR"] = str(root / "user")
        base = [args.dralint, "--no-config", "--format", "json", "--jobs", str(args.jobs)]
        cache = root / "cache"
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in ("no cache", "first", "warm", "changed")}
        step = max(1, round(1 / args.changed)) if args.changed > 0 else len(paths) + 1
        edits = 0
        _children_cpu_delta()
        previous_changed: bytes | None = None
        for _ in range(args.repeat):
            wall, cpu, cold = run([*base, "--no-cache", str(folder)], env)
            times["no cache"].append((wall, cpu))
            if previous_changed is not None and previous_changed != cold:
                sys.exit("the changed run's report differs from the no-cache run's over the same files")
            shutil.rmtree(cache, ignore_errors=True)
            for kind in ("first", "warm"):
                wall, cpu, out = run([*base, "--cache-dir", str(cache), str(folder)], env)
                times[kind].append((wall, cpu))
                if out != cold:
                    sys.exit(f"the {kind} run's report differs from the no-cache run's")
            edits += 1
            for path in paths[edits % step::step]:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(f"# edit {edits}\n")
            wall, cpu, previous_changed = run([*base, "--cache-dir", str(cache), str(folder)], env)
            times["changed"].append((wall, cpu))
        wall, cpu, cold = run([*base, "--no-cache", str(folder)], env)
        if cold != previous_changed:
            sys.exit("the changed run's report differs from the no-cache run's over the same files")
        report(times, args)
        if args.baseline:
            first_against(args, folder, env, root / "paired")


def first_against(args: argparse.Namespace, folder: Path, env: dict[str, str], cache: Path) -> None:
    """The first run's CPU ratio to no-cache, this install and the baseline's, paired round by round."""
    installs = {"this": args.dralint, "baseline": args.baseline}
    ratios: dict[str, list[float]] = {k: [] for k in installs}
    expected: bytes | None = None
    for n in range(args.repeat):
        for name in (list(installs) if n % 2 == 0 else list(installs)[::-1]):
            base = [installs[name], "--no-config", "--format", "json", "--jobs", str(args.jobs)]
            _children_cpu_delta()
            _, cold_cpu, cold = run([*base, "--no-cache", str(folder)], env)
            shutil.rmtree(cache, ignore_errors=True)
            _, first_cpu, out = run([*base, "--cache-dir", str(cache), str(folder)], env)
            expected = expected or cold
            if out != cold or cold != expected:
                sys.exit(f"{name}: the reports differ")
            ratios[name].append(first_cpu / cold_cpu)
    for name, values in ratios.items():
        print(f"  first run, {name:8} paired CPU ratio: median {statistics.median(values):.3f}  ({' '.join(f'{v:.3f}' for v in values)})")


def report(times: dict[str, list[tuple[float, float]]], args: argparse.Namespace) -> None:
    print(f"set (a): {args.files} one-document files of the real-world corpus, --jobs {args.jobs}, {args.repeat} rounds")
    base_wall = statistics.median(w for w, _ in times["no cache"])
    base_cpu = statistics.median(c for _, c in times["no cache"])
    goals = {"first": 1.15, "warm": 0.15, "changed": 0.25}
    for kind, pairs in times.items():
        wall = statistics.median(w for w, _ in pairs)
        cpu = statistics.median(c for _, c in pairs)
        goal = f"  (goal <= {goals[kind]})" if kind in goals else ""
        print(f"  {kind:9} wall {wall:6.2f} s  cpu {cpu:6.2f} s   ratio wall {wall / base_wall:5.3f}  cpu {cpu / base_cpu:5.3f}{goal}")
    print("  every cached run's report was byte-identical to the no-cache run's over the same files")


if __name__ == "__main__":
    main()
