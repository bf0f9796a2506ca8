"""Rendered streams mapped back to their sources (dralint.pipeline.origins), through the real CLI.

tests/rendered/helm-template.yaml is what `helm template` prints for the chart
tests/rendered/charts/gpu (a `# Source:` comment before each document);
tests/rendered/kustomize-build.yaml what `kustomize build overlays/prod` prints
in tests/rendered/kustomize, whose overlay has `buildMetadata: [originAnnotations]`.
No helm or kustomize binary is needed: the streams are fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, lint_json, run_dralint

RENDERED = ROOT / "tests" / "rendered"
HELM = (RENDERED / "helm-template.yaml").read_text()
KUSTOMIZE = (RENDERED / "kustomize-build.yaml").read_text()


def _where(run) -> list[tuple]:
    return [(p["file"], p["line"], p["column"], p["rule"], p.get("origin")) for p in run.problems]


def test_helm_problems_are_reported_in_the_templates():
    run = lint_json("-", input=HELM, cwd=RENDERED)
    assert run.code == 1
    assert _where(run) == [
        # The value is written as rendered: its line and column in the template.
        ("charts/gpu/templates/claim-template.yaml", 14, 27, "DRA313",
         {"file": "charts/gpu/templates/claim-template.yaml", "found": True, "rendered": {"file": "-", "line": 36, "column": 27}}),
        # Both documents of the `range` come from the one document of the template.
        ("charts/gpu/templates/classes.yaml", 10, 7, "DRA101",
         {"file": "charts/gpu/templates/classes.yaml", "found": True, "rendered": {"file": "-", "line": 10, "column": 7}}),
        ("charts/gpu/templates/classes.yaml", 10, 7, "DRA101",
         {"file": "charts/gpu/templates/classes.yaml", "found": True, "rendered": {"file": "-", "line": 20, "column": 7}}),
    ]
    assert run.problems[0]["end_column"] == 32


def test_helm_github_and_sarif_annotate_the_template():
    github = run_dralint("--format", "github", "--no-config", "-", input=HELM, cwd=RENDERED)
    assert github.code == 1
    assert github.stdout.splitlines()[0].startswith(
        "::error file=charts/gpu/templates/claim-template.yaml,line=14,col=27,endLine=14,endColumn=31,title=DRA313 allocation-mode-unsupported::")
    sarif = run_dralint("--format", "sarif", "--no-config", "-", input=HELM, cwd=RENDERED)
    result = json.loads(sarif.stdout)["runs"][0]["results"][0]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "charts/gpu/templates/claim-template.yaml", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 14, "startColumn": 27, "endLine": 14, "endColumn": 32}
    assert result["relatedLocations"] == [{"id": 1, "physicalLocation": {"artifactLocation": {"uri": "stdin"},
                                           "region": {"startLine": 36, "startColumn": 27}},
                                           "message": {"text": "where the rendered stream has it"}}]
    assert "fixes" not in result  # a fix would edit the stream


def test_a_source_that_cannot_be_read_is_named_and_the_stream_keeps_the_position(tmp_path: Path):
    run = lint_json("-", input=HELM, cwd=tmp_path)
    assert _where(run)[2] == ("-", 36, 27, "DRA313", {"file": "gpu/templates/claim-template.yaml", "found": False,
                                                      "rendered": {"file": "-", "line": 36, "column": 27}})
    text = run_dralint("--no-config", "-", input=HELM, cwd=tmp_path)
    assert ("-:36:27: error: 'Every' is not supported: use ExactCount or All (NotSupported) (at spec.spec.devices.requests[0]"
            ".exactly.allocationMode) (from gpu/templates/claim-template.yaml, not readable from the working directory)") in text.stdout
    sarif = run_dralint("--format", "sarif", "--no-config", "-", input=HELM, cwd=tmp_path)
    result = json.loads(sarif.stdout)["runs"][0]["results"][2]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "stdin"}
    assert result["relatedLocations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "gpu/templates/claim-template.yaml", "uriBaseId": "%SRCROOT%"}}


def test_kustomize_problems_are_reported_in_the_resources():
    run = lint_json("-", input=KUSTOMIZE, cwd=RENDERED / "kustomize")
    assert _where(run) == [
        # The overlay's patch changed `count`: the base does not write that value, so the document's start.
        ("base/claim-template.yaml", 1, 1, "DRA314",
         {"file": "base/claim-template.yaml", "found": True, "rendered": {"file": "-", "line": 27, "column": 18}}),
        ("base/claim-template.yaml", 13, 24, "DRA103",
         {"file": "base/claim-template.yaml", "found": True, "rendered": {"file": "-", "line": 25, "column": 24}}),
    ]
    text = run_dralint("--no-config", "-", input=KUSTOMIZE, cwd=RENDERED / "kustomize")
    assert ("base/claim-template.yaml:13:24: error: wrong type: expected boolean, got string "
            "(at spec.spec.devices.requests[0].exactly.adminAccess) (rendered at -:25:24) [DRA103 wrong-type]") in text.stdout


def test_an_ambiguous_line_is_the_documents_start(tmp_path: Path):
    (tmp_path / "c" / "templates").mkdir(parents=True)
    (tmp_path / "c" / "templates" / "t.yaml").write_text(
        "# a comment\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: {{ .Values.name }}\n"
        "spec:\n  devices:\n    requests:\n    - name: a\n      exactly:\n        deviceClassName: x\n        count: {{ .Values.n }}\n"
        "    - name: b\n      exactly:\n        deviceClassName: x\n        count: {{ .Values.n }}\n"
    )
    stream = ("---\n# Source: c/templates/t.yaml\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: claim\n"
              "spec:\n  devices:\n    requests:\n    - name: a\n      exactly:\n        deviceClassName: x\n        count: -2\n"
              "    - name: b\n      exactly:\n        deviceClassName: x\n        count: -2\n")
    run = lint_json("--select", "DRA314", "-", input=stream, cwd=tmp_path)
    # `count:` is written twice in the template, with the same text: neither is the one; the document starts on line 3.
    assert [(p["file"], p["line"], p["column"]) for p in run.problems] == [("c/templates/t.yaml", 3, 1)] * 2


def test_the_editor_and_fix_keep_the_problems_in_the_stream(monkeypatch):
    """The language server's buffer and `--fix` edit the rendered text itself: nothing moves out of it."""
    from dralint.fix import fix_text
    from dralint.lint import LintOptions
    from dralint.lsp.engine import lint_buffer

    monkeypatch.chdir(RENDERED)  # where the templates are readable
    outcome = lint_buffer(str(RENDERED / "helm-template.yaml"), HELM)
    assert [(p.source, p.span.line, p.span.column, p.rule, p.origin) for p in outcome.problems] == [
        (str(RENDERED / "helm-template.yaml"), 10, 7, "DRA101", None),
        (str(RENDERED / "helm-template.yaml"), 20, 7, "DRA101", None),
        (str(RENDERED / "helm-template.yaml"), 36, 27, "DRA313", None),
    ]
    fixed = fix_text("-", HELM, LintOptions())
    assert fixed.count("expression:") == 2 and "expresion" not in fixed


