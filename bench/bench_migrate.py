"""How `dralint migrate` scales with the size of one document: time per line must stay flat.

Builds one v1beta1 ResourceClaim with N full-line comments (in the middle of the
document and at its end, both as repeated and as distinct lines), migrates it
in process (`dralint.migrate.migrate_text`, which also verifies the result by
linting it) and prints seconds and microseconds per line for each N, and the
ratio of the largest N's time per line to the smallest's (1.0 = linear).

    .venv/bin/python bench/bench_migrate.py [--lines 5000,20000,80000] [--rounds 3]

To compare with another checkout, run the same script with
`PYTHONPATH=/that/checkout/src` (the script only calls `migrate_text`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

HEAD = "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\n"
BODY = "metadata:\n  name: c\nspec:\n  devices:\n    requests:\n    - name: gpu\n      deviceClassName: gpu.example.com\n"


def document(lines: int, shape: str) -> str:
    pad = "".join(f"# comment {i}\n" for i in range(lines)) if shape.startswith("distinct") else "# pad\n" * lines
    return HEAD + pad + BODY if shape.endswith("middle") else HEAD + BODY + pad


def best_of(rounds: int, text: str) -> float:
    from dralint.migrate import migrate_text

    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        result = migrate_text("bench.yaml", text)
        best = min(best, time.perf_counter() - start)
        assert result.changed and not result.failed, result.failed
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", default="5000,20000,80000", help="comma-separated comment line counts")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    counts = [int(n) for n in args.lines.split(",")]
    import dralint

    print(f"dralint from {Path(dralint.__file__).parent}")
    best_of(1, document(10, "repeated, end"))  # imports and the first lint's set-up are not what is measured
    for shape in ("repeated, middle", "repeated, end", "distinct, middle"):
        per_line = []
        for n in counts:
            seconds = best_of(args.rounds, document(n, shape))
            per_line.append(seconds / n)
            print(f"{shape:<18} {n:>7} comment lines: {seconds:8.3f} s  {seconds / n * 1e6:7.1f} us/line", flush=True)
        print(f"{shape:<18} us/line at {counts[-1]} / at {counts[0]}: {per_line[-1] / per_line[0]:.2f} (1.0 = linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
