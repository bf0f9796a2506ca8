"""CEL device selectors (DRA401-DRA406): the `dralint.cel` API and the real-world corpus."""

from __future__ import annotations

import pytest

from dralint.cel import CelIssue, Policy, compile_policy, compile_selector, evaluate

# The selectors in tests/cases/cel/*.yaml carry their problems, with exact ranges where the
# column arithmetic is subtle (escapes in quoted scalars, block scalars): tests/test_cases.py.


def test_too_long_only_from_1_32():
    # 1.35 is pinned in tests/cases/cel/too-long.yaml.
    assert compile_selector("device.driver == '" + "x" * 10300 + "'", "1.31") == []


def test_cost_estimate_counts_the_nesting_not_the_length():
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

def test_real_world_corpus(corpus):
    valid = [r for r in corpus.rows if r["expected_valid"] is True and r.get("k8s_version")]
    cel = {r["file"]: [(p.rule, p.span.line) for p in corpus.of(r) if p.rule.startswith("DRA4")] for r in valid}
    assert {file: found for file, found in cel.items() if found} == {}
    dangling = [r for r in corpus.rows if "dangling `||`" in r.get("notes", "")]
    assert len(dangling) == 2  # one with correct nesting, one whose selectors also sit at the wrong level
    for row in dangling:
        assert any(p.rule == "DRA401" for p in corpus.of(row)), row["file"]


def test_selector_verdicts_of_a_process_are_bounded_and_an_unreached_one_is_asked_again(monkeypatch):
    """rules/cel.py keeps at most 4096 verdicts, and never one that could not be reached
    (an internal error or an unknown cost), which the next document asks for again."""
    import dralint.cel as cel
    from dralint.rules import cel as selector_rules

    asked: list[str] = []
    answers = {"unreached": [CelIssue("cost-unknown", "no estimate")], "fine": []}

    def fake_compile(expression, release, *, feature_gates=()):
        asked.append(expression)
        return list(answers.get(expression, []))

    monkeypatch.setattr(cel, "compile_selector", fake_compile)
    monkeypatch.setattr(selector_rules, "_VERDICTS", {(f"e{i}", "1.35", ()): () for i in range(4095)})
    assert selector_rules._verdict("fine", "1.35", ()) == ()
    assert len(selector_rules._VERDICTS) == 4096  # the 4096th verdict is kept
    assert selector_rules._verdict("fine", "1.35", ()) == ()
    assert asked == ["fine"]  # kept: not asked again
    selector_rules._verdict("another", "1.35", ())
    assert len(selector_rules._VERDICTS) == 1  # full: cleared before the next one is kept
    selector_rules._verdict("unreached", "1.35", ())
    selector_rules._verdict("unreached", "1.35", ())
    assert asked == ["fine", "another", "unreached", "unreached"]
    assert ("unreached", "1.35", ()) not in selector_rules._VERDICTS
