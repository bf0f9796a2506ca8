"""The position table of one YAML document: where each field path stands, built when first read.

The main pass (yaml_reader.py) keeps no events: keeping them costs time and
memory for every document. When a document's positions are first read (it
has a problem to report), `Replay` re-parses that document's own slice of the
text and builds the table and the scalar styles.

What must stay true: a document without a problem costs no position work, and
memory does not grow with the documents a run has seen (bench/bench.py,
bench/memory.py). So the main pass keeps no events (retained events cost more
than the re-parse, and `--select DRA1` reads no position at all), positions are
not built eagerly, and the re-parse is per document, not per file (a file's
other documents may need no table).

A path at a time (`Replay.lookup`, what `Document.positions.get(path)` uses):
problems are positioned a document at a time, and their paths are on average
half-way into their document, so the replay stops once the asked path is in the
table and goes on from there for the next one; one stopped replay is held (the
last one asked), any other is dropped and starts over if asked again. The table
itself is only built whole when it is read whole (iterated, or a path that is not
in it). The figures behind these choices are in docs/performance.md.

A replay that fails (a bug) leaves a table that only knows the document's
start, and says so: a DRA901 in `LoadResult.late_problems`.

Some paths need no replay at all: the main pass keeps the key and value events
of the fields load's `positioned` names (what the active run-scope rules
declare they place in every claim and pod, problem or not), and `lookup`
answers from them where the replay's own fast path would have built the same
spans (a plain key, a plain or quoted value; no anchors, merges or repeated
keys in the document, no odd line breaks in the file).
"""

from __future__ import annotations

from ...model import Node, Path, Span
from .backend import Backend, current
from .lazy_table import MISS, Tables
from .result import Sink, problem
from .scalars import NUMBER_START, WORDS, key_string, resolve_plain, scalar_value

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

__all__ = ["Replay", "ReplayFile"]

_NOKEY = object()  # no key read yet in the current mapping
_SKIP = object()  # the key was rejected: nothing under it has a path
_MERGE = object()  # the `<<` merge key
# The one replay kept stopped part of the way: a document's paths are asked for together, and a stopped
# replay holds a parser (~10 KB), so holding one per document would cost memory that grows with the run.
_HELD: list = [None]
_DROPPED = object()  # Replay._pos of a replay that was stopped part of the way and dropped


def _line_start(text: str, end: int) -> int:
    """Offset just after the last line break before `end` (0 if none). Searched back a window at a
    time, each twice the last: a block scalar at the end of a megabyte-long line costs that line at
    C speed, one in a file of short lines costs its own line, never the file."""
    window, stop = 256, end
    while stop > 0:
        start = max(0, stop - window)
        found = max(text.rfind(c, start, stop) for c in "\r\n\x85\u2028\u2029")
        if found != -1:
            return found + 1
        stop, window = start, window * 2
    return 0


def _hold(replay: "Replay") -> None:
    held = _HELD[0]
    if held is not replay:
        if held is not None:
            held.drop()
        _HELD[0] = replay


class ReplayFile:
    """What the replays of one file share. Deliberately not the Sink: a replay lives as long as its
    document, and a reference back to the load result would make every result a reference cycle,
    which only the cyclic garbage collector can free."""

    __slots__ = ("b", "lines", "source", "late")

    def __init__(self, b: Backend, sink: Sink) -> None:
        self.b = b
        self.lines = sink.lines
        self.source = sink.source
        self.late = sink.result.late_problems


