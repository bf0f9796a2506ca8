"""Where `dralint` spends its time, stage by stage, against a bare libyaml parse of the same bytes.

    python bench/stages.py [--documents 10000] [--per-file 100] [--repeat 3] [--rules]
                           [--real-world a|b|c [--keep DIR]]

Writes bench.py's corpus (--per-file 100: bench.py's layout; 1: one document a
file, as bench/scale.py writes it), then checks it in one process the way the
CLI's `--jobs 1 --format json` run does: files read one at a time, the run's
leftovers frozen out of the cyclic collector after each file, the documents
let go file by file (LintOptions.keep as the json report asks), the
cross-file judgment at the end and the json report written to /dev/null.
After a warm-up run it repeats that --repeat times and prints, for the
fastest, the CPU time (`time.process_time`) of each stage, as a share of the
whole and as a multiple of the parse-only time: the same libyaml event loop as
bench.py's "parse only" over the same bytes, in the same process, timed the
same way. Interpreter start-up and imports are not in either (bench/startup.py
measures those). A stage's time includes the garbage collections it triggers.

  read          sources: open, fstat, read
  release       the `# dralint: kubernetes-version=` comment (dralint.pipeline.releases)
  triage        passed over unread (plain JSON), and what is no Kubernetes object
  load          YAML/JSON to plain data with position tables
  resolve       apiVersion/kind to a schema (dralint.pipeline.resolve)
  schema        the JSON-schema check
  document rules
  collect       the records of the cross-file rules, with their positions
  settle        positions and fixes of each file's problems, before its documents go
  judge         the cross-file rules over the records (at the end)
  report        the json report
  suppressions  reading each file's `# dralint:` comments (every file here has one: its release)
  gc.freeze     moving each file's leftovers out of the collector's sight
  (rest)        the loop itself, suppressions, capping, sorting

With --rules, also each rule module's own checks (each check timed on its own:
a little overhead of its own).

Compare two checkouts by running it with each on PYTHONPATH, alternately.
"""

from __future__ import annotations

import argparse
import collections
import gc
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_sets import build_set  # noqa: E402
from scale import write_one_per_file  # noqa: E402

import dralint.pipeline.run as lint_module  # noqa: E402
import dralint.pipeline.stages as stages_module  # noqa: E402
from bench import generate  # noqa: E402
from dralint.lint import LintOptions, lint  # noqa: E402
from dralint.pipeline import sources as sources_module  # noqa: E402
from dralint.report import ReportOptions, reads, write  # noqa: E402

# Functions of the run's and the stages' namespaces (what they call them by) -> stage.
STAGES = {"file_release": "release", "passed_over_unread": "triage", "triage": "triage", "load": "load",
          "resolve": "resolve", "check_schema": "schema", "run_document_rules": "document rules",
          "collect_records": "collect", "run_index_rules": "judge"}


def _timed(func: Callable[..., Any], spent: collections.Counter, key: str) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            spent[key] += time.process_time() - start
    return wrapper


def _timed_generator(func: Callable[..., Any], spent: collections.Counter, key: str) -> Callable[..., Any]:
    """For a generator function: the time of each step, not of building the generator."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        items = func(*args, **kwargs)
        while True:
            start = time.process_time()
            try:
                item = next(items)
            except StopIteration:
                spent[key] += time.process_time() - start
                return
            spent[key] += time.process_time() - start
            yield item
    return wrapper


def parse_only(datas: list[bytes]) -> float:
    """CPU seconds of bench.py's parse-only loop over `datas`."""
    from _ruamel_yaml import CParser

    start = time.process_time()
    for data in datas:
        parser = CParser(data.decode("utf-8"))
        while True:
            if type(parser.get_event()).__name__ == "StreamEndEvent":
                break
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=10000)
    parser.add_argument("--per-file", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", action="store_true", help="also time each rule module")
    parser.add_argument("--real-world", choices=["a", "b", "c"], metavar="SET",
                        help="the shared corpus's set a, b or c (bench/corpus_sets.py) instead of bench.py's documents")
    parser.add_argument("--keep", metavar="DIR", help="with --real-world: build the set here and reuse it")
    args = parser.parse_args()

    spent: collections.Counter = collections.Counter()
    for name, key in STAGES.items():
        wrap = _timed_generator if name == "collect_records" else _timed
        for module in (lint_module, stages_module):
            if hasattr(module, name):
                setattr(module, name, wrap(getattr(module, name), spent, key))
    sources_module._read = _timed(sources_module._read, spent, "read")
    settle = lint_module._Run.add
    lint_module._Run.add = _timed(settle, spent, "settle")  # type: ignore[method-assign]
    from dralint.pipeline.suppress import Suppressor

    Suppressor.add_source = _timed(Suppressor.add_source, spent, "suppressions")  # type: ignore[method-assign]
    report_options = ReportOptions()
    options = LintOptions(plugins=False, keep=reads("json", report_options))
    if args.rules:
        rules = [r._replace(check=_timed(r.check, spent, f"  rules.{r.origin.rsplit('.', 1)[-1]}")) for r in options.rules()]
        options = LintOptions(plugins=False, extra_rules=rules, keep=reads("json", report_options))
        lint_module.all_rules = lambda *_a, **_k: []  # the timed copies only

    def frozen(sources: Any) -> Any:  # as the CLI's --jobs 1 run (dralint.pipeline.parallel.frozen)
        for source in sources:
            yield source
            start = time.process_time()
            gc.freeze()
            spent["gc.freeze"] += time.process_time() - start

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.real_world:
            folder = build_set(Path(args.keep or tmp), args.real_world)
        elif args.per_file == 1:
            write_one_per_file(folder, args.documents)
        else:
            generate(folder, args.documents, args.per_file)
        paths = sorted(str(p) for p in folder.iterdir() if not p.name.startswith("."))
        datas = [Path(p).read_bytes() for p in paths]
        best: dict[str, float] | None = None
        parse = float("inf")
        for attempt in range(args.repeat + 1):  # the first: warm-up (schemas, CEL verdicts, caches)
            parse = min(parse, parse_only(datas))
            gc.unfreeze()
            gc.collect()
            spent.clear()
            start = time.process_time()
            result = lint(frozen(sources_module.read_all((p, None) for p in paths)), options)
            report_start = time.process_time()
            write("json", result, report_options, io.TextIOWrapper(open(os.devnull, "wb"), encoding="utf-8"))
            spent["report"] = time.process_time() - report_start
            spent["run"] = time.process_time() - start
            if attempt and (best is None or spent["run"] < best["run"]):
                best = dict(spent)
    assert best is not None
    total = best.pop("run")
    best["(rest)"] = total - sum(v for k, v in best.items() if not k.startswith("  "))
    print(f"{args.documents} documents in {len(paths)} files, {len(result.problems)} problems: {total:.3f} s CPU "
          f"(best of {args.repeat}); libyaml parse only {parse:.3f} s, {parse / total:.1%} of it")
    print(f"  {'stage':<24} {'seconds':>7}  {'share':>6}  {'x parse':>7}")
    order = [*dict.fromkeys(["read", *STAGES.values(), "suppressions", "settle", "gc.freeze", "report", "(rest)"])]
    rules = sorted((k for k in best if k.startswith("  ")), key=lambda k: -best[k])
    for key in [k for k in order if k in best] + ([""] if rules else []) + rules:
        if not key:
            print("  of which, rule modules (document rules; pod_references also its part of judge):")
            continue
        seconds = best[key]
        print(f"  {key:<24} {seconds:7.3f}  {seconds / total:6.1%}  {seconds / parse:7.2f}")


if __name__ == "__main__":
    main()
