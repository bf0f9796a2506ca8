"""ResourceSlice (1.31+): what the API server validates on create (dra-api-rules.md §12; from
1.36 the Go API types and their `+k8s:` tags).

Paths follow the server: `D` = `spec.devices[i]`, also for a v1alpha3/v1beta1
slice from 1.33, whose device fields sit under `D.basic` in the YAML (the
problem is located there). Fields whose feature gate is off are dropped before
validation and are not checked here (DRA801 says so).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from dralint.api import MapKey, rule
from dralint.k8s.claims import node_selector_problems, too_many_type
from dralint.k8s.formats import quantity_value
from dralint.k8s.names import (
    DEVICE_MAX_ID,
    c_identifier,
    dns1123_label,
    dns1123_subdomain,
    driver_name_error_types,
    fully_qualified_name,
    is_extended_resource_name,
    qualified_name,
)
from dralint.k8s.resource import STRUCTURED
from dralint.k8s.slices import (
    ATTRIBUTE_VALUE_MAX_LENGTH,
    ATTRIBUTE_VALUES_MAX,
    ATTRIBUTES_AND_CAPACITIES_MAX,
    BINDING_CONDITIONS_MAX,
    COUNTER_CONSUMPTIONS_MAX,
    COUNTER_SETS_MAX,
    COUNTERS_PER_CONSUMPTION_MAX,
    COUNTERS_PER_SET_MAX,
    LIST_ATTRIBUTE_FIELDS,
    POOL_NAME_MAX,
    SCALAR_ATTRIBUTE_FIELDS,
    device_go_type,
    devices,
    devices_max,
    kept,
)

if TYPE_CHECKING:
    from decimal import Decimal

SLICE = ["ResourceSlice"]
_COMMON = dict(severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.31", None))

# semver.org 2.0.0, as github.com/blang/semver/v4 parses it (no leading "v", no leading zeros).
_NUM = r"(?:0|[1-9][0-9]*)"
_IDENT = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
# A pattern string, compiled by `re` on first use: compiling it at import was ~1 ms of every
# start-up, and only ResourceSlices with version attributes need it.
_SEMVER = rf"{_NUM}\.{_NUM}\.{_NUM}(?:-{_IDENT}(?:\.{_IDENT})*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"


def _too_many(doc, report, api, src, count, limit, what, why=""):
    etype = too_many_type(doc)
    report(api, f"{what} has {count} entries; at most {limit} are allowed{why} ({etype})", error_type=etype, locate=src, at_key=True)


@rule("DRA561", "slice-driver-name", **_COMMON)
def driver(doc, report):
    """`spec.driver` must be a driver name: a DNS subdomain of at most 63 characters.

    Invalid: `driver: GPU_Driver`. Valid: `driver: gpu.example.com`.
    """
    value = doc.get("spec", "driver", type=str)
    if value is None:
        return
    for etype, msg in driver_name_error_types(value):
        report(("spec", "driver"), f"driver '{value}' is invalid: {msg} ({etype})", error_type=etype)


@rule("DRA562", "slice-pool", **_COMMON)
def pool(doc, report):
    """`spec.pool`: a name of DNS subdomains joined by `/` (at most 253 characters), `resourceSliceCount` > 0, `generation` >= 0.

    Invalid: `pool: {name: "", generation: -1, resourceSliceCount: 0}`.
    """
    data = doc.get("spec", "pool", type=dict)
    if data is None:
        return
    base = ("spec", "pool")
    name = data.get("name")
    if isinstance(name, str):
        if not name:
            report(base + ("name",), "the pool name is required (Required)", error_type="Required", at_key=True)
        elif len(name) > POOL_NAME_MAX:
            report(base + ("name",), f"the pool name must be no more than {POOL_NAME_MAX} characters (TooLong)", error_type="TooLong")
        else:
            for part in name.split("/"):
                errs = dns1123_subdomain(part) if part else ["each part between '/' must be non-empty"]
                if errs:
                    report(base + ("name",), f"pool name '{name}' is invalid: {errs[0]} (Invalid)", error_type="Invalid")
                    break
    count = data.get("resourceSliceCount")
    if isinstance(count, int) and not isinstance(count, bool) and count <= 0:
        report(base + ("resourceSliceCount",), f"resourceSliceCount must be greater than zero, not {count} (Invalid)", error_type="Invalid")
    generation = data.get("generation")
    if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
        report(base + ("generation",), f"generation must not be negative, not {generation} (Invalid)", error_type="Invalid")


def _node_selection(doc) -> list[str]:
    spec = doc.get("spec", type=dict) or {}
    chosen = [f for f in ("nodeName", "nodeSelector") if spec.get(f) not in (None, "")]
    if spec.get("allNodes") is True:
        chosen.append("allNodes")
    if doc.release_tuple >= (1, 33) and spec.get("perDeviceNodeSelection") is True and kept(doc, "ResourceSliceSpec", spec, "perDeviceNodeSelection"):
        chosen.append("perDeviceNodeSelection")
    return chosen


@rule("DRA563", "slice-node-selection", **_COMMON)
def node_selection(doc, report):
    """Exactly one of `nodeName`, `nodeSelector`, `allNodes: true` (and from 1.33 `perDeviceNodeSelection: true`).

    `nodeName` must be a node name (DNS subdomain); `nodeSelector` a valid node
    selector with exactly one term. None set is Required at `spec`, several
    Invalid at `spec`.

    Invalid: both `nodeName: node-1` and `allNodes: true`.
    """
    spec = doc.get("spec", type=dict)
    if spec is None:
        return
    options = "nodeName, nodeSelector, allNodes" + (", perDeviceNodeSelection" if doc.release_tuple >= (1, 33) else "")
    chosen = _node_selection(doc)
    if not chosen:
        report(("spec",), f"exactly one of {options} is required (Required)", error_type="Required", at_key=True)
    elif len(chosen) > 1:
        report(("spec",), f"exactly one of {options} is required, but {', '.join(chosen)} are set (Invalid)", error_type="Invalid", at_key=True)
    name = spec.get("nodeName")
    if isinstance(name, str) and name:
        errs = dns1123_subdomain(name)
        if errs:
            report(("spec", "nodeName"), f"node name '{name}' is invalid: {errs[0]} (Invalid)", error_type="Invalid")
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        _check_selector(report, selector, ("spec", "nodeSelector"), ("spec", "nodeSelector"))


def _check_selector(report, selector, api, src, *, one_term: bool = True):
    """A node selector; `one_term`: the slice-level one must have exactly one term (a device's
    may have several up to 1.37: 1.38 restricts those too)."""
    for api_path, src_path, etype, msg in node_selector_problems(selector, api, src):
        report(api_path, f"{msg} ({etype})", error_type=etype, locate=src_path, at_key=etype == "Required")
    terms = selector.get("nodeSelectorTerms")
    # `len(...) != 1` upstream: an empty or missing list (len(nil) == 0 in Go) is Invalid here too,
    # besides ValidateNodeSelector's Required.
    if one_term and (terms is None or isinstance(terms, list)) and len(terms or ()) != 1:
        report(api + ("nodeSelectorTerms",), f"must have exactly one node selector term, not {len(terms)} (Invalid)", error_type="Invalid", locate=src + ("nodeSelectorTerms",), at_key=True)


@rule("DRA564", "slice-too-many-devices", **_COMMON)
def too_many_devices(doc, report):
    """At most 128 devices per slice; from 1.35 at most 64 when a device has taints or consumes counters, and from 1.36 also when it has list attributes.

    Only devices the server keeps count (a gated field that is dropped does not lower the limit).
    """
    seq = doc.get("spec", "devices", type=list)
    if seq is None:
        return
    limit, why = devices_max(doc)
    if len(seq) > limit:
        _too_many(doc, report, ("spec", "devices"), ("spec", "devices"), len(seq), limit, "spec.devices", why)


@rule("DRA565", "slice-device-name", **_COMMON)
def device_names(doc, report):
    """Device names must be DNS labels, unique in the slice (Duplicate at `D.name`).

    Invalid: two devices named `gpu-0`, or a device named `GPU_0`.
    """
    seen: set[str] = set()
    for i, dev in enumerate(doc.get("spec", "devices", type=list, default=[])):
        if not isinstance(dev, dict) or not isinstance(dev.get("name"), str):
            continue
        name, path = dev["name"], ("spec", "devices", i, "name")
        if not name:
            report(path, "a device name is required (Required)", error_type="Required", at_key=True)
            continue
        errs = dns1123_label(name)
        if errs:
            report(path, f"device name '{name}' is invalid: {errs[0]} (Invalid)", error_type="Invalid")
        if name in seen:
            report(path, f"device name '{name}' is used twice (Duplicate)", error_type="Duplicate")
        seen.add(name)


def _attribute_name_problems(doc, key: str) -> list[tuple[str, str]]:
    """validateQualifiedName: a C identifier, or a domain (driver-name rule) and '/' and a C identifier of at most 32."""
    if "/" not in key:
        out = []
        if len(key) > DEVICE_MAX_ID:
            out.append(("TooLong", f"the identifier must be no more than {DEVICE_MAX_ID} characters"))
        out += [("Invalid", m) for m in c_identifier(key)] if key else [("Required", "the name must not be empty")]
        return out
    return [(etype, msg) for _, etype, msg in fully_qualified_name(key, doc.release_tuple) if "must include a domain" not in msg]


@rule("DRA566", "slice-attribute", **_COMMON)
def attributes(doc, report):
    """Device attributes: qualified names, exactly one value each, strings and versions of at most 64 characters, versions semver 2.0.0.

    From 1.36 (DRAListTypeAttributes) an attribute may hold a list (`ints`,
    `bools`, `strings`, `versions`): each entry is checked as a scalar would
    be, and a device may hold at most 48 values in all its attributes.

    Invalid: `attributes: {model: {string: a100, int: 3}}`, `{driverVersion: {version: v1.2}}`.
    """
    for shape in devices(doc):
        attrs = shape.fields.get("attributes")
        if not isinstance(attrs, dict):
            continue
        total = 0
        for key, attr in attrs.items():
            api, src = shape.at("attributes", MapKey(key))
            for etype, msg in _attribute_name_problems(doc, str(key)):
                report(api, f"attribute name '{key}' is invalid: {msg} ({etype})", error_type=etype, locate=src, at_key=True)
            if not isinstance(attr, dict):
                continue
            set_fields = [f for f in SCALAR_ATTRIBUTE_FIELDS if attr.get(f) is not None]
            set_fields += [f for f in LIST_ATTRIBUTE_FIELDS if isinstance(kept(doc, "DeviceAttribute", attr, f), list)]
            if not set_fields:
                report(api, f"attribute '{key}': exactly one value must be specified (Required)", error_type="Required", locate=src, at_key=True)
            elif len(set_fields) > 1:
                report(api, f"attribute '{key}': exactly one value must be specified, not {', '.join(set_fields)} (Invalid)", error_type="Invalid", locate=src, at_key=True)
            for f in set_fields:
                values = attr[f] if f in LIST_ATTRIBUTE_FIELDS else [attr[f]]
                total += len(values)
                for n, value in enumerate(values):
                    where = (f, n) if f in LIST_ATTRIBUTE_FIELDS else (f,)
                    _check_value(report, f.rstrip("s"), value, api + where, src + where)
        if doc.release_tuple >= (1, 36) and total > ATTRIBUTE_VALUES_MAX:
            api, src = shape.at("attributes")
            report(api, f"the device's attributes hold {total} values; at most {ATTRIBUTE_VALUES_MAX} are allowed (TooMany)", error_type="TooMany", locate=src, at_key=True)


def _check_value(report, kind, value, api, src):
    if kind not in ("string", "version") or not isinstance(value, str):
        return
    if len(value) > ATTRIBUTE_VALUE_MAX_LENGTH:
        report(api, f"a {kind} attribute value must be no more than {ATTRIBUTE_VALUE_MAX_LENGTH} characters (TooLong)", error_type="TooLong", locate=src)
    elif kind == "version" and not re.fullmatch(_SEMVER, value):
        report(api, f"'{value}' is not a semantic version (semver.org 2.0.0, e.g. 1.2.3) (Invalid)", error_type="Invalid", locate=src)


@rule("DRA567", "slice-capacity", **_COMMON)
def capacity(doc, report):
    """Capacity names are qualified names like attribute names; attributes and capacities together at most 32 per device.

    Invalid: a device with 20 attributes and 13 capacities.
    """
    for shape in devices(doc):
        attrs = shape.fields.get("attributes")
        caps = shape.fields.get("capacity")
        if isinstance(caps, dict):
            for key in caps:
                api, src = shape.at("capacity", MapKey(key))
                for etype, msg in _attribute_name_problems(doc, str(key)):
                    report(api, f"capacity name '{key}' is invalid: {msg} ({etype})", error_type=etype, locate=src, at_key=True)
        n = (len(attrs) if isinstance(attrs, dict) else 0) + (len(caps) if isinstance(caps, dict) else 0)
        if n > ATTRIBUTES_AND_CAPACITIES_MAX:
            report(shape.api, f"the device has {n} attributes and capacities; at most {ATTRIBUTES_AND_CAPACITIES_MAX} are allowed (TooMany)", error_type="TooMany", locate=shape.src, at_key=True)


def _counters(doc, report, counters, api, src, limit):
    if not isinstance(counters, dict):
        return
    if not counters:
        report(api, "at least one counter is required (Required)", error_type="Required", locate=src, at_key=True)
    if len(counters) > limit:
        _too_many(doc, report, api, src, len(counters), limit, "counters")
    for key in counters:
        errs = dns1123_label(str(key))
        if errs:
            report(api + (MapKey(key),), f"counter name '{key}' is invalid: {errs[0]} (Invalid)", error_type="Invalid", locate=src + (MapKey(key),), at_key=True)


@rule("DRA568", "slice-shared-counters", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.33", None))
def shared_counters(doc, report):
    """`spec.sharedCounters` (DRAPartitionableDevices): at most 8 counter sets with unique DNS-label names, each with 1 to 32 counters named by DNS labels.

    From 1.35 a slice lists either devices or shared counters, not both
    (`+zeroOrOneOf=ResourceSliceType`; reported Invalid at `spec`, the path inferred).

    Invalid: two counter sets named `gpu-0-counters`.
    """
    spec = doc.get("spec", type=dict)
    seq = kept(doc, "ResourceSliceSpec", spec, "sharedCounters")
    if not isinstance(seq, list):
        return
    if doc.release_tuple >= (1, 35) and seq and spec.get("devices"):
        report(("spec",), "only one of devices and sharedCounters may be set: put the counter sets in a slice of their own (Invalid)", error_type="Invalid", at_key=True)
    base = ("spec", "sharedCounters")
    if len(seq) > COUNTER_SETS_MAX:
        _too_many(doc, report, base, base, len(seq), COUNTER_SETS_MAX, "spec.sharedCounters")
    seen: set[str] = set()
    for i, cs in enumerate(seq):
        if not isinstance(cs, dict):
            continue
        name = cs.get("name")
        if isinstance(name, str):
            if not name:
                report(base + (i, "name"), "a counter set name is required (Required)", error_type="Required", at_key=True)
            elif dns1123_label(name):
                report(base + (i, "name"), f"counter set name '{name}' is invalid: {dns1123_label(name)[0]} (Invalid)", error_type="Invalid")
            elif name in seen:
                report(base + (i, "name"), f"counter set name '{name}' is used twice (Duplicate)", error_type="Duplicate")
            seen.add(name)
        _counters(doc, report, cs.get("counters"), base + (i, "counters"), base + (i, "counters"), COUNTERS_PER_SET_MAX)


@rule("DRA569", "slice-counter-consumption", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.33", None))
def counter_consumption(doc, report):
    """A device's `consumesCounters` (DRAPartitionableDevices): at most 2 entries, unique DNS-label `counterSet`s, 1 to 32 counters each.

    Invalid: `consumesCounters: [{counterSet: a, counters: {}}]`.
    """
    go_type = device_go_type(doc)
    for shape in devices(doc):
        seq = kept(doc, go_type, shape.fields, "consumesCounters")
        if not isinstance(seq, list):
            continue
        api, src = shape.at("consumesCounters")
        if len(seq) > COUNTER_CONSUMPTIONS_MAX:
            _too_many(doc, report, api, src, len(seq), COUNTER_CONSUMPTIONS_MAX, "consumesCounters")
        seen: set[str] = set()
        for j, cc in enumerate(seq):
            if not isinstance(cc, dict):
                continue
            name = cc.get("counterSet")
            if isinstance(name, str):
                if not name:
                    report(api + (j, "counterSet"), "counterSet is required (Required)", error_type="Required", locate=src + (j, "counterSet"), at_key=True)
                elif dns1123_label(name):
                    report(api + (j, "counterSet"), f"counterSet '{name}' is invalid: {dns1123_label(name)[0]} (Invalid)", error_type="Invalid", locate=src + (j, "counterSet"))
                elif name in seen:
                    report(api + (j, "counterSet"), f"counterSet '{name}' is consumed twice (Duplicate)", error_type="Duplicate", locate=src + (j, "counterSet"))
                seen.add(name)
            _counters(doc, report, cc.get("counters"), api + (j, "counters"), src + (j, "counters"), COUNTERS_PER_CONSUMPTION_MAX)


@rule("DRA570", "slice-binding-conditions", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.34", None))
def binding_conditions(doc, report):
    """`bindingConditions` and `bindingFailureConditions` (DRADeviceBindingConditions): at most 4 each, each a condition type (a qualified name).

    Invalid: five binding conditions, or `bindingConditions: ["not ready"]`.
    """
    go_type = device_go_type(doc)
    for shape in devices(doc):
        for field in ("bindingConditions", "bindingFailureConditions"):
            seq = kept(doc, go_type, shape.fields, field)
            if not isinstance(seq, list):
                continue
            api, src = shape.at(field)
            if len(seq) > BINDING_CONDITIONS_MAX:
                _too_many(doc, report, api, src, len(seq), BINDING_CONDITIONS_MAX, field)
            for k, cond in enumerate(seq):
                if isinstance(cond, str):
                    errs = qualified_name(cond)
                    if errs:
                        report(api + (k,), f"'{cond}' is not a condition type: {errs[0]} (Invalid)", error_type="Invalid", locate=src + (k,))


@rule("DRA571", "slice-device-node-selection", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.33", None))
def device_node_selection(doc, report):
    """With `perDeviceNodeSelection: true` every device sets exactly one of `nodeName`, `nodeSelector`, `allNodes`; without it none may.

    Invalid: `perDeviceNodeSelection: true` and a device with neither.
    """
    spec = doc.get("spec", type=dict) or {}
    per_device = kept(doc, "ResourceSliceSpec", spec, "perDeviceNodeSelection") is True
    go_type = device_go_type(doc)
    for shape in devices(doc):
        chosen = [f for f in ("nodeName", "nodeSelector") if kept(doc, go_type, shape.fields, f) not in (None, "")]
        if kept(doc, go_type, shape.fields, "allNodes") is True:
            chosen.append("allNodes")
        if per_device and not chosen:
            report(shape.api, "exactly one of nodeName, nodeSelector, allNodes is required when spec.perDeviceNodeSelection is true (Required)", error_type="Required", locate=shape.src, at_key=True)
        elif per_device and len(chosen) > 1:
            report(shape.api, f"exactly one of nodeName, nodeSelector, allNodes is required, but {', '.join(chosen)} are set (Invalid)", error_type="Invalid", locate=shape.src, at_key=True)
        elif not per_device:
            for f in chosen:
                api, src = shape.at(f)
                report(api, f"{f} may only be set when spec.perDeviceNodeSelection is true (Invalid)", error_type="Invalid", locate=src, at_key=True)
        selector = kept(doc, go_type, shape.fields, "nodeSelector")
        if isinstance(selector, dict):
            api, src = shape.at("nodeSelector")
            # One term per device from 1.38 (kubernetes#141213), as the slice-level selector always had.
            _check_selector(report, selector, api, src, one_term=doc.release_tuple >= (1, 38))


@rule("DRA572", "slice-partition-type-attribute", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.37", None))
def partition_type_attribute(doc, report):
    """`spec.partitionTypeAttribute` (1.37, DRAPartitionableDevicesType) must be a fully qualified attribute name (`<domain>/<name>`).

    Invalid: `partitionTypeAttribute: profile`. Valid: `partitionTypeAttribute: gpu.example.com/profile`.
    """
    value = kept(doc, "ResourceSliceSpec", doc.get("spec", type=dict), "partitionTypeAttribute")
    if not isinstance(value, str):
        return
    for _, etype, msg in fully_qualified_name(value, doc.release_tuple):
        report(("spec", "partitionTypeAttribute"), f"'{value}' is invalid: {msg} ({etype})", error_type=etype)


def _node_allocatable_field(doc) -> str:
    return "nodeAllocatableResources" if doc.release_tuple >= (1, 37) else "nodeAllocatableResourceMappings"


@rule("DRA574", "slice-node-allocatable-resources", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.36", None))
def node_allocatable_resources(doc, report):
    """A device's node-allocatable resources (DRANodeAllocatableResources): `nodeAllocatableResourceMappings` in 1.36, `nodeAllocatableResources` from 1.37.

    Keys are node-allocatable resource names such as `cpu` or `memory`, never
    extended resources (Invalid); `capacityKey` is a capacity name. From 1.37
    each entry sets `mapping` or `overhead` (Required), and a mapping exactly
    one of `capacityKey` and `deviceMultiplier` (a union: Invalid).

    Invalid (1.37): `nodeAllocatableResources: {example.com/gpu-memory: {}}`.
    """
    field = _node_allocatable_field(doc)
    go_type = device_go_type(doc)
    for shape in devices(doc):
        entries = kept(doc, go_type, shape.fields, field)
        if not isinstance(entries, dict):
            continue
        for key, entry in entries.items():
            api, src = shape.at(field, MapKey(key))
            if is_extended_resource_name(str(key)):
                report(api, f"'{key}' is an extended resource name; only node-allocatable resources such as cpu or memory may be mapped (Invalid)", error_type="Invalid", locate=src, at_key=True)
            if not isinstance(entry, dict):
                continue
            mapping = entry if field == "nodeAllocatableResourceMappings" else entry.get("mapping")
            if field == "nodeAllocatableResources" and mapping is None and entry.get("overhead") is None:
                report(api, "at least one of mapping or overhead must be specified (Required)", error_type="Required", locate=src, at_key=True)
            if not isinstance(mapping, dict):
                continue
            where = () if mapping is entry else ("mapping",)
            key_name = mapping.get("capacityKey")
            if isinstance(key_name, str):
                for etype, msg in _attribute_name_problems(doc, key_name):
                    report(api + where + ("capacityKey",), f"capacityKey '{key_name}' is invalid: {msg} ({etype})", error_type=etype, locate=src + where + ("capacityKey",))
            if field == "nodeAllocatableResources":
                members = [m for m in ("capacityKey", "deviceMultiplier") if mapping.get(m) is not None]
                if len(members) != 1:
                    what = "neither is set" if not members else "both are set"
                    report(api + where, f"exactly one of capacityKey and deviceMultiplier must be set, but {what} (Invalid)", error_type="Invalid", locate=src + where, at_key=True)


SKIP_NODE_OPERATIONS = ("NodePrepareResources", "NodeUnprepareResources", "*")


@rule("DRA575", "slice-skip-node-operations", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.37", None))
def skip_node_operations(doc, report):
    """`spec.skipNodeOperations` (1.37, DRAOptionalNodeOperations): a set of `NodePrepareResources`, `NodeUnprepareResources` or `*`.

    Unknown values are NotSupported, repeated ones Duplicate; skipping
    NodePrepareResources needs NodeUnprepareResources (or `*`) as well (Invalid).

    Invalid: `skipNodeOperations: [NodePrepareResources]`.
    """
    seq = kept(doc, "ResourceSliceSpec", doc.get("spec", type=dict), "skipNodeOperations")
    if not isinstance(seq, list):
        return
    base = ("spec", "skipNodeOperations")
    seen: set = set()
    for i, value in enumerate(seq):
        if not isinstance(value, str):
            continue
        if value not in SKIP_NODE_OPERATIONS:
            report(base + (i,), f"'{value}' is not supported: use {', '.join(SKIP_NODE_OPERATIONS)} (NotSupported)", error_type="NotSupported", replace_with=list(SKIP_NODE_OPERATIONS))
        elif value in seen:
            report(base + (i,), f"'{value}' is listed twice (Duplicate)", error_type="Duplicate")
        seen.add(value)
    if "NodePrepareResources" in seen and not seen & {"NodeUnprepareResources", "*"}:
        report(base, "NodePrepareResources can only be skipped together with NodeUnprepareResources (or use '*') (Invalid)", error_type="Invalid", at_key=True)


VALID_VALUES_MAX = 10


def _policy_problems(policy: dict, capacity: Decimal | None) -> Iterator[tuple[tuple, str, str]]:
    """(path suffix, error type, message) of one CapacityRequestPolicy, from its documented rules."""
    values, valid_range = policy.get("validValues"), policy.get("validRange")
    default = quantity_value(policy.get("default"))
    if values is not None and valid_range is not None:
        yield (), "Invalid", "set validValues or validRange, not both"
    if isinstance(values, list):
        if len(values) > VALID_VALUES_MAX:
            yield ("validValues",), "TooMany", f"validValues has {len(values)} entries; at most {VALID_VALUES_MAX} are allowed"
        parsed = [quantity_value(v) for v in values]
        if None not in parsed:
            if any(b <= a for a, b in zip(parsed, parsed[1:], strict=False)):  # each with the next
                yield ("validValues",), "Invalid", "validValues must be sorted in ascending order, without repeats"
            if policy.get("default") is None:
                yield ("default",), "Required", "default is required when validValues is set"
            elif default is not None and default not in parsed:
                yield ("default",), "Invalid", "default must be one of validValues"
    if isinstance(valid_range, dict):
        yield from _range_problems(valid_range, policy, default, capacity)


def _range_problems(valid_range: dict, policy: dict, default: Decimal | None, capacity: Decimal | None) -> Iterator[tuple[tuple, str, str]]:
    low, high, step = (quantity_value(valid_range.get(k)) for k in ("min", "max", "step"))
    if valid_range.get("min") is None:
        yield ("validRange", "min"), "Required", "validRange.min is required"
    elif low is not None:
        if low < 0:
            yield ("validRange", "min"), "Invalid", "validRange.min must not be negative"
        if capacity is not None and low > capacity:
            yield ("validRange", "min"), "Invalid", "validRange.min must not exceed the capacity value"
        if step is not None and capacity is not None and low + step > capacity:
            yield ("validRange", "step"), "Invalid", "validRange.min + step must not exceed the capacity value"
    if high is not None:
        if capacity is not None and high > capacity:
            yield ("validRange", "max"), "Invalid", "validRange.max must not exceed the capacity value"
        if low is not None and low > high:
            yield ("validRange", "min"), "Invalid", "validRange.min must not exceed validRange.max"
    if policy.get("default") is None:
        yield ("default",), "Required", "default is required when validRange is set"
    elif default is not None and ((low is not None and default < low) or (high is not None and default > high)):
        yield ("default",), "Invalid", "default must lie within validRange"


@rule("DRA576", "slice-capacity-request-policy", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.34", None))
def capacity_request_policy(doc, report):
    """A capacity's `requestPolicy` (DRAConsumableCapacity) as its Go type documents it.

    Only on a device with `allowMultipleAllocations: true`; `validValues` or
    `validRange`, not both; at most 10 valid values, ascending, with `default`
    one of them; a range needs `min` (0 <= min <= the capacity value, max <=
    the value, min + step <= the value) and a `default` within it. The paths
    and error types are the fields the rules name (the hand-written source was
    not available).

    Invalid: `requestPolicy: {default: 3Gi, validValues: [2Gi, 1Gi]}`.
    """
    go_type = device_go_type(doc)
    for shape in devices(doc):
        caps = shape.fields.get("capacity")
        if not isinstance(caps, dict):
            continue
        shared = kept(doc, go_type, shape.fields, "allowMultipleAllocations") is True
        for key, cap in caps.items():
            policy = kept(doc, "DeviceCapacity", cap, "requestPolicy")
            if not isinstance(policy, dict):
                continue
            api, src = shape.at("capacity", MapKey(key), "requestPolicy")
            if not shared:
                report(api, "a requestPolicy needs allowMultipleAllocations: true on the device (Invalid)", error_type="Invalid", locate=src, at_key=True)
            for suffix, etype, msg in _policy_problems(policy, quantity_value(cap.get("value"))):
                report(api + suffix, f"{msg} ({etype})", error_type=etype, locate=src + suffix, at_key=True)
