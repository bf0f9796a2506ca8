"""Tests of dralint.pipeline.load (YAML/JSON -> Documents with positions) and dralint.positions."""

from __future__ import annotations

import copy
import math
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dralint.model import Node, Severity, Span
from dralint.pipeline import load as load_mod
from dralint.pipeline.load import MAX_BYTES, load
from dralint.positions import string_span

CASES = Path(__file__).parent / "cases" / "load"
SRC = Path(__file__).resolve().parents[1] / "src"


def run(name: str, *, pure: bool | None = None):
    return load(name, (CASES / name).read_bytes(), pure_python=pure)


def codes(result) -> list[tuple[str, int, int, int]]:
    return [(p.rule, p.document, p.span.line, p.span.column) for p in result.problems]


def text_at(text: str, span: Span) -> str:
    lines = text.splitlines(keepends=True)
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1:span.end_column - 1]
    out = lines[span.line - 1][span.column - 1:]
    for ln in range(span.line + 1, span.end_line):
        out += lines[ln - 1]
    return out + lines[span.end_line - 1][:span.end_column - 1]


# --------------------------------------------------------------------------- positions


def test_claim_positions_exact():
    r = run("claim.yaml")
    assert r.problems == [] and r.empty == 0
    (doc,) = r.documents
    assert doc.index == 0 and doc.list_item is None and doc.source == "claim.yaml"
    assert doc.text == (CASES / "claim.yaml").read_text()
    pos = doc.positions
    assert pos[("apiVersion",)] == Node(Span(1, 1, 1, 11), Span(1, 13, 1, 31))
    assert pos[("metadata", "name")] == Node(Span(4, 3, 4, 7), Span(4, 9, 4, 20))
    # a block mapping ends at the end of its last value, not at the next key
    assert pos[("metadata", "labels")] == Node(Span(6, 3, 6, 9), Span(7, 5, 8, 34))
    # list items have no key span
    assert pos[("spec", "devices", "requests", 0)].key is None
    assert pos[("spec", "devices", "requests", 0, "name")] == Node(Span(14, 7, 14, 11), Span(14, 13, 14, 16))
    assert pos[("spec", "devices", "requests", 0, "exactly", "count")].value == Span(18, 16, 18, 17)
    # a literal block scalar: from the indicator to its last character
    expr = pos[("spec", "devices", "requests", 0, "exactly", "selectors", 0, "cel", "expression")]
    assert expr == Node(Span(21, 13, 21, 23), Span(21, 25, 23, 89))
    # flow collections: brackets included
    assert pos[("spec", "devices", "constraints", 0, "requests")].value == Span(38, 17, 38, 31)
    assert pos[("spec", "devices", "constraints", 0, "requests", 1)].value == Span(38, 25, 38, 30)
    assert pos[("spec", "devices", "config", 0, "opaque", "parameters", "sharing")].value == Span(45, 20, 45, 59)
    # the root
    assert pos[()].key is None and pos[()].value.line == 1 and pos[()].value.column == 1
    # every value span covers the source text of its value
    text = doc.text
    assert text_at(text, pos[("kind",)].value) == "ResourceClaim"
    assert text_at(text, pos[("metadata", "annotations", "example.com/owner")].value) == '"alice"'
    for path, node in pos.items():
        if node.key is not None and isinstance(path[-1], str):
            assert text_at(text, node.key) == path[-1], path


def test_scalar_styles_only_for_strings():
    doc = run("claim.yaml").documents[0]
    st = doc.scalar_styles
    assert st[("kind",)] is None
    assert st[("metadata", "annotations", "example.com/owner")] == '"'
    assert st[("spec", "devices", "requests", 0, "exactly", "selectors", 0, "cel", "expression")] == "|"
    assert st[("spec", "devices", "requests", 1, "firstAvailable", 0, "selectors", 0, "cel", "expression")] == "'"
    assert ("spec", "devices", "requests", 0, "exactly", "count") not in st  # an int
    assert ("spec", "devices", "config", 0, "opaque", "parameters", "enabled") not in st  # a bool


