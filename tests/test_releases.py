"""Releases 1.36 to 1.38: served kinds, the default release and previews (1.38), refusing 1.39, upstream
lifecycle (--target-version) and feature gates from upstream data (dralint.gates)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dralint import gates, schemas
from dralint.lint import LintOptions, lint
from dralint.pipeline.sources import Source

from conftest import SHARED, brief, lint_json, run_dralint

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import go_schema  # noqa: E402

TAINT_RULE = """\
apiVersion: resource.k8s.io/{version}
kind: DeviceTaintRule
metadata:
  name: maintenance
spec:
  deviceSelector:
    driver: gpu.example.com
  taint:
    key: example.com/maintenance
    effect: NoSchedule
"""

LIST_ATTRIBUTES = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpu
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool:
    name: node-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    attributes:
      links:
        ints: [1, 2, 3]
"""

V1BETA1 = """\
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata:
  name: gpu
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: a
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata:
  name: t
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: gpu
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata:
  name: s
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool:
    name: p
    generation: 1
    resourceSliceCount: 1
"""


def _lint(text: str, release: str = schemas.DEFAULT_RELEASE, **options) -> list[tuple]:
    result = lint([Source("m.yaml", text.encode())], LintOptions(release=release, **options))
    return [(p.rule, ".".join(map(str, p.path)), p.span.line, p.span.column) for p in result.problems]


def test_default_release_is_the_newest_released_one():
    # 1.38's data is a development snapshot (index.json `previews`): judged on request, never by default.
    assert schemas.RELEASES[-1] == "1.38" and "1.38" in schemas.PREVIEWS
    assert schemas.DEFAULT_RELEASE == "1.37"
    assert schemas.preview_notice("1.37") is None
    assert schemas.preview_notice("1.38").startswith("Kubernetes 1.38 is a preview (development snapshot")


def test_preview_release_is_judged_with_a_notice(tmp_path):
    f = tmp_path / "rule.yaml"
    f.write_text(TAINT_RULE.format(version="v1"))
    run = run_dralint("--no-config", "-k", "1.38", str(f))
    assert run.code == 0 and run.stdout == ""
    notes = [line for line in run.stderr.splitlines() if line.startswith("dralint: note:")]
    assert notes == ["dralint: note: " + schemas.preview_notice("1.38")]
    # A released release says nothing of the kind.
    run = run_dralint("--no-config", "-k", "1.37", str(f))
    assert run.code == 0 and "preview" not in run.stderr


@pytest.mark.parametrize("release, version, served", [
    ("1.35", "v1", False), ("1.36", "v1", False), ("1.37", "v1", True),
    ("1.35", "v1beta2", False), ("1.36", "v1beta2", True), ("1.37", "v1beta2", True),
    ("1.38", "v1", True), ("1.38", "v1beta2", True),
])
def test_device_taint_rule_served(release, version, served):
    assert (schemas.catalog(release).served(f"resource.k8s.io/{version}", "DeviceTaintRule") is not None) is served
    codes = {p[0] for p in _lint(TAINT_RULE.format(version=version), release)}
    assert ("DRA010" not in codes) is served, codes


@pytest.mark.parametrize("release, served", [("1.37", True), ("1.38", False)])
def test_v1beta1_is_not_served_from_1_38(release, served):
    # The v1beta1 Go package is still in the 1.38 tree; its prerelease lifecycle (removed 1.38) decides.
    for kind in ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"):
        assert (schemas.catalog(release).served("resource.k8s.io/v1beta1", kind) is not None) is served
    problems = _lint("apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata: {name: a}\nspec: {}\n", release)
    assert (("DRA010", "apiVersion", 1, 13) in problems) is not served, problems


def test_resource_pool_status_request_from_1_36():
    assert schemas.catalog("1.35").served("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest") is None
    info = schemas.catalog("1.36").served("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest")
    assert (info.scope, info.plural, info.default_enabled) == ("Cluster", "resourcepoolstatusrequests", False)


