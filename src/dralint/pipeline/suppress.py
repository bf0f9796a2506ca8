"""Suppressions: inline `# dralint:` comments, applied with the config's `ignore-paths`; both reported when unused.

Inline comments (YAML comments only; a `#` inside a quoted or block string is
text, not a comment):

    name: Bad_Name   # dralint: disable=DRA301            this line
    # dralint: disable-next-line=DRA301,request-name-dns-label
    name: Bad_Name                                         the next line with content
    # dralint: disable-file=DRA011                         the whole file
    # dralint: disable-file                                the whole file, every rule

Codes are rule codes (`DRA301`) or slugs (`request-name-dns-label`), comma
separated; `disable` and `disable-next-line` without `=` mean every rule.
Free text may follow the list after a space (`# dralint: disable=DRA301
legacy name`). A problem belongs to the line where it starts. A
`disable=` comment on a line of its own applies to that line only, which
holds nothing to suppress; use `disable-next-line`.

Config (`.dralint.yaml`): `ignore-paths`, read by dralint.pipeline.ignore_paths.

Unused suppressions are reported as DRA900 (unused-suppression) at the
comment or at the config entry, with these exceptions: a code that the run
did not check (left out by `select`/`ignore`) is not reported, and a config
entry whose `paths` match none of the linted files is not reported (pre-commit
lints a few files at a time). DRA900 itself can only be suppressed by naming
it (`disable-file=DRA900`), never by a bare `disable`.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass

from ..catalog import ENGINE_CHECKS
from ..k8s.suggest import close_matches
from ..model import Document, Problem, Span
from .gate_settings import GATE_DIRECTIVE
from .ignore_paths import UNUSED, IgnorePaths
from .load import load
from .releases import RELEASE_DIRECTIVE
from .selection import Selection

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

DIRECTIVES = ("disable", "disable-next-line", "disable-file")
MAX_SUGGESTIONS = 1000  # different unknown codes in one run that get a did-you-mean

# `#`, then `dralint:` and whatever follows on the line.
_MARKER = re.compile(r"#[ \t]*dralint[ \t]*:[ \t]*")  # what follows on the line is the directive
_LINE_END = re.compile(r"[\r\n]")
_DIRECTIVE = re.compile(r"(?P<verb>[A-Za-z][A-Za-z-]*)(?:[ \t]*=[ \t]*(?P<codes>[A-Za-z0-9_.-]+(?:[ \t]*,[ \t]*[A-Za-z0-9_.-]+)*))?")


@dataclass(slots=True)  # one per code written: a comment may list a great many
class _Code:
    text: str  # as written: a code or a slug
    column: int  # 1-based column of the code in the comment (for unused reports)
    used: bool = False


@dataclass
class Directive:
    source: str
    line: int  # where the comment is
    column: int
    end_column: int
    verb: str  # disable | disable-next-line | disable-file
    target: int | None  # the line it applies to; None for the whole file
    codes: list[_Code] | None  # None: every rule
    alone: bool = False  # the comment is the only thing on its line
    used: bool = False  # for codes=None

    def matches(self, problem: Problem) -> list[_Code] | bool:
        if self.target is not None and problem.span.line != self.target:
            return False
        if self.codes is None:
            return problem.rule != UNUSED
        hits = [c for c in self.codes if c.text == problem.rule or c.text == problem.name]
        return hits or False


@dataclass
class _Bad:
    """A `# dralint:` comment that is not a directive: reported, never silently ignored."""

    source: str
    line: int
    column: int
    end_column: int
    message: str


def parse_comments(source: str, text: str, documents: list[Document]) -> tuple[list[Directive], list[_Bad]]:
    """Every `# dralint:` directive in the YAML comments of `text`."""
    if "dralint" not in text:
        return [], []
    # Lines end at \n, as every position dralint reports counts them (dralint.lines): a lone \r
    # breaks no line. Counted as the candidates come, from one to the next: a list of every line's
    # start was most of reading the comments of a file that has one.
    line, line_start, counted = 1, 0, 0
    strings: _Strings | None = None  # built for the first candidate
    candidates = []
    at = 0
    # The marker says `dralint`: where the word does not occur again, neither does the marker (a search for
    # the word skips the comments the pattern would stop at).
    while text.find("dralint", at) != -1 and (m := _MARKER.search(text, at)) is not None:
        i, body_start = m.span()
        at = i + 1  # text, not a comment: look on from its `#`; a comment may follow on the same line
        if i > 0 and text[i - 1] not in " \t\r\n":
            continue  # `a#b` is part of a plain scalar
        head = _LINE_END.split(text[body_start:body_start + 40], 1)[0]
        if RELEASE_DIRECTIVE.match(head) or GATE_DIRECTIVE.match(head):
            end = _LINE_END.search(text, body_start)
            at = end.start() if end else len(text)
            continue  # the release or gates comment, also misspelt: dralint.pipeline.releases / gate_settings report it
        breaks = text.count("\n", counted, i)
        if breaks:
            line += breaks
            line_start = text.rfind("\n", counted, i) + 1
        counted = i
        column = i - line_start + 1
        if strings is None:
            strings = _Strings(_string_spans(documents))
        within = strings.around(line, column)
        if within is not None:
            if within.end_line == line:
                # On from the string's end: the rest of a string full of comment-like text is not searched again.
                at = line_start + within.end_column - 1
            continue
        # A comment: the rest of its line is its text, read once.
        end = _LINE_END.search(text, body_start)
        at = end.start() if end else len(text)
        candidates.append((line, column, body_start - i, text[body_start:at]))
    if not candidates:
        return [], []
    lines = text.split("\n")  # what reads a line strips it: the \r of a \r\n break is left on
    next_line = _NextContentLine(lines)
    directives: list[Directive] = []
    bad: list[_Bad] = []
    for line, column, head, body in candidates:
        end_column = column + head + len(body)
        d = _DIRECTIVE.match(body)
        verb = d.group("verb").lower() if d else ""
        rest = body[d.end():] if d else body
        if not d or verb not in DIRECTIVES or (rest and not rest[0] in " \t"):
            close = close_matches(verb or body.split("=")[0].strip(), DIRECTIVES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            bad.append(_Bad(source, line, column, end_column,
                            f"not a dralint directive: {body.strip()!r}{hint} (use disable=CODES, disable-next-line=CODES or disable-file[=CODES])"))
            continue
        codes: list[_Code] | None = None
        if d.group("codes"):
            codes = []
            offset = head + d.start("codes")
            for cm in re.finditer(r"[A-Za-z0-9_.-]+", d.group("codes")):
                codes.append(_Code(cm.group(), column + offset + cm.start()))
        if verb == "disable-file":
            target = None
        elif verb == "disable":
            target = line
        else:
            target = next_line.after(line)
        alone = not lines[line - 1][: column - 1].strip()
        directives.append(Directive(source, line, column, end_column, verb, target, codes, alone))
    return directives, bad


class _NextContentLine:
    """The line a `disable-next-line` comment covers: the next one that is not blank nor a comment.

    Asked in line order, it remembers its last answer: the comments before one content line (or
    at the end of the file) are read once, not once for each comment above them.
    """

    __slots__ = ("lines", "found", "none_after")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.found = 0  # the last content line found
        self.none_after: int | None = None  # no line after this one has content

    def after(self, line: int) -> int:
        if line < self.found:
            return self.found  # the lines between are blank or comments: `found` is the next
        if self.none_after is not None and line >= self.none_after:
            return line + 1
        for n in range(line + 1, len(self.lines) + 1):
            stripped = self.lines[n - 1].strip()
            if stripped and not stripped.startswith("#"):
                self.found = n
                return n
        self.none_after = line
        return line + 1


class _Strings:
    """The source ranges of scalars, and whether a point lies inside one (by bisection: a file with
    many strings that hold a `#` and many comments must not compare each comment with each string)."""

    __slots__ = ("spans", "starts", "reach")

    def __init__(self, spans: list[Span]) -> None:
        self.spans = sorted(spans)
        self.starts = [(s.line, s.column) for s in self.spans]
        # reach[i]: the furthest end among spans[0..i]; a point at or past it is inside none of them.
        self.reach: list[tuple[int, int]] = []
        furthest = (0, 0)
        for s in self.spans:
            furthest = max(furthest, (s.end_line, s.end_column))
            self.reach.append(furthest)

    def around(self, line: int, column: int) -> Span | None:
        """The span of a scalar the point lies inside, or None."""
        point = (line, column)
        i = bisect.bisect_right(self.starts, point) - 1  # the last span that starts at or before it
        while i >= 0 and self.reach[i] > point:
            span = self.spans[i]
            if point < (span.end_line, span.end_column):
                return span
            i -= 1
        return None


def _string_spans(documents: list[Document]) -> list[Span]:
    """Source ranges of every scalar (keys and values) of the documents that hold a `#` in a string:
    a `#` inside one is not a comment. A `#` after a space or a line break ends a plain scalar, and in a
    quoted or block scalar it is a `#` of the string: a document none of whose strings holds one has no
    comment-like text inside a scalar, and its position table (the cost of a replay of the document,
    two thirds of a run over files that each carry a suppression) is not built."""
    spans: list[Span] = []
    for doc in documents:
        if not _holds_hash(doc.data):
            continue
        for path, node in doc.positions.items():
            if node.key is not None:
                spans.append(node.key)
            if not isinstance(_at(doc.data, path), (dict, list)):
                if node.value.end_line > node.value.line or node.value.end_column > node.value.column + 1:
                    spans.append(node.value)
    return spans


def _holds_hash(data: Any) -> bool:
    """Whether a string of `data`, key or value, at any depth, holds a `#`."""
    pending = [data]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            if "#" in node:
                return True
        elif isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and "#" in key:
                    return True
                pending.append(value)
        elif isinstance(node, list):
            pending.extend(node)
    return False


def _at(data: Any, path: tuple) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


# ---------------------------------------------------------------------------
# Applying them, file by file as the run goes.


class _FileSuppressions:
    """One file's directives, by the line they cover, and what each kind of problem found among them.

    Whether a directive suppresses a problem, and which of its codes that uses, depends only on the
    problem's line (for a directive that covers one), rule and slug: the answer for each such key is
    worked out once, so a file with thousands of directives and thousands of problems costs their
    sum, not their product.
    """

    __slots__ = ("by_line", "whole_file", "answers")

    def __init__(self, directives: list[Directive]) -> None:
        self.by_line: dict[int, list[Directive]] = {}
        self.whole_file: list[Directive] = []
        for d in directives:
            if d.target is None:
                self.whole_file.append(d)
            else:
                self.by_line.setdefault(d.target, []).append(d)
        self.answers: dict[tuple, bool] = {}

    def suppresses(self, p: Problem, own: bool) -> bool:
        """Whether a directive suppresses `p`, marking the directives and codes that do. `own`: `p` is a
        DRA900 about the suppressions themselves, which answers only to codes naming DRA900."""
        line = p.span.line
        hit = False
        for key, directives in (((line, own, p.rule, p.name), self.by_line.get(line, ())), ((None, own, p.rule, p.name), self.whole_file)):
            if not directives:
                continue
            answer = self.answers.get(key)
            if answer is None:
                answer = self.answers[key] = _mark(directives, p, own)
            hit = hit or answer
        return hit


def _mark(directives: list[Directive], p: Problem, own: bool) -> bool:
    """Whether any of `directives` (all covering `p`'s line) suppresses `p`; marks those that do as used."""
    hit = False
    for d in directives:
        if own and d.codes is None:
            continue
        m = d.matches(p) if not own else [c for c in (d.codes or []) if c.text in (UNUSED, ENGINE_CHECKS[UNUSED].slug)]
        if m:
            hit = True
            if isinstance(m, list):
                for c in m:
                    c.used = True
            else:
                d.used = True
    return hit


class Suppressor:
    """The suppressions of one run: fed each file's comments as it is checked, asked
    which problems survive, and at the end which suppressions suppressed nothing."""

    def __init__(self, selection: Selection, known: dict[str, str], ignore: IgnorePaths | None = None, inline: bool = True):
        self.selection = selection
        self.known = known  # code -> slug of every rule the run knows
        # The first code of each slug, as a scan of `known` finds it: built when a comment names a slug (a run
        # with the result cache makes a suppressor per file with a `# dralint:` comment, and pickles it).
        self._code_of_slug: dict[str, str] | None = None
        self.ignore = ignore
        self.inline = inline
        self._directives: dict[str, list[Directive]] = {}
        self._bad: list[Problem] = []
        self._relative: dict[str, str | None] = {}
        self._entries_used: set[int] = set()
        self._entries_in_scope: set[int] = set()
        self._indexes: dict[str, _FileSuppressions] = {}  # per file with directives, built when first asked
        self._advice: dict[str, str] = {}  # unknown code -> its did-you-mean

    def add_source(self, source: str, text: str | None, documents: list[Document]) -> None:
        """Read the `# dralint:` comments of a file before its problems are filtered."""
        # Not cached: that is for the files with problems (keep), not for every file of the run.
        if self.ignore:
            relative = self._relative[source] if source in self._relative else self._compute_relative(source)
            for entry in self.ignore.entries:
                if entry.index not in self._entries_in_scope and (not entry.files or entry.matches_file(relative)):
                    self._entries_in_scope.add(entry.index)
        if not self.inline or not text or "dralint" not in text:
            return
        found, bad = parse_comments(source, text, documents)
        if found:
            self._directives[source] = found
        self._bad.extend(self._problem(b.source, b.line, b.column, b.end_column, b.message) for b in bad)

    def holds_nothing(self) -> bool:
        """Whether it met no directive and no malformed comment, and no config entry is in scope: then `keep`
        keeps every problem and `unused` finds none, as with no suppressor (a file whose `# dralint:` comments
        only give its release or feature gates)."""
        return not (self._directives or self._bad or self._entries_used or self._entries_in_scope or (self.ignore and self.ignore.entries))

    def absorb(self, other: "Suppressor") -> None:
        """Take over what another run's suppressor met in the files it was fed (dralint.pipeline.parallel)."""
        self._directives.update(other._directives)
        self._bad.extend(other._bad)
        self._relative.update(other._relative)
        self._entries_used |= other._entries_used
        self._entries_in_scope |= other._entries_in_scope

    def keep(self, problems: list[Problem]) -> list[Problem]:
        """The problems no comment or config entry suppresses (marking what was used)."""
        if not self._directives and not (self.ignore and self.ignore.entries):
            return problems
        return [p for p in problems if not self._suppressed(p, self._relative_of(p.source))]

    def unused(self) -> list[Problem]:
        """DRA900 for each suppression that suppressed nothing, and for malformed comments."""
        unused = [*self._bad, *self._unused_inline(), *self._unused_entries()]
        # DRA900 problems answer only to comments that name DRA900 itself.
        return [p for p in unused if not self._suppressed(p, self._relative_of(p.source), own=True)]

    def __getstate__(self) -> dict[str, Any]:
        # A worker's suppressor goes to the parent (dralint.pipeline.parallel), and a file's into the result cache,
        # without its indexes and slug table: rebuilt there if asked.
        return {**self.__dict__, "_indexes": {}, "_code_of_slug": None}

    def _suppressed(self, p: Problem, relative: str | None, own: bool = False) -> bool:
        directives = self._directives.get(p.source)
        hit = False
        if directives:
            index = self._indexes.get(p.source)
            if index is None:
                index = self._indexes[p.source] = _FileSuppressions(directives)
            hit = index.suppresses(p, own)
        if not own and self.ignore:
            for entry in self.ignore.entries:
                if entry.matches(p, relative):
                    self._entries_used.add(entry.index)
                    hit = True
        return hit

    def _resolve(self, text: str) -> tuple[str, str | None] | None:
        if text in self.known:
            return text, self.known[text]
        if self._code_of_slug is None:
            self._code_of_slug = {}
            for code, slug in self.known.items():
                self._code_of_slug.setdefault(slug, code)
        code = self._code_of_slug.get(text)
        return None if code is None else (code, text)

    def _unused_inline(self) -> list[Problem]:
        out: list[Problem] = []
        for source, found in self._directives.items():
            for d in found:
                out.extend(self._unused_in(source, d))
        return out

    def _unused_in(self, source: str, d: Directive) -> list[Problem]:
        scope = {"disable": "on this line", "disable-next-line": f"on line {d.target}", "disable-file": "in this file"}[d.verb]
        hint = ""
        if d.verb == "disable" and d.alone:
            hint = " (a disable= comment on a line of its own covers only that line; use disable-next-line)"
        if d.codes is None:
            if d.used:
                return []
            return [self._problem(source, d.line, d.column, d.end_column, f"unused suppression: '{d.verb}' suppressed no problem {scope}{hint}")]
        out: list[Problem] = []
        # One comment may list a million codes: each text is judged once, and each message made once.
        messages: dict[str, str | None] = {}
        for c in d.codes:
            if c.used or c.text in (UNUSED, ENGINE_CHECKS[UNUSED].slug):
                continue
            message = messages.get(c.text, "")
            if message == "":
                message = messages[c.text] = self._unused_code_message(c.text, scope, hint)
            if message is not None:
                out.append(self._problem(source, d.line, c.column, c.column + len(c.text), message))
        return out

    def _unused_code_message(self, text: str, scope: str, hint: str) -> str | None:
        """The DRA900 message for a code that suppressed nothing, or None when it is not reported."""
        resolved = self._resolve(text)
        if resolved is None:
            advice = self._advice.get(text)
            if advice is None:
                # difflib runs over every code and slug: a bounded number of different unknown codes get a
                # suggestion, so a comment listing a million of them stays linear (tests/test_suppress.py).
                close = close_matches(text, [*self.known, *self.known.values()], n=1) if len(self._advice) < MAX_SUGGESTIONS else []
                advice = self._advice[text] = f"; did you mean {close[0]!r}?" if close else " (see 'dralint rules')"
            return f"unknown rule {text!r} in a dralint suppression{advice}"
        if self.selection.selected(*resolved):
            return f"unused suppression: no {text} problem {scope}{hint}"
        return None  # a rule the run did not check suppressed nothing for a reason: not reported

    def _unused_entries(self) -> list[Problem]:
        out: list[Problem] = []
        if not self.ignore:
            return out
        for entry in self.ignore.entries:
            if entry.index in self._entries_used or entry.index not in self._entries_in_scope:
                continue
            if entry.rules and not any(
                self.selection.selected(code, slug) for code, slug in self.known.items() if any(code.startswith(r) or slug == r for r in entry.rules)
            ):
                continue
            span = self._entry_span(entry.index)
            what = "; ".join(f"{k}: {', '.join(v)}" for k, v in (("paths", entry.file_globs), ("fields", entry.field_globs), ("rules", entry.rules)) if v)
            out.append(self._problem(self._config_name(), span.line, span.column, span.end_column if span.end_line == span.line else span.column + 1,
                                     f"unused config ignore: ignore-paths[{entry.index}] ({what}) suppressed no problem"))
        return out

    def _entry_span(self, index: int) -> Span:
        config_path = self.ignore.config_path if self.ignore else None
        if config_path is None:
            return Span.point()
        try:
            with open(config_path, "rb") as handle:
                loaded = load(config_path, handle.read())
            return loaded.documents[0].locate(("ignore-paths", index))
        except (OSError, IndexError):  # the file was read moments ago; its position is a nicety
            return Span.point()

    def _config_name(self) -> str:
        assert self.ignore is not None and self.ignore.config_path is not None
        try:
            return os.path.relpath(self.ignore.config_path)
        except ValueError:
            return self.ignore.config_path

    def _relative_of(self, source: str) -> str | None:
        try:
            return self._relative[source]
        except KeyError:
            relative = self._relative[source] = self._compute_relative(source)
            return relative

    def _compute_relative(self, source: str) -> str | None:
        base = self.ignore.base if self.ignore else None
        if source in ("-", "<admission>") or base is None:
            return None
        try:
            rel = os.path.relpath(os.path.abspath(source), base)
        except ValueError:
            return None
        return rel.replace(os.sep, "/")

    def _problem(self, source: str, line: int, column: int, end_column: int, message: str) -> Problem:
        check = ENGINE_CHECKS[UNUSED]
        return Problem(
            rule=check.code,
            name=check.slug,
            severity=check.severity,
            message=message,
            source=source,
            document=0,
            span=Span(line, column, line, max(end_column, column + 1)),
        )


__all__ = ["Suppressor", "parse_comments", "Directive"]
