"""Kustomize patches (dralint.pipeline.kustomize): judged as partial objects, against what they patch.

tests/kustomize holds a base (a Deployment declaring the pod claim `gpu`, a
ResourceClaimTemplate, a DeviceClass) and an overlay whose kustomization
lists a strategic-merge patch of the Deployment (one container uses `gpu`,
declared by the base; another `gpus`, declared nowhere), a strategic-merge
patch of the template with a typo (`cuont`) and a JSON 6902 patch of the
template with an unsupported allocation mode.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import ROOT, brief, lint_json

TREE = ROOT / "tests" / "kustomize"
OVERLAY = "tests/kustomize/overlays/prod"

# (file, rule, path, line, column): the three mistakes of the overlay, nothing about what the patches leave out.
MISTAKES = [
    (f"{OVERLAY}/deployment-patch.yaml", "DRA704", "spec.template.spec.containers[1].resources.claims[0]", 16, 19),
    (f"{OVERLAY}/template-ops.yaml", "DRA313", "spec.spec.devices.requests[0].exactly.allocationMode", 3, 10),
    (f"{OVERLAY}/template-patch.yaml", "DRA101", "spec.spec.devices.requests[0].exactly.cuont", 11, 11),
]


def _found(run) -> list[tuple]:
    return [(p["file"], *row) for p, row in zip(run.problems, brief(run.problems), strict=True)]


def test_patches_are_judged_for_what_they_write_and_against_their_base():
    run = lint_json("tests/kustomize")
    assert run.code == 1
    assert _found(run) == MISTAKES
    messages = [p["message"] for p in run.problems]
    assert messages[0] == ("claim 'gpus' is not declared by the pod: must be one of the names in pod.spec.resourceClaims: gpu; "
                           "did you mean 'gpu'?")
    assert "'Every' is not supported" in messages[1]
    assert messages[2] == "unknown field 'cuont'; did you mean 'count'?"


def test_a_patch_alone_is_judged_as_with_its_kustomization():
    """pre-commit passes the changed files only: the kustomization and the base are read from disk."""
    names = [f"{OVERLAY}/deployment-patch.yaml", f"{OVERLAY}/template-patch.yaml", f"{OVERLAY}/template-ops.yaml"]
    assert _found(lint_json(*names)) == MISTAKES


def test_the_same_files_without_a_kustomization_are_whole_objects(tmp_path: Path):
    for name in ("deployment-patch.yaml", "template-patch.yaml"):
        shutil.copy(TREE / "overlays" / "prod" / name, tmp_path / name)
    run = lint_json(".", cwd=tmp_path)
    found = {(p["file"], p["rule"], p["path"]) for p in run.problems}
    # What a patch leaves out, which only a whole object must have:
    assert ("deployment-patch.yaml", "DRA704", "spec.template.spec.containers[0].resources.claims[0]") in found  # 'gpu'
    assert ("template-patch.yaml", "DRA102", "spec.spec.devices.requests[0].exactly.deviceClassName") in found


def test_json6902_operations_land_at_their_path(tmp_path: Path):
    (tmp_path / "base.yaml").write_text((TREE / "base" / "claim-template.yaml").read_text())
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [base.yaml]\n"
        "patches:\n"
        "- path: ops.json\n"
        "  target: {group: resource.k8s.io, version: v1, kind: ResourceClaimTemplate, name: gpu-template}\n"
    )
    (tmp_path / "ops.json").write_text(
        '[\n'
        '  {"op": "add", "path": "/spec/spec/devices/requests/-", "value": {"name": "Second", "exactly": {"count": 2}}},\n'
        '  {"op": "replace", "path": "/spec/spec/devices/requests/1/exactly/count", "value": "two"},\n'
        '  {"op": "add", "path": "/spec/spec/devices/requsts", "value": []},\n'
        '  {"op": "remove", "path": "/spec/spec/devices/requests/0"}\n'
        ']\n'
    )
    run = lint_json(".", "--ignore", "DRA713", cwd=tmp_path)
    assert _found(run) == [
        ("ops.json", "DRA301", "spec.spec.devices.requests[0].name", 2, 76),  # `-` appends: reported as item 0
        ("ops.json", "DRA103", "spec.spec.devices.requests[1].exactly.count", 3, 85),
        ("ops.json", "DRA101", "spec.spec.devices.requsts", 4, 25),  # the unknown key is written in the path
    ]


def test_strategic_merge_directives_are_no_fields(tmp_path: Path):
    (tmp_path / "base.yaml").write_text((TREE / "base" / "deployment.yaml").read_text())
    (tmp_path / "kustomization.yaml").write_text("resources: [base.yaml]\npatchesStrategicMerge:\n- patch.yaml\n")
    (tmp_path / "patch.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: inference\nspec:\n  template:\n    spec:\n"
        "      resourceClaims:\n      - name: gpu\n        $patch: delete\n      - name: fpga\n        resourceClaimName: fpga\n"
    )
    run = lint_json(".", cwd=tmp_path)
    assert [p for p in run.problems if p["severity"] != "info"] == []


def test_a_patchs_references_resolve_against_its_kustomization(tmp_path: Path):
    """A patch linted alone (as pre-commit passes a changed file) counts the objects of its kustomization as
    defined: a template of the base is found, a misspelt one is not, and neither is reported twice."""
    base = tmp_path / "base"
    base.mkdir()
    for name in ("deployment.yaml", "claim-template.yaml", "deviceclass.yaml"):
        shutil.copy(TREE / "base" / name, base / name)
    (base / "kustomization.yaml").write_text("resources: [deployment.yaml, claim-template.yaml, deviceclass.yaml]\n")
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text("resources: [../base]\npatches:\n- path: patch.yaml\n")
    (overlay / "patch.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: inference\nspec:\n  template:\n    spec:\n"
        "      resourceClaims:\n      - name: second\n        resourceClaimTemplateName: gpu-template\n"
        "      - name: third\n        resourceClaimTemplateName: gpu-templat\n"
    )
    alone = lint_json("overlay/patch.yaml", cwd=tmp_path)
    assert _found(alone) == [("overlay/patch.yaml", "DRA712", "spec.template.spec.resourceClaims[1].resourceClaimTemplateName", 12, 36)]
    assert alone.problems[0]["message"] == (
        "ResourceClaimTemplate 'gpu-templat' is not defined in the linted files; did you mean 'gpu-template' "
        "(base/claim-template.yaml)? Otherwise it must exist in the pod's namespace of the cluster")
    assert _found(lint_json(".", cwd=tmp_path)) == _found(alone)


def test_hostile_kustomizations_end_without_a_traceback(tmp_path: Path):
    """Cycles (directly, through links), entries of every wrong type, a FIFO and a missing file as resources."""
    import os

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    os.symlink(tmp_path / "a", tmp_path / "b" / "back")
    os.mkfifo(tmp_path / "a" / "fifo.yaml")
    (tmp_path / "a" / "kustomization.yaml").write_text(
        "resources: [., ../b, ../b/back, fifo.yaml, missing.yaml, 7, {x: 1}, 'https://example.com/x.yaml']\n"
        "patches: [7, {path: 8}, {path: patch.yaml, target: nonsense}, {patch: 'inline'}]\n"
        "patchesStrategicMerge: [patch.yaml, {path: patch.yaml}, 'apiVersion: v1\\nkind: X\\n']\n"
        "patchesJson6902: [{path: ops.yaml, target: {kind: 5, version: [v1]}}, {path: ops.yaml}]\n"
    )
    (tmp_path / "b" / "kustomization.yaml").write_text("resources: [back, ../a, ../b]\n")
    (tmp_path / "a" / "patch.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: x\nspec:\n  selectors:\n  - cel:\n      expresion: 'true'\n")
    (tmp_path / "a" / "ops.yaml").write_text("- op: add\n  path: /spec\n  value: 1\n- 7\n- op: add\n  path: relative\n  value: 2\n")
    run = lint_json("a/patch.yaml", "a/ops.yaml", cwd=tmp_path)
    assert run.code == 1
    assert _found(run) == [("a/patch.yaml", "DRA101", "spec.selectors[0].cel.expresion", 8, 7)]


def test_a_json6902_container_claim_resolves_against_the_target(tmp_path: Path):
    (tmp_path / "deployment.yaml").write_text((TREE / "base" / "deployment.yaml").read_text())
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [deployment.yaml]\npatchesJson6902:\n- path: ops.yaml\n  target: {group: apps, version: v1, kind: Deployment, name: inference}\n")
    (tmp_path / "ops.yaml").write_text(
        "- op: add\n  path: /spec/template/spec/containers/0/resources\n  value: {claims: [{name: gpu}]}\n"
        "- op: add\n  path: /spec/template/spec/containers/0/resources/claims/-\n  value: {name: gpus}\n")
    run = lint_json("--ignore", "DRA712", ".", cwd=tmp_path)
    # `gpu` is declared by the target (the base's Deployment), `gpus` by nothing; `-` is reported as item 0.
    assert _found(run) == [("ops.yaml", "DRA704", "spec.template.spec.containers[0].resources.claims[0]", 6, 17)]