def test_list_attributes_are_known_fields_from_1_36():
    # Schema only (DRA1xx): whether a default 1.36 cluster drops the alpha field is a semantic rule's call.
    assert [p for p in _lint(LIST_ATTRIBUTES, "1.37") if p[0].startswith("DRA1")] == []
    assert [p for p in _lint(LIST_ATTRIBUTES, "1.36") if p[0].startswith("DRA1")] == []
    # 1.35 does not know the field: strict decoding rejects it where it is written.
    assert ("DRA101", "spec.devices.0.attributes.links.ints", 16, 9) in _lint(LIST_ATTRIBUTES, "1.35")


def test_cli_default_and_explicit_releases(tmp_path):
    f = tmp_path / "rule.yaml"
    f.write_text(TAINT_RULE.format(version="v1"))
    assert lint_json(str(f)).problems == []
    assert lint_json("-k", "1.37", str(f)).problems == []
    assert brief(lint_json("-k", "1.36", str(f)).problems)[0] == ("DRA010", "kind", 2, 7)


def test_cli_refuses_an_unreleased_version(tmp_path):
    f = tmp_path / "rule.yaml"
    f.write_text(TAINT_RULE.format(version="v1"))
    run = run_dralint("--no-config", "-k", "1.39", str(f))
    assert run.code == 2 and run.stdout == ""
    assert "Kubernetes 1.39 is not released yet" in run.stderr
    assert "the newest release dralint knows is 1.38 (1.38 as a preview)" in run.stderr
    run = run_dralint("--no-config", "-k", "1.25", str(f))
    assert run.code == 2 and "unsupported Kubernetes version '1.25'; supported: 1.26..1.38" in run.stderr


def test_release_comment_names_1_36_to_1_38_and_refuses_1_39():
    body = TAINT_RULE.format(version="v1")
    assert _lint("# dralint: kubernetes-version=1.37\n" + body, "1.35") == []
    assert _lint("# dralint: kubernetes-version=1.38\n" + body, "1.35") == []
    assert _lint("# dralint: kubernetes-version=1.36\n" + body)[0] == ("DRA010", "kind", 3, 7)
    result = lint([Source("m.yaml", ("# dralint: kubernetes-version=1.39\n" + body).encode())], LintOptions())
    bad = [p for p in result.problems if p.rule == "DRA009"]
    assert len(bad) == 1 and "Kubernetes 1.39 is not released yet" in bad[0].message and "1.38" in bad[0].message


def test_target_1_38_reports_every_v1beta1_object(tmp_path):
    f = tmp_path / "old.yaml"
    f.write_text(V1BETA1)
    problems = lint_json("--target-version", "1.38", "--select", "DRA02", str(f)).problems
    assert brief(problems) == [("DRA021", "apiVersion", line, 13) for line in (1, 6, 16, 27)]
    assert all("removed in Kubernetes 1.38" in p["message"] for p in problems)
    # 1.37 still serves v1beta1 (deprecated since 1.35).
    assert {p["rule"] for p in lint_json("--target-version", "1.37", "--select", "DRA02", str(f)).problems} == {"DRA020"}


def test_lifecycle_comes_from_upstream_per_kind():
    index = json.loads((Path(schemas.schemas_dir()) / "index.json").read_text())
    life = index["kind_lifecycle"]
    assert life["resource.k8s.io/v1beta1"]["ResourceClaim"]["removed"] == "1.38"
    assert life["resource.k8s.io/v1beta2"]["ResourceSlice"]["removed"] == "1.39"
    assert life["resource.k8s.io/v1alpha3"]["DeviceTaintRule"]["removed"] == "1.39"
    assert life["resource.k8s.io/v1"]["DeviceTaintRule"] == {
        "introduced": "1.37", "deprecated": None, "removed": None,
        "source": "k8s-api/1.38/resource/v1/zz_generated.prerelease-lifecycle.go"}
    # Only the alphas without a prerelease-lifecycle file are hand-kept, and say so.
    hand = sorted(gv for gv, e in index["versions"].items() if e["source"].startswith("hand-kept"))
    assert hand == ["resource.k8s.io/v1alpha1", "resource.k8s.io/v1alpha2"]
    assert schemas.kind_lifecycle("resource.k8s.io/v1beta2", "DeviceTaintRule").removed == "1.42"
    assert schemas.kind_lifecycle("resource.k8s.io/v1beta2", "ResourceClaim").removed == "1.39"


