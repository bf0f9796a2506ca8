"""Position tables read a path at a time, and the one-frame event classes of the C parser.

A document's positions are computed by replaying its text (position_table.py); a
look-up of one path stops the replay once that path is in the table and goes on
from there for the next one. Every answer must be what the whole table says, in
any order of look-ups, across documents, and when a held replay is dropped.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Iterator

import pytest

from dralint import runtime
from dralint.model import Node, Span
from dralint.pipeline.load import c_parser_available, load
from dralint.pipeline.load import cheap_events as cheap_mod
from dralint.pipeline.load.backend import backend
from dralint.registry import all_rules

from conftest import SHARED

CASES = Path(__file__).parent / "cases" / "load"
FIXTURES = sorted(p.name for p in CASES.iterdir() if p.is_file())

# The fields the built-in run-scope rules declare (`positioned=`): the keys the main pass notes.
KEPT_KEYS = frozenset().union(*(r.positioned for r in all_rules()))
needs_c = pytest.mark.skipif(not c_parser_available(), reason="C parser not available")


def _full_tables(name: str) -> list[dict]:
    return [dict(d.positions.items()) for d in load(name, (CASES / name).read_bytes()).documents]


@needs_c
@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize("order", ["document", "reverse", "across documents"])
def test_a_path_at_a_time_gives_what_the_whole_table_gives(name, order):
    full = _full_tables(name)
    docs = load(name, (CASES / name).read_bytes()).documents
    asks = [(i, path) for i, table in enumerate(full) for path in table]
    if order == "reverse":
        asks.reverse()
    elif order == "across documents":  # every other look-up in another document: held replays are dropped
        asks.sort(key=lambda ask: (list(full[ask[0]]).index(ask[1]), ask[0]))
    for i, path in asks:
        assert docs[i].positions.get(path) == full[i][path], (i, path)
        assert path in docs[i].positions
        assert docs[i].positions[path] == full[i][path]
    assert [dict(d.positions.items()) for d in docs] == full


@needs_c
def test_a_missing_path_reads_the_whole_table():
    doc = load("claim.yaml", (CASES / "claim.yaml").read_bytes()).documents[0]
    full = _full_tables("claim.yaml")[0]
    assert doc.positions.get(("spec", "nope")) is None
    assert ("spec", "nope") not in doc.positions
    with pytest.raises(KeyError):
        doc.positions[("spec", "nope")]
    assert dict(doc.positions.items()) == full
    assert doc.locate(("spec", "devices", "nope")) == full[("spec", "devices")].key


@needs_c
def test_a_look_up_reads_the_document_only_up_to_the_path():
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  a: [1, 2]\n  b: {c: d}\n"
    first, second = load("pod.yaml", (text + "---\n" + text).encode()).documents
    assert first.positions.get(("kind",)) == Node(Span(2, 1, 2, 5), Span(2, 7, 2, 10))
    replay = first.positions._fill[0]
    assert ("spec", "b", "c") not in replay._pos  # stopped early: the rest is not read yet
    assert dict.__len__(first.positions) == 0  # and the table itself was not filled
    # a look-up in another document drops the stopped replay; asked again, it starts over
    assert second.positions.get(("spec", "a", 1)) == Node(None, Span(14, 10, 14, 11))
    assert replay._steps is None
    assert first.positions.get(("spec", "b", "c")) == Node(Span(7, 7, 7, 8), Span(7, 10, 7, 11))
    assert replay.result is not None  # asked again after it was dropped: read whole, not stopped again
    assert first.positions.get(()) == Node(None, Span(1, 1, 7, 12))


def _ruamel_events() -> types.SimpleNamespace:
    """ruamel's event module as the backend imported it (that import leaves no ruamel.yaml.events in sys.modules)."""
    return types.SimpleNamespace(**backend(False).Scalar.__bases__[0].__init__.__globals__)


def _events(cmod, text: str) -> list[tuple]:
    get = cmod.CParser(text).get_event
    out = []
    while True:
        ev = get()
        out.append(cheap_mod._fields(ev))
        if type(ev).__name__ == "StreamEndEvent":
            return out


@needs_c
def test_the_c_parser_builds_the_same_events_with_one_frame_classes():
    with runtime.enabled():  # the classes are installed only with the runtime seam on
        _same_events_with_one_frame_classes()


