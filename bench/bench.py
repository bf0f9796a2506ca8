"""Throughput of `dralint` against bare libyaml parsing of the same files, in one run.

    python bench/bench.py [--documents 5000] [--repeat 5] [--real-world a|b]

(--real-world: the shared corpus split by bench/corpus_sets.py, instead of the mixed
documents; skipped when ../shared is absent.)

Generates a corpus of mixed DRA documents (claims, templates, classes and
pods across every API version, each file carrying the release it is meant
for), then times, on one core and alternating the two so that machine noise
hits both alike:

  * `dralint --format json FILES` (the whole CLI: start-up, load, schema, rules, report);
  * a bare parse: a fresh interpreter that runs libyaml (ruamel.yaml.clib's
    CParser) over the same files and builds nothing.

Also times `dralint --select DRA1` (load, type resolution and schema check,
no semantic rules), the core every rule builds on. Prints documents/s for
each (median of --repeat runs) and the ratio to the parse-only rate. The goal
is dralint at >= 50 % of the parse-only rate.
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

# (release, apiVersion, documents) — realistic shapes for each generation of the API.
TEMPLATES: list[tuple[str, str]] = [
    (
        "1.35",
        """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim-{n}
  namespace: team-{t}
  labels:
    app.kubernetes.io/name: trainer
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: 2
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].model == "A100"
    - name: nic
      firstAvailable:
      - name: fast
        deviceClassName: nic.example.com
      - name: slow
        deviceClassName: nic.example.com
        count: 2
    constraints:
    - requests: ["gpu"]
      matchAttribute: gpu.example.com/numaNode
    config:
    - requests: ["gpu"]
      opaque:
        driver: gpu.example.com
        parameters:
          sharing: {{strategy: TimeSlicing}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: class-{n}.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: v1
kind: Pod
metadata:
  name: pod-{n}
  namespace: team-{t}
spec:
  resourceClaims:
  - name: gpu
    resourceClaimName: claim-{n}
  containers:
  - name: main
    image: registry.example.com/app:1.0
    resources:
      claims:
      - name: gpu
""",
    ),
    (
        "1.32",
        """apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata:
  name: template-{n}
  namespace: team-{t}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: gpu.example.com
        count: 1
        selectors:
        - cel:
            expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
""",
    ),
    (
        "1.30",
        """apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata:
  name: classic-{n}
  namespace: team-{t}
spec:
  resourceClassName: gpu.example.com
  allocationMode: WaitForFirstConsumer
""",
    ),
]


def generate(folder: Path, documents: int, per_file: int = 100) -> list[Path]:
    files: list[Path] = []
    written = n = 0
    while written < documents:
        release, template = TEMPLATES[len(files) % len(TEMPLATES)]
        docs_in_template = template.count("\n---\n") + 1
        parts = [f"# dralint: kubernetes-version={release}\n"]
        count = 0
        while count < per_file and written < documents:
            parts.append(("---\n" if count else "") + template.format(n=n, t=n % 7))
            count += docs_in_template
            written += docs_in_template
            n += 1
        path = folder / f"corpus-{len(files):03d}.yaml"
        path.write_text("".join(parts))
        files.append(path)
    return files


PARSE_ONLY = """
import sys
from _ruamel_yaml import CParser
docs = 0
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        parser = CParser(f.read().decode("utf-8"))
    while True:
        event = parser.get_event()
        kind = type(event).__name__
        if kind == "DocumentStartEvent":
            docs += 1
        elif kind == "StreamEndEvent":
            break
print(docs)
"""


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--real-world", choices=["a", "b"], metavar="SET",
                        help="bench/corpus_sets.py's set (a) or (b) of the shared corpus instead of the mixed documents")
    args = parser.parse_args()

    dralint = shutil.which("dralint", path=str(Path(sys.executable).parent)) or shutil.which("dralint")
    if not dralint:
        raise SystemExit("dralint is not installed in this environment")
    one_core = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    with tempfile.TemporaryDirectory() as tmp:
        if args.real_world:
            from corpus_sets import SETS, build_set, corpus_root  # beside this script

            if corpus_root() is None:
                print("skipped: ../shared/corpus/real-world is absent")
                return
            folder = build_set(Path(tmp), args.real_world)
            files = sorted(str(f) for f in folder.iterdir() if f.suffix == ".yaml")
            args.documents = SETS[args.real_world][0]
        else:
            files = [str(f) for f in generate(Path(tmp), args.documents)]
        from dralint_cli import no_cache  # beside this script

        off = no_cache(dralint)
        commands = {
            "dralint, every rule": [*one_core, dralint, "--no-config", *off, "--format", "json", *files],
            # Load, type resolution and schema check only: the core every rule builds on.
            "dralint --select DRA1": [*one_core, dralint, "--no-config", *off, "--format", "json", "--select", "DRA1", *files],
            "libyaml parse only": [*one_core, sys.executable, "-c", PARSE_ONLY, *files],
        }
        for cmd in commands.values():
            timed(cmd)  # warm the page cache and bytecode
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                times[name].append(timed(cmd))
    rates = {name: args.documents / statistics.median(t) for name, t in times.items()}
    parse_rate = rates["libyaml parse only"]
    print(f"documents: {args.documents} in {len(files)} files, {os.cpu_count()} cores, pinned to one: {bool(one_core)}")
    for name, rate in rates.items():
        print(f"{name:<24} {rate:8.0f} documents/s  median of {args.repeat}: {statistics.median(times[name]):.3f} s  "
              f"{rate / parse_rate:6.1%} of parse-only")
    print("goal: dralint at >= 50% of the parse-only rate")


if __name__ == "__main__":
    main()