def test_multi_document_absolute_positions_and_empty_documents():
    r = run("multi.yaml")
    assert [d.index for d in r.documents] == [0, 2]
    assert r.empty == 2  # the comment-only document and the trailing `---`
    second = r.documents[1]
    assert second.positions[("metadata", "name")] == Node(Span(11, 3, 11, 7), Span(11, 9, 11, 10))
    assert second.positions[("kind",)].value == Span(9, 7, 9, 18)


def test_empty_documents_count_in_indexes():
    r = run("empty_docs.yaml")
    assert [d.index for d in r.documents] == [2]
    assert r.empty == 3
    assert r.documents[0].positions[("kind",)].value == Span(8, 7, 8, 8)


def test_crlf_and_unicode_columns():
    doc = run("crlf.yaml").documents[0]
    assert doc.positions[("metadata", "name")].value == Span(4, 9, 4, 13)
    doc = run("unicode.yaml").documents[0]
    assert doc.data["metadata"] == {"name": "café", "namespace": "été"}
    # columns count characters, not bytes
    assert doc.positions[("metadata", "namespace")].value == Span(5, 14, 5, 17)


def test_bom_is_dropped():
    doc = run("bom.yaml").documents[0]
    assert doc.data == {"apiVersion": "v1", "kind": "X"}
    assert doc.positions[("apiVersion",)].key == Span(1, 1, 1, 11)
    assert not doc.text.startswith("\ufeff")


def test_utf16_with_bom_is_decoded():
    data = "apiVersion: v1\nkind: é\n".encode("utf-16")
    r = load("u16.yaml", data)
    assert r.problems == []
    assert r.documents[0].data == {"apiVersion": "v1", "kind": "é"}


# --------------------------------------------------------------------------- problems


def test_duplicate_key_points_at_second_and_names_first_line():
    r = run("duplicate.yaml")
    (p,) = r.problems
    assert (p.rule, p.name, p.severity) == ("DRA002", "duplicate-key", Severity.ERROR)
    assert p.span == Span(7, 3, 7, 7)
    assert p.message == "duplicate key 'name' (first defined at line 4)"
    assert p.source == "duplicate.yaml" and p.document == 0
    assert r.documents[0].data["metadata"]["name"] == "b"  # last wins, as in Kubernetes


def test_syntax_error_resyncs_at_next_document():
    r = run("syntax_resync.yaml")
    assert [d.index for d in r.documents] == [0, 3]
    assert [d.data["kind"] for d in r.documents] == ["A", "D"]
    assert codes(r) == [("DRA001", 1, 7, 8), ("DRA001", 2, 11, 1)]
    assert r.problems[0].message == "mapping values are not allowed in this context"
    assert "flow sequence" in r.problems[1].message
    assert all(p.name == "yaml-syntax" for p in r.problems)
    # positions after a resync stay absolute
    assert r.documents[1].positions[("metadata", "name")].value == Span(14, 9, 14, 10)


def test_syntax_error_without_resync_says_rest_not_checked():
    r = load("x.yaml", b"a: [1, 2\nb: 3\nc: 4\n")
    (p,) = r.problems
    assert p.rule == "DRA001"
    assert "not checked" in p.message


def test_tab_indentation():
    r = run("tabs.yaml")
    (p,) = r.problems
    assert p.rule == "DRA001"
    assert p.message == "tab character used for indentation; YAML allows only spaces"
    assert (p.span.line, p.span.column) == (4, 1)


def test_not_a_mapping():
    r = run("not_mapping.yaml")
    assert codes(r) == [("DRA003", 0, 1, 1), ("DRA003", 1, 4, 1)]
    assert "list" in r.problems[0].message and "scalar" in r.problems[1].message
    assert [d.index for d in r.documents] == [2]


def test_invalid_utf8():
    r = run("invalid_utf8.yaml")
    (p,) = r.problems
    assert (p.rule, p.name) == ("DRA004", "encoding")
    assert (p.span.line, p.span.column) == (5, 6)
    assert "0xff" in p.message
    assert r.documents == []


def test_nul_bytes_mean_binary():
    r = run("binary.yaml")
    (p,) = r.problems
    assert p.rule == "DRA004" and "binary" in p.message
    assert (p.span.line, p.span.column) == (2, 7)


def test_size_cap(monkeypatch):
    monkeypatch.setattr(load_mod, "MAX_BYTES", 10)
    r = load("big.yaml", b"apiVersion: v1\n")
    assert codes(r) == [("DRA005", 0, 1, 1)]
    assert MAX_BYTES == 16 * 1024 * 1024


