"""`--format github`: GitHub Actions workflow commands, shown as annotations on the pull request.

    ::error file=k8s/claim.yaml,line=12,col=9,endLine=12,endColumn=22,title=DRA101 unknown-field::unknown field ...

`--format auto` picks this inside GitHub Actions. What comes from the files has
its non-printable characters escaped first (dralint.report.printable): the log
shows them. Then properties are escaped as the runner requires (`%`, CR, LF,
`:` and `,`); the message as data (`%`, CR, LF). GitHub's `endColumn` is inclusive, dralint's end column is exclusive, so
one is taken off.
"""

from __future__ import annotations

import os

from ..model import Problem, Severity, format_path
from ..pipeline.partial import LintResult
from . import ReportOptions, printable

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterator

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _file(source: str) -> str:
    if source == "-":
        return source
    absolute = os.path.abspath(source)
    try:
        rel = os.path.relpath(absolute, os.getcwd())
    except ValueError:
        return source
    return source if rel.startswith(os.pardir) else rel.replace(os.sep, "/")


def command(p: Problem) -> str:
    span = p.span
    props = [("file", printable(_file(p.source))), ("line", str(span.line)), ("col", str(span.column))]
    if span.end_line >= span.line:
        end_column = span.end_column - 1 if span.end_line > span.line else max(span.end_column - 1, span.column)
        props += [("endLine", str(span.end_line)), ("endColumn", str(max(end_column, 1)))]
    props.append(("title", printable(f"{p.rule} {p.name}")))
    path = format_path(p.path)
    message = printable(p.message + (f" (at {path})" if path else ""))
    rendered = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{COMMANDS[p.severity]} {rendered}::{escape_data(message)}"


def render(result: LintResult, options: ReportOptions) -> str:
    return "".join(pieces(result, options))


def pieces(result: LintResult, options: ReportOptions) -> Iterator[str]:
    return (command(p) + "\n" for p in result.problems)
