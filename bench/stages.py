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

With --floor, the run has the runtime seam on as the command line has it
(dralint.runtime: one-frame event classes, the collector paused per load), so
its load stage is the loader the CLI runs; and, in the same rounds, three more
loops over the same bytes are timed against the parse (which keeps ruamel's own
event classes, as bench.py's fresh interpreter has them):

  cheap parse   the same event loop with the one-frame event classes
  floor loader  the cheapest loader any design on this C parser could have: the
                one-frame events and a loop that builds only dict, list and str
                (no positions, no checks, no scalar resolution, no limits)
  loader        dralint's load() of each file, as the CLI calls it
  C floor       the floor of a loader of dralint's own in C (bench/c_floor/floor.c,
                built into a temporary folder; skipped, with the reason, without a C
                compiler, the Python headers or libyaml's): libyaml called from C,
                dict/list/str, the core schema's null/bool/int, repeated keys and
                anchors told, no positions
  C sketch      a step further (floor.c's `sketch`): dralint's own scalar resolution,
                the limits, the `positioned` keys' places, and every document it flags
                (anchors, tags, odd or repeated keys, limits; a syntax error: the file)
                read again by dralint's loader, as a loader in C with today's as its
                fallback would

and what the run's share of the parse would be if its load stage cost only the
floor loader, the C floor or sketch, or nothing (everything else as measured).

Compare two checkouts by running it with each on PYTHONPATH, alternately.
"""

from __future__ import annotations

import argparse
import collections
import gc
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_sets import build_set  # noqa: E402
from scale import commands, run, write_one_per_file  # noqa: E402

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


def _swap_events(classes: dict[str, Any] | None) -> dict[str, Any]:
    """Name `classes` (event class name -> class) in the C parser's module; what it named before."""
    import _ruamel_yaml as cmod

    names = ("ScalarEvent", "MappingStartEvent", "MappingEndEvent", "SequenceStartEvent", "SequenceEndEvent")
    before = {n: getattr(cmod, n) for n in names}
    for name, cls in (classes or {}).items():
        setattr(cmod, name, cls)
    return before


def floor_load(datas: list[bytes]) -> float:
    """CPU seconds of the floor loader over `datas`: events to dict/list/str, nothing else (see --floor)."""
    from _ruamel_yaml import CParser

    from dralint.pipeline.load.backend import backend

    b = backend(False)  # the classes the C module names now (the one-frame ones, with the seam on)
    Scalar, MapStart, MapEnd, SeqStart, SeqEnd, DocEnd, StreamEnd = (
        b.Scalar, b.MapStart, b.MapEnd, b.SeqStart, b.SeqEnd, b.DocEnd, b.StreamEnd)
    nokey = object()
    kept: list = []
    start = time.process_time()
    for data in datas:
        get = CParser(data.decode("utf-8")).get_event
        docs = []
        stack: list = []
        cur: Any = None
        root: Any = None
        cur_map = False
        key: Any = nokey
        while True:
            ev = get()
            cls = ev.__class__
            if cls is Scalar:
                v = ev.value
            elif cls is MapStart or cls is SeqStart:
                stack.append((cur, cur_map, key))
                cur_map = cls is MapStart
                cur = {} if cur_map else []
                key = nokey
                continue
            elif cls is MapEnd or cls is SeqEnd:
                v = cur
                cur, cur_map, key = stack.pop()
            elif cls is DocEnd:
                docs.append(root)
                continue
            elif cls is StreamEnd:
                break
            else:  # stream and document starts; an alias (none in the sets) reads as None
                if cls is not b.Alias:
                    continue
                v = None
            if cur_map:
                if key is nokey:
                    key = v
                else:
                    cur[key] = v
                    key = nokey
            elif cur is not None:
                cur.append(v)
            else:
                root = v
        kept.append(docs)  # kept alive, as a run keeps a file's documents while it checks them
    return time.process_time() - start


def c_floor_load(datas: list[bytes], load: Callable[[bytes], Any]) -> float:
    """CPU seconds of the compiled floor (bench/c_floor/floor.c) over `datas`, each file's documents kept."""
    kept = []
    start = time.process_time()
    for data in datas:
        kept.append(load(data))
    return time.process_time() - start


def c_sketch_load(paths: list[str], datas: list[bytes], module: Any) -> tuple[float, int]:
    """CPU seconds of floor.c's `sketch` over `datas`, each flagged document read again by dralint's loader; how
    many files had one."""
    from dralint.pipeline.load import load
    from dralint.pipeline.load.scalars import WORDS, resolve_number

    positioned = frozenset(lint_module._Run(LintOptions(plugins=False)).positioned)
    sketch = module.sketch
    kept = []
    flagged = 0
    start = time.process_time()
    for path, data in zip(paths, datas, strict=True):
        found = sketch(data, WORDS, resolve_number, positioned)
        if found[1] & 4:  # a syntax error: the file again (a loader would resume at the document it is in)
            flagged += 1
            found = load(path, data, size=len(data), positioned=positioned)
        elif found[4]:  # each flagged document again, alone
            flagged += 1
            text = data.decode("utf-8")
            found = [found, *(load(path, text[a:b].encode("utf-8"), size=b - a, positioned=positioned) for a, b in found[4])]
        kept.append(found)
    return time.process_time() - start, flagged


def compiled_floor(scratch: Path) -> Any:
    """bench/c_floor/floor.c built into `scratch`, imported; None (and why, printed) when it cannot be built."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "c_floor"))
    from build_floor import build  # noqa: PLC0415 - bench/c_floor/build_floor.py

    folder, why = build(scratch)
    if folder is None:
        print(f"C floor skipped: {why}")
        return None
    sys.path.insert(0, str(folder))
    import _dralint_c_floor  # noqa: PLC0415 - built just now

    return _dralint_c_floor


def dralint_load(paths: list[str], datas: list[bytes]) -> float:
    """CPU seconds of dralint's load() of each file, as the CLI calls it (with the run's `positioned` keys)."""
    from dralint.pipeline.load import load

    positioned = lint_module._Run(LintOptions(plugins=False)).positioned
    kept = []
    start = time.process_time()
    for path, data in zip(paths, datas, strict=True):
        kept.append(load(path, data, size=len(data), positioned=positioned))
    return time.process_time() - start


def floor_rounds(folder: Path, paths: list[str], datas: list[bytes], ruamel: dict[str, Any],
                 best: dict[str, float], c_floor: Any) -> None:
    """One round of --floor's loops, the collector off (as the CLI has it while a file loads), and of the
    two commands scale.py compares; each one's fastest so far in `best`."""
    cheap = _swap_events(ruamel)  # the parse with ruamel's classes, as the goal's baseline has them
    loops = [("parse", lambda: parse_only(datas)), ("cheap parse", lambda: parse_only(datas)),
             ("floor loader", lambda: floor_load(datas)), ("loader", lambda: dralint_load(paths, datas))]
    if c_floor is not None:
        loops.append(("C floor", lambda: c_floor_load(datas, c_floor.load)))

        def sketch() -> float:
            seconds, best["C sketch: files flagged"] = c_sketch_load(paths, datas, c_floor)
            return seconds

        loops.append(("C sketch", sketch))
    for name, func in loops:
        gc.collect()
        gc.disable()
        try:
            best[name] = min(best.get(name, float("inf")), func())
        finally:
            gc.enable()
            if name == "parse":
                _swap_events(cheap)
    dralint = shutil.which("dralint", path=str(Path(sys.executable).parent))
    assert dralint is not None, "dralint is not installed beside this interpreter"
    with tempfile.TemporaryDirectory() as scratch:
        for name, cmd in commands([dralint], 1, [], folder).items():
            r = run(cmd, Path(scratch))
            assert r.rc in (0, 1), r.stderr
            best[name] = min(best.get(name, float("inf")), r.cpu)


def print_floor(floor: dict[str, float], run: dict[str, float], total: float) -> None:
    parse = floor["parse"]
    print(f"floor (best of the rounds; x parse = of the parse with ruamel's own event classes, {parse:.3f} s):")
    for name in ("cheap parse", "floor loader", "loader", "C floor", "C sketch"):
        if name in floor:
            print(f"  {name:<24} {floor[name]:7.3f}  {floor[name] / parse:7.2f}")
    if "C sketch" in floor:
        print(f"  (the C sketch flagged documents of {floor['C sketch: files flagged']:.0f} files, read again by dralint's loader)")
    load = run.get("load", 0.0)
    rest = total - load
    print(f"  run now: {parse / total:.1%} of the parse; its load stage {load / parse:.2f}x, the rest {rest / parse:.2f}x")
    print(f"  the load stage at the floor loader's cost: {parse / (rest + floor['floor loader']):.1%} of the parse "
          f"(the run {1 - (rest + floor['floor loader']) / total:.1%} shorter)")
    print(f"  a free load stage: {parse / rest:.1%} of the parse (the run {load / total:.1%} shorter)")
    # The goal's terms: the CPU of scale.py's two processes (the parse in a fresh interpreter reads the files
    # too). Like for like, the command saves what the loader costs over the floor loader, both timed alone;
    # at most, the run's whole load stage (timed within the run, a little dearer) would go or be the floor's.
    p, cli, saved = floor["libyaml parse only"], floor["dralint --jobs 1"], floor["loader"] - floor["floor loader"]
    print(f"commands (CPU, best of the rounds): parse-only {p:.3f} s, dralint --jobs 1 {cli:.3f} s: {p / cli:.1%}\n"
          f"  with the floor loader: {p / (cli - saved):.1%} (at most {p / (cli - load + floor['floor loader']):.1%}); "
          f"with a free loader: {p / (cli - floor['loader']):.1%} (at most {p / (cli - load):.1%})")
    for name in ("C floor", "C sketch"):
        if name in floor:
            print(f"  with the {name} in the loader's place: {p / (cli - floor['loader'] + floor[name]):.1%} "
                  f"(at most {p / (cli - load + floor[name]):.1%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=10000)
    parser.add_argument("--per-file", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", action="store_true", help="also time each rule module")
    parser.add_argument("--real-world", choices=["a", "b", "c"], metavar="SET",
                        help="the shared corpus's set a, b or c (bench/corpus_sets.py) instead of bench.py's documents")
    parser.add_argument("--keep", metavar="DIR", help="with --real-world: build the set here and reuse it")
    parser.add_argument("--floor", action="store_true", help="the seam on; the floor loader's and a free loader's ratios")
    args = parser.parse_args()
    if args.floor:
        from dralint import runtime
        from dralint.pipeline.load.backend import backend

        ruamel = _swap_events(None)
        runtime.enable()
        backend(False)  # installs the one-frame event classes

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
        floor: dict[str, float] = {}
        c_floor = compiled_floor(Path(tmp) / "c_floor") if args.floor else None
        for attempt in range(args.repeat + 1):  # the first: warm-up (schemas, CEL verdicts, caches)
            if args.floor:
                floor_rounds(folder, paths, datas, ruamel, floor, c_floor)
            else:
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
    parse = floor.get("parse", parse)
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
    if args.floor:
        print_floor(floor, best, total)


if __name__ == "__main__":
    main()
