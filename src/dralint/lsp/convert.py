"""dralint's problems and fixes in LSP terms: ranges in the negotiated encoding, severities, tags, edits.

dralint columns are 1-based code points with an exclusive end; LSP positions
are 0-based in the code units the client negotiated (UTF-16 unless it offered
UTF-8 or UTF-32). pygls' position codec does the unit conversion.
"""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..model import Edit, Fix, Problem, Severity, Span, format_path
from ..report.sarif import docs_url

SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
# A beta apiVersion's problems: editors strike these through (DiagnosticTag.Deprecated).
DEPRECATION_RULES = frozenset({"DRA011", "DRA020", "DRA021"})
_DOCS = docs_url()


def rule_url(code: str, slug: str) -> str:
    """The rule's section in docs/rules.md (GitHub's heading anchor: `## DRA103 wrong-type`)."""
    return f"{_DOCS}rules.md#{code.lower()}-{slug}"


def to_range(span: Span, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    start = types.Position(line=span.line - 1, character=span.column - 1)
    end = types.Position(line=max(span.end_line, span.line) - 1, character=max(span.end_column - 1, 0))
    return codec.range_to_client_units(lines, types.Range(start=start, end=end))


def from_position(position: types.Position, lines: Sequence[str], codec: PositionCodec) -> tuple[int, int]:
    """A client position as dralint's (line, column), 1-based code points."""
    server = codec.position_from_client_units(lines, types.Position(line=position.line, character=position.character))
    return server.line + 1, server.character + 1


def is_deprecation(problem: Problem) -> bool:
    return problem.rule in DEPRECATION_RULES or (problem.rule == "DRA010" and "beta" in (problem.api_version or ""))


def diagnostic(problem: Problem, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    path = format_path(problem.path)
    return types.Diagnostic(
        range=to_range(problem.span, lines, codec),
        severity=SEVERITIES[problem.severity],
        code=problem.rule,
        code_description=types.CodeDescription(href=rule_url(problem.rule, problem.name)),
        source="dralint",
        message=f"{problem.message} (at {path})" if path else problem.message,
        tags=[types.DiagnosticTag.Deprecated] if is_deprecation(problem) else None,
    )


def text_edit(edit: Edit, lines: Sequence[str], codec: PositionCodec) -> types.TextEdit:
    return types.TextEdit(range=to_range(edit.span, lines, codec), new_text=edit.text)


def code_action(uri: str, fix: Fix, preferred: bool, diag: types.Diagnostic, lines: Sequence[str], codec: PositionCodec) -> types.CodeAction:
    edits = [text_edit(e, lines, codec) for e in fix.edits]
    return types.CodeAction(
        title=fix.description,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        is_preferred=preferred,
        edit=types.WorkspaceEdit(changes={uri: edits}),
    )


def overlaps(span: Span, first: tuple[int, int], last: tuple[int, int]) -> bool:
    """Whether `span` touches the (line, column) range [first, last] (inclusive: a cursor is a point)."""
    return (span.line, span.column) <= last and first <= (max(span.end_line, span.line), span.end_column)
