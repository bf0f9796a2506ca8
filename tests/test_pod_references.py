"""Pod-side references (DRA7xx): pod claims, container claims and cross-document references."""

from __future__ import annotations

from dralint.model import format_path

from conftest import CASES
from engine import brief, lint_paths, lint_text

# The fixtures under tests/cases/pods/ carry their expected problems (tests/test_cases.py).
PODS = CASES / "pods"
DRA7 = ["DRA7"]


def test_references_resolve_across_files():
    """Claim in one file, pod in another: one run sees both."""
    problems = lint_paths([PODS / "cross-refs.yaml", PODS / "pod-bad.yaml"], select=["DRA712"]).problems
    unresolved = {(p.source.rsplit("/", 1)[-1], format_path(p.path)) for p in problems}
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
    problems = lint_text(POD, select=DRA7, ignore=["DRA712"])
    assert brief(problems) == [
        ("DRA704", "spec.containers[0].resources.claims[1]", 15, 15),
        ("DRA704", "spec.containers[0].resources.claims[3]", 18, 9),
    ]
    assert "listed twice" in problems[0].message
    assert "needs the name of one of the pod's resourceClaims" in problems[1].message


def test_valid_workloads_are_clean_and_non_pod_kinds_are_ignored():
    text = POD.replace("      - name: gpu\n      - name: gpu\n        request: a\n      - {}\n", "")
    assert "request" not in text
    assert lint_text(text, select=DRA7, ignore=["DRA712"]) == []
    # Same kind name under another API group (a CRD): not a pod.
    crd = text.replace("apiVersion: v1", "apiVersion: example.com/v1").replace("name: gpu", "name: Not_A_Label")
    assert lint_text(crd, select=DRA7) == []


def test_real_world_namespace_mismatch_is_a_warning(corpus):
    """An upstream demo puts the template in one namespace and the pod in another."""
    [row] = [r for r in corpus.rows if r["file"] == "NVIDIA__k8s-dra-driver-gpu/demo__specs__quickstart__v1beta1__gpu-test-vfiopci.yaml"]
    assert row["release"] == "1.33"
    references = [p for p in corpus.of(row) if p.rule in ("DRA710", "DRA711", "DRA712")]
    assert [(p.rule, str(p.severity), format_path(p.path), p.span.line) for p in references] == [
        ("DRA711", "warning", "spec.resourceClaims[0].resourceClaimTemplateName", 41),
    ]
    assert "namespace 'gpu-test-vfio'" in references[0].message
