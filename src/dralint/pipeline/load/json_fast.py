"""JSON documents read by json's C decoder, and their positions found a path at a time.

json_reader.read_json asks `Documents.decode` for each document of a stream first. Where only
the position-keeping parser (json_reader._Parser) can say what a document holds or what is wrong
with it, `decode` answers None and that document alone is read by the parser: a repeated key, a
number beyond a 64-bit float or of more than 20 digits, NaN or Infinity, an escaped surrogate
(the parser makes a lone one U+FFFD, json keeps it), a document past MAX_NODES or MAX_DEPTH, and
anything that is not JSON. What must stay true: a document `decode` accepts is one the parser
reads to the same value, with no problem, ending at the same index (tests/test_json_fast.py
compares the two on every JSON fixture and on generated documents).

`Seek` positions such a document only when asked, as the YAML replays do: a path at a time,
scanning with json's C scanner only the containers on the way to it (each once; their members'
places are kept), and the whole table, when it is read whole, by the parser's own replay.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import math
import re

from ...lines import LineTable
from ...model import Node, Path, Span
from .lazy_table import ABSENT, MISS, Tables
from .result import MAX_DEPTH, MAX_NODES

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["Documents", "Seek", "within_limits"]

_WS = re.compile(r"[ \t\r\n]*")
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # an escaped surrogate (or a `\\` before `ud8..`: read by the parser)
_MAX_INT_DIGITS = 20  # as json_reader: more digits are read as a float, which only the parser reports
# Characters decoded at once while the rest of the text may hold MAX_NODES values or more (see Documents):
# a few objects a character at most, so a few MB; a longer document there is read by the parser.
_WINDOW = 4 * MAX_NODES
_FIRST_WINDOW = 4096


class _Unsure(Exception):
    """What the decoder met is for the parser to read (and maybe report)."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _Unsure  # a repeated key: DRA002, with where it was first defined
    return d


def _float(token: str) -> Any:
    v = float(token)
    if math.isinf(v):
        raise _Unsure  # DRA001, beyond a 64-bit float
    if v.is_integer() and -1e21 < v < 1e21:
        return int(v)  # as json_reader._Parser.number
    return v


def _int(token: str) -> int:
    if len(token) > _MAX_INT_DIGITS and len(token.lstrip("-")) > _MAX_INT_DIGITS:
        raise _Unsure
    return int(token)


def _constant(_: str) -> Any:
    raise _Unsure  # NaN, Infinity, -Infinity: not JSON to the parser


# json's own int() for integers, unless the text has a run of more digits than an integer may have
# (_long_digit_run): a Python call per integer would be most of the cost of an array of them (docs/performance.md).
_SCAN = json.scanner.make_scanner(json.JSONDecoder(object_pairs_hook=_pairs, parse_float=_float,
                                                   parse_constant=_constant))
_SCAN_LONG = json.scanner.make_scanner(json.JSONDecoder(object_pairs_hook=_pairs, parse_float=_float, parse_int=_int,
                                                        parse_constant=_constant))
_SKIP = json.scanner.make_scanner(json.JSONDecoder())  # values Seek steps over: their text, already decoded once
_SCANSTRING = json.decoder.scanstring


def within_limits(value: Any) -> bool:
    """Whether `value` has at most MAX_NODES values and containers less than MAX_DEPTH deep, as _Parser counts."""
    nodes = 1
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        if depth >= MAX_DEPTH:
            return False
        deeper = []
        for container in level:
            children = container.values() if type(container) is dict else container
            nodes += len(children)
            if nodes > MAX_NODES:
                return False
            deeper.extend(c for c in children if type(c) is dict or type(c) is list)
        level = deeper
        depth += 1
    return True


# UTF-8 bytes -> "0" for an ASCII digit (no other byte of UTF-8 is one), " " for any other byte
_DIGITS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_RUN = b"0" * (_MAX_INT_DIGITS + 1)
_CHUNK = 1 << 20


def _long_digit_run(text: str) -> bool:
    """Whether `text` has more digits in a row than an integer `_Parser` reads as one (in a number or a
    string alike). A megabyte at a time, by bytes.translate: a regex is many times slower (docs/performance.md)."""
    for k in range(0, len(text), _CHUNK):
        if _RUN in text[k:k + _CHUNK + _MAX_INT_DIGITS].encode("utf-8", "surrogatepass").translate(_DIGITS):
            return True
    return False


def _separators(text: str, start: int, end: int | None = None) -> int:
    """A bound on the values in text[start:end]: every value but the first of a container follows a comma
    (commas and brackets in strings only make it larger)."""
    return text.count(",", start, end) + text.count("[", start, end) + text.count("{", start, end)


