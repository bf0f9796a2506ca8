"""`lint()` owns every stage: the Python API, the CLI and the webhook get the same problems.

Also the configuration and release-name defects of issue 10 (items 1-4, 7, 8).
"""

from __future__ import annotations

import textwrap

import pytest

from dralint import schemas
from dralint.config import ConfigError, Overrides, build_options
from dralint.lint import LintOptions, lint, lint_documents
from dralint.model import Severity
from dralint.pipeline.load import load
from dralint.pipeline.releases import parse_release
from dralint.pipeline.selection import Selection
from dralint.pipeline.sources import Source
from dralint.registry import load_rules_dir

from conftest import ROOT, lint_json, run_dralint

CLAIM_WITH_SUPPRESSION = textwrap.dedent(
    """\
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata:
      name: Bad_Name  # dralint: disable=DRA202
    spec:
      devices:
        requests:
        - name: gpu
          exactly:
            deviceClassName: gpu.example.com
    ---
    apiVersion: resource.k8s.io/v1
    kind: DeviceClass
    metadata:
      name: gpu.example.com
    """
)


def brief(problems) -> list[tuple]:
    return [(p.rule, p.path_text, p.span.line, p.span.column) for p in problems]


def test_python_api_applies_inline_suppressions():
    result = lint([Source("claim.yaml", CLAIM_WITH_SUPPRESSION.encode())], LintOptions("1.35"))
    assert brief(result.problems) == []
    unsuppressed = CLAIM_WITH_SUPPRESSION.replace("  # dralint: disable=DRA202", "")
    result = lint([Source("claim.yaml", unsuppressed.encode())], LintOptions("1.35"))
    assert [p[:2] for p in brief(result.problems)] == [("DRA202", "metadata.name")]


def test_python_api_reports_an_unused_suppression():
    text = CLAIM_WITH_SUPPRESSION.replace("Bad_Name  # dralint: disable=DRA202", "good  # dralint: disable=DRA202")
    result = lint([Source("claim.yaml", text.encode())], LintOptions("1.35"))
    assert brief(result.problems) == [("DRA900", "", 4, 34)]


def test_cli_and_python_api_agree(tmp_path):
    path = tmp_path / "mistakes.yaml"
    path.write_bytes((ROOT / "examples" / "mistakes.yaml").read_bytes())
    cli = [(p["rule"], p["path"], p["line"], p["column"]) for p in lint_json(str(path), "-k", "1.35").problems]
    api = brief(lint([Source(str(path), path.read_bytes())], LintOptions("1.35")).problems)
    assert cli == api and cli


def test_webhook_path_gets_the_same_problems_as_a_file():
    text = CLAIM_WITH_SUPPRESSION.replace("  # dralint: disable=DRA202", "")
    from_file = lint([Source("<admission>", text.encode())], LintOptions("1.35")).problems
    documents = load("<admission>", text.encode()).documents
    from_objects = lint_documents(documents, LintOptions("1.35")).problems
    assert brief(from_objects) == brief(from_file)


def test_selection_is_one_object_for_running_filtering_and_levelling():
    text = CLAIM_WITH_SUPPRESSION.replace("  # dralint: disable=DRA202", "")
    selection = Selection(select=["DRA2"], severities={"DRA202": Severity.WARNING})
    result = lint([Source("claim.yaml", text.encode())], LintOptions("1.35", selection=selection))
    assert [(p.rule, str(p.severity)) for p in result.problems] == [("DRA202", "warning")]
    assert lint([Source("claim.yaml", text.encode())], LintOptions("1.35", selection=Selection(ignore=["DRA202"]))).problems == []


def test_target_version_judges_each_file_from_its_own_release():
    # Issue 10.1: the file pins 1.26; judged from 1.35 it "is not served" and the upgrade check said nothing.
    run = lint_json("--target-version", "1.35", "examples/older-releases/v1alpha1-1.26.yaml")
    removed = [(p["rule"], p["line"], p["column"]) for p in run.problems if p["rule"] == "DRA021"]
    assert removed == [("DRA021", 3, 13), ("DRA021", 9, 13), ("DRA021", 18, 13)]


def test_quiet_does_not_change_the_exit_code(tmp_path):
    # Issue 10.2: -q shows errors only, but a warning still fails the run at --fail-on warning.
    path = tmp_path / "beta.yaml"
    path.write_text((ROOT / "examples" / "deviceclass.yaml").read_text().replace("resource.k8s.io/v1", "resource.k8s.io/v1beta2"))
    loud = run_dralint("--no-config", "-k", "1.35", "--fail-on", "warning", str(path))
    quiet = run_dralint("--no-config", "-k", "1.35", "--fail-on", "warning", "-q", str(path))
    assert "DRA011" in loud.stdout and loud.code == 1
    assert quiet.stdout == "" and quiet.code == 1


