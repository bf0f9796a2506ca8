"""DeviceClass (1.31+) and the class node selectors (dra-api-rules.md §6), CEL excluded.

Selectors and config of a DeviceClass are checked by the shared rules
(DRA311, DRA312 in requests.py; DRA521-DRA528 in config.py).
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import gate_enabled, node_selector_problems
from dralint.k8s.names import is_extended_resource_name
from dralint.k8s.resource import CLASSIC, STRUCTURED


@rule("DRA551", "class-suitable-nodes", severity="error", kinds=["DeviceClass", "ResourceClass"], api_versions=[*STRUCTURED, *CLASSIC], releases=(None, "1.31"), needs=("spec.suitableNodes", "suitableNodes"))
def suitable_nodes(doc, report):
    """`suitableNodes` must be a valid node selector (ResourceClass 1.26-1.30, DeviceClass 1.31).

    At least one term; `In`/`NotIn` need values, `Exists`/`DoesNotExist`
    must have none, `Gt`/`Lt` exactly one; keys are label keys; `matchFields`
    only supports `metadata.name` with `In`/`NotIn` and one value. For a
    DeviceClass the server reports the path without `spec.`
    (`suitableNodes.nodeSelectorTerms`).

    Invalid:

        suitableNodes:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: gpu, operator: In}

    Valid: the same with `values: ["true"]`.

    Upstream: `ValidateClass` (up to 1.30), `validateDeviceClassSpec` (1.31) (pkg/apis/resource/validation/validation.go).
    """
    if doc.kind == "DeviceClass":
        selector = doc.get("spec", "suitableNodes", type=dict)
        src = ("spec", "suitableNodes")
    else:
        selector = doc.get("suitableNodes", type=dict)
        src = ("suitableNodes",)
    if selector is None:
        return
    for api_path, src_path, etype, msg in node_selector_problems(selector, ("suitableNodes",), src):
        report(api_path, f"{msg}", error_type=etype, locate=src_path, at_key=etype == "Required")


@rule("DRA552", "extended-resource-name", severity="error", kinds=["DeviceClass"], api_versions=STRUCTURED, releases=("1.34", None), needs=("spec.extendedResourceName",))
def extended_resource_name(doc, report):
    """`spec.extendedResourceName` must be an extended resource name.

    It must contain `/`, must not contain `kubernetes.io/`, must not start
    with `requests.`, and `requests.<name>` must be a qualified name. Checked
    only when the DRAExtendedResource gate is on (off by default in
    1.34-1.35: the field is dropped, see DRA801).

    Invalid: `extendedResourceName: gpu`. Valid: `extendedResourceName: example.com/gpu`.

    Upstream: `validateDeviceClassSpec` (pkg/apis/resource/validation/validation.go).
    """
    if not gate_enabled(doc, "DRAExtendedResource"):
        return
    value = doc.get("spec", "extendedResourceName", type=str)
    if value is not None and not is_extended_resource_name(value):
        report(("spec", "extendedResourceName"), f"'{value}' is not a valid extended resource name: use '<domain>/<name>' outside kubernetes.io", error_type="Invalid")
