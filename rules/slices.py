"""ResourceSlice (1.31+): what the API server validates on create (dra-api-rules.md §12; from
1.36 the Go API types and their `+k8s:` tags).

Paths follow the server: `D` = `spec.devices[i]`, also for a v1alpha3/v1beta1
slice from 1.33, whose device fields sit under `D.basic` in the YAML (the
problem is located there). Fields whose feature gate is off are dropped before
validation and are not checked here (DRA801 says so).
"""

from __future__ import annotations

import re

from dralint.api import MapKey, rule
from dralint.k8s.claims import duplicate_path, node_selector_problems, too_many_type
from dralint.k8s.names import dns1123_label, dns1123_subdomain, driver_name_error_types
from dralint.k8s.resource import STRUCTURED
from dralint.k8s.slices import (
    ATTRIBUTE_VALUE_MAX_LENGTH,
    ATTRIBUTE_VALUES_MAX,
    ATTRIBUTES_AND_CAPACITIES_MAX,
    COUNTER_CONSUMPTIONS_MAX,
    COUNTER_SETS_MAX,
    COUNTERS_PER_CONSUMPTION_MAX,
    COUNTERS_PER_SET_MAX,
    LIST_ATTRIBUTE_FIELDS,
    POOL_NAME_MAX,
    SCALAR_ATTRIBUTE_FIELDS,
    device_go_type,
    device_paths,
    devices_max,
    devices_short_circuit,
    kept,
    key_in_path,
    qualified_name_problems,
    validated_devices,
)