class Documents:
    """Decodes the documents of one JSON text, in order, with json's C decoder."""

    __slots__ = ("text", "rest", "window", "scan")

    def __init__(self, text: str) -> None:
        self.text = text
        # A bound on the values from the next document to the end of the text. While it is MAX_NODES or more,
        # a document is decoded from a window of the text, at most _WINDOW characters: decoded whole, a
        # hostile 16 MB of `[{},{},...` would build millions of objects the parser never builds.
        self.rest = _separators(text, 0)
        self.window = _FIRST_WINDOW
        self.scan = _SCAN_LONG if _long_digit_run(text) else _SCAN

    def read(self, start: int, end: int) -> None:
        """The document text[start:end] was read (by `decode` or the parser)."""
        if self.rest >= MAX_NODES:
            self.rest -= _separators(self.text, start, end)

    def decode(self, i: int) -> tuple[Any, int] | None:
        """(value, where it ends) of the document at i, or None when only the parser can read it."""
        text = self.text
        if self.rest < MAX_NODES:
            got = _decoded(self.scan, text, i)
        else:
            got = self._windowed(i)
        if got is None:
            return None
        value, end = got
        if _SURROGATE.search(text, i, end) is not None:
            return None
        if text.count("[", i, end) + text.count("{", i, end) >= MAX_DEPTH or \
                (self.rest >= MAX_NODES and _separators(text, i, end) >= MAX_NODES):
            if not within_limits(value):
                return None
        return value, end

    def _windowed(self, i: int) -> tuple[Any, int] | None:
        """The document at i decoded from text[i:i + w], w growing while the document goes past the window."""
        text = self.text
        w = self.window
        while True:
            piece = text[i:i + w]
            cut = i + w < len(text)
            try:
                value, end = self.scan(piece, 0)
            except _Unsure:
                return None
            except (StopIteration, ValueError, RecursionError):
                end = len(piece)  # maybe cut short by the window
            else:
                if not cut or end < len(piece):  # a number at the window's edge may go on past it
                    self.window = max(_FIRST_WINDOW, 2 * end)
                    return value, i + end
            if not cut or w >= _WINDOW:
                return None
            w = min(4 * w, _WINDOW)


def _decoded(scan: Callable[[str, int], tuple[Any, int]], text: str, i: int) -> tuple[Any, int] | None:
    try:
        return scan(text, i)
    except (StopIteration, ValueError, RecursionError, _Unsure):  # ValueError: JSONDecodeError too
        return None


class Seek:
    """The positions and styles of one document `Documents.decode` read.

    Called, the whole tables from `replay` (json_reader's parser, read again). `lookup` and `style`
    answer one path without it: a Node (or '"'), ABSENT where the document has no such path (or no
    string there), MISS where only the whole table can say (a step that is neither a key nor an
    index, or anything unexpected: the replay stays the authority).
    """

    __slots__ = ("text", "lines", "start", "end", "replay", "_members")

    def __init__(self, text: str, lines: LineTable, start: int, end: int, replay: Callable[[], Tables]) -> None:
        self.text = text
        self.lines = lines
        self.start = start
        self.end = end
        self.replay = replay
        # path of a container scanned -> its members: key -> (key start, key end, value start, value end) for
        # an object, [(value start, value end), ...] for an array
        self._members: dict[Path, Any] = {}

    def __call__(self) -> Tables:
        return self.replay()

    def item(self, n: int, whole: Callable[[], Tables]) -> Callable[[], Tables]:
        """The tables of item n of this `kind: List` document: sought in the item's own text (its paths are
        the item's), `whole` when read whole."""
        at = self._find(("items", n))
        return Seek(self.text, self.lines, at[2], at[3], whole) if type(at) is tuple else whole

    def lookup(self, path: Any) -> Any:
        at = self._find(path)
        if at is MISS or at is ABSENT:
            return at
        position = self.lines.position
        ks, ke, vs, ve = at
        key = Span(*position(ks), *position(ke)) if ks >= 0 else None
        return Node(key, Span(*position(vs), *position(ve)))

    def style(self, path: Any) -> Any:
        at = self._find(path)
        if at is MISS or at is ABSENT:
            return at
        return '"' if self.text[at[2]] == '"' else ABSENT

    def _find(self, path: Any) -> Any:
        """(key start or -1, key end, value start, value end) of `path` in the text, ABSENT or MISS."""
        if type(path) is not tuple:
            return MISS
        at = (-1, -1, self.start, self.end)
        members_of = self._members
        for n, step in enumerate(path):
            prefix = path[:n]
            members = members_of.get(prefix)
            if members is None:
                try:
                    members = self._scan(at[2])
                except Exception:  # noqa: BLE001 - not expected of a decoded document: the replay will say
                    return MISS
                if members is None:
                    return ABSENT  # a scalar has nothing below it
                members_of[prefix] = members
            # A key is a str and an index an int (True is 1, as in a dict of paths); what else a step
            # might equal is for the whole table to say.
            if isinstance(step, str):
                at = members.get(step, ABSENT) if type(members) is dict else ABSENT
            elif isinstance(step, int):
                at = (-1, -1, *members[step]) if type(members) is list and 0 <= step < len(members) else ABSENT
            else:
                return MISS
            if at is ABSENT:
                return ABSENT
        return at

    def _scan(self, i: int) -> Any:
        """The members of the object or array at i (None for a scalar), each value stepped over by the C scanner."""
        text, ws, skip = self.text, _WS.match, _SKIP
        c = text[i]
        if c == "{":
            members: dict[str, tuple[int, int, int, int]] = {}
            i = ws(text, i + 1).end()
            if text[i] == "}":
                return members
            while True:
                key, ke = _SCANSTRING(text, i + 1, True)
                vs = ws(text, ws(text, ke).end() + 1).end()  # past the colon
                ve = skip(text, vs)[1]
                members[key] = (i, ke, vs, ve)
                i = ws(text, ve).end()
                if text[i] == "}":
                    return members
                i = ws(text, i + 1).end()  # past the comma
        if c == "[":
            items: list[tuple[int, int]] = []
            i = ws(text, i + 1).end()
            if text[i] == "]":
                return items
            while True:
                ve = skip(text, i)[1]
                items.append((i, ve))
                i = ws(text, ve).end()
                if text[i] == "]":
                    return items
                i = ws(text, i + 1).end()
        return None
