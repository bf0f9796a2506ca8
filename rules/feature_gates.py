"""Fields the API server drops because their feature gate is off, and the admin-access
namespace check (dra-api-rules.md §9, §5.9).

Gates are the release's defaults unless the user says what the cluster runs
(`--feature-gates`, `feature-gates:` in .dralint.yaml, `# dralint: feature-gates=`);
the drop itself is a pipeline stage (dralint.pipeline.drop), this rule reports it.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import REQUESTS, devices_path, gate_enabled, gate_on_by_default, is_nested, raw_requests
from dralint.k8s.resource import CLAIM_KINDS, STRUCTURED

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

# Where `_exact_objects` finds `adminAccess`: on a flat request and under `exactly` (subrequests are not read).
_ADMIN_ACCESS = tuple(f"{base}.*{middle}.adminAccess" for base in REQUESTS for middle in ("", ".exactly"))


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


def _gates_off(doc: Any, gates: tuple[str, ...]) -> str:
    """"the X feature gate is off by default in Kubernetes 1.NN", or how the user set it."""
    names = " and ".join(gates)
    noun = "feature gate is" if len(gates) == 1 else "feature gates are"
    if all(g in doc.feature_gates for g in gates):
        return f"the {names} {noun} off (as configured)"
    return f"the {names} {noun} off by default in Kubernetes {doc.release}"


# The gate that serves DeviceTaintRule at all, per release: upstream's `+featureGate=` markers cover
# fields, not kinds (dra-api-rules.md §2: DRADeviceTaints 1.33-1.34, DRADeviceTaintRules from 1.35;
# gate defaults from the generated table, so GA in 1.37 needs no entry here).
_TAINT_RULE_GATE = (((1, 35), "DRADeviceTaintRules"), ((1, 33), "DRADeviceTaints"))


def _taint_rule_gate(doc: Any) -> str | None:
    return next((gate for since, gate in _TAINT_RULE_GATE if doc.release_tuple >= since), None)


@rule("DRA801", "field-dropped-by-feature-gate", severity="warning", kinds=[*CLAIM_KINDS, "DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourcePoolStatusRequest"],
      api_versions=STRUCTURED, releases=("1.32", None))
def field_dropped(doc, report):
    """A field whose feature gate is off is dropped by the API server before validation.

    The registry strategies' `PrepareForCreate` -> `dropDisabledFields` set such
    a field to nil and only then validate (dralint.pipeline.drop does the same before the
    rules run): the field is neither stored nor checked, and what is left is
    judged without it. One warning per dropped field, at its key. The gates are
    the release's defaults unless the user says what the cluster runs
    (`--feature-gates`, `feature-gates:` in .dralint.yaml, a file's `# dralint:
    feature-gates=` comment). Which gate governs which field comes from upstream's
    `+featureGate=` markers of each release (schemas/feature_gates.json). For
    example adminAccess (DRAAdminAccess, off 1.32-1.33), firstAvailable
    (DRAPrioritizedList, off 1.33: a request with only firstAvailable then has
    no device left), tolerations (DRADeviceTaints, off 1.33-1.35), capacity and
    distinctAttribute (DRAConsumableCapacity, off 1.34-1.35), DeviceClass
    extendedResourceName (DRAExtendedResource, off 1.34-1.35).

    A ResourceSlice loses, for example, list attributes (`ints`, `bools`,
    `strings`, `versions`: DRAListTypeAttributes, off 1.36-1.37; an attribute
    left without a value is then rejected: "exactly one value must be
    specified"), taints (DRADeviceTaints, off up to 1.35), counters and per-device
    node selection (DRAPartitionableDevices, off up to 1.35), binding conditions
    (DRADeviceBindingConditions and DRAResourceClaimDeviceStatus, both needed)
    and `nodeAllocatableResources` (DRANodeAllocatableResources, off 1.36-1.37:
    dropped unread, so a malformed one is accepted). A DeviceTaintRule is not
    served at all unless DRADeviceTaints (1.33-1.34) or DRADeviceTaintRules
    (1.35-1.36) is on, nor a ResourcePoolStatusRequest (1.36+) unless
    DRAResourcePoolStatus is on.

    Invalid: in 1.37 a slice attribute `{ints: [1, 2]}` loses its list (DRA801) and is
    then rejected for having no value (DRA566), unless the cluster enables
    DRAListTypeAttributes. Valid: `{int: 1}`, which no gate governs.

    Upstream: `dropDisabledFields` (pkg/registry/resource/*/strategy.go, called from `PrepareForCreate`).
    """
    if doc.kind == "DeviceTaintRule":
        gate = _taint_rule_gate(doc)
        if gate and not gate_on_by_default(doc, gate):
            report(("kind",), f"DeviceTaintRule is only served when the cluster enables the {gate} feature gate (off by default in Kubernetes {doc.release})", at_key=True)
        return
    if doc.kind == "ResourcePoolStatusRequest":
        if not gate_on_by_default(doc, "DRAResourcePoolStatus"):
            report(("kind",), f"ResourcePoolStatusRequest is only served when the cluster enables the DRAResourcePoolStatus feature gate (off by default in Kubernetes {doc.release})", at_key=True)
        return
    for dropped in doc.dropped:
        report(
            dropped.path,
            f"{dropped.field} is dropped by the API server before validation, so it is neither kept nor checked: {_gates_off(doc, dropped.gates)}",
            at_key=True,
        )


@rule("DRA802", "admin-access-namespace-label", severity="warning", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=_ADMIN_ACCESS)
def admin_access_namespace(doc, report):
    """`adminAccess: true` needs the admin-access label on the claim's namespace (1.33+).

    The API server rejects the object (Forbidden at
    `spec.devices.requests[i].adminAccess`, also for templates) unless the
    namespace carries `resource.k8s.io/admin-access: "true"` (1.33) or
    `resource.kubernetes.io/admin-access: "true"` (1.34+). A linter cannot
    see namespace labels, hence a warning.

    Invalid: `exactly: {deviceClassName: gpu.example.com, adminAccess: true}`.
    Valid: the same with `adminAccess: false` (or without it).

    Upstream: `AuthorizedForAdmin` (pkg/registry/resource), called from the claim strategy's `Validate`.
    """
    if not gate_enabled(doc, "DRAAdminAccess"):
        return  # dropped: DRA801 says so
    label = "resource.k8s.io/admin-access" if doc.release_tuple <= (1, 33) else "resource.kubernetes.io/admin-access"
    ns = doc.namespace or "the target namespace"
    for i, src, obj in _exact_objects(doc):
        if obj.get("adminAccess") is True:
            report(
                ("spec", "devices", "requests", i, "adminAccess"),
                f"adminAccess is only allowed if {ns} has the label {label}: \"true\"",
                error_type="Forbidden",
                type_note="otherwise",
                locate=src + ("adminAccess",),
            )
