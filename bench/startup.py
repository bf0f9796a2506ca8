"""Start-up cost: `dralint` on one clean file against a bare `python -c pass`.

    python bench/startup.py [--runs 40] [--file FILE] [--importtime] [--baseline DRALINT]

Timed, interleaved, `--runs` times each: the bare interpreter; the lint with
`--no-cache` (the file judged afresh); and the lint as the pre-commit hook runs
it on a commit that did not change the file (the result cache filled by an
earlier run); both again with a project's `.dralint.yaml` (`CONFIG`), as most
repositories with the hook have one. With `--baseline`, another install's `dralint` is timed the same
way in the same rounds. The medians and their ratios to the bare interpreter
are printed. The goal (issue 23): at most 4.5, because pre-commit starts
dralint once per batch of files and editors run it on every save.
`--importtime` also prints the slowest imports of one lint run
(`python -X importtime`, cumulative microseconds) and whether jsonschema was
imported (it must not be, for a clean file).
"""

from __future__ import annotations

import argparse
import os
import resource
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
GOAL = 4.5
# A project's settings as a pre-commit user's repository has them: the rows "with a config" read it.
CONFIG = """\
kubernetes-version: "1.35"
severity: {DRA713: warning}
ignore: [DRA102]
"""


def dralint_command() -> list[str]:
    script = Path(sys.executable).parent / "dralint"
    if script.exists():
        return [str(script)]
    found = shutil.which("dralint")
    return [found] if found else [sys.executable, "-m", "dralint"]


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _time(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run of `cmd` (CPU moves less on a loaded machine)."""
    cpu, start = _cpu(), time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return elapsed, _cpu() - cpu


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
    parser.add_argument("--baseline", metavar="DRALINT", help="another install's dralint, timed alike in the same rounds")
    args = parser.parse_args(argv)

    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "PYTHONPROFILEIMPORTTIME", "PYTHONDONTWRITEBYTECODE", "DRALINT_NO_CACHE")}
    # Users run with bytecode caches (pip writes them at install): so does the benchmark.
    with tempfile.TemporaryDirectory() as tmp:
        target = args.file
        if target is None:
            target = os.path.join(tmp, "clean.yaml")
            Path(target).write_text(CLEAN)
        env["DRALINT_CACHE_DIR"] = os.path.join(tmp, "user")  # the per-user key of the caches
        config_file = os.path.join(tmp, "project.dralint.yaml")
        Path(config_file).write_text(CONFIG)
        from dralint_cli import no_cache  # beside this script

        installs = {"": dralint_command()}
        if args.baseline:
            installs["baseline "] = [args.baseline]
        commands = {"python -c pass": [sys.executable, "-c", "pass"]}
        for label, dralint in installs.items():
            for config, name in (["--no-config"], ""), (["--config", config_file], ", a config"):
                commands[f"{label}dralint --no-cache{name}"] = [*dralint, *config, *no_cache(*dralint), "--format", "text", target]
                if no_cache(*dralint):
                    cache = ["--cache-dir", os.path.join(tmp, f"cache-{len(commands)}")]
                    commands[f"{label}dralint, cache warm{name}"] = [*dralint, *config, *cache, "--format", "text", target]
        for cmd in commands.values():  # the page cache, the bytecode caches and the result caches warmed once
            _time(cmd, env)
        runs: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, cmd in commands.items():
                runs[label].append(_time(cmd, env))
        base_wall = statistics.median(w for w, _ in runs["python -c pass"])
        base_cpu = statistics.median(c for _, c in runs["python -c pass"])
        for label, times in runs.items():
            wall, cpu = statistics.median(w for w, _ in times), statistics.median(c for _, c in times)
            verdict = "" if label == "python -c pass" else (
                f"  ratio wall {wall / base_wall:.2f} cpu {cpu / base_cpu:.2f} (goal <= {GOAL:g}): {'ok' if wall / base_wall <= GOAL else 'TOO SLOW'}")
            print(f"{label:40} wall {wall * 1000:6.1f} ms  cpu {cpu * 1000:6.1f} ms{verdict}")
        print(f"({args.runs} runs each, interleaved; medians)")
        if args.importtime:
            lint = installs[""]
            py_lint = [sys.executable, "-c", "import sys; from dralint.cli import main; sys.exit(main())", "--no-config", *no_cache(*lint), target]
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
