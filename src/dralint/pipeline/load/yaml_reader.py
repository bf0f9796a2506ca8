"""YAML text -> documents (plain data), in one pass over libyaml's events.

No composer, no constructor: the event loop builds ``dict``/``list``/scalars
directly. Positions are not built here (see position_table.py); this pass
only records what it must report: bad tags, non-string and repeated keys,
limits, syntax errors.

Keys: Kubernetes objects only have string keys. A key that resolves to
anything else is reported as DRA008 even where sigs.k8s.io/yaml would convert
it (``true:`` -> ``"true"``, ``1:`` -> ``"1"``) since such a conversion is almost
always a surprise; the data keeps the converted string key so later checks see
what the API server sees. ``null`` and collection keys are dropped.

Merge keys (``<<: *base``, or a list of aliases) are applied as YAML 1.1 and
go-yaml do: keys written in the mapping win over merged ones. Aliases are
expanded (the aliased object is shared, treat data as read-only); every node
of the expansion counts towards MAX_NODES.

Documents: the index counts every YAML document of the file, empty ones
included (they are skipped and counted in `LoadResult.empty`). A document that
is `null` (`--- ~`) is not empty: it is a DRA003.

Problems, not exceptions: after a syntax error (DRA001) or a limit (DRA005)
the documents before it are kept and parsing starts again at the next `---`
line (a `---` at column 0 always starts a document, so this is safe). A
resumed parse reads the text through `_TextFrom`, so each resume costs what
it parses, not the rest of the file: many errors stay linear.
"""

from __future__ import annotations

import re

from ...lazy_re import LazyPattern
from ...model import Span
from .backend import Backend, current
from .position_table import Replay, ReplayFile
from .result import MAX_DEPTH, MAX_NODES, MAX_PROBLEMS_PER_DOCUMENT, Sink
from .scalars import NUMBER_START, WORDS, describe, key_string, resolve_plain, resolve_tagged

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["read_yaml"]

_NOKEY = object()  # no key read yet in the current mapping
_SKIP = object()  # the key was rejected: drop its value
_MERGE = object()  # the `<<` merge key
_DOC_MARKER = LazyPattern(r"^---(?=[ \t\r\n]|$)", re.M)  # where to resume after an error: compiled on first use
_READ_AHEAD = 4096  # characters a resumed parser is given per read, at most (and up to a line end)


class _Abort(Exception):
    """A document exceeded a limit: the problem is recorded, skip to its end."""


class _TextFrom:
    """The text from one index on, as the file-like object the parsers read from, a line at a time."""

    __slots__ = ("text", "pos", "name")

    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos
        self.name = "<text>"

    def read(self, size: int = -1) -> str:
        a = self.pos
        line_end = self.text.find("\n", a, a + _READ_AHEAD)
        b = line_end + 1 if line_end != -1 else min(len(self.text), a + _READ_AHEAD)
        self.pos = b
        return self.text[a:b]


class _Chunk:
    """Where one parser run stands in the file: from character `io`, parser line `lo` on."""

    __slots__ = ("sink", "b", "replay_file", "get", "io", "lo", "doc_index")

    def __init__(self, sink: Sink, b: Backend, replay_file: ReplayFile, io: int, lo: int, doc_index: int) -> None:
        self.sink = sink
        self.b = b
        self.replay_file = replay_file
        self.get = b.make_parser(sink.text if io == 0 else _TextFrom(sink.text, io)).get_event
        self.io = io
        self.lo = lo
        self.doc_index = doc_index

    def span(self, ev: Any) -> Span:
        sm, em = ev.start_mark, ev.end_mark
        return Span(sm.line + 1 + self.lo, sm.column + 1, em.line + 1 + self.lo, em.column + 1)

    def point(self, mark: Any) -> Span:
        return Span.point(mark.line + 1 + self.lo, mark.column + 1)

    def add(self, code: str, message: str, span: Span) -> None:
        self.sink.add(code, message, self.doc_index, span)