def test_a_stream_cannot_point_outside_the_working_directory(tmp_path: Path):
    """A rendered stream names its sources; a report quotes their lines: only files under the working directory."""
    secret = tmp_path / "secret.yaml"
    secret.write_text("token: hunter2\n")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "link.yaml").symlink_to(secret)
    claim = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: x\nspec:\n  bogus: 1\n"
    for named in (str(secret), "../secret.yaml", "link.yaml", "x/../../secret.yaml"):
        run = run_dralint("--no-config", "--color", "always", "-", input=f"---\n# Source: {named}\n{claim}", cwd=tmp_path / "work")
        assert run.code == 1
        assert "hunter2" not in run.stdout and run.stdout.startswith("\x1b[1m-:8:3\x1b[0m"), run.stdout


def test_worker_processes_move_run_scope_problems_too(tmp_path: Path):
    """With --jobs, a rendered file's run-scope problems (judged by the parent at the end) move as its others do."""
    (tmp_path / "gpu" / "templates").mkdir(parents=True)
    (tmp_path / "gpu" / "templates" / "claim.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  devices:\n"
        "    requests:\n    - name: gpu\n      exactly:\n        deviceClassName: {{ .Values.class }}\n        count: -1\n")
    (tmp_path / "rendered.yaml").write_text(
        "---\n# Source: gpu/templates/claim.yaml\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: r\n"
        "spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n        deviceClassName: missing.example.com\n        count: -1\n")
    for i in range(520):
        (tmp_path / f"c{i:03}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n")
    serial = lint_json("--jobs", "1", "--ignore", "DRA014", ".", cwd=tmp_path)  # the template is linted too: an info
    parallel = lint_json("--jobs", "2", "--ignore", "DRA014", ".", cwd=tmp_path)
    assert parallel.stdout == serial.stdout
    assert _where(serial) == [
        ("gpu/templates/claim.yaml", 10, 9, "DRA713",
         {"file": "gpu/templates/claim.yaml", "found": True, "rendered": {"file": "rendered.yaml", "line": 12, "column": 26}}),
        ("gpu/templates/claim.yaml", 11, 16, "DRA314",
         {"file": "gpu/templates/claim.yaml", "found": True, "rendered": {"file": "rendered.yaml", "line": 13, "column": 16}}),
    ]
