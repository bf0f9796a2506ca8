"""YAML text -> documents through rapidyaml's C++ parser, a document at a time, with yaml_reader.py as
the authority: every document this reader cannot prove it reads as yaml_reader would goes to yaml_reader.

A file is cut into documents at its ``---`` lines (a ``---`` at column 0 always starts a document, see
yaml_reader.py). A document is read here when all of this holds, and by yaml_reader's `read_one` otherwise:

* its text has no anchor, alias or tag indicator, no tab, no line of 1,000 characters or more (libyaml
  refuses implicit keys past 1,024), and none of the keys whose places the main pass must note
  (Sink.positioned: those are answered from yaml_reader's events); the file has no directive, no ``...``,
  no CR and no other line break editors do not count (lines.py);
* rapidyaml parses it and emits it as JSON (it emits at most 64 levels: deeper documents go back);
* json's C decoder reads that JSON, numbers through scalars.resolve_number (the JSON of a plain scalar
  rapidyaml takes for a number is its text), with no NaN or Infinity;
* no JSON string could be a plain scalar that scalars.resolve_plain reads as no string (``yes``, ``~``,
  ``0755``, ``1_000``, ``<<``, an empty key): quoted and plain text look the same in JSON, so such a
  document is read by yaml_reader, whichever it was;
* the data has as many entries as rapidyaml's tree has nodes (a repeated key would have fewer), and is a
  mapping.

Positions are not built here: as for yaml_reader's documents, the position table is a replay of the
document's slice (position_table.Replay), built when a problem is reported. What yaml_reader reports
(syntax errors, limits, repeated keys ...) it reports for the documents it reads.

rapidyaml writes its own errors to file descriptor 2; they are sent to /dev/null while it parses, which
is why this reader only runs in a process dralint owns (dralint.runtime) and never on two threads.
Importing rapidyaml takes ~20 ms (it imports `deprecation` and `packaging`), so a process starts using
it only once it has read `WARM_BYTES` of YAML: a run of one small file does not pay for it
(bench/startup.py). The output is the same either way (tests/test_fast_reader.py).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from .backend import Backend, current
from .position_table import Replay, ReplayFile
from .result import MAX_NODES, Sink
from .scalars import WORDS, resolve_number, resolve_plain
from .yaml_reader import read_one, read_yaml

__all__ = ["read_fast", "available", "WARM_BYTES"]

WARM_BYTES = 256 * 1024  # YAML read by a process before rapidyaml is imported (bench/startup.py)

_MARKER = re.compile(r"^---(?=[ \t\r\n]|$)", re.M)  # yaml_reader's _DOC_MARKER
_PLAIN_MARKER = re.compile(r"---[ \t]*(?:#[^\n]*)?(?:\n|$)")  # a marker line with nothing else on it
_FILE_RISK = re.compile(r"^[%.]|[\r\x85\u2028\u2029\ufeff]", re.M)  # directives, `...`, odd breaks, a BOM
# Anchors, aliases and tags start after a space, an indicator or at a line's start; `&&`, `!=` and `! `
# in text are no indicators but are sent back all the same only where that is certain.
_DOC_RISK = re.compile(r"(?:^|[ \[{,:?-])[&*!](?![&=])|\t", re.M)
_WORD_STRINGS = "|".join(re.escape(w) for w in WORDS if w and w[0] not in "+-.")
# A JSON string that may be a plain scalar resolve_plain reads as no string. Matches lie between two quote
# characters; a string with an escape (a backslash) is text whatever it was.
_MAYBE_NOT_TEXT = re.compile(r'"(?:([-+.0-9][^"\\]*)|' + _WORD_STRINGS + r'|<<)"|"":')
_LONG_LINE = 1000

_STATE: dict[str, Any] = {"read": 0, "ryml": None}


def available() -> bool:
    """Whether rapidyaml can be imported (a platform without its wheel reads every document with yaml_reader)."""
    if _STATE["ryml"] is None:
        try:
            import ryml  # noqa: PLC0415 - ~20 ms: only once a process has read WARM_BYTES

            _STATE["ryml"] = ryml
        except ImportError:
            _STATE["ryml"] = False
    return _STATE["ryml"] is not False


def read_fast(sink: Sink, b: Backend) -> None:
    """Read `sink.text` (YAML) as yaml_reader.read_yaml does, documents it can prove plain through rapidyaml."""
    text = sink.text
    _STATE["read"] += len(text)
    if _STATE["read"] < WARM_BYTES or not available() or _FILE_RISK.search(text) or sink.lines.odd:
        read_yaml(sink, b)
        return
    b = current(b)
    sink.parser_coordinates = True
    replay_file = ReplayFile(b, sink)
    starts = [m.start() for m in _MARKER.finditer(text)]
    explicit = bool(starts) and starts[0] == 0  # else what precedes the first marker is read first
    if not explicit:
        starts.insert(0, 0)
    ends = starts[1:] + [len(text)]
    i = doc_index = line = at = 0  # `line`: the parser line (0-based) of character `at`
    while i < len(starts):
        s, e = starts[i], ends[i]
        line += text.count("\n", at, s)
        at = s
        if i or explicit:  # a `---` line: a document, empty or not
            marker = _PLAIN_MARKER.match(text, s)
            body = marker.end() if marker is not None else None  # a value on the marker line: yaml_reader's
        else:  # before the first marker: a document unless blank
            body = 0
        if body is not None and _blank(text, body, e):
            if i or explicit:
                sink.result.empty += 1  # `---` and nothing: yaml_reader's empty document
                doc_index += 1
            i += 1
            continue
        root = _plain(text, s, e, sink.positioned) if body is not None else None
        if root is not None:
            sink.document(root, Replay(replay_file, root, s, line, 0, e, doc_index), doc_index)
            doc_index += 1
            i += 1
            continue
        resume, doc_index = read_one(sink, b, replay_file, s, line, doc_index)
        if resume is None:
            return
        i += 1
        while i < len(starts) and starts[i] < resume:
            i += 1


def _blank(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] has only blank and comment lines."""
    for ln in text[start:end].split("\n"):
        t = ln.lstrip(" ")
        if t and t[0] != "#":
            return False
    return True


