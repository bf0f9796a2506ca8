"""How the API server sees a ResourceSlice: device shapes, gated fields, limits per release.

The v1alpha3/v1beta1 shape wraps a device's fields in `basic`; from 1.33 the
server's internal type has them on the device itself (the v1beta2/v1 shape), so
it reports `spec.devices[i].attributes` for a v1beta1 slice whose YAML has
`spec.devices[i].basic.attributes` (the same quirk as `exactly` for claims).
`DeviceShape.at` gives both paths.

Limits come from the Go API types (`k8s.io/api/resource/<version>/types.go`) of
each release; `+featureGate=` markers say which fields a cluster keeps
(`dralint.gates`).
"""

from __future__ import annotations

from .. import gates
from ..records import NamedRecord, tuple_new
from .claims import gate_enabled
from .names import DEVICE_MAX_ID, c_identifier, fully_qualified_name

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

Path = tuple

DEVICES_MAX = 128
# 1.35 names it ResourceSliceMaxDevicesWithTaintsOrConsumesCounters; 1.36 renames it
# ResourceSliceMaxDevicesWithAdvancedFeatures and adds list attributes to the condition.
DEVICES_MAX_ADVANCED = 64
ATTRIBUTES_AND_CAPACITIES_MAX = 32
ATTRIBUTE_VALUES_MAX = 48  # 1.36: values of list and scalar attributes together, per device
ATTRIBUTE_VALUE_MAX_LENGTH = 64
COUNTER_SETS_MAX = 8
COUNTERS_PER_SET_MAX = 32
COUNTER_CONSUMPTIONS_MAX = 2
COUNTERS_PER_CONSUMPTION_MAX = 32
TAINTS_MAX = 16
BINDING_CONDITIONS_MAX = 4
POOL_NAME_MAX = 253
TAINT_EFFECTS = ("NoSchedule", "NoExecute")
TAINT_EFFECTS_WITH_NONE = ("None", "NoSchedule", "NoExecute")  # from 1.35

SCALAR_ATTRIBUTE_FIELDS = ("int", "bool", "string", "version")
LIST_ATTRIBUTE_FIELDS = ("ints", "bools", "strings", "versions")


def taint_effects(release: tuple[int, int]) -> tuple[str, ...]:
    """Effects a device taint may have: `None` (report only) was added in 1.35."""
    return TAINT_EFFECTS_WITH_NONE if release >= (1, 35) else TAINT_EFFECTS


class DeviceShape(NamedRecord):
    """Where one device's fields are: `api` as the server reports them, `src` in the YAML."""

    __slots__ = ()

    def __new__(
        _cls,
        index: int,
        device: dict,
        fields: dict,  # the object holding attributes, capacity, ... (`basic` in the flat shape)
        api: Path,
        src: Path,
    ) -> "DeviceShape":
        return tuple_new(_cls, (index, device, fields, api, src))

    def at(self, *fields: Any) -> tuple[Path, Path]:
        return self.api + fields, self.src + fields


def device_paths(*fields: str) -> tuple[str, ...]:
    """`needs=` paths (dralint.pipeline.dispatch) of `fields` of every device of a slice, in both shapes (`basic` up to v1beta1)."""
    return tuple(f"spec.devices.*{middle}.{field}" for middle in ("", ".basic") for field in fields)


def is_flat(doc: Any) -> bool:
    return (doc.api_version or "").rsplit("/", 1)[-1] in ("v1alpha3", "v1beta1")


def device_go_type(doc: Any) -> str:
    return "BasicDevice" if is_flat(doc) else "Device"


def devices(doc: Any) -> Iterator[DeviceShape]:
    flat = is_flat(doc)
    internal_flat = flat and doc.release_tuple < (1, 33)
    for i, dev in enumerate(doc.get("spec", "devices", type=list, default=[])):
        if not isinstance(dev, dict):
            continue
        base = ("spec", "devices", i)
        if flat:
            basic = dev.get("basic")
            if not isinstance(basic, dict):
                continue
            yield DeviceShape(i, dev, basic, base + ("basic",) if internal_flat else base, base + ("basic",))
        else:
            yield DeviceShape(i, dev, dev, base, base)


