"""Source bytes -> Documents (plain data + positions), or Problems; never a traceback.

How it works
------------
YAML is read with the *event* API of libyaml (``_ruamel_yaml.CParser`` from
ruamel.yaml.clib), not with a composer/constructor: one pass over the events
builds plain ``dict``/``list``/scalars directly. Positions are built lazily:
the position table (``Document.positions``) and ``Document.scalar_styles`` are
only computed the first time somebody reads them, by re-parsing that
document's slice of the text (a clean document never pays for them; see
``_Replay`` for what the alternatives cost).
``_LazyTable`` behaves as an ordinary ``dict`` in every respect (including
pickling, where it turns into a plain dict).

When the C extension cannot be imported, or when ``DRALINT_PURE_PYTHON=1`` is
set (or ``load(..., pure_python=True)``), ruamel.yaml's pure-Python
reader/scanner/parser produces the same events and the same code runs.

Import time: importing this module imports nothing from ruamel; the parser is
imported on the first ``load()``, and without running ``ruamel/yaml/__init__``
(which imports the round-trip machinery in ``ruamel.yaml.main``).

Scalar resolution (what a plain scalar becomes)
-----------------------------------------------
Kubernetes reads YAML with sigs.k8s.io/yaml, i.e. go-yaml v2 (YAML 1.1 rules)
into ``interface{}``, converts that to JSON and decodes the JSON. We mirror the
outcome of that pipeline:

* booleans: ``true/false``, ``yes/no``, ``on/off``, ``y/n`` in the lower,
  Title and UPPER spellings go-yaml v2 knows (``y: 1`` really is ``true: 1``
  for the API server);
* null: empty, ``~``, ``null``, ``Null``, ``NULL``;
* integers: Go ``strconv.ParseInt(s, 0, 64)`` after removing ``_``: decimal,
  ``0x`` hex, ``0o`` and leading-``0`` octal (``0755`` is 493), ``0b`` binary;
  values up to uint64; anything larger falls through to float;
* floats: go-yaml's ``[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?``
  plus ``.inf``/``.nan``. A *finite integral* float below 1e21 becomes an
  ``int``, because Go's JSON encoder prints ``2.0`` as ``2`` and the API server
  then sees an integer (``count: 2.0`` is accepted by kubectl);
* timestamps (``2024-01-01``) stay strings (go-yaml v2 keeps them as strings
  when decoding into ``interface{}``); sexagesimal ``1:20`` is a string;
* quoted and block scalars are always strings;
* tags: ``!!str`` forces a string, ``!!int``/``!!float``/``!!bool``/``!!null``
  convert (a value that does not convert is a DRA001), other tags (``!foo``,
  ``!!binary``, ``!!timestamp``) leave the text as a string.

Keys: Kubernetes objects only have string keys. A key that resolves to
anything else is reported as DRA008 even where sigs.k8s.io/yaml would convert
it (``true:`` -> ``"true"``, ``1:`` -> ``"1"``, ``yes:`` -> ``"true"``) since such
a conversion is almost always a surprise; the data keeps the converted string
key so later checks see what the API server sees. ``null`` and collection keys
(which the API server rejects) are dropped from the data.

Merge keys (``<<: *base``, or a list of aliases) are applied as YAML 1.1 and
go-yaml do: keys written in the mapping win over merged ones; merged fields
point at the ``<<`` value in positions.

Aliases are expanded (the aliased object is shared, treat data as read-only);
every node of the expansion counts towards ``MAX_NODES`` and its position is
the alias.

Documents: `Document.index` counts every YAML document of the file, empty ones
included (they are skipped and counted in `LoadResult.empty`; a file with
nothing but comments has no document at all). A document that is `null`
(`--- ~`) is not empty: it is a DRA003.

Problems, not exceptions: after a syntax error (DRA001) or a limit (DRA005:
depth > MAX_DEPTH, more than MAX_NODES nodes through aliases, file > MAX_BYTES)
the documents before it are kept and parsing starts again at the next `---`
line (a `---` at column 0 always starts a document, so this is safe); when
there is none, the message says the rest of the file was not checked.

Encodings: UTF-8 (a BOM is accepted and dropped). UTF-16 and UTF-32 *with a
BOM* are decoded (kubectl accepts them too); NUL bytes without such a BOM mean
a binary file (DRA004); invalid UTF-8 is a DRA004 at the first bad byte.
"""

from __future__ import annotations

import gc
import os
import re
import sys
import types
from typing import Any, Callable, Iterator

from .catalog import check
from .model import Document, Node, Path, Problem, Span

__all__ = ["LoadResult", "load", "MAX_BYTES", "MAX_NODES", "MAX_DEPTH", "c_parser_available"]

MAX_BYTES = 16 * 1024 * 1024  # size cap of one source
MAX_NODES = 100_000  # nodes per document after alias expansion
MAX_DEPTH = 100  # nesting of mappings/sequences per document


class LoadResult:
    __slots__ = ("documents", "problems", "empty")

    def __init__(self) -> None:
        self.documents: list[Document] = []
        self.problems: list[Problem] = []
        self.empty = 0  # empty documents skipped (e.g. a trailing `---`)


# ---------------------------------------------------------------------------
# Backend: the event parser, imported on first use.


class _Backend:
    __slots__ = ("make_parser", "Scalar", "Alias", "MapStart", "MapEnd", "SeqStart", "SeqEnd", "DocStart",
                 "DocEnd", "StreamEnd", "YAMLError", "pure")


_BACKENDS: dict[bool, _Backend] = {}


def _import_ruamel_parts(names: list[str]) -> list[Any]:
    """Import ruamel.yaml submodules without running ruamel/yaml/__init__.py.

    That __init__ imports ruamel.yaml.main and with it the whole round-trip
    machinery (~10 ms). When ruamel.yaml is not imported yet, a bare package
    module stands in for it while the submodules load, then is removed again so
    that a later `import ruamel.yaml` gets the real package (the submodules
    already loaded are reused by it).
    """
    import importlib

    if "ruamel.yaml" in sys.modules:
        return [importlib.import_module(n) for n in names]
    import importlib.util
    import types

    try:
        spec = importlib.util.find_spec("ruamel.yaml")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return [importlib.import_module(n) for n in names]
    stub = types.ModuleType("ruamel.yaml")
    stub.__path__ = list(spec.submodule_search_locations)
    stub.__package__ = "ruamel.yaml"
    before = set(sys.modules)
    sys.modules["ruamel.yaml"] = stub
    try:
        return [importlib.import_module(n) for n in names]
    finally:
        if sys.modules.get("ruamel.yaml") is stub:
            del sys.modules["ruamel.yaml"]
            # The submodules loaded under the stub are attributes of the stub, not
            # of the real package; a later `import ruamel.yaml` (migrate, plugins)
            # must load its own copies or `ruamel.yaml.emitter` would be missing.
            # This parser keeps the references it already holds.
            for name in set(sys.modules) - before:
                if name.startswith("ruamel.yaml."):
                    del sys.modules[name]


def c_parser_available() -> bool:
    """True when the C event parser (ruamel.yaml.clib) is used by default."""
    return not _backend(False).pure