def _plain(text: str, start: int, end: int, positioned: frozenset[str]) -> dict | None:
    """The data of the document text[start:end] when it is provably what yaml_reader would read, else None."""
    doc = text[start:end]
    if _DOC_RISK.search(doc) is not None or any(k in doc for k in positioned):
        return None
    if len(doc) >= _LONG_LINE and max(map(len, doc.split("\n"))) >= _LONG_LINE:
        return None
    ryml = _STATE["ryml"]
    saved = os.dup(2)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        try:
            tree = ryml.parse_in_arena(doc.encode())
            root = tree.root_id()
            size = tree.size() - 1
            if tree.is_stream(root):
                if tree.num_children(root) != 1:
                    return None
                root = tree.first_child(root)
                size -= 1
            if size > MAX_NODES or not tree.is_map(root):
                return None
            emitted = ryml.emit_json(tree, root)
        except Exception:  # noqa: BLE001 - any error of rapidyaml's (syntax, depth): yaml_reader decides
            return None
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    for m in _MAYBE_NOT_TEXT.finditer(emitted):
        if m.group(1) is None or not _text(m.group(1)):
            return None
    try:
        data = json.loads(emitted, parse_int=_int, parse_float=resolve_number, parse_constant=_refuse)
    except ValueError:
        return None
    if type(data) is not dict or _entries(data) != size:
        return None
    return data


def _text(s: str) -> bool:
    """Whether resolve_plain reads `s` as text (an error there, e.g. on `0128`, is yaml_reader's to report)."""
    try:
        return type(resolve_plain(s)) is str
    except ValueError:
        return False


def _int(s: str) -> Any:
    return int(s) if len(s) < 19 else resolve_number(s)


def _refuse(s: str) -> Any:
    raise ValueError(s)  # NaN, Infinity: plain text for yaml_reader


def _entries(v: Any) -> int:
    """Mapping entries and sequence items in `v`, at every depth (rapidyaml's nodes but the root)."""
    n = 0
    todo = [v]
    pop, push = todo.pop, todo.append
    while todo:
        v = pop()
        n += len(v)
        for x in (v.values() if type(v) is dict else v):
            t = type(x)
            if t is dict or t is list:
                push(x)
    return n
