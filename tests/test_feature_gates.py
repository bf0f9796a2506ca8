"""Feature gates at the release's defaults, and as the user says the cluster runs them (issue 19).

The drop stage (dralint.pipeline.drop) through the real CLI; the three ways to set gates
(command line, .dralint.yaml, a file's comment); the usage errors kube-apiserver
would give; `dralint gates`. The fixtures of tests/cases/gates/ hold the
per-file-comment side with `# expect:` lines.
"""

from __future__ import annotations

import json

import pytest

from dralint.pipeline.drop import GateState, drop_disabled_fields
from dralint.pipeline.load import load

from conftest import ROOT, brief, lint_json, run_dralint

CASES = ROOT / "tests" / "cases" / "gates"
LIST_ATTRIBUTE = str(CASES / "list-attribute-default.yaml")
NODE_ALLOCATABLE = str(CASES / "node-allocatable-default.yaml")

LIST_REJECTED = [
    ("DRA566", "spec.devices[0].attributes[gpu.example.com/peers]", 17, 7),
    ("DRA801", "spec.devices[0].attributes[gpu.example.com/peers].ints", 17, 31),
]
NODE_ALLOCATABLE_CHECKED = [  # validateNodeAllocatableMapping and the union tag, then the resource name
    ("DRA574", "spec.devices[0].nodeAllocatableResources[cpu].mapping.capacityMultiplier", 19, 9),
    ("DRA574", "spec.devices[0].nodeAllocatableResources[cpu].mapping", 19, 9),
    ("DRA574", "spec.devices[0].nodeAllocatableResources[cpu].mapping.capacityKey", 19, 32),
    ("DRA574", "spec.devices[0].nodeAllocatableResources[cpu].mapping.deviceMultiplier", 19, 59),
    ("DRA574", "spec.devices[0].nodeAllocatableResources[example.com/gpu-memory]", 20, 7),
]


def test_default_gates_at_1_37_reject_the_ints_only_attribute_and_accept_the_dropped_node_allocatable_resources():
    listed = lint_json("-k", "1.37", LIST_ATTRIBUTE)
    assert listed.code == 1
    assert brief(listed.problems) == LIST_REJECTED
    assert [p["severity"] for p in listed.problems] == ["error", "warning"]
    assert "exactly one value must be specified (Invalid)" in listed.problems[0]["message"]
    allocatable = lint_json("-k", "1.37", NODE_ALLOCATABLE)
    assert allocatable.code == 0
    assert brief(allocatable.problems) == [("DRA801", "spec.devices[0].nodeAllocatableResources", 17, 5)]
    assert allocatable.problems[0]["message"] == (
        "nodeAllocatableResources is dropped by the API server before validation, so it is neither kept nor checked: "
        "the DRANodeAllocatableResources feature gate is off by default in Kubernetes 1.37"
    )


def test_a_ga_gate_that_is_not_locked_may_be_turned_off():
    """DRADeviceTaints is ga but not locked in 1.37: a cluster may turn it off, and tolerations are then dropped."""
    claim = (ROOT / "tests" / "cases" / "rules" / "tolerations-invalid.yaml").read_text()
    run = lint_json("-k", "1.37", "--feature-gates=DRADeviceTaints=false", "-", input=claim)
    assert [(p["rule"], p["path"], p["line"], p["column"]) for p in run.problems if p["rule"] in ("DRA801", "DRA315")] == [
        ("DRA801", "spec.devices.requests[0].exactly.tolerations", 11, 9)
    ]
    [dropped] = [p for p in run.problems if p["rule"] == "DRA801"]
    assert dropped["message"].endswith("the DRADeviceTaints feature gate is off (as configured)")


def test_feature_gates_on_the_command_line_flip_both():
    gates = "--feature-gates=DRAListTypeAttributes=true,DRANodeAllocatableResources=true"
    listed = lint_json("-k", "1.37", gates, LIST_ATTRIBUTE)
    assert (listed.code, listed.problems) == (0, [])
    allocatable = lint_json("-k", "1.37", gates, NODE_ALLOCATABLE)
    assert allocatable.code == 1
    assert brief(allocatable.problems) == NODE_ALLOCATABLE_CHECKED
    # Repeatable, the later one winning, as kube-apiserver reads its flag.
    off_again = lint_json("-k", "1.37", "--feature-gates", "DRAListTypeAttributes=true", "--feature-gates", "DRAListTypeAttributes=false", LIST_ATTRIBUTE)
    assert brief(off_again.problems) == LIST_REJECTED