def _same_events_with_one_frame_classes():
    import _ruamel_yaml as cmod

    b = backend(False)
    events = _ruamel_events()
    assert b.Scalar is not events.ScalarEvent and issubclass(b.Scalar, events.ScalarEvent)
    assert cmod.ScalarEvent is b.Scalar and cmod.SequenceEndEvent is b.SeqEnd
    # anchors, aliases, merge keys, tags, every scalar style, flow and block collections, comments
    text = "\n---\n".join((CASES / n).read_text() for n in ("anchors.yaml", "scalars.yaml", "strings.yaml"))
    cheap = _events(cmod, text)
    installed = {name: getattr(cmod, name) for name in cheap_mod._SLOTS}
    try:
        for name in cheap_mod._SLOTS:
            setattr(cmod, name, getattr(events, name))
        own = _events(cmod, text)
    finally:
        for name, cls in installed.items():
            setattr(cmod, name, cls)
    assert cheap == own and len(cheap) > 100
    assert {"ScalarEvent", "MappingStartEvent", "SequenceStartEvent", "MappingEndEvent", "SequenceEndEvent",
            "AliasEvent"} <= {kind for kind, _fields in cheap}


def _fake(scalar_class=None, *, extra_argument: bool = False):
    """Stand-ins for ruamel's events and `_ruamel_yaml`, whose parser builds one scalar with the class it names."""
    events = types.SimpleNamespace(**vars(_ruamel_events()))
    if scalar_class is not None:
        events.ScalarEvent = scalar_class
    cmod = types.SimpleNamespace(**{name: getattr(events, name) for name in cheap_mod._SLOTS})

    class Parser:
        def __init__(self, text):
            self.todo = ["scalar", "end"]

        def get_event(self):
            if self.todo.pop(0) == "end":
                return events.StreamEndEvent()
            args = (None, None, (True, False), "v", None, None, "")
            # a newer parser could pass more than ruamel's classes take today
            return cmod.ScalarEvent(*args, None, "more") if extra_argument else cmod.ScalarEvent(*args)

    cmod.CParser = Parser
    return cmod, events


@needs_c
def test_event_classes_with_other_slots_are_left_alone():
    base = _ruamel_events().ScalarEvent
    cmod, events = _fake(type("ScalarEvent", (base,), {"__slots__": ("more",)}))
    before = dict(vars(cmod))
    assert cheap_mod.cheap_events(cmod, events) is None
    assert vars(cmod) == before


@needs_c
def test_a_parser_the_classes_do_not_fit_is_restored():
    base = _ruamel_events().ScalarEvent
    lenient = type("ScalarEvent", (base,), {"__slots__": (), "__init__": lambda self, *args: base.__init__(self, *args[:8])})
    cmod, events = _fake(lenient, extra_argument=True)
    assert cheap_mod.cheap_events(cmod, events) is None
    assert cmod.ScalarEvent is lenient
    assert not hasattr(cmod, "_dralint_cheap_events")
    cmod, events = _fake(lenient)  # the same classes and a parser that fits them: installed
    assert cheap_mod.cheap_events(cmod, events) is not None
    assert cmod.ScalarEvent is not lenient and issubclass(cmod.ScalarEvent, lenient)