def test_non_string_keys():
    r = run("keys.yaml")
    assert codes(r) == [("DRA008", 0, 1, 1), ("DRA008", 0, 2, 1), ("DRA008", 0, 3, 1), ("DRA008", 0, 4, 3)]
    assert all(p.name == "non-string-key" for p in r.problems)
    # converted as sigs.k8s.io/yaml does; null and sequence keys are dropped
    assert r.documents[0].data == {"1": "x", "true": "y" if False else True, "ok": 1}
    assert r.problems[0].span == Span(1, 1, 1, 2)


def test_bad_explicit_tag_is_reported():
    r = load("t.yaml", b"a: !!int abc\n")
    assert codes(r) == [("DRA001", 0, 1, 4)]
    assert r.documents[0].data == {"a": "abc"}


# --------------------------------------------------------------------------- scalar resolution


def test_scalar_resolution_like_kubernetes():
    d = run("scalars.yaml").documents[0].data
    assert d["a"] == 31 and d["b"] == 493 and d["c"] == 15 and d["d"] == 1000
    assert d["e"] == 1000 and type(d["e"]) is int  # 1e3 -> JSON 1000
    assert d["f"] == 2.5
    assert d["g"] == "2024-01-01"  # timestamps stay strings
    assert d["h"] == 8  # not octal, so a float, so JSON 8
    assert d["i"] == 1 and math.isinf(d["j"])
    assert d["k"] == "1" and d["l"] == "1" and d["m"] == 7
    assert d["false"] is True  # `n: yes` -- n is a boolean key for go-yaml v2
    assert d["o"] is False and d["p"] is None and d["q"] is None and d["r"] is None
    assert d["s"] == 2 and type(d["s"]) is int
    assert d["t"] == [True, False, True]
    assert d["u"] == "1:20"
    assert d["v"] == -16 and d["w"] == 5
    assert d["x"] == 18446744073709551616 and type(d["x"]) is int  # past uint64: a float, integral


def test_a_leading_zero_with_an_8_or_9_is_a_decimal_float_as_go_yaml_reads_it():
    """strconv.ParseInt fails on the octal digits, ParseFloat reads the decimal: JSON 128, not DRA001."""
    r = load("z.yaml", b"a: 0128\nb: -019\nc: 0127\nd: 0_128\ne: 0128.5\n")
    assert codes(r) == []
    assert r.documents[0].data == {"a": 128, "b": -19, "c": 87, "d": 128, "e": 128.5}
    assert type(r.documents[0].data["a"]) is int


def test_quoted_and_block_scalars_are_strings():
    d = load("q.yaml", b"a: 'true'\nb: \"1\"\nc: |\n  3\n").documents[0].data
    assert d == {"a": "true", "b": "1", "c": "3\n"}


# --------------------------------------------------------------------------- anchors, limits


def test_anchors_aliases_and_merge_keys():
    doc = run("anchors.yaml").documents[0]
    assert doc.data["use"] == {"count": 2, "list": ["a", "b"], "driver": "gpu.example.com"}
    pos = doc.positions
    # an alias's content stands at the alias
    assert pos[("use", "list")].value == Span(8, 9, 8, 11)
    assert pos[("use", "list", 1)].value == Span(8, 9, 8, 11)
    # merged fields point at the merge value; explicit ones at themselves
    assert pos[("use", "driver")].value == Span(6, 7, 6, 12)
    assert pos[("use", "count")].value == Span(7, 10, 7, 11)


def _run_isolated(code: str, timeout: float = 60) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("pure", [False, True])
def test_alias_bomb_is_refused_quickly(pure):
    code = textwrap.dedent(f"""
        from dralint.pipeline.load import load
        lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        for c in "bcdefghij":
            prev = chr(ord(c) - 1)
            lines.append(f"{{c}}: &{{c}} [" + ",".join(["*" + prev] * 9) + "]")
        data = ("\\n".join(lines) + "\\n---\\napiVersion: v1\\nkind: X\\n").encode()
        r = load("bomb.yaml", data, pure_python={pure})
        print([(p.rule, p.document, p.span.line, p.span.column) for p in r.problems], [d.index for d in r.documents])
    """)
    out = _run_isolated(code)
    assert out.strip() == "[('DRA005', 0, 6, 8)] [1]"


