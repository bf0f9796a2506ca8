"""A run takes each file through FILE_STAGES and each of its documents through DOCUMENT_STAGES, in
the order of the data flow, and a stage that returns False ends the file (dralint.pipeline.stages)."""

from __future__ import annotations

import dralint.pipeline.run as run_module
from dralint.lint import LintOptions, Source, lint
from dralint.pipeline import stages

CLAIMS = b"""\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: a}
spec: {devices: {requests: [{name: Bad_Name, exactly: {deviceClassName: gpu.example.com}}]}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
"""


def _recording(monkeypatch) -> list[str]:
    seen: list[str] = []

    def wrap(stage):
        def recorded(run, work):
            seen.append(stage.__name__)
            return stage(run, work)
        return recorded

    monkeypatch.setattr(run_module, "FILE_STAGES", tuple(wrap(s) for s in stages.FILE_STAGES))
    monkeypatch.setattr(run_module, "DOCUMENT_STAGES", tuple(wrap(s) for s in stages.DOCUMENT_STAGES))
    return seen


def test_a_file_and_each_of_its_documents_pass_the_stages_in_data_flow_order(monkeypatch):
    seen = _recording(monkeypatch)
    result = lint([Source("two.yaml", CLAIMS)], LintOptions("1.37", plugins=False))
    document = ["resolve_type", "check_schema_and_drop", "view_and_collect", "apply_rules"]
    assert seen == ["read_comments", "load_documents", "judge_documents", *document, *document, "note_suppressions", "keep"]
    assert [(p.rule, p.span.line, p.span.column, p.path_text) for p in result.problems if p.rule == "DRA301"] == [
        ("DRA301", 4, 36, "spec.devices.requests[0].name")]
    assert result.documents == 2 and result.checked == 1  # the ConfigMap has no schema here


def test_an_unreadable_file_ends_at_the_first_stage_with_one_problem(monkeypatch):
    seen = _recording(monkeypatch)
    result = lint([Source("gone.yaml", None, error="No such file or directory")], LintOptions("1.37", plugins=False))
    assert seen == ["read_comments"]
    assert [(p.rule, p.source, p.message) for p in result.problems] == [
        ("DRA006", "gone.yaml", "cannot read gone.yaml: No such file or directory")]
    assert result.files == 1 and result.documents == 0


def test_a_stage_returning_false_ends_the_file_there(monkeypatch):
    def stop(run, work):
        return False

    monkeypatch.setattr(run_module, "FILE_STAGES", (stages.read_comments, stages.load_documents, stop, stages.keep))
    result = lint([Source("two.yaml", CLAIMS)], LintOptions("1.37", plugins=False))
    assert result.files == 1 and result.documents == 0 and result.problems == []