def test_two_rule_folders_in_one_process_keep_their_own_modules(tmp_path):
    # Issue 10.4: module names were reused by position, so the second folder returned the first one's rules.
    for name, code in (("one", "ACME001"), ("two", "ACME002")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "mine.py").write_text(
            f"from dralint.api import rule\n\n@rule({code!r}, 'rule-{name}')\ndef check(doc, report):\n    '''Rule {name}.'''\n"
        )
    assert [r.code for r in load_rules_dir(str(tmp_path / "one"))] == ["ACME001"]
    assert [r.code for r in load_rules_dir(str(tmp_path / "two"))] == ["ACME002"]


@pytest.mark.parametrize("written", ["1.30", "v1.30", "1.30.2", " v1.30.0 "])
def test_release_names_as_kubectl_prints_them(written):
    assert parse_release(written) == "1.30"


def test_a_release_after_the_newest_is_named_as_such():
    newest = schemas.RELEASES[-1]
    major, minor = newest.split(".")
    later = f"{major}.{int(minor) + 1}"
    run = run_dralint("--no-config", "-k", later, "examples/deviceclass.yaml")
    assert run.code == 2
    assert f"Kubernetes {later} is not released yet" in run.stderr and f"newest release dralint knows is {newest}" in run.stderr


def test_config_accepts_an_unquoted_release_as_written(tmp_path):
    # Issue 10.7: YAML reads 1.30 as the number 1.3.
    config = tmp_path / ".dralint.yaml"
    config.write_text("kubernetes-version: 1.30\ntarget-version: 1.40\n")
    options, _ = build_options(Overrides(config=str(config)))
    assert (options.release, options.target_version) == ("1.30", "1.40")


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("fail-on: warn\n", ":1:10:", "fail-on must be one of error, warning, info, not 'warn'"),
        ("kubernetes-version: 1.2\n", ":1:21:", "unsupported Kubernetes version '1.2'"),
        ("severity: {DRA011: loud}\n", ":1:11:", "unknown severity 'loud'"),
        ("select: DRA999\n", "", "unknown rule 'DRA999'"),
        ("kubernets-version: '1.30'\n", ":1:1:", "did you mean 'kubernetes-version'?"),
    ],
)
def test_config_errors_name_the_file_and_line(tmp_path, text, where, words):
    config = tmp_path / ".dralint.yaml"
    config.write_text(text)
    with pytest.raises(ConfigError) as caught:
        build_options(Overrides(config=str(config)))
    assert words in str(caught.value)
    if where:
        assert str(caught.value).startswith(f"{config}{where}")
    run = run_dralint("-c", str(config), "examples/deviceclass.yaml")
    assert run.code == 2 and words in run.stderr and "internal error" not in run.stderr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# dralint: kubernetes_version=1.30\napiVersion: v1\nkind: ConfigMap\n", [("DRA009", 1, 1, "malformed release comment; write it as '# dralint: kubernetes-version=1.30'")]),
        ("# dralint: kubernetes-version = 1.30\napiVersion: v1\nkind: ConfigMap\n", [("DRA009", 1, 1, "malformed release comment; write it as '# dralint: kubernetes-version=1.30'")]),
        (
            "apiVersion: v1\nkind: ConfigMap\n---\n# dralint: kubernetes-version=1.30\napiVersion: v1\nkind: ConfigMap\n",
            [("DRA009", 4, 1, "a dralint kubernetes-version comment applies only before the first document; move it to the top of the file")],
        ),
        ("# about dralint and its --kubernetes-version flag\napiVersion: v1\nkind: ConfigMap\n", []),
    ],
)
def test_malformed_or_misplaced_release_comments_are_reported(text, expected):
    result = lint([Source("m.yaml", text.encode())], LintOptions("1.35"))
    assert [(p.rule, p.span.line, p.span.column, p.message) for p in result.problems] == expected


def test_release_comment_with_crlf_and_many_comment_lines_is_linear():
    # Issue 9.3: the old regex backtracked exponentially on CRLF comment lines (30 lines: > 60 s).
    data = b"#\r\n" * 5000 + b"# dralint: kubernetes-version=1.30\r\napiVersion: v1\r\nkind: ConfigMap\r\n"
    result = lint([Source("crlf.yaml", data)], LintOptions("1.35"))
    assert result.problems == []


def test_problems_are_capped_per_document_with_a_count_of_the_rest():
    # Issue 9.11: memory grew with the number of problems (32k invalid claims: 556 MB).
    labels = "".join(f"    bad_{i}$: x\n" for i in range(150))
    text = f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\n  labels:\n{labels}"
    problems = lint([Source("labels.yaml", text.encode())], LintOptions("1.35")).problems
    assert len(problems) == 101
    more = [p for p in problems if p.rule == "DRA005"]
    assert [m.message for m in more] == ["50 more problems in this document were not listed (at most 100 are); this is where the first of them is"]
    assert more[0].span.line == 106  # the 101st bad label: line 5 + 101
