"""The fields the API server drops because their feature gate is off: a stage between the schema check and the rules.

On create the registry strategies of resource.k8s.io call `PrepareForCreate` ->
`dropDisabledFields` before `Validate` (pkg/registry/resource/{resourceclaim,
resourceclaimtemplate,deviceclass,resourceslice}/strategy.go and the shared
pkg/registry/resource/resourceclaimspec): a field whose gate is off is set to nil
and never validated. So what the drop leaves behind is judged (an attribute whose
only value was an `ints` list has no value left: "exactly one value must be
specified"), and what it removes is not (a malformed `nodeAllocatableResources`
is accepted, unread).

Which gates keep which field is upstream's `+featureGate=` marker of the release
(dralint.gates, generated). The strategies work on the internal type, into which
every served version is converted, so a field is dropped when its Go type carries
the marker in any version the release serves: the v1beta1 `BasicDevice` lacks the
marker on `nodeSelector` that the internal `Device` has, and the strategy drops it
all the same. A field governed by several gates needs all of them (bindingConditions,
bindingFailureConditions and bindsToNode need DRADeviceBindingConditions and
DRAResourceClaimDeviceStatus).

The drop gives the rules a pruned copy of the document's data; the loaded document
is not changed, and the position table is shared (paths that remain keep their
places, and DRA801 reports each dropped field at its key).

Not dropped here: `status`, which a create resets wholesale and a status update
prunes by its own rules (dralint judges a written status as a status update), and
kinds whose strategy drops nothing (DeviceTaintRule, ResourcePoolStatusRequest).
"""

from __future__ import annotations

from .. import gates
from ..model import Document, MapKey, Path
from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator, Mapping

__all__ = ["Dropped", "GateState", "drop_disabled_fields"]

_FLAT = ("v1alpha3", "v1beta1")  # request and device fields flat on the request / in `basic`


class Dropped(NamedRecord):
    """One field the API server drops: where it is in the document, its name, and the gates that are off."""

    __slots__ = ()

    def __new__(_cls, path: Path, field: str, gates: tuple[str, ...]) -> "Dropped":
        return tuple_new(_cls, (path, field, gates))


class GateState:
    """The feature gates of the cluster a document is judged for: the release's defaults,
    overridden by what the user said (`--feature-gates`, the config, a file's comment).

    A gate locked (or removed) at this release keeps its value whatever was said: the
    settings are checked against the run's release (dralint.pipeline.gate_settings), and a file
    that names another release must not have its locked gates turned.
    """

    __slots__ = ("release", "overrides", "_any_off")

    def __init__(self, release: str, overrides: Mapping[str, bool] | None = None):
        self.release = release
        self.overrides: dict[str, bool] = {
            gate: value for gate, value in (overrides or {}).items()
            if gates.gate_stage(release, gate) not in ("ga-locked", "removed") or value == gates.gate_default(release, gate)
        }
        self._any_off: dict[str | None, bool] = {}  # API version -> whether a gate of its fields is off

    def on(self, gate: str) -> bool:
        value = self.overrides.get(gate)
        return value if isinstance(value, bool) else gates.gate_default(self.release, gate)


def drop_disabled_fields(doc: Document, state: GateState) -> tuple[Document, tuple[Dropped, ...]]:
    """The document as the API server validates it on create, and the fields it dropped (none: `doc` itself)."""
    walk = _WALKS.get(doc.kind or "")
    version = (doc.api_version or "").rpartition("/")[2]
    if walk is None or not (doc.api_version or "").startswith("resource.k8s.io/") or not isinstance(doc.data, dict):
        return doc, ()
    if not _anything_off(state, doc.api_version):
        return doc, ()
    finder = _Finder(state, doc.api_version, version)
    dropped = tuple(walk(finder, doc.data))
    if not dropped:
        return doc, ()
    pruned = Document(doc.source, doc.index, _without(doc.data, [d.path for d in dropped]), doc.positions, doc.text, doc.scalar_styles, doc.list_item)
    return pruned, dropped


def _anything_off(state: GateState, api_version: str | None) -> bool:
    """Whether any gate that governs a field of this API version is off: most documents stop here."""
    found = state._any_off.get(api_version)
    if found is None:
        found = state._any_off[api_version] = any(not state.on(g) for g in gates.governing_gates(state.release, api_version))
    return found