def read_yaml(sink: Sink, b: Backend) -> None:
    io = lo = doc_index = 0
    b = current(b)
    sink.parser_coordinates = True
    replay_file = ReplayFile(b, sink)
    while True:
        chunk = _Chunk(sink, b, replay_file, io, lo, doc_index)
        resume = _parse_chunk(chunk)
        if resume is None:
            return
        lo += sink.lines.parser_breaks(io, resume)
        io = resume
        doc_index = chunk.doc_index


def _parse_chunk(chunk: _Chunk) -> int | None:
    """Read the documents of one parser run; where to resume (a character index) after an error, or None."""
    b = chunk.b
    DocStart, StreamEnd = b.DocStart, b.StreamEnd
    doc_start = chunk.io  # where the current document started
    prev_end: Any = None  # mark where the previous document ended (None: the chunk's start)
    in_doc = False
    ev = None
    try:
        while True:
            ev = chunk.get()
            cls = ev.__class__
            if cls is not DocStart:
                # None: the parser is past the stream's end; an end of another class than the backend's
                # must end the loop too, not spin on None for ever.
                if cls is StreamEnd or ev is None:
                    return None
                continue
            in_doc = True
            doc_start = chunk.io + ev.start_mark.index
            reader = _DocumentReader(chunk)
            try:
                root, root_ev, doc_end = reader.read()
            except _Abort:
                # Do not make the parser read the rest of this document (a deeply nested one costs the
                # pure-Python scanner quadratic time): go on at the next document marker.
                chunk.doc_index += 1
                at = max(chunk.io + reader.ev.start_mark.index, doc_start) + 1
                return _next_marker(chunk.sink.text, at)
            _finish_document(chunk, reader, root, root_ev, prev_end, doc_end)
            prev_end = doc_end
            in_doc = False
            chunk.doc_index += 1
    except b.YAMLError as e:
        return _syntax_error(chunk, e, doc_start if in_doc else chunk.io)
    except RecursionError:
        chunk.add("DRA005", "the YAML parser ran out of stack (nesting too deep); the rest of the file was not "
                  "checked", Span.point(chunk.lo + 1, 1))
        chunk.doc_index += 1
        return None
    except Exception as e:  # noqa: BLE001 - a parser bug must still end as a problem, not a traceback
        text = chunk.sink.text
        line = chunk.lo + chunk.sink.lines.parser_breaks(chunk.io, doc_start) + 1
        chunk.add("DRA001", f"the YAML parser failed ({type(e).__name__}: {e}); this document was not checked",
                  Span.point(line, 1))
        chunk.doc_index += 1
        return _next_marker(text, doc_start + 1)


def _next_marker(text: str, start: int) -> int | None:
    m = _DOC_MARKER.search(text, start)
    return m.start() if m is not None else None