@pytest.mark.parametrize("config", [
    "feature-gates:\n  DRAListTypeAttributes: true\n  DRANodeAllocatableResources: true\n",
    "rule-options:\n  feature-gates: {DRAListTypeAttributes: true, DRANodeAllocatableResources: true}\n",
])
def test_feature_gates_in_the_config_flip_both(tmp_path, config):
    (tmp_path / ".dralint.yaml").write_text('kubernetes-version: "1.37"\n' + config)
    listed = run_dralint("-f", "json", LIST_ATTRIBUTE, cwd=tmp_path)
    assert (listed.code, listed.problems) == (0, [])
    allocatable = run_dralint("-f", "json", NODE_ALLOCATABLE, cwd=tmp_path)
    assert allocatable.code == 1
    assert brief(allocatable.problems) == NODE_ALLOCATABLE_CHECKED


def test_the_command_line_wins_over_the_config_and_a_files_comment_over_both(tmp_path):
    (tmp_path / ".dralint.yaml").write_text('kubernetes-version: "1.37"\nfeature-gates: {DRAListTypeAttributes: true}\n')
    off = run_dralint("-f", "json", "--feature-gates=DRAListTypeAttributes=false", LIST_ATTRIBUTE, cwd=tmp_path)
    assert brief(off.problems) == LIST_REJECTED
    commented = tmp_path / "on.yaml"
    commented.write_text("# dralint: feature-gates=DRAListTypeAttributes=true\n" + (CASES / "list-attribute-default.yaml").read_text())
    on = run_dralint("-f", "json", "--feature-gates=DRAListTypeAttributes=false", str(commented), cwd=tmp_path)
    assert (on.code, on.problems) == (0, [])


@pytest.mark.parametrize("args, message", [
    (["-k", "1.37", "--feature-gates=DRAAdminAccess=false"],
     "--feature-gates: feature gate DRAAdminAccess is locked to true in Kubernetes 1.37 and cannot be set to false"),
    (["-k", "1.37", "--feature-gates=DRAListTypeAtributes=true"],
     "--feature-gates: unknown feature gate 'DRAListTypeAtributes'; did you mean 'DRAListTypeAttributes'? (see 'dralint gates')"),
    (["-k", "1.38", "--feature-gates=DRADeviceTaints=false"],  # ga in 1.37 (may be turned off), locked in 1.38
     "--feature-gates: feature gate DRADeviceTaints is locked to true in Kubernetes 1.38 and cannot be set to false"),
    (["-k", "1.38", "--feature-gates=DynamicResourceAllocation=true"],
     "--feature-gates: feature gate DynamicResourceAllocation was removed in Kubernetes 1.38 and cannot be set"),
    (["-k", "1.35", "--feature-gates=DRAListTypeAttributes=true"],
     "--feature-gates: feature gate DRAListTypeAttributes does not exist in Kubernetes 1.35 (in 1.36-1.38)"),
    (["-k", "1.37", "--feature-gates=DRAListTypeAttributes=yes"],
     "--feature-gates: 'DRAListTypeAttributes=yes' is not GATE=true or GATE=false"),
])
def test_gates_kube_apiserver_would_refuse_are_usage_errors(args, message):
    run = run_dralint("--no-config", *args, LIST_ATTRIBUTE)
    assert run.code == 2
    assert run.stdout == ""
    assert run.stderr.splitlines()[0] == f"dralint: error: {message}"


def test_a_locked_gate_in_the_config_is_a_usage_error_at_its_line(tmp_path):
    (tmp_path / ".dralint.yaml").write_text('kubernetes-version: "1.37"\nfeature-gates:\n  DRAPrioritizedList: false\n')
    run = run_dralint(LIST_ATTRIBUTE, cwd=tmp_path)
    assert run.code == 2
    config = tmp_path / ".dralint.yaml"
    assert run.stderr.splitlines()[0] == (
        f"dralint: error: {config}:3:3: feature gate DRAPrioritizedList is locked to true in Kubernetes 1.37 and cannot be set to false"
    )


