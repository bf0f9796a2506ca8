"""`dralint --fix`: apply the problems' structured fixes to the files, atomically and whole.

Each file is fixed in passes: lint, take every problem's best fix whose edits
do not overlap an earlier one, apply, lint again (a move under `exactly` may
need the `exactly` a previous fix created). A pass that would leave more
errors than it found is thrown away and ends the file. Inserted line breaks
take the file's own style (a CRLF file stays CRLF).

Files are written only when their text changed, through the same rewrite as
`dralint migrate` (`rewrite.rewrite`): whole, atomically, only if the file is
still the bytes that were read, and not through a hard link unless the user
allows breaking it. A file that cannot be written is a problem of that file
(DRA016) and the run goes on with the next.
"""

from __future__ import annotations

import re

from .catalog import ENGINE_CHECKS
from .model import Edit, Problem, Severity, Span
from .pipeline.run import LintOptions, lint
from .pipeline.sources import MAX_BYTES, Source
from .repairs import apply
from .rewrite import RewriteError, rewrite

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterable

MAX_PASSES = 5


def _errors(problems: list[Problem]) -> int:
    return sum(1 for p in problems if p.severity >= Severity.ERROR)


def _chosen_edits(problems: list[Problem]) -> list[Edit]:
    taken: list[tuple[tuple[int, int], tuple[int, int]]] = []
    edits: list[Edit] = []
    for problem in problems:
        fixes = problem.fixes
        if not fixes:
            continue
        ranges = [((e.span.line, e.span.column), (e.span.end_line, e.span.end_column)) for e in fixes[0].edits]
        if any(start < other_end and other_start < end or start == other_start for start, end in ranges for other_start, other_end in taken):
            continue
        taken.extend(ranges)
        edits.extend(fixes[0].edits)
    return edits


_BARE_LF = re.compile(r"(?<!\r)\n")


def _crlf(text: str) -> bool:
    """Whether the file's first line ends with CRLF: then a line a fix adds ends so too."""
    first = text.find("\n")
    return first > 0 and text[first - 1] == "\r"


def _in_style(edits: list[Edit], crlf: bool) -> list[Edit]:
    # Positions count lines at "\n", so a CRLF file's "\r" is the last character of a line's text and an
    # edit's text keeps the "\r" of the lines it carries over: only the line breaks it adds are bare.
    if not crlf:
        return edits
    return [Edit(e.span, _BARE_LF.sub("\r\n", e.text)) if "\n" in e.text else e for e in edits]


def fix_text(name: str, text: str, options: LintOptions) -> str:
    """`text` with every applicable fix applied."""
    options = options.at_the_stream()  # the fixes edit this text, not the files it was rendered from
    problems = lint([Source(name, text.encode("utf-8"))], options).problems
    crlf = _crlf(text)
    for _ in range(MAX_PASSES):
        edits = _in_style(_chosen_edits(problems), crlf)
        if not edits:
            break
        try:
            candidate = apply(text, edits)
        except ValueError:
            break
        after = lint([Source(name, candidate.encode("utf-8"))], options).problems
        if candidate == text or _errors(after) > _errors(problems):
            break
        text, problems = candidate, after
    return text


def fix_sources(sources: Iterable[Source], options: LintOptions, *, break_hard_links: bool = False) -> tuple[list[tuple[str, list[str]]], list[Problem]]:
    """Fix and rewrite each readable file: each file written with what the user should be told of it (a
    broken hard link), and a DRA016 for each file whose fixes could not be written (it is as it was)."""
    written: list[tuple[str, list[str]]] = []
    failed: list[Problem] = []
    for source in sources:
        if source.data is None or source.name == "-" or len(source.data) > MAX_BYTES:
            continue  # unreadable or not read whole (the lint reports it), or standard input (nothing to write back to)
        try:
            text = source.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        fixed = fix_text(source.name, text, options)
        if fixed == text:
            continue
        try:
            notes = rewrite(source.name, source.data, fixed.encode("utf-8"), break_hard_links=break_hard_links)
        except RewriteError as exc:
            failed.append(_not_written(source.name, str(exc)))
            continue
        written.append((source.name, notes))
    return written, failed


def _not_written(name: str, why: str) -> Problem:
    check = ENGINE_CHECKS["DRA016"]
    return Problem(rule=check.code, name=check.slug, severity=check.severity, message=f"its fixes were not applied: {why}",
                   source=name, document=0, span=Span.point())


def fix_stream(data: bytes, options: LintOptions) -> bytes:
    """`dralint --fix -`: standard input's bytes with every applicable fix applied; the bytes as they came
    when nothing applies, or when they are not UTF-8 text or too big to lint (the report says why)."""
    if len(data) > MAX_BYTES:
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    fixed = fix_text("-", text, options)
    return data if fixed == text else fixed.encode("utf-8")
