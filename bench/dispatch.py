"""What rule dispatch (`@rule(needs=...)`, dralint.pipeline.dispatch) saves, in one process, paired.

    python bench/dispatch.py [--documents 5000] [--repeat 7]

Lints the synthetic set of bench/bench.py and the real-world corpus (../shared/corpus/real-world,
when present) in process, alternating dispatch on and off (dralint.pipeline.dispatch.ENABLED) so that
machine noise hits both alike, and prints the median CPU time of each and their ratio. Both runs
give the same problems (tests/test_dispatch.py); the ratio is the share of the run dispatch keeps.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from bench import generate  # noqa: E402
from dralint.pipeline import dispatch  # noqa: E402

from engine import lint_paths  # noqa: E402

CORPUS = HERE.parent.parent / "shared" / "corpus" / "real-world"


def cpu(files: list[str], enabled: bool) -> float:
    dispatch.ENABLED = enabled
    start = time.process_time()
    lint_paths(files)
    return time.process_time() - start


def paired(name: str, files: list[str], repeat: int) -> None:
    on: list[float] = []
    off: list[float] = []
    cpu(files, True)  # warm: imports, schemas, CEL programs
    for _ in range(repeat):
        off.append(cpu(files, False))
        on.append(cpu(files, True))
    a, b = statistics.median(on), statistics.median(off)
    print(f"{name}: dispatch on {a:.3f} s, off {b:.3f} s CPU (median of {repeat}); on/off = {a / b:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paired(f"synthetic ({args.documents} documents)", [str(p) for p in generate(Path(tmp), args.documents)], args.repeat)
    if CORPUS.is_dir():
        paired("real-world corpus", [str(CORPUS)], args.repeat)


if __name__ == "__main__":
    main()
