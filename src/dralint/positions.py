"""Map a character range inside a parsed string value back to the file.

A CEL error says "column 17 of the expression"; the expression is the parsed
string, which went through YAML quoting, escapes, folding and indentation
removal. `string_span` re-decodes the value's source text while remembering
where each output character came from, checks that the result equals the parsed
value, and only then trusts the mapping; otherwise it returns the value's span.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from functools import lru_cache

from .lines import LineTable
from .model import Document, Path, Span

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["string_span"]

_BREAKS = "\r\n"


@lru_cache(maxsize=16)
def _lines(text: str) -> LineTable:
    return LineTable(text)


def _offset(text: str, line: int, column: int) -> int | None:
    return _lines(text).index(line, column)


def _pos(text: str, index: int) -> tuple[int, int]:
    return _lines(text).position(index)


class _Map:
    """A decoded string and, for each of its characters, the source range it came from: `(start, end)` by index.

    Stored as runs because most of a scalar is copied verbatim: a `(start, end)` tuple per character
    would make memory ~150 times the text, and before 1.32 a selector has no length limit
    (tests/test_repairs_hostile.py runs a 6M-character one in a bounded address space).
    A run covers source [start, end) one character each; anything else (an escape, a doubled quote,
    a folded break) is one character with its own range.
    """

    __slots__ = ("text", "_at", "_start", "_end", "_char", "_n")

    def __init__(self, text: str) -> None:
        self.text = text
        self._at = array("q")  # output index of each segment's first character (sorted, for bisect)
        self._start = array("q")
        self._end = array("q")
        self._char = array("q")  # code point of a one-character segment, -1 for a run
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def run(self, s: int, e: int) -> None:
        """Source characters [s, e) copied as they are."""
        if s >= e:
            return
        if self._char and self._char[-1] == -1 and self._end[-1] == s:
            self._end[-1] = e
        else:
            self._at.append(self._n)
            self._start.append(s)
            self._end.append(e)
            self._char.append(-1)
        self._n += e - s

    def append(self, ch: str, s: int, e: int) -> None:
        if e == s + 1 and self.text[s:e] == ch:
            self.run(s, e)
            return
        self._at.append(self._n)
        self._start.append(s)
        self._end.append(e)
        self._char.append(ord(ch))
        self._n += 1

    def last(self) -> tuple[str, int]:
        """The last character and where its source starts."""
        if self._char[-1] == -1:
            k = self._end[-1] - 1
            return self.text[k], k
        return chr(self._char[-1]), self._start[-1]

    def pop(self) -> None:
        if self._char[-1] == -1 and self._end[-1] - self._start[-1] > 1:
            self._end[-1] -= 1
        else:
            for column in (self._at, self._start, self._end, self._char):
                column.pop()
        self._n -= 1

    def __getitem__(self, k: int) -> tuple[int, int]:
        if k < 0:
            k += self._n
        if not 0 <= k < self._n:
            raise IndexError("list index out of range")
        j = bisect_right(self._at, k) - 1
        if self._char[j] == -1:
            s = self._start[j] + k - self._at[j]
            return s, s + 1
        return self._start[j], self._end[j]

    def decoded(self) -> str:
        text = self.text
        return "".join(text[s:e] if c == -1 else chr(c) for s, e, c in zip(self._start, self._end, self._char, strict=True))


# Where a verbatim run stops: the characters each style treats specially.
_PLAIN_STOP = re.compile(r"[\r\n]")
_SINGLE_STOP = re.compile(r"['\r\n]")
_DOUBLE_STOP = re.compile(r"[\\\r\n]")


def _run_to(stop: re.Pattern[str], text: str, i: int, end: int, m: _Map) -> int:
    """Copy text[i:] up to the next special character (or `end`); returns its index."""
    found = stop.search(text, i, end)
    j = found.start() if found else end
    m.run(i, j)
    return j


def _fold_lines(text: str, i: int, end: int, m: _Map) -> int:
    """At a line break inside a flow scalar (plain or quoted) at index i: fold it. Returns the new index."""
    brk = i
    breaks = 0
    while i < end and text[i] in " \t\r\n":
        if text[i] == "\n" or (text[i] == "\r" and not text.startswith("\r\n", i)):
            breaks += 1
        i += 1
    if breaks <= 1:
        m.append(" ", brk, brk + 1)
    else:
        for _ in range(breaks - 1):
            m.append("\n", brk, brk + 1)
    return i


def _decode_plain(text: str, a: int, b: int) -> _Map:
    m = _Map(text)
    i = a
    while i < b:
        c = text[i]
        if c in _BREAKS:
            # trailing spaces before the break are not content
            while m and m.last()[0] in " \t" and m.last()[1] >= a:
                m.pop()
            i = _fold_lines(text, i, b, m)
            continue
        i = _run_to(_PLAIN_STOP, text, i, b, m)
    return m


def _decode_single(text: str, a: int, b: int) -> _Map:
    m = _Map(text)
    i = a + 1
    end = b - 1
    while i < end:
        c = text[i]
        if c == "'":
            if text[i + 1:i + 2] == "'":
                m.append("'", i, i + 2)
                i += 2
            else:
                m.run(i, i + 1)
                i += 1
            continue
        if c in _BREAKS:
            while m and m.last()[0] in " \t":
                m.pop()
            i = _fold_lines(text, i, end, m)
            continue
        i = _run_to(_SINGLE_STOP, text, i, end, m)
    return m


_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
            "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}


def _decode_double(text: str, a: int, b: int) -> _Map:
    m = _Map(text)
    i = a + 1
    end = b - 1
    while i < end:
        c = text[i]
        if c == "\\":
            e = text[i + 1:i + 2]
            if e in _ESCAPES:
                m.append(_ESCAPES[e], i, i + 2)
                i += 2
                continue
            if e in _HEX:
                n = _HEX[e]
                h = text[i + 2:i + 2 + n]
                try:
                    ch = chr(int(h, 16))
                except ValueError:
                    raise _NoMap from None
                m.append(ch, i, i + 2 + n)
                i += 2 + n
                continue
            if e in _BREAKS:  # escaped line break: joins lines without a space
                i += 1
                i += 2 if text.startswith("\r\n", i) else 1
                while i < end and text[i] in " \t":
                    i += 1
                continue
            raise _NoMap
        if c in _BREAKS:
            while m and m.last()[0] in " \t" and text[m.last()[1]] != "\\":
                m.pop()
            i = _fold_lines(text, i, end, m)
            continue
        i = _run_to(_DOUBLE_STOP, text, i, end, m)
    return m


def _block_lines(text: str, a: int, b: int) -> tuple[list[tuple[int, int]], int | None, str]:
    """Content lines (start, end) of a block scalar whose indicator is at `a`; with the explicit indent and chomping."""
    nl = text.find("\n", a)
    header = text[a + 1:nl if nl != -1 else b].split("#", 1)[0].strip()
    indent = None
    chomp = ""
    for ch in header:
        if ch.isdigit():
            indent = int(ch)
        elif ch in "+-":
            chomp = ch
    lines = []
    i = nl + 1 if nl != -1 else b
    while i < b:
        j = text.find("\n", i)
        if j == -1 or j > b:
            j = b
        e = j - 1 if j > i and text[j - 1] == "\r" else j
        lines.append((i, e))
        i = j + 1
    return lines, indent, chomp


def _decode_block(text: str, a: int, b: int, folded: bool, parent_indent: int) -> _Map:
    lines, explicit, _chomp = _block_lines(text, a, b)
    if explicit is not None:
        indent = parent_indent + explicit
    else:
        indent = None
        for s, e in lines:
            stripped = text[s:e].lstrip(" ")
            if stripped:
                indent = len(text[s:e]) - len(stripped)
                break
        if indent is None:
            return _Map(text)
    m = _Map(text)
    prev_kind = None  # "normal", "more" (more indented or starting with a tab) or "empty"
    pending_breaks: list[int] = []  # indices of line ends not yet emitted
    for s, e in lines:
        line = text[s:e]
        if len(line) - len(line.lstrip(" ")) < indent and line.strip(" ") != "":
            break  # end of the scalar (should not happen inside the value's span)
        content_start = min(s + indent, e)
        is_empty = text[content_start:e] == "" or (line.strip(" ") == "" and len(line) <= indent)
        kind = "empty" if is_empty else ("more" if text[content_start:content_start + 1] in " \t" else "normal")
        if kind != "empty" and m or (kind != "empty" and pending_breaks):
            # emit the breaks between the previous content line and this one
            if folded and prev_kind == "normal" and kind == "normal":
                if len(pending_breaks) == 1:
                    m.append(" ", pending_breaks[0], pending_breaks[0] + 1)
                else:
                    for p in pending_breaks[1:]:
                        m.append("\n", p, p + 1)
            else:
                for p in pending_breaks:
                    m.append("\n", p, p + 1)
            pending_breaks = []
        elif kind != "empty" and not m and pending_breaks:
            pass
        if kind != "empty":
            m.run(content_start, e)
            prev_kind = kind
        pending_breaks.append(e)
    # trailing breaks: clip/keep/strip do not matter for ranges inside the content
    for p in pending_breaks:
        m.append("\n", p, p + 1)
    return m


class _NoMap(Exception):
    pass


def string_span(doc: Document, path: Path, start: int, end: int) -> Span:
    """Where characters [start, end) of the string value at `path` stand in the file.

    Offsets index the *parsed* string. Falls back to the value's span whenever the
    mapping cannot be made exact (unknown style, value changed, no text ...).
    """
    node = doc.positions.get(path)
    fallback = doc.locate(path)
    if node is None or doc.text is None:
        return fallback
    value = _value_at(doc.data, path)
    if not isinstance(value, str) or not (0 <= start <= end <= len(value)):
        return fallback
    text = doc.text
    span = node.value
    a = _offset(text, span.line, span.column)
    b = _offset(text, span.end_line, span.end_column)
    if a is None or b is None or not (0 <= a <= b <= len(text)):
        return fallback
    style = doc.scalar_styles.get(path, _Missing) if doc.scalar_styles is not None else _Missing
    if style is _Missing:
        # JSON or a value without a recorded style: guess from the source.
        first = text[a:a + 1]
        style = first if first in ("'", '"', "|", ">") else None
    try:
        if style is None:
            src = _decode_plain(text, a, b)
        elif style == "'":
            src = _decode_single(text, a, b)
        elif style == '"':
            src = _decode_double(text, a, b)
        elif style in ("|", ">"):
            parent_indent = _parent_indent(doc, path, text)
            src = _decode_block(text, a, b + 1 if b < len(text) else b, style == ">", parent_indent)
        else:
            return fallback
    except (_NoMap, IndexError, ValueError):
        return fallback
    decoded = src.decoded()
    if style in ("|", ">"):
        ok = decoded.rstrip("\n") == value.rstrip("\n") and len(src) >= len(value.rstrip("\n"))
    else:
        ok = decoded == value
    if not ok:
        return fallback
    if start == end:
        if start < len(src):
            line, col = _pos(text, src[start][0])
        elif src:
            line, col = _pos(text, src[-1][1])
        else:
            return fallback
        return Span(line, col, line, col)
    if end > len(src):
        return fallback
    l1, c1 = _pos(text, src[start][0])
    l2, c2 = _pos(text, src[end - 1][1])
    return Span(l1, c1, l2, c2)


class _MissingType:
    pass


_Missing: Any = _MissingType()


def _value_at(data: Any, path: Path) -> Any:
    try:
        for p in path:
            data = data[p]
    except (KeyError, IndexError, TypeError):
        return None
    return data


def _parent_indent(doc: Document, path: Path, text: str) -> int:
    """Indentation (in columns) of the node that owns a block scalar: the base for an explicit indent indicator."""
    node = doc.positions.get(path)
    if node is not None and node.key is not None:
        ls = _offset(text, node.key.line, 1) or 0
        line = text[ls:text.find("\n", ls) if text.find("\n", ls) != -1 else len(text)]
        stripped = line.lstrip(" -")
        return len(line) - len(stripped) if not line.lstrip(" ").startswith("-") else node.key.column - 1
    if node is not None:
        return node.value.column - 1
    return 0
