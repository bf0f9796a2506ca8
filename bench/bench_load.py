"""Benchmark dralint.load.load() against bare CParser event iteration on the same text.

Generates ~2,000 realistic DRA documents (ResourceClaims, ResourceClaimTemplates,
DeviceClasses, ResourceSlices) as one multi-document YAML text in memory and prints
documents/s of both and their ratio, measured in the same run (best of N rounds).

    .venv/bin/python bench/bench_load.py [--docs 2000] [--rounds 5] [--positions]

--positions also touches every document's positions (forcing the lazy table), to show
what a run that reports a problem in every document would cost.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

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


def bare(text: str) -> int:
    from _ruamel_yaml import CParser  # noqa: PLC0415

    get = CParser(text).get_event
    n = 0
    while True:
        ev = get()
        n += 1
        if ev.__class__.__name__ == "StreamEndEvent":
            return n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--positions", action="store_true", help="also force every document's positions")
    args = ap.parse_args()

    from dralint.load import c_parser_available, load  # noqa: PLC0415

    if not c_parser_available():
        sys.exit("the C parser (ruamel.yaml.clib) is not available")
    text = corpus(args.docs)
    data = text.encode()
    result = load("bench.yaml", data)
    assert len(result.documents) == args.docs and not result.problems, result.problems[:3]

    best_bare = best_load = float("inf")
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        bare(text)
        best_bare = min(best_bare, time.perf_counter() - t0)
        r = None
        t0 = time.perf_counter()
        r = load("bench.yaml", data)
        if args.positions:
            for d in r.documents:
                d.positions.get(())
        best_load = min(best_load, time.perf_counter() - t0)
    n = args.docs
    print(f"documents: {n} ({len(data) / 1024:.0f} KiB, best of {args.rounds})")
    print(f"bare CParser events: {n / best_bare:9.0f} docs/s")
    print(f"load(){' + positions' if args.positions else ''}:{' ' * (14 - (12 if args.positions else 0))}"
          f"{n / best_load:9.0f} docs/s")
    print(f"ratio load/bare:     {best_load / best_bare:9.2f}x")


if __name__ == "__main__":
    main()
