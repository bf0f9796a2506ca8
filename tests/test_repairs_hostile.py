"""Fix building and CEL positions on hostile inputs: linear in the file, whatever its size (found by a hostile-input hunt).

Fix building split the whole file once per fix (15.6 MB took 77 s in json or sarif, against ~1 s
in text), and `string_span` kept a tuple per character of a CEL expression (a 15 MB selector at 1.31
used 2.2 GB). The real CLI runs under a watchdog timeout, or a memory limit, far above the linear
cost, and the exact problems and fixes are asserted. The decoders that now keep runs are compared
with the straightforward one-tuple-per-character mapping they replaced.
"""

from __future__ import annotations

import json
import resource
from contextlib import contextmanager
from pathlib import Path

import pytest

from dralint.pipeline.load import load
from dralint.positions import _Missing, _offset, _parent_indent, _pos, _value_at, string_span

from conftest import lint_json

MOVE_ONE = """---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: a{n}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        count: 1
      deviceClassName: gpu.example.com
"""
MOVE_TWO = """---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: b{n}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      count: 1
"""


def test_fixes_far_down_a_big_file_are_built_in_one_pass(tmp_path):
    # 6M comment lines (12 MB), then 1,000 problems with fixes: 200 moves of one field, 200 of two
    # fields and 600 renames. Each fix split the text up to its line (or whole): about a minute.
    pad = 6_000_000
    with open(tmp_path / "big.yaml", "w") as f:
        f.write("#\n" * pad)
        f.writelines(MOVE_ONE.format(n=n) for n in range(200))
        f.writelines(MOVE_TWO.format(n=n) for n in range(200))
        for n in range(6):
            f.write(f"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c{n}\n")
            f.writelines(f"spec{i}: 1\n" for i in range(100))
    problems = json.loads(lint_json(str(tmp_path / "big.yaml"), timeout=30).stdout)["problems"]
    assert len(problems) == 1000
    assert [p["rule"] for p in problems] == ["DRA101"] * 200 + ["DRA304"] * 200 + ["DRA101"] * 600

    one = problems[0]
    assert (one["line"], one["column"], one["message"]) == (
        pad + 12, 7, "unknown field 'deviceClassName' here; it belongs under 'exactly' (exactly.deviceClassName)")
    assert one["fixes"] == [{"description": "move 'deviceClassName' under 'exactly'", "edits": [
        {"line": pad + 12, "column": 1, "end_line": pad + 13, "end_column": 1, "text": ""},
        {"line": pad + 11, "column": 1, "end_line": pad + 11, "end_column": 1, "text": "        deviceClassName: gpu.example.com\n"}]}]

    two = problems[399]
    line = pad + 12 * 200 + 11 * 199 + 9
    assert (two["line"], two["column"], two["end_line"], two["end_column"]) == (line, 7, line + 2, 15)
    assert two["message"] == ("request has neither 'exactly' nor 'firstAvailable': 'deviceClassName' and 'count' are fields "
                              "of the flat v1beta1 request; in resource.k8s.io/v1 move them under 'exactly:' (Required)")
    assert two["fixes"] == [{"description": "move 'deviceClassName', 'count' under 'exactly'", "edits": [
        {"line": line + 1, "column": 7, "end_line": line + 1, "end_column": 39,
         "text": "exactly:\n        deviceClassName: gpu.example.com\n        count: 1"},
        {"line": line + 2, "column": 1, "end_line": line + 3, "end_column": 1, "text": ""}]}]

    last = problems[-1]
    line = pad + 12 * 200 + 11 * 200 + 105 * 5 + 5 + 100
    assert (last["line"], last["column"], last["message"]) == (line, 1, "unknown field 'spec99'; did you mean 'spec'?")
    assert last["fixes"] == [{"description": "rename 'spec99' to 'spec'", "edits": [
        {"line": line, "column": 1, "end_line": line, "end_column": 7, "text": "spec"}]}]


def test_a_one_line_json_stream_with_many_fixes(tmp_path):
    # 10 documents on one 15 MB line, 990 misspelt keys: each fix copied the line (~25 s before, ~2 s now).
    keys = ", ".join(f'"spec{i}": 1' for i in range(99))
    text = "".join('{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", '
                   f'"metadata": {{"name": "c{d}", "annotations": {{"a": "{"x" * 1_500_000}"}}}}, {keys}}}'
                   for d in range(10)) + "\n"
    (tmp_path / "one.json").write_text(text)
    problems = json.loads(lint_json(str(tmp_path / "one.json"), timeout=30).stdout)["problems"]
    assert [p["rule"] for p in problems].count("DRA101") == 990
    column = text.rindex('"spec98"') + 1
    last = [p for p in problems if p["rule"] == "DRA101"][-1]
    assert (last["line"], last["column"], last["message"]) == (1, column, "unknown field 'spec98'; did you mean 'spec'?")
    assert last["fixes"] == [{"description": "rename 'spec98' to 'spec'", "edits": [
        {"line": 1, "column": column, "end_line": 1, "end_column": column + 8, "text": '"spec"'}]}]