class _DocumentReader:
    """Builds the plain data of one document from the parser's events."""

    __slots__ = ("chunk", "ev", "anchors", "merges", "dups", "more_dups", "more_dups_at", "known")

    def __init__(self, chunk: _Chunk) -> None:
        self.chunk = chunk
        self.ev: Any = None  # the last event read (where a limit was hit)
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # name -> (value, nodes, height)
        self.merges: dict[int, list] | None = None  # id(mapping) -> mappings merged into it
        self.dups: list[tuple[str, Span]] = []  # repeated keys (at most MAX_PROBLEMS_PER_DOCUMENT)
        self.more_dups = 0  # and how many more
        self.more_dups_at: Span | None = None  # the first of them
        # (id(mapping), a Sink.positioned key) -> (the mapping, key event, value event). The mapping is held: one
        # dropped with a rejected key must not free its id for another of the document.
        self.known: dict[tuple[int, str], tuple[dict, Any, Any]] = {}

    def read(self) -> tuple[Any, Any, Any]:
        """(root value, its event, the document's end mark); the parser's own loop, kept in one frame.

        Invariants: `stack` holds, per open collection, its parent's state (collection, whether a
        mapping, pending key and its event) with its start event and, when anchored, what sizes it;
        in a mapping `key` is NOKEY between entries, SKIP or MERGE after a dropped or `<<` key, else
        the key whose value comes next; `nodes` and `maxdepth` count the document so far (the limits).
        Counters are locals and only rare cases (tags, anchors, limits, aliases, odd keys) call out:
        a call per collection is what bench/bench_load.py would show.
        """
        c = self.chunk
        get, b = c.get, c.b
        Scalar, Alias, MapStart, MapEnd, SeqStart, SeqEnd, DocEnd = (
            b.Scalar, b.Alias, b.MapStart, b.MapEnd, b.SeqStart, b.SeqEnd, b.DocEnd)
        NOKEY, SKIP, MERGE, kept, known = _NOKEY, _SKIP, _MERGE, c.sink.positioned, self.known
        words, number_start = WORDS, NUMBER_START  # resolve_plain's own tables: only text is left to it
        stack: list = []
        cur: Any = None  # the collection being filled
        kev = root = root_ev = None  # the current key's event; the root value and its event
        cur_map = False
        key: Any = NOKEY
        nodes = depth = maxdepth = 0
        while True:
            ev = get()
            cls = ev.__class__
            if cls is Scalar:
                nodes += 1
                v = ev.value
                if ev.ctag is not None:
                    v = self.tagged(ev)
                elif not ev.style:
                    if v in words:  # resolve_plain's answer, without its call
                        v = words[v]
                    elif v[0] in number_start:
                        v = resolve_plain(v)
                    elif v == "<<" and cur_map and key is NOKEY:
                        v = MERGE
                if ev.anchor is not None:
                    self.anchors[ev.anchor] = (v if v is not MERGE else "<<", 1, 0)
            elif cls is MapStart or cls is SeqStart:
                nodes += 1
                depth += 1
                if depth > maxdepth:
                    maxdepth = depth
                    if depth > MAX_DEPTH:
                        self.too_deep(ev)
                sizing = None  # for an anchored collection, to size it when it ends:
                if ev.anchor is not None:  # (max depth outside it, nodes before it)
                    sizing, maxdepth = (maxdepth, nodes - 1), depth
                stack.append((cur, cur_map, key, kev, ev, sizing))
                cur_map = cls is MapStart
                cur = {} if cur_map else []
                key = NOKEY
                continue
            elif cls is MapEnd or cls is SeqEnd:
                v = cur
                if self.merges is not None and id(v) in self.merges:
                    self.apply_merges(v)
                cur, cur_map, key, kev, ev, sizing = stack.pop()
                depth -= 1
                if sizing is not None:
                    self.anchors[ev.anchor] = (v, nodes - sizing[1], maxdepth - depth)
                    maxdepth = max(maxdepth, sizing[0])
            elif cls is Alias:
                v, nodes, maxdepth = self.alias(ev, nodes, depth, maxdepth)
            elif cls is DocEnd:
                return root, root_ev, ev.end_mark
            else:
                continue
            # `v` (of event `ev`) is complete: add it to its parent
            if cur_map:
                if key is NOKEY:
                    kev = ev
                    key = v if type(v) is str or v is MERGE else self.bad_key(v, ev)
                elif key is SKIP or key is MERGE:
                    key = self.unkeyed(cur, key, v, kev)
                else:
                    if key in cur:
                        self.repeated(key, kev)
                    cur[key] = v
                    if key in kept and cls is Scalar:  # a reference: where it stands is judged if asked (Replay.known)
                        known[(id(cur), key)] = (cur, kev, ev)
                    key = NOKEY
            elif cur is not None:
                cur.append(v)
            else:
                root = v
                root_ev = ev

    def unkeyed(self, cur: dict, key: Any, v: Any, kev: Any) -> Any:
        """The value `v` of a dropped key (SKIP) is dropped, that of `<<` merged into `cur`; no key is pending."""
        if key is _MERGE:
            self.merge(cur, v, kev)
        return _NOKEY

    def tagged(self, ev: Any) -> Any:
        v, err = resolve_tagged(ev.value, str(ev.ctag))
        if err:
            self.chunk.add("DRA001", err, self.chunk.span(ev))
        return v

    def too_deep(self, ev: Any) -> None:
        self.ev = ev
        self.chunk.add("DRA005", f"nesting deeper than {MAX_DEPTH} levels; the document was not checked",
                       self.chunk.point(ev.start_mark))
        raise _Abort

    def apply_merges(self, target: dict) -> None:
        """Keys written in a mapping win over merged ones (YAML 1.1, go-yaml)."""
        for src in self.merges.pop(id(target)):
            for k, v in src.items():
                if k not in target:
                    target[k] = v

    def alias(self, ev: Any, nodes: int, depth: int, maxdepth: int) -> tuple[Any, int, int]:
        """An alias's value and the node count and depth with it; an undefined or too big one ends the document."""
        self.ev = ev
        a = self.anchors.get(ev.anchor)
        if a is None:
            self.chunk.add("DRA001", f"found undefined alias *{ev.anchor}", self.chunk.span(ev))
            raise _Abort
        v, size, height = a
        if nodes + size > MAX_NODES or depth + height > MAX_DEPTH:
            self.alias_too_big(ev, nodes + size)
        return v, nodes + size, max(maxdepth, depth + height)

    def alias_too_big(self, ev: Any, nodes: int) -> None:
        """An alias past MAX_NODES (an alias bomb) or MAX_DEPTH: the document is not checked."""
        c = self.chunk
        if nodes > MAX_NODES:
            c.add("DRA005", f"alias *{ev.anchor} expands the document past {MAX_NODES} nodes (an alias bomb?); "
                  "the document was not checked", c.span(ev))
        else:
            c.add("DRA005", f"alias *{ev.anchor} nests the document deeper than {MAX_DEPTH} levels; the "
                  "document was not checked", c.span(ev))
        raise _Abort

    def bad_key(self, v: Any, ev: Any) -> Any:
        """A key that is no string: DRA008; the string Kubernetes makes of it, or _SKIP to drop its value."""
        c = self.chunk
        s = key_string(v)
        b = c.b
        span = c.span(ev) if ev.__class__ is b.Scalar or ev.__class__ is b.Alias else c.point(ev.start_mark)
        if s is not None:
            c.add("DRA008", f"mapping key {ev.value if ev.__class__ is b.Scalar else s} is a "
                  f"{describe(v).split()[0]}, not a string; Kubernetes turns it into the string {s!r}, quote it "
                  "to say so", span)
            return s
        msg = f"mapping key is a {describe(v)}, not a string; the API server rejects it"
        if v is None:
            msg = "mapping key is null, not a string; the API server rejects it (quote it if you meant 'null')"
        c.add("DRA008", msg, span)
        return _SKIP

    def merge(self, target: dict, v: Any, kev: Any) -> None:
        sources = v if isinstance(v, list) else [v]
        if not all(isinstance(s, dict) for s in sources):
            self.chunk.add("DRA001", "the value of a merge key '<<' must be a mapping or a list of mappings",
                           self.chunk.span(kev))
            return
        if self.merges is None:
            self.merges = {}
        self.merges.setdefault(id(target), []).extend(sources)

    def repeated(self, key: str, kev: Any) -> None:
        if len(self.dups) < MAX_PROBLEMS_PER_DOCUMENT:
            self.dups.append((key, self.chunk.span(kev)))
        else:
            if not self.more_dups:
                self.more_dups_at = self.chunk.span(kev)
            self.more_dups += 1


