"""dralint's problems and fixes in LSP terms: ranges in the negotiated encoding, severities, tags, edits.

dralint positions are 1-based, lines counted at "\n", columns in code points
with an exclusive end; LSP positions are 0-based, lines ending at "\n", "\r\n"
or "\r", in the code units the client negotiated (UTF-16 unless it offered
UTF-8 or UTF-32). `text.Text` maps one to the other.
"""

from __future__ import annotations

from lsprotocol import types

from ..model import Edit, Fix, Problem, Severity, Span, format_path
from ..report.sarif import docs_url
from .text import Text

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


def to_range(span: Span, text: Text) -> types.Range:
    return text.span_range(span.line, span.column, span.end_line, span.end_column)


def from_position(position: types.Position, text: Text) -> tuple[int, int]:
    """A client position as dralint's (line, column), 1-based code points."""
    return text.dralint_at(position)


def is_deprecation(problem: Problem) -> bool:
    return problem.rule in DEPRECATION_RULES or (problem.rule == "DRA010" and "beta" in (problem.api_version or ""))


def diagnostic(problem: Problem, text: Text) -> types.Diagnostic:
    path = format_path(problem.path)
    return types.Diagnostic(
        range=to_range(problem.span, text),
        severity=SEVERITIES[problem.severity],
        code=problem.rule,
        code_description=types.CodeDescription(href=rule_url(problem.rule, problem.name)),
        source="dralint",
        message=f"{problem.message} (at {path})" if path else problem.message,
        tags=[types.DiagnosticTag.Deprecated] if is_deprecation(problem) else None,
    )


def text_edit(edit: Edit, text: Text) -> types.TextEdit:
    return types.TextEdit(range=to_range(edit.span, text), new_text=edit.text)


def code_action(uri: str, fix: Fix, preferred: bool, diag: types.Diagnostic, text: Text) -> types.CodeAction:
    edits = [text_edit(e, text) for e in fix.edits]
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
