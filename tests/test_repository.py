"""A whole repository linted at once: only Kubernetes manifests can fail the run (dralint.pipeline.triage).

tests/cases/repo is an ordinary project: a Helm chart (Chart.yaml, values.yaml,
templates with `{{ ... }}`), an Ansible playbook, a docker compose file, JSON
arrays, a tsconfig.json with comments, an OpenAPI file, a GitHub workflow, and
DRA manifests with one real mistake.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dralint.lint import lint
from dralint.pipeline.sources import Source, collect

from conftest import CASES, SHARED, lint_json, run_dralint

REPO = CASES / "repo"

# The one mistake: `all` for `All`.
MISTAKE = ("k8s/claim-template.yaml", 12, 27, "error", "DRA313")
NOTES = [
    ("ansible/site.yml", 19, 23, "info", "DRA015"),  # a DeviceClass inside a task: pointed out, not checked
    ("chart/gpu-app/templates/claim-template.yaml", 4, 9, "info", "DRA014"),
    ("chart/gpu-app/templates/deployment.yaml", 4, 9, "info", "DRA014"),
]


def _rows(problems: list[dict]) -> list[tuple]:
    return [(str(Path(p["file"]).relative_to(REPO)), p["line"], p["column"], p["severity"], p["rule"]) for p in problems]


def test_a_repository_fails_only_on_the_dra_mistake():
    run = lint_json(str(REPO))
    assert run.code == 1
    assert _rows(run.problems) == sorted([MISTAKE, *NOTES])
    assert run.json["summary"] == {
        # .github/workflows/ci.yml is read (a dot-folder) and passed over.
        "files": 14, "files_passed_over": 11, "documents": 3, "errors": 1, "warnings": 0, "infos": 3,
    }


def test_the_summary_line_counts_the_files_passed_over():
    run = run_dralint("--no-config", "--format", "text", str(REPO))
    assert run.code == 1
    assert "14 files (11 without Kubernetes objects passed over), 3 documents: 1 error, 0 warnings, 3 info" in run.stderr


def _lint(name: str, text: str) -> list[tuple]:
    result = lint([Source(name, text.encode())])
    return [(p.span.line, p.span.column, p.severity.name.lower(), p.rule) for p in result.problems]


@pytest.mark.parametrize(
    "name, text",
    [
        ("Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n"),
        ("values.yaml", "replicaCount: 1\nimage:\n  repository: nginx\n"),
        ("playbook.yml", "- hosts: all\n  tasks: []\n"),
        ("compose.yaml", "services:\n  web:\n    image: nginx\n"),
        ("index.json", '[{"a": 1}, {"a": 2}]'),
        ("scalar.yaml", "just a string\n"),
        ("dup.yaml", "a: 1\na: 2\n"),  # a duplicate key is no Kubernetes problem outside an object
        ("broken-values.yaml", "image: [nginx\n"),
    ],
)
def test_files_without_kubernetes_objects_never_fail(name, text):
    problems = _lint(name, text)
    assert [p for p in problems if p[2] != "info"] == []


def test_a_syntax_error_outside_a_manifest_is_an_info_at_its_position():
    assert _lint("package.json", '{\n  "strict": true\n  "x": 1\n}\n') == [(3, 3, "info", "DRA015")]
    assert _lint("values.yaml", "image: [nginx\n") == [(1, 14, "info", "DRA015")]


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: ConfigMap\nmetadata: [x\n",  # an apiVersion: / kind: line
        '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass" "spec": {}}',  # JSON manifest
        "spec:\n  devices: [\n  # resource.k8s.io\n",  # the API group
    ],
)
def test_a_syntax_error_in_a_manifest_is_still_an_error(text):
    problems = _lint("claim.yaml", text)
    assert [p[3] for p in problems] == ["DRA001"] and problems[0][2] == "error"


def test_a_manifest_that_lost_its_kind_is_reported_but_a_chart_is_not():
    assert _lint("claim.yaml", "apiVersion: resource.k8s.io/v1\nmetadata:\n  name: gpu\n") == [(1, 1, "error", "DRA007")]
    assert [p[3] for p in _lint("claim.yaml", "apiVersion: resource.k8s.io/v1\nspec: {}\n")] == ["DRA007", "DRA201"]
    assert _lint("Chart.yaml", "apiVersion: v2\nname: x\n") == []


def test_a_list_next_to_an_object_is_still_an_error():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\n- a\n- b\n"
    assert _lint("cm.yaml", text) == [(6, 1, "error", "DRA003")]


def test_a_template_gets_one_info_and_no_errors():
    text = (REPO / "chart/gpu-app/templates/claim-template.yaml").read_text()
    assert _lint("claim.yaml", text) == [(4, 9, "info", "DRA014")]
    # Quoted actions parse as YAML; `.Values` still makes it a template to render first.
    quoted = 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: "{{ .Values.name }}"\n'
    assert _lint("class.yaml", quoted) == [(4, 10, "info", "DRA014")]


def test_braces_that_are_data_do_not_make_a_template():
    # An Argo-style parameter in a quoted string is a value, and the object is checked.
    text = 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\n  annotations: {note: "{{inputs.name}}"}\nspec:\n  bogus: 1\n'
    assert _lint("class.yaml", text) == [(7, 3, "error", "DRA101")]
    # Nor in a manifest whose only fault is a duplicate key: that stays an error.
    duplicate = text.replace("spec:\n  bogus: 1\n", "spec: {}\nspec: {}\n")
    assert [p[2:] for p in _lint("class.yaml", duplicate)] == [("error", "DRA002")]
    # A commented-out action neither.
    commented = "# name: {{ .Values.name }}\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\n"
    assert _lint("class.yaml", commented) == []


def test_real_world_templates_get_the_render_first_info(shared_corpus):
    root, rows = shared_corpus
    templated = [root / r["file"] for r in rows if r.get("templated")]
    assert len(templated) >= 4
    result = lint(collect([str(p) for p in templated]))
    assert sorted((Path(p.source).name, p.rule) for p in result.problems) == sorted((p.name, "DRA014") for p in templated)


@pytest.fixture
def shared_corpus():
    index = SHARED / "corpus" / "real-world" / "index.json"
    if not index.is_file():
        pytest.skip("../shared corpus not present")
    data = json.loads(index.read_text())
    return index.parent, data if isinstance(data, list) else data["files"]
