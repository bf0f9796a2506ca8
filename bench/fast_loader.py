"""Would a C-extension YAML parser make the loader faster? rapidyaml against dralint's loader, in one process.

    pip install rapidyaml            # not a dependency of dralint: this script measures whether it should be
    python bench/fast_loader.py [--sets a,b] [--repeat 5] [--keep DIR]

On the real-world sets of bench/corpus_sets.py (skipped when ../shared is absent), alternated rounds in
one process (CPU time, median), each a ratio to the bare libyaml event parse of the same files
(bench.py's parse loop):

  * loader: `dralint.pipeline.load.load` as the command line calls it (the runtime seam on, the run-scope
    rules' `positioned` keys);
  * rapidyaml, no checks: parse, emit JSON, `json.loads`, a file at a time (data that is *not* what
    dralint reads: YAML 1.1 scalars, anchors, tags and repeated keys come out differently);
  * checks: a document at a time, what proving the data equal to the loader's
    takes (issue 23 item 4): no anchor, alias, tag, tab or long line in the text, no JSON string that a
    plain scalar could have been read otherwise from (``yes``, ``0755``, ``~`` ...), numbers through
    dralint's own resolution, as many entries as rapidyaml has nodes (repeated keys), a mapping; and
    none of the `positioned` keys, whose places the loader notes from its events and rapidyaml cannot give;
  * candidate: the checked path where the checks pass and the loader for every other document, i.e.
    what a per-document fallback loader costs; and the same if the `positioned` keys' places cost
    nothing (an upper bound for a reader that found them without the loader's events).

It also counts why documents go back to the loader, and how often rapidyaml accepts (and the checks let
through) a mutated corpus document that libyaml rejects (`--mutations`). The reader this measures was built and checked
byte-identical to the loader over every fixture and the corpus (branch ryml23, tests/test_fast_reader.py
there); docs/performance.md says why it was not kept.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_sets import build_set, corpus_root  # noqa: E402
from corpus_sets import documents as corpus_documents  # noqa: E402

from dralint import runtime  # noqa: E402
from dralint.pipeline.load import load  # noqa: E402
from dralint.pipeline.load.scalars import WORDS, resolve_number, resolve_plain  # noqa: E402
from dralint.registry import all_rules  # noqa: E402

_MARKER = re.compile(r"^---(?=[ \t\r\n]|$)", re.M)
_INDICATOR = re.compile(r"(?:^|[ \[{,:?-])[&*!](?![&=])", re.M)
_WORD_STRINGS = "|".join(re.escape(w) for w in WORDS if w and w[0] not in "+-.")
_MAYBE_NOT_TEXT = re.compile(r'"(?:([-+.0-9][^"\\]*)|' + _WORD_STRINGS + r'|<<)"|"":')


def _text(s: str) -> bool:
    try:
        return type(resolve_plain(s)) is str
    except ValueError:
        return False


def _int(s: str) -> Any:
    return int(s) if len(s) < 19 else resolve_number(s)


def _refuse(s: str) -> Any:
    raise ValueError(s)


def _entries(v: Any) -> int:
    n = 0
    todo = [v]
    while todo:
        v = todo.pop()
        n += len(v)
        for x in (v.values() if type(v) is dict else v):
            if type(x) is dict or type(x) is list:
                todo.append(x)
    return n


def checked(ryml: Any, doc: str, positioned: frozenset[str], why: collections.Counter | None = None) -> dict | None:
    """The document's data through rapidyaml when the checks prove it the loader's, else None (and why)."""
    def no(reason: str) -> None:
        if why is not None:
            why[reason] += 1

    if "\t" in doc or (("&" in doc or "*" in doc or "!" in doc) and _INDICATOR.search(doc)):
        return no("anchor, alias, tag or tab in the text")
    if any(k in doc for k in positioned):
        return no("a positioned key (its place is taken from the loader's events)")
    if len(doc) >= 1000 and max(map(len, doc.split("\n"))) >= 1000:
        return no("a line of 1,000 characters or more")
    try:
        tree = ryml.parse_in_arena(doc.encode())
        root = tree.root_id()
        size = tree.size() - 1
        if tree.is_stream(root):
            root = tree.first_child(root)
            size -= 1
        emitted = ryml.emit_json(tree, root)
    except Exception:  # noqa: BLE001 - rapidyaml's syntax and depth errors: the loader decides
        return no("rapidyaml refuses it")
    for m in _MAYBE_NOT_TEXT.finditer(emitted):
        if m.group(1) is None or not _text(m.group(1)):
            return no("a string a plain scalar could be read otherwise from (yes, 0755, ~, a quoted '1' ...)")
    try:
        data = json.loads(emitted, parse_int=_int, parse_float=resolve_number, parse_constant=_refuse)
    except ValueError:
        return no("its JSON is no JSON (+5, .5, control characters)")
    if type(data) is not dict or _entries(data) != size:
        return no("not a mapping, or a repeated key")
    return data


def documents(text: str) -> list[str]:
    starts = [m.start() for m in _MARKER.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return [text[s:e] for s, e in zip(starts, starts[1:] + [len(text)], strict=True)]


def syntax_census(ryml: Any, docs: list[str], count: int) -> tuple[int, int, str | None]:
    """Mutate corpus documents (a character dropped or inserted, a line's indentation changed) and count
    those the checks let through while the loader reports a syntax or key problem or reads other data:
    rapidyaml accepts YAML that libyaml rejects. (documents let through, disagreements, the first one)"""
    import random

    rnd = random.Random(23)
    through = wrong = 0
    first = None
    for _ in range(count):
        d = rnd.choice(docs)
        at = rnd.randrange(len(d))
        how = rnd.randrange(3)
        if how == 0:
            m = d[:at] + d[at + 1:]
        elif how == 1:
            m = d[:at] + rnd.choice([":", "-", "'", '"', " ", "\n", "[", "]", "{", "}", ",", "#", "?", "|", ">", "- "]) + d[at:]
        else:
            lines = d.split("\n")
            j = rnd.randrange(len(lines))
            lines[j] = (" " if rnd.random() < 0.5 else "") + lines[j][rnd.randrange(2):]
            m = "\n".join(lines)
        data = checked(ryml, m, frozenset())
        if data is None:
            continue
        through += 1
        result = load("m.yaml", m.encode())
        if [d.data for d in result.documents] != [data] or any(p.rule in ("DRA001", "DRA002", "DRA005", "DRA008") for p in result.problems):
            wrong += 1
            first = first or m
    return through, wrong, first


def runs(ryml: Any, blobs: list[tuple[str, bytes]], positioned: frozenset[str]) -> dict[str, Callable[[], None]]:
    """What is timed on one set, by name."""
    from _ruamel_yaml import CParser

    def bare() -> None:
        for _source, data in blobs:
            p = CParser(data.decode("utf-8"))
            while type(p.get_event()).__name__ != "StreamEndEvent":
                pass

    def loader() -> None:
        for source, data in blobs:
            load(source, data, positioned=positioned)

    def unchecked() -> None:
        for _source, data in blobs:
            json.loads(ryml.emit_json(ryml.parse_in_arena(data)))

    def candidate(keys: frozenset[str]) -> Callable[[], None]:
        def run() -> None:
            for source, data in blobs:
                for doc in documents(data.decode("utf-8")):
                    if checked(ryml, doc, keys) is None:
                        load(source, doc.encode(), positioned=positioned)
        return run

    return {"libyaml event parse (bare)": bare, "dralint loader": loader, "rapidyaml, no checks": unchecked,
            "candidate (checked, else the loader)": candidate(positioned), "same, positions found at no cost": candidate(frozenset())}


def measure(ryml: Any, name: str, blobs: list[tuple[str, bytes]], positioned: frozenset[str], repeat: int) -> None:
    timed = runs(ryml, blobs, positioned)
    times: dict[str, list[float]] = {k: [] for k in timed}
    for _ in range(repeat):
        for k, fn in timed.items():
            t = time.process_time()
            fn()
            times[k].append(time.process_time() - t)
    why: collections.Counter = collections.Counter()
    total = fast = free = 0
    for _source, data in blobs:
        for doc in documents(data.decode("utf-8")):
            total += 1
            fast += checked(ryml, doc, positioned, why) is not None
            free += checked(ryml, doc, frozenset()) is not None
    base = statistics.median(times["libyaml event parse (bare)"])
    print(f"set ({name}): {len(blobs)} files, rapidyaml {ryml.version}, median CPU of {repeat} alternated rounds")
    for k, t in times.items():
        print(f"  {k:40} {statistics.median(t):7.3f} s  {statistics.median(t) / base:5.2f}x the bare parse")
    print(f"  documents the checks let through: {fast:,} of {total:,} ({fast / total:.0%}), {free:,} ({free / total:.0%}) "
          "with positions found at no cost; the others, by first reason:")
    for reason, n in why.most_common():
        print(f"    {n:6,}  {reason}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="a,b", help="corpus_sets.py sets, comma-separated; none: only the census")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", metavar="DIR", help="build the sets here and reuse them")
    parser.add_argument("--mutations", type=int, default=60_000, help="mutated corpus documents for the syntax census")
    args = parser.parse_args()
    try:
        import ryml
    except ImportError:
        print("skipped: rapidyaml is not installed (pip install rapidyaml)")
        return 0
    root = corpus_root()
    if root is None:
        print("skipped: ../shared/corpus/real-world is absent")
        return 0
    positioned = frozenset().union(*(r.positioned for r in all_rules(plugins=False) if r.scope == "run" and r.collect is not None))
    runtime.enable()
    with tempfile.TemporaryDirectory() as tmp:
        for name in [n for n in args.sets.split(",") if n in ("a", "b", "c")]:
            folder = build_set(Path(args.keep or tmp), name)
            blobs = [(str(folder / n), (folder / n).read_bytes()) for n in sorted(os.listdir(folder)) if n.endswith(".yaml")]
            measure(ryml, name, blobs, positioned, args.repeat)
    through, wrong, first = syntax_census(ryml, [body for _header, body in corpus_documents(root)], args.mutations)
    print(f"syntax census: of {args.mutations:,} mutated corpus documents the checks let {through:,} through; for {wrong:,} "
          "of them the loader reports a syntax or key problem or reads other data" + (f"; the first:\n{first}" if first else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