class Replay:
    """Computes positions and scalar styles of one YAML document, when first called."""

    __slots__ = ("b", "file", "data", "start", "line", "column", "end", "doc_index", "result", "known", "_first",
                 "_wanted", "_anchors", "_steps", "_pos", "_styles", "_want")

    def __init__(self, file: ReplayFile, data: Any, start: int, line: int, column: int, end: int,
                 doc_index: int) -> None:
        # Built for every document: keep this cheap, the rest is set up in __call__.
        self.b = file.b
        self.file = file
        self.data = data
        self.start = start  # character index in the text where the document's slice starts
        self.line = line  # its 0-based line in the file (parser coordinates)
        self.column = column  # and column
        self.end = end
        self.doc_index = doc_index
        self.result: Tables | None = None
        # What the main pass kept of the `positioned` fields: (its chunk's first line, (id(mapping),
        # key) -> (mapping, key event, value event)); a plain key with a plain or quoted value is answered
        # from them, without a replay.
        self.known: tuple[int, dict[tuple[int, str], tuple[dict, Any, Any]]] | None = None
        # Where repeated keys were first seen: only tracked for a document known to have some (see
        # first_lines), which saves a dict per mapping and a look-up per key in every other one.
        self._first: dict[tuple[int, int], int] | None = None
        self._wanted: set[tuple[int, int]] = set()
        self._steps: Any = None  # the replay (a generator) while it is stopped part of the way (see lookup)
        self._pos: Any = None  # its table so far; _DROPPED once it was dropped

    def __call__(self) -> Tables:
        if self.result is None:
            self._want = None
            self._advance()
        return self.result

    def lookup(self, path: Path) -> Any:
        """The Node at `path`, reading the document only as far as that; MISS when the whole table must be read.

        Entries are never changed once made (repeated keys, which would change one, are replayed in full at
        load), so what a stopped replay has is what the whole table will have.
        """
        if self.result is not None:
            return self.result[0].get(path, MISS)
        if self.known is not None and path:
            node = self._kept(path)
            if node is not None:
                return node
        if self.file.lines.odd or self.b.pure:
            # Odd line breaks: positions are converted once the table is complete. The pure-Python parser
            # is a reference cycle: held, it would outlive its load and leave garbage for the collector.
            return MISS
        pos, steps = self._pos, self._steps
        if steps is None and pos is _DROPPED:
            # Asked again after it was dropped: read it whole, so that look-ups that hop between documents
            # cost at most a partial and a whole replay of each, not one partial replay per look-up.
            self()
            return self.result[0].get(path, MISS)
        node = pos.get(path) if steps is not None and type(pos) is dict else None
        if node is None:
            self._want = path
            pos = self._advance()
            if pos is None:  # the document's end: the table is complete
                return self.result[0].get(path, MISS)
            node = pos[path]
        _hold(self)
        return node

    def _kept(self, path: Path) -> Node | None:
        """The Node of `path` from the main pass's events, when they give what a replay would (its fast paths)."""
        lo, known = self.known
        parent = self._parent(path)
        kept = known.get((id(parent), path[-1]))
        if kept is None or kept[0] is not parent:
            return None
        _, kev, ev = kept
        if kev.__class__ is not self.b.Scalar or kev.style or kev.ctag is not None or kev.anchor is not None \
                or ev.ctag is not None or ev.anchor is not None or ev.style in ("|", ">") or not (ev.style or ev.value):
            return None
        ks, ke, vs, ve = kev.start_mark, kev.end_mark, ev.start_mark, ev.end_mark
        return Node(Span(ks.line + 1 + lo, ks.column + 1, ke.line + 1 + lo, ke.column + 1),
                    Span(vs.line + 1 + lo, vs.column + 1, ve.line + 1 + lo, ve.column + 1))

    def _parent(self, path: Path) -> Any:
        """The data holding the last step of `path` (None where the document has no such place)."""
        node = self.data
        for step in path[:-1]:
            if type(step) is int:
                node = node[step] if type(node) is list and 0 <= step < len(node) else None
            else:
                node = node.get(step) if type(node) is dict else None
        return node

    def _advance(self) -> dict | None:
        """Replay until `self._want` is in the table (its table then) or to the end (None; `result` is set)."""
        if self._steps is None:
            self._pos, self._styles, self._anchors = {}, {}, {}
        pos, styles = self._pos, self._styles  # this very table, even if another replay drops this one meanwhile
        try:
            if self._steps is None:
                self._steps = self._run()
            next(self._steps)
            return pos
        except StopIteration:
            if self.file.lines.odd:
                inside = self.file.lines.inside
                pos = {p: Node(inside(n.key) if n.key is not None else None, inside(n.value))
                       for p, n in pos.items()}
            self.result = (pos, styles)
        except Exception as e:  # noqa: BLE001 - a bug here must not cost the run: said, not raised
            start = self.file.lines.inside(Span.point(self.line + 1, self.column + 1))
            self.result = ({(): Node(None, start)}, {})
            self.file.late.append(problem(
                "DRA901", f"the positions of this document could not be computed ({type(e).__name__}: {e}); "
                "its problems are reported at its start; please report it", self.file.source, self.doc_index,
                start))
        self.drop()
        return None

    def drop(self) -> None:
        """Forget a replay stopped part of the way (its parser and partial table); it starts over if asked again."""
        self._steps = self._styles = None
        self._pos = _DROPPED
        if _HELD[0] is self:
            _HELD[0] = None

    def first_lines(self, wanted: set[tuple[int, int]]) -> dict[tuple[int, int], int]:
        """(line, column) of each `wanted` repeated key -> line of the key's first occurrence in its mapping."""
        self._first = {}
        self._wanted = wanted
        self.result = None
        self.drop()
        self()
        return self._first

    def _parser(self) -> tuple[Backend, Any]:
        """The backend whose event classes a parser made now uses, and that parser's `get_event`, over
        the document's slice: spaces stand in for what precedes it on its first line, so columns stay right."""
        b = current(self.b)
        return b, b.make_parser(" " * self.column + self.file.lines.text[self.start:self.end]).get_event

    def _run(self) -> Iterator[None]:
        """Replay the document's events into `_pos` and `_styles`, pausing whenever `_want` is found.

        Invariants: `path` is the path of the collection being read and `stack` holds, per open
        collection, its parent's loop state and its own start event (`_close` reads it); in a mapping,
        `key` is NOKEY between entries, SKIP or MERGE for a dropped or `<<` key, else the key whose value
        comes next (at `key_span`); `last_end` is the span of the last event placed (only its end is
        read). One frame but for rare values and collection ends; Span and Node are built with
        `tuple.__new__` (a NamedTuple's __new__ is a Python function). Guarded by bench/bench_load.py
        --positions.
        """
        b, get = self._parser()
        Scalar, Alias, MapStart, MapEnd, SeqStart, SeqEnd, DocEnd, StreamEnd = b.Scalar, b.Alias, b.MapStart, b.MapEnd, b.SeqStart, b.SeqEnd, b.DocEnd, b.StreamEnd
        tnew, SpanT, NodeT = tuple.__new__, Span, Node
        NOKEY, SKIP, MERGE, words, number_start = _NOKEY, _SKIP, _MERGE, WORDS, NUMBER_START
        lo1 = self.line + 1  # 1-based line of the slice's first line
        pos, styles, stack, path, want = self._pos, self._styles, [], (), self._want
        is_map, had_child, in_root, idx = False, False, True, 0
        key, key_span, merges, seen = NOKEY, None, None, None  # seen: keys of a mapping -> line, if tracked
        last_end: tuple = (0, 0, 1, 1)  # only [2] and [3] (end line, end column) are read
        while True:
            if want in pos:  # stop here until the next path is asked for (see lookup)
                yield
                want = self._want
            ev = get()
            cls = ev.__class__
            if cls is Scalar:
                # Fast path (bench_load --positions): a plain text key, not `<<`, repeated keys not tracked.
                if is_map and key is NOKEY and seen is None and ev.ctag is None and ev.anchor is None \
                        and not ev.style:
                    v = ev.value
                    if v not in words and v[0] not in number_start and v != "<<":
                        sm, em = ev.start_mark, ev.end_mark
                        key = v
                        key_span = last_end = tnew(SpanT, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
                        continue
            elif cls is MapEnd or cls is SeqEnd:
                span = self._close(ev, stack[-1][9], had_child, last_end, merges, path, pos, lo1)
                npath = path
                path, is_map, key, key_span, idx, in_root, merges, nkey_span, seen, _sev = stack.pop()
                pos[npath] = tnew(NodeT, (nkey_span, span))
                last_end = span
                had_child = True
                continue
            elif cls is DocEnd or cls is StreamEnd:
                return
            elif cls is not Alias and cls is not MapStart and cls is not SeqStart:
                continue
            if is_map:
                if key is NOKEY:
                    key, key_span, end = self._key(ev, cls, get, seen, lo1)
                    last_end = end or last_end
                    continue
                if key is SKIP or key is MERGE:
                    merges, last_end = self._unkeyed(ev, cls, get, key is MERGE, merges, last_end, lo1)
                    key = NOKEY
                    continue
                npath = path + (key,)
                nkey_span = key_span
                key = NOKEY
            elif in_root:
                npath, nkey_span, in_root = (), None, False
            else:
                npath = path + (idx,)
                idx += 1
                nkey_span = None
            if cls is MapStart or cls is SeqStart:
                stack.append((path, is_map, key, key_span, idx, in_root, merges, nkey_span, seen, ev))
                path = npath
                is_map = cls is MapStart
                seen = {} if is_map and self._first is not None else None
                key, key_span, idx, merges, had_child = NOKEY, None, 0, None, False
                continue
            had_child = True
            # Fast path, as in _value: a plain (but not empty) or quoted scalar with no tag or anchor.
            if cls is Scalar and ev.ctag is None and ev.anchor is None:
                v, style = ev.value, ev.style
                if (style or v) and style != "|" and style != ">":
                    if style:
                        styles[npath] = style
                    elif v not in words and (v[0] not in number_start or type(resolve_plain(v)) is str):
                        styles[npath] = None
                    sm, em = ev.start_mark, ev.end_mark
                    last_end = tnew(SpanT, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
                    pos[npath] = tnew(NodeT, (nkey_span, last_end))
                    continue
            last_end = self._value(ev, cls is Alias, npath, nkey_span, pos, styles, lo1) or last_end

    def _value(self, ev: Any, alias: bool, path: Path, key_span: Span | None, pos: dict, styles: dict,
               lo1: int) -> Span | None:
        """Record where a scalar or alias value stands (and a string's style); its span, None if it is empty."""
        sm, em = ev.start_mark, ev.end_mark
        if alias:
            span = tuple.__new__(Span, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
            pos[path] = tuple.__new__(Node, (key_span, span))
            self._walk_alias(pos, path, self._data_at(path), span)
            return span
        v, tag, style = ev.value, ev.ctag, ev.style
        if ev.anchor is not None:
            self._anchors[ev.anchor] = scalar_value(v, tag, style)[0]
        if tag is None and not style:  # plain
            if not v:  # nothing: the parsers disagree on where; after the key (normally the colon), or here
                at = (key_span[2], key_span[3]) if key_span is not None else (sm.line + lo1, sm.column + 1)
                pos[path] = tuple.__new__(Node, (key_span, self._empty_value(*at)))
                return None
            if v not in WORDS and (v[0] not in NUMBER_START or type(resolve_plain(v)) is str):  # text, as in
                styles[path] = None  # yaml_reader: resolve_plain is only called when it can be a number
            end = (em.line + lo1, em.column + 1)
        else:
            if tag is None or type(scalar_value(v, tag, style)[0]) is str:
                styles[path] = style or None
            end = self._block_end(em, lo1) if style == "|" or style == ">" else (em.line + lo1, em.column + 1)
        span = tuple.__new__(Span, (sm.line + lo1, sm.column + 1, end[0], end[1]))
        pos[path] = tuple.__new__(Node, (key_span, span))
        return span

    def _close(self, ev: Any, start_ev: Any, had_child: bool, last_end: tuple, merges: list | None, path: Path,
               pos: dict, lo1: int) -> Span:
        """The span of a collection that ends with `ev`: a block one ends where its last value does."""
        sm = start_ev.start_mark
        if merges:
            self._apply_merges(pos, path, merges)
        if start_ev.flow_style or not had_child:
            em = ev.end_mark
            return tuple.__new__(Span, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
        return tuple.__new__(Span, (sm.line + lo1, sm.column + 1, last_end[2], last_end[3]))

    def _key(self, ev: Any, cls: Any, get: Any, seen: dict | None, lo1: int) -> tuple[Any, Any, Any]:
        """(key, its span, where the last thing ended or None) for the event at a mapping key's place."""
        b = self.b
        sm, em = ev.start_mark, ev.end_mark
        if cls is b.MapStart or cls is b.SeqStart:  # a collection as a key: dropped, with everything in it
            return _SKIP, None, self._skip_value(ev, cls, get, lo1)
        span = tuple.__new__(Span, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
        if cls is b.Alias:
            k = self._anchors.get(ev.anchor, _SKIP)
            end = span
        else:
            k = ev.value if ev.style else resolve_plain(ev.value) if ev.ctag is None else \
                scalar_value(ev.value, ev.ctag, ev.style)[0]
            if ev.anchor is not None:
                self._anchors[ev.anchor] = k
            if k == "<<" and ev.ctag is None and not ev.style:
                k = _MERGE
            end = span if ev.value or ev.style else None  # an empty key has no reliable place
        if type(k) is not str and k is not _MERGE and k is not _SKIP:
            k = key_string(k)
            if k is None:
                k = _SKIP
        if seen is not None and type(k) is str:
            if k not in seen:
                seen[k] = span[0]
            elif (span[0], span[1]) in self._wanted:
                self._first[(span[0], span[1])] = seen[k]
        return k, span, end

    def _empty_value(self, line: int, column: int) -> Span:
        """One character at (line, column), or none when that is the end of the file."""
        lines = self.file.lines
        end = column + 1 if lines.odd else lines.clamp(line, column + 1)[1]
        return Span(line, column, line, end)

    def _skip_value(self, ev: Any, cls: Any, get: Any, lo1: int) -> tuple | None:
        """Read past a value nothing is recorded for; where it ends, or None when it has no reliable place."""
        b = self.b
        if cls is b.Scalar:
            if ev.anchor is not None:
                self._anchors[ev.anchor] = scalar_value(ev.value, ev.ctag, ev.style)[0]
            return (0, 0, ev.end_mark.line + lo1, ev.end_mark.column + 1) if ev.value or ev.style else None
        if cls is b.Alias:
            return (0, 0, ev.end_mark.line + lo1, ev.end_mark.column + 1)
        depth = 1
        while depth:
            ev = get()
            cls = ev.__class__
            if cls is b.MapStart or cls is b.SeqStart:
                depth += 1
            elif cls is b.MapEnd or cls is b.SeqEnd:
                depth -= 1
            elif cls is b.DocEnd or cls is b.StreamEnd:
                return None
        return (0, 0, ev.end_mark.line + lo1, ev.end_mark.column + 1)

    def _unkeyed(self, ev: Any, cls: Any, get: Any, merge: bool, merges: list | None, last_end: tuple,
                 lo1: int) -> tuple[list | None, tuple]:
        """Read past the value of a dropped or merge key: (the merge sources, where the last thing ended)."""
        if merge:
            merges = self._merge_source(ev, cls, merges, lo1)
        return merges, self._skip_value(ev, cls, get, lo1) or last_end

    def _merge_source(self, ev: Any, cls: Any, merges: list | None, lo1: int) -> list:
        """Remember where a merge key's value stands: merged fields point at it."""
        sm = ev.start_mark
        if cls is self.b.MapStart or cls is self.b.SeqStart:
            span = Span.point(sm.line + lo1, sm.column + 1)
        else:
            span = Span(sm.line + lo1, sm.column + 1, ev.end_mark.line + lo1, ev.end_mark.column + 1)
        return [*(merges or ()), span]

    def _block_end(self, em: Any, lo1: int) -> tuple[int, int]:
        """(line, column) 1-based, exclusive, of the last non-blank character before a block scalar's end mark."""
        text = self.file.lines.text
        i = em.index + self.start - self.column
        line = em.line + lo1
        col = em.column + 1
        j = i
        moved_line = False
        while j > 0 and text[j - 1] in " \t\r\n\x85\u2028\u2029":
            c = text[j - 1]
            if c in "\n\x85\u2028\u2029" or (c == "\r" and (j >= len(text) or text[j] != "\n")):
                line -= 1
                moved_line = True
            j -= 1
        if not moved_line:
            return line, col - (i - j)
        return line, j - _line_start(text, j) + 1

    def _data_at(self, path: Path) -> Any:
        d = self.data
        try:
            for p in path:
                d = d[p]
        except (KeyError, IndexError, TypeError):
            return None
        return d

    def _walk_alias(self, pos: dict, path: Path, value: Any, span: Span) -> None:
        todo = [(path, value)]
        while todo:
            p, v = todo.pop()
            if isinstance(v, dict):
                for k, sub in v.items():
                    q = p + (k,)
                    if q not in pos:
                        pos[q] = Node(span, span)
                    todo.append((q, sub))
            elif isinstance(v, list):
                for i, sub in enumerate(v):
                    q = p + (i,)
                    if q not in pos:
                        pos[q] = Node(None, span)
                    todo.append((q, sub))

    def _apply_merges(self, pos: dict, path: Path, merges: list) -> None:
        target = self._data_at(path)
        if not isinstance(target, dict):
            return
        span = merges[0]
        for k, v in target.items():
            q = path + (k,)
            if q not in pos:
                pos[q] = Node(span, span)
                self._walk_alias(pos, q, v, span)