def _backend(pure: bool) -> _Backend:
    b = _BACKENDS.get(pure)
    if b is not None:
        return b
    b = _Backend()
    made = False
    if not pure:
        try:
            cmod, events, error = _import_ruamel_parts(["_ruamel_yaml", "ruamel.yaml.events", "ruamel.yaml.error"])
            cparser = cmod.CParser
            b.make_parser = cparser
            b.pure = False
            made = True
        except ImportError:
            pass
    if not made:
        loader, events, error = _import_ruamel_parts(
            ["ruamel.yaml.loader", "ruamel.yaml.events", "ruamel.yaml.error"])
        base = loader.BaseLoader

        def make_parser(text: str) -> Any:
            # YAML 1.1, as libyaml and go-yaml v2 read it.
            p = base(text, version=(1, 1))
            # what ruamel.yaml.main would set up: where %YAML / %TAG directives are recorded
            p.doc_infos = [types.SimpleNamespace(doc_version=None, tags=[], requested_version=None)]
            return p

        b.make_parser = make_parser
        b.pure = True
    b.Scalar = events.ScalarEvent
    b.Alias = events.AliasEvent
    b.MapStart = events.MappingStartEvent
    b.MapEnd = events.MappingEndEvent
    b.SeqStart = events.SequenceStartEvent
    b.SeqEnd = events.SequenceEndEvent
    b.DocStart = events.DocumentStartEvent
    b.DocEnd = events.DocumentEndEvent
    b.StreamEnd = events.StreamEndEvent
    b.YAMLError = error.YAMLError
    _BACKENDS[pure] = b
    if not pure and b.pure:
        _BACKENDS[True] = b
    return b


def _want_pure(pure_python: bool | None) -> bool:
    if pure_python is not None:
        return pure_python
    return os.environ.get("DRALINT_PURE_PYTHON", "").strip().lower() in ("1", "true", "yes", "on")


# ---------------------------------------------------------------------------
# Scalar resolution (see the module docstring).

_MISS = object()
_PLAIN: dict[str, Any] = {"": None, "~": None, "null": None, "Null": None, "NULL": None}
for _w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"):
    _PLAIN[_w] = True
for _w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"):
    _PLAIN[_w] = False
for _w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
    _PLAIN[_w] = float("inf")
for _w in ("-.inf", "-.Inf", "-.INF"):
    _PLAIN[_w] = float("-inf")
for _w in (".nan", ".NaN", ".NAN"):
    _PLAIN[_w] = float("nan")
del _w
_NUM_START = frozenset("0123456789+-.")
_INT_RE = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]+|[0-9]+)")
_FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INT64_MIN = -(2**63)
_UINT64_MAX = 2**64 - 1


def _resolve_number(text: str) -> Any:
    s = text.replace("_", "") if "_" in text else text
    m = _INT_RE.fullmatch(s)
    if m is not None:
        sign, digits = m.groups()
        if len(digits) > 1 and digits[0] == "0" and digits[1] in "01234567":
            n = int(digits, 8)
        else:
            n = int(digits, 0) if not digits.isdigit() else int(digits)
        if sign == "-":
            n = -n
        if _INT64_MIN <= n <= _UINT64_MAX:  # strconv.ParseInt, then ParseUint
            return n
    if _FLOAT_RE.fullmatch(s) is not None:
        f = float(s)
        if f.is_integer() and -1e21 < f < 1e21:
            return int(f)
        return f
    return text


def resolve_plain(text: str) -> Any:
    """The value of a plain (unquoted, untagged) scalar, as Kubernetes reads it."""
    r = _PLAIN.get(text, _MISS)
    if r is not _MISS:
        return r
    if text[0] in _NUM_START:
        return _resolve_number(text)
    return text


_STR_TAG = "tag:yaml.org,2002:str"


def _resolve_tagged(value: str, tag: str, plain: bool) -> tuple[Any, str | None]:
    """(value, error message or None) of a scalar with an explicit tag."""
    if tag == _STR_TAG or tag == "!":
        return value, None
    if tag == "tag:yaml.org,2002:int":
        r = _resolve_number(value.strip())
        if type(r) is int:
            return r, None
        return value, f"value {value!r} is tagged !!int but is not an integer"
    if tag == "tag:yaml.org,2002:float":
        r = _PLAIN.get(value.strip(), _MISS)
        if r is _MISS:
            r = _resolve_number(value.strip()) if value.strip() else value
        if type(r) in (int, float):
            return r, None
        return value, f"value {value!r} is tagged !!float but is not a number"
    if tag == "tag:yaml.org,2002:bool":
        r = _PLAIN.get(value.strip(), _MISS)
        if type(r) is bool:
            return r, None
        return value, f"value {value!r} is tagged !!bool but is not a boolean"
    if tag == "tag:yaml.org,2002:null":
        if value.strip() in ("", "~", "null", "Null", "NULL"):
            return None, None
        return value, f"value {value!r} is tagged !!null but is not null"
    # !!binary, !!timestamp, local tags (!foo): go-yaml keeps the text.
    return value, None


def _scalar_value(ev: Any) -> tuple[Any, str | None]:
    """Value of a scalar event and an error message (bad explicit tag) or None."""
    tag = ev.ctag
    if tag is None:
        if ev.style:
            return ev.value, None
        v = ev.value
        r = _PLAIN.get(v, _MISS)
        if r is not _MISS:
            return r, None
        if v[0] in _NUM_START:
            return _resolve_number(v), None
        return v, None
    return _resolve_tagged(ev.value, str(tag), not ev.style)


def _go_float_key(f: float) -> str:
    if f != f:
        return ".nan"
    if f in (float("inf"), float("-inf")):
        return ".inf" if f > 0 else "-.inf"
    return repr(f)


def _key_string(k: Any) -> str | None:
    """The string sigs.k8s.io/yaml would make of a non-string key, None when it rejects it."""
    if type(k) is bool:
        return "true" if k else "false"
    if type(k) is int:
        return str(k)
    if type(k) is float:
        return _go_float_key(k)
    return None


def _describe(v: Any) -> str:
    if v is None:
        return "null"
    if type(v) is bool:
        return "boolean " + ("true" if v else "false")
    if isinstance(v, (int, float)):
        return f"number {v!r}"
    if isinstance(v, dict):
        return "mapping"
    if isinstance(v, list):
        return "sequence"
    return repr(v)


# ---------------------------------------------------------------------------
# Problems.


def _problem(code: str, message: str, source: str, document: int, span: Span, path: Path = ()) -> Problem:
    c = check(code)
    return Problem(rule=c.code, name=c.slug, severity=c.severity, message=message, source=source,
                   document=document, path=path, span=span)


def _mark_span(sm: Any, em: Any, lo: int) -> Span:
    return Span(sm.line + 1 + lo, sm.column + 1, em.line + 1 + lo, em.column + 1)


# ---------------------------------------------------------------------------
# Lazy position tables.


