"""Classic DRA (v1alpha1/v1alpha2, 1.26-1.30): claims, templates, ResourceClass, PodScheduling(Context)
(dra-api-rules.md §5.2, §6, §12). Node selectors of a ResourceClass: DRA551 in deviceclass.py.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import claim_paths, spec_path
from dralint.k8s.names import dns1123_label, dns1123_subdomain, driver_name_error_types
from dralint.k8s.resource import CLAIM_KINDS, CLASSIC, POD_SCHEDULING_NODE_LIST_MAX, api_versions

POD_SCHEDULING_KINDS = ["PodScheduling", "PodSchedulingContext"]


@rule("DRA330", "resource-class-name-format", severity="error", kinds=CLAIM_KINDS, api_versions=CLASSIC, needs=claim_paths("resourceClassName"))
def resource_class_name(doc, report):
    """`resourceClassName` must be the DNS-1123 subdomain name of a ResourceClass.

    An empty value fails the same check (Invalid; there is no separate Required).

    Invalid: `resourceClassName: ""`. Valid: `resourceClassName: gpu.example.com`.

    Upstream: `validateResourceClaimSpec` (pkg/apis/resource/validation/validation.go up to 1.30).
    """
    value = doc.get(*spec_path(doc), "resourceClassName", type=str)
    if value is None:
        return
    errs = dns1123_subdomain(value)
    if errs:
        shown = f"'{value}'" if value else "an empty resourceClassName"
        report(spec_path(doc) + ("resourceClassName",), f"{shown} is invalid: {errs[-1]}", error_type="Invalid")


@rule("DRA331", "parameters-ref-required", severity="error", kinds=[*CLAIM_KINDS, "ResourceClass"], api_versions=CLASSIC, needs=("parametersRef", *claim_paths("parametersRef")))
def parameters_ref_required(doc, report):
    """A `parametersRef` needs a non-empty `kind` and `name`.

    Invalid: `parametersRef: {kind: "", name: gpu-params}`.
    Valid: `parametersRef: {apiGroup: gpu.example.com, kind: GpuParams, name: gpu-params}`.

    Upstream: `validateClassParameters`, `validateResourceClaimParametersRef` (pkg/apis/resource/validation/validation.go up to 1.30).
    """
    base = ("parametersRef",) if doc.kind == "ResourceClass" else spec_path(doc) + ("parametersRef",)
    ref = doc.get(*base, type=dict)
    if ref is None:
        return
    for key in ("kind", "name"):
        if ref.get(key) == "":
            report(base + (key,), f"parametersRef.{key} must not be empty", error_type="Required")


@rule("DRA332", "classic-allocation-mode", severity="error", kinds=CLAIM_KINDS, api_versions=CLASSIC, needs=claim_paths("allocationMode"))
def classic_allocation_mode(doc, report):
    """Classic `allocationMode` must be `Immediate` or `WaitForFirstConsumer` (the default).

    Invalid: `allocationMode: ExactCount`. Valid: `allocationMode: WaitForFirstConsumer`.

    Upstream: `validateResourceClaimSpec` (pkg/apis/resource/validation/validation.go up to 1.30).
    """
    value = doc.get(*spec_path(doc), "allocationMode", type=str)
    if value and value not in ("Immediate", "WaitForFirstConsumer"):
        report(spec_path(doc) + ("allocationMode",), f"allocationMode '{value}' is not supported: use Immediate or WaitForFirstConsumer", error_type="NotSupported", replace_with=["Immediate", "WaitForFirstConsumer"])


@rule("DRA553", "resource-class-driver-name", severity="error", kinds=["ResourceClass"], api_versions=CLASSIC)
def resource_class_driver(doc, report):
    """`driverName` of a ResourceClass must be a driver name.

    Non-empty, at most 63 characters, a DNS subdomain when lower-cased.
    Every failed check is reported: an empty name is Required and Invalid.

    Invalid: `driverName: "GPU driver"`. Valid: `driverName: gpu.resource.example.com`.

    Upstream: `ValidateClass` (pkg/apis/resource/validation/validation.go up to 1.30), which calls ValidateCSIDriverName.
    """
    value = doc.get("driverName")
    if value is None:
        value = ""  # missing: the zero value is validated (the Required error replaces the schema's)
    if not isinstance(value, str):
        return
    # ValidateCSIDriverName reports every failed check: "" is Required and Invalid, a long name
    # with bad characters TooLong and Invalid.
    for etype, msg in driver_name_error_types(value):
        report(("driverName",), f"driverName '{value}' is not a valid driver name: {msg}", error_type=etype)


@rule("DRA554", "resource-class-parameters-namespace", severity="error", kinds=["ResourceClass"], api_versions=CLASSIC, needs=("parametersRef.namespace",))
def resource_class_parameters_namespace(doc, report):
    """`parametersRef.namespace` of a ResourceClass, when set, must be a valid namespace name (DNS-1123 label).

    Invalid: `namespace: Team.A`. Valid: `namespace: gpu-system`.

    Upstream: `validateClassParameters` (pkg/apis/resource/validation/validation.go up to 1.30).
    """
    value = doc.get("parametersRef", "namespace", type=str)
    if value:
        errs = dns1123_label(value)
        if errs:
            report(("parametersRef", "namespace"), f"parametersRef.namespace '{value}' is invalid: {errs[-1]}", error_type="Invalid")


@rule("DRA340", "pod-scheduling-potential-nodes", severity="error", kinds=POD_SCHEDULING_KINDS, api_versions=api_versions("v1alpha1", "v1alpha2", "v1alpha3"), needs=("spec.potentialNodes",))
def potential_nodes(doc, report):
    """`spec.potentialNodes` holds at most 128 unique, valid node names.

    Invalid: the same node twice, or `Node_1`. Valid: `[node-1, node-2]`.

    Upstream: `validatePodSchedulingSpec` (pkg/apis/resource/validation/validation.go up to 1.31), through
    `validateSliceIsASet` up to 1.30 and `validateSet` in 1.31.
    """
    seq = doc.get("spec", "potentialNodes", type=list)
    if seq is None:
        return
    base = ("spec", "potentialNodes")
    if len(seq) > POD_SCHEDULING_NODE_LIST_MAX:
        etype = "TooLong"  # PodSchedulingContext is served up to 1.31, where a list over its size is TooLong
        report(base, f"{len(seq)} potential nodes; at most {POD_SCHEDULING_NODE_LIST_MAX} are allowed", error_type=etype, at_key=True)
    seen: set[str] = set()
    for i, node in enumerate(seq):
        if not isinstance(node, str):
            continue
        errs = dns1123_subdomain(node)
        if errs:
            report(base + (i,), f"'{node}' is not a valid node name: {errs[-1]}", error_type="Invalid")
        if node in seen:
            report(base + (i,), f"node '{node}' is listed twice", error_type="Duplicate")
        seen.add(node)