# Closed brackets this deep: far past the limit (and, for the C parser, past Python's recursion limit). The
# pure-Python scanner weighs each bracket against every open one in its 1,024-character window, so past
# that window more depth costs it the same and shows nothing the unclosed 10,000 below does not.
@pytest.mark.parametrize("pure, depth", [(False, 10000), (True, 500)])
def test_deep_nesting_is_refused(pure, depth):
    code = textwrap.dedent(f"""
        from dralint.pipeline.load import load
        data = b"a: " + b"[" * {depth} + b"]" * {depth} + b"\\n---\\napiVersion: v1\\nkind: X\\n"
        r = load("deep.yaml", data, pure_python={pure})
        print([(p.rule, p.document, p.span.line, p.span.column) for p in r.problems], [d.index for d in r.documents])
        data = b"[" * 10000
        r = load("deep2.yaml", data, pure_python={pure})
        print([(p.rule, p.document) for p in r.problems])
    """)
    out = _run_isolated(code).splitlines()
    assert out[0] == "[('DRA005', 0, 1, 103)] [1]"
    assert out[1] == "[('DRA005', 0)]"


# --------------------------------------------------------------------------- kind: List, JSON


def test_kind_list_expands_items():
    r = run("kind_list.yaml")
    assert [(d.index, d.list_item, d.kind) for d in r.documents] == [(0, 0, "DeviceClass"), (0, 2, "ResourceClaim")]
    first, second = r.documents
    assert first.data == {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "one"}}
    assert first.positions[("metadata", "name")] == Node(Span(7, 5, 7, 9), Span(7, 11, 7, 14))
    assert first.positions[()].key is None and first.positions[()].value.line == 4
    assert second.positions[("spec", "devices")].value == Span(12, 14, 12, 16)
    assert codes(r) == [("DRA003", 0, 8, 3)]
    assert r.problems[0].path == ("items", 1)


def test_json_with_tabs():
    r = run("tabs.json")
    (doc,) = r.documents
    assert doc.data["metadata"] == {"name": "again"}
    assert codes(r) == [("DRA002", 0, 6, 3)]
    assert r.problems[0].message == "duplicate key 'name' (first defined at line 5)"
    assert doc.positions[("kind",)] == Node(Span(3, 2, 3, 8), Span(3, 10, 3, 23))
    assert doc.positions[("metadata",)].value == Span(4, 14, 7, 3)
    expr = ("spec", "selectors", 0, "cel", "expression")
    assert doc.data["spec"]["selectors"][0]["cel"]["expression"] == 'device.driver == "x" && true'
    # string_span goes through JSON escapes: the first '&' is the \u0026 escape
    i = doc.data["spec"]["selectors"][0]["cel"]["expression"].index("&")
    span = string_span(doc, expr, i, i + 1)
    assert text_at(doc.text, span) == "\\u0026"


def test_json_detected_by_content_and_invalid_json_falls_back_to_yaml():
    r = load("x.yaml", b'  {"apiVersion": "v1", "kind": "X"}\n')
    assert r.documents[0].data == {"apiVersion": "v1", "kind": "X"}
    r = load("x.yaml", b"{apiVersion: v1, kind: X}\n")  # flow YAML, not JSON
    assert r.documents[0].data == {"apiVersion": "v1", "kind": "X"}
    r = load("x.json", b'{"a": 1,}\n')
    assert codes(r) == [("DRA001", 0, 1, 9)]


# --------------------------------------------------------------------------- string_span


@pytest.mark.parametrize("field", ["plain", "single", "double", "literal", "folded"])
def test_string_span_every_style(field):
    doc = run("strings.yaml").documents[0]
    path = ("spec", field)
    value = doc.data["spec"][field]
    lines = doc.text.splitlines()
    for i, ch in enumerate(value):
        if ch in " \n":
            continue
        span = string_span(doc, path, i, i + 1)
        src = lines[span.line - 1][span.column - 1:span.end_column - 1] if span.line == span.end_line else None
        assert src is not None, (i, span)
        # the character itself, or the escape / doubled quote that produced it
        assert src == ch or (src.startswith("\\") and len(src) > 1) or src == "''", (field, i, ch, span, src)


