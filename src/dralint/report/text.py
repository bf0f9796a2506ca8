"""`--format text`: one line per problem, as compilers print them, so editors can jump to it.

    examples/mistakes.yaml:12:9: error: unknown field 'deviceClasName'; did you mean 'deviceClassName'? [DRA101 unknown-field]

On a terminal the offending source line follows, with carets under the range.
Whatever comes from the files (names, values, the quoted line) is shown with its
non-printable characters escaped (dralint.report.printable).
"""

from __future__ import annotations

from ..model import Problem, Severity, format_path
from ..pipeline.partial import LintResult
from . import ReportOptions, printable

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterator

_COLORS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_BOLD, _RESET = "\033[1m", "\033[0m"


def render(result: LintResult, options: ReportOptions) -> str:
    return "".join(pieces(result, options))


def pieces(result: LintResult, options: ReportOptions) -> Iterator[str]:
    line_cache: dict[str, list[str]] = {}
    for p in result.problems:
        yield problem_line(p, options.color) + "\n"
        if options.show_source:
            for line in _source_excerpt(p, result, line_cache, options.color):
                yield line + "\n"


def problem_line(p: Problem, color: bool = False) -> str:
    where = f"{printable(p.source)}:{p.span.line}:{p.span.column}"
    severity = str(p.severity)
    path = format_path(p.path)
    path_text = f" (at {printable(path)})" if path else ""
    if color:
        where = f"{_BOLD}{where}{_RESET}"
        severity = f"{_COLORS[p.severity]}{severity}{_RESET}"
    return f"{where}: {severity}: {printable(p.message)}{path_text}{_origin_text(p)} [{printable(p.rule)} {printable(p.name)}]"


def _origin_text(p: Problem) -> str:
    """Where a problem of a rendered stream stands in the stream, or the file it came from (dralint.pipeline.origins)."""
    origin = p.origin
    if origin is None:
        return ""
    if origin.found:
        return f" (rendered at {printable(origin.stream)}:{origin.span.line}:{origin.span.column})"
    return f" (from {printable(origin.file)}, not readable from the working directory)"


def _source_excerpt(p: Problem, result: LintResult, cache: dict[str, list[str]], color: bool) -> list[str]:
    if p.source not in cache:
        raw = result.texts.get(p.source)
        cache[p.source] = raw.decode("utf-8", "replace").splitlines() if raw is not None else []
    text_lines = cache[p.source]
    if not 1 <= p.span.line <= len(text_lines):
        return []
    text = text_lines[p.span.line - 1].replace("\t", " ")
    start = max(p.span.column - 1, 0)
    end = p.span.end_column - 1 if p.span.end_line == p.span.line else len(text)
    # The carets go under the escaped line: an escape is as wide as it is written.
    before, under = printable(text[:start]), printable(text[start:end])
    start, width = len(before) + max(start - len(text), 0), max(len(under), 1)  # (a column past the end stays so)
    text = before + under + printable(text[end:])
    caret = " " * start + "^" * width
    if color:
        caret = f"{_COLORS[p.severity]}{caret}{_RESET}"
    gutter = f"{p.span.line:>5} | "
    return [f"{gutter}{text}", " " * (len(gutter) - 2) + "| " + caret]


def summary_line(result: LintResult) -> str:
    errors, warnings, infos = (result.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    files = f"{result.files} file{'s' if result.files != 1 else ''}"
    if result.files_passed_over:
        # Charts' values, playbooks, compose files ...: counted, so nothing is skipped unseen.
        files += f" ({result.files_passed_over} without Kubernetes objects passed over)"
    parts = [files, f"{result.documents} document{'s' if result.documents != 1 else ''}"]
    if result.passed_over:
        parts.append(f"{result.passed_over} outside resource.k8s.io passed over")
    counts = f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}, {infos} info"
    return f"{', '.join(parts)}: {counts}"
