"""`--format json`: the machine-readable report, one object per problem."""

from __future__ import annotations

import json
from typing import Any, Iterator

from ..lint import LintResult
from ..model import Problem, Severity, format_path
from . import ReportOptions

# One encoder for every problem: json.dumps with any option builds a new one per call (a tenth of writing
# 160,000 problems).
_encode = json.JSONEncoder(ensure_ascii=False).encode


def problem_dict(p: Problem) -> dict[str, Any]:
    out = {
        "file": p.source,
        "line": p.span.line,
        "column": p.span.column,
        "end_line": p.span.end_line,
        "end_column": p.span.end_column,
        "severity": str(p.severity),
        "rule": p.rule,
        "name": p.name,
        "message": p.message,
        "path": format_path(p.path),
        "document": p.document,
        "api_version": p.api_version,
        "kind": p.kind,
        "object": p.object,
    }
    fixes = p.fixes
    if fixes:  # best first; each fix's edits are applied together
        out["fixes"] = [
            {
                "description": fix.description,
                "edits": [{"line": e.span.line, "column": e.span.column, "end_line": e.span.end_line, "end_column": e.span.end_column, "text": e.text} for e in fix.edits],
            }
            for fix in fixes
        ]
    return out


def render(result: LintResult, options: ReportOptions) -> str:
    return "".join(pieces(result, options))


def pieces(result: LintResult, options: ReportOptions) -> Iterator[str]:
    summary = {
        "files": result.files,
        "files_passed_over": result.files_passed_over,
        "documents": result.documents,
        "errors": result.count(Severity.ERROR),
        "warnings": result.count(Severity.WARNING),
        "infos": result.count(Severity.INFO),
    }
    # One problem per line: readable and diffable, and json's C encoder does the
    # work (indent= would switch to the pure-Python encoder, slower than linting).
    yield '{\n  "problems": '
    if not result.problems:
        yield "[]"
    else:
        separator = "[\n    "
        for p in result.problems:
            yield separator + _encode(problem_dict(p))
            separator = ",\n    "
        yield "\n  ]"
    yield f',\n  "summary": {json.dumps(summary)}\n}}\n'
