"""JSON text -> documents, with positions (a small parser of its own: JSON allows tabs, YAML does not).

A file may hold several JSON values one after another (a JSON stream); each
is a document. Each is decoded by json's C decoder where json_fast.py can tell
this parser would read it without a problem, and read by this parser otherwise
(it says what is wrong, and where). A document's positions are computed when
first asked for: a path at a time (json_fast.Seek), or whole by parsing its
text again (as the YAML side replays its events), so a file holds no table it
was not asked for: memory stays a small multiple of the text
(tests/test_load_robustness.py; bench/memory.py).

Numbers follow Kubernetes' JSON decoding: an integer that fits 64 bits is an
int, anything else a float; a number beyond float64 is rejected by the API
server, so it is a problem here (the run goes on, the value stays text).
"""

from __future__ import annotations

import json
import math
import re

from ...lines import LineTable
from ...model import Node, Path, Span
from .json_fast import Documents, Seek, within_limits
from .result import MAX_DEPTH, MAX_NODES, Sink

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["read_json", "whole_value"]

_WS = re.compile(r"[ \t\r\n]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_STR_CHUNK = re.compile(r'[^"\\\x00-\x1f]*')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")
_WORDS = (("true", True), ("false", False), ("null", None))
_MAX_INT_DIGITS = 20  # int64/uint64 fit in 20 digits; Python refuses int() of more than 4,300


