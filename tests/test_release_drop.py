"""tools/release_drop.py: what a release's data drop changes, read from the committed schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

import release_drop as R  # noqa: E402

SCHEMAS = REPO / "schemas"
INDEX = json.loads((SCHEMAS / "index.json").read_text(encoding="utf-8"))
GATES = json.loads((SCHEMAS / "feature_gates.json").read_text(encoding="utf-8"))


def test_field_paths_follow_refs_lists_and_maps_and_stop_at_recursion():
    schema = {
        "properties": {"spec": {"$ref": "#/$defs/Spec"}},
        "$defs": {
            "Spec": {"properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "config": {"type": "object", "additionalProperties": {"properties": {"value": {}}}},
            }},
            "Item": {"properties": {"name": {}, "child": {"$ref": "#/$defs/Item"}}},
        },
    }
    assert R.field_paths(schema) == {
        "spec", "spec.items", "spec.items[].name", "spec.items[].child",
        "spec.config", "spec.config{}.value",
    }


def test_1_38_drops_v1beta1_and_locks_the_taint_gates():
    assert list(R.diff_kinds(INDEX, "1.37", "1.38")) == [
        "  - resource.k8s.io/v1beta1: DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice (no longer served)"]
    gates = list(R.diff_gates(GATES, "1.37", "1.38"))
    assert "  ~ DRADeviceTaints: ga, default on -> ga-locked, default on" in gates
    assert "  - DynamicResourceAllocation: ga-locked, default on -> removed, default on" in gates
    assert list(R.diff_fields(SCHEMAS, INDEX, "1.37", "1.38")) == []


def test_1_37_adds_the_late_alpha_fields():
    fields = list(R.diff_fields(SCHEMAS, INDEX, "1.36", "1.37"))
    assert "  + resource.k8s.io/v1 ResourceSlice: spec.devices[].consumesCounters[].compatibilityGroups" in fields
    assert "  + resource.k8s.io/v1 ResourceClaim: spec.devices.requests[].exactly.derivedAttributes[].name" in fields
    assert "  - resource.k8s.io/v1 ResourceSlice: spec.devices[].nodeAllocatableResourceMappings" in fields
    assert list(R.diff_kinds(INDEX, "1.36", "1.37")) == ["  + resource.k8s.io/v1: DeviceTaintRule"]
    assert "  + DRADerivedAttributes: absent -> alpha, default off" in list(R.diff_gates(GATES, "1.36", "1.37"))


def test_a_validation_call_site_without_a_row_is_listed(tmp_path):
    go = tmp_path / "k8s-validation" / "1.99" / "pkg" / "apis" / "resource" / "validation" / "validation.go"
    go.parent.mkdir(parents=True)
    go.write_text(
        "package validation\n\n"
        "func validateNewThing(thing string, fldPath *field.Path) field.ErrorList {\n"
        "\tvar allErrs field.ErrorList\n"
        "\tif thing == \"\" {\n"
        "\t\tallErrs = append(allErrs, field.Required(fldPath.Child(\"thing\"), \"\"))\n"
        "\t}\n"
        "\treturn allErrs\n"
        "}\n")
    assert R.uncovered_sites(tmp_path, "1.99") == [
        'validateNewThing: Required at fldPath.Child("thing") (line 6): no row in tests/validation_rules.py']
    assert R.uncovered_sites(tmp_path, "1.98") is None  # no validation.go for that release


def test_every_call_site_of_the_shared_releases_is_covered():
    shared = REPO.parent / "shared"
    found = [r for r in ("1.35", "1.37", "1.38") if R.uncovered_sites(shared, r) is not None]
    if not found:
        pytest.skip("../shared/k8s-validation is not present")
    assert {r: R.uncovered_sites(shared, r) for r in found} == {r: [] for r in found}
