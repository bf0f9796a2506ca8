"""The error type is data: a rule passes `error_type=` and the reporter writes "(Type)" after the message.

A message that wrote the type by hand could name another type than the problem carries (the JSON field,
the webhook's cause, `# expect:` lines compare the field), so no string literal of a rule may name one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dralint.api import DocumentView, rule
from dralint.model import Document
from dralint.pipeline.engine import run_document_rules, with_type

from expectations import ERROR_TYPES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "rules").glob("*.py")) + sorted((ROOT / "src" / "dralint" / "k8s").glob("*.py"))
NAMED = re.compile(r"\((?:" + "|".join(ERROR_TYPES) + r")[) ]")


def _hand_written(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # f"... ({etype})": a type written by hand from a variable
            for i, part in enumerate(node.values[:-1]):
                after = node.values[i + 1]
                if isinstance(part, ast.Constant) and part.value.endswith("(") and isinstance(after, ast.FormattedValue) \
                        and "type" in ast.unparse(after.value):
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings and NAMED.search(node.value):
            found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_message_hand_writes_an_error_type(path):
    assert _hand_written(path) == []


def test_the_scan_finds_a_hand_written_type(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('def r(doc, report):\n    """Doc (Invalid)."""\n    report((), "x is wrong (Invalid)", error_type="Invalid")\n'
                   '    report((), f"y is {y} ({etype})", error_type=etype)\n')
    assert [line.split(":")[1] for line in _hand_written(bad)] == ["3", "4"]


def _report(**kwargs) -> list:
    @rule("ZZZ001", "reports", kinds={"ResourceClaim"})
    def reports(doc, report):
        """Reports once."""
        report(("spec",), "the spec is wrong", **kwargs)

    doc = Document(source="x.yaml", index=0, data={"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "spec": {}})
    return run_document_rules([reports.__dralint_rule__], DocumentView(doc, "1.34"))


@pytest.mark.parametrize(("kwargs", "message", "error_type"), [
    ({"error_type": "Invalid"}, "the spec is wrong (Invalid)", "Invalid"),
    ({"error_type": "Forbidden", "type_note": "otherwise"}, "the spec is wrong (Forbidden otherwise)", "Forbidden"),
    ({"error_type": "NotFound", "show_type": False}, "the spec is wrong", "NotFound"),
    ({}, "the spec is wrong", None),
])
def test_the_reporter_writes_the_type_from_the_field(kwargs, message, error_type):
    [problem] = _report(**kwargs)
    assert (problem.message, problem.error_type, problem.rule) == (message, error_type, "ZZZ001")


def test_a_kept_reporter_reports_under_its_own_rule():
    kept = []

    @rule("ZZZ010", "keeps", kinds={"ResourceClaim"})
    def keeps(doc, report):
        """Keeps its reporter and reports only later."""
        kept.append(report)

    @rule("ZZZ011", "later", kinds={"ResourceClaim"})
    def later(doc, report):
        """Calls the reporter the other rule kept."""
        kept[0](("spec",), "reported through the kept reporter", error_type="Invalid")

    doc = Document(source="x.yaml", index=0, data={"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "spec": {}})
    [problem] = run_document_rules([keeps.__dralint_rule__, later.__dralint_rule__], DocumentView(doc, "1.34"))
    assert (problem.rule, problem.name, problem.message) == ("ZZZ010", "keeps", "reported through the kept reporter (Invalid)")


def test_a_message_that_already_ends_with_its_type_is_not_given_it_twice():
    # Plugins written before report() rendered the type hand-wrote it.
    assert with_type("bad value (Invalid)", "Invalid") == "bad value (Invalid)"
    assert with_type("bad value (Forbidden otherwise)", "Forbidden", type_note="otherwise") == "bad value (Forbidden otherwise)"
    assert with_type("bad value (Required)", "Invalid") == "bad value (Required) (Invalid)"
