"""Source bytes -> Documents (plain data + positions), or Problems; never a traceback.

The stages, one module each:

* decode.py: bytes -> text (UTF-8, UTF-16/32 with a BOM; binary is DRA004);
* json_reader.py: a JSON stream, with positions;
* json_fast.py: the JSON documents json's C decoder reads as json_reader would, positioned a path at a time;
* yaml_reader.py: YAML, from libyaml's events straight to plain data;
* position_table.py: a YAML document's positions, built when first read;
* scalars.py: what a scalar becomes (the one implementation, go-yaml v2's rules);
* lines.py: the one position convention (lines end at ``\\n``, columns in characters);
* result.py: what a load produces, with a cap on problems per document and file;
* backend.py: the C parser (ruamel.yaml.clib), or ruamel's pure-Python one
  (``DRALINT_PURE_PYTHON=1`` or ``load(..., pure_python=True)``).
"""

from __future__ import annotations

from ... import runtime
from ...lazy_re import LazyPattern
from .backend import backend as parser_backend
from .backend import c_parser_available, want_pure
from .decode import decode
from .result import MAX_DEPTH, MAX_NODES, MAX_PROBLEMS_PER_DOCUMENT, MAX_PROBLEMS_PER_FILE, LoadResult, Sink
from .scalars import resolve_plain
from .yaml_reader import read_yaml

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["LoadResult", "load", "plain_json", "MAX_BYTES", "MAX_NODES", "MAX_DEPTH", "MAX_PROBLEMS_PER_DOCUMENT",
           "MAX_PROBLEMS_PER_FILE", "c_parser_available", "resolve_plain"]

MAX_BYTES = 16 * 1024 * 1024  # size cap of one source

_JSON_WHITESPACE = LazyPattern(r"[ \t\r\n]*")  # JSON files only: compiled on first use
_JSON_OPENERS = frozenset(" \t\r\n{[")  # what a JSON stream's first character may be, as _looks_like_json reads it
_want_pure = want_pure  # the name tests and older callers use


def load(source: str, data: bytes, *, pure_python: bool | None = None, size: int | None = None, lists: bool = False,
         positioned: frozenset[str] = frozenset()) -> LoadResult:
    """Turn the bytes of one source into Documents and Problems.

    `pure_python` forces ruamel's pure-Python parser (default: the C parser
    unless DRALINT_PURE_PYTHON=1 or it cannot be imported). `size`: the file's size, where `data` may
    have been cut at the cap (sources.Source.size). `lists`: a top-level list is a Document too (a
    JSON 6902 patch), not DRA003. `positioned`: mapping keys whose places the YAML reader notes as it
    reads (the union of the run-scope rules' `positioned`), so that looking them up needs no replay.
    """
    result = LoadResult()
    text = decode(source, data, result.problems, MAX_BYTES, size)
    if text is None:
        return result
    sink = Sink(source, text, result)
    sink.keep_lists = lists
    sink.positioned = positioned
    runtime.collector_paused(_read, sink, pure_python)
    return result


def _read(sink: Sink, pure_python: bool | None) -> None:
    if not (_looks_like_json(sink.source, sink.text) and _read_json(sink)):
        read_yaml(sink, parser_backend(want_pure(pure_python)))
    sink.finish()


def plain_json(source: str, data: bytes) -> tuple[bool, Any]:
    """(True, the value) when the loader would read `data` as one JSON value and find no problem with it
    (decoding, syntax, numbers, limits), told by json's C decoder; (False, None) when only `load` can tell.

    For dralint.pipeline.triage: a file that is plainly no Kubernetes object (a package-lock.json) is passed over
    without the position-keeping reader, which is many times slower on a large file (bench/bench_load.py).
    """
    problems: list = []
    text = decode(source, data, problems, MAX_BYTES)
    if text is None or problems or not _looks_like_json(source, text):
        return False, None
    from .json_reader import whole_value  # noqa: PLC0415 - as in _read_json

    return whole_value(text)


def _looks_like_json(source: str, text: str) -> bool:
    if text[:1] not in _JSON_OPENERS:  # the first character decides unless it is whitespace
        return source.lower().endswith(".json")
    first = _JSON_WHITESPACE.match(text).end()
    return source.lower().endswith(".json") or text[first:first + 1] in ("{", "[")


def _read_json(sink: Sink) -> bool:
    # Imported when a file looks like JSON: a YAML file's start-up does not load the JSON reader (bench/startup.py).
    from .json_reader import read_json  # noqa: PLC0415

    return read_json(sink)
