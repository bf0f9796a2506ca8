"""CEL device selectors (DRA401-DRA406) through the real CLI, and the `dralint.cel` API.

Every assertion names the exact line and column of the offending character
in the file, across plain, quoted and block scalars.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from conftest import CASES, brief, lint_json

from dralint.cel import CelIssue, Policy, compile_policy, compile_selector, evaluate

CEL = CASES / "cel"
ONLY_CEL = ("--select", "DRA4")


def cel_problems(name: str, release: str = "1.35") -> list[tuple]:
    run = lint_json("-k", release, str(CEL / name), *ONLY_CEL)
    return brief(run.problems)


def spans(name: str, release: str = "1.35") -> list[tuple]:
    run = lint_json("-k", release, str(CEL / name), *ONLY_CEL)
    return [(p["rule"], p["line"], p["column"], p["end_line"], p["end_column"]) for p in run.problems]


def test_dangling_or_points_at_the_operator_in_plain_single_quoted_and_literal_scalars():
    assert spans("syntax.yaml") == [
        ("DRA401", 15, 60, 15, 62),  # plain
        ("DRA401", 21, 83, 21, 85),  # single-quoted: '' escapes shift the column
        ("DRA401", 29, 90, 29, 92),  # literal block, last line
    ]
    paths = [p[1] for p in cel_problems("syntax.yaml")]
    assert paths[0] == "spec.devices.requests[0].exactly.selectors[0].cel.expression"


def test_misspelt_variable_and_unknown_field():
    assert cel_problems("undeclared.yaml") == [
        ("DRA402", "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression", 16, 27),  # `devic`, plain
        ("DRA402", "spec.spec.devices.requests[0].exactly.selectors[1].cel.expression", 18, 75),  # `name`, after \" escapes
    ]
    run = lint_json(str(CEL / "undeclared.yaml"), *ONLY_CEL)
    messages = [p["message"] for p in run.problems]
    assert "did you mean 'device'" in messages[0]
    assert "undefined field 'name'" in messages[1]
    assert [(p["end_line"], p["end_column"]) for p in run.problems] == [(16, 32), (18, 79)]


def test_non_bool_result_in_folded_block():
    assert cel_problems("result.yaml") == [("DRA404", "spec.selectors[0].cel.expression", 10, 9)]


def test_function_not_yet_available_and_flat_shape_paths():
    # Two-variable comprehensions: in the base environment from 1.32, so in new selectors from 1.33.
    flat = "spec.devices.requests[{}].selectors[0].cel.expression"
    for release in ("1.31", "1.32"):
        assert cel_problems("release.yaml", release) == [
            ("DRA402", flat.format(0), 16, 50),  # `all` in a |- block
            ("DRA402", flat.format(1), 22, 24),
        ]
    # 1.33: the comprehension is fine; the flat request is reported under `exactly`, located where it is.
    assert cel_problems("release.yaml", "1.33") == [
        ("DRA402", "spec.devices.requests[1].exactly.selectors[0].cel.expression", 22, 24),
    ]
    run = lint_json("-k", "1.32", str(CEL / "release.yaml"), *ONLY_CEL)
    assert "usable in new selectors from 1.33" in run.problems[0]["message"]


@pytest.mark.parametrize("release", ["1.32", "1.33", "1.34", "1.35"])
def test_valid_complex_selectors(release):
    assert cel_problems("valid.yaml", release) == []


def test_too_long_only_from_1_32():
    assert cel_problems("too-long.yaml", "1.35") == [("DRA405", "spec.selectors[0].cel.expression", 9, 19)]
    assert compile_selector("device.driver == '" + "x" * 10300 + "'", "1.31") == []


def test_cost_exceeded_points_at_the_outer_comprehension():
    assert spans("cost.yaml", "1.35") == [("DRA406", 17, 33, 17, 36)]
    assert compile_selector(
        "device.attributes.all(d1, device.attributes[d1].all(k1, device.attributes.all(d2, true)))", "1.35"
    ) == []


# --- the API ------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "expression, kind",
    [
        ("device.driver == 'a' ||", "syntax"),
        ("devic.driver == 'a'", "undeclared"),
        ("device.name == 'a'", "undeclared"),
        ("device.driver", "result-type"),
        ("device.capacity['a'].memory.compareTo(quantity('1Gi')) == 'x'", "type"),
        ("device.allowMultipleAllocations", "undeclared"),
    ],
)
def test_compile_selector_kinds(expression, kind):
    issues = compile_selector(expression, "1.35")
    assert [i.kind for i in issues] == [kind]
    assert all(isinstance(i, CelIssue) for i in issues)


def test_feature_gate_declares_allow_multiple_allocations():
    assert compile_selector("device.allowMultipleAllocations", "1.34", feature_gates={"DRAConsumableCapacity"}) == []
    assert compile_selector("device.allowMultipleAllocations", "1.33", feature_gates={"DRAConsumableCapacity"})


@pytest.mark.parametrize(
    "expression, first_ok",
    [
        ("format.dns1123Label().validate(device.driver).hasValue() == false", "1.32"),
        ("semver(device.attributes['a'].v, true).major() == 1", "1.34"),
        ("[1, 2].slice(0, 1).size() == 1", "1.35"),
        ("ip('10.0.0.1').family() == 4 && quantity('1').isInteger() && 1 < 2.5", "1.31"),
    ],
)
def test_library_availability_by_release(expression, first_ok):
    minor = int(first_ok.split(".")[1])
    for m in range(31, 36):
        issues = compile_selector(expression, f"1.{m}")
        assert (issues == []) == (m >= minor), (m, issues)


def test_offsets_are_characters_of_the_expression():
    [issue] = compile_selector("device.driver == 'é' && devic.driver == 'x'", "1.35")
    assert (issue.offset, issue.length) == (24, 5)


def test_policy_compile_and_evaluate():
    policy = compile_policy("object.kind == 'ResourceClaim' && object.spec.devices.requests.all(r, has(r.exactly))")
    assert isinstance(policy, Policy)
    data = {"kind": "ResourceClaim", "spec": {"devices": {"requests": [{"name": "a", "exactly": {}}]}}}
    assert evaluate(policy, {"object": data}) is True
    assert evaluate(policy, {"object": {**data, "kind": "DeviceClass"}}) is False
    issues = compile_policy("object.x ==")
    assert isinstance(issues, list) and issues[0].kind == "syntax"


# --- corpus -------------------------------------------------------------------------------------

def test_real_world_corpus(shared_dir):
    corpus = shared_dir / "corpus" / "real-world"
    index = json.loads((corpus / "index.json").read_text())
    by_release: dict[str, list[str]] = defaultdict(list)
    for entry in index:
        if entry.get("expected_valid") is True and entry.get("k8s_version"):
            by_release[entry["k8s_version"]].append(str(corpus / entry["file"]))
    for release, files in sorted(by_release.items()):
        run = lint_json("-k", release, *files, *ONLY_CEL)
        assert run.problems == [], (release, brief(run.problems))
    dangling = [e for e in index if "dangling `||`" in e.get("notes", "")]
    assert len(dangling) == 2  # one with correct nesting, one whose selectors also sit at the wrong level
    for entry in dangling:
        run = lint_json("-k", entry.get("k8s_version") or "1.35", str(corpus / entry["file"]), *ONLY_CEL)
        assert any(p["rule"] == "DRA401" for p in run.problems)
