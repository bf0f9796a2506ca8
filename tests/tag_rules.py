"""Which dralint rule covers each enforced `+k8s:` validation tag of the Go API types.

Keys are (Go type, JSON field, tag) as tests/k8s_tags.py normalises them (lifecycle
prefix removed; `""` field for a tag on the type itself, e.g. `+k8s:enum`). A value is
the rule codes that report what the tag makes the API server report, optionally
limited to releases: `Covered("DRA303")` or `Covered("DRA575", since="1.37")`.

A tag that is new in a release fails tests/test_tag_coverage.py until it has a row
here — and the row names a rule that exists and runs at that release.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Covered(NamedTuple):
    rules: tuple[str, ...]
    since: str | None = None  # first release the row holds for (inclusive)
    until: str | None = None  # last release the row holds for (inclusive)


def covered(*rules: str, since: str | None = None, until: str | None = None) -> Covered:
    return Covered(rules, since, until)


# Tags that make no API-server error on a create, with the reason.
NOT_AN_ERROR_ON_CREATE: dict[str, str] = {
    r"optional": "marks a field optional: no error, only stops further checks of an absent value",
    r"ifEnabled\([A-Za-z]+\)=optional": "the same, while the gate is on",
    r"subfield\(name\)=optional": "the same, for metadata.name",
    r"listType=atomic": "a list replaced as a whole on apply: no validation",
    r"listMapKey=.*": "names the key of a list map; the uniqueness is the `unique=map`/`listType=map` row",
    r"immutable": "an update rule: dralint judges creates",
    r"update=NoModify": "an update rule: dralint judges creates",
}

_NAME_FORMAT = "format=k8s-short-name"

COVERAGE: dict[tuple[str, str, str], Covered] = {
    # --- claims and templates (dra-api-rules.md §5) ---
    ("DeviceClaim", "requests", "maxItems=32"): covered("DRA303"),
    ("DeviceClaim", "requests", "unique=map"): covered("DRA302"),
    ("DeviceClaim", "constraints", "maxItems=32"): covered("DRA501"),
    ("DeviceClaim", "config", "maxItems=32"): covered("DRA521"),
    ("DeviceConstraint", "requests", "maxItems=32"): covered("DRA502"),
    ("DeviceConstraint", "requests", "unique=set"): covered("DRA503"),
    ("DeviceConstraint", "matchAttribute", "format=k8s-resource-fully-qualified-name"): covered("DRA507"),
    ("DeviceConstraint", "distinctAttribute", "format=k8s-resource-fully-qualified-name"): covered("DRA507", since="1.37"),
    ("DeviceClaimConfiguration", "requests", "maxItems=32"): covered("DRA522"),
    ("DeviceClaimConfiguration", "requests", "unique=set"): covered("DRA523"),
    ("DeviceRequest", "firstAvailable", "maxItems=8"): covered("DRA308"),
    ("DeviceRequest", "firstAvailable", "unique=map"): covered("DRA310"),
    ("DeviceRequest", "selectors", "maxItems=32"): covered("DRA311"),
    ("ExactDeviceRequest", "selectors", "maxItems=32"): covered("DRA311"),
    ("DeviceSubRequest", "selectors", "maxItems=32"): covered("DRA311"),
    ("DeviceSubRequest", "deviceClassName", "required"): covered("DRA306"),
    ("DeviceSubRequest", "deviceClassName", "format=k8s-long-name"): covered("DRA307"),
    ("DeviceAllocationMode", "", "enum"): covered("DRA313"),
    ("DeviceToleration", "key", "format=k8s-label-key"): covered("DRA315"),
    ("DeviceTolerationOperator", "", "enum"): covered("DRA316"),
    ("OpaqueDeviceConfiguration", "driver", "required"): covered("DRA527"),
    ("OpaqueDeviceConfiguration", "driver", "format=k8s-long-name-caseless"): covered("DRA527"),
    ("OpaqueDeviceConfiguration", "driver", "maxLength=63"): covered("DRA527"),
    # derived attributes (1.37+, DRADerivedAttributes; rules/derived_attributes.py)
    **{(t, "derivedAttributes", "maxItems=32"): covered("DRA321", since="1.37") for t in ("DeviceRequest", "ExactDeviceRequest", "DeviceSubRequest")},
    ("DeviceDerivedAttribute", "name", "required"): covered("DRA322", since="1.37"),
    ("DeviceDerivedAttribute", "name", "format=k8s-resource-fully-qualified-name"): covered("DRA322", since="1.37"),
    ("DeviceDerivedAttribute", "expression", "required"): covered("DRA323", since="1.37"),
    # --- DeviceClass (§6) ---
    ("DeviceClass", "metadata", "subfield(name)=format=k8s-long-name"): covered("DRA202"),
    ("DeviceClassSpec", "selectors", "maxItems=32"): covered("DRA311"),
    ("DeviceClassSpec", "config", "maxItems=32"): covered("DRA521"),
    ("DeviceClassSpec", "extendedResourceName", "format=k8s-extended-resource-name"): covered("DRA552"),
    # --- claim status (§8): written through /status, reported as warnings ---
    ("ResourceClaimStatus", "reservedFor", "maxItems=256"): covered("DRA601"),
    ("ResourceClaimStatus", "reservedFor", "listType=map"): covered("DRA601"),
    ("ResourceClaimStatus", "devices", "listType=map"): covered("DRA603"),
    ("DeviceAllocationResult", "results", "maxItems=32"): covered("DRA602"),
    ("DeviceAllocationResult", "config", "maxItems=64"): covered("DRA602"),
    ("DeviceAllocationConfiguration", "source", "required"): covered("DRA602"),
    ("DeviceAllocationConfiguration", "requests", "maxItems=32"): covered("DRA602"),
    ("DeviceAllocationConfiguration", "requests", "unique=set"): covered("DRA602"),
    ("AllocationConfigSource", "", "enum"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "driver", "required"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "driver", "format=k8s-long-name-caseless"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "driver", "maxLength=63"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "pool", "required"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "pool", "format=k8s-resource-pool-name"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "shareID", "format=k8s-uuid"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "bindingConditions", "maxItems=4"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "bindingFailureConditions", "maxItems=4"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "tolerations", "maxItems=16"): covered("DRA602"),
    ("DeviceRequestAllocationResult", "skipNodeOperations", "listType=set"): covered("DRA602"),
    ("AllocatedDeviceStatus", "shareID", "format=k8s-uuid"): covered("DRA603"),
    ("NetworkDeviceData", "interfaceName", "maxLength=256"): covered("DRA603"),
    ("NetworkDeviceData", "interfaceName", "maxBytes=256"): covered("DRA603"),
    ("NetworkDeviceData", "hardwareAddress", "maxLength=128"): covered("DRA603"),
    ("NetworkDeviceData", "hardwareAddress", "maxBytes=128"): covered("DRA603"),
    ("NetworkDeviceData", "ips", "maxItems=16"): covered("DRA603"),
    ("NetworkDeviceData", "ips", "unique=set"): covered("DRA603"),
    # --- ResourceSlice (§12; 1.36+ from the Go types) ---
    ("ResourceSliceSpec", "sharedCounters", "maxItems=8"): covered("DRA568"),
    ("ResourceSliceSpec", "sharedCounters", "unique=map"): covered("DRA568"),
    ("CounterSet", "name", "required"): covered("DRA568"),
    ("CounterSet", "name", _NAME_FORMAT): covered("DRA568"),
    ("CounterSet", "counters", "required"): covered("DRA568"),
    ("CounterSet", "counters", f"eachKey={_NAME_FORMAT}"): covered("DRA568"),
    ("Device", "consumesCounters", "maxItems=2"): covered("DRA569"),
    ("Device", "consumesCounters", "unique=map"): covered("DRA569"),
    ("BasicDevice", "consumesCounters", "maxItems=2"): covered("DRA569"),
    ("BasicDevice", "consumesCounters", "unique=map"): covered("DRA569"),
    ("DeviceCounterConsumption", "counterSet", "required"): covered("DRA569"),
    ("DeviceCounterConsumption", "counterSet", _NAME_FORMAT): covered("DRA569"),
    ("DeviceCounterConsumption", "counters", "required"): covered("DRA569"),
    ("DeviceCounterConsumption", "counters", f"eachKey={_NAME_FORMAT}"): covered("DRA569"),
    ("DeviceCounterConsumption", "compatibilityGroups", "maxItems=2"): covered("DRA590", since="1.37"),
    ("DeviceCounterConsumption", "compatibilityGroups", "unique=set"): covered("DRA590", since="1.37"),
    ("DeviceCounterConsumption", "compatibilityGroups", f"eachVal={_NAME_FORMAT}"): covered("DRA590", since="1.37"),
    ("Device", "bindingConditions", "maxItems=4"): covered("DRA570"),
    ("Device", "bindingFailureConditions", "maxItems=4"): covered("DRA570"),
    ("BasicDevice", "bindingConditions", "maxItems=4"): covered("DRA570"),
    ("BasicDevice", "bindingFailureConditions", "maxItems=4"): covered("DRA570"),
    **{("DeviceAttribute", f, "unionMember"): covered("DRA566") for f in ("int", "bool", "string", "version")},
    **{("DeviceAttribute", f, "unionMember"): covered("DRA566", since="1.36") for f in ("ints", "bools", "strings", "versions")},
    ("NodeAllocatableMapping", "capacityKey", "unionMember"): covered("DRA574", since="1.37"),
    ("NodeAllocatableMapping", "deviceMultiplier", "unionMember"): covered("DRA574", since="1.37"),
    ("ResourceSliceSpec", "partitionTypeAttribute", "ifEnabled(DRAPartitionableDevicesType)=format=k8s-resource-fully-qualified-name"): covered("DRA572", since="1.37"),
    # With the gate off the field is dropped on create before validation (its +featureGate): DRA801 says so.
    ("ResourceSliceSpec", "partitionTypeAttribute", "ifDisabled(DRAPartitionableDevicesType)=forbidden"): covered("DRA801", since="1.37"),
    ("ResourceSliceSpec", "skipNodeOperations", "listType=set"): covered("DRA575", since="1.37"),
    ("SkipNodeOperation", "", "enum"): covered("DRA575", "DRA602", since="1.37"),
    # --- ResourcePoolStatusRequest (v1alpha3, 1.36+) ---
    ("ResourcePoolStatusRequestSpec", "driver", "required"): covered("DRA583"),
    ("ResourcePoolStatusRequestSpec", "driver", "format=k8s-long-name-caseless"): covered("DRA583"),
    ("ResourcePoolStatusRequestSpec", "poolName", "format=k8s-resource-pool-name"): covered("DRA583"),
    ("ResourcePoolStatusRequestSpec", "limit", "minimum=1"): covered("DRA583"),
    ("ResourcePoolStatusRequestSpec", "limit", "maximum=1000"): covered("DRA583"),
    ("ResourcePoolStatusRequestSpec", "defaultPartitionTypeAttribute",
     "ifEnabled(DRAPartitionableDevicesType)=format=k8s-resource-fully-qualified-name"): covered("DRA583", since="1.37"),
    # Not dropped by this kind's strategy: the enforced declarative tag makes it Forbidden.
    ("ResourcePoolStatusRequestSpec", "defaultPartitionTypeAttribute", "ifDisabled(DRAPartitionableDevicesType)=forbidden"): covered("DRA583", since="1.37"),
    # --- device taints: ResourceSlice devices and DeviceTaintRule ---
    ("DeviceTaint", "effect", "required"): covered("DRA573", "DRA581"),
    ("DeviceTaintEffect", "", "enum"): covered("DRA573", "DRA581", "DRA318"),
}


def exempt(tag: str) -> str | None:
    """Why a tag needs no rule, or None."""
    return next((why for pattern, why in NOT_AN_ERROR_ON_CREATE.items() if re.fullmatch(pattern, tag)), None)