# ---------------------------------------------------------------- feature gates

CLAIM_WITH_TOLERATIONS = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: a
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        tolerations:
        - key: example.com/maintenance
          operator: Exists
"""


def test_gate_defaults_and_fields_come_from_upstream():
    assert gates.gate_default("1.35", "DRADeviceTaints") is False
    assert gates.gate_default("1.36", "DRADeviceTaints") is True
    assert gates.gate_default("1.36", "DRAListTypeAttributes") is False
    assert gates.gate_default("1.32", "DRADeviceTaints") is True  # the gate does not exist yet
    assert gates.gate_stage("1.37", "DRADeviceTaintRules") == "ga"
    assert gates.field_gates("1.35", "resource.k8s.io/v1", "ExactDeviceRequest") == {
        "adminAccess": ("DRAAdminAccess",), "capacity": ("DRAConsumableCapacity",), "tolerations": ("DRADeviceTaints",)}
    assert gates.field_gates("1.36", "resource.k8s.io/v1", "DeviceAttribute") == {
        name: ("DRAListTypeAttributes",) for name in ("bools", "ints", "strings", "versions")}
    assert gates.gate_fields("1.37", "resource.k8s.io/v1", "DRAPartitionableDevicesType") == {"partitionTypeAttribute"}


@pytest.mark.skipif(not (SHARED / "k8s-api").is_dir(), reason="upstream data not found")
def test_gate_data_matches_the_go_markers():
    pkg = go_schema.load_package(SHARED / "k8s-api" / "1.37" / "resource" / "v1")
    expected = go_schema.gated_fields(pkg)
    for go_type, fields in expected.items():
        assert gates.field_gates("1.37", "resource.k8s.io/v1", go_type) == {k: tuple(v) for k, v in fields.items()}


@pytest.mark.parametrize("release, options, expected", [
    ("1.35", {}, [("DRA801", "spec.devices.requests.0.exactly.tolerations", 11, 9)]),
    ("1.35", {"feature-gates": {"DRADeviceTaints": True}}, []),
    ("1.36", {}, []),
    ("1.37", {"feature-gates": {"DRADeviceTaints": False}}, [("DRA801", "spec.devices.requests.0.exactly.tolerations", 11, 9)]),
])
def test_dra801_follows_the_generated_gate_data(release, options, expected):
    assert [p for p in _lint(CLAIM_WITH_TOLERATIONS, release, rule_options=options) if p[0] == "DRA801"] == expected


# ---------------------------------------------------------------- examples and corpus at 1.36 / 1.37

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_every_example_runs_at_the_new_releases(release):
    run = lint_json("-k", release, str(ROOT / "examples"))
    assert run.code == 1  # examples/mistakes.yaml is wrong on purpose
    assert run.json["summary"]["files"] == 11
    new = [p for p in run.problems if Path(p["file"]).name in ("devicetaintrule.yaml", "resourceslice-list-attributes.yaml")]
    assert [p for p in new if p["severity"] == "error"] == []


def test_valid_corpus_files_stay_clean_at_1_37():
    index = SHARED / "corpus" / "real-world" / "index.json"
    if not index.is_file():
        pytest.skip("real-world corpus not present")
    rows = [r for r in json.loads(index.read_text()) if r["expected_valid"] is True]
    run = run_dralint("--format", "json", "--no-config", "-k", "1.37", *(str(index.parent / r["file"]) for r in rows), timeout=120)
    assert run.code in (0, 1), run.stderr
    errors: dict[str, set[str]] = {}
    for p in run.json["problems"]:
        if p["severity"] == "error":
            errors.setdefault(p["file"], set()).add(p["rule"])
    # A file whose apiVersion 1.37 no longer serves (v1alpha1-3 claims and classes) gets
    # DRA010 (and what follows from it, e.g. a Pod naming a template that is gone: DRA703);
    # every other valid file gets no error at all.
    not_served = {f for f, rules in errors.items() if "DRA010" in rules}
    assert {f: rules for f, rules in errors.items() if f not in not_served} == {}
    assert len(rows) - len(not_served) >= 200