class _LazyTable(dict):
    """A dict that fills itself on first use (positions or scalar styles of one document)."""

    __slots__ = ("_fill",)

    def _force(self) -> None:
        f = self._fill
        if f is not None:
            self._fill = None
            fill, which = f
            dict.update(self, fill()[which])

    def __getitem__(self, k: Any) -> Any:
        if self._fill is not None:
            self._force()
        return dict.__getitem__(self, k)

    def get(self, k: Any, default: Any = None) -> Any:
        if self._fill is not None:
            self._force()
        return dict.get(self, k, default)

    def __contains__(self, k: object) -> bool:
        if self._fill is not None:
            self._force()
        return dict.__contains__(self, k)

    def __iter__(self) -> Iterator[Any]:
        self._force()
        return dict.__iter__(self)

    def __reversed__(self) -> Iterator[Any]:
        self._force()
        return dict.__reversed__(self)

    def __len__(self) -> int:
        if self._fill is not None:
            self._force()
        return dict.__len__(self)

    def keys(self):  # type: ignore[override]
        self._force()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self._force()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self._force()
        return dict.items(self)

    def __repr__(self) -> str:
        self._force()
        return dict.__repr__(self)

    def __eq__(self, other: object) -> bool:
        self._force()
        if isinstance(other, _LazyTable):
            other._force()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> dict:  # type: ignore[override]
        self._force()
        return dict(dict.items(self))

    def __or__(self, other: Any) -> dict:
        self._force()
        d = dict(dict.items(self))
        d.update(other)
        return d

    def __ror__(self, other: Any) -> dict:
        self._force()
        d = dict(other)
        d.update(dict.items(self))
        return d

    def __ior__(self, other: Any) -> "_LazyTable":
        self._force()
        dict.update(self, other)
        return self

    def __setitem__(self, k: Any, v: Any) -> None:
        self._force()
        dict.__setitem__(self, k, v)

    def __delitem__(self, k: Any) -> None:
        self._force()
        dict.__delitem__(self, k)

    def setdefault(self, k: Any, default: Any = None) -> Any:
        self._force()
        return dict.setdefault(self, k, default)

    def pop(self, *args: Any) -> Any:
        self._force()
        return dict.pop(self, *args)

    def popitem(self) -> Any:
        self._force()
        return dict.popitem(self)

    def update(self, *args: Any, **kw: Any) -> None:
        self._force()
        dict.update(self, *args, **kw)

    def clear(self) -> None:
        self._fill = None
        dict.clear(self)

    def __reduce__(self) -> Any:
        self._force()
        return (dict, (dict(dict.items(self)),))

    def __reduce_ex__(self, protocol: Any) -> Any:
        return self.__reduce__()

    def __copy__(self) -> dict:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> dict:
        import copy

        self._force()
        return copy.deepcopy(dict(dict.items(self)), memo)


def _lazy(fill: Callable[[], tuple[dict, dict]], which: int) -> _LazyTable:
    t = _LazyTable()
    t._fill = (fill, which)
    return t


_NOKEY = object()  # no key read yet in the current mapping
_SKIP = object()  # the key was rejected: drop its value