def _own_address_space() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


@contextmanager
def _children_limited_to(limit: int):
    """A child inherits its parent's limits: lower this process's address space only while one starts and runs."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


CEL_HEAD = ("# dralint: kubernetes-version=1.31\napiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\n"
            "metadata:\n  name: c\nspec:\n  devices:\n    requests:\n    - name: gpu\n"
            "      deviceClassName: gpu.example.com\n      selectors:\n      - cel:\n")


@pytest.mark.parametrize("style", ["'", '"', "|"])
def test_a_6_mb_cel_selector_at_1_31_is_positioned_in_little_memory(tmp_path, style, monkeypatch):
    # No 10 KiB selector limit before 1.32: DRA401 points at the expression's first character. A
    # mapping of every character to a tuple (~150 bytes a character: 900 MB for these 6M) does not
    # fit in the 256 MiB of address space the run gets beyond its parent's (at least 512 MiB in all);
    # a linear one needs a few times the text (the run fits in 300 MiB).
    # A literal block keeps its final line break: one character more than the expression.
    n = 6_000_000
    expression = 'device.attributes["x.example.com"].m == "' + "a" * n + '"'
    if style == "|":
        body, line, column = "|\n            " + expression + "\n", 14, 13
    elif style == "'":
        body, line, column = "'" + expression + "'\n", 13, 24
    else:
        body, line, column = '"' + expression.replace('"', '\\"') + '"\n', 13, 24
    (tmp_path / "cel.yaml").write_text(CEL_HEAD + "          expression: " + body)
    # A new process, which inherits the limit: a run forked from the fork server (started before, without
    # it) would not, and a server started under it would keep it for every later run.
    monkeypatch.setenv("DRALINT_TEST_FORK", "0")
    with _children_limited_to(max(512 << 20, _own_address_space() + (256 << 20))):
        run = lint_json(str(tmp_path / "cel.yaml"), timeout=30)
    cel = [p for p in json.loads(run.stdout)["problems"] if p["rule"] == "DRA401"]
    assert [(p["line"], p["column"], p["end_line"], p["end_column"]) for p in cel] == [(line, column, line, column)]
    assert cel[0]["message"] == ("compilation failed: INVALID_ARGUMENT: expression size exceeds codepoint limit. "
                                 f"input size: {len(expression) + (style == '|')}, limit: 100000 [INVALID_ARGUMENT]")


# --------------------------------------------------------------------------- string_span against a reference
# The straightforward mapping: one (character, source start, source end) per decoded character.


def _ref_fold(text, i, end, out):
    brk, breaks = i, 0
    while i < end and text[i] in " \t\r\n":
        breaks += text[i] == "\n" or (text[i] == "\r" and not text.startswith("\r\n", i))
        i += 1
    out += [(" ", brk, brk + 1)] if breaks <= 1 else [("\n", brk, brk + 1)] * (breaks - 1)
    return i


def _ref_flow(text, a, b, style):
    escapes = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
               "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
               "P": "\u2029"}
    out = []
    i, end = (a, b) if style is None else (a + 1, b - 1)
    while i < end:
        c = text[i]
        if style == "'" and c == "'" and text[i + 1:i + 2] == "'":
            out.append(("'", i, i + 2))
            i += 2
        elif style == '"' and c == "\\":
            e = text[i + 1:i + 2]
            if e in escapes:
                out.append((escapes[e], i, i + 2))
                i += 2
            elif e in ("x", "u", "U"):
                n = {"x": 2, "u": 4, "U": 8}[e]
                out.append((chr(int(text[i + 2:i + 2 + n], 16)), i, i + 2 + n))
                i += 2 + n
            else:
                assert e in "\r\n"
                i += 3 if text.startswith("\r\n", i + 1) else 2
                while i < end and text[i] in " \t":
                    i += 1
        elif c in "\r\n":
            while out and out[-1][0] in " \t" and text[out[-1][1]] != "\\":
                out.pop()
            i = _ref_fold(text, i, end, out)
        else:
            out.append((c, i, i + 1))
            i += 1
    return out


def _ref_block(text, a, b, folded, parent_indent):
    nl = text.find("\n", a)
    header = text[a + 1:nl].split("#", 1)[0].strip()
    digits = [int(ch) for ch in header if ch.isdigit()]
    lines, i = [], nl + 1
    while i < b:
        j = text.find("\n", i)
        j = b if j == -1 or j > b else j
        lines.append((i, j - 1 if j > i and text[j - 1] == "\r" else j))
        i = j + 1
    if digits:
        indent = parent_indent + digits[-1]
    else:
        indent = next(len(text[s:e]) - len(text[s:e].lstrip(" ")) for s, e in lines if text[s:e].strip(" "))
    out, prev, pending = [], None, []
    for s, e in lines:
        line = text[s:e]
        if len(line) - len(line.lstrip(" ")) < indent and line.strip(" "):
            break
        start = min(s + indent, e)
        if text[start:e] == "" or (not line.strip(" ") and len(line) <= indent):
            pending.append(e)
            continue
        kind = "more" if text[start] in " \t" else "normal"
        if out or pending:
            if folded and prev == kind == "normal":
                out += [(" ", pending[0], pending[0] + 1)] if len(pending) == 1 else [("\n", p, p + 1) for p in pending[1:]]
            else:
                out += [("\n", p, p + 1) for p in pending]
            pending = []
        out += [(text[k], k, k + 1) for k in range(start, e)]
        prev = kind
        pending.append(e)
    return out + [("\n", p, p + 1) for p in pending]


def _ref_mapping(doc, path) -> list[tuple[str, int, int]]:
    """(character, source start, source end) of each character of the scalar at `path`."""
    value, text, span = _value_at(doc.data, path), doc.text, doc.positions[path].value
    a, b = _offset(text, span.line, span.column), _offset(text, span.end_line, span.end_column)
    style = doc.scalar_styles.get(path, _Missing) if doc.scalar_styles is not None else _Missing
    if style is _Missing:
        style = text[a] if text[a] in "'\"|>" else None
    if style in ("|", ">"):
        src = _ref_block(text, a, b + 1 if b < len(text) else b, style == ">", _parent_indent(doc, path, text))
        decoded = "".join(c for c, _, _ in src)
        assert decoded.rstrip("\n") == value.rstrip("\n")
    else:
        src = _ref_flow(text, a, b, style)
        assert "".join(c for c, _, _ in src) == value
    return src


def _ref_span(doc, path, start, end, src):
    """The span of characters `start`..`end` of the scalar, by its `_ref_mapping` `src`."""
    fallback = doc.locate(path)
    if not 0 <= start <= end <= len(_value_at(doc.data, path)):
        return fallback
    text = doc.text
    if start == end:
        line, col = _pos(text, src[start][1] if start < len(src) else src[-1][2])
        return type(fallback)(line, col, line, col)
    if end > len(src):
        return fallback
    (l1, c1), (l2, c2) = _pos(text, src[start][1]), _pos(text, src[end - 1][2])
    return type(fallback)(l1, c1, l2, c2)


SCALARS = """apiVersion: v1
kind: ConfigMap
data:
  single: 'it''s a  \t
     folded ''line''

     and a blank one  '
  double: "tab\\t \\u00e9\\x41\\U0001F600 \\"q\\" \\\\ end  \t
     folded \\
     joined\\ \t
     kept   \\n

     para"
  literal: |
    first line
      more indented

    after a blank
  folded: >
    one
    two

    three
      indented
    four
  keep: |2+
     explicit

  plain: device.driver == "a" &&
    device.index > 1

    new paragraph
  crlf: "first \r\n   second  \r\n\r\n   third\\\r\n   joined"
