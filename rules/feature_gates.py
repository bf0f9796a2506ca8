"""Fields the API server silently drops because their feature gate is off by default, and
the admin-access namespace check (dra-api-rules.md §9, §5.9).

Gate defaults follow the release; `rule-options: {feature-gates: {<Gate>: true}}`
in .dralint.yaml describes a cluster that enables a gate.
"""

from __future__ import annotations

from typing import Any, Iterator

from dralint.api import rule

from dralint.k8s.claims import devices_path, gate_enabled, gate_on_by_default, is_nested, raw_requests
from dralint.k8s.resource import CLAIM_KINDS, STRUCTURED

_REQUEST_FIELDS = (
    # (field, gate, first release)
    ("adminAccess", "DRAAdminAccess", (1, 32)),
    ("tolerations", "DRADeviceTaints", (1, 33)),
    ("capacity", "DRAConsumableCapacity", (1, 34)),
)


def _exact_objects(doc: Any) -> Iterator[tuple[int, tuple, dict]]:
    """(request index, source path, object) of every exact request as written."""
    base = devices_path(doc) + ("requests",)
    for i, req in enumerate(raw_requests(doc)):
        if not isinstance(req, dict):
            continue
        if is_nested(doc):
            ex = req.get("exactly")
            if isinstance(ex, dict):
                yield i, base + (i, "exactly"), ex
        else:
            yield i, base + (i,), req


def _dropped(doc: Any) -> Iterator[tuple[tuple, str, str]]:
    rel = doc.release_tuple
    base = devices_path(doc) + ("requests",)
    for field, gate, since in _REQUEST_FIELDS:
        if rel < since or gate_on_by_default(doc, gate):
            continue
        for _i, src, obj in _exact_objects(doc):
            if obj.get(field) is not None:
                yield src + (field,), field, gate
    for i, req in enumerate(raw_requests(doc)):
        if not isinstance(req, dict):
            continue
        fa = req.get("firstAvailable")
        if not isinstance(fa, list):
            continue
        if rel >= (1, 33) and not gate_on_by_default(doc, "DRAPrioritizedList"):
            yield base + (i, "firstAvailable"), "firstAvailable", "DRAPrioritizedList"
            continue
        for j, sub in enumerate(fa):
            if not isinstance(sub, dict):
                continue
            for field, gate, since in _REQUEST_FIELDS[1:]:
                if rel >= since and not gate_on_by_default(doc, gate) and sub.get(field) is not None:
                    yield base + (i, "firstAvailable", j, field), field, gate
    if rel >= (1, 34) and not gate_on_by_default(doc, "DRAConsumableCapacity"):
        for k, c in enumerate(doc.get(*devices_path(doc), "constraints", type=list, default=[])):
            if isinstance(c, dict) and c.get("distinctAttribute") is not None:
                yield devices_path(doc) + ("constraints", k, "distinctAttribute"), "distinctAttribute", "DRAConsumableCapacity"


@rule("DRA801", "field-dropped-by-feature-gate", severity="warning", kinds=[*CLAIM_KINDS, "DeviceClass"], api_versions=STRUCTURED, releases=("1.32", None))
def field_dropped(doc, report):
    """A field whose feature gate is off by default at this release is silently dropped on create.

    adminAccess (DRAAdminAccess, off 1.32-1.33), firstAvailable
    (DRAPrioritizedList, off 1.33), tolerations (DRADeviceTaints, off
    1.33-1.35), capacity and distinctAttribute (DRAConsumableCapacity, off
    1.34-1.35), DeviceClass extendedResourceName (DRAExtendedResource, off
    1.34-1.35). The object may then mean something else, or fail
    validation (a request with only firstAvailable has no device left).

    Example (1.33): `firstAvailable: [...]` is dropped unless the cluster
    enables DRAPrioritizedList.
    """
    if doc.kind == "DeviceClass":
        if doc.release_tuple >= (1, 34) and not gate_on_by_default(doc, "DRAExtendedResource") and doc.get("spec", "extendedResourceName") is not None:
            report(("spec", "extendedResourceName"), f"spec.extendedResourceName is ignored: the DRAExtendedResource feature gate is off by default in Kubernetes {doc.release}", at_key=True)
        return
    for path, field, gate in _dropped(doc):
        report(path, f"{field} is silently dropped unless the cluster enables the {gate} feature gate (off by default in Kubernetes {doc.release})", at_key=True)


@rule("DRA802", "admin-access-namespace-label", severity="warning", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None))
def admin_access_namespace(doc, report):
    """`adminAccess: true` needs the admin-access label on the claim's namespace (1.33+).

    The API server rejects the object (Forbidden at
    `spec.devices.requests[i].adminAccess`, also for templates) unless the
    namespace carries `resource.k8s.io/admin-access: "true"` (1.33) or
    `resource.kubernetes.io/admin-access: "true"` (1.34+). A linter cannot
    see namespace labels, hence a warning.
    """
    if not gate_enabled(doc, "DRAAdminAccess"):
        return  # dropped: DRA801 says so
    label = "resource.k8s.io/admin-access" if doc.release_tuple <= (1, 33) else "resource.kubernetes.io/admin-access"
    ns = doc.namespace or "the target namespace"
    for i, src, obj in _exact_objects(doc):
        if obj.get("adminAccess") is True:
            report(
                ("spec", "devices", "requests", i, "adminAccess"),
                f"adminAccess is only allowed if {ns} has the label {label}: \"true\" (Forbidden otherwise)",
                error_type="Forbidden",
                locate=src + ("adminAccess",),
            )