def test_string_span_exact_examples():
    doc = run("strings.yaml").documents[0]
    # plain, second line: "device.index" starts at line 7 column 5
    v = doc.data["spec"]["plain"]
    i = v.index("device.index")
    assert string_span(doc, ("spec", "plain"), i, i + 12) == Span(7, 5, 7, 17)
    # single-quoted across a line break, with a doubled quote
    v = doc.data["spec"]["single"]
    i = v.index("'b'")
    assert string_span(doc, ("spec", "single"), i, i + 3) == Span(9, 8, 9, 13)
    # double-quoted: \u00e9 maps to its 6-character escape
    v = doc.data["spec"]["double"]
    i = v.index("é")
    assert string_span(doc, ("spec", "double"), i, i + 1) == Span(10, 18, 10, 24)
    # literal, second line keeps its extra indentation
    v = doc.data["spec"]["literal"]
    i = v.index("device.index")
    assert string_span(doc, ("spec", "literal"), i, i + 6) == Span(15, 7, 15, 13)
    # folded
    v = doc.data["spec"]["folded"]
    i = v.index("&&")
    assert string_span(doc, ("spec", "folded"), i, i + 2) == Span(18, 5, 18, 7)


def test_string_span_falls_back_to_value_span():
    doc = run("strings.yaml").documents[0]
    value_span = doc.positions[("spec", "plain")].value
    assert string_span(doc, ("spec", "plain"), 0, 10_000) == value_span
    assert string_span(doc, ("metadata", "missing"), 0, 1) == doc.locate(("metadata", "missing"))


# --------------------------------------------------------------------------- lazy tables, fallback


def test_positions_behave_like_a_dict():
    doc = run("claim.yaml").documents[0]
    again = run("claim.yaml").documents[0]
    assert doc.positions == dict(again.positions.items())
    assert len(doc.positions) == len(list(doc.positions))
    clone = pickle.loads(pickle.dumps(doc.positions))
    assert type(clone) is dict and clone == doc.positions
    assert copy.deepcopy(again.positions) == doc.positions
    assert doc.locate(("spec", "devices", "nope")) == doc.positions[("spec", "devices")].key


ALL_FIXTURES = sorted(p.name for p in CASES.iterdir() if p.is_file())


def _snapshot(result):
    return (
        [(d.source, d.index, d.list_item, d.data, dict(d.positions.items()), dict(d.scalar_styles.items()))
         for d in result.documents],
        [(p.rule, p.name, p.severity, p.document, p.path, p.span) for p in result.problems],
        result.empty,
    )


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_pure_python_fallback_matches_c(name):
    if not load_mod.c_parser_available():
        pytest.skip("C parser not available")
    c = _snapshot(run(name, pure=False))
    py = _snapshot(run(name, pure=True))
    # messages of syntax errors come from two different parsers; codes, places and data must agree
    assert py == c


def test_env_var_selects_pure_python(monkeypatch):
    monkeypatch.setenv("DRALINT_PURE_PYTHON", "1")
    assert load_mod._want_pure(None) is True
    monkeypatch.setenv("DRALINT_PURE_PYTHON", "0")
    assert load_mod._want_pure(None) is False


def test_import_does_not_load_ruamel_main():
    out = _run_isolated(
        "import sys\n"
        "import dralint.pipeline.load as L\n"
        "from dralint import runtime\n"
        "runtime.enable()  # as the CLI does\n"
        "print('ruamel.yaml.main' in sys.modules)\n"
        "L.load('x.yaml', b'a: 1\\n')\n"
        "print('ruamel.yaml.main' in sys.modules)\n"
        # The real package still works afterwards, round trip included (migrate uses it).
        "from ruamel.yaml import YAML\n"
        "import io\n"
        "y = YAML(); buf = io.StringIO(); y.dump(y.load('a: 1  # c\\n'), buf)\n"
        "print(buf.getvalue().strip().replace(' ', ''))\n"
        "print(L.load('y.yaml', b'b: 2\\n').documents[0].data == {'b': 2})\n")
    assert out.split() == ["False", "False", "a:1#c", "True"]


