"""DRA590: `compatibilityGroups` of a counter consumption (1.37+, gate DRADeviceCompatibilityGroups),
at its limit and one past, with the gate on and off, and unknown before 1.37."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralint.lint import LintOptions, lint
from dralint.pipeline.sources import Source

CASE = Path(__file__).resolve().parent / "cases" / "rules" / "compatibility-groups.yaml"

ON = [
    ("DRA590", "spec.devices.1.consumesCounters.0.compatibilityGroups", 18, 7, "TooMany"),
    ("DRA590", "spec.devices.2.consumesCounters.0.compatibilityGroups.0", 23, 29, "Invalid"),
    ("DRA590", "spec.devices.2.consumesCounters.0.compatibilityGroups.1", 23, 40, "Invalid"),
    ("DRA590", "spec.devices.2.consumesCounters.0.compatibilityGroups.1", 23, 40, "Duplicate"),
    ("DRA590", "spec.devices.3.consumesCounters.0.compatibilityGroups.1", 28, 33, "Duplicate"),
]


def _problems(release: str, gate: bool | None, code: str = "DRA590"):
    options = {} if gate is None else {"feature-gates": {"DRADeviceCompatibilityGroups": gate}}
    result = lint([Source(str(CASE), CASE.read_bytes())], LintOptions(release=release, rule_options=options))
    return [(p.rule, ".".join(map(str, p.path)), p.span.line, p.span.column, p.error_type)
            for p in result.problems if p.rule == code]


@pytest.mark.parametrize("release", ["1.37", "1.38"])
def test_gate_on(release):
    assert _problems(release, True) == ON


@pytest.mark.parametrize("release", ["1.37", "1.38"])
def test_gate_off_the_field_is_dropped_unread(release):
    assert _problems(release, False) == []


def test_unknown_before_1_37():
    assert _problems("1.36", True) == []
    unknown = _problems("1.36", True, "DRA101")
    assert [(p[1], p[2]) for p in unknown] == [(f"spec.devices.{i}.consumesCounters.0.compatibilityGroups", line) for i, line in enumerate((13, 18, 23, 28))]