class _Finder:
    """The gated fields set in one object of a Go type that the cluster's gates drop."""

    __slots__ = ("state", "api_version", "flat")

    def __init__(self, state: GateState, api_version: str | None, version: str):
        self.state = state
        self.api_version = api_version
        self.flat = version in _FLAT

    def fields(self, obj: Any, go_type: str, base: Path) -> Iterator[Dropped]:
        if not isinstance(obj, dict):
            return
        for field, needed in gates.internal_field_gates(self.state.release, self.api_version, go_type).items():
            if obj.get(field) is None:
                continue  # null is what the drop leaves: nothing to drop
            off = tuple(g for g in needed if not self.state.on(g))
            if off:
                yield Dropped(base + (field,), field, off)


def _claim_spec(finder: _Finder, data: dict) -> Iterator[Dropped]:
    """resourceclaimspec.DropDisabledFields: requests (exact and subrequests) and constraints."""
    spec = data.get("spec")
    base: Path = ("spec",)
    if data.get("kind") == "ResourceClaimTemplate":
        spec = spec.get("spec") if isinstance(spec, dict) else None
        base = ("spec", "spec")
    devices = spec.get("devices") if isinstance(spec, dict) else None
    if not isinstance(devices, dict):
        return
    base += ("devices",)
    requests = devices.get("requests")
    for i, req in enumerate(requests if isinstance(requests, list) else ()):
        if not isinstance(req, dict):
            continue
        at = base + ("requests", i)
        request_level = list(finder.fields(req, "DeviceRequest", at))
        yield from request_level
        if not finder.flat:
            yield from finder.fields(req.get("exactly"), "ExactDeviceRequest", at + ("exactly",))
        subs = req.get("firstAvailable")
        if not isinstance(subs, list) or any(d.field == "firstAvailable" for d in request_level):
            continue  # the whole list is dropped: its entries are not looked at
        for j, sub in enumerate(subs):
            yield from finder.fields(sub, "DeviceSubRequest", at + ("firstAvailable", j))
    constraints = devices.get("constraints")
    for k, constraint in enumerate(constraints if isinstance(constraints, list) else ()):
        yield from finder.fields(constraint, "DeviceConstraint", base + ("constraints", k))


def _device_class(finder: _Finder, data: dict) -> Iterator[Dropped]:
    yield from finder.fields(data.get("spec"), "DeviceClassSpec", ("spec",))


def _resource_slice(finder: _Finder, data: dict) -> Iterator[Dropped]:
    """resourceslice/strategy.go dropDisabledFields: the spec, each device, its attributes,
    capacities and counter consumptions. A v1beta1 device's fields are in `basic`."""
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return
    yield from finder.fields(spec, "ResourceSliceSpec", ("spec",))
    devices = spec.get("devices")
    go_type = "BasicDevice" if finder.flat else "Device"
    for i, device in enumerate(devices if isinstance(devices, list) else ()):
        at: Path = ("spec", "devices", i)
        if finder.flat:
            device = device.get("basic") if isinstance(device, dict) else None
            at += ("basic",)
        if not isinstance(device, dict):
            continue
        device_level = list(finder.fields(device, go_type, at))
        yield from device_level
        gone = {d.field for d in device_level}
        for field, value_type in (("attributes", "DeviceAttribute"), ("capacity", "DeviceCapacity")):
            values = device.get(field)
            if isinstance(values, dict):
                for key, value in values.items():
                    if isinstance(key, str):
                        yield from finder.fields(value, value_type, at + (field, MapKey(key)))
        consumes = device.get("consumesCounters")
        if isinstance(consumes, list) and "consumesCounters" not in gone:
            for k, entry in enumerate(consumes):
                yield from finder.fields(entry, "DeviceCounterConsumption", at + ("consumesCounters", k))


_WALKS: dict[str, Callable[[_Finder, dict], Iterator[Dropped]]] = {
    "ResourceClaim": _claim_spec,
    "ResourceClaimTemplate": _claim_spec,
    "DeviceClass": _device_class,
    "ResourceSlice": _resource_slice,
}


def _without(data: Any, paths: list[Path]) -> Any:
    """A copy of `data` without the values at `paths`: only the mappings and lists on the way are copied."""
    tree: dict = {}
    for path in paths:
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if node is None:
                break
        else:
            node[path[-1]] = None  # None: remove this one
    return _copy(data, tree)


def _copy(node: Any, tree: dict) -> Any:
    if isinstance(node, dict):
        new = dict(node)
        for key, sub in tree.items():
            if sub is None:
                new.pop(key, None)
            elif key in new:
                new[key] = _copy(new[key], sub)
        return new
    if isinstance(node, list):
        items = list(node)
        for index, sub in tree.items():
            if isinstance(index, int) and 0 <= index < len(items) and sub is not None:
                items[index] = _copy(items[index], sub)
        return items
    return node