def test_falls_back_to_pure_python_without_the_c_extension():
    out = _run_isolated(
        "import sys\n"
        "sys.modules['_ruamel_yaml'] = None  # makes `import _ruamel_yaml` fail\n"
        "from dralint.pipeline.load import load, c_parser_available\n"
        "r = load('x.yaml', b'apiVersion: v1\\nkind: X\\nmetadata:\\n  name: a\\n')\n"
        "print(c_parser_available(), r.documents[0].positions[('metadata', 'name')].value)\n")
    assert out.strip() == "False Span(line=4, column=9, end_line=4, end_column=10)"


# --------------------------------------------------------------------------- position replay, pinned

# Every construct the position replay (load.position_table.Replay) handles differently, in one file: flow and block
# collections, anchors, alias and non-string keys, collection keys (dropped), merge keys (a list and a
# single alias), repeated keys at two levels, empty values, every scalar style and explicit tags. The
# expected tables were produced by the loader before its replay loop was rewritten for speed; any
# change here is a change of results, not an optimisation.
TRICKY = """\
base: &b {x: 1, y: [a, "b"]}
anch: &s val
*s : aliased key
? [1, 2]
: dropped
? {k: v}
: dropped too
1: int key
yes: bool key
null: null key
m:
  <<: [*b]
  x: 2
  dup: 1
  dup: 2
  lit: |
    text

  fold: >-
    more
  empty:
  q: 'single'
  dq: "double"
  t: !!str 12
  n: !!int "7"
  nested:
    dup: a
    other: b
    dup: c
list:
- plain
- 3
-
- {a: 1}
- - nested
- *b
- !!float 1
---
second: &m {p: 1}
merged:
  <<: *m
  q: 2
"""

TRICKY_POSITIONS = [
    {
        ('base', 'x'): ((1, 11, 1, 12), (1, 14, 1, 15)),
        ('base', 'true', 0): (None, (1, 21, 1, 22)),
        ('base', 'true', 1): (None, (1, 24, 1, 27)),
        ('base', 'true'): ((1, 17, 1, 18), (1, 20, 1, 28)),
        ('base',): ((1, 1, 1, 5), (1, 7, 1, 29)),
        ('anch',): ((2, 1, 2, 5), (2, 7, 2, 13)),
        ('val',): ((3, 1, 3, 3), (3, 6, 3, 17)),
        ('1',): ((8, 1, 8, 2), (8, 4, 8, 11)),
        ('true',): ((9, 1, 9, 4), (9, 6, 9, 14)),
        ('m', 'x'): ((13, 3, 13, 4), (13, 6, 13, 7)),
        ('m', 'dup'): ((15, 3, 15, 6), (15, 8, 15, 9)),
        ('m', 'lit'): ((16, 3, 16, 6), (16, 8, 17, 9)),
        ('m', 'fold'): ((19, 3, 19, 7), (19, 9, 20, 9)),
        ('m', 'empty'): ((21, 3, 21, 8), (21, 8, 21, 9)),
        ('m', 'q'): ((22, 3, 22, 4), (22, 6, 22, 14)),
        ('m', 'dq'): ((23, 3, 23, 5), (23, 7, 23, 15)),
        ('m', 't'): ((24, 3, 24, 4), (24, 6, 24, 14)),
        ('m', 'false'): ((25, 3, 25, 4), (25, 6, 25, 15)),
        ('m', 'nested', 'dup'): ((29, 5, 29, 8), (29, 10, 29, 11)),
        ('m', 'nested', 'other'): ((28, 5, 28, 10), (28, 12, 28, 13)),
        ('m', 'nested'): ((26, 3, 26, 9), (27, 5, 29, 11)),
        ('m', 'true'): ((12, 7, 12, 8), (12, 7, 12, 8)),
        ('m', 'true', 0): (None, (12, 7, 12, 8)),
        ('m', 'true', 1): (None, (12, 7, 12, 8)),
        ('m',): ((11, 1, 11, 2), (12, 3, 29, 11)),
        ('list', 0): (None, (31, 3, 31, 8)),
        ('list', 1): (None, (32, 3, 32, 4)),
        ('list', 2): (None, (33, 2, 33, 2)),  # nothing at the end of a line: no character wide (inside the file)
        ('list', 3, 'a'): ((34, 4, 34, 5), (34, 7, 34, 8)),
        ('list', 3): (None, (34, 3, 34, 9)),
        ('list', 4, 0): (None, (35, 5, 35, 11)),
        ('list', 4): (None, (35, 3, 35, 11)),
        ('list', 5): (None, (36, 3, 36, 5)),
        ('list', 5, 'x'): ((36, 3, 36, 5), (36, 3, 36, 5)),
        ('list', 5, 'true'): ((36, 3, 36, 5), (36, 3, 36, 5)),
        ('list', 5, 'true', 0): (None, (36, 3, 36, 5)),
        ('list', 5, 'true', 1): (None, (36, 3, 36, 5)),
        ('list', 6): (None, (37, 3, 37, 12)),
        ('list',): ((30, 1, 30, 5), (31, 1, 37, 12)),
        (): (None, (1, 1, 37, 12)),
    },
    {
        ('second', 'p'): ((39, 13, 39, 14), (39, 16, 39, 17)),
        ('second',): ((39, 1, 39, 7), (39, 9, 39, 18)),
        ('merged', 'q'): ((42, 3, 42, 4), (42, 6, 42, 7)),
        ('merged', 'p'): ((41, 7, 41, 9), (41, 7, 41, 9)),
        ('merged',): ((40, 1, 40, 7), (41, 3, 42, 7)),
        (): (None, (39, 1, 42, 7)),
    },
]

