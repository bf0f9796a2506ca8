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
- a problem or one of its fixes' edits that reaches outside its document;
- the current text may reach the file's cap of problems (MAX_PROBLEMS_PER_FILE): a fresh lint of it
  would then list no problem past the cap, and a DRA005 in their place (`_below_cap`: what the
  unchanged documents had, and the most each changed document can have);
- a document at its own cap (MAX_PROBLEMS_PER_DOCUMENT), or that a problem reported once per file
  (DRA011, on the first document of its apiVersion) may bring there by moving onto it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from ..model import Problem
from ..pipeline.load import MAX_PROBLEMS_PER_DOCUMENT, MAX_PROBLEMS_PER_FILE
from .convert import overlaps
from .engine import ONCE_PER_FILE
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


def _common_ends(old: str, new: str) -> tuple[int, int]:
    """The length of the longest common prefix of `old` and `new`, and of the longest common suffix of
    what follows it in both. Found by halving, each step comparing only the part not yet known equal:
    about twice the shorter text's characters in all, compared in C."""
    lo, hi = 0, min(len(old), len(new))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[lo:mid] == new[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, min(len(old), len(new)) - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid : len(old) - lo] == new[len(new) - mid : len(new) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return prefix, lo


def _starts_between(text: str, after: int, until: int) -> int:
    """How many pieces start in text(after, until]."""
    count = 0
    at = text.find("\n---", after)
    while at != -1 and at + 1 <= until:
        count += starts_piece(text, at + 1)
        at = text.find("\n---", at + 1)
    return count


class Judged:
    """One lint of a buffer, as a later text of the buffer can use it. `problems` are the lint's, in
    report order; `reads_others` the codes whose problems are never carried (None: carry nothing)."""

    __slots__ = ("path", "text", "problems", "reads_others", "_lines", "_cuttable", "_settings", "_seen", "_below")

    def __init__(self, path: str, text: Text, problems: list[Problem], reads_others: frozenset[str] | None):
        self.path = path
        self.text = text
        self.problems = problems
        self.reads_others = reads_others
        self._lines: list[tuple[int, int]] | None = None  # (first line, index) of the problems that may be carried
        self._cuttable: bool | None = None  # None until asked
        self._settings: list[str] = []  # its dralint lines, once known to be cuttable
        self._seen: tuple[Text, bool] | None = None  # the last current text asked about, and whether it can carry fixes
        self._below: tuple[int, list[int], int] | None = None  # `_room()`, once asked

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
        first, last = text.to_dralint(start)[0], text.to_dralint(end)[0]
        _, lines, moving = self._room()
        if bisect_right(lines, last) - bisect_left(lines, first) + moving > MAX_PROBLEMS_PER_DOCUMENT:
            return []  # a problem reported once per file moving onto it may bring it past its cap (or it was)
        at = bisect_left(self._lines, (first, -1))
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
            self._seen = (text, carries and self._below_cap(text.text))
        return self._seen[1]

    def _room(self) -> tuple[int, list[int], int]:
        """The room its problems leave below the file's cap, less the problems reported once per file (each
        may move onto another document, when the first of its apiVersion changes: counted twice); the lines
        of its problems, in order; and how many of those once-per-file problems there are."""
        if self._below is None:
            problems = self.problems
            moving = sum(p.rule in ONCE_PER_FILE for p in problems)
            self._below = (MAX_PROBLEMS_PER_FILE - len(problems) - moving, sorted(p.span.line for p in problems), moving)
        return self._below

    def _below_cap(self, new: str) -> bool:
        """Whether a fresh lint of `new` surely lists every problem it finds: fewer than the file's cap, so
        that no fix carried is one it hides behind a DRA005 (the cap keeps the first problems; any document's,
        changed or not, may come before a carried one).

        Its count is at most what the linted text's documents that `new` holds unchanged had (their own
        text, their own problems), and MAX_PROBLEMS_PER_DOCUMENT for each changed one; a problem reported
        once per file may move onto an unchanged document (its first of an apiVersion removed): counted
        twice. A lint that reached the cap itself lists more than it, and carries nothing."""
        old = self.text.text
        room, lines, _ = self._room()
        prefix, suffix = _common_ends(old, new)
        # The changed pieces of each: from the one that holds the 4 characters before the change (a piece
        # ends where `\n---` and a blank follow it: those unchanged too) to the last whose start, newline
        # before it included, is not in the common suffix.
        first = _piece_start(new, max(0, prefix - 4))
        changed = 1 + _starts_between(new, first, len(new) - suffix)
        end = _piece_end(old, first)
        while end < len(old) and end - 1 < len(old) - suffix:
            end = _piece_end(old, end)
        start_line = self.text.to_dralint(first)[0]
        gone = bisect_left(lines, self.text.to_dralint(end)[0] if end < len(old) else len(old) + 2) - bisect_left(lines, start_line)
        return changed * MAX_PROBLEMS_PER_DOCUMENT <= room + gone