"""


@pytest.mark.parametrize("key", ["single", "double", "literal", "folded", "keep", "plain", "crlf"])
def test_string_span_matches_the_per_character_mapping(key):
    (doc,) = load("s.yaml", SCALARS.encode()).documents
    path = ("data", key)
    value = doc.data["data"][key]
    assert len(value) > 8
    src = _ref_mapping(doc, path)
    exact = 0
    for start in range(len(value) + 1):
        for end in range(start, len(value) + 1):
            expected = _ref_span(doc, path, start, end, src)
            assert string_span(doc, path, start, end) == expected, (key, start, end)
            exact += expected != doc.locate(path)
    assert exact > (len(value) + 1) * (len(value) + 2) // 4  # most ranges are mapped, not the fallback
    assert string_span(doc, path, 0, len(value) + 1) == doc.locate(path)


def test_string_span_through_json_escapes_matches_the_reference():
    text = '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"e": "a\\u0026\\u00e9 \\"b\\" \\\\ \\/ \\n c"}}\n'
    (doc,) = load("s.json", text.encode()).documents
    path = ("data", "e")
    value = doc.data["data"]["e"]
    src = _ref_mapping(doc, path)
    for start in range(len(value) + 1):
        for end in range(start, len(value) + 1):
            assert string_span(doc, path, start, end) == _ref_span(doc, path, start, end, src), (start, end)
    i = value.index("é")
    span = string_span(doc, path, i, i + 1)
    assert (span.line, span.end_column - span.column) == (1, 6)