TRICKY_STYLES = [
    {('base', 'true', 0): None, ('base', 'true', 1): '"', ('anch',): None, ('val',): None, ('1',): None, ('true',): None, ('m', 'lit'): '|', ('m', 'fold'): '>', ('m', 'q'): "'", ('m', 'dq'): '"', ('m', 't'): None, ('m', 'nested', 'dup'): None, ('m', 'nested', 'other'): None, ('list', 0): None, ('list', 4, 0): None},
    {},
]

TRICKY_PROBLEMS = [
    ('DRA008', 0, (1, 17, 1, 18), "mapping key y is a boolean, not a string; Kubernetes turns it into the string 'true', quote it to say so"),
    ('DRA008', 0, (4, 3, 4, 4), 'mapping key is a sequence, not a string; the API server rejects it'),
    ('DRA008', 0, (6, 3, 6, 4), 'mapping key is a mapping, not a string; the API server rejects it'),
    ('DRA008', 0, (8, 1, 8, 2), "mapping key 1 is a number, not a string; Kubernetes turns it into the string '1', quote it to say so"),
    ('DRA008', 0, (9, 1, 9, 4), "mapping key yes is a boolean, not a string; Kubernetes turns it into the string 'true', quote it to say so"),
    ('DRA008', 0, (10, 1, 10, 5), "mapping key is null, not a string; the API server rejects it (quote it if you meant 'null')"),
    ('DRA002', 0, (15, 3, 15, 6), "duplicate key 'dup' (first defined at line 14)"),
    ('DRA008', 0, (25, 3, 25, 4), "mapping key n is a boolean, not a string; Kubernetes turns it into the string 'false', quote it to say so"),
    ('DRA002', 0, (29, 5, 29, 8), "duplicate key 'dup' (first defined at line 27)"),
]


@pytest.mark.parametrize("pure", [False, True])
def test_replayed_positions_are_pinned(pure):
    r = load("tricky.yaml", TRICKY.encode(), pure_python=pure)
    assert [(p.rule, p.document, tuple(p.span), p.message) for p in r.problems] == TRICKY_PROBLEMS
    assert len(r.documents) == len(TRICKY_POSITIONS)
    for doc, want_pos, want_styles in zip(r.documents, TRICKY_POSITIONS, TRICKY_STYLES, strict=True):
        got = {path: (tuple(n.key) if n.key is not None else None, tuple(n.value)) for path, n in doc.positions.items()}
        assert got == want_pos
        assert list(got) == list(want_pos)  # same insertion order too (suppressions walk it)
        assert dict(doc.scalar_styles) == want_styles
        assert all(type(n) is Node and type(n.value) is Span and (n.key is None or type(n.key) is Span)
                   for n in doc.positions.values())


