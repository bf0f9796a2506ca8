"""Quick fixes for a buffer's current text from its last lint, which may be of an earlier text.

A code action never waits for a lint: it is answered from what the last lint of the buffer (in the
current config generation) found. When the buffer has been edited since, only what the edit cannot
have touched is offered: the buffer is cut into documents where the incremental lint cuts it
(dralint.lsp.incremental.cuts), and a document of the current text whose text is that of a document
of the linted text offers that document's quick fixes, moved to where it now stands (documents start
at a line start: their lines move, their columns do not). A document being re-judged offers nothing;
the client asks again when the new diagnostics arrive (the LSP's code action model).

What must stay true: a quick fix offered for a text is one a fresh lint of that text offers at the
same place, with the same edits (tests/test_lsp_nowait.py): never a range that no longer holds what
the fix replaces. So nothing is carried where a document's problems may depend on more than its own
text:
- the buffer cannot be cut (JSON, templates, CR line breaks, directives ...: `cuts` says None);
- a line naming dralint differs (suppressions span documents; the header's comments set the
  release and feature gates of every document);
- a problem of a rule that reads other documents (run scope) or the whole file (DRA011, once per
  file): `ConfigFacts.reads_others`;
- a problem or one of its fixes' edits that reaches outside its document.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Iterator

from ..model import Problem
from .convert import overlaps
from .incremental import cuts, moved_problem
from .text import Text


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


class Judged:
    """One lint of a buffer, by document: what a later text of the buffer can take of it.

    `problems` are the lint's, in report order; built on the first request that needs them."""

    __slots__ = ("path", "text", "problems", "reads_others", "_cuts", "_settings", "_by_text", "_per_piece", "_seen")

    def __init__(self, path: str, text: Text, problems: list[Problem], reads_others: frozenset[str] | None):
        self.path = path
        self.text = text
        self.problems = problems
        self.reads_others = reads_others  # None: not known, nothing is carried to another text
        self._cuts: list[int] | None = None  # built on first use; [] if the text cannot be cut
        self._settings: list[str] = []
        self._by_text: dict[str, int] = {}
        self._per_piece: list[list[int]] = []
        self._seen: tuple[Text, list[int] | None] | None = None  # the last current text asked about, and its cuts

    def at(self, text: Text, first: tuple[int, int], last: tuple[int, int]) -> Iterator[Problem]:
        """The problems whose quick fixes hold for `text`, touching the (line, column) range [first, last]
        of `text`, moved to where they stand in it (and only those that have fixes, when `text` is not
        the linted one)."""
        if text is self.text or text.text == self.text.text:
            yield from (p for p in self.problems if overlaps(p.span, first, last))
            return
        if self.reads_others is None or not self._indexed():
            return
        now = self._cuts_of(text)
        if now is None:
            return
        start, end = text.from_dralint(*first), text.from_dralint(*last)
        # The pieces the range touches (a point at a cut touches the piece that starts there and the one before).
        for n in range(max(0, bisect_left(now, start) - 1), min(len(now) - 1, bisect_right(now, end))):
            old = self._by_text.get(text.text[now[n] : now[n + 1]])
            if old is None:  # changed: being judged again
                continue
            lines = text.to_dralint(now[n])[0] - self.text.to_dralint(self._cuts[old])[0]  # type: ignore[index]
            for index in self._per_piece[old]:
                problem = self.problems[index]
                moved = moved_problem(problem, 0, lines, True) if lines else problem
                if overlaps(moved.span, first, last):
                    yield moved

    def _indexed(self) -> bool:
        """The linted text's documents, by text, and the problems each can carry; False if it cannot be cut."""
        if self._cuts is None:
            at = self._cuts = cuts(self.path, self.text.text) or []  # []: it cannot be cut
            if not at:
                return False
            old = self.text.text
            self._settings = _setting_lines(old)
            for n in range(len(at) - 1):
                self._by_text.setdefault(old[at[n] : at[n + 1]], n)
            self._per_piece = [[] for _ in range(len(at) - 1)]
            for index, problem in enumerate(self.problems):
                n = self._piece_of(problem)
                if n is not None:
                    self._per_piece[n].append(index)
        return bool(self._cuts)

    def _piece_of(self, problem: Problem) -> int | None:
        """The piece holding the problem and every edit of its fixes; None if it has no fix or reaches out."""
        fixes = problem.fixes
        if not fixes or problem.rule in self.reads_others:  # type: ignore[operator]
            return None
        text, at = self.text, self._cuts
        assert at is not None
        span = problem.span
        start = text.from_dralint(span.line, span.column)
        n = min(bisect_right(at, start) - 1, len(at) - 2)  # at the very end: the last piece
        low, high = at[n], at[n + 1]
        spans = [span, *(edit.span for fix in fixes for edit in fix.edits)]
        for s in spans:
            if not (low <= text.from_dralint(s.line, s.column) and text.from_dralint(max(s.end_line, s.line), s.end_column) <= high):
                return None
        return n

    def _cuts_of(self, text: Text) -> list[int] | None:
        """The current text's cuts, if its documents may carry fixes at all."""
        if self._seen is None or self._seen[0] is not text:
            now = cuts(self.path, text.text)
            if now is not None and _setting_lines(text.text) != self._settings:
                now = None
            self._seen = (text, now)
        return self._seen[1]
