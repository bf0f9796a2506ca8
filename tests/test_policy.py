"""CEL policy files (`--policy`, `policies:` in .dralint.yaml): rules an organisation writes itself."""

from __future__ import annotations

import pytest

from dralint.model import format_path
from dralint.policy import PolicyError, load_policies

from conftest import CASES, brief, run_dralint
from engine import brief as brief_of
from engine import lint_paths

POLICY = CASES / "policy"


@pytest.fixture(autouse=True)
def _needs_cel():
    pytest.importorskip("cel_expr_python")


def test_policy_validations_become_rules():
    problems = lint_paths([POLICY / "claims.yaml"], policies=[POLICY / "gpu-limits.yaml"], select=["ORG", "GPU-LIMITS"]).problems
    assert [(p.rule, p.name, str(p.severity), format_path(p.path), p.span.line, p.span.column) for p in problems] == [
        # fieldPath names a list: the problem points at its key.
        ("ORG001", "gpu-limits", "error", "spec.devices.requests", 9, 5),
        # No fieldPath: the object. An evaluation error fails the validation (failurePolicy: Fail).
        ("ORG003", "gpu-limits", "error", "", 16, 1),
        # Default code from the policy name; messageExpression.
        ("GPU-LIMITS-2", "gpu-limits", "warning", "metadata", 18, 1),
    ]
    messages = [p.message for p in problems]
    assert messages[0] == "at most 4 GPUs per request"
    assert messages[1].startswith("at most two requests (the expression could not be evaluated: no such key: devices")
    assert "has()" in messages[1]
    assert messages[2] == "object small needs a team label"


def test_policy_rules_obey_select_ignore_and_severity():
    def run(**selection):
        return lint_paths([POLICY / "claims.yaml"], policies=[POLICY / "gpu-limits.yaml"], **selection).problems

    # The slug is the policy name: one switch for the whole policy.
    assert [p for p in run(ignore=["gpu-limits"]) if p.name == "gpu-limits"] == []
    # Default codes select by prefix.
    assert [p.rule for p in run(select=["GPU-LIMITS"])] == ["GPU-LIMITS-2"]
    # Re-levelled to a warning: nothing left to fail the run.
    assert [(p.rule, str(p.severity)) for p in run(select=["ORG001"], severities={"ORG001": "warning"})] == [("ORG001", "warning")]


def test_match_kinds_api_versions_and_namespaces():
    problems = lint_paths([POLICY / "admin.yaml"], policies=[POLICY / "namespaced.yaml"], select=["ORG"]).problems
    assert brief_of(problems) == [
        ("ORG020", "metadata.name", 4, 9),
        # fieldPath with a quoted map key.
        ("ORG010", "spec.devices.requests[0].exactly.adminAccess", 12, 22),
        # No namespace: it may be applied to ml, so the ml policy applies (the "web" claim is skipped).
        ("ORG020", "metadata.name", 29, 9),
    ]


def test_policies_from_the_config_file(tmp_path):
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "p.yaml").write_bytes((POLICY / "gpu-limits.yaml").read_bytes())
    (tmp_path / ".dralint.yaml").write_text("policies: [policies/p.yaml]\nselect: [ORG001]\n")
    run = run_dralint("--format", "json", "--policy", "policies/p.yaml", str(POLICY / "claims.yaml"), cwd=tmp_path)
    # Named twice (config and --policy): loaded once, no duplicate-code error.
    assert run.code == 1, run.stderr
    assert brief(run.json["problems"]) == [("ORG001", "spec.devices.requests", 9, 5)]


@pytest.mark.parametrize(
    "name, expected",
    [
        # The position of the CEL error inside a folded block scalar, mapped into the file.
        ("bad-cel.yaml", "bad-cel.yaml:11:16: CEL error in expression: syntax error: mismatched input ')'"),
        # At the end of the file's last line (there is no line 7).
        ("bad-yaml.yaml", "bad-yaml.yaml:6:33: did not find expected ',' or '}'"),
        ("bad-shape.yaml", "bad-shape.yaml:10:15: unknown severity 'fatal'; use error, warning or info"),
    ],
)
def test_bad_policy_files_exit_2_with_file_line_column(name, expected):
    run = run_dralint("--no-config", "--policy", str(POLICY / name), str(POLICY / "claims.yaml"))
    assert run.code == 2
    assert run.stdout == ""
    assert expected in run.stderr, run.stderr


def test_more_policy_file_defects(tmp_path):
    head = "apiVersion: dralint.dev/v1\nkind: Policy\nmetadata:\n  name: p\nspec:\n  match:\n    kinds: [ResourceClaim]\n  validations:\n"
    cases = [
        (head + "  - expression: \"object.nope(\"\n", ":9:29: CEL error in expression"),
        (head + "  - expression: \"1 + 2\"\n", ":9:18: CEL error in expression: a policy must evaluate to bool, not int"),
        (head + "  - expression: 'true'\n    code: DRA999\n", ":10:11: code 'DRA999': codes starting with DRA are reserved"),
        (head + "  - expression: 'true'\n    mesage: x\n", ":10:5: unknown field 'mesage' in a validation"),
        (head + "  - expression: 'true'\n    messageExpression: \"'a' +\"\n", ":10:30: CEL error in messageExpression"),
        (head + "  - expression: 'true'\n    fieldPath: 'spec..x'\n", ":10:16: invalid fieldPath 'spec..x'"),
        (head + "  - code: A1\n    expression: 'true'\n  - code: A1\n    expression: 'false'\n", ":12:17: rule code A1 is already used"),
        (head.replace("dralint.dev/v1", "v1"), ":1:13: not a dralint policy"),
        (head.replace("    kinds: [ResourceClaim]\n", "    kind: [ResourceClaim]\n") + "  - expression: 'true'\n", ":7:5: unknown field 'kind' in match"),
        ("", ":1:1: the policy file holds no policy"),
    ]
    # The CLI prints these and exits 2 (test_bad_policy_files_exit_2_with_file_line_column).
    for text, expected in cases:
        path = tmp_path / "p.yaml"
        path.write_text(text)
        with pytest.raises(PolicyError) as refused:
            load_policies([path])
        assert f"{path}{expected}" in str(refused.value), text
    with pytest.raises(PolicyError, match="cannot read policy file"):
        load_policies([tmp_path / "missing.yaml"])