def _finish_document(chunk: _Chunk, reader: _DocumentReader, root: Any, root_ev: Any, start: Any, end: Any) -> None:
    sink = chunk.sink
    b = chunk.b
    if root is None and root_ev is not None and root_ev.__class__ is b.Scalar and root_ev.value == "" \
            and not root_ev.style and root_ev.ctag is None and root_ev.anchor is None:
        sink.result.empty += 1
        return
    io = chunk.io
    if start is None:
        replay = Replay(chunk.replay_file, root, io, chunk.lo, 0, io + end.index, chunk.doc_index)
    else:
        replay = Replay(chunk.replay_file, root, io + start.index, chunk.lo + start.line, start.column, io + end.index,
                        chunk.doc_index)
    # Repeated keys, anchors and merges can put one mapping at several paths or a path's value elsewhere:
    # such documents are left to the replay, as is every file with odd line breaks (positions converted).
    if reader.known and not (reader.dups or reader.anchors or reader.merges or sink.lines.odd):
        replay.known = (chunk.lo, reader.known)
    if reader.dups:
        first = replay.first_lines({(span.line, span.column) for _key, span in reader.dups})
        for key, span in reader.dups:
            line = first.get((span.line, span.column))
            where_text = f" (first defined at line {sink.lines.from_parser(line, 1)[0]})" if line else ""
            chunk.add("DRA002", f"duplicate key {key!r}{where_text}", span)
        if reader.more_dups:
            sink.drop(chunk.doc_index, reader.more_dups, reader.more_dups_at)
    if isinstance(root, dict) or (sink.keep_lists and isinstance(root, list)):
        sink.document(root, replay, chunk.doc_index)
    else:
        span = chunk.point(root_ev.start_mark) if isinstance(root, list) else chunk.span(root_ev)
        sink.not_an_object(root, chunk.doc_index, span)