SLICE = ["ResourceSlice"]
_COMMON = dict(severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.31", None))

# semver.org 2.0.0, as github.com/blang/semver/v4 parses it (no leading "v", no leading zeros).
_NUM = r"(?:0|[1-9][0-9]*)"
_IDENT = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
# A pattern string, compiled by `re` on first use, not at import: only ResourceSlices with version
# attributes need it.
_SEMVER = rf"{_NUM}\.{_NUM}\.{_NUM}(?:-{_IDENT}(?:\.{_IDENT})*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"


def _too_many(doc, report, api, src, count, limit, what, why=""):
    etype = too_many_type(doc)
    report(api, f"{what} has {count} entries; at most {limit} are allowed{why}", error_type=etype, locate=src, at_key=True)


@rule("DRA561", "slice-driver-name", **_COMMON, needs=("spec.driver",))
def driver(doc, report):
    """`spec.driver` must be a driver name: a DNS subdomain of at most 63 characters.

    Invalid: `driver: GPU_Driver`. Valid: `driver: gpu.example.com`.

    Upstream: `validateResourceSliceSpec` (pkg/apis/resource/validation/validation.go).
    """
    value = doc.get("spec", "driver", type=str)
    if value is None:
        return
    for etype, msg in driver_name_error_types(value):
        report(("spec", "driver"), f"driver '{value}' is invalid: {msg}", error_type=etype)


@rule("DRA562", "slice-pool", **_COMMON, needs=("spec.pool",))
def pool(doc, report):
    """`spec.pool`: a name of DNS subdomains joined by `/` (at most 253 characters), `resourceSliceCount` > 0, `generation` >= 0.

    Invalid: `pool: {name: "", generation: -1, resourceSliceCount: 0}`.
    Valid: `pool: {name: node-1/gpus, generation: 0, resourceSliceCount: 1}`.

    Upstream: `validatePoolName`, `validateResourcePool` (pkg/apis/resource/validation/validation.go).
    """
    data = doc.get("spec", "pool", type=dict)
    if data is None:
        return
    base = ("spec", "pool")
    name = data.get("name")
    if isinstance(name, str):
        if not name:
            report(base + ("name",), "the pool name is required", error_type="Required", at_key=True)
        else:
            # validatePoolName: TooLong, and every part between '/' checked besides (each error reported).
            if len(name) > POOL_NAME_MAX:
                report(base + ("name",), f"the pool name must be no more than {POOL_NAME_MAX} characters", error_type="TooLong")
            for part in name.split("/"):
                for msg in dns1123_subdomain(part) if part else ["each part between '/' must be non-empty"]:
                    report(base + ("name",), f"pool name '{name}' is invalid: {msg}", error_type="Invalid")
    count = data.get("resourceSliceCount")
    if isinstance(count, int) and not isinstance(count, bool) and count <= 0:
        report(base + ("resourceSliceCount",), f"resourceSliceCount must be greater than zero, not {count}", error_type="Invalid")
    generation = data.get("generation")
    if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
        report(base + ("generation",), f"generation must not be negative, not {generation}", error_type="Invalid")


def _node_selection(doc) -> list[str]:
    spec = doc.get("spec", type=dict) or {}
    chosen = [f for f in ("nodeName", "nodeSelector") if spec.get(f) not in (None, "")]
    if spec.get("allNodes") is True:
        chosen.append("allNodes")
    if doc.release_tuple >= (1, 33) and spec.get("perDeviceNodeSelection") is True and kept(doc, "ResourceSliceSpec", spec, "perDeviceNodeSelection"):
        chosen.append("perDeviceNodeSelection")
    return chosen


@rule("DRA563", "slice-node-selection", **_COMMON, needs=("spec",))
def node_selection(doc, report):
    """Exactly one of `nodeName`, `nodeSelector`, `allNodes: true` (and from 1.33 `perDeviceNodeSelection: true`).

    As validateResourceSliceSpec checks them: `nodeName` must be a node name
    (DNS subdomain), not `""`; `allNodes` and `perDeviceNodeSelection` unset or
    true, never `false` (Invalid at the field); `nodeSelector` a valid node
    selector with exactly one term. None set is Required at `spec`, several
    Invalid at `spec`.

    Invalid: both `nodeName: node-1` and `allNodes: true`; `allNodes: false`.
    Valid: `nodeName: node-1` alone.

    Upstream: `validateNodeName`, `validateResourceSliceSpec` (pkg/apis/resource/validation/validation.go).
    """
    spec = doc.get("spec", type=dict)
    if spec is None:
        return
    options = "nodeName, nodeSelector, allNodes" + (", perDeviceNodeSelection" if doc.release_tuple >= (1, 33) else "")
    chosen = _node_selection(doc)
    if not chosen:
        report(("spec",), f"exactly one of {options} is required", error_type="Required", at_key=True)
    elif len(chosen) > 1:
        report(("spec",), f"exactly one of {options} is required, but {', '.join(chosen)} are set", error_type="Invalid", at_key=True)
    name = spec.get("nodeName")
    pointers = doc.release_tuple >= (1, 33)  # before, nodeName and allNodes were plain values: "" and false meant unset
    if name == "" and pointers:
        report(("spec", "nodeName"), "nodeName must be either unset or set to a non-empty string", error_type="Invalid")
    elif isinstance(name, str) and name:
        errs = dns1123_subdomain(name)
        if errs:
            report(("spec", "nodeName"), f"node name '{name}' is invalid: {errs[0]}", error_type="Invalid")
    flags = [("allNodes", spec.get("allNodes"))] if pointers else []
    if pointers:
        flags.append(("perDeviceNodeSelection", kept(doc, "ResourceSliceSpec", spec, "perDeviceNodeSelection")))
    for field, value in flags:
        if value is False:
            report(("spec", field), f"{field} must be either unset or set to true", error_type="Invalid")
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        _check_selector(report, selector, ("spec", "nodeSelector"), ("spec", "nodeSelector"))


def _check_selector(report, selector, api, src, *, one_term: bool = True):
    """A node selector; `one_term`: the slice-level one must have exactly one term (a device's
    may have several up to 1.37: 1.38 restricts those too)."""
    for api_path, src_path, etype, msg in node_selector_problems(selector, api, src):
        report(api_path, f"{msg}", error_type=etype, locate=src_path, at_key=etype == "Required")
    terms = selector.get("nodeSelectorTerms")
    count = len(terms) if isinstance(terms, list) else 0 if terms is None else 1
    if one_term and count != 1:
        report(api + ("nodeSelectorTerms",), f"must have exactly one node selector term, not {count}", error_type="Invalid", locate=src + ("nodeSelectorTerms",), at_key=True)


@rule("DRA564", "slice-too-many-devices", **_COMMON, needs=("spec.devices",))
def too_many_devices(doc, report):
    """At most 128 devices per slice; from 1.35 at most 64 when a device has taints or consumes counters, and from 1.36 also when it has list attributes.

    Only devices the server keeps count (a gated field that is dropped does not lower the limit).
    From 1.35 a slice over its limit is only TooMany: validateSet checks none of its devices.

    Invalid: 129 devices without taints or counters. Valid: 128.

    Upstream: `validateResourceSliceSpec` (pkg/apis/resource/validation/validation.go).
    """
    seq = doc.get("spec", "devices", type=list)
    if seq is None:
        return
    limit, why = devices_max(doc)
    if len(seq) > limit:
        _too_many(doc, report, ("spec", "devices"), ("spec", "devices"), len(seq), limit, "spec.devices", why)


@rule("DRA565", "slice-device-name", **_COMMON, needs=("spec.devices",))
def device_names(doc, report):
    """Device names must be DNS labels (validateDeviceName), unique in the slice (validateSet: Duplicate at `D` from 1.35, `D.name` before).

    Invalid: two devices named `gpu-0`, or a device named `GPU_0`.
    Valid: devices named `gpu-0` and `gpu-1`.

    Upstream: `validateDevice`, `validateResourceSliceSpec` (pkg/apis/resource/validation/validation.go).
    """
    if devices_short_circuit(doc):
        return
    seen: set[str] = set()
    for i, dev in enumerate(doc.get("spec", "devices", type=list, default=[])):
        if not isinstance(dev, dict) or not isinstance(dev.get("name"), str):
            continue
        name, path = dev["name"], ("spec", "devices", i, "name")
        errs = dns1123_label(name)
        if errs:
            report(path, f"device name '{name}' is invalid: {errs[0]}", error_type="Invalid", at_key=not name)
        if name in seen:
            report(duplicate_path(doc, ("spec", "devices", i), "name"), f"device name '{name}' is used twice", error_type="Duplicate", locate=path)
        seen.add(name)


@rule("DRA566", "slice-attribute", **_COMMON, needs=device_paths("attributes"))
def attributes(doc, report):
    """Device attributes as validateDevice and validateDeviceAttribute check them: qualified names, exactly one value each, strings and versions of at most 64 characters, versions semver 2.0.0.

    A malformed name is reported at `D.attributes` (the map: the server has no
    path for a key). From 1.36 (DRAListTypeAttributes) an attribute may hold a
    list (`ints`, `bools`, `strings`, `versions`): never empty (Invalid), each
    entry checked as a scalar would be, and a device may hold at most 48 values
    in all its attributes (numEntriesDeviceAttribute: Invalid at `D`).

    Invalid: `attributes: {model: {string: a100, int: 3}}`, `{driverVersion: {version: v1.2}}`, `{peers: {ints: []}}`.
    Valid: `attributes: {model: {string: a100}, driverVersion: {version: 1.2.0}}`.

    Upstream: `validateCIdentifier`, `validateDevice`, `validateDeviceAttribute`, `validateDeviceAttributeStringValue`, `validateDeviceAttributeVersionValue`, `validateQualifiedName` (pkg/apis/resource/validation/validation.go).
    """
    for shape in validated_devices(doc):
        attrs = shape.fields.get("attributes")
        if not isinstance(attrs, dict):
            continue
        total = 0
        for key, attr in attrs.items():
            api = shape.api + ("attributes", MapKey(key_in_path(key)))
            src = shape.src + ("attributes", MapKey(key))
            for etype, msg in qualified_name_problems(doc, str(key)):
                report(shape.api + ("attributes",), f"attribute name '{key}' is invalid: {msg}", error_type=etype, locate=src, at_key=True)
            if not isinstance(attr, dict):
                total += 1
                continue
            set_fields = [f for f in SCALAR_ATTRIBUTE_FIELDS if attr.get(f) is not None]
            lists = [f for f in LIST_ATTRIBUTE_FIELDS if isinstance(kept(doc, "DeviceAttribute", attr, f), list)] if doc.release_tuple >= (1, 36) else []
            set_fields += lists
            entries = sum(len(attr[f]) for f in lists)
            total += entries or 1
            if not set_fields:
                etype = "Invalid" if doc.release_tuple >= (1, 35) else "Required"
                report(api, f"attribute '{key}': exactly one value must be specified", error_type=etype, locate=src, at_key=True)
            elif len(set_fields) > 1:
                report(api, f"attribute '{key}': exactly one value must be specified, not {', '.join(set_fields)}", error_type="Invalid", locate=src, at_key=True)
            for f in set_fields:
                values = attr[f] if f in LIST_ATTRIBUTE_FIELDS else [attr[f]]
                if not values:
                    report(api + (f,), f"{f} must not be empty if specified", error_type="Invalid", locate=src + (f,))
                for n, value in enumerate(values):
                    where = (f, n) if f in LIST_ATTRIBUTE_FIELDS else (f,)
                    _check_value(report, f.rstrip("s"), value, api + where, src + where)
        if doc.release_tuple >= (1, 36) and total > ATTRIBUTE_VALUES_MAX:
            report(shape.api, f"the device's attributes hold {total} values; the total number of attribute values must not exceed {ATTRIBUTE_VALUES_MAX}", error_type="Invalid", locate=shape.at("attributes")[1], at_key=True)


def _check_value(report, kind, value, api, src):
    """validateDeviceAttributeStringValue / validateDeviceAttributeVersionValue."""
    if kind not in ("string", "version") or not isinstance(value, str):
        return
    if kind == "version" and not re.fullmatch(_SEMVER, value):
        report(api, f"'{value}' is not a semantic version (semver.org 2.0.0, e.g. 1.2.3)", error_type="Invalid", locate=src)
    if len(value) > ATTRIBUTE_VALUE_MAX_LENGTH:
        report(api, f"a {kind} attribute value must be no more than {ATTRIBUTE_VALUE_MAX_LENGTH} characters", error_type="TooLong", locate=src)


@rule("DRA567", "slice-capacity", **_COMMON, needs=device_paths("attributes", "capacity"))
def capacity(doc, report):
    """Capacity names are qualified names like attribute names (reported at `D.capacity`); attributes and capacities together at most 32 per device (Invalid at `D`).

    Invalid: a device with 20 attributes and 13 capacities. Valid: 20 attributes and 12 capacities.

    Upstream: `validateCIdentifier`, `validateInt64Range`, `validateQualifiedName` (pkg/apis/resource/validation/validation.go).
    """
    for shape in validated_devices(doc):
        attrs = shape.fields.get("attributes")
        caps = shape.fields.get("capacity")
        n = (len(attrs) if isinstance(attrs, dict) else 0) + (len(caps) if isinstance(caps, dict) else 0)
        if n > ATTRIBUTES_AND_CAPACITIES_MAX:
            report(shape.api, f"the device has {n} attributes and capacities; the total must not exceed {ATTRIBUTES_AND_CAPACITIES_MAX}", error_type="Invalid", locate=shape.src, at_key=True)
        if isinstance(caps, dict):
            for key in caps:
                src = shape.at("capacity", MapKey(key))[1]
                for etype, msg in qualified_name_problems(doc, str(key)):
                    report(shape.api + ("capacity",), f"capacity name '{key}' is invalid: {msg}", error_type=etype, locate=src, at_key=True)


def _short_circuits(doc) -> bool:
    """validateSet and validateSlice stop at a list over its size from 1.35: only TooMany, no entry checked
    (dra-api-rules.md §13 places the change in 1.35)."""
    return doc.release_tuple >= (1, 35)


def _counters(doc, report, counters, api, src, limit):
    """validateCounterSet / validateDeviceCounterConsumption's counters: a name error is at the map (validateMap has no key path)."""
    if not isinstance(counters, dict):
        return
    if not counters:
        report(api, "at least one counter is required", error_type="Required", locate=src, at_key=True)
    if len(counters) > limit:
        _too_many(doc, report, api, src, len(counters), limit, "counters")
    for key in counters:
        errs = dns1123_label(str(key))
        if errs:
            report(api, f"counter name '{key}' is invalid: {errs[0]}", error_type="Invalid", locate=src + (MapKey(key),), at_key=True)


@rule("DRA568", "slice-shared-counters", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.33", None), needs=("spec.sharedCounters",))
def shared_counters(doc, report):
    """`spec.sharedCounters` (DRAPartitionableDevices) as validateCounterSet checks it: at most 8 counter sets with unique DNS-label names, each with 1 to 32 counters named by DNS labels.

    From 1.35 a slice lists either devices or shared counters, not both
    (Invalid at `spec`), and more than 8 sets is only TooMany (no set is checked).

    Invalid: two counter sets named `gpu-0-counters`.
    Valid: `sharedCounters: [{name: gpu-0-counters, counters: {memory: {value: 40Gi}}}]`.

    Upstream: `validateCounterSet`, `validateInt64Range`, `validateResourceSliceSpec` (pkg/apis/resource/validation/validation.go).
    """
    spec = doc.get("spec", type=dict)
    seq = kept(doc, "ResourceSliceSpec", spec, "sharedCounters")
    if not isinstance(seq, list):
        return
    if doc.release_tuple >= (1, 35) and spec.get("devices") is not None:
        report(("spec",), "only one of devices and sharedCounters may be set: put the counter sets in a slice of their own", error_type="Invalid", at_key=True)
    base = ("spec", "sharedCounters")
    if len(seq) > COUNTER_SETS_MAX:
        _too_many(doc, report, base, base, len(seq), COUNTER_SETS_MAX, "spec.sharedCounters")
        if _short_circuits(doc):
            return
    seen: set[str] = set()
    for i, cs in enumerate(seq):
        if not isinstance(cs, dict):
            continue
        name = cs.get("name")
        if isinstance(name, str):
            if not name:
                report(base + (i, "name"), "a counter set name is required", error_type="Required", at_key=True)
            elif dns1123_label(name):
                report(base + (i, "name"), f"counter set name '{name}' is invalid: {dns1123_label(name)[0]}", error_type="Invalid")
            if name in seen:
                report(duplicate_path(doc, base + (i,), "name"), f"counter set name '{name}' is used twice", error_type="Duplicate", locate=base + (i, "name"))
            seen.add(name)
        _counters(doc, report, cs.get("counters"), base + (i, "counters"), base + (i, "counters"), COUNTERS_PER_SET_MAX)


@rule("DRA569", "slice-counter-consumption", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.33", None), needs=device_paths("consumesCounters"))
def counter_consumption(doc, report):
    """A device's `consumesCounters` (DRAPartitionableDevices) as validateDeviceCounterConsumption checks it: at most 2 entries, unique DNS-label `counterSet`s, 1 to 32 counters each.

    From 1.35 more than 2 entries is only TooMany (no entry is checked).

    Invalid: `consumesCounters: [{counterSet: a, counters: {}}]`.
    Valid: `consumesCounters: [{counterSet: a, counters: {memory: {value: 10Gi}}}]`.

    Upstream: `validateDevice`, `validateDeviceCounterConsumption`, `validateInt64Range` (pkg/apis/resource/validation/validation.go).
    """
    go_type = device_go_type(doc)
    for shape in validated_devices(doc):
        seq = kept(doc, go_type, shape.fields, "consumesCounters")
        if not isinstance(seq, list):
            continue
        api, src = shape.at("consumesCounters")
        if len(seq) > COUNTER_CONSUMPTIONS_MAX:
            _too_many(doc, report, api, src, len(seq), COUNTER_CONSUMPTIONS_MAX, "consumesCounters")
            if _short_circuits(doc):
                continue
        seen: set[str] = set()
        for j, cc in enumerate(seq):
            if not isinstance(cc, dict):
                continue
            name = cc.get("counterSet")
            if isinstance(name, str):
                if not name:
                    report(api + (j, "counterSet"), "counterSet is required", error_type="Required", locate=src + (j, "counterSet"), at_key=True)
                elif dns1123_label(name):
                    report(api + (j, "counterSet"), f"counterSet '{name}' is invalid: {dns1123_label(name)[0]}", error_type="Invalid", locate=src + (j, "counterSet"))
                if name in seen:
                    report(duplicate_path(doc, api + (j,), "counterSet"), f"counterSet '{name}' is consumed twice", error_type="Duplicate", locate=src + (j, "counterSet"))
                seen.add(name)
            _counters(doc, report, cc.get("counters"), api + (j, "counters"), src + (j, "counters"), COUNTERS_PER_CONSUMPTION_MAX)


_DEVICE_NODE_FIELDS = ("nodeName", "nodeSelector", "allNodes")


@rule("DRA571", "slice-device-node-selection", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.33", None), needs=("spec.perDeviceNodeSelection", *device_paths("nodeName", "nodeSelector", "allNodes")))
def device_node_selection(doc, report):
    """With `perDeviceNodeSelection: true` every device sets exactly one of `nodeName`, `nodeSelector`, `allNodes`; without it none may (validateDevice).

    With it, a device's `nodeName: ""` is Invalid ("must not be empty") and
    `allNodes: false` Invalid, and neither counts as set (none set: Required
    at `D`, several: Invalid at `D`). Without it, any of the three, even
    empty or false, is one Invalid at `D`.

    Invalid: `perDeviceNodeSelection: true` and a device with neither.
    Valid: `perDeviceNodeSelection: true` and every device with `nodeName: node-1`.

    Upstream: `validateDevice`, `validateNodeName` (pkg/apis/resource/validation/validation.go).
    """
    spec = doc.get("spec", type=dict) or {}
    per_device = kept(doc, "ResourceSliceSpec", spec, "perDeviceNodeSelection") is True
    go_type = device_go_type(doc)
    for shape in validated_devices(doc):
        values = {f: kept(doc, go_type, shape.fields, f) for f in _DEVICE_NODE_FIELDS}
        if not per_device:
            present = [f for f, v in values.items() if v is not None]
            if present:
                report(shape.api, f"nodeName, nodeSelector and allNodes can only be set if spec.perDeviceNodeSelection is true, but {', '.join(present)} is set", error_type="Invalid", locate=shape.at(present[0])[1], at_key=True)
            continue
        chosen = [f for f in ("nodeName", "nodeSelector") if values[f] not in (None, "")]
        if values["allNodes"] is True:
            chosen.append("allNodes")
        if values["nodeName"] == "":
            api, src = shape.at("nodeName")
            report(api, "nodeName must not be empty", error_type="Invalid", locate=src)
        if values["allNodes"] is False:
            api, src = shape.at("allNodes")
            report(api, "allNodes must be either unset or set to true", error_type="Invalid", locate=src)
        if not chosen:
            report(shape.api, "exactly one of nodeName, nodeSelector, allNodes is required when spec.perDeviceNodeSelection is true", error_type="Required", locate=shape.src, at_key=True)
        elif len(chosen) > 1:
            report(shape.api, f"exactly one of nodeName, nodeSelector, allNodes is required, but {', '.join(chosen)} are set", error_type="Invalid", locate=shape.src, at_key=True)
        if isinstance(values["nodeName"], str) and values["nodeName"]:
            errs = dns1123_subdomain(values["nodeName"])
            if errs:
                api, src = shape.at("nodeName")
                report(api, f"node name '{values['nodeName']}' is invalid: {errs[0]}", error_type="Invalid", locate=src)
        if isinstance(values["nodeSelector"], dict):
            api, src = shape.at("nodeSelector")
            # One term per device from 1.38 (kubernetes#141213), as the slice-level selector always had.
            _check_selector(report, values["nodeSelector"], api, src, one_term=doc.release_tuple >= (1, 38))


SKIP_NODE_OPERATIONS = ("NodePrepareResources", "NodeUnprepareResources", "*")


@rule("DRA575", "slice-skip-node-operations", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.37", None), needs=("spec.skipNodeOperations",))
def skip_node_operations(doc, report):
    """`spec.skipNodeOperations` (1.37, DRAOptionalNodeOperations): a set of `NodePrepareResources`, `NodeUnprepareResources` or `*`.

    Unknown values are NotSupported, repeated ones Duplicate; skipping
    NodePrepareResources needs NodeUnprepareResources (or `*`) as well (Invalid).

    Invalid: `skipNodeOperations: [NodePrepareResources]`.
    Valid: `skipNodeOperations: [NodePrepareResources, NodeUnprepareResources]`.

    Upstream: `validateSkipNodeOperations` (pkg/apis/resource/validation/validation.go).
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
            report(base + (i,), f"'{value}' is not supported: use {', '.join(SKIP_NODE_OPERATIONS)}", error_type="NotSupported", replace_with=list(SKIP_NODE_OPERATIONS))
        elif value in seen:
            report(base + (i,), f"'{value}' is listed twice", error_type="Duplicate")
        seen.add(value)
    if "NodePrepareResources" in seen and not seen & {"NodeUnprepareResources", "*"}:
        report(base, "NodePrepareResources can only be skipped together with NodeUnprepareResources (or use '*')", error_type="Invalid", at_key=True)
