"""`--format json`: the machine-readable report, one object per problem.

Always UTF-8 JSON: a file name that is not UTF-8 (its bytes held as surrogate
escapes) or a lone surrogate from a JSON manifest's `\\udc80` is written as a
`\\uXXXX` escape, as `ensure_ascii` would, so that `os.fsencode(json.loads(...))`
gives a file name's bytes back.
"""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring  # json's own C string encoder (ensure_ascii=False)

from ..model import Fix, Problem, Severity, format_path
from ..pipeline.partial import LintResult
from . import ReportOptions

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

_encode = json.JSONEncoder(ensure_ascii=False).encode  # one encoder: json.dumps with options builds one per call
_SURROGATE = re.compile("[\ud800-\udfff]")


def _fixes(fixes: list[Fix]) -> list[dict[str, Any]]:
    return [
        {
            "description": fix.description,
            "edits": [{"line": e.span.line, "column": e.span.column, "end_line": e.span.end_line, "end_column": e.span.end_column, "text": e.text} for e in fix.edits],
        }
        for fix in fixes
    ]


def problem_line(p: Problem) -> str:
    """One problem as a JSON object, written out: a dict and the encoder's walk over it per problem
    were two thirds of writing the report of a 100,000-file run (160,000 problems)."""
    span = p.span
    line = (f'{{"file": {encode_basestring(p.source)}, "line": {span.line:d}, "column": {span.column:d}, '
            f'"end_line": {span.end_line:d}, "end_column": {span.end_column:d}, "severity": "{p.severity!s}", '
            f'"rule": {encode_basestring(p.rule)}, "name": {encode_basestring(p.name)}, "message": {encode_basestring(p.message)}, '
            f'"path": {encode_basestring(format_path(p.path))}, "document": {p.document:d}, "api_version": {_text(p.api_version)}, '
            f'"kind": {_text(p.kind)}, "object": {_text(p.object)}')
    origin = p.origin
    if origin is not None:  # a rendered stream's problem (dralint.pipeline.origins)
        line += (f', "origin": {{"file": {encode_basestring(origin.file)}, "found": {"true" if origin.found else "false"}, '
                 f'"rendered": {{"file": {encode_basestring(origin.stream)}, "line": {origin.span.line:d}, "column": {origin.span.column:d}}}}}')
    fixes = p.fixes
    line = line + ', "fixes": ' + _encode(_fixes(fixes)) + "}" if fixes else line + "}"
    # Only inside strings (the rest is ASCII), where the escape is what ensure_ascii writes.
    return line if line.isascii() or not _SURROGATE.search(line) else _SURROGATE.sub(_escaped, line)


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _text(value: str | None) -> str:
    return "null" if value is None else encode_basestring(value)


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
            yield separator + problem_line(p)
            separator = ",\n    "
        yield "\n  ]"
    yield f',\n  "summary": {json.dumps(summary)}\n}}\n'
