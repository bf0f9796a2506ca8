"""Fields the API server silently drops because their feature gate is off by default, and
the admin-access namespace check (dra-api-rules.md §9, §5.9).

Gate defaults follow the release; `rule-options: {feature-gates: {<Gate>: true}}`
in .dralint.yaml describes a cluster that enables a gate.
"""

from __future__ import annotations

import functools
from typing import Any, Iterator

from dralint.api import MapKey, release_tuple, rule
from dralint.gates import field_gates as gates_of
from dralint.k8s.claims import devices_path, gate_default, gate_enabled, gate_on_by_default, is_nested, raw_requests, spec_fields
from dralint.k8s.resource import CLAIM_KINDS, STRUCTURED
from dralint.k8s.slices import device_go_type, devices


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


def _dropped_fields(doc: Any, obj: Any, go_type: str, base: tuple) -> Iterator[tuple[tuple, str, str]]:
    """(path, field, gate) of each field of `obj` whose gate a default cluster has off.

    Which gates govern which field of `go_type` is upstream's `+featureGate=` marker
    of this release (dralint.gates)."""
    if not isinstance(obj, dict):
        return
    for field, gates in gates_of(doc.release, doc.api_version, go_type).items():
        if obj.get(field) is None:
            continue
        off = next((g for g in gates if not gate_on_by_default(doc, g)), None)
        if off is not None:
            yield base + (field,), field, off


_CLAIM_TYPES = ("DeviceRequest", "ExactDeviceRequest", "DeviceSubRequest", "DeviceConstraint")


@functools.lru_cache(maxsize=None)
def _off_fields(release: str, api_version: str | None, go_types: tuple[str, ...]) -> frozenset[str]:
    """The fields of `go_types` that a default cluster of `release` drops."""
    rel = release_tuple(release)
    return frozenset(
        field for go_type in go_types for field, gates in gates_of(release, api_version, go_type).items()
        if any(not gate_default(rel, g) for g in gates)
    )


def _nothing_dropped(doc: Any, go_types: tuple[str, ...]) -> bool:
    """Whether the document sets none of those fields anywhere (most documents): one set test.
    With `rule-options: feature-gates` the gates are the config's, and the fields are looked at."""
    options = doc.options
    if isinstance(options, dict) and options.get("feature-gates"):
        return False
    return _off_fields(doc.release, doc.api_version, go_types).isdisjoint(spec_fields(doc))


def _dropped(doc: Any) -> Iterator[tuple[tuple, str, str]]:
    base = devices_path(doc) + ("requests",)
    nested = is_nested(doc)
    for i, req in enumerate(raw_requests(doc)):
        if not isinstance(req, dict):
            continue
        request_level = list(_dropped_fields(doc, req, "DeviceRequest", base + (i,)))
        yield from request_level
        if nested:
            yield from _dropped_fields(doc, req.get("exactly"), "ExactDeviceRequest", base + (i, "exactly"))
        fa = req.get("firstAvailable")
        if not isinstance(fa, list) or any(field == "firstAvailable" for _, field, _ in request_level):
            continue  # the whole list is dropped: its entries do not matter
        for j, sub in enumerate(fa):
            yield from _dropped_fields(doc, sub, "DeviceSubRequest", base + (i, "firstAvailable", j))
    for k, c in enumerate(doc.get(*devices_path(doc), "constraints", type=list, default=[])):
        yield from _dropped_fields(doc, c, "DeviceConstraint", devices_path(doc) + ("constraints", k))


def _slice_dropped(doc: Any) -> Iterator[tuple[tuple, str, str]]:
    """Gated fields of a ResourceSlice: spec, each device, its attributes and capacities.

    A field dropped from a v1beta1 device is located in the YAML (`devices[i].basic.<field>`)."""
    yield from _dropped_fields(doc, doc.get("spec"), "ResourceSliceSpec", ("spec",))
    go_type = device_go_type(doc)
    for shape in devices(doc):
        yield from _dropped_fields(doc, shape.fields, go_type, shape.src)
        for field, go_value_type in (("attributes", "DeviceAttribute"), ("capacity", "DeviceCapacity")):
            values = shape.fields.get(field)
            if isinstance(values, dict):
                for key, value in values.items():
                    yield from _dropped_fields(doc, value, go_value_type, shape.src + (field, MapKey(key)))


# The gate that serves DeviceTaintRule at all, per release: upstream's `+featureGate=` markers cover
# fields, not kinds (dra-api-rules.md §2: DRADeviceTaints 1.33-1.34, DRADeviceTaintRules from 1.35;
# gate defaults from the generated table, so GA in 1.37 needs no entry here).
_TAINT_RULE_GATE = (((1, 35), "DRADeviceTaintRules"), ((1, 33), "DRADeviceTaints"))


def _taint_rule_gate(doc: Any) -> str | None:
    return next((gate for since, gate in _TAINT_RULE_GATE if doc.release_tuple >= since), None)


@rule("DRA801", "field-dropped-by-feature-gate", severity="warning", kinds=[*CLAIM_KINDS, "DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourcePoolStatusRequest"],
      api_versions=STRUCTURED, releases=("1.32", None))
def field_dropped(doc, report):
    """A field whose feature gate is off by default at this release is silently dropped on create.

    Which gate governs which field comes from upstream's `+featureGate=` markers
    of each release, the defaults from upstream's gate table (both generated into
    schemas/feature_gates.json). For example adminAccess (DRAAdminAccess, off
    1.32-1.33), firstAvailable (DRAPrioritizedList, off 1.33), tolerations
    (DRADeviceTaints, off 1.33-1.35), capacity and distinctAttribute
    (DRAConsumableCapacity, off 1.34-1.35), DeviceClass extendedResourceName
    (DRAExtendedResource, off 1.34-1.35). The object may then mean something
    else, or fail validation (a request with only firstAvailable has no device left).

    A ResourceSlice loses, for example, list attributes (`ints`, `bools`,
    `strings`, `versions`: DRAListTypeAttributes, off 1.36-1.37; an attribute
    left without a value is then rejected), taints (DRADeviceTaints, off up to
    1.35), counters (DRAPartitionableDevices, off up to 1.35) and
    `nodeAllocatableResources` (DRANodeAllocatableResources, off 1.36-1.37). A
    DeviceTaintRule is not served at all unless DRADeviceTaints (1.33-1.34) or
    DRADeviceTaintRules (1.35-1.36) is on, a ResourcePoolStatusRequest (1.36+)
    unless DRAResourcePoolStatus is on.

    Example (1.33): `firstAvailable: [...]` is dropped unless the cluster
    enables DRAPrioritizedList.
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
    if doc.kind == "ResourceSlice":
        for path, field, gate in _slice_dropped(doc):
            report(path, f"{field} is silently dropped unless the cluster enables the {gate} feature gate (off by default in Kubernetes {doc.release})", at_key=True)
        return
    if doc.kind == "DeviceClass":
        if _nothing_dropped(doc, ("DeviceClassSpec",)):
            return
        for path, field, gate in _dropped_fields(doc, doc.get("spec"), "DeviceClassSpec", ("spec",)):
            report(path, f"spec.{field} is ignored: the {gate} feature gate is off by default in Kubernetes {doc.release}", at_key=True)
        return
    if _nothing_dropped(doc, _CLAIM_TYPES):
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