def test_a_locked_gate_in_a_files_comment_is_reported_there(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("# dralint: feature-gates=DRAAdminAccess=false\n" + (CASES / "list-attribute-default.yaml").read_text())
    run = lint_json("-k", "1.37", str(bad))
    assert run.code == 1
    assert [(p["rule"], p["line"], p["column"]) for p in run.problems if p["rule"] == "DRA009"] == [("DRA009", 1, 26)]
    assert "feature gate DRAAdminAccess is locked to true in Kubernetes 1.37" in run.problems[0]["message"]


BINDING_SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  nodeName: n
  devices:
  - name: d
    bindingConditions: [a, b, c, d, e]
    bindingFailureConditions: [f]
"""


@pytest.mark.parametrize("release, gates, dropped", [
    ("1.35", [], "DRADeviceBindingConditions"),  # off by default in 1.35
    ("1.35", ["--feature-gates=DRADeviceBindingConditions=true"], None),  # DRAResourceClaimDeviceStatus is on
    ("1.36", [], None),
    ("1.36", ["--feature-gates=DRAResourceClaimDeviceStatus=false"], "DRAResourceClaimDeviceStatus"),  # both are needed
])
def test_binding_conditions_need_both_gates(release, gates, dropped):
    run = lint_json("-k", release, *gates, "-", input=BINDING_SLICE)
    drops = [(p["path"], p["line"], p["column"]) for p in run.problems if p["rule"] == "DRA801"]
    too_many = [p for p in run.problems if p["rule"] == "DRA570"]
    if dropped is None:
        assert drops == []
        assert [(p["path"], p["line"], p["column"], p["message"][-9:]) for p in too_many] == [("spec.devices[0].bindingConditions", 10, 5, "(TooMany)")]
    else:
        assert drops == [("spec.devices[0].bindingConditions", 10, 5), ("spec.devices[0].bindingFailureConditions", 11, 5)]
        assert all(f"the {dropped} feature gate is off" in p["message"] for p in run.problems if p["rule"] == "DRA801")
        assert too_many == []


def test_a_v1beta1_device_loses_its_node_selector_though_its_type_has_no_marker():
    """resourceslice strategy: dropDisabledDRAPartitionableDevicesFields drops the internal
    Device.NodeSelector, into which v1beta1's `basic.nodeSelector` converts."""
    slice_ = BINDING_SLICE.replace("resource.k8s.io/v1\n", "resource.k8s.io/v1beta1\n").replace(
        "  - name: d\n    bindingConditions: [a, b, c, d, e]\n    bindingFailureConditions: [f]\n",
        "  - name: d\n    basic:\n      nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n]}]}]}\n",
    )
    run = lint_json("-k", "1.35", "-", input=slice_)
    assert [(p["rule"], p["path"], p["line"], p["column"]) for p in run.problems if p["rule"] == "DRA801"] == [
        ("DRA801", "spec.devices[0].basic.nodeSelector", 11, 7)
    ]


def test_the_drop_leaves_the_loaded_document_as_it_was():
    doc = load("s.yaml", (CASES / "list-attribute-default.yaml").read_bytes()).documents[0]
    pruned, dropped = drop_disabled_fields(doc, GateState("1.37"))
    assert [(d.field, d.gates) for d in dropped] == [("ints", ("DRAListTypeAttributes",))]
    assert doc.data["spec"]["devices"][0]["attributes"]["gpu.example.com/peers"] == {"ints": [1, 2]}
    assert pruned.data["spec"]["devices"][0]["attributes"]["gpu.example.com/peers"] == {}
    assert pruned.positions is doc.positions
    same, none = drop_disabled_fields(doc, GateState("1.37", {"DRAListTypeAttributes": True}))
    assert (same, none) == (doc, ())


def test_gates_subcommand_lists_stage_default_and_fields():
    run = run_dralint("gates", "-k", "1.37")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("DRAListTypeAttributes "))
    assert lines[start].split() == ["DRAListTypeAttributes", "alpha", "off", "by", "default"]
    assert "    resource.k8s.io/v1: DeviceAttribute.bools, DeviceAttribute.ints, DeviceAttribute.strings, DeviceAttribute.versions" in lines[start + 1:start + 4]
    taints = run_dralint("gates", "-k", "1.35")
    line = next(line for line in taints.stdout.splitlines() if line.startswith("DRADeviceTaints "))
    assert line.split() == ["DRADeviceTaints", "alpha", "off", "by", "default"]
    data = json.loads(run_dralint("gates", "-k", "1.36", "--format", "json").stdout)
    assert data["release"] == "1.36"
    row = next(r for r in data["gates"] if r["gate"] == "DRADeviceTaints")
    assert (row["stage"], row["default"]) == ("beta", True)
    assert row["fields"]["resource.k8s.io/v1"] == ["Device.taints", "DeviceRequestAllocationResult.tolerations", "DeviceSubRequest.tolerations", "ExactDeviceRequest.tolerations"]
    removed = next(line for line in run_dralint("gates", "-k", "1.38").stdout.splitlines() if line.startswith("DynamicResourceAllocation "))
    assert removed.split() == ["DynamicResourceAllocation", "removed", "cannot", "be", "set"]
    refused = run_dralint("gates", "-k", "1.99")
    assert refused.code == 2
    assert refused.stderr.startswith("dralint: error: --kubernetes-version: Kubernetes 1.99 is not released yet")


