"""The language server's lint of a buffer document by document: only the documents that changed are judged again.

A buffer is cut at its `---` lines into pieces, one document each. Each piece is checked as a
source of its own (dralint.pipeline.run.Alone) and what it yields, its problems and run-scope
records, is kept under the piece's text and everything else its outcome depends on: the buffer's
path (ignore-paths, kustomize), its options (config generation), the release and feature gates of
the buffer's header comments, and whether it is the header piece. A piece met again, wherever it
now stands, is moved to its place: lines by the lines before it, document indices by the
documents before it. The run-scope rules are judged every time over every piece's records
(dralint.pipeline.run.Alone.judge), with the workspace's, so references between documents stay
current. A buffer keeps the pieces of its last lint only.

What must stay true: the problems are those `lint` finds in the whole buffer, exactly
(tests/test_lsp_incremental.py compares both after random edits through a real client). Where a
piece alone could differ from the same text inside the whole, `lint_pieces` answers None and the
whole buffer is linted:
- the buffer cannot be cut where the YAML parser cuts it: JSON, a directive or `...` line, a line
  break other than "\\n", a byte-order mark; or `{{` may make the whole file a template;
- a `# dralint:` comment other than the header piece's release and feature-gates comments
  (suppressions span documents; a file's settings apply to all of them);
- a syntax error met on a piece's last line or at its end (in the whole, the parser meets the next
  piece's `---` there), or in a document that held other loader findings (triage of a piece alone
  keeps only the error); a piece that triage passes over alone (the whole file's triage decides);
  DRA011 (reported once per file); failed positions; so many problems that a per-document or the
  per-file cap applies; more pieces than the cache holds.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from functools import partial

from ..api import Place
from ..model import Edit, Fix, Problem, Span
from ..pipeline.gate_settings import file_gates
from ..pipeline.load import MAX_PROBLEMS_PER_DOCUMENT, MAX_PROBLEMS_PER_FILE, load
from ..pipeline.partial import LintResult, PartialResult
from ..pipeline.releases import file_release
from ..pipeline.run import Alone, LintOptions
from ..pipeline.sources import Source
from .encode import lintable

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

# Where the YAML reader itself resumes after an error (dralint.pipeline.load.yaml_reader._DOC_MARKER): a document start.
_MARKER = re.compile(r"^---(?=[ \t\n]|$)", re.M)
# Found with `in`, many times faster than a regular expression over a large buffer; a two-character
# needle only where its first character, found by a one-character search, is there at all.
_UNCUTTABLE = ("\r", "\x85", "\u2028", "\u2029", "\ufeff", "\n...")
_UNLESS_NONE = (("{", "{{"), ("%", "\n%"))
_JSON_START = re.compile(r"[ \t\n]*[\[{]")
_HEADER_SETTING = re.compile(r"[ \t]*#[ \t]*dralint:[ \t]*(?:kubernetes-version|feature-gates)=[^ \t\n#]*[ \t]*")
_CONTENT = re.compile(r"^[ \t]*[^ \t\n#]", re.M)
# Loader and per-file findings a piece alone cannot be trusted with (see the module docstring).
_WHOLE_FILE = frozenset({"DRA004", "DRA005", "DRA006", "DRA011"})
_AT_LINE = re.compile(r"at line (\d+)(?=[,)])")  # DRA001 and DRA002 name a line in their message: the last such
_NOT_CHECKED = "; the rest of the file was not checked"  # DRA001 where no `---` follows
MAX_PIECES = 20_000  # kept for every buffer together, the least recently used dropped first


class _Unmovable(Exception):
    """A record holds something whose place cannot be told (a plugin's own class): the piece is not kept."""


class _Piece:
    """What one piece yields, as checked alone (its first line is line 1, its first document 0).

    Placed, its records are made once per document offset, with Places that read the line offset from
    the piece (`_lines`) when positioned: a line typed above it moves it without a record remade. The
    judging that reads them positions every problem it reports before the next lint places the piece
    again (the report order sorts by position); the same text twice in a buffer gets records of its own."""

    __slots__ = ("problems", "records", "first", "documents", "indices", "lines", "syntax", "_at", "_moved", "_lines", "_lazy", "_lint")

    def __init__(self, partial: PartialResult, indices: int, lines: int, syntax: int | None):
        self.problems = partial.result.problems
        self.records = partial.records
        self.first = partial.first
        self.documents = partial.result.documents
        self.indices = indices  # document indices the piece takes up in the stream
        self.lines = lines  # line breaks in it
        self.syntax = syntax  # the line of its syntax error (DRA001), if it has one
        self._at: tuple[int, int, bool] = (0, 0, True)
        self._moved: list[Problem] = self.problems
        self._lines = [0]  # the lines before it, where its records' Places read them
        self._lazy: tuple[int, dict, dict] | None = None  # (document offset, records, first places)
        self._lint = -1  # the lint that placed it last

    def placed(self, documents: int, lines: int, last: bool, lint: int) -> tuple[list[Problem], dict, dict] | None:
        """Its problems, records and first places with `documents` documents and `lines` lines before it,
        in lint number `lint`; None if it cannot stand there (see `_check`)."""
        if not last and self.syntax is not None and self.syntax >= self.lines:
            return None
        if (documents, lines, last) != self._at:
            self._at, self._moved = (documents, lines, last), [moved_problem(p, documents, lines, last) for p in self.problems]
        if not self.records:
            return self._moved, self.records, self.first
        if self._lint == lint:  # placed twice in one buffer: the second place's records are its own
            return self._moved, *self._records(documents, lines, None)
        self._lint = lint
        if self._lazy is None or self._lazy[0] != documents:
            self._lazy = (documents, *self._records(documents, 0, self._lines))
        self._lines[0] = lines
        return self._moved, self._lazy[1], self._lazy[2]

    def _records(self, documents: int, lines: int, cell: list[int] | None) -> tuple[dict, dict]:
        records = {release: {key: [_moved(r, documents, lines, cell) for r in found] for key, found in by_key.items()}
                   for release, by_key in self.records.items()}
        first = {release: place._replace(document=place.document + documents) for release, place in self.first.items()}
        return records, first


_pieces: OrderedDict[tuple, _Piece | None] = OrderedDict()  # None: a piece that must be linted in its whole
_variants: dict[tuple, tuple[Alone, Alone]] = {}  # the header piece's checker and the others'
_last: dict[str, list[tuple]] = {}  # path -> the keys of its pieces at its last lint
_owners: dict[int, LintOptions] = {}  # the options the keys name by id, held so that no id is reused meanwhile
_lints = [0]  # lints so far: a piece placed twice in one is told by it


def forget() -> None:
    """Settings or workspace files changed: nothing kept may be trusted."""
    _pieces.clear()
    _last.clear()
    _variants.clear()
    _owners.clear()


def lint_pieces(path: str, text: str, options: LintOptions, known: dict[str, dict[str, list]] | None) -> LintResult | None:
    """`lint` of the buffer from its pieces, the changed ones checked again; None: lint it whole."""
    at = cuts(path, text)
    if at is None:
        return None
    header = text[: at[1]]
    release, gates = options.release, {}
    if "dralint" in text:
        if not _settings_only(header, text):
            return None
        data = lintable(header)
        release = file_release(path, data, options.release)[0]
        gates = file_gates(path, data, release)[0]
    _owners[id(options)] = options
    first_checker, rest_checker = _checkers(options, release, gates)
    context = (id(options), path, release, tuple(sorted(gates.items())))
    keys = [(context, n == 0, text[at[n] : at[n + 1]]) for n in range(len(at) - 1)]
    pieces = [_piece(key, path, first_checker if n == 0 else rest_checker) for n, key in enumerate(keys)]
    _keep_only(path, keys)
    _lints[0] += 1
    total = _assembled(keys, pieces, _lints[0])
    return first_checker.judge(total, known) if total is not None else None


def _assembled(keys: list[tuple], pieces: list[_Piece | None], lint: int) -> PartialResult | None:
    """The pieces at their places, as one file's partial result; None if one cannot stand for itself there."""
    total = PartialResult()
    total.result.files = 1
    listed, records, firsts = total.result.problems, total.records, total.first
    documents = lines = 0
    for n, piece in enumerate(pieces):
        if piece is None:
            return None
        try:
            placed = piece.placed(documents, lines, n == len(pieces) - 1, lint)
        except _Unmovable:  # found when it first moves
            _pieces[keys[n]] = None
            return None
        if placed is None:
            return None
        problems, by_release, first = placed
        listed.extend(problems)
        total.result.documents += piece.documents
        for at, by_key in by_release.items():
            firsts.setdefault(at, first[at])
            mine = records.setdefault(at, {})
            for collector, found in by_key.items():
                mine.setdefault(collector, []).extend(found)
        documents += piece.indices
        lines += piece.lines
    # Each piece holds one document and at most its cap of problems: below the file's cap nothing is dropped.
    return total if len(listed) <= MAX_PROBLEMS_PER_FILE else None


def _keep_only(path: str, keys: list[tuple]) -> None:
    """The pieces of the buffer's previous lint that this one does not hold are dropped: what is kept is
    what the open buffers are made of, not their history."""
    now = set(keys)
    for key in _last.get(path, ()):
        if key not in now:
            _pieces.pop(key, None)
    _last[path] = keys


def cuttable(path: str, text: str) -> bool:
    """Whether the buffer may be cut into pieces at its `---` lines (see the module docstring)."""
    return not (path.lower().endswith(".json") or _JSON_START.match(text) or text.startswith(("%", "...")) or any(odd in text for odd in _UNCUTTABLE)
                or any(first in text and odd in text for first, odd in _UNLESS_NONE))


def starts_piece(text: str, at: int) -> bool:
    """Whether the `\\n---` found at `at - 1` starts a piece at `at`: as _MARKER, `---` then a blank or the end."""
    return text[at + 3 : at + 4] in ("", " ", "\t", "\n")


def cuts(path: str, text: str) -> list[int] | None:
    """Where the pieces start, and the end; None for a buffer that is not cut (see the module docstring)."""
    if not cuttable(path, text):
        return None
    cuts = [0]
    at = text.find("\n---")
    while at != -1:
        if starts_piece(text, at + 1):
            cuts.append(at + 1)
        at = text.find("\n---", at + 4)
    if len(cuts) == 1 or len(cuts) > MAX_PIECES:  # one document: nothing to keep apart; too many to keep
        return None
    cuts.append(len(text))
    return cuts


def _settings_only(header: str, text: str) -> bool:
    """Whether every line that names dralint is a release or feature-gates comment of the header piece."""
    at = text.find("dralint")
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        if end > len(header) or not _HEADER_SETTING.fullmatch(text, start, end):
            return False
        at = text.find("dralint", end)
    return True


def _checkers(options: LintOptions, release: str, gates: dict[str, bool]) -> tuple[Alone, Alone]:
    """The header piece's checker and the other pieces', with the release and gates the header's
    comments give the whole file."""
    key = (id(options), release, tuple(sorted(gates.items())))
    found = _variants.get(key)
    if found is None:
        first = _copy(options.at_the_stream())
        first.keep = frozenset({"fixes"})  # settled: plain problems and records, no document held
        rest = _copy(first)
        rest.release = release
        rest.feature_gates = {**options.feature_gates, **gates}
        found = _variants[key] = (Alone(first), Alone(rest))
    return found


def _copy(options: LintOptions) -> LintOptions:
    copy = LintOptions.__new__(LintOptions)
    for name in LintOptions.__slots__:
        setattr(copy, name, getattr(options, name))
    return copy


def _piece(key: tuple, path: str, checker: Alone) -> _Piece | None:
    """The piece `key` names (its text last), checked now unless it was before."""
    if key in _pieces:
        _pieces.move_to_end(key)
        return _pieces[key]
    piece = _check(checker, path, key[2], key[1])
    _pieces[key] = piece
    if len(_pieces) > MAX_PIECES:
        _pieces.popitem(last=False)
    return piece


def _check(checker: Alone, path: str, text: str, header: bool) -> _Piece | None:
    data = lintable(text)
    partial = checker.check(Source(path, data))
    if partial is None or partial.late or partial.result.files_passed_over:
        return None
    problems = partial.result.problems
    if len(problems) > MAX_PROBLEMS_PER_DOCUMENT or any(p.rule in _WHOLE_FILE for p in problems):
        return None
    syntax = [p.span.line for p in problems if p.rule == "DRA001"]
    # A syntax error ends the piece's only document (the whole file's reader, too, goes on at the next
    # `---`): the same as in the whole file where the parser met it before the piece's last line (no
    # look-ahead into what follows). Triage of the piece alone keeps only the loader's unreadable
    # problems, that of a whole manifest all of them: the piece stands for itself if it had no other.
    if syntax and (len(syntax) > 1 or partial.result.documents or any(p.rule != "DRA001" for p in load(path, data).problems)):
        return None
    # A piece after the first starts with its `---`: one document. The first holds one if it has content.
    indices = 1 if not header or _MARKER.match(text) or _CONTENT.search(text) else 0
    return _Piece(partial, indices, text.count("\n"), syntax[0] if syntax else None)


def _moved_span(span: Span, lines: int) -> Span:
    return Span(span.line + lines, span.column, span.end_line + lines, span.end_column)


def moved_problem(p: Problem, documents: int, lines: int, last: bool) -> Problem:
    moved = Problem.__new__(Problem)
    for name in Problem.__slots__:
        setattr(moved, name, getattr(p, name))
    moved.document = p.document + documents
    moved.span = _moved_span(p.span, lines)
    moved.fixes = [Fix(fix.description, tuple(Edit(_moved_span(e.span, lines), e.text) for e in fix.edits)) for fix in p.fixes]
    if p.rule in ("DRA001", "DRA002") and lines:
        found = [*_AT_LINE.finditer(p.message)]
        if found:  # the last: a key's repr before it may hold the same words
            at = found[-1]
            moved.message = f"{p.message[:at.start()]}at line {int(at.group(1)) + lines}{p.message[at.end():]}"
    if p.rule == "DRA001" and not last:  # a `---` follows it in the whole buffer, where the reader goes on
        moved.message = moved.message.removesuffix(_NOT_CHECKED)
    return moved


_PLAIN = frozenset({str, int, float, bool, type(None), bytes})


def _moved(value: Any, documents: int, lines: int, cell: list[int] | None) -> Any:
    """A run-scope record as made at its new place: its Places and Spans moved, the rest as it is. With
    `cell`, its Places read their line offset from it when positioned."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is Place:
        at = value.at
        if type(at) is not Span:
            raise _Unmovable(kind)
        moved = partial(_at_lines, at, cell) if cell is not None else Span(at.line + lines, at.column, at.end_line + lines, at.end_column)
        return value._replace(document=value.document + documents, at=moved)
    if kind is Span:
        if cell is not None:  # a Span of its own, outside a Place: nothing to read the offset when needed
            raise _Unmovable(kind)
        return _moved_span(value, lines)
    if kind is dict:
        return {k: _moved(v, documents, lines, cell) for k, v in value.items()}
    items = [v if type(v) in _PLAIN else _moved(v, documents, lines, cell) for v in value] if issubclass(kind, (tuple, list, frozenset)) else None
    if kind is tuple or kind is list or kind is frozenset:
        return kind(items)
    if items is not None and issubclass(kind, tuple) and hasattr(kind, "_make"):  # a named tuple
        return tuple.__new__(kind, items)
    raise _Unmovable(kind)


def _at_lines(span: Span, cell: list[int]) -> Span:
    lines = cell[0]
    return Span(span.line + lines, span.column, span.end_line + lines, span.end_column)
