"""The core pipeline through the real CLI: API versions, schema problems and their exact positions.

Engine checks only (`--select DRA0,DRA1`), so these assertions do not move
when semantic rules are added; each file names its release in its first line.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import CASES, ROOT, brief, lint_json, run_dralint
from engine import brief as brief_of
from engine import lint_fixture, lint_paths, lint_text

CORE = CASES / "core"
ENGINE = ("DRA0", "DRA1")
ENGINE_ARGS = ("--select", "DRA0,DRA1")


def test_every_document_of_a_file_is_counted():
    # The problems of tests/cases/core/*.yaml are pinned in the files (tests/test_cases.py).
    result = lint_paths([CORE / "types.yaml"], release="1.35", select=ENGINE)
    assert result.documents == 7
    assert [str(p.severity) for p in result.problems].count("error") == 5


def test_release_changes_the_verdict():
    claim = "apiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
    at_132 = lint_text(claim, release="1.32", select=ENGINE)
    assert brief_of(at_132) == [("DRA010", "apiVersion", 1, 13)]
    assert "introduced in 1.33" in at_132[0].message
    at_133 = lint_text(claim, release="1.33", select=ENGINE)
    assert brief_of(at_133) == [("DRA011", "apiVersion", 1, 13)]
    assert [str(p.severity) for p in at_133] == ["warning"]  # exit 0 under the default --fail-on error


def test_json_report_shape_is_exact():
    run = lint_json(str(CORE / "v1-errors.yaml"), *ENGINE_ARGS)
    assert set(run.json) == {"problems", "summary"}
    first = run.problems[0]
    # `fixes` is there only when a problem has one (see tests/test_fix.py).
    assert [key for key in first if key != "fixes"] == [
        "file", "line", "column", "end_line", "end_column", "severity", "rule", "name",
        "message", "path", "document", "api_version", "kind", "object",
    ]
    assert first["file"] == str(CORE / "v1-errors.yaml")
    assert first["name"] == "unknown-field"
    assert first["document"] == 0
    assert first["api_version"] == "resource.k8s.io/v1"
    assert first["kind"] == "ResourceClaim"
    assert first["object"] == "default/claim"
    assert set(run.json["summary"]) == {"files", "files_passed_over", "documents", "errors", "warnings", "infos"}


def test_text_format_line_and_summary():
    run = run_dralint("--no-config", "--format", "text", *ENGINE_ARGS, str(CORE / "v1alpha3-errors.yaml"))
    assert run.code == 1
    lines = run.stdout.splitlines()
    assert lines == [
        f"{CORE / 'v1alpha3-errors.yaml'}:2:13: warning: resource.k8s.io/v1alpha3 is served by Kubernetes 1.31 but disabled by default "
        "(needs --runtime-config=resource.k8s.io/v1alpha3=true) (at apiVersion) [DRA011 api-version-disabled-by-default]",
        f"{CORE / 'v1alpha3-errors.yaml'}:9:7: error: unknown field 'expresion'; did you mean 'expression'? "
        "(at spec.selectors[0].cel.expresion) [DRA101 unknown-field]",
    ]
    assert run.stderr.strip() == "1 file, 1 document: 1 error, 1 warning, 0 info"


def test_source_excerpt_with_caret_when_colour_forced():
    run = run_dralint("--no-config", "--color", "always", "--select", "DRA101", str(CORE / "v1alpha3-errors.yaml"))
    out = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout)
    assert "expresion: device.driver" in out
    caret_line = [line for line in out.splitlines() if "^" in line][0]
    # Caret under columns 7..15 ("expresion"), after a 5-wide line-number gutter and " | ".
    assert caret_line.index("^") == len("    9 | ") + 6
    assert caret_line.count("^") == len("expresion")


def test_exit_codes_and_fail_on():
    clean = lint_json(str(ROOT / "examples" / "deviceclass.yaml"))
    assert clean.code == 0 and clean.problems == []
    warn_only = lint_json("-k", "1.33", str(CORE / "v1beta2-errors.yaml"), "--select", "DRA011")
    assert warn_only.code == 0
    failing = run_dralint("--no-config", "--format", "json", "-k", "1.33", "--select", "DRA011", "--fail-on", "warning", str(CORE / "v1beta2-errors.yaml"))
    assert failing.code == 1


@pytest.mark.parametrize(
    "args, needle",
    [
        ((), "no PATH given"),
        (("-k", "1.25", "x.yaml"), "unsupported Kubernetes version '1.25'"),
        (("--format", "xml", "examples/"), "unknown format 'xml'"),
        (("--select", "DRA999X", "examples/"), "unknown rule 'DRA999X'"),
        (("--fail-on", "fatal", "examples/"), "invalid choice"),
        (("--severity", "DRA011", "examples/"), "CODE=LEVEL"),
    ],
)
def test_usage_errors_exit_2(args, needle):
    run = run_dralint("--no-config", *args)
    assert run.code == 2, run.stdout + run.stderr
    assert needle in run.stderr
    assert "Traceback" not in run.stderr


def test_unreadable_path_is_a_problem_not_a_crash(tmp_path):
    problems = lint_fixture(tmp_path / "missing.yaml")
    assert brief_of(problems) == [("DRA006", "", 1, 1)]
    assert str(problems[0].severity) == "error"  # exit 1
    assert "no such file" in problems[0].message


def test_directories_are_walked_for_yaml_and_json(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / ".git").mkdir()  # a tool's folder (dot-folders of manifests are walked: tests/test_walk.py)
    good = (ROOT / "examples" / "deviceclass.yaml").read_text()
    (tmp_path / "a" / "one.yaml").write_text(good)
    (tmp_path / "a" / "two.yml").write_text(good)
    bad_json = json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "x"}, "spec": {"bogus": 1}})
    (tmp_path / "three.json").write_text(bad_json)
    (tmp_path / "notes.txt").write_text("not: yaml: at: all:")
    (tmp_path / ".git" / "skip.yaml").write_text("{")
    result = lint_paths([tmp_path], select=ENGINE)
    assert result.files == 3
    assert brief_of(result.problems) == [("DRA101", "spec.bogus", 1, bad_json.index('"bogus"') + 1)]
    assert result.problems[0].source.endswith("three.json")


def test_stdin_and_multi_document_indexes():
    text = (ROOT / "examples" / "mistakes.yaml").read_text()
    run = lint_json("-", *ENGINE_ARGS, input=text)
    assert {p["file"] for p in run.problems} == {"-"}
    assert sorted({p["document"] for p in run.problems}) == [0, 1, 2]
    assert ("DRA010", "apiVersion", 41, 13) in brief(run.problems)


def test_release_comment_in_file_wins_and_bad_one_is_reported(tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text("# dralint: kubernetes-version=1.24\n" + (ROOT / "examples" / "deviceclass.yaml").read_text())
    assert brief_of(lint_fixture(path)) == [("DRA009", "", 1, 31)]
    older = lint_fixture(ROOT / "examples" / "older-releases" / "v1alpha2-1.30.yaml")
    assert {p.rule for p in older} == {"DRA011"}


def test_examples_command_from_readme():
    run = run_dralint("examples/")
    assert run.code == 1
    assert "examples/mistakes.yaml" in run.stdout
    for file in ("resourceclaim.yaml", "resourceclaimtemplate.yaml", "deviceclass.yaml"):
        assert f"examples/{file}:" not in run.stdout


def test_list_items_are_checked_one_by_one(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text(
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata:\n    name: a\n"
        "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata:\n    name: b\n  spec:\n    selector: []\n"
    )
    result = lint_paths([path], select=ENGINE)
    assert brief_of(result.problems) == [("DRA101", "spec.selector", 13, 5)]
    assert "did you mean 'selectors'?" in result.problems[0].message
    assert result.documents == 2


def test_unquoted_yaml_booleans_and_numbers_get_a_hint():
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: n\n"
        "  labels:\n    version: 1.10\nspec: {}\n"
    )
    problems = lint_text(text, select=ENGINE)
    assert brief_of(problems) == [("DRA103", "metadata.namespace", 5, 14), ("DRA103", "metadata.labels.version", 7, 14)]
    assert "read as a boolean" in problems[0].message and "quote it" in problems[0].message
    assert "read as a number" in problems[1].message


def test_a_folder_without_manifests_is_said_not_silent(tmp_path):
    run = run_dralint("--no-config", str(tmp_path))
    assert run.code == 0
    assert "no *.yaml, *.yml or *.json files found" in run.stderr


def test_yaml_that_is_no_kubernetes_object_is_passed_over(tmp_path):
    (tmp_path / "workflow.yaml").write_text("name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n")
    (tmp_path / "half.yaml").write_text("metadata:\n  name: x\nspec: {}\n")
    result = lint_paths([tmp_path], select=ENGINE)
    # The workflow is no object at all; a document with metadata but no type is a broken one.
    assert [(p.source.rsplit("/", 1)[-1], p.rule) for p in result.problems] == [("half.yaml", "DRA007")]
    assert result.documents == 1
    assert len(result.passed_over_files) == 1