def _slice_object() -> dict:
    from dralint.pipeline.load import load as load_yaml

    return load_yaml("s.yaml", (CASES / "list-attribute-default.yaml").read_bytes()).documents[0].data


@pytest.mark.parametrize("config, allowed", [("", False), ("feature-gates: {DRAListTypeAttributes: true}\n", True)])
def test_the_webhook_judges_with_the_configs_gates(tmp_path, config, allowed):
    """`dralint serve` builds its options as the CLI does (build_options): the same `feature-gates:`."""
    from dralint.config import Overrides, build_options
    from dralint.webhook.review import Policy, decide, parse_review

    (tmp_path / ".dralint.yaml").write_text('kubernetes-version: "1.37"\n' + config)
    options, _ = build_options(Overrides(config=str(tmp_path / ".dralint.yaml")))
    obj = _slice_object()
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "7f0c1a52-0000-4000-8000-000000000019", "operation": "CREATE", "object": obj,
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceslices"},
        "userInfo": {"username": "alice"}, "dryRun": False}}
    decision = decide(parse_review(json.dumps(review).encode()), Policy(options))
    assert decision.allowed is allowed
    assert [(p.rule, p.path_text) for p in decision.denying] == ([] if allowed else [("DRA566", "spec.devices[0].attributes[gpu.example.com/peers]")])


def test_serve_refuses_a_locked_gate_before_it_listens():
    run = run_dralint("serve", "--no-config", "--tls-cert", "x", "--tls-key", "y", "-k", "1.37", "--feature-gates=DRAAdminAccess=false")
    assert run.code == 2
    assert "feature gate DRAAdminAccess is locked to true in Kubernetes 1.37 and cannot be set to false" in run.stderr


def test_a_misplaced_or_malformed_gates_comment_is_dra009(tmp_path):
    body = (CASES / "list-attribute-default.yaml").read_text()
    late = tmp_path / "late.yaml"
    late.write_text(body + "# dralint: feature-gates=DRAListTypeAttributes=true\n")
    run = lint_json("-k", "1.37", str(late))
    assert [(p["rule"], p["line"], p["column"]) for p in run.problems] == [*[(r, line, column) for r, _, line, column in LIST_REJECTED], ("DRA009", body.count("\n") + 1, 1)]
    assert run.problems[-1]["message"] == "a dralint feature-gates comment applies only before the first document; move it to the top of the file"
    malformed = tmp_path / "malformed.yaml"
    malformed.write_text("# dralint: feature gates DRAListTypeAttributes\n" + body)
    run = lint_json("-k", "1.37", str(malformed))
    assert [(p["rule"], p["line"], p["column"]) for p in run.problems if p["rule"] == "DRA009"] == [("DRA009", 1, 1)]
    assert "write it as '# dralint: feature-gates=GATE=true,GATE=false'" in run.problems[0]["message"]


def test_gates_comments_are_read_whatever_their_case_in_the_header_and_after_it_only_where_they_say_dralint():
    from dralint.pipeline.gate_settings import file_gates  # noqa: PLC0415 - the stage itself, in process

    data = (b"# Dralint: feature gates x\n"  # the header: read whatever the case, and malformed
            b"---\n"
            b"# dralint: feature-gates=DRAListTypeAttributes=true\n"  # still the header: it applies
            b"apiVersion: v1\n"
            b"# DRALINT: feature-gates=DRAListTypeAttributes=false\n"  # after it, not `dralint`: not read
            b"kind: ConfigMap\r\n"
            b"\n"
            b"  # dralint: feature-gates=DRAListTypeAttributes=false\r\n")  # after it: misplaced, at its line
    settings, problems = file_gates("f.yaml", data, "1.37")
    assert settings == {"DRAListTypeAttributes": True}
    assert [(p.rule, p.span.line, p.span.column) for p in problems] == [("DRA009", 1, 1), ("DRA009", 8, 3)]
    assert problems[0].message.startswith("malformed feature-gates comment")
    assert problems[1].message.startswith("a dralint feature-gates comment applies only before the first document")