def _syntax_error(chunk: _Chunk, e: Any, doc_start: int) -> int | None:
    """Record a DRA001 for a parser error; return where to resume (the next `---` after the error)."""
    text = chunk.sink.text
    pm = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    line0, col0, idx = (pm.line, pm.column, chunk.io + pm.index) if pm is not None else (0, 0, chunk.io)
    msg = _syntax_message(e, chunk.lo, pm)
    error_line_start = idx - col0
    # Tabs: say what is really wrong.
    line_start = text.rfind("\n", 0, idx) + 1
    line_end = text.find("\n", idx)
    line_text = text[line_start:line_end if line_end != -1 else len(text)]
    lead = line_text[:len(line_text) - len(line_text.lstrip(" \t"))]
    if text[idx:idx + 1] == "\t" or ("\t" in lead and col0 <= len(lead)):
        msg = "tab character used for indentation; YAML allows only spaces"
        if "\t" in lead:
            col0 = lead.index("\t")
    # Resume at the first document marker after the error that is past this document's start.
    resume = _next_marker(text, max(error_line_start, doc_start + 1))
    if resume is not None and error_line_start <= resume < idx:  # a marker earlier on the error line
        resume = _next_marker(text, resume + 1)
    if resume is None and line_end != -1 and text[line_end:].strip():
        msg += "; the rest of the file was not checked"
    chunk.add("DRA001", msg, Span.point(line0 + 1 + chunk.lo, col0 + 1))
    chunk.doc_index += 1
    return resume


def _syntax_message(e: Any, lo: int, pm: Any) -> str:
    problem = " ".join((getattr(e, "problem", None) or str(e).split("\n")[0]).split())
    # ruamel's pure scanner names the character ("found character '\\t' that cannot ..."), libyaml does not.
    problem = re.sub(r"found character '.*?' that", "found character that", problem)
    if problem == "mapping values are not allowed here":  # ruamel's wording of libyaml's message
        problem = "mapping values are not allowed in this context"
    context = " ".join((getattr(e, "context", None) or "").split())
    cm = getattr(e, "context_mark", None)
    if not context:
        return problem
    if cm is not None and pm is not None and (cm.line, cm.column) != (pm.line, pm.column):
        return f"{problem} ({context} at line {cm.line + 1 + lo}, column {cm.column + 1})"
    return f"{problem} ({context})"
