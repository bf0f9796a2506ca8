"""Selectors that could not be checked never pass silently: DRA901, an error (issue 10, item 5)."""

from __future__ import annotations

import sys
import uuid

import dralint.cel._cost
from dralint.lint import LintOptions, lint
from dralint.pipeline.sources import Source


def _device_class(expression: str) -> Source:
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
        f"spec:\n  selectors:\n  - cel:\n      expression: '{expression}'\n"
    )
    return Source("class.yaml", text.encode())


def _fresh_expression() -> str:
    # A never-seen expression, so that neither the in-process nor the on-disk verdict cache answers.
    return f'device.driver == "{uuid.uuid4().hex}.example.com"'


def _problems(source: Source) -> list[tuple]:
    result = lint([source], LintOptions(release="1.35"))
    return [(p.rule, p.severity.name.lower(), p.message) for p in result.problems]


def test_a_good_selector_is_clean():
    assert _problems(_device_class(_fresh_expression())) == []


def test_missing_cel_library_is_an_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "cel_expr_python", None)  # `import cel_expr_python` raises ImportError
    got = _problems(_device_class(_fresh_expression()))
    assert [(rule, severity) for rule, severity, _ in got] == [("DRA901", "error")]
    assert "spec.selectors[0].cel.expression: CEL selectors were not checked: cel-expr-python or protobuf cannot be imported" in got[0][2]


def test_failing_cost_estimator_is_an_error(monkeypatch):
    def broken(checked):
        raise ValueError("unexpected node")

    monkeypatch.setattr(dralint.cel._cost, "estimate", broken)
    got = _problems(_device_class(_fresh_expression()))
    assert [(rule, severity) for rule, severity, _ in got] == [("DRA901", "error")]
    assert "the cost of this selector could not be estimated (ValueError: unexpected node)" in got[0][2]
    assert got[0][2].startswith("rule DRA406 (cel-cost-exceeded) failed: CelUnchecked: spec.selectors[0].cel.expression: ")


def test_the_other_findings_of_the_document_stay(monkeypatch):
    monkeypatch.setitem(sys.modules, "cel_expr_python", None)
    source = _device_class(_fresh_expression())
    source = Source(source.name, source.data.replace(b"  selectors:", b"  bogus: 1\n  selectors:"))
    assert sorted(rule for rule, _, _ in _problems(source)) == ["DRA101", "DRA901"]


def test_objects_without_selectors_do_not_need_the_library(monkeypatch):
    monkeypatch.setitem(sys.modules, "cel_expr_python", None)
    text = b"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec: {}\n"
    assert lint([Source("class.yaml", text)], LintOptions(release="1.35")).problems == []