class _Invalid(Exception):
    """Not JSON: message and character index."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


class _Limit(_Invalid):
    """A document past MAX_NODES or MAX_DEPTH."""


class _Parser:
    """Parses one JSON value (a document) at a time: reporting its problems (the first pass), or, parsing it
    again, recording its positions and styles (`record`)."""

    def __init__(self, sink: Sink | None, text: str, lines: LineTable, doc_index: int, record: bool = False) -> None:
        self.sink = sink  # None when recording: a replay outlives the load, and must not hold its result
        self.text = text
        self.lines = lines
        self.doc_index = doc_index
        self.record = record
        self.pos: dict[Path, Node] = {}
        self.styles: dict[Path, str | None] = {}
        self.nodes = 0

    def add(self, code: str, message: str, span: Span) -> None:
        if self.sink is not None:  # when recording, the first pass has reported it
            self.sink.add(code, message, self.doc_index, span)

    def span(self, a: int, b: int) -> Span:
        position = self.lines.position
        return Span(*position(a), *position(b))

    def ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()

    def value(self, i: int, path: Path, key_span: Span | None, depth: int) -> tuple[Any, int]:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Limit(f"the document has more than {MAX_NODES} nodes; it was not checked", i)
        c = self.text[i:i + 1]
        if c == "{" or c == "[":
            if depth >= MAX_DEPTH:
                raise _Limit(f"nesting deeper than {MAX_DEPTH} levels; the document was not checked", i)
            out, end = (self.object if c == "{" else self.array)(i, path, depth)
            if self.record:
                self.pos[path] = Node(key_span, self.span(i, end))
            return out, end
        if c == '"':
            s, end = self.string(i)
            if self.record:
                self.pos[path] = Node(key_span, self.span(i, end))
                self.styles[path] = '"'
            return s, end
        m = _NUMBER.match(self.text, i)
        if m is not None and m.end() > i:
            v = self.number(m)
            if self.record:
                self.pos[path] = Node(key_span, self.span(i, m.end()))
            return v, m.end()
        for word, v in _WORDS:
            if self.text.startswith(word, i):
                if self.record:
                    self.pos[path] = Node(key_span, self.span(i, i + len(word)))
                return v, i + len(word)
        if not c:
            raise _Invalid("unexpected end of file, expected a value", i)
        raise _Invalid(f"unexpected character {c!r}, expected a value", i)

    def number(self, m: re.Match) -> Any:
        tok = m.group()
        if not (m.group(1) or m.group(2)) and len(tok.lstrip("-")) <= _MAX_INT_DIGITS:
            return int(tok)
        v = float(tok)
        if math.isinf(v):
            self.add("DRA001", f"the number {tok[:20]}... ({len(tok)} characters) is beyond the range of a "
                     "64-bit float; the API server rejects it", self.span(m.start(), m.end()))
            return tok
        if v.is_integer() and -1e21 < v < 1e21:
            return int(v)  # as Go's JSON round trip does (see scalars.py)
        return v

    def object(self, i: int, path: Path, depth: int) -> tuple[dict, int]:
        text = self.text
        out: dict = {}
        i = self.ws(i + 1)
        if text[i:i + 1] == "}":
            return out, i + 1
        first_at: dict[str, int] = {}  # key -> where it was first written
        while True:
            if text[i:i + 1] != '"':
                raise _Invalid("expected a string key in double quotes", i)
            ks = i
            k, i = self.string(i)
            ke = i
            i = self.ws(i)
            if text[i:i + 1] != ":":
                raise _Invalid("expected ':' after an object key", i)
            v, i = self.value(self.ws(i + 1), path + (k,), self.span(ks, ke) if self.record else None, depth + 1)
            if k in out:
                first_line = self.lines.position(first_at[k])[0]
                self.add("DRA002", f"duplicate key {k!r} (first defined at line {first_line})", self.span(ks, ke))
            else:
                first_at[k] = ks
            out[k] = v
            i = self.ws(i)
            c = text[i:i + 1]
            if c == ",":
                i = self.ws(i + 1)
            elif c == "}":
                return out, i + 1
            else:
                raise _Invalid("expected ',' or '}' in an object", i)

    def array(self, i: int, path: Path, depth: int) -> tuple[list, int]:
        text = self.text
        out: list = []
        i = self.ws(i + 1)
        if text[i:i + 1] == "]":
            return out, i + 1
        while True:
            v, i = self.value(i, path + (len(out),), None, depth + 1)
            out.append(v)
            i = self.ws(i)
            c = text[i:i + 1]
            if c == ",":
                i = self.ws(i + 1)
            elif c == "]":
                return out, i + 1
            else:
                raise _Invalid("expected ',' or ']' in an array", i)

    def string(self, i: int) -> tuple[str, int]:
        text = self.text
        start = i
        i += 1
        parts = []
        while True:
            m = _STR_CHUNK.match(text, i)
            parts.append(m.group())
            i = m.end()
            c = text[i:i + 1]
            if c == '"':
                return "".join(parts), i + 1
            if c != "\\":
                raise _Invalid("unterminated string" if not c else "control character in a string (escape it)",
                               start if not c else i)
            e = text[i + 1:i + 2]
            if e in _ESCAPES:
                parts.append(_ESCAPES[e])
                i += 2
            elif e == "u":
                char, i = self.unicode_escape(i)
                parts.append(char)
            else:
                raise _Invalid(f"invalid escape {text[i:i + 2]!r} in a string", i)

    def unicode_escape(self, i: int) -> tuple[str, int]:
        """The character of a \\uXXXX escape at i (a surrogate pair joined; a lone one is U+FFFD) and where it ends."""
        text = self.text
        h = text[i + 2:i + 6]
        if len(h) != 4 or not all(ch in _HEX for ch in h):
            raise _Invalid("invalid \\u escape in a string", i)
        cp = int(h, 16)
        i += 6
        if 0xD800 <= cp < 0xDC00 and text[i:i + 2] == "\\u":
            h2 = text[i + 2:i + 6]
            if len(h2) == 4 and all(ch in _HEX for ch in h2) and 0xDC00 <= int(h2, 16) < 0xE000:
                cp = 0x10000 + ((cp - 0xD800) << 10) + (int(h2, 16) - 0xDC00)
                i += 6
        return (chr(cp) if not 0xD800 <= cp < 0xE000 else "\ufffd"), i


def read_json(sink: Sink) -> bool:
    """Read the text as a stream of JSON values; False (and nothing recorded) when it is not JSON.

    Each value is decoded by json's C decoder where json_fast.Documents can tell it is what `_Parser`
    would read without a problem, and read by `_Parser` (which reports what is wrong) otherwise.
    """
    text = sink.text
    forced = sink.source.lower().endswith(".json")
    problems_before = len(sink.result.problems)
    docs: list[tuple[int, Any, int, int, bool]] = []  # index, value, where it starts and ends, decoded by C
    decoder = Documents(text)
    i = _WS.match(text, 0).end()
    failure: tuple[str, str, int] | None = None
    while i < len(text):
        start = i
        decoded = decoder.decode(i)
        if decoded is not None:
            value, i = decoded
        else:
            parser = _Parser(sink, text, sink.lines, len(docs))
            try:
                value, i = parser.value(i, (), None, 0)
            except _Limit as e:
                failure = ("DRA005", str(e), e.index)
                break
            except _Invalid as e:
                if not forced and not docs and len(sink.result.problems) == problems_before:
                    return False
                failure = ("DRA001", f"invalid JSON: {e}; the rest of the file was not checked", e.index)
                break
        decoder.read(start, i)
        docs.append((len(docs), value, start, i, decoded is not None))
        i = _WS.match(text, i).end()
    for doc_index, value, start, end, fast in docs:
        if isinstance(value, dict) or (sink.keep_lists and isinstance(value, list)):
            tables = _Tables(text, sink.lines, doc_index, start)
            sink.document(value, Seek(text, sink.lines, start, end, tables) if fast else tables, doc_index)
        else:
            sink.not_an_object(value, doc_index, Span(*sink.lines.position(start), *sink.lines.position(end)))
    if failure is not None:
        code, message, index = failure
        sink.add(code, message, len(docs), Span.point(*sink.lines.position(index)))
    return True


class _Tables:
    """A document's positions and styles, from parsing it again when first asked for (then kept: its
    position table and its styles each ask)."""

    __slots__ = ("text", "lines", "doc_index", "start", "_tables")

    def __init__(self, text: str, lines: LineTable, doc_index: int, start: int) -> None:
        self.text = text
        self.lines = lines
        self.doc_index = doc_index
        self.start = start
        self._tables: tuple[dict, dict] | None = None

    def __call__(self) -> tuple[dict, dict]:
        if self._tables is None:
            parser = _Parser(None, self.text, self.lines, self.doc_index, record=True)
            parser.value(self.start, (), None, 0)  # parsed once already: it cannot fail
            self._tables = (parser.pos, parser.styles)
        return self._tables


class _Unsure(Exception):
    """A number or constant `_Parser` would report: only it can say how."""


def _unsure(_: str) -> Any:
    raise _Unsure


def _float(token: str) -> float:
    value = float(token)
    if math.isinf(value):
        raise _Unsure  # _Parser.number: DRA001, beyond a 64-bit float
    return value


def _int(token: str) -> int:
    if len(token.lstrip("-")) > _MAX_INT_DIGITS:
        raise _Unsure  # _Parser.number reads it as a float, which may overflow
    return int(token)


def whole_value(text: str) -> tuple[bool, Any]:
    """(True, the value) when `text` is one JSON value that `read_json` reads without a problem, told by
    json's C decoder; (False, None) when only `read_json` can tell. Repeated keys are not told apart (the
    last wins, as in `read_json`)."""
    # No more objects than _Parser builds (MAX_NODES), hostile input included: every value but the first
    # of a container follows a comma (commas and brackets in strings only make this bound larger).
    if text.count(",") + text.count("[") + text.count("{") >= MAX_NODES:
        return False, None
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_unsure)
    except (ValueError, RecursionError, _Unsure):  # not one JSON value (a stream, comments, YAML), or too deep
        return False, None
    return within_limits(value), value
