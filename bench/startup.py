"""Start-up cost: `dralint` on one clean file against a bare `python -c pass`.

    python bench/startup.py [--runs 40] [--file FILE] [--importtime]

Both commands run in the same process tree, interleaved, `--runs` times each;
the medians and their ratio are printed. The goal (issue "Pre-commit hook and
CI gate"): the ratio stays at or below 5, because pre-commit starts dralint
once per batch of files and editors run it on every save.
`--importtime` also prints the slowest imports of one lint run
(`python -X importtime`, cumulative microseconds) and whether jsonschema was
imported (it must not be, for a clean file).
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

CLEAN = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        count: 1
"""
GOAL = 5.0


def dralint_command() -> list[str]:
    script = Path(sys.executable).parent / "dralint"
    if script.exists():
        return [str(script)]
    found = shutil.which("dralint")
    return [found] if found else [sys.executable, "-m", "dralint"]


def _time(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return elapsed


def importtime(cmd: list[str], env: dict[str, str], top: int = 15) -> tuple[list[tuple[int, str]], set[str]]:
    """(cumulative µs, module) of the slowest top-level-ish imports, and every module imported."""
    env = {**env, "PYTHONPROFILEIMPORTTIME": "1"}
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    rows: list[tuple[int, str]] = []
    modules: set[str] = set()
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self_us, cumulative, name = line.split(":", 1)[1].split("|", 2)
        modules.add(name.strip())
        rows.append((int(cumulative), name.rstrip()))
    rows.sort(reverse=True)
    return rows[:top], modules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--file", help="the clean manifest to lint (default: a small v1 ResourceClaim)")
    parser.add_argument("--importtime", action="store_true", help="also show the slowest imports")
    args = parser.parse_args(argv)

    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "PYTHONPROFILEIMPORTTIME", "PYTHONDONTWRITEBYTECODE")}
    # Users run with bytecode caches (pip writes them at install): so does the benchmark.
    with tempfile.TemporaryDirectory() as tmp:
        target = args.file
        if target is None:
            target = os.path.join(tmp, "clean.yaml")
            Path(target).write_text(CLEAN)
        from dralint_cli import no_cache  # beside this script

        lint = [*dralint_command(), "--no-config", *no_cache(*dralint_command()), "--format", "text", target]
        bare = [sys.executable, "-c", "pass"]
        # Warm the page cache and the bytecode caches once.
        _time(bare, env)
        _time(lint, env)
        base_runs, lint_runs = [], []
        for _ in range(args.runs):
            base_runs.append(_time(bare, env))
            lint_runs.append(_time(lint, env))
        base, lint_median = statistics.median(base_runs), statistics.median(lint_runs)
        ratio = lint_median / base
        print(f"python -c pass     median {base * 1000:7.1f} ms  ({args.runs} runs)")
        print(f"dralint clean.yaml median {lint_median * 1000:7.1f} ms  ({args.runs} runs)")
        print(f"ratio {ratio:.2f} (goal <= {GOAL:g}): {'ok' if ratio <= GOAL else 'TOO SLOW'}")
        if args.importtime:
            py_lint = [sys.executable, "-c", "import sys; from dralint.cli import main; sys.exit(main())", "--no-config", *no_cache(*dralint_command()), target]
            rows, modules = importtime(py_lint, env)
            print("\nslowest imports (cumulative, one run):")
            for us, name in rows:
                print(f"  {us / 1000:7.1f} ms  {name}")
            heavy = sorted(m for m in ("jsonschema", "referencing", "rpds", "ruamel.yaml", "yaml", "dralint.cel", "celpy", "lark") if m in modules)
            print(f"\nimported on a clean file: {', '.join(heavy) or 'none of the heavy modules'}")
            if "jsonschema" in modules:
                print("jsonschema was imported on a clean file: it must stay deferred")
    return 0


if __name__ == "__main__":
    sys.exit(main())
