"""Checks behind a feature gate, with the gate configured on and off: the kinds a gate serves
(ResourcePoolStatusRequest: DRAResourcePoolStatus, DRA583; DeviceTaintRule: DRADeviceTaintRules,
DRA581/DRA582) and derived attributes (DRADerivedAttributes, DRA321-DRA323).

The fixtures carry the expectations of their own gates: the kinds' at the defaults
(tests/cases/rules/pool-status-request.yaml, tests/cases/slices/devicetaintrule-limits.yaml: a kind
is checked unless its gate is configured off, DRA801 says when a default cluster does not serve it),
derived attributes with the gate on (tests/cases/rules/derived-attributes.yaml) and at the defaults
(derived-attributes-default.yaml); here they are linted with the gates configured on and off.
"""

from __future__ import annotations

import pytest

from dralint.lint import LintOptions, lint
from dralint.model import format_path
from dralint.pipeline.sources import Source

from conftest import CASES
from expectations import read_fixture

POOL_STATUS = CASES / "rules" / "pool-status-request.yaml"
TAINT_RULES = CASES / "slices" / "devicetaintrule-limits.yaml"
DERIVED = CASES / "rules" / "derived-attributes.yaml"
DERIVED_DEFAULT = CASES / "rules" / "derived-attributes-default.yaml"


def _codes(path, release: str, gates: dict[str, bool], prefix: str) -> list[tuple[str, str, int, int]]:
    result = lint([Source(str(path), path.read_bytes())], LintOptions(release=release, rule_options={"feature-gates": gates}))
    return [(p.rule, format_path(p.path), p.span.line, p.span.column) for p in result.problems if p.rule.startswith(prefix)]


def _expected(path, release: str, prefix: str) -> list[tuple[str, str, int, int]]:
    [block] = [b for b in read_fixture(path).blocks if b.release == release]
    return sorted((e.key.code, e.key.path, e.key.line, e.key.column) for e in block.expectations if e.key.code.startswith(prefix))


@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_pool_status_request_gate_on_and_off(release):
    on = _codes(POOL_STATUS, release, {"DRAResourcePoolStatus": True}, "DRA583")
    assert sorted(on) == _expected(POOL_STATUS, release, "DRA583") != []
    assert ("DRA583", "spec.limit", 17, 10) in on and ("DRA583", "spec.limit", 35, 10) in on  # 0 and 1001
    assert ("DRA583", "spec.limit", 9, 10) not in on and ("DRA583", "spec.limit", 26, 10) not in on  # 1 and 1000
    assert _codes(POOL_STATUS, release, {"DRAResourcePoolStatus": False}, "DRA583") == []
    # Off, the kind is not served: DRA801 says so on each of the nine documents.
    off = _codes(POOL_STATUS, release, {"DRAResourcePoolStatus": False}, "DRA801")
    assert sum(1 for p in off if p[1] == "kind") == 9


def test_partition_type_attribute_gate_on_and_off():
    on = _codes(POOL_STATUS, "1.37", {"DRAPartitionableDevicesType": True}, "DRA583")
    assert ("DRA583", "spec.defaultPartitionTypeAttribute", 68, 34) in on
    # Off, the field is not dropped (the strategy drops nothing) but forbidden by its enforced declarative tag.
    off = _codes(POOL_STATUS, "1.37", {"DRAPartitionableDevicesType": False}, "DRA583")
    assert [p for p in off if p[1] == "spec.defaultPartitionTypeAttribute"] == [
        ("DRA583", "spec.defaultPartitionTypeAttribute", 68, 3), ("DRA583", "spec.defaultPartitionTypeAttribute", 76, 3)]


def test_device_taint_rule_gate_on_and_off():
    on = _codes(TAINT_RULES, "1.37", {"DRADeviceTaintRules": True}, "DRA58")
    assert ("DRA581", "spec.taint.key", 7, 1) in on and ("DRA582", "spec.deviceSelector.pool", 27, 11) in on
    assert _codes(TAINT_RULES, "1.37", {"DRADeviceTaintRules": False}, "DRA58") == []
    # Up to 1.34 the kind is served by DRADeviceTaints.
    assert _codes(TAINT_RULES, "1.34", {"DRADeviceTaints": False}, "DRA58") == []
    assert ("DRA581", "spec.taint.key", 42, 1) in _codes(TAINT_RULES, "1.34", {"DRADeviceTaints": True}, "DRA58")


@pytest.mark.parametrize("release", ["1.37", "1.38"])
def test_derived_attributes_gate_on_and_off(release):
    # derived-attributes.yaml turns the gate on in its own `# dralint: feature-gates=` comment.
    on = _codes(DERIVED, release, {}, "DRA32")
    assert sorted(on) == _expected(DERIVED, release, "DRA32") != []
    # Its twin at the defaults, and with the gate configured off: dropped (DRA801), nothing judged.
    for gates in ({}, {"DRADerivedAttributes": False}):
        assert _codes(DERIVED_DEFAULT, release, gates, "DRA32") == []
        assert _codes(DERIVED_DEFAULT, release, gates, "DRA801") == [("DRA801", "spec.devices.requests[0].exactly.derivedAttributes", 12, 9)]
    # On, the same objects are judged: a repeated name, names no constraint uses (and without a domain), a bad and an empty expression.
    on = sorted(p[0] for p in _codes(DERIVED_DEFAULT, release, {"DRADerivedAttributes": True}, "DRA32"))
    assert on == ["DRA321"] + ["DRA322"] * 4 + ["DRA323"] * 2
