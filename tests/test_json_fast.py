"""JSON by json's C decoder (dralint.pipeline.load.json_fast): the same documents, problems and positions as the
position-keeping parser, which still reads every document the decoder cannot vouch for.

"The parser alone" is the loader with `Documents.decode` answering None for every document: each is
then read by json_reader._Parser, the position-keeping reader that says what is wrong and where.
"""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path

import pytest

from dralint.lint import LintOptions, Source, lint
from dralint.model import Node, Span
from dralint.pipeline.load import MAX_DEPTH, MAX_NODES, json_fast, load
from dralint.pipeline.load.json_fast import Seek

TESTS = Path(__file__).parent
FIXTURES = sorted(p for p in TESTS.rglob("*.json") if "__pycache__" not in p.parts)


@contextlib.contextmanager
def parser_alone():
    original = json_fast.Documents.decode
    json_fast.Documents.decode = lambda self, i: None
    try:
        yield
    finally:
        json_fast.Documents.decode = original


def decoded(doc) -> bool:
    """Whether the C decoder read this document (its positions are sought, not replayed)."""
    fill = doc.positions._fill
    assert fill is not None, "positions were computed before they were asked for"
    return isinstance(fill[0], Seek)


def typed(value):
    """`value` with every scalar's type, so that 1, 1.0 and True differ."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, value)


def problems(result) -> list[tuple]:
    return [(p.rule, p.message, p.document, tuple(p.span), p.path, p.source) for p in result.problems]


def absent_paths(table: dict) -> list[tuple]:
    """Paths next to those of `table` that the document does not have."""
    out = [("no such key",), (-1,), (10**6,)]
    for path in list(table)[:500]:
        for extra in (("no such key",), (0,), (10**6,), (-1,)):
            if path + extra not in table:
                out.append(path + extra)
    return out


def assert_same(name: str, data: bytes, *, absent: bool = True, **kw) -> list[bool]:
    """The loader and the parser alone agree on `data` (lookups first, then whole tables); which
    documents the C decoder read."""
    fast = load(name, data, **kw)
    with parser_alone():
        slow = load(name, data, **kw)
    assert problems(fast) == problems(slow)
    assert len(fast.documents) == len(slow.documents)
    used = []
    for f, s in zip(fast.documents, slow.documents, strict=True):
        assert (f.index, f.list_item) == (s.index, s.list_item)
        assert typed(f.data) == typed(s.data)
        used.append(decoded(f))
        positions, styles = dict(s.positions.items()), dict(s.scalar_styles.items())
        for path, node in positions.items():  # in the parser's order: a container after what it holds
            assert f.positions.get(path) == node, path
            assert path in f.positions and f.positions[path] == node
            assert f.scalar_styles.get(path, "none") == styles.get(path, "none"), path
            assert (path in f.scalar_styles) == (path in styles)
        for path in reversed(list(positions)):  # and before it
            assert f.positions.get(path) == positions[path], path
        for path in absent_paths(positions) if absent else ():
            assert f.positions.get(path, "none") == "none" and path not in f.positions, path
            with pytest.raises(KeyError):
                f.positions[path]
            assert f.scalar_styles.get(path, "none") == "none", path
        if used[-1]:
            assert f.positions._fill is not None, "a lookup fell back to the whole table"
        assert dict(f.positions.items()) == positions and dict(f.scalar_styles.items()) == styles
    assert problems_late(fast) == problems_late(slow) == []
    return used


def problems_late(result) -> list[tuple]:
    return [(p.rule, p.message, tuple(p.span)) for p in result.late_problems]


# --------------------------------------------------------------------------- every JSON fixture


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(TESTS)))
def test_every_json_fixture_reads_as_the_parser_reads_it(path):
    assert_same(path.name, path.read_bytes())


def test_the_fixtures_cover_both_readers():
    assert assert_same("claim.json", (TESTS / "cases" / "webhook" / "claim.json").read_bytes()) == [True]
    assert assert_same("tabs.json", (TESTS / "cases" / "load" / "tabs.json").read_bytes()) == [False]  # a repeated key


# --------------------------------------------------------------------------- generated documents


_STRINGS = ["", "a", "name", "with space", 'quote " inside', "back\\slash", "tab\tand\nnewline", "é ü 漢字",
            "emoji 😀", "\x7f del", "slash /", "#hash", "a: colon", "{not an object}", "[x]", "0123"]


def _string(rng: random.Random) -> str:
    s = rng.choice(_STRINGS)
    text = json.dumps(s, ensure_ascii=rng.random() < 0.3)
    if rng.random() < 0.1:
        text = text.replace("/", "\\/")
    return text


def _number(rng: random.Random) -> str:
    return rng.choice(["0", "-0", "7", "-12", "9223372036854775807", "18446744073709551615", "12345678901234567890",
                       "-12345678901234567890", "1.5", "-0.0", "2.0", "1e3", "1E+2", "2.5e-3", "1e20", "1e21",
                       "123456789012345678901", "1e400", "-1e400", "0.1"])


def _value(rng: random.Random, depth: int, odd: bool) -> str:
    ws = rng.choice(["", " ", "\n  ", "\t", "\r\n", " \n\t "])
    roll = rng.random()
    if depth < 5 and roll < 0.3:
        keys = [rng.choice(["a", "b", "kind", "x y", "é", "ключ", "k\\u0041"]) + str(rng.randrange(3 if odd else 99))
                for _ in range(rng.randrange(5))]
        return "{" + ws + ("," + ws).join(f'"{k}"{ws}:{ws}{_value(rng, depth + 1, odd)}' for k in keys) + ws + "}"
    if depth < 5 and roll < 0.45:
        return "[" + ws + ("," + ws).join(_value(rng, depth + 1, odd) for _ in range(rng.randrange(5))) + ws + "]"
    if roll < 0.7:
        return _string(rng)
    if roll < 0.9:
        return _number(rng)
    if odd and roll < 0.93:
        return rng.choice(["NaN", "Infinity", "-Infinity", '"\\ud800 lone"', '"\\udc00"', '"pair \\ud83d\\ude00"'])
    return rng.choice(["true", "false", "null"])


def _stream(rng: random.Random, odd: bool) -> str:
    docs = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        body = _value(rng, 1, odd)
        if not body.startswith("{"):
            body = '{"apiVersion": "v1", "kind": "ConfigMap", "data": ' + body + "}"
        if rng.random() < 0.2:  # a List: each item is a document
            body = '{"apiVersion": "v1", "kind": "List", "items": [' + body + ", " + _value(rng, 3, odd) + "]}"
        docs.append(body)
    text = rng.choice(["\n", "\r\n", " ", "\n\n"]).join(docs) + rng.choice(["", "\n"])
    if odd and rng.random() < 0.1:
        text += rng.choice(["}", "x", '{"a": 1,}', "[1 2]", '{"a"'])
    return text


@pytest.mark.parametrize("odd", [False, True], ids=["plain", "with-problems"])
def test_generated_documents_read_as_the_parser_reads_them(odd):
    rng = random.Random(23 + odd)
    used = []
    for n in range(150):
        text = _stream(rng, odd)
        used += assert_same(f"gen-{n}.json", text.encode(), lists=n % 2 == 0)
    assert used.count(True) > 50 and (used.count(False) > 20 if odd else True)


_MUTATIONS = [*'{}[],:"\\ \t\r\n0123456789.eE+-tfnulasrNIy', "\\u", "\\ud800", "é", "\x00", "\x1f"]


def test_mutated_documents_read_as_the_parser_reads_them():
    # Broken JSON: where json's decoder and the parser disagree on what is JSON, the parser must be the one that reads.
    rng = random.Random(2323)
    texts = [(TESTS / "cases" / "webhook" / "claim.json").read_text()] + [_stream(rng, n % 2 == 1) for n in range(20)]
    for n in range(200):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(_MUTATIONS) + text[i + rng.randrange(2):]
        assert_same("m.json" if n % 3 else "m.yaml", text.encode(), lists=n % 2 == 0, absent=n % 5 == 0)


def test_real_world_documents_as_json_read_as_the_parser_reads_them(shared_dir):
    root = shared_dir / "corpus" / "real-world"
    index = json.loads((root / "index.json").read_text())
    docs = [d.data for row in index if not row.get("templated")
            for d in load(row["file"], (root / row["file"]).read_bytes()).documents]
    assert len(docs) > 300  # a third of them, each path asked (and absent ones for a fifth of those)
    used = []
    for n, data in enumerate(docs[::3]):
        text = json.dumps(data, indent=(2, None, "\t")[n % 3])
        used += assert_same(f"doc-{n}.json", text.encode(), absent=n % 5 == 0)
    assert all(used)


# --------------------------------------------------------------------------- what only the parser reads


def _kinds(result) -> list[bool]:
    return [decoded(d) for d in result.documents]


def where(result) -> list[tuple]:
    return [(p.rule, p.document, p.span.line, p.span.column, p.span.end_line, p.span.end_column) for p in result.problems]


@pytest.mark.parametrize("text, found, values", [
    ('{"a": 1,\n "a": 2}', [("DRA002", 0, 2, 2, 2, 5)], [{"a": 2}]),
    ('{"a": NaN}', [("DRA001", 0, 1, 7, 1, 8)], []),
    ('{"a": -Infinity}', [("DRA001", 0, 1, 7, 1, 8)], []),
    ('{"a": 1e999}', [("DRA001", 0, 1, 7, 1, 12)], [{"a": "1e999"}]),
    ('{"a": 123456789012345678901}', [], [{"a": 123456789012345683968}]),
    ('{"a": "\\ud800"}', [], [{"a": "\ufffd"}]),
    ('{"a": "\\ud83d\\ude00"}', [], [{"a": "😀"}]),
    ('{"a": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}", [("DRA005", 0, 1, 106, 1, 107)], []),
    ('{"a": ' + "[" * 5000 + "]" * 5000 + "}", [("DRA005", 0, 1, 106, 1, 107)], []),
    ('{"a": [' + ",".join(["0"] * MAX_NODES) + "]}", [("DRA005", 0, 1, 200004, 1, 200005)], []),
    ('{"a": 1,}', [("DRA001", 0, 1, 9, 1, 10)], []),
])
def test_what_only_the_parser_reads_is_read_by_it(text, found, values):
    result = load("x.json", text.encode())
    assert where(result) == found
    assert [d.data for d in result.documents] == values
    assert _kinds(result) == [False] * len(values)
    if len(text) < 1000:
        assert_same("x.json", text.encode())


def test_a_stream_falls_back_one_document_at_a_time():
    text = ('{"kind": "A", "n": 1}\n{"kind": "B", "n": 1, "n": 2}\n{"kind": "C", "s": "\\ud800"}\n'
            '{"kind": "D", "big": 1e400}\n{"kind": "E", "deep": [[1]]}\n{"kind": "F",}\n{"kind": "G"}\n')
    result = load("s.json", text.encode())
    assert [d.data["kind"] for d in result.documents] == ["A", "B", "C", "D", "E"]
    assert _kinds(result) == [True, False, False, False, True]
    assert where(result) == [("DRA002", 1, 2, 23, 2, 26), ("DRA001", 3, 4, 22, 4, 27), ("DRA001", 5, 6, 14, 6, 15)]
    assert result.documents[4].positions[("deep", 0, 0)] == Node(None, Span(5, 25, 5, 26))
    assert result.documents[1].positions[("n",)] == Node(Span(2, 23, 2, 26), Span(2, 28, 2, 29))
    assert_same("s.json", text.encode())


def _wide(kind: str) -> str:
    return f'{{"kind": "{kind}", "v": [' + ",".join(["1"] * (MAX_NODES // 2 + 10)) + "]}\n"


def test_a_text_that_may_hold_too_many_values_is_decoded_a_window_at_a_time():
    # Decoded whole, a hostile 16 MB of `[{},{},...` would build millions of objects; the parser stops at MAX_NODES.
    text = "[" + "{}," * 150_000 + "{}]"
    documents = json_fast.Documents(text)
    seen: list[int] = []
    scan = documents.scan
    documents.scan = lambda s, i: (seen.append(len(s) - i), scan(s, i))[1]
    assert documents.decode(0) is None
    assert seen and max(seen) <= 4 * MAX_NODES  # then the parser reads it: DRA005, as in test_what_only_the_parser_reads_is_read_by_it


def test_documents_of_a_large_stream_are_decoded_in_windows():
    text = _wide("A") + _wide("B") + '{"kind": "S", "v": [1, 2]}\n'
    result = load("big.json", text.encode())
    assert result.problems == [] and _kinds(result) == [True, True, True]
    assert result.documents[1].positions[("v", 3)] == Node(None, Span(2, 27, 2, 28))
    assert result.documents[2].positions[("v", 1)] == Node(None, Span(3, 24, 3, 25))
    assert [typed(d.data) for d in result.documents] == [typed(json.loads(line)) for line in text.splitlines()]


def test_a_document_longer_than_the_window_is_read_by_the_parser():
    long = '{"kind": "L", "s": "' + "x" * (4 * MAX_NODES) + '", "v": [' + ",".join(["1"] * (MAX_NODES // 2 + 10)) + "]}\n"
    result = load("long.json", (long + _wide("B")).encode())
    assert result.problems == [] and _kinds(result) == [False, True]
    assert result.documents[0].data["s"] == "x" * (4 * MAX_NODES)


def test_a_number_at_the_edge_of_a_window_is_read_whole():
    text = "1." + "0" * 5000 + "e5\n" + _wide("A") + _wide("B")
    result = load("n.json", text.encode())
    assert where(result) == [("DRA003", 0, 1, 1, 1, 5005)]
    assert "scalar (number 100000)" in result.problems[0].message
    assert _kinds(result) == [True, True]


def test_a_json_list_keeps_its_item_positions():
    text = '{"apiVersion": "v1", "kind": "List", "items": [\n {"kind": "A", "a": 1},\n 2,\n {"kind": "B", "b": "x"}]}\n'
    result = load("l.json", text.encode())
    assert [(d.list_item, d.data["kind"]) for d in result.documents] == [(0, "A"), (2, "B")]
    assert where(result) == [("DRA003", 0, 3, 2, 3, 3)]
    assert result.documents[1].positions[("b",)] == Node(Span(4, 16, 4, 19), Span(4, 21, 4, 24))
    assert result.documents[1].scalar_styles[("b",)] == '"'
    assert _kinds(result) == [True, True]  # sought in each item's text
    assert assert_same("l.json", text.encode()) == [True, True]
    with_dup = text.replace('"a": 1', '"a": 1, "a": 2')
    assert assert_same("l.json", with_dup.encode()) == [False, False]


def test_positions_of_a_decoded_document_are_sought_not_replayed():
    text = '{\n  "kind": "X",\n  "spec": {"a": [10, {"b": "y"}], "c": true}\n}\n'
    (doc,) = load("p.json", text.encode()).documents
    assert decoded(doc)
    assert doc.positions[("spec", "a", 1, "b")] == Node(Span(3, 23, 3, 26), Span(3, 28, 3, 31))
    assert doc.positions.get(("spec", "c")) == Node(Span(3, 35, 3, 38), Span(3, 40, 3, 44))
    assert doc.positions.get(("spec", "a", 0, "x")) is None and ("spec", "d") not in doc.positions
    assert doc.scalar_styles.get(("spec", "a", 1, "b")) == '"' and ("spec", "c") not in doc.scalar_styles
    assert doc.positions._fill is not None and doc.scalar_styles._fill is not None  # no whole table was built


def test_lint_reports_the_same_problems_either_way():
    # Rule problems are positioned through the lookups: every field of each must match the parser's.
    text = json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                       "metadata": {"name": "Bad_Name", "namespace": "ns"},
                       "spec": {"devices": {"requests": [
                           {"name": "gpu", "exactly": {"deviceClassName": "missing", "count": 0,
                                                       "allocationMode": "All", "unknown": 1,
                                                       "selectors": [{"cel": {"expression": "device.x =="}}]}},
                           {"name": "gpu"}]}}}, indent=2)
    sources = [Source("claim.json", text.encode()), Source("stream.json", (text + "\n" + text).encode())]
    fast = lint(sources, LintOptions(plugins=False))
    with parser_alone():
        slow = lint(sources, LintOptions(plugins=False))
    assert len(fast.problems) > 10
    assert problems(fast) == problems(slow)


def test_deep_nesting_within_the_limit_is_decoded():
    text = '{"a": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"
    result = load("d.json", text.encode())
    assert result.problems == [] and _kinds(result) == [True]
    assert_same("d.json", text.encode())


def test_a_long_run_of_digits_is_found_across_the_chunks_it_is_searched_in():
    edge = "x" * ((1 << 20) - 10)
    assert json_fast._long_digit_run(edge + "1" * 21 + "x")
    assert not json_fast._long_digit_run(edge + "1" * 20 + "x" + "2" * 20)
    assert json_fast._long_digit_run('{"é": "' + "9" * 21 + '"}')


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_json_with_a_byte_order_mark_is_decoded(encoding):
    text = '{\n\t"kind": "X",\n\t"data": {"é": "\\u00e9", "n": [1, 2.5]}\n}\n'
    data = text.encode(encoding)
    result = load("bom.json", data)
    assert result.problems == [] and _kinds(result) == [True]
    assert result.documents[0].positions[("data", "n", 1)] == Node(None, Span(3, 35, 3, 38))
    assert assert_same("bom.json", data) == [True]
