"""Pod-side references (DRA7xx): pod claims, container claims and cross-document references."""

from __future__ import annotations

from conftest import CASES, brief, lint_json

PODS = CASES / "pods"
DRA7 = ("--select", "DRA7")


def test_pod_claims_at_1_35():
    run = lint_json(str(PODS / "pod-bad.yaml"), *DRA7, "-k", "1.35")
    assert run.code == 1
    assert brief(run.problems) == [
        ("DRA712", "spec.resourceClaims[0].resourceClaimTemplateName", 9, 32),
        ("DRA701", "spec.resourceClaims[1].name", 10, 11),
        ("DRA712", "spec.resourceClaims[1].resourceClaimName", 11, 24),
        ("DRA701", "spec.resourceClaims[2].name", 12, 11),
        ("DRA712", "spec.resourceClaims[2].resourceClaimName", 13, 24),
        ("DRA712", "spec.resourceClaims[3].resourceClaimName", 15, 24),
        ("DRA702", "spec.resourceClaims[3]", 16, 5),
        ("DRA712", "spec.resourceClaims[3].resourceClaimTemplateName", 16, 32),
        ("DRA702", "spec.resourceClaims[4]", 17, 5),
        ("DRA704", "spec.containers[0].resources.claims[1]", 24, 15),
        ("DRA704", "spec.containers[0].resources.claims[2].request", 26, 18),
        ("DRA704", "spec.initContainers[0].resources.claims[0]", 32, 15),
    ]
    by_rule = {(p["rule"], p["path"]): p for p in run.problems}
    dup = by_rule[("DRA701", "spec.resourceClaims[1].name")]
    assert dup["message"].startswith("duplicate pod resource claim name 'gpu'")
    assert by_rule[("DRA702", "spec.resourceClaims[3]")]["message"] == (
        "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
    )
    not_found = by_rule[("DRA704", "spec.containers[0].resources.claims[1]")]["message"]
    assert "must be one of the names in pod.spec.resourceClaims: Bad_Name, both, gpu, neither" in not_found
    assert not_found.endswith("did you mean 'gpu'?")
    assert {p["severity"] for p in run.problems if p["rule"] == "DRA712"} == {"info"}
    assert "namespace 'gpu'" in by_rule[("DRA712", "spec.resourceClaims[1].resourceClaimName")]["message"]


def test_old_shape_at_1_30_uses_source():
    run = lint_json(str(PODS / "deployment-old.yaml"), *DRA7, "-k", "1.30")
    assert brief(run.problems) == [
        ("DRA712", "spec.template.spec.resourceClaims[0].source.resourceClaimTemplateName", 15, 38),
        ("DRA703", "spec.template.spec.resourceClaims[1].resourceClaimName", 17, 9),
        ("DRA702", "spec.template.spec.resourceClaims[2].source", 19, 9),
        ("DRA703", "spec.template.spec.containers[0].resources.claims[0].request", 26, 13),
    ]


def test_old_shape_at_1_35_is_unknown_source():
    run = lint_json(str(PODS / "deployment-old.yaml"), *DRA7, "-k", "1.35")
    assert brief(run.problems) == [
        ("DRA703", "spec.template.spec.resourceClaims[0].source", 14, 9),
        ("DRA712", "spec.template.spec.resourceClaims[1].resourceClaimName", 17, 28),
        ("DRA703", "spec.template.spec.resourceClaims[2].source", 19, 9),
    ]
    assert run.problems[0]["message"].startswith("unknown field 'source': since Kubernetes 1.31")


def test_cross_document_references():
    run = lint_json(str(PODS / "cross-refs.yaml"), *DRA7)
    assert [(p["rule"], p["severity"], p["path"], p["line"], p["column"]) for p in run.problems] == [
        ("DRA713", "info", "spec.devices.requests[0].exactly.deviceClassName", 32, 26),
        ("DRA711", "warning", "spec.resourceClaims[0].resourceClaimTemplateName", 42, 32),
        ("DRA710", "warning", "spec.resourceClaims[1].resourceClaimTemplateName", 44, 32),
        ("DRA712", "info", "spec.resourceClaims[2].resourceClaimName", 46, 24),
    ]
    # Warnings and notes only: the API server accepts all of it.
    assert run.code == 0
    # The CronJob (namespace team-a) resolves both references: nothing reported for it.
    assert all(p["kind"] != "CronJob" for p in run.problems)
    assert "use resourceClaimName" in run.problems[2]["message"]


def test_references_resolve_across_files():
    """Claim in one file, pod in another: one run sees both."""
    run = lint_json(str(PODS / "cross-refs.yaml"), str(PODS / "pod-bad.yaml"), "--select", "DRA712")
    unresolved = {(p["file"].rsplit("/", 1)[-1], p["path"]) for p in run.problems}
    # gpu-template (team-a) and shared (no namespace) are defined by cross-refs.yaml.
    assert ("pod-bad.yaml", "spec.resourceClaims[0].resourceClaimTemplateName") not in unresolved
    assert ("pod-bad.yaml", "spec.resourceClaims[1].resourceClaimName") not in unresolved


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: t
  containers:
  - name: c
    image: busybox
    resources:
      claims:
      - name: gpu
      - name: gpu
      - name: gpu
        request: a
      - {}
"""


def test_container_claim_duplicate_and_required():
    run = lint_json("-", *DRA7, "--ignore", "DRA712", input=POD)
    assert brief(run.problems) == [
        ("DRA704", "spec.containers[0].resources.claims[1]", 15, 15),
        ("DRA704", "spec.containers[0].resources.claims[3]", 18, 9),
    ]
    assert "listed twice" in run.problems[0]["message"]
    assert "needs the name of one of the pod's resourceClaims" in run.problems[1]["message"]


def test_valid_workloads_are_clean_and_non_pod_kinds_are_ignored():
    text = POD.replace("      - name: gpu\n      - name: gpu\n        request: a\n      - {}\n", "")
    assert "request" not in text
    run = lint_json("-", *DRA7, "--ignore", "DRA712", input=text)
    assert run.problems == []
    # Same kind name under another API group (a CRD): not a pod.
    crd = text.replace("apiVersion: v1", "apiVersion: example.com/v1").replace("name: gpu", "name: Not_A_Label")
    run = lint_json("-", *DRA7, input=crd)
    assert run.problems == []


def test_real_world_namespace_mismatch_is_a_warning(shared_dir):
    """An upstream demo puts the template in one namespace and the pod in another."""
    path = shared_dir / "corpus" / "real-world" / "NVIDIA__k8s-dra-driver-gpu" / "demo__specs__quickstart__v1beta1__gpu-test-vfiopci.yaml"
    if not path.is_file():
        import pytest

        pytest.skip("corpus file not present")
    run = lint_json(str(path), "-k", "1.33", "--select", "DRA710,DRA711,DRA712")
    assert run.code == 0
    assert [(p["rule"], p["severity"], p["path"], p["line"]) for p in run.problems] == [
        ("DRA711", "warning", "spec.resourceClaims[0].resourceClaimTemplateName", 41),
    ]
    assert "namespace 'gpu-test-vfio'" in run.problems[0]["message"]
