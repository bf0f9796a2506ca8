"""`dralint --fix`: apply the problems' structured fixes to the files, atomically and whole.

Each file is fixed in passes: lint, take every problem's best fix whose edits
do not overlap an earlier one, apply, lint again (a move under `exactly` may
need the `exactly` a previous fix created). A pass that would leave more
errors than it found is thrown away and ends the file. Files are written only
when their text changed, through the same atomic write as `dralint migrate`.
"""

from __future__ import annotations

from typing import Iterable

from .lint import LintOptions, lint
from .model import Edit, Problem, Severity
from .repairs import apply
from .rewrite import write_atomic
from .sources import Source

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


def fix_text(name: str, text: str, options: LintOptions) -> str:
    """`text` with every applicable fix applied."""
    options = options.at_the_stream()  # the fixes edit this text, not the files it was rendered from
    problems = lint([Source(name, text.encode("utf-8"))], options).problems
    for _ in range(MAX_PASSES):
        edits = _chosen_edits(problems)
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


def fix_sources(sources: Iterable[Source], options: LintOptions) -> list[str]:
    """Fix and rewrite each readable file; the names of the files written."""
    written = []
    for source in sources:
        if source.data is None or source.name == "-":
            continue  # unreadable (the lint reports it) or standard input (nothing to write back to)
        try:
            text = source.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        fixed = fix_text(source.name, text, options)
        if fixed != text:
            write_atomic(source.name, fixed.encode("utf-8"))
            written.append(source.name)
    return written
