"""ResourceSlice devices: binding conditions, consumable capacity, node-allocatable
resources and the partition type attribute, as the API server's handwritten
validation (pkg/apis/resource/validation/validation.go) checks them.

Paths follow the server: `D` = `spec.devices[i]` (also for a v1beta1 slice from
1.33, whose fields sit under `D.basic` in the YAML). Fields whose feature gate is
off are dropped before validation and are not checked here (DRA801 says so).
"""

from __future__ import annotations

from dralint.api import MapKey, rule
from dralint.k8s.claims import gate_on_by_default, too_many_type
from dralint.k8s.formats import quantity_value
from dralint.k8s.names import fully_qualified_name, is_extended_resource_name, qualified_name
from dralint.k8s.resource import STRUCTURED
from dralint.k8s.slices import (
    BINDING_CONDITIONS_MAX,
    device_go_type,
    device_paths,
    devices,
    kept,
    key_in_path,
    qualified_name_problems,
    validated_devices,
)

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from decimal import Decimal
    from typing import Iterator

SLICE = ["ResourceSlice"]


def _too_many(doc, report, api, src, count, limit, what):
    etype = too_many_type(doc)
    report(api, f"{what} has {count} entries; at most {limit} are allowed", error_type=etype, locate=src, at_key=True)


@rule("DRA570", "slice-binding-conditions", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.34", None), needs=device_paths("bindingConditions", "bindingFailureConditions"))
def binding_conditions(doc, report):
    """`bindingConditions` and `bindingFailureConditions` (DRADeviceBindingConditions) as validateDeviceBindingParameters checks them.

    At most 4 each (TooMany), each a condition type (a qualified name,
    Invalid), no repeats in either list (Duplicate at the repeat), no condition
    in both (Invalid at the failure condition), and one list only with the
    other (Invalid at the missing list).

    Invalid: `bindingConditions: [ready]` without `bindingFailureConditions`.
    Valid: `bindingConditions: [ready]` with `bindingFailureConditions: [failed]`.

    Upstream: `validateDeviceBindingParameters` (pkg/apis/resource/validation/validation.go).
    """
    go_type = device_go_type(doc)
    for shape in validated_devices(doc):
        lists = {}
        for field in ("bindingConditions", "bindingFailureConditions"):
            seq = kept(doc, go_type, shape.fields, field)
            lists[field] = seq if isinstance(seq, list) else []
            api, src = shape.at(field)
            if len(lists[field]) > BINDING_CONDITIONS_MAX:
                _too_many(doc, report, api, src, len(lists[field]), BINDING_CONDITIONS_MAX, field)
                if doc.release_tuple >= (1, 35):
                    continue  # validateSlice stops at the size: no entry is checked (the repeats below are)
            for k, cond in enumerate(lists[field]):
                if isinstance(cond, str):
                    errs = qualified_name(cond)
                    if errs:
                        report(api + (k,), f"'{cond}' is not a condition type: {errs[0]}", error_type="Invalid", locate=src + (k,))
        _binding_pairs(report, shape, lists["bindingConditions"], lists["bindingFailureConditions"])


def _binding_pairs(report, shape, conditions: list, failures: list) -> None:
    for field, seq in (("bindingConditions", conditions), ("bindingFailureConditions", failures)):
        api, src = shape.at(field)
        seen: set = set()
        for k, cond in enumerate(seq):
            if not isinstance(cond, str):
                continue
            if cond in seen:
                report(api + (k,), f"'{cond}' is listed twice", error_type="Duplicate", locate=src + (k,))
            seen.add(cond)
            if field == "bindingFailureConditions" and cond in conditions:
                report(api + (k,), f"'{cond}': bindingFailureConditions must not overlap with bindingConditions", error_type="Invalid", locate=src + (k,))
    if not conditions and failures:
        api, src = shape.at("bindingConditions")
        report(api, "bindingConditions are required to use bindingFailureConditions", error_type="Invalid", locate=src, at_key=True)
    if not failures and conditions:
        api, src = shape.at("bindingFailureConditions")
        report(api, "bindingFailureConditions are required to use bindingConditions", error_type="Invalid", locate=src, at_key=True)


def _consumes_counters(doc, shape) -> bool:
    seq = kept(doc, device_go_type(doc), shape.fields, "consumesCounters")
    return isinstance(seq, list) and len(seq) > 0


@rule("DRA572", "slice-partition-type-attribute", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.37", None), needs=("spec.partitionTypeAttribute",))
def partition_type_attribute(doc, report):
    """`spec.partitionTypeAttribute` (1.37, DRAPartitionableDevicesType) as validatePartitionTypeAttribute and its format tag check it.

    It must be a fully qualified attribute name (`<domain>/<name>`); the slice
    must have a device that consumes counters (else Invalid at the field, and
    nothing more is checked); every device that consumes counters must carry
    the attribute (Required at `D.attributes[<name>]`), as a `string` value
    (Invalid). An attribute in the driver's own domain may be written bare.

    Invalid: `partitionTypeAttribute: profile`. Valid: `partitionTypeAttribute: gpu.example.com/profile`.

    Upstream: `validateFullyQualifiedName`, `validatePartitionTypeAttribute` (pkg/apis/resource/validation/validation.go).
    """
    spec = doc.get("spec", type=dict)
    value = kept(doc, "ResourceSliceSpec", spec, "partitionTypeAttribute")
    if not isinstance(value, str):
        return
    path = ("spec", "partitionTypeAttribute")
    format_errors = fully_qualified_name(value, doc.release_tuple)
    for _, etype, msg in format_errors:
        report(path, f"'{value}' is invalid: {msg}", error_type=etype)
    shapes = [s for s in devices(doc) if _consumes_counters(doc, s)]
    if not shapes:
        report(path, "may only be set on a slice which declares devices that consume counters", error_type="Invalid")
        return
    if format_errors:
        return  # no device can carry a malformed name: the server checks no further
    driver = spec.get("driver")
    bare = value[len(driver) + 1:] if isinstance(driver, str) and value.startswith(driver + "/") else value
    for shape in shapes:
        attrs = shape.fields.get("attributes")
        attrs = attrs if isinstance(attrs, dict) else {}
        found = value if value in attrs else bare if bare in attrs else None
        api = shape.api + ("attributes", MapKey(value))
        if found is None:
            src = shape.src + (("attributes",) if "attributes" in shape.fields else ())
            report(api, f"the device consumes counters and partitionTypeAttribute names '{value}', so it must set that attribute", error_type="Required", locate=src, at_key=True)
        elif not isinstance(attrs[found], dict) or attrs[found].get("string") is None:
            report(api, f"attribute '{found}' must be a string value because partitionTypeAttribute names it", error_type="Invalid", locate=shape.src + ("attributes", MapKey(found)), at_key=True)


def _node_allocatable_field(doc) -> str:
    return "nodeAllocatableResources" if doc.release_tuple >= (1, 37) else "nodeAllocatableResourceMappings"


def is_node_allocatable(name: str) -> bool:
    """core/helper IsNodeAllocatableResourceName: cpu, memory and hugepages-<size>."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


@rule("DRA574", "slice-node-allocatable-resources", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.36", None), needs=device_paths("nodeAllocatableResourceMappings", "nodeAllocatableResources"))
def node_allocatable_resources(doc, report):
    """A device's node-allocatable resources (DRANodeAllocatableResources): `nodeAllocatableResourceMappings` in 1.36, `nodeAllocatableResources` from 1.37.

    From 1.37 as validateNodeAllocatableResources checks them: keys are `cpu`,
    `memory` or `hugepages-<size>` (Invalid); each entry sets `mapping` or
    `overhead` (Required); a mapping's `capacityKey` names one of the device's
    capacities (NotFound; Invalid when empty) and needs `capacityMultiplier`
    (Required), which needs `capacityKey` (Required); the multipliers are
    positive (Invalid); a mapping sets `capacityKey` or `deviceMultiplier`, not
    both (the union tag, Invalid at `mapping`); an overhead sets `perPod` or
    `perContainer` (Invalid), neither negative. In 1.36 keys must not be
    extended resources and `capacityKey` is a capacity name.

    Invalid: `nodeAllocatableResources: {cpu: {mapping: {capacityMultiplier: "2"}}}` (1.37).
    Valid: the same with `capacityKey: cores`, a capacity of the device.

    Upstream: `validateNodeAllocatableMapping`, `validateNodeAllocatableOverheadMapping`, `validateNodeAllocatableResources` (pkg/apis/resource/validation/validation.go).
    """
    field = _node_allocatable_field(doc)
    go_type = device_go_type(doc)
    for shape in validated_devices(doc):
        entries = kept(doc, go_type, shape.fields, field)
        if not isinstance(entries, dict):
            continue
        if field == "nodeAllocatableResourceMappings":
            _mappings_1_36(doc, report, shape, entries)
            continue
        caps = shape.fields.get("capacity")
        capacities = caps if isinstance(caps, dict) else {}
        for key, entry in entries.items():
            api, src = shape.at(field, MapKey(key))
            if not is_node_allocatable(str(key)):
                report(api, f"'{key}' must be a node allocatable resource name: cpu, memory or hugepages-<size>", error_type="Invalid", locate=src, at_key=True)
            if not isinstance(entry, dict):
                continue
            mapping, overhead = entry.get("mapping"), entry.get("overhead")
            if mapping is None and overhead is None:
                report(api, "at least one of mapping or overhead must be set", error_type="Required", locate=src, at_key=True)
            if isinstance(mapping, dict):
                for suffix, etype, msg in _mapping_problems(mapping, capacities):
                    report(api + ("mapping",) + suffix, f"{msg}", error_type=etype, locate=src + ("mapping",) + suffix, at_key=etype == "Required" or not suffix)
            if isinstance(overhead, dict):
                for suffix, msg in _overhead_problems(overhead):
                    report(api + ("overhead",) + suffix, f"{msg}", error_type="Invalid", locate=src + ("overhead",) + suffix, at_key=not suffix)


def _mapping_problems(mapping: dict, capacities: dict) -> Iterator[tuple[tuple, str, str]]:
    """validateNodeAllocatableMapping and the union tag of NodeAllocatableMapping: (path suffix, error type, message)."""
    key, multiplier, per_device = (mapping.get(f) for f in ("capacityKey", "capacityMultiplier", "deviceMultiplier"))
    if key is not None:
        if key == "":
            yield ("capacityKey",), "Invalid", "capacityKey must not be an empty string"
        elif key not in capacities:
            yield ("capacityKey",), "NotFound", f"capacityKey '{key}' is not one of the device's capacities"
        if multiplier is None:
            yield ("capacityMultiplier",), "Required", "capacityMultiplier is required when capacityKey is set"
    for name, value in (("capacityMultiplier", multiplier if key is not None else None), ("deviceMultiplier", per_device)):
        number = quantity_value(value)
        if number is not None and number <= 0:
            yield (name,), "Invalid", f"{name} must be positive, not {value}"
    if multiplier is not None and key is None:
        yield ("capacityKey",), "Required", "capacityKey is required when capacityMultiplier is set"
    elif key is not None and per_device is not None:
        yield (), "Invalid", "must specify exactly one of: capacityKey, deviceMultiplier"
    elif key is None and per_device is None:
        # A lone capacityMultiplier is reported as the missing capacityKey above, as the server's handwritten check does.
        yield (), "Invalid", "must specify one of: capacityKey, deviceMultiplier"


def _overhead_problems(overhead: dict) -> Iterator[tuple[tuple, str]]:
    """validateNodeAllocatableOverheadMapping: (path suffix, message), all Invalid."""
    if overhead.get("perPod") is None and overhead.get("perContainer") is None:
        yield (), "at least one of perPod or perContainer must be set"
        return
    for name in ("perPod", "perContainer"):
        number = quantity_value(overhead.get(name))
        if number is not None and number < 0:
            yield (name,), f"{name} must be non-negative, not {overhead[name]}"


def _mappings_1_36(doc, report, shape, entries: dict) -> None:
    for key, entry in entries.items():
        api, src = shape.at("nodeAllocatableResourceMappings", MapKey(key))
        if is_extended_resource_name(str(key)):
            report(api, f"'{key}' is an extended resource name; only node-allocatable resources such as cpu or memory may be mapped", error_type="Invalid", locate=src, at_key=True)
        key_name = entry.get("capacityKey") if isinstance(entry, dict) else None
        if isinstance(key_name, str):
            for etype, msg in qualified_name_problems(doc, key_name):
                report(api + ("capacityKey",), f"capacityKey '{key_name}' is invalid: {msg}", error_type=etype, locate=src + ("capacityKey",))


@rule("DRA576", "slice-capacity-request-policy", severity="error", kinds=SLICE, api_versions=STRUCTURED, releases=("1.34", None), needs=device_paths("capacity"))
def capacity_request_policy(doc, report):
    """A capacity's `requestPolicy` (DRAConsumableCapacity) as validateRequestPolicy checks it.

    Only on a device with `allowMultipleAllocations: true` (Forbidden);
    `validValues` or `validRange`, not both (Forbidden); either needs a
    `default` (Required). `validValues`: at most 10 (TooMany), ascending, none
    above the capacity value, no repeats (Duplicate: compared as whole numbers
    rounded up, or exactly with DRAFractionalCapacityRange), and `default` one
    of them (Invalid at `validValues`). `validRange`: `min` required, `min`,
    `max` and `min + step` within the capacity value, `min <= max`, `default`
    between them (at `validRange.default` from 1.36; 1.35 reported it at `min`
    or `max`), `step` positive, and `default` and `max` a whole number of steps
    above `min`.

    Invalid: `requestPolicy: {default: 3Gi, validValues: [2Gi, 1Gi]}`.
    Valid: `requestPolicy: {default: 1Gi, validValues: [1Gi, 2Gi]}` on a capacity of 4Gi.

    Upstream: `validateInt64Range`, `validateRequestPolicy`, `validateRequestPolicyRange`, `validateRequestPolicyRangeStep`, `validateRequestPolicyValidValues`, `validateSingleAllocatableDeviceCapacity`, `validateValidRequestValues` (pkg/apis/resource/validation/validation.go).
    """
    go_type = device_go_type(doc)
    fractional = doc.release_tuple >= (1, 37) and gate_on_by_default(doc, "DRAFractionalCapacityRange")
    for shape in validated_devices(doc):
        caps = shape.fields.get("capacity")
        if not isinstance(caps, dict):
            continue
        shared = kept(doc, go_type, shape.fields, "allowMultipleAllocations") is True
        for key, cap in caps.items():
            policy = kept(doc, "DeviceCapacity", cap, "requestPolicy")
            if not isinstance(policy, dict):
                continue
            api = shape.api + ("capacity", MapKey(key_in_path(key)), "requestPolicy")
            src = shape.src + ("capacity", MapKey(key), "requestPolicy")
            if not shared:
                report(api, "allowMultipleAllocations must be true on the device to set a requestPolicy", error_type="Forbidden", locate=src, at_key=True)
                continue
            value = cap.get("value")
            capacity = quantity_value(value if value is not None else 0)
            problems = _policy_problems(policy, capacity, doc.release_tuple, fractional)
            for suffix, etype, msg in problems:
                at_key = etype in ("Required", "Forbidden") or suffix in ((), ("validValues",), ("validRange", "default"))
                locate = src + (suffix if suffix != ("validRange", "default") else ("default",))
                report(api + suffix, f"{msg}", error_type=etype, locate=locate, at_key=at_key)


VALID_VALUES_MAX = 10  # CapacityRequestPolicyDiscreteMaxOptions
_INT64_MAX = 2**63 - 1


def _policy_problems(policy: dict, capacity: Decimal | None, release: tuple[int, int], fractional: bool) -> Iterator[tuple[tuple, str, str]]:
    """validateRequestPolicy / validateValidRequestValues: (path suffix, error type, message)."""
    values, valid_range = policy.get("validValues"), policy.get("validRange")
    has_values = isinstance(values, list) and len(values) > 0
    if has_values and valid_range is not None:
        yield (), "Forbidden", 'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time'
        return
    if not has_values and valid_range is None:
        return
    which = "validValues" if has_values else "validRange"
    if policy.get("default") is None:
        yield ("default",), "Required", f"default is required when {which} is defined"
        return
    default = quantity_value(policy.get("default"))
    if default is None or capacity is None:
        return  # not a quantity: the schema check reports it
    if has_values:
        yield from _valid_values_problems(values, default, capacity, fractional)
    elif isinstance(valid_range, dict):
        yield from _range_problems(valid_range, default, capacity, release, fractional)


def _int_value(number: Decimal) -> int:
    """Quantity.Value(): the value rounded up, away from zero, to a whole number."""
    from decimal import ROUND_UP

    return int(number.to_integral_value(rounding=ROUND_UP))


def _valid_values_problems(values: list, default: Decimal, capacity: Decimal, fractional: bool) -> Iterator[tuple[tuple, str, str]]:
    """validateRequestPolicyValidValues, at `validValues`."""
    parsed = [quantity_value(v) for v in values]
    for i in range(len(parsed) - 1):
        a, b = parsed[i], parsed[i + 1]
        if a is not None and b is not None and a > b:
            yield ("validValues", i + 1), "Invalid", "values must be sorted in ascending order"
    found = False
    if len(values) > VALID_VALUES_MAX:
        # validateSet stops at the size: no option is looked at, so the default is not found either.
        yield ("validValues",), "TooMany", f"validValues has {len(values)} entries; at most {VALID_VALUES_MAX} are allowed"
    else:
        seen: set = set()
        for i, number in enumerate(parsed):
            if number is None:
                continue
            if number > capacity:
                yield ("validValues", i), "Invalid", f"option {values[i]} is larger than the capacity value {_plain(capacity)}"
            found = found or number == default
            key = number.normalize() if fractional else _int_value(number)
            if key in seen:
                unit = "" if fractional else " (compared as whole numbers)"
                yield ("validValues", i), "Duplicate", f"{values[i]} repeats an earlier value{unit}"
            seen.add(key)
    if not found:
        yield ("validValues",), "Invalid", "default value is not valid according to the requestPolicy: it must be one of validValues"


def _plain(number: Decimal) -> str:
    return format(number.normalize(), "f")


def _range_problems(valid_range: dict, default: Decimal, capacity: Decimal, release: tuple[int, int], fractional: bool) -> Iterator[tuple[tuple, str, str]]:
    """validateRequestPolicyRange, at `validRange`."""
    if valid_range.get("min") is None:
        yield ("validRange", "min"), "Required", "min is required when validRange is defined"
        return
    low, high, step = (quantity_value(valid_range.get(k)) for k in ("min", "max", "step"))
    if low is None:
        return
    new = release >= (1, 36)
    if low > capacity:
        yield ("validRange", "min"), "Invalid", f"min is larger than the capacity value {_plain(capacity)}"
    if default < low:
        yield ("validRange", "default" if new else "min"), "Invalid", f"default is less than min: {valid_range['min']}"
    if high is not None:
        if low > high:
            yield ("validRange", "max"), "Invalid", f"min is larger than max: {valid_range['max']}"
        if high > capacity:
            yield ("validRange", "max"), "Invalid", f"max is larger than the capacity value {_plain(capacity)}"
        if default > high:
            yield ("validRange", "default" if new else "max"), "Invalid", f"default is more than max: {valid_range['max']}"
    named = {"default": default, "min": low, "max": high, "step": step}
    milli = fractional and any(n is not None and n != n.to_integral_value() for n in named.values())
    if milli:
        unsafe = [(k, n) for k, n in named.items() if n is not None and (n * 1000 != (n * 1000).to_integral_value() or abs(n * 1000) > _INT64_MAX)]
        for k, _ in unsafe:
            yield ("validRange", k), "Invalid", "value cannot be represented as a milli value"
        if unsafe:
            return
    if valid_range.get("step") is None or step is None:
        return
    yield from _step_problems(named, valid_range, capacity, new, milli)


def _step_problems(named: dict, valid_range: dict, capacity: Decimal, new: bool, milli: bool) -> Iterator[tuple[tuple, str, str]]:
    low, step = named["min"], named["step"]
    if step <= 0:
        if new:
            yield ("validRange", "step"), "Invalid", "step must be greater than zero"
            return
        if step == 0:
            # 1.35 divides by the step unchecked: the request fails with a server error.
            yield ("validRange", "step"), "InternalError", "a step of zero makes the API server fail (division by zero)"
            return
    if low + step > capacity:
        yield ("validRange", "step"), "Invalid", f"one step {_plain(low + step)} is larger than the capacity value {_plain(capacity)}"
    if new and not milli:
        unsafe = False
        for k, n in named.items():
            if n is None:
                continue
            if n < 0:
                yield ("validRange", k), "Invalid", "must be greater than or equal to 0"
                unsafe = True
            elif n > _INT64_MAX:
                yield ("validRange", k), "Invalid", f"must not be larger than {_INT64_MAX}"
                unsafe = True
        if unsafe:
            return
    scale = 1000 if milli else 1
    stepv, lowv = _int_value(step * scale), _int_value(low * scale)
    for name in ("default", "max"):
        value = named[name]
        if value is not None and (_int_value(value * scale) - lowv) % stepv != 0:
            yield ("validRange", "step"), "Invalid", f"{name} is not a multiple of a given step ({valid_range['step']}) from ({valid_range['min']})"
