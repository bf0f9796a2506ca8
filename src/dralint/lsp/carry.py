"""Quick fixes for a buffer's current text from its last lint, which may be of an earlier text.

A code action never waits for a lint: it is answered from what the last lint of the buffer (in the
current config generation) found. When the buffer has been edited since, only what the edits cannot
have touched is offered: the buffer is cut into documents where the incremental lint cuts it
(dralint.lsp.incremental), and a document of the current text whose text is that of a document of
the linted text offers that document's quick fixes, moved to where it now stands (documents start at
a line start: their lines move, their columns do not). A document being re-judged offers nothing;
the client asks again when the new diagnostics arrive (the LSP's code action model).

The linted document is looked for where the current one stands, counted from the start of the buffer
or from its end (what lies before all edits, or after them): only the documents the requested range
touches are compared, so an answer costs those documents and a few scans of the buffer, not a
table of every document.

What must stay true: a quick fix offered for a text is one a fresh lint of that text offers at the
same place, with the same edits (tests/test_lsp_incremental.py, tests/test_lsp_buffer.py): never a
range that no longer holds what the fix replaces. So nothing is carried where a document's problems
may depend on more than its own text:
- the buffer cannot be cut (JSON, templates, CR line breaks, directives ...: `incremental.cuttable`);
- a line naming dralint differs (suppressions span documents; the header's comments set the
  release and feature gates of every document);
- a problem of a rule that reads other documents (run scope) or the whole file (DRA011, once per
  file): `ConfigFacts.reads_others`;
- a problem or one of its fixes' edits that reaches outside its document.
One case is not told apart: an edit that brings the file past its cap of problems
(MAX_PROBLEMS_PER_FILE) hides, in the fresh lint, problems of later documents whose fixes are
still carried (they still replace exactly what they replaced).
"""

from __future__ import annotations

from bisect import bisect_left

from ..model import Problem
from .convert import overlaps
from .incremental import cuttable, moved_problem, starts_piece
from .text import Text

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterator


def _setting_lines(text: str) -> list[str]:
    """Every line that names dralint (in a YAML buffer: a `# dralint:` comment, or text that looks alike)."""
    found = []
    at = text.find("dralint")
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        found.append(text[start:end])
        at = text.find("dralint", end)
    return found


def _marker(text: str, at: int) -> bool:
    """Whether a piece other than the first starts at `at`."""
    return at > 0 and text.startswith("\n---", at - 1) and starts_piece(text, at)


def _piece_start(text: str, offset: int) -> int:
    """Where the piece holding `offset` starts."""
    at = text.rfind("\n---", 0, offset + 3)
    while at != -1 and not starts_piece(text, at + 1):
        at = text.rfind("\n---", 0, at + 3)
    return at + 1 if at != -1 else 0


def _piece_end(text: str, start: int) -> int:
    """Where the piece that starts at `start` ends: the next piece's start, or the end of the text."""
    at = text.find("\n---", start)
    while at != -1 and not starts_piece(text, at + 1):
        at = text.find("\n---", at + 1)
    return at + 1 if at != -1 else len(text)


class Judged:
    """One lint of a buffer, as a later text of the buffer can use it. `problems` are the lint's, in
    report order; `reads_others` the codes whose problems are never carried (None: carry nothing)."""

    __slots__ = ("path", "text", "problems", "reads_others", "_lines", "_cuttable", "_settings", "_seen")

    def __init__(self, path: str, text: Text, problems: list[Problem], reads_others: frozenset[str] | None):
        self.path = path
        self.text = text
        self.problems = problems
        self.reads_others = reads_others
        self._lines: list[tuple[int, int]] | None = None  # (first line, index) of the problems that may be carried
        self._cuttable: bool | None = None  # None until asked
        self._settings: list[str] = []  # its dralint lines, once known to be cuttable
        self._seen: tuple[Text, bool] | None = None  # the last current text asked about, and whether it can carry fixes

    def at(self, text: Text, first: tuple[int, int], last: tuple[int, int]) -> Iterator[Problem]:
        """The problems touching the (line, column) range [first, last] of `text` whose quick fixes hold
        for `text`, at their places in it (when `text` is not the linted text: only problems with fixes)."""
        if text is self.text or text.text == self.text.text:
            yield from (p for p in self.problems if overlaps(p.span, first, last))
            return
        if not self._carries_to(text):
            return
        new = text.text
        start, end = text.from_dralint(*first), text.from_dralint(*last)
        piece = _piece_start(new, max(0, start - 1))  # a range that starts at a piece's start touches the piece before
        while True:
            after = _piece_end(new, piece)
            found = self._linted_piece(new, piece, after)
            if found is not None:
                lines = text.to_dralint(piece)[0] - self.text.to_dralint(found)[0]
                for index in self._inside(found, found + after - piece):
                    problem = self.problems[index]
                    moved = moved_problem(problem, 0, lines, True) if lines else problem
                    if overlaps(moved.span, first, last):
                        yield moved
            if after >= len(new) or after > end:
                return
            piece = after

    def _linted_piece(self, new: str, start: int, end: int) -> int | None:
        """Where the linted text holds the piece new[start:end] as a piece of its own, counted from its start
        or from its end; None if it does not (the piece changed)."""
        old = self.text.text
        for at in dict.fromkeys((start, start + len(old) - len(new))):
            stop = at + end - start
            if (at == 0 or _marker(old, at)) and (stop == len(old) or _marker(old, stop)) and old[at:stop] == new[start:end]:
                return at
        return None

    def _inside(self, start: int, end: int) -> list[int]:
        """The problems with fixes that the linted piece [start, end] holds whole, fixes and all, in report order."""
        if self._lines is None:  # its problems by first line: a piece's are found without positioning every other
            self._lines = sorted((p.span.line, index) for index, p in enumerate(self.problems) if p.rule not in self.reads_others)  # type: ignore[operator]
        text = self.text
        at = bisect_left(self._lines, (text.to_dralint(start)[0], -1))
        last = text.to_dralint(end)[0]
        found = []
        while at < len(self._lines) and self._lines[at][0] <= last:
            index = self._lines[at][1]
            fixes = self.problems[index].fixes
            spans = [self.problems[index].span, *(edit.span for fix in fixes for edit in fix.edits)]
            if fixes and all(start <= text.from_dralint(s.line, s.column) and text.from_dralint(max(s.end_line, s.line), s.end_column) <= end for s in spans):
                found.append(index)
            at += 1
        return sorted(found)

    def _carries_to(self, text: Text) -> bool:
        """Whether fixes can be carried from the linted text to `text` at all."""
        if self.reads_others is None:
            return False
        if self._cuttable is None:
            self._cuttable = cuttable(self.path, self.text.text)
            self._settings = _setting_lines(self.text.text) if self._cuttable else []
        if self._seen is None or self._seen[0] is not text:
            carries = self._cuttable and cuttable(self.path, text.text) and _setting_lines(text.text) == self._settings
            self._seen = (text, carries)
        return self._seen[1]