def _kept_paths(data, path=()):
    """Every path of `data` that ends in one of the fields the main pass keeps positions for."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key in KEPT_KEYS:
                yield (*path, key)
            yield from _kept_paths(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _kept_paths(value, (*path, i))


def _manifests(corpus: bool = True) -> list[Path]:
    roots = [Path(__file__).parent / "cases"] + ([SHARED / "corpus" / "real-world"] if corpus else [])
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*") if p.suffix in (".yaml", ".yml"))


def _shapes(data: bytes) -> set | None:
    """What the events of `data` are made of, as the C parser reads it: each pair of consecutive events
    as (class, style, flow style, anchor, tag, explicit, over several lines), and each pair a field the
    main pass keeps begins; the line breaks, a BOM, a tab, text past ASCII. None where that parser cannot tell (no C parser, bytes that are not UTF-8, a
    syntax error): such a file is its own shape."""
    if not c_parser_available():
        return None
    try:
        text = data.decode("utf-8")
        get = backend(False).make_parser(text).get_event
        events, kept = [], []
        while True:
            ev = get()
            if getattr(ev, "value", None) in KEPT_KEYS:
                kept.append(len(events))
            events.append((type(ev).__name__, getattr(ev, "style", None), getattr(ev, "flow_style", None),
                           getattr(ev, "anchor", None) is not None, getattr(ev, "ctag", None) is not None,
                           getattr(ev, "explicit", None), ev.start_mark.line != ev.end_mark.line))
            if events[-1][0] == "StreamEndEvent":
                break
    except Exception:  # noqa: BLE001 - not UTF-8, or not YAML the parser reads through
        return None
    shapes: set = set(zip(events, events[1:], strict=False))
    shapes |= {("kept", events[i], events[i + 1]) for i in kept}  # a field the main pass may answer, and its value
    shapes |= {("break", b) for b in ("\r\n", "\r", "\x85", "\u2028", "\u2029") if b in text}
    shapes |= {("bom", text.startswith("\ufeff")), ("tab", "\t" in text), ("past ascii", not text.isascii())}
    return shapes


def _new_shapes(files: list[Path]) -> Iterator[Path]:
    """The files that hold a shape (see _shapes) no file before them holds."""
    seen: set = set()
    for file in files:
        shapes = _shapes(file.read_bytes())
        if shapes is None or not shapes <= seen:
            seen |= shapes or set()
            yield file


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_positions_the_main_pass_keeps_are_the_replays(pure):
    if not pure and not c_parser_available():
        pytest.skip("C parser not available")
    answered = 0
    # The pure-Python parser gives the same events, ten times slower: the fixtures up to 16 KB that
    # hold a shape of events no fixture before them does take every path of the replay (anchors, merges,
    # flow and block styles, odd line breaks), with the marks of the pure-Python parser; the others, the
    # real-world corpus, and the fixtures that are long lists at a limit, are read with the C parser.
    files = _manifests(corpus=not pure)
    if pure:
        files = list(_new_shapes([f for f in files if f.stat().st_size <= 16 * 1024]))
    for file in files:
        data = file.read_bytes()
        kept_docs = load(file.name, data, pure_python=pure, positioned=KEPT_KEYS).documents
        # The whole tables to compare with: the C parser's where there is one, at a tenth of the cost;
        # the pure-Python parser's own replay is compared with it whole below.
        replayed = load(file.name, data, pure_python=pure and not c_parser_available()).documents
        for doc, twin in zip(kept_docs, replayed, strict=True):
            lookup = doc.positions._fill[2] if doc.positions._fill is not None else None
            replay = getattr(lookup, "__self__", None)  # None for the items of a `kind: List`
            table = dict(twin.positions.items())
            for path in _kept_paths(doc.data):
                kept = replay._kept(path) if replay is not None and replay.known is not None else None
                if kept is not None:
                    answered += 1
                    assert kept == table.get(path), (str(file), doc.index, path)
                assert doc.positions.get(path) == table.get(path), (str(file), doc.index, path)
            if pure:
                assert dict(doc.positions.items()) == table, (str(file), doc.index)
    # The main pass did answer: tests/cases alone hold a few hundred such fields, the files of new shapes some.
    assert answered > (40 if pure else 100)


def test_a_mapping_dropped_with_its_key_lends_no_position_to_another():
    # A null key and a mapping as a key are dropped with their values; the mappings built for those values
    # must not answer for mappings made after them (their ids could be reused).
    text = "\n".join([
        "apiVersion: resource.k8s.io/v1",
        "kind: ResourceClaim",
        "metadata: {name: c}",
        "~: {deviceClassName: dropped-a}",
        "? {k: v}",
        ": {deviceClassName: dropped-b}",
        "spec:",
        "  devices:",
        "    requests:",
        *[f"    - {{name: r{i}, exactly: {{deviceClassName: {{not: a-string}}}}}}" for i in range(20)],
        "    - name: last",
        "      exactly: {deviceClassName: gpu.example.com}",
        "",
    ]).encode()
    docs = load("claim.yaml", text).documents
    full = [dict(d.positions.items()) for d in load("claim.yaml", text).documents]
    for doc, table in zip(docs, full, strict=True):
        for path in _kept_paths(doc.data):
            assert doc.positions.get(path) == table[path], path


def test_a_block_scalars_line_start_is_the_one_a_walk_back_finds():
    """`_line_start` searches back in growing windows: the same offset as stepping back a character at
    a time, for every kind of line break, at window edges and with none at all."""
    import random

    from dralint.pipeline.load.position_table import _line_start

    def walk_back(text: str, end: int) -> int:
        while end > 0 and text[end - 1] not in "\r\n\x85\u2028\u2029":
            end -= 1
        return end

    rng = random.Random(20261127)
    for _ in range(400):
        length = rng.choice([0, 1, 255, 256, 257, 767, 768, 769, 5000])
        breaks = rng.random() < 0.5
        text = "".join(rng.choice("ab \t\r\n\x85\u2028\u2029" if breaks else "ab \t") for _ in range(length))
        for end in {0, length, rng.randint(0, length)}:
            assert _line_start(text, end) == walk_back(text, end), (text, end)
