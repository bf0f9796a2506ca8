"""Where in-process `lint()` spends its time, stage by stage, and the rules module by module.

    python bench/stages.py [--documents 10000] [--repeat 3] [--rules]

Generates bench.py's corpus, runs `dralint.lint.lint` over it --repeat times in
one process (after a warm-up run) and prints, for the fastest run, the CPU time
(`time.process_time`, so that other jobs on the machine count less) of load,
triage, type resolution, schema check, document rules and run rules, each as a
share of the whole `lint()` call; the rest is positions, suppressions and
sorting. Garbage collection is counted in whatever stage it interrupts. With
--rules, also the time of each rule module's checks (each check timed on its
own, so these add a little overhead of their own).

Compare two checkouts by running it with each on PYTHONPATH, alternately.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dralint.lint as lint_module  # noqa: E402
from bench import generate  # noqa: E402
from dralint.lint import LintOptions, lint  # noqa: E402
from dralint.sources import collect  # noqa: E402

STAGES = {"load": "load", "triage": "triage", "resolve": "resolve", "check_schema": "schema",
          "run_document_rules": "document rules", "run_run_rules": "run rules"}


def _timed(func: Callable[..., Any], spent: collections.Counter, key: str) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            spent[key] += time.process_time() - start
    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", action="store_true", help="also time each rule module")
    args = parser.parse_args()

    spent: collections.Counter = collections.Counter()
    for name, key in STAGES.items():
        setattr(lint_module, name, _timed(getattr(lint_module, name), spent, key))
    options = LintOptions(plugins=False)
    if args.rules:
        rules = [r._replace(check=_timed(r.check, spent, f"  rules.{r.origin.rsplit('.', 1)[-1]}")) for r in options.rules()]
        options = LintOptions(plugins=False, extra_rules=rules)
        lint_module.all_rules = lambda *_a, **_k: []  # the timed copies only
    with tempfile.TemporaryDirectory() as tmp:
        sources = list(collect([str(f) for f in generate(Path(tmp), args.documents)]))
        lint(sources, options)  # warm: schemas, CEL verdicts, caches
        best: dict[str, float] | None = None
        for _ in range(args.repeat):
            spent.clear()
            start = time.process_time()
            result = lint(sources, options)
            spent["lint"] = time.process_time() - start
            if best is None or spent["lint"] < best["lint"]:
                best = dict(spent)
    assert best is not None
    total = best.pop("lint")
    print(f"{args.documents} documents, {len(result.problems)} problems; lint() {total:.3f} s CPU (best of {args.repeat})")
    for key, seconds in best.items():
        print(f"  {key:<24} {seconds:7.3f} s  {seconds / total:6.1%}")


if __name__ == "__main__":
    main()