class _Replay:
    """Computes positions and string styles of one YAML document, when first asked for.

    The main pass keeps no events (keeping them costs time and memory for every
    document); this re-parses the document's own slice of the text instead,
    which only documents whose positions are read pay for.

    Measured on bench/bench.py's 5,000 documents (C parser), where ~3,800 of them
    get a problem and so their positions: the re-parse is ~35 us a document and
    the table ~30 us more. Alternatives that were measured and dropped:
    * keeping each document's events from the main pass and replaying them:
      +60 MB and +0.3 s for `--select DRA1` (which reads no positions at all),
      ~0.25 s saved for every rule: the retained events cost more than the parse;
    * building positions eagerly in the main pass (estimated, not built): the
      ~30 us of table building for every document would be +60 % on a document's
      ~47 us load and ~+0.15 s for `--select DRA1`, to save ~0.13 s for every rule;
    * one re-parse per file when its first document is forced: saves only the
      parser set-up (~3 us a document) and builds tables nobody reads.
    """

    __slots__ = ("b", "data", "text", "start", "line", "column", "end", "lo", "io", "result", "items", "_first")

    def __init__(self, b: _Backend, data: Any, text: str, start: int, line: int, column: int, end: int) -> None:
        # Built for every document: keep this cheap, the rest is set up in __call__.
        self.b = b
        self.data = data
        self.text = text
        self.start = start  # character index in the text where the document's slice starts
        self.line = line  # its 0-based line in the file
        self.column = column  # and column
        self.end = end
        self.result: tuple[dict, dict] | None = None
        self.items: dict[int, tuple[dict, dict]] | None = None
        # Where repeated keys were first seen: only tracked for a document known to have some (see
        # first_lines), which saves a dict per mapping and a look-up per key in every other one.
        self._first: dict[tuple[int, int], int] | None = None

    def __call__(self) -> tuple[dict, dict]:
        if self.result is None:
            self.lo = self.line  # line offset of the re-parsed slice in the file
            self.io = self.start - self.column  # character offset of the re-parsed slice in the file
            try:
                self.result = self._run()
            except Exception:  # noqa: BLE001 - never a traceback; positions fall back to the document start
                self.result = ({(): Node(None, Span.point(self.line + 1, self.column + 1))}, {})
        return self.result

    def first_lines(self) -> dict[tuple[int, int], int]:
        """(line, column) of each repeated key -> line of the key's first occurrence in its mapping."""
        if self._first is None:
            self._first = {}
            self.result = None  # (not computed yet in practice: _finish asks first)
        self()
        return self._first

    def item(self, i: int) -> Callable[[], tuple[dict, dict]]:
        def fill() -> tuple[dict, dict]:
            if self.items is None:
                pos, styles = self()
                items: dict[int, tuple[dict, dict]] = {}
                for path, node in pos.items():
                    if len(path) >= 2 and path[0] == "items" and type(path[1]) is int:
                        items.setdefault(path[1], ({}, {}))[0][path[2:]] = node
                for path, st in styles.items():
                    if len(path) >= 2 and path[0] == "items" and type(path[1]) is int:
                        items.setdefault(path[1], ({}, {}))[1][path[2:]] = st
                for n, (ipos, _st) in items.items():
                    node = pos.get(("items", n))
                    if node is not None:
                        ipos[()] = Node(None, node.value)
                self.items = items
            return self.items.get(i, ({}, {}))

        return fill

    def _block_end(self, em: Any) -> tuple[int, int]:
        """(line, column) 1-based, exclusive, of the last non-blank character before a block scalar's end mark."""
        text = self.text
        i = em.index + self.io
        line = em.line + 1 + self.lo
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
        k = j
        while k > 0 and text[k - 1] not in "\r\n\x85\u2028\u2029":
            k -= 1
        return line, j - k + 1

    def _run(self) -> tuple[dict, dict]:
        # The hot loop of every reported document (~80 % of the documents of a typical run), written
        # for speed; what it computes is what it always did (tests/test_load.py and C-vs-pure equality):
        # * events come straight from `get_event` (a generator in between cost ~1/3 of the loop);
        # * one branch per event class, scalars first (half the events), instead of shared
        #   key/value code that tested the class again and again;
        # * Span and Node are built with `tuple.__new__` (a NamedTuple's own __new__ is a Python
        #   function: one frame per span) and line/column sums are kept in locals;
        # * `last_end` holds the span (or a 4-tuple) whose end is where the last thing ended, not a
        #   new (line, column) pair per scalar.
        b = self.b
        Scalar, Alias, MapStart, MapEnd, SeqStart, SeqEnd = b.Scalar, b.Alias, b.MapStart, b.MapEnd, b.SeqStart, b.SeqEnd
        DocEnd, StreamEnd = b.DocEnd, b.StreamEnd
        # Spaces stand in for what precedes the slice on its first line, so columns stay right.
        get = b.make_parser(" " * self.column + self.text[self.start:self.end]).get_event
        tnew = tuple.__new__
        SpanT, NodeT = Span, Node
        NOKEY, SKIP, MERGE, MISS = _NOKEY, _SKIP, _MERGE, _MISS
        PLAIN, NUMS, resolve_number = _PLAIN, _NUM_START, _resolve_number
        lo1 = self.lo + 1  # 1-based line of the slice's first line
        pos: dict[Path, Node] = {}
        styles: dict[Path, str | None] = {}
        scalar_anchors: dict[str, Any] = {}
        stack: list = []
        push = stack.append
        pop = stack.pop
        path: Path = ()
        is_map = False
        in_root = True
        key: Any = NOKEY
        key_span: Span | None = None
        idx = 0
        had_child = False
        last_end: tuple = (0, 0, 1, 1)  # only [2] and [3] (end line, end column) are read
        merges: list | None = None
        skip = 0
        first = self._first  # None: repeated keys are not tracked
        seen: dict | None = None  # keys of the current mapping -> line (a dict when is_map and first is not None)
        while True:
            ev = get()
            cls = ev.__class__
            if skip:  # inside a collection used as a key or merged: nothing of it has a path
                if cls is MapStart or cls is SeqStart:
                    skip += 1
                elif cls is MapEnd or cls is SeqEnd:
                    skip -= 1
                    if skip == 0:
                        em = ev.end_mark
                        last_end = (0, 0, em.line + lo1, em.column + 1)
                elif cls is DocEnd or cls is StreamEnd:
                    break
                continue
            if cls is Scalar:
                sm = ev.start_mark
                em = ev.end_mark
                tag = ev.ctag
                style = ev.style
                v = ev.value
                if ev.anchor is not None:
                    scalar_anchors[ev.anchor] = _scalar_value(ev)[0]
                if is_map:
                    if key is NOKEY:  # a mapping key
                        if tag is None:
                            if style:
                                k = v
                            else:
                                k = PLAIN.get(v, MISS)
                                if k is MISS:
                                    k = resolve_number(v) if v[0] in NUMS else v
                                if k == "<<" and type(k) is str:
                                    k = MERGE
                        else:
                            k = _resolve_tagged(v, str(tag), not style)[0]
                        if type(k) is not str and k is not MERGE:
                            k = _key_string(k)
                            if k is None:
                                k = SKIP
                        key = k
                        line = sm.line + lo1
                        col = sm.column + 1
                        key_span = tnew(SpanT, (line, col, em.line + lo1, em.column + 1))
                        if v or style:  # an empty key has no reliable place
                            last_end = key_span
                        if first is not None and type(k) is str:
                            if k in seen:
                                first[(line, col)] = seen[k]
                            else:
                                seen[k] = line
                        continue
                    if key is SKIP or key is MERGE:
                        if key is MERGE:
                            if merges is None:
                                merges = []
                            merges.append(tnew(SpanT, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1)))
                        key = NOKEY
                        if v or style:
                            last_end = (0, 0, em.line + lo1, em.column + 1)
                        continue
                    npath = path + (key,)
                    nkey_span = key_span
                    key = NOKEY
                elif in_root:
                    npath = ()
                    nkey_span = None
                    in_root = False
                else:
                    npath = path + (idx,)
                    idx += 1
                    nkey_span = None
                had_child = True
                if tag is None and not style:  # plain
                    if v:
                        vspan = tnew(SpanT, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
                        pos[npath] = tnew(NodeT, (nkey_span, vspan))
                        last_end = vspan
                        r = PLAIN.get(v, MISS)
                        if r is MISS and (v[0] not in NUMS or type(resolve_number(v)) is str):
                            styles[npath] = None
                    elif nkey_span is not None:
                        # `key:` with no value: the parsers disagree on where the nothing is; use the
                        # character after the key (normally the colon)
                        pos[npath] = tnew(NodeT, (nkey_span, tnew(SpanT, (
                            nkey_span[2], nkey_span[3], nkey_span[2], nkey_span[3] + 1))))
                    else:
                        line = sm.line + lo1
                        col = sm.column + 1
                        pos[npath] = tnew(NodeT, (None, tnew(SpanT, (line, col, line, col + 1))))
                else:
                    if style == "|" or style == ">":
                        end = self._block_end(em)
                        vspan = tnew(SpanT, (sm.line + lo1, sm.column + 1, end[0], end[1]))
                    else:
                        vspan = tnew(SpanT, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
                    pos[npath] = tnew(NodeT, (nkey_span, vspan))
                    last_end = vspan
                    if tag is None or type(_resolve_tagged(v, str(tag), not style)[0]) is str:
                        styles[npath] = style or None
                continue
            if cls is MapEnd or cls is SeqEnd:
                sev = stack[-1][9]
                sm = sev.start_mark
                if sev.flow_style or not had_child:
                    em = ev.end_mark
                    span = tnew(SpanT, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
                else:
                    span = tnew(SpanT, (sm.line + lo1, sm.column + 1, last_end[2], last_end[3]))
                if merges:
                    self._apply_merges(pos, path, merges)
                npath = path
                path, is_map, key, key_span, idx, in_root, merges, nkey_span, seen, _sev = pop()
                pos[npath] = tnew(NodeT, (nkey_span, span))
                had_child = True
                last_end = span
                continue
            if cls is MapStart or cls is SeqStart:
                if is_map:
                    if key is NOKEY:  # a collection as a key: dropped, with everything in it
                        key = SKIP
                        skip = 1
                        continue
                    if key is SKIP or key is MERGE:
                        if key is MERGE:
                            if merges is None:
                                merges = []
                            sm = ev.start_mark
                            line = sm.line + lo1
                            col = sm.column + 1
                            merges.append(tnew(SpanT, (line, col, line, col + 1)))
                        key = NOKEY
                        skip = 1
                        continue
                    npath = path + (key,)
                    nkey_span = key_span
                    key = NOKEY
                elif in_root:
                    npath = ()
                    nkey_span = None
                    in_root = False
                else:
                    npath = path + (idx,)
                    idx += 1
                    nkey_span = None
                push((path, is_map, key, key_span, idx, in_root, merges, nkey_span, seen, ev))
                path = npath
                if cls is MapStart:
                    is_map = True
                    seen = {} if first is not None else None
                else:
                    is_map = False
                    seen = None
                key = NOKEY
                key_span = None
                idx = 0
                merges = None
                had_child = False
                continue
            if cls is Alias:
                sm = ev.start_mark
                em = ev.end_mark
                aspan = tnew(SpanT, (sm.line + lo1, sm.column + 1, em.line + lo1, em.column + 1))
                if is_map:
                    if key is NOKEY:  # an alias as a key
                        k = scalar_anchors.get(ev.anchor, SKIP)
                        if type(k) is not str and k is not SKIP:
                            k = _key_string(k)
                            if k is None:
                                k = SKIP
                        key = k
                        key_span = aspan
                        last_end = aspan
                        if first is not None and type(k) is str:
                            if k in seen:
                                first[(aspan[0], aspan[1])] = seen[k]
                            else:
                                seen[k] = aspan[0]
                        continue
                    if key is SKIP or key is MERGE:
                        if key is MERGE:
                            if merges is None:
                                merges = []
                            merges.append(aspan)
                        key = NOKEY
                        last_end = aspan
                        continue
                    npath = path + (key,)
                    nkey_span = key_span
                    key = NOKEY
                elif in_root:
                    npath = ()
                    nkey_span = None
                    in_root = False
                else:
                    npath = path + (idx,)
                    idx += 1
                    nkey_span = None
                had_child = True
                pos[npath] = tnew(NodeT, (nkey_span, aspan))
                self._walk_alias(pos, npath, self._data_at(npath), aspan)
                last_end = aspan
                continue
            if cls is DocEnd or cls is StreamEnd:
                break
        return pos, styles

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


_MERGE = object()  # the `<<` merge key


# ---------------------------------------------------------------------------
# YAML.


class _Abort(Exception):
    """A document exceeded a limit: the problem is recorded, skip to its end."""


class _Ctx:
    __slots__ = ("source", "text", "result", "b", "pure")

    def __init__(self, source: str, text: str, result: LoadResult, b: _Backend) -> None:
        self.source = source
        self.text = text
        self.result = result
        self.b = b


def _parse_chunk(ctx: _Ctx, chunk: str, lo: int, io: int, doc_index: int) -> tuple[int, int | None]:
    """Parse `chunk` (the text from character `io`, line `lo` of the file) and record its documents.

    Returns (index of the next document, offset in the chunk where to resume after a syntax error, or None).
    """
    b = ctx.b
    source = ctx.source
    problems = ctx.result.problems
    Scalar, Alias, MapStart, MapEnd, SeqStart, SeqEnd = b.Scalar, b.Alias, b.MapStart, b.MapEnd, b.SeqStart, b.SeqEnd
    DocStart, DocEnd, StreamEnd = b.DocStart, b.DocEnd, b.StreamEnd
    PLAIN = _PLAIN
    NUMS = _NUM_START
    resolve_number = _resolve_number
    doc_start_index = 0
    prev_end: Any = None  # mark where the previous document ended (None: the chunk's start)
    in_doc = False
    try:
        get = b.make_parser(chunk).get_event
        while True:
            ev = get()
            cls = ev.__class__
            if cls is StreamEnd:
                return doc_index, None
            if cls is not DocStart:
                continue
            in_doc = True
            doc_start_index = ev.start_mark.index
            # ---- one document: events -> plain data, in one loop ------------------
            dups: list = []
            stack: list = []
            cur: Any = None
            cur_map = False
            key: Any = _NOKEY
            kev: Any = None
            root: Any = None
            root_ev: Any = None
            anchors: dict = {}
            nodes = 0
            depth = 0
            maxdepth = 0
            merges: dict | None = None
            try:
                while True:
                    ev = get()
                    cls = ev.__class__
                    if cls is Scalar:
                        nodes += 1
                        tag = ev.ctag
                        if tag is None:
                            v = ev.value
                            if not ev.style:
                                r = PLAIN.get(v, _MISS)
                                if r is not _MISS:
                                    v = r
                                elif v[0] in NUMS:
                                    v = resolve_number(v)
                        else:
                            v, err = _resolve_tagged(ev.value, str(tag), not ev.style)
                            if err:
                                problems.append(_problem("DRA001", err, source, doc_index,
                                                         _mark_span(ev.start_mark, ev.end_mark, lo)))
                        if ev.anchor is not None:
                            anchors[ev.anchor] = (v, 1, 0)
                        if cur_map:
                            if key is _NOKEY:
                                kev = ev
                                if type(v) is str:
                                    key = _MERGE if v == "<<" and tag is None and not ev.style else v
                                else:
                                    key = _bad_key(ctx, v, ev, lo, doc_index)
                                continue
                            if key is _SKIP:
                                key = _NOKEY
                                continue
                            if key is _MERGE:
                                merges = _add_merge(ctx, merges, cur, v, kev, lo, doc_index)
                                key = _NOKEY
                                continue
                            if key in cur:
                                dups.append((key, kev))
                            cur[key] = v
                            key = _NOKEY
                        elif cur is not None:
                            cur.append(v)
                        else:
                            root = v
                            root_ev = ev
                        continue
                    if cls is MapStart or cls is SeqStart:
                        nodes += 1
                        depth += 1
                        if depth > maxdepth:
                            maxdepth = depth
                            if depth > MAX_DEPTH:
                                problems.append(_problem(
                                    "DRA005", f"nesting deeper than {MAX_DEPTH} levels; the document was not checked",
                                    source, doc_index, Span.point(ev.start_mark.line + 1 + lo, ev.start_mark.column + 1)))
                                raise _Abort
                        if ev.anchor is not None:
                            # to size the anchored subtree when it ends: (maxdepth outside it, nodes before it)
                            astate: Any = (maxdepth, nodes - 1)
                            maxdepth = depth
                        else:
                            astate = None
                        stack.append((cur, cur_map, key, kev, ev, astate))
                        if cls is MapStart:
                            cur = {}
                            cur_map = True
                        else:
                            cur = []
                            cur_map = False
                        key = _NOKEY
                        continue
                    if cls is MapEnd or cls is SeqEnd:
                        v = cur
                        if merges is not None and id(cur) in merges:
                            _apply_merges(cur, merges.pop(id(cur)))
                        cur, cur_map, key, kev, ev, astate = stack.pop()
                        depth -= 1
                        if astate is not None:
                            anchors[ev.anchor] = (v, nodes - astate[1], maxdepth - depth)
                            if astate[0] > maxdepth:
                                maxdepth = astate[0]
                    elif cls is Alias:
                        a = anchors.get(ev.anchor)
                        if a is None:
                            problems.append(_problem("DRA001", f"found undefined alias *{ev.anchor}", source,
                                                     doc_index, _mark_span(ev.start_mark, ev.end_mark, lo)))
                            raise _Abort
                        v, size, height = a
                        nodes += size
                        if nodes > MAX_NODES:
                            problems.append(_problem(
                                "DRA005", f"alias *{ev.anchor} expands the document past {MAX_NODES} nodes "
                                "(an alias bomb?); the document was not checked",
                                source, doc_index, _mark_span(ev.start_mark, ev.end_mark, lo)))
                            raise _Abort
                        if depth + height > maxdepth:
                            maxdepth = depth + height
                            if maxdepth > MAX_DEPTH:
                                problems.append(_problem(
                                    "DRA005", f"alias *{ev.anchor} nests the document deeper than {MAX_DEPTH} "
                                    "levels; the document was not checked",
                                    source, doc_index, _mark_span(ev.start_mark, ev.end_mark, lo)))
                                raise _Abort
                    elif cls is DocEnd:
                        doc_end = ev.end_mark
                        break
                    else:
                        continue
                    # add a completed collection, or an alias's value, `v` (event `ev`) to its parent
                    if cur_map:
                        if key is _NOKEY:
                            kev = ev
                            key = v if type(v) is str else _bad_key(ctx, v, ev, lo, doc_index)
                            continue
                        if key is _SKIP:
                            key = _NOKEY
                            continue
                        if key is _MERGE:
                            merges = _add_merge(ctx, merges, cur, v, kev, lo, doc_index)
                            key = _NOKEY
                            continue
                        if key in cur:
                            dups.append((key, kev))
                        cur[key] = v
                        key = _NOKEY
                    elif cur is not None:
                        cur.append(v)
                    else:
                        root = v
                        root_ev = ev
            except _Abort:
                # The problem is recorded. Do not make the parser read the rest of this document (a
                # deeply nested one costs the pure-Python scanner quadratic time): go on at the next
                # document marker, as after a syntax error.
                return doc_index + 1, _next_marker(chunk, max(ev.start_mark.index, doc_start_index) + 1)
            else:
                _finish(ctx, root, root_ev, dups, (prev_end, doc_end), lo, io, doc_index)
                prev_end = doc_end
            in_doc = False
            doc_index += 1
    except ctx.b.YAMLError as e:
        return _syntax_error(ctx, e, chunk, lo, io, doc_index, in_doc, doc_start_index)
    except RecursionError:
        problems.append(_problem("DRA005", "the YAML parser ran out of stack (nesting too deep); "
                                 "the rest of the file was not checked", source, doc_index, Span.point(lo + 1, 1)))
        return doc_index + 1, None
    except Exception as e:  # noqa: BLE001 - a parser bug must still end as a problem, not a traceback
        line = lo + chunk.count("\n", 0, doc_start_index) + 1
        problems.append(_problem("DRA001", f"the YAML parser failed ({type(e).__name__}: {e}); "
                                 "this document was not checked", source, doc_index, Span.point(line, 1)))
        return doc_index + 1, _next_marker(chunk, doc_start_index + 1)


def _next_marker(chunk: str, start: int) -> int | None:
    m = _DOC_MARKER.search(chunk, start)
    return m.start() if m is not None and m.start() > 0 else None


def _parse_yaml(ctx: _Ctx) -> None:
    text = ctx.text
    lo = io = doc_index = 0
    chunk = text
    while True:
        doc_index, resume = _parse_chunk(ctx, chunk, lo, io, doc_index)
        if resume is None:
            return
        lo += chunk.count("\n", 0, resume)
        io += resume
        chunk = chunk[resume:]


def _bad_key(ctx: _Ctx, v: Any, ev: Any, lo: int, doc_index: int) -> Any:
    s = _key_string(v)
    sm = ev.start_mark
    if ev.__class__ is ctx.b.Scalar or ev.__class__ is ctx.b.Alias:
        span = _mark_span(sm, ev.end_mark, lo)
    else:
        span = Span.point(sm.line + 1 + lo, sm.column + 1)
    if s is not None:
        msg = (f"mapping key {ev.value if ev.__class__ is ctx.b.Scalar else s} is a {_describe(v).split()[0]}, "
               f"not a string; Kubernetes turns it into the string {s!r}, quote it to say so")
        ctx.result.problems.append(_problem("DRA008", msg, ctx.source, doc_index, span))
        return s
    msg = f"mapping key is a {_describe(v)}, not a string; the API server rejects it"
    if v is None:
        msg = "mapping key is null, not a string; the API server rejects it (quote it if you meant 'null')"
    ctx.result.problems.append(_problem("DRA008", msg, ctx.source, doc_index, span))
    return _SKIP


def _add_merge(ctx: _Ctx, merges: dict | None, cur: dict, v: Any, kev: Any, lo: int, doc_index: int) -> dict:
    if merges is None:
        merges = {}
    sources = v if isinstance(v, list) else [v]
    if not all(isinstance(s, dict) for s in sources):
        ctx.result.problems.append(_problem(
            "DRA001", "the value of a merge key '<<' must be a mapping or a list of mappings", ctx.source,
            doc_index, _mark_span(kev.start_mark, kev.end_mark, lo)))
        return merges
    merges.setdefault(id(cur), []).extend(sources)
    return merges


def _apply_merges(target: dict, sources: list) -> None:
    for src in sources:
        for k, val in src.items():
            if k not in target:
                target[k] = val


def _finish(ctx: _Ctx, root: Any, root_ev: Any, dups: list, where: tuple[Any, Any], lo: int, io: int,
            doc_index: int) -> None:
    result = ctx.result
    b = ctx.b
    if root is None and root_ev is not None and root_ev.__class__ is b.Scalar and root_ev.value == "" \
            and not root_ev.style and root_ev.ctag is None and root_ev.anchor is None:
        result.empty += 1
        return
    start, end = where
    if start is None:
        replay = _Replay(b, root, ctx.text, io, lo, 0, io + end.index)
    else:
        replay = _Replay(b, root, ctx.text, io + start.index, lo + start.line, start.column, io + end.index)
    if dups:
        first = replay.first_lines()
        for key, kev in dups:
            span = _mark_span(kev.start_mark, kev.end_mark, lo)
            line = first.get((span.line, span.column))
            where_text = f" (first defined at line {line})" if line else ""
            result.problems.append(_problem("DRA002", f"duplicate key {key!r}{where_text}", ctx.source, doc_index,
                                            span))
    if not isinstance(root, dict):
        sm = root_ev.start_mark
        em = root_ev.end_mark
        what = "a list" if isinstance(root, list) else f"a scalar ({_describe(root)})"
        result.problems.append(_problem(
            "DRA003", f"the document is {what}, not an object; a Kubernetes manifest is a mapping "
            "with apiVersion, kind and metadata", ctx.source, doc_index,
            Span.point(sm.line + 1 + lo, sm.column + 1) if isinstance(root, list)
            else _mark_span(sm, em, lo)))
        return
    _emit(ctx, root, replay, replay, doc_index)


def _emit(ctx: _Ctx, root: dict, fill: Callable, replay: Any, doc_index: int) -> None:
    """Append the document, or its items when it is a `kind: List`."""
    result = ctx.result
    items = root.get("items")
    if root.get("kind") == "List" and isinstance(items, list) and root.get("apiVersion", "v1") == "v1":
        for i, item in enumerate(items):
            item_fill = replay.item(i)
            if not isinstance(item, dict):
                span = _locate_item(fill, i)
                result.problems.append(_problem(
                    "DRA003", f"item {i} of the List is {_describe(item)}, not an object", ctx.source,
                    doc_index, span, ("items", i)))
                continue
            result.documents.append(Document(
                source=ctx.source, index=doc_index, data=item, positions=_lazy(item_fill, 0),
                text=ctx.text, scalar_styles=_lazy(item_fill, 1), list_item=i))
        return
    result.documents.append(Document(
        source=ctx.source, index=doc_index, data=root, positions=_lazy(fill, 0), text=ctx.text,
        scalar_styles=_lazy(fill, 1)))


def _locate_item(fill: Callable, i: int) -> Span:
    pos = fill()[0]
    node = pos.get(("items", i)) or pos.get(("items",)) or pos.get(())
    return node.value if node else Span.point()


_DOC_MARKER = re.compile(r"^---(?=[ \t\r\n]|$)", re.M)


def _syntax_error(ctx: _Ctx, e: Any, chunk: str, lo: int, io: int, doc_index: int, in_doc: bool,
                  doc_start_index: int) -> tuple[int, int | None]:
    """Record a DRA001 for a parser error; return where to resume (the next `---` after the error)."""
    pm = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    line0, col0, idx = (pm.line, pm.column, pm.index) if pm is not None else (0, 0, 0)
    problem = " ".join((getattr(e, "problem", None) or str(e).split("\n")[0]).split())
    # ruamel's pure scanner names the character ("found character '\\t' that cannot ..."), libyaml does not.
    problem = re.sub(r"found character '.*?' that", "found character that", problem)
    if problem == "mapping values are not allowed here":  # ruamel's wording of libyaml's message
        problem = "mapping values are not allowed in this context"
    context = " ".join((getattr(e, "context", None) or "").split())
    cm = getattr(e, "context_mark", None)
    msg = problem
    if context:
        if cm is not None and pm is not None and (cm.line, cm.column) != (pm.line, pm.column):
            msg = f"{problem} ({context} at line {cm.line + 1 + lo}, column {cm.column + 1})"
        else:
            msg = f"{problem} ({context})"
    # Tabs: say what is really wrong.
    line_start = chunk.rfind("\n", 0, idx) + 1
    line_end = chunk.find("\n", idx)
    line_text = chunk[line_start:line_end if line_end != -1 else len(chunk)]
    lead = line_text[:len(line_text) - len(line_text.lstrip(" \t"))]
    if chunk[idx:idx + 1] == "\t" or ("\t" in lead and col0 <= len(lead)):
        msg = "tab character used for indentation; YAML allows only spaces"
        if "\t" in lead:
            col0 = lead.index("\t")
    # Resync at the next document marker after the error.
    resume = None
    for m in _DOC_MARKER.finditer(chunk, doc_start_index + 1 if in_doc else 0):
        start = m.start()
        if start == 0:
            continue
        mline = chunk.count("\n", 0, start)
        if mline > line0 or (mline == line0 and start >= idx):
            resume = start
            break
    if resume is None and chunk[line_end:].strip() and line_end != -1:
        msg += "; the rest of the file was not checked"
    ctx.result.problems.append(_problem("DRA001", msg, ctx.source, doc_index, Span.point(line0 + 1 + lo, col0 + 1)))
    return doc_index + 1, resume


# ---------------------------------------------------------------------------
# JSON (a position-tracking parser: JSON allows tabs, which YAML rejects in places).


class _JSONError(Exception):
    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


_JSON_WS = re.compile(r"[ \t\r\n]*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_JSON_STR_CHUNK = re.compile(r'[^"\\\x00-\x1f]*')
_JSON_ESC = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _JSON:
    def __init__(self, ctx: _Ctx, text: str, doc_index: int) -> None:
        self.ctx = ctx
        self.text = text
        self.doc_index = doc_index
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        self.pos: dict[Path, Node] = {}
        self.styles: dict[Path, str | None] = {}
        self.nodes = 0

    def lc(self, i: int) -> tuple[int, int]:
        import bisect

        ln = bisect.bisect_right(self.line_starts, i) - 1
        return ln + 1, i - self.line_starts[ln] + 1

    def span(self, a: int, b: int) -> Span:
        l1, c1 = self.lc(a)
        l2, c2 = self.lc(b)
        return Span(l1, c1, l2, c2)

    def ws(self, i: int) -> int:
        return _JSON_WS.match(self.text, i).end()

    def value(self, i: int, path: Path, key_span: Span | None, depth: int) -> tuple[Any, int]:
        text = self.text
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Limit(f"the document has more than {MAX_NODES} nodes; it was not checked", i)
        c = text[i:i + 1]
        if c == "{" or c == "[":
            if depth >= MAX_DEPTH:
                raise _Limit(f"nesting deeper than {MAX_DEPTH} levels; the document was not checked", i)
            start = i
            if c == "{":
                out: Any = {}
                i = self.ws(i + 1)
                if text[i:i + 1] == "}":
                    i += 1
                else:
                    first_lines: dict[str, int] = {}
                    while True:
                        if text[i:i + 1] != '"':
                            raise _JSONError("expected a string key in double quotes", i)
                        ks = i
                        k, i = self.string(i)
                        kspan = self.span(ks, i)
                        i = self.ws(i)
                        if text[i:i + 1] != ":":
                            raise _JSONError("expected ':' after an object key", i)
                        i = self.ws(i + 1)
                        v, i = self.value(i, path + (k,), kspan, depth + 1)
                        if k in out:
                            self.ctx.result.problems.append(_problem(
                                "DRA002", f"duplicate key {k!r} (first defined at line {first_lines[k]})",
                                self.ctx.source, self.doc_index, kspan))
                        else:
                            first_lines[k] = kspan.line
                        out[k] = v
                        i = self.ws(i)
                        c = text[i:i + 1]
                        if c == ",":
                            i = self.ws(i + 1)
                            continue
                        if c == "}":
                            i += 1
                            break
                        raise _JSONError("expected ',' or '}' in an object", i)
            else:
                out = []
                i = self.ws(i + 1)
                if text[i:i + 1] == "]":
                    i += 1
                else:
                    n = 0
                    while True:
                        v, i = self.value(i, path + (n,), None, depth + 1)
                        out.append(v)
                        n += 1
                        i = self.ws(i)
                        c = text[i:i + 1]
                        if c == ",":
                            i = self.ws(i + 1)
                            continue
                        if c == "]":
                            i += 1
                            break
                        raise _JSONError("expected ',' or ']' in an array", i)
            self.pos[path] = Node(key_span, self.span(start, i))
            return out, i
        if c == '"':
            start = i
            s, i = self.string(i)
            self.pos[path] = Node(key_span, self.span(start, i))
            self.styles[path] = '"'
            return s, i
        m = _JSON_NUMBER.match(text, i)
        if m is not None and m.end() > i:
            tok = m.group()
            v: Any = float(tok) if (m.group(1) or m.group(2)) else int(tok)
            if type(v) is float and v.is_integer() and -1e21 < v < 1e21:
                v = int(v)  # as Go's JSON round trip does (see the module docstring)
            self.pos[path] = Node(key_span, self.span(i, m.end()))
            return v, m.end()
        for word, v in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, i):
                self.pos[path] = Node(key_span, self.span(i, i + len(word)))
                return v, i + len(word)
        if not c:
            raise _JSONError("unexpected end of file, expected a value", i)
        raise _JSONError(f"unexpected character {c!r}, expected a value", i)

    def string(self, i: int) -> tuple[str, int]:
        text = self.text
        start = i
        i += 1
        parts = []
        while True:
            m = _JSON_STR_CHUNK.match(text, i)
            parts.append(m.group())
            i = m.end()
            c = text[i:i + 1]
            if c == '"':
                return "".join(parts), i + 1
            if c == "\\":
                e = text[i + 1:i + 2]
                if e in _JSON_ESC:
                    parts.append(_JSON_ESC[e])
                    i += 2
                    continue
                if e == "u":
                    h = text[i + 2:i + 6]
                    if len(h) != 4 or not all(ch in "0123456789abcdefABCDEF" for ch in h):
                        raise _JSONError("invalid \\u escape in a string", i)
                    cp = int(h, 16)
                    i += 6
                    if 0xD800 <= cp < 0xDC00 and text[i:i + 2] == "\\u":
                        h2 = text[i + 2:i + 6]
                        if len(h2) == 4 and all(ch in "0123456789abcdefABCDEF" for ch in h2):
                            lo_ = int(h2, 16)
                            if 0xDC00 <= lo_ < 0xE000:
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo_ - 0xDC00)
                                i += 6
                    parts.append(chr(cp) if not 0xD800 <= cp < 0xE000 else "\ufffd")
                    continue
                raise _JSONError(f"invalid escape {text[i:i + 2]!r} in a string", i)
            if not c:
                raise _JSONError("unterminated string", start)
            raise _JSONError("control character in a string (escape it)", i)


class _Limit(Exception):
    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


def _parse_json(ctx: _Ctx) -> bool:
    """Parse the text as a stream of JSON values; False (and nothing recorded) when it is not JSON."""
    text = ctx.text
    forced = ctx.source.lower().endswith(".json")
    docs: list = []
    problems_before = len(ctx.result.problems)
    i = _JSON_WS.match(text, 0).end()
    doc_index = 0
    pending: list = []
    try:
        while i < len(text):
            j = _JSON(ctx, text, doc_index)
            start = i
            try:
                value, i = j.value(i, (), None, 0)
            except _Limit as e:
                ln, col = j.lc(e.index)
                pending.append(_problem("DRA005", str(e), ctx.source, doc_index, Span.point(ln, col)))
                return _json_done(ctx, docs, pending)
            docs.append((doc_index, value, j, start))
            doc_index += 1
            i = j.ws(i)
    except _JSONError as e:
        if not forced and not docs and len(ctx.result.problems) == problems_before:
            return False
        ln, col = _JSON(ctx, text, 0).lc(e.index)
        pending.append(_problem("DRA001", f"invalid JSON: {e}; the rest of the file was not checked",
                                ctx.source, doc_index, Span.point(ln, col)))
    return _json_done(ctx, docs, pending)


def _json_done(ctx: _Ctx, docs: list, pending: list) -> bool:
    for doc_index, value, j, _start in docs:
        if not isinstance(value, dict):
            node = j.pos.get(())
            what = "a list" if isinstance(value, list) else f"a scalar ({_describe(value)})"
            ctx.result.problems.append(_problem(
                "DRA003", f"the document is {what}, not an object; a Kubernetes manifest is a mapping "
                "with apiVersion, kind and metadata", ctx.source, doc_index,
                node.value if node else Span.point()))
            continue
        tables = (j.pos, j.styles)
        holder = _JSONItems(tables)
        _emit(ctx, value, lambda t=tables: t, holder, doc_index)
    ctx.result.problems.extend(pending)
    return True


class _JSONItems:
    def __init__(self, tables: tuple[dict, dict]) -> None:
        self.tables = tables

    def item(self, i: int) -> Callable[[], tuple[dict, dict]]:
        pos, styles = self.tables
        ipos = {p[2:]: n for p, n in pos.items() if len(p) >= 2 and p[0] == "items" and p[1] == i}
        ist = {p[2:]: s for p, s in styles.items() if len(p) >= 2 and p[0] == "items" and p[1] == i}
        return lambda: (ipos, ist)


# ---------------------------------------------------------------------------
# Decoding.


def _decode(source: str, data: bytes, result: LoadResult) -> str | None:
    def bad(message: str, line: int = 1, column: int = 1) -> None:
        result.problems.append(_problem("DRA004", message, source, 0, Span.point(line, column)))

    if len(data) > MAX_BYTES:
        result.problems.append(_problem(
            "DRA005", f"the file is {len(data)} bytes, more than the {MAX_BYTES // (1024 * 1024)} MiB limit; "
            "it was not checked", source, 0, Span.point()))
        return None
    for bom, codec in ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
                       (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            try:
                text = data[len(bom):].decode(codec)
            except UnicodeDecodeError as e:
                bad(f"invalid {codec.upper()} data at byte {e.start + len(bom)} (the file starts with a "
                    f"{codec.upper()} byte order mark)")
                return None
            return _check_text(text, bad)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\0")
    if nul != -1:
        line = data.count(b"\n", 0, nul) + 1
        ls = data.rfind(b"\n", 0, nul) + 1
        col = len(data[ls:nul].decode("utf-8", "replace")) + 1
        bad("binary file: it contains NUL bytes (first at this position); save it as UTF-8 text", line, col)
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        ls = data.rfind(b"\n", 0, e.start) + 1
        col = len(data[ls:e.start].decode("utf-8", "replace")) + 1
        bad(f"invalid UTF-8 byte 0x{data[e.start]:02x}; the file must be UTF-8 text", line, col)
        return None
    return _check_text(text, bad)


def _check_text(text: str, bad: Callable) -> str | None:
    if text.startswith("\ufeff"):
        text = text[1:]
    nul = text.find("\0")
    if nul != -1:
        line = text.count("\n", 0, nul) + 1
        col = nul - (text.rfind("\n", 0, nul) + 1) + 1
        bad("binary file: it contains NUL characters (first at this position)", line, col)
        return None
    return text


# ---------------------------------------------------------------------------
# Entry point.


def load(source: str, data: bytes, *, pure_python: bool | None = None) -> LoadResult:
    """Turn the bytes of one source into Documents and Problems.

    `pure_python` forces ruamel's pure-Python parser (default: the C parser
    unless DRALINT_PURE_PYTHON=1 or it cannot be imported).
    """
    # The cyclic GC would otherwise run over and over while thousands of new, acyclic
    # containers and events are built (it more than doubled the cost of a load).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(source, data, pure_python)
    finally:
        if gc_was_enabled:
            gc.enable()


def _load(source: str, data: bytes, pure_python: bool | None) -> LoadResult:
    result = LoadResult()
    text = _decode(source, data, result)
    if text is None:
        return result
    b = _backend(_want_pure(pure_python))
    ctx = _Ctx(source, text, result, b)
    first = _JSON_WS.match(text, 0).end()
    if source.lower().endswith(".json") or text[first:first + 1] in ("{", "["):
        if _parse_json(ctx):
            result.problems.sort(key=lambda p: (p.document, p.span.line, p.span.column))
            return result
    _parse_yaml(ctx)
    result.problems.sort(key=lambda p: (p.document, p.span.line, p.span.column))
    return result
