"""Did-you-mean where a name is close: CEL functions, and names a pod or claim refers to (issue 10, item 11)."""

from __future__ import annotations

import pytest

from dralint.lint import LintOptions, lint
from dralint.pipeline.sources import Source, collect

from conftest import CASES, run_dralint


def _selector(expression: str, release: str = "1.35") -> list[tuple]:
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
        f"spec:\n  selectors:\n  - cel:\n      expression: '{expression}'\n"
    )
    result = lint([Source("class.yaml", text.encode())], LintOptions(release=release))
    return [(p.rule, p.span.line, p.span.column, p.message) for p in result.problems]


@pytest.mark.parametrize(
    "expression, column, meant",
    [
        ('device.driver.startWith("gpu")', 34, "startsWith"),
        ('device.driver.endWith("gpu")', 34, "endsWith"),
        ('device.driver.lowerAsci() == "a"', 34, "lowerAscii"),
        ('isSemvr(device.attributes["a"].v)', 20, "isSemver"),
        ('device.capacity["a"].memory.compareTo(quantty("1Gi")) > 0', 58, "quantity"),
    ],
)
def test_a_misspelt_cel_function_gets_the_name_it_was_meant_to_be(expression, column, meant):
    assert _selector(expression) == [
        ("DRA402", 8, column, f"undeclared reference to '{expression[column - 20:].split('(')[0]}': no such function; did you mean '{meant}'?"),
    ]


def test_a_name_close_to_nothing_gets_no_guess():
    # A called name is a function that does not exist; "the only variable is `device`" was beside the point.
    assert _selector("foo(device.driver)") == [("DRA402", 8, 20, "undeclared reference to 'foo': no such function in DRA selectors of Kubernetes 1.35")]
    assert _selector("foo.size() > 0") == [("DRA402", 8, 20, "undeclared reference to 'foo': the only variable is `device`")]


def test_only_functions_of_the_release_are_suggested():
    # The lists extension (`sortBy`) is in the environment of new selectors from 1.35.
    assert "did you mean 'sortBy'?" in _selector("[1].sortBi(x, x) == [1]", release="1.35")[0][3]
    assert "did you mean" not in " ".join(p[3] for p in _selector("[1].sortBi(x, x) == [1]", release="1.34"))


def test_pod_and_claim_references_close_to_a_name_of_the_run():
    result = lint(collect([str(CASES / "did_you_mean" / "pod-and-claims.yaml")]))
    got = [(p.rule, p.span.line, p.span.column, p.message.split(" Otherwise")[0]) for p in result.problems]
    where = str(CASES / "did_you_mean" / "pod-and-claims.yaml")
    assert got == [
        ("DRA713", 11, 28, f"DeviceClass 'gpu.exmaple.com' is not defined in the linted files; did you mean 'gpu.example.com' ({where})?"),
        ("DRA712", 28, 32, f"ResourceClaimTemplate 'gpu-templte' is not defined in the linted files; did you mean 'gpu-template' ({where})?"),
        # Nothing close: no guess.
        ("DRA712", 30, 24, "ResourceClaim 'shared-claim' is not defined in the linted files; it must exist in the pod's namespace of the cluster"),
    ]


def test_the_same_typo_under_other_fields_gets_the_answer_of_its_own_fields():
    # close_matches keeps its answers per question: the same misspelt key asked again (a later document)
    # gets the same suggestion, and asked among other fields (a DeviceClass's spec) its own answer.
    where = CASES / "did_you_mean" / "same-typo-two-schemas.yaml"
    run = run_dralint("--no-config", "-f", "text", str(where))
    assert run.code == 1
    assert run.stdout.splitlines()[:3] == [
        f"{where}:11:9: error: unknown field 'toleratons'; did you mean 'tolerations'? "
        "(at spec.devices.requests[0].exactly.toleratons) [DRA101 unknown-field]",
        f"{where}:18:3: error: unknown field 'toleratons'; allowed fields here: config, extendedResourceName, selectors "
        "(at spec.toleratons) [DRA101 unknown-field]",
        f"{where}:30:9: error: unknown field 'toleratons'; did you mean 'tolerations'? "
        "(at spec.devices.requests[0].exactly.toleratons) [DRA101 unknown-field]",
    ]


def test_close_matches_answers_each_caller_with_a_list_of_its_own():
    from dralint.k8s.suggest import close_matches

    first = close_matches("nmae", ["name", "namespace"])
    assert first == ["name"]
    first.append("changed by its caller")
    assert close_matches("nmae", ["name", "namespace"]) == ["name"]
    assert close_matches("nmae", ["nmaes"]) == ["nmaes"]  # the same word among other candidates
    assert close_matches("nmae", [["a list"], "name"]) == ["name"]  # a candidate no key can hold: asked afresh


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("gpu", "gpu", False),  # the same name is no typo
        ("gpu", "gpus", True),  # one inserted at the end
        ("gpus", "gpu", True),  # one deleted at the end
        ("gpu-a", "gpua", True),  # one deleted in the middle
        ("gpua", "gpu-a", True),  # one inserted in the middle
        ("gpu", "gpx", True),  # one changed
        ("gpu", "gup", True),  # two neighbours swapped
        ("gpu", "pgu", True),
        ("abcd", "abdc", True),
        ("gpu", "ugp", False),  # not neighbours
        ("gpu", "gpuxy", False),  # two inserted
        ("abcd", "xbcy", False),  # two changed
        ("abc", "xbcd", False),  # one changed and one inserted
        ("xbcd", "abc", False),
    ],
)
def test_one_edit_is_exactly_one_change_deletion_insertion_or_swap(a, b, expected):
    from dralint.k8s.suggest import one_edit

    assert one_edit(a, b) is expected
