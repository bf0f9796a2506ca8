"""Benchmark dralint.pipeline.load.load() and the position tables against bare CParser event iteration.

Generates ~2,000 realistic DRA documents (ResourceClaims, ResourceClaimTemplates,
DeviceClasses, ResourceSlices) as one multi-document YAML text in memory, or reads
the files of --corpus DIR (e.g. one that bench/scale.py --keep wrote), and prints
documents/s and the ratio to a bare event parse of the same text, each in a fresh
interpreter, the best of --rounds:

  * bare: ruamel.yaml.clib's CParser, every event read, nothing built (measured
    before dralint is imported, so with ruamel's own event classes);
  * load: load() of every source, the results kept alive as a CLI run keeps them;
  * positions (--positions): then every document's position table (the replay),
    with the cyclic collector off, which measures the replay and not the
    collector (see issue 12 for the collector).

--library leaves dralint.runtime's seam off (a host calling dralint.lint()); by
default it is on, as in the CLI. --baseline SRC also runs all of it for another source tree (e.g. a checkout's
src/), alternating the two so that machine noise hits both alike.

    .venv/bin/python bench/bench_load.py [--docs 2000] [--rounds 5] [--positions]
                                         [--corpus DIR] [--baseline SRC] [--library]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu-claim-{i}
  namespace: team-{t}
  labels:
    app.kubernetes.io/name: trainer-{i}
    app.kubernetes.io/part-of: ml
  annotations:
    example.com/owner: "alice"
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: {n}
        selectors:
        - cel:
            expression: |-
              device.attributes["gpu.example.com"].model == "a100" &&
              device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
        tolerations:
        - key: example.com/maintenance
          operator: Exists
          effect: NoSchedule
    - name: nic
      firstAvailable:
      - name: fast
        deviceClassName: nic.example.com
        selectors:
        - cel:
            expression: 'device.attributes["nic.example.com"].speed >= 100'
      - name: slow
        deviceClassName: nic.example.com
    constraints:
    - requests: ["gpu", "nic"]
      matchAttribute: resource.kubernetes.io/pcieRoot
    config:
    - requests: ["gpu"]
      opaque:
        driver: gpu.example.com
        parameters:
          sharing: {{strategy: TimeSlicing, interval: Long}}
          enabled: true
"""

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: tpl-{i}
  namespace: team-{t}
spec:
  metadata:
    labels:
      owner: team-{t}
  spec:
    devices:
      requests:
      - name: accel
        exactly:
          deviceClassName: accel.example.com
          allocationMode: All
          adminAccess: false
"""

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: class-{i}.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].index < {n}
  config:
  - opaque:
      driver: gpu.example.com
      parameters:
        apiVersion: gpu.example.com/v1
        kind: GpuConfig
        sharing:
          strategy: MPS
          mpsConfig: {{defaultActiveThreadPercentage: 50}}
"""

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-{i}-gpu.example.com
spec:
  driver: gpu.example.com
  nodeName: node-{i}
  pool:
    name: node-{i}
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    attributes:
      model: {{string: a100}}
      index: {{int: 0}}
      driverVersion: {{version: 1.2.3}}
    capacity:
      memory: {{value: 40Gi}}
  - name: gpu-1
    attributes:
      model: {{string: a100}}
      index: {{int: 1}}
    capacity:
      memory: {{value: 40Gi}}
"""


def corpus(n: int) -> str:
    kinds = (CLAIM, TEMPLATE, CLASS, SLICE)
    parts = []
    for i in range(n):
        parts.append("---\n" + kinds[i % len(kinds)].format(i=i, t=i % 7, n=1 + i % 4))
    return "".join(parts)


def sources(args: argparse.Namespace) -> list[tuple[str, bytes]]:
    if args.corpus:
        names = sorted(n for n in os.listdir(args.corpus) if n.endswith((".yaml", ".yml")))
        return [(n, Path(args.corpus, n).read_bytes()) for n in names]
    return [("bench.yaml", corpus(args.docs).encode())]


def child(args: argparse.Namespace) -> None:
    """One measurement round in this interpreter, for the tree args.child; prints JSON."""
    files = sources(args)
    texts = [data.decode() for _name, data in files]
    from _ruamel_yaml import CParser  # noqa: PLC0415 - the bare parse, before dralint can touch the parser

    gc.disable()  # the bare loop allocates events only; keep the collector out of the baseline
    t0 = time.process_time()
    for text in texts:
        get = CParser(text).get_event
        while get().__class__.__name__ != "StreamEndEvent":
            pass
    out = {"bare": time.process_time() - t0}
    gc.enable()
    sys.path.insert(0, args.child)
    if not args.library:
        try:
            from dralint import runtime  # noqa: PLC0415 - the seam the CLI turns on
        except ImportError:
            pass  # a tree without the seam: its tricks are always on
        else:
            runtime.enable()
    from dralint.pipeline.load import c_parser_available, load  # noqa: PLC0415 - from the tree under test

    if not c_parser_available():
        sys.exit("the C parser (ruamel.yaml.clib) is not available")
    load("warm.yaml", b"a: 1\n")
    t0 = time.process_time()
    results = [load(name, data) for name, data in files]
    out["load"] = time.process_time() - t0
    out["documents"] = sum(len(r.documents) for r in results)
    assert not any(r.problems for r in results), [r.problems[:3] for r in results if r.problems][:1]
    if args.positions:
        gc.disable()
        t0 = time.process_time()
        for r in results:
            for d in r.documents:
                d.positions.get(())
        out["positions"] = time.process_time() - t0
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--corpus", metavar="DIR", help="load the *.yaml files of DIR instead")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--positions", action="store_true", help="also build every document's position table")
    ap.add_argument("--baseline", metavar="SRC", help="another source tree to measure alike, alternating")
    ap.add_argument("--library", action="store_true",
                    help="leave the runtime seam off, as dralint.lint() called from a host does (default: on, as the CLI)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    trees = {"this tree": str(Path(__file__).resolve().parents[1] / "src")}
    if args.baseline:
        trees["baseline"] = str(Path(args.baseline).resolve())
    passed = [a for a in sys.argv[1:] if a not in ("--baseline", args.baseline)]
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, src in trees.items():
            proc = subprocess.run([sys.executable, __file__, *passed, "--child", src], capture_output=True, text=True)
            if proc.returncode:
                sys.exit(f"{name}: {proc.stderr[-2000:]}")
            runs[name].append(json.loads(proc.stdout))
    stages = ["load", "positions"] if args.positions else ["load"]
    n = runs["this tree"][0]["documents"]
    print(f"documents: {n}, best of {args.rounds} rounds, CPU time; time of each stage / time of the bare parse")
    for name, rs in runs.items():
        bare = min(r["bare"] for r in rs)
        cells = [f"bare {n / bare:8.0f} docs/s"]
        for stage in stages:
            best = min(r[stage] for r in rs)
            cells.append(f"{stage} {n / best:8.0f} docs/s = {best / bare:5.2f}x bare")
        print(f"{name:<10} " + "   ".join(cells))
    if args.baseline:
        for stage in stages:
            new, old = (min(r[stage] for r in runs[k]) for k in ("this tree", "baseline"))
            print(f"{stage}: this tree takes {new / old:.2f}x the baseline's time")


if __name__ == "__main__":
    main()
