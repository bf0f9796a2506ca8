"""The last stage of a run: its problems capped and put in the order every report shows them.

What must stay true: capping keeps at most MAX_PROBLEMS_PER_DOCUMENT of a document and
MAX_PROBLEMS_PER_FILE of a file, then one DRA005 that stands for the rest with their highest
severity; the order is source, then document, line, column, rule and message, sorted one file at
a time so a run's memory does not hold every problem's sort key at once.
"""

from ..catalog import ENGINE_CHECKS
from ..model import Problem
from .load import MAX_PROBLEMS_PER_DOCUMENT, MAX_PROBLEMS_PER_FILE


def in_report_order(listed: list[Problem], late: list[Problem], messages: dict[str, str]) -> list[Problem]:
    """The problems listed file by file and the run-scope ones (capped per file, counting what the file
    listed), sorted as reports show them: by source, then document, line, column, rule and message.

    Sorted file by file, which gives what one stable sort of the whole list gives: a run with
    160,000 problems holds the sort keys of one file at a time, not 160,000 of them at once.
    """
    groups: dict[str, list[Problem]] = {}
    for p in listed:
        groups.setdefault(p.source, []).append(p)
    first_late: dict[str, int] = {}  # where each file's run-scope problems start in its group
    for p in late:
        p.message = messages.setdefault(p.message, p.message)
        group = groups.setdefault(p.source, [])
        first_late.setdefault(p.source, len(group))
        group.append(p)
    for source, start in first_late.items():
        group = groups[source]
        if len(group) > MAX_PROBLEMS_PER_DOCUMENT:
            group[start:] = capped(group[start:], start)
    ordered: list[Problem] = []
    for source in sorted(groups):
        group = groups.pop(source)
        group.sort(key=Problem.sort_key)
        ordered.extend(group)
    return ordered


def capped(problems: list[Problem], listed: int = 0) -> list[Problem]:
    """At most MAX_PROBLEMS_PER_DOCUMENT of a document and MAX_PROBLEMS_PER_FILE of a file, then one
    DRA005 saying how many more: 30,000 broken claims in one file must not cost 100,000 Problems.
    `listed`: how many of the file's problems were listed before (run-scope rules report at the end).

    The DRA005 has the highest severity of the problems it stands for, as selection and `severity`
    left them: 104 infos about a valid claim are not an error, and must not fail a run or deny it."""
    if len(problems) + listed <= MAX_PROBLEMS_PER_DOCUMENT:
        return problems
    kept: list[Problem] = []
    per_document: dict[int, int] = {}
    dropped: dict[int, list] = {}  # document, or -1 for the rest of the file -> [first dropped, count, highest severity]
    for p in problems:
        count = per_document.get(p.document, 0)
        if count < MAX_PROBLEMS_PER_DOCUMENT and len(kept) + listed < MAX_PROBLEMS_PER_FILE:
            per_document[p.document] = count + 1
            kept.append(p)
            continue
        key = p.document if len(kept) + listed < MAX_PROBLEMS_PER_FILE else -1
        entry = dropped.setdefault(key, [p, 0, p.severity])
        entry[1] += 1
        entry[2] = max(entry[2], p.severity)
    for key, (first, count, severity) in dropped.items():
        where = "this file" if key == -1 else "this document"
        limit = MAX_PROBLEMS_PER_FILE if key == -1 else MAX_PROBLEMS_PER_DOCUMENT
        kept.append(
            Problem(
                rule="DRA005", name=ENGINE_CHECKS["DRA005"].slug, severity=severity,
                message=f"{count} more problems in {where} were not listed (at most {limit} are); this is where the first of them is",
                source=first.source, document=first.document, span=first.span,
            )
        )
    return kept