def field_kept(doc: Any, go_type: str, field: str) -> bool:
    """Whether the server keeps `field` of `go_type` (its gates on, as `gate_enabled` decides)."""
    return all(gate_enabled(doc, g) for g in gates.field_gates(doc.release, doc.api_version, go_type).get(field, ()))


def kept(doc: Any, go_type: str, obj: Any, field: str) -> Any:
    """obj[field] when the server keeps it, else None."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(field)
    return value if value is not None and field_kept(doc, go_type, field) else None


def list_attribute_values(doc: Any, attr: dict) -> tuple[str | None, int]:
    """(the list field set, number of values) of a list attribute the server keeps."""
    for name in LIST_ATTRIBUTE_FIELDS:
        value = kept(doc, "DeviceAttribute", attr, name)
        if isinstance(value, list):
            return name, len(value)
    return None, 0


def uses_advanced_features(doc: Any, shape: DeviceShape) -> bool:
    """Whether a device lowers the slice's device limit to 64 (taints, counters; list attributes from 1.36)."""
    go_type = device_go_type(doc)
    if kept(doc, go_type, shape.fields, "taints") or kept(doc, go_type, shape.fields, "consumesCounters"):
        return True
    if doc.release_tuple < (1, 36):
        return False
    attrs = shape.fields.get("attributes")
    if not isinstance(attrs, dict):
        return False
    return any(isinstance(a, dict) and list_attribute_values(doc, a)[0] for a in attrs.values())


def devices_max(doc: Any) -> tuple[int, str]:
    """(the slice's device limit, why) for this release."""
    if doc.release_tuple < (1, 35):
        return DEVICES_MAX, ""
    if any(uses_advanced_features(doc, s) for s in devices(doc)):
        why = "taints, consumes counters or has list attributes" if doc.release_tuple >= (1, 36) else "taints or consumes counters"
        return DEVICES_MAX_ADVANCED, f" because a device uses {why}"
    return DEVICES_MAX, ""


def qualified_name_problems(doc: Any, key: str) -> list[tuple[str, str]]:
    """validateQualifiedName (attribute and capacity keys): (error type, message) pairs.

    A C identifier, or a domain (the driver-name rule) and '/' and a C identifier of at most 32.
    """
    if "/" not in key:
        out = []
        if len(key) > DEVICE_MAX_ID:
            out.append(("TooLong", f"the identifier must be no more than {DEVICE_MAX_ID} characters"))
        out += [("Invalid", m) for m in c_identifier(key)] if key else [("Required", "the name must not be empty")]
        return out
    return [(etype, msg) for _, etype, msg in fully_qualified_name(key, doc.release_tuple) if "must include a domain" not in msg]


def validated_devices(doc: Any) -> Iterator[DeviceShape] | tuple[()]:
    """The devices the server validates: none when the slice has more than its limit from 1.35.

    validateSet stops at a list over its size (dra-api-rules.md §13 places this in 1.35):
    spec.devices is then only TooMany, and no device is looked at.
    """
    return () if devices_short_circuit(doc) else devices(doc)


def devices_short_circuit(doc: Any) -> bool:
    """Whether the slice has more devices than its limit, at a release that then checks none of them."""
    return doc.release_tuple >= (1, 35) and doc.memo("slice-over-device-limit", _over_device_limit, doc)


def _over_device_limit(doc: Any) -> bool:
    seq = doc.get("spec", "devices", type=list)
    return seq is not None and len(seq) > devices_max(doc)[0]


KEY_PATH_MAX = 63 + 1 + 32  # attributeAndCapacityMaxKeyLength: DeviceMaxDomainLength + "/" + DeviceMaxIDLength


def key_in_path(key: Any, max_len: int = KEY_PATH_MAX) -> str:
    """truncateIfTooLong: how validateMap names a long attribute or capacity key in an entry's path."""
    text = str(key)
    max_len = max(max_len, 16)
    if len(text) <= max_len:
        return text
    remaining = max_len - 3
    return text[: (remaining + 1) // 2] + "..." + text[len(text) - remaining // 2:]