def test_repeated_keys_are_located_in_a_document_without_them_too():
    # Where a repeated key was first seen is only tracked for documents known to repeat one; a document
    # without any must still get every position, and one with some must name the right first line.
    text = "a: 1\nb: {c: 1}\n---\nx: 1\nw: {z: 1, z: 2}\nx: 3\n"
    r = load("dups.yaml", text.encode())
    assert [(p.document, p.span.line, p.message) for p in r.problems] == [
        (1, 5, "duplicate key 'z' (first defined at line 5)"),
        (1, 6, "duplicate key 'x' (first defined at line 4)"),
    ]
    first, second = r.documents
    assert first.positions[("b", "c")] == Node(Span(2, 5, 2, 6), Span(2, 8, 2, 9))
    assert second.positions[("x",)] == Node(Span(6, 1, 6, 2), Span(6, 4, 6, 5))
    assert second.positions[("w", "z")] == Node(Span(5, 11, 5, 12), Span(5, 14, 5, 15))


# --------------------------------------------------------------------------- rule runner


def test_rule_runner_reports_under_each_rule_and_survives_a_crash():
    # engine.run_document_rules shares one reporter between the rules of a document; each problem must
    # still carry its own rule, and a rule that raises after reporting keeps what it reported, adds a
    # DRA901 and does not stop the rules after it.
    from dralint.api import DocumentView, Rule
    from dralint.pipeline.engine import run_document_rules

    def first(doc, report):
        report(("kind",), "one")

    def broken(doc, report):
        report(("apiVersion",), "two", severity="info")
        raise KeyError("boom")

    def last(doc, report):
        report(("metadata", "name"), "three", at_key=True)

    rules = [Rule("DRA990", "first", Severity.WARNING, first, "s", "d"),
             Rule("DRA991", "broken", Severity.ERROR, broken, "s", "d"),
             Rule("DRA992", "last", Severity.ERROR, last, "s", "d")]
    r = load("p.yaml", b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n")
    (doc,) = r.documents
    problems = run_document_rules(rules, DocumentView(doc, "1.35", {}))
    assert [(p.rule, p.name, p.severity, p.message, p.span) for p in problems] == [
        ("DRA990", "first", Severity.WARNING, "one", Span(2, 7, 2, 10)),
        ("DRA991", "broken", Severity.INFO, "two", Span(1, 13, 1, 15)),
        ("DRA901", problems[2].name, problems[2].severity,
         "rule DRA991 (broken) failed: KeyError: 'boom'", problems[2].span),
        ("DRA992", "last", Severity.ERROR, "three", Span(4, 3, 4, 7)),
    ]


def test_document_view_lookups_keep_their_shape_rules():
    # DocumentView.get has a fast path for str keys into plain mappings; every other step keeps the
    # general rules: an int indexes only a list (not a mapping, whose keys are strings, nor a string), bool is
    # no int for `type=`, a MapKey is a key, and a null value is returned as null, not as the default.
    from dralint.api import DocumentView
    from dralint.model import MapKey

    text = b"spec:\n  count: 3\n  flag: true\n  s: abc\n  z: null\n  items: [{name: a}, 7, {name: b}]\n  1: one\n  gpu.example.com/model: x\n"
    (doc,) = load("v.yaml", text).documents
    view = DocumentView(doc, "1.35", {})
    assert view.get("spec", "count", type=int) == 3
    assert view.get("spec", "flag", type=int, default="no") == "no"
    assert view.get("spec", "flag", type=bool) is True
    assert view.get("spec", "flag", type=(int, bool)) is True
    assert view.get("spec", "count", type=(str, float), default="no") == "no"
    assert view.get("spec", "z", default="d") is None
    assert view.get("spec", "z", "deeper", default="d") == "d"
    assert view.get("spec", "s", 0, default="d") == "d"
    assert view.get("spec", 1, default="d") == "d"
    assert view.get("spec", "items", -1, "name") == "b"
    assert view.get("spec", "items", 3, default="d") == "d"
    assert view.get("spec", "items", 1, "name", default="d") == "d"
    assert view.get(("spec", "items", 0, "name")) == "a"
    assert view.get("spec", MapKey("gpu.example.com/model")) == "x"
    assert [i for i, _ in view.items("spec", "items")] == [0, 2]

    calls = []
    def count(*args):
        calls.append(args)
        return len(calls)
    assert view.memo(("k", 1), count, "a", 2) == 1
    assert view.memo(("k", 1), count, "b", 3) == 1
    assert view.memo("other", count) == 2
    assert calls == [("a", 2), ()]
