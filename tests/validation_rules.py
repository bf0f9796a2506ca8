"""Which dralint rule ports each error call site of the API server's handwritten validation.

Keys are (Go function, error type, field-path expression) as tests/go_validation.py
reads them from `pkg/apis/resource/validation/validation.go` (direct `field.*`
calls, and the errors of the list and name helpers it expands at their callers).
A value says what covers the site:

- `rules("DRA301")`: the rules that report what the site makes the server report;
  tests/test_validation_coverage.py checks they exist, run at the release, and that
  a fixture under tests/cases/ expects one of them with that error type at a path
  the Go expression can produce (so a row cannot point at a rule that checks
  something else);
- `SCHEMA`: the OpenAPI schema check (DRA1xx) reports it;
- `na("why")`: the site cannot be reached by creating an object from a manifest
  (update-only, status-only, unreachable), said honestly;
- `gap("why")`: a check dralint does not port yet — listed by the coverage test as
  a known gap, never counted as covered.

A call site that is new in a release fails the coverage test until it has a row here.
"""

from __future__ import annotations

from typing import NamedTuple


class Row(NamedTuple):
    rules: tuple[str, ...] = ()
    schema: bool = False
    na: str = ""
    gap: str = ""


def rules(*codes: str) -> Row:
    return Row(rules=codes)


def na(why: str) -> Row:
    return Row(na=why)


def gap(why: str) -> Row:
    return Row(gap=why)


SCHEMA = Row(schema=True)

UPDATE = na("update-only: dralint judges creates (ValidateObjectMetaUpdate / ValidateImmutableField)")
STATUS_UPDATE = na("status-only: written through /status by controllers, not by a manifest")
GENERIC = na("generic list helper: each call is a row of its caller (validateSlice/validateSet/validateMap expanded there)")

M = 'field.NewPath("metadata")'
_META_CREATE = {
    "Required": rules("DRA201"),
    "Invalid": rules("DRA202", "DRA203", "DRA204", "DRA205", "DRA206", "DRA208"),
    "TooLong": rules("DRA207"),
}


def _metadata(function: str, types: dict[str, Row] = _META_CREATE, path: str = M) -> dict[tuple[str, str, str], Row]:
    return {(function, etype, path): row for etype, row in types.items()}


def _update_meta(function: str) -> dict[tuple[str, str, str], Row]:
    return {(function, "Invalid", M): UPDATE}


_POOL = ("DRA562", "DRA582", "DRA583", "DRA602")  # validatePoolName: slices, taint selectors, pool status requests, allocation results
_CEL = ("DRA401", "DRA402", "DRA403", "DRA404")
_CONDITION_ERRORS = ("Required", "Invalid", "TooLong", "NotSupported", "Duplicate")  # metav1 ValidateConditions

COVERAGE: dict[tuple[str, str, str], Row] = {
    # --- shared name helpers ---
    ("validatePoolName", "Required", "fldPath"): rules(*_POOL),
    ("validatePoolName", "TooLong", "fldPath"): rules(*_POOL),
    ("validatePoolName", "Invalid", "fldPath"): rules(*_POOL),
    ("validateUID", "Invalid", "fldPath"): rules("DRA602", "DRA603"),
    ("validateLabelValue", "Invalid", "fldPath"): rules("DRA317", "DRA573", "DRA581"),
    # --- generic list helpers ---
    ("validateSlice", "TooMany", "fldPath"): GENERIC,
    ("validateSet", "TooMany", "fldPath"): GENERIC,
    ("validateSet", "Duplicate", "childPath"): GENERIC,
    ("validateMap", "TooMany", "fldPath"): GENERIC,
    # --- ResourceClaim ---
    **_metadata("ValidateResourceClaim"),
    **_metadata("ValidateResourceClaimUpdate", {t: UPDATE for t in _META_CREATE}),
    **_update_meta("ValidateResourceClaimUpdate"),
    ("ValidateResourceClaimUpdate", "Invalid", 'field.NewPath("spec")'): UPDATE,
    **_update_meta("ValidateResourceClaimStatusUpdate"),
    ("validateDeviceClaim", "TooMany", 'fldPath.Child("requests")'): rules("DRA303"),
    ("validateDeviceClaim", "Duplicate", 'fldPath.Child("requests")'): rules("DRA302"),
    ("validateDeviceClaim", "TooMany", 'fldPath.Child("constraints")'): rules("DRA501"),
    ("validateDeviceClaim", "TooMany", 'fldPath.Child("config")'): rules("DRA521"),
    ("validateDeviceClaim", "Forbidden", "fldPath"): rules("DRA323"),  # the claim-wide budget of derived-attribute CEL cost
    ("validateDeviceRequest", "Invalid", 'fldPath.Child("name")'): rules("DRA301"),
    ("validateDeviceRequest", "Required", "fldPath"): rules("DRA304"),
    ("validateDeviceRequest", "Invalid", "fldPath"): rules("DRA305"),
    ("validateDeviceRequest", "TooMany", 'fldPath.Child("firstAvailable")'): rules("DRA308"),
    ("validateDeviceRequest", "Duplicate", 'fldPath.Child("firstAvailable")'): rules("DRA310"),
    ("validateDeviceSubRequest", "Invalid", 'fldPath.Child("name")'): rules("DRA309"),
    ("validateDeviceAllocationMode", "Invalid", "countFldPath"): rules("DRA314"),
    ("validateDeviceAllocationMode", "NotSupported", "allocModeFldPath"): rules("DRA313"),
    ("validateDeviceClass", "Required", "fldPath"): rules("DRA306"),
    ("validateDeviceClass", "Invalid", "fldPath"): rules("DRA307"),
    ("validateSelectorSlice", "TooMany", "fldPath"): rules("DRA311"),
    ("validateSelector", "Required", 'fldPath.Child("cel")'): rules("DRA312"),
    # 1.35-1.37: the selector's own CEL check; 1.38 shares validateCELExpression with derived attributes.
    ("validateCELSelector", "TooLong", 'fldPath.Child("expression")'): rules("DRA405"),
    ("validateCELSelector", "Forbidden", 'fldPath.Child("expression")'): rules("DRA406"),
    ("validateCELExpression", "TooLong", "fldPath"): rules("DRA405", "DRA323"),
    # Two sites with one key: a selector's cost (DRA406) and a derived attribute's (DRA323).
    ("validateCELExpression", "Forbidden", "fldPath"): rules("DRA406", "DRA323"),
    ("convertCELErrorToValidationError", "Invalid", "fldPath"): rules(*_CEL, "DRA323"),
    ("convertCELErrorToValidationError", "Required", "fldPath"): na(
        "unreachable: the DRA CEL compiler (dynamic-resource-allocation/cel/compile.go) returns only Invalid and internal errors"),
    ("validateDeviceDerivedAttributes", "Duplicate", "fldPath"): rules("DRA321"),
    ("validateDeviceDerivedAttribute", "Invalid", 'fldPath.Child("name")'): rules("DRA322"),
    ("validateDeviceConstraint", "TooMany", 'fldPath.Child("requests")'): rules("DRA502"),
    ("validateDeviceConstraint", "Duplicate", 'fldPath.Child("requests")'): rules("DRA503"),
    ("validateDeviceConstraint", "Required", "fldPath"): rules("DRA506"),
    ("validateDeviceConstraint", "Required", 'fldPath.Child("matchAttribute")'): rules("DRA506"),
    ("validateDeviceClaimConfiguration", "TooMany", 'fldPath.Child("requests")'): rules("DRA522"),
    ("validateDeviceClaimConfiguration", "Duplicate", 'fldPath.Child("requests")'): rules("DRA523"),
    ("validateRequestNameRef", "Invalid", "fldPath"): rules("DRA504", "DRA505", "DRA524", "DRA525", "DRA602"),
    ("validateDeviceConfiguration", "Required", 'fldPath.Child("opaque")'): rules("DRA526"),
    ("validateOpaqueConfiguration", "Required", 'fldPath.Child("driver")'): rules("DRA527"),
    ("validateOpaqueConfiguration", "TooLong", 'fldPath.Child("driver")'): rules("DRA527"),
    ("validateOpaqueConfiguration", "Invalid", 'fldPath.Child("driver")'): rules("DRA527"),
    ("validateRawExtension", "Required", "fldPath"): SCHEMA,  # parameters missing or null: the schema's required field
    ("validateRawExtension", "TooLong", "fldPath"): rules("DRA528"),
    ("validateRawExtension", "Invalid", "fldPath"): rules("DRA528"),
    # --- ResourceClaim status (the /status endpoint; dralint warns, see rules/status.py) ---
    ("validateResourceClaimStatusUpdate", "TooMany", 'fldPath.Child("reservedFor")'): rules("DRA601"),
    ("validateResourceClaimStatusUpdate", "Duplicate", 'fldPath.Child("reservedFor")'): rules("DRA601"),
    ("validateResourceClaimStatusUpdate", "Duplicate", 'fldPath.Child("devices")'): rules("DRA603"),
    # Two sites: reservedFor without an allocation (DRA601) and new entries while deleting (update-only).
    ("validateResourceClaimStatusUpdate", "Forbidden", 'fldPath.Child("reservedFor")'): rules("DRA601"),
    ("validateResourceClaimStatusUpdate", "Invalid", 'fldPath.Child("allocation")'): UPDATE,
    ("validateResourceClaimUserReference", "Required", 'fldPath.Child("resource")'): rules("DRA601"),
    ("validateResourceClaimUserReference", "Required", 'fldPath.Child("name")'): rules("DRA601"),
    ("validateResourceClaimUserReference", "Required", 'fldPath.Child("uid")'): rules("DRA601"),
    ("validateAllocationResult", "Required", 'fldPath.Child("nodeSelector")'): rules("DRA602"),
    ("validateAllocationResult", "Invalid", 'fldPath.Child("nodeSelector")'): rules("DRA602"),
    ("validateDeviceAllocationResult", "TooMany", 'fldPath.Child("results")'): rules("DRA602"),
    ("validateDeviceAllocationResult", "TooMany", 'fldPath.Child("config")'): rules("DRA602"),
    ("validateDeviceRequestAllocationResult", "Required", 'fldPath.Child("driver")'): rules("DRA602"),
    ("validateDeviceRequestAllocationResult", "TooLong", 'fldPath.Child("driver")'): rules("DRA602"),
    ("validateDeviceRequestAllocationResult", "Invalid", 'fldPath.Child("driver")'): rules("DRA602"),
    ("validateDeviceRequestAllocationResult", "Invalid", 'fldPath.Child("device")'): rules("DRA602"),
    ("validateDeviceAllocationConfiguration", "TooMany", 'fldPath.Child("requests")'): rules("DRA602"),
    ("validateDeviceAllocationConfiguration", "Duplicate", 'fldPath.Child("requests")'): rules("DRA602"),
    ("validateAllocationConfigSource", "Required", "fldPath"): rules("DRA602"),
    ("validateAllocationConfigSource", "NotSupported", "fldPath"): rules("DRA602"),
    ("validateDeviceStatus", "Required", 'fldPath.Child("driver")'): rules("DRA603"),
    ("validateDeviceStatus", "TooLong", 'fldPath.Child("driver")'): rules("DRA603"),
    ("validateDeviceStatus", "Invalid", 'fldPath.Child("driver")'): rules("DRA603"),
    ("validateDeviceStatus", "Invalid", 'fldPath.Child("device")'): rules("DRA603"),
    ("validateDeviceStatus", "Invalid", "fldPath"): rules("DRA603"),
    ("validateDeviceStatus", "TooMany", 'fldPath.Child("conditions")'): rules("DRA603"),
    **{("validateDeviceStatus", t, 'fldPath.Child("conditions")'): rules("DRA603") for t in _CONDITION_ERRORS},
    ("validateNetworkDeviceData", "TooLong", 'fldPath.Child("interfaceName")'): rules("DRA603"),
    ("validateNetworkDeviceData", "TooLong", 'fldPath.Child("hardwareAddress")'): rules("DRA603"),
    ("validateNetworkDeviceData", "TooMany", 'fldPath.Child("ips")'): rules("DRA603"),
    ("validateNetworkDeviceData", "Duplicate", 'fldPath.Child("ips")'): rules("DRA603"),
    ("validateNetworkDeviceData", "Invalid", "fldPath"): rules("DRA603"),  # IsValidInterfaceAddress of each entry
    # --- DeviceClass ---
    ("ValidateDeviceClass", "Invalid", "fldPath"): rules("DRA202"),  # validate.LongName on metadata.name
    **_metadata("ValidateDeviceClass"),
    ("ValidateDeviceClassUpdate", "Invalid", "fldPath"): UPDATE,
    **_metadata("ValidateDeviceClassUpdate", {t: UPDATE for t in _META_CREATE}),
    **_update_meta("ValidateDeviceClassUpdate"),
    ("validateDeviceClassSpec", "TooMany", 'fldPath.Child("selectors")'): rules("DRA311"),
    ("validateDeviceClassSpec", "TooMany", 'fldPath.Child("config")'): rules("DRA521"),
    ("validateDeviceClassSpec", "Invalid", 'fldPath.Child("extendedResourceName")'): rules("DRA552"),
    # --- ResourceClaimTemplate ---
    **_metadata("ValidateResourceClaimTemplate"),
    ("validateResourceClaimTemplateSpec", "Forbidden", 'fldPath.Child("metadata")'): rules("DRA209"),
    ("validateResourceClaimTemplateSpec", "Invalid", 'fldPath.Child("metadata")'): rules("DRA205", "DRA206"),
    ("validateResourceClaimTemplateSpec", "TooLong", 'fldPath.Child("metadata")'): rules("DRA207"),
    **_update_meta("ValidateResourceClaimTemplateUpdate"),
    ("ValidateResourceClaimTemplateUpdate", "Invalid", 'field.NewPath("spec")'): UPDATE,
    # --- DeviceTaintRule ---
    **_metadata("ValidateDeviceTaintRule"),
    **_update_meta("ValidateDeviceTaintRuleUpdate"),
    ("validateDeviceTaintSelector", "Required", 'fldPath.Child("driver")'): rules("DRA582"),
    ("validateDeviceTaintSelector", "TooLong", 'fldPath.Child("driver")'): rules("DRA582"),
    ("validateDeviceTaintSelector", "Invalid", 'fldPath.Child("driver")'): rules("DRA582"),
    ("validateDeviceTaintSelector", "Invalid", 'fldPath.Child("device")'): rules("DRA582"),
    ("validateDeviceTaint", "Invalid", 'fldPath.Child("key")'): rules("DRA573", "DRA581"),
    ("validateDeviceTaint", "Required", 'fldPath.Child("effect")'): rules("DRA573", "DRA581"),
    ("validateDeviceTaint", "NotSupported", 'fldPath.Child("effect")'): rules("DRA573", "DRA581"),
    **_update_meta("ValidateDeviceTaintRuleStatusUpdate"),
    **{("ValidateDeviceTaintRuleStatusUpdate", t, 'fldPath.Child("conditions")'): STATUS_UPDATE for t in _CONDITION_ERRORS},
    ("ValidateDeviceTaintRuleStatusUpdate", "TooMany", 'fldPath.Child("conditions")'): STATUS_UPDATE,
    # --- device tolerations (claims; also allocation results) ---
    ("validateDeviceToleration", "Invalid", 'fldPath.Child("key")'): rules("DRA315"),
    ("validateDeviceToleration", "Invalid", 'fldPath.Child("value")'): rules("DRA317"),
    ("validateDeviceToleration", "Required", 'fldPath.Child("operator")'): na(
        "unreachable from a manifest: an empty operator is defaulted to Equal before validation (+default)"),
    ("validateDeviceToleration", "NotSupported", 'fldPath.Child("operator")'): rules("DRA316"),
    ("validateDeviceToleration", "NotSupported", 'fldPath.Child("effect")'): rules("DRA318"),
    # --- ResourceSlice (rules/slices.py, rules/slice_devices.py, rules/taints.py) ---
    **_metadata("ValidateResourceSlice"),
    **_update_meta("ValidateResourceSliceUpdate"),
    ("validateNodeName", "Invalid", "fldPath"): rules("DRA563", "DRA571"),
    ("validateResourceSliceSpec", "Required", 'fldPath.Child("driver")'): rules("DRA561"),
    ("validateResourceSliceSpec", "TooLong", 'fldPath.Child("driver")'): rules("DRA561"),
    ("validateResourceSliceSpec", "Invalid", 'fldPath.Child("driver")'): rules("DRA561"),  # and the update-only immutability
    ("validateResourceSliceSpec", "Invalid", 'fldPath.Child("pool","name")'): UPDATE,
    ("validateResourceSliceSpec", "Invalid", 'fldPath.Child("nodeName")'): rules("DRA563"),  # and the update-only immutability
    ("validateResourceSliceSpec", "Required", 'fldPath.Child("nodeSelector")'): rules("DRA563"),
    ("validateResourceSliceSpec", "Invalid", 'fldPath.Child("nodeSelector")'): rules("DRA563"),
    ("validateResourceSliceSpec", "Invalid", 'fldPath.Child("nodeSelector","nodeSelectorTerms")'): rules("DRA563"),
    ("validateResourceSliceSpec", "Invalid", 'fldPath.Child("allNodes")'): rules("DRA563"),
    ("validateResourceSliceSpec", "Invalid", 'fldPath.Child("perDeviceNodeSelection")'): rules("DRA563"),
    ("validateResourceSliceSpec", "Required", "fldPath"): rules("DRA563"),
    # Two sites: more than one node selection (DRA563) and both sharedCounters and devices.
    ("validateResourceSliceSpec", "Invalid", "fldPath"): rules("DRA563", "DRA564", "DRA568"),
    ("validateResourceSliceSpec", "TooMany", 'fldPath.Child("devices")'): rules("DRA564"),
    ("validateResourceSliceSpec", "Duplicate", 'fldPath.Child("devices")'): rules("DRA565"),
    ("validateResourceSliceSpec", "TooMany", 'fldPath.Child("sharedCounters")'): rules("DRA568"),
    ("validateResourceSliceSpec", "Duplicate", 'fldPath.Child("sharedCounters")'): rules("DRA568"),
    ("validateCounterSet", "Required", 'fldPath.Child("name")'): rules("DRA568"),
    ("validateCounterSet", "Invalid", 'fldPath.Child("name")'): rules("DRA568"),
    ("validateCounterSet", "Required", 'fldPath.Child("counters")'): rules("DRA568"),
    ("validateCounterSet", "TooMany", 'fldPath.Child("counters")'): rules("DRA568"),
    ("validateResourcePool", "Invalid", 'fldPath.Child("resourceSliceCount")'): rules("DRA562"),
    ("validateResourcePool", "Invalid", 'fldPath.Child("generation")'): rules("DRA562"),
    ("validateDevice", "Invalid", 'fldPath.Child("name")'): rules("DRA565"),
    # Three sites: attributes and capacities over 32, attribute values over 48 (DRA566), node selection (DRA571).
    ("validateDevice", "Invalid", "fldPath"): rules("DRA566", "DRA571"),
    ("validateDevice", "TooMany", 'fldPath.Child("taints")'): rules("DRA573"),
    ("validateDevice", "TooMany", 'fldPath.Child("consumesCounters")'): rules("DRA569"),
    ("validateDevice", "Duplicate", 'fldPath.Child("consumesCounters")'): rules("DRA569"),
    ("validateDevice", "Invalid", 'fldPath.Child("nodeName")'): rules("DRA571"),
    ("validateDevice", "Required", 'fldPath.Child("nodeSelector")'): rules("DRA571"),
    ("validateDevice", "Invalid", 'fldPath.Child("nodeSelector")'): rules("DRA571"),
    ("validateDevice", "Invalid", 'fldPath.Child("allNodes")'): rules("DRA571"),
    ("validateDevice", "Required", "fldPath"): rules("DRA571"),
    ("validateDeviceCounterConsumption", "Required", 'fldPath.Child("counterSet")'): rules("DRA569"),
    ("validateDeviceCounterConsumption", "Invalid", 'fldPath.Child("counterSet")'): rules("DRA569"),
    ("validateDeviceCounterConsumption", "Required", 'fldPath.Child("counters")'): rules("DRA569"),
    ("validateDeviceCounterConsumption", "TooMany", 'fldPath.Child("counters")'): rules("DRA569"),
    ("validateDeviceAttribute", "Invalid", "fldPath"): rules("DRA566"),
    **{("validateDeviceAttribute", "Invalid", f'fldPath.Child("{f}")'): rules("DRA566") for f in ("bools", "ints", "strings", "versions")},
    ("validateDeviceAttributeStringValue", "TooLong", "fldPath"): rules("DRA566"),
    ("validateDeviceAttributeVersionValue", "Invalid", "fldPath"): rules("DRA566"),
    ("validateDeviceAttributeVersionValue", "TooLong", "fldPath"): rules("DRA566"),
    ("validateSingleAllocatableDeviceCapacity", "Forbidden", 'fldPath.Child("requestPolicy")'): rules("DRA576"),
    ("validateRequestPolicy", "Forbidden", "fldPath"): rules("DRA576"),
    ("validateValidRequestValues", "Required", 'fldPath.Child("default")'): rules("DRA576"),
    ("validateRequestPolicyValidValues", "Invalid", "fldPath.Index(i+1)"): rules("DRA576"),
    ("validateRequestPolicyValidValues", "TooMany", "fldPath"): rules("DRA576"),
    ("validateRequestPolicyValidValues", "Duplicate", "fldPath"): rules("DRA576"),
    ("validateRequestPolicyValidValues", "Invalid", "fldPath"): rules("DRA576"),
    ("validateRequestPolicyRange", "Required", 'fldPath.Child("min")'): rules("DRA576"),
    ("validateRequestPolicyRange", "Invalid", 'fldPath.Child("min")'): rules("DRA576"),
    ("validateRequestPolicyRange", "Invalid", 'fldPath.Child("max")'): rules("DRA576"),
    ("validateRequestPolicyRange", "Invalid", 'fldPath.Child("default")'): rules("DRA576"),
    ("validateRequestPolicyRange", "Invalid", 'fldPath.Child("step")'): rules("DRA576"),
    ("validateRequestPolicyRange", "Invalid", "fldPath.Child(pair.name)"): rules("DRA576"),
    ("validateRequestPolicyRangeStep", "Invalid", "fldPath"): rules("DRA576"),
    ("validateInt64Range", "Invalid", "fldPath"): rules("DRA576", "DRA567", "DRA568", "DRA569"),
    # Attribute and capacity keys (DRA566, DRA567) and, fully qualified, constraint attributes (DRA507).
    ("validateQualifiedName", "Invalid", "fldPath"): rules("DRA566", "DRA567"),
    ("validateQualifiedName", "Required", "fldPath"): rules("DRA566", "DRA567"),
    ("validateQualifiedName", "TooLong", "fldPath"): rules("DRA566", "DRA567"),
    ("validateFullyQualifiedName", "Invalid", "fldPath"): rules("DRA507", "DRA572"),
    ("validateCIdentifier", "TooLong", "fldPath"): rules("DRA507", "DRA566", "DRA567"),
    ("validateCIdentifier", "Invalid", "fldPath"): rules("DRA507", "DRA566", "DRA567"),
    ("validateDeviceBindingParameters", "TooMany", 'fldPath.Child("bindingConditions")'): rules("DRA570", "DRA602"),
    ("validateDeviceBindingParameters", "TooMany", 'fldPath.Child("bindingFailureConditions")'): rules("DRA570", "DRA602"),
    ("validateDeviceBindingParameters", "Duplicate", 'fldPath.Child("bindingConditions").Index(i)'): rules("DRA570"),
    ("validateDeviceBindingParameters", "Duplicate", 'fldPath.Child("bindingFailureConditions").Index(i)'): rules("DRA570"),
    ("validateDeviceBindingParameters", "Invalid", 'fldPath.Child("bindingFailureConditions").Index(i)'): rules("DRA570"),
    ("validateDeviceBindingParameters", "Invalid", 'fldPath.Child("bindingConditions")'): rules("DRA570"),
    ("validateDeviceBindingParameters", "Invalid", 'fldPath.Child("bindingFailureConditions")'): rules("DRA570"),
    ("validatePartitionTypeAttribute", "Invalid", 'fldPath.Child("partitionTypeAttribute")'): rules("DRA572"),
    ("validatePartitionTypeAttribute", "Required", "attrPath"): rules("DRA572"),
    ("validatePartitionTypeAttribute", "Invalid", "attrPath"): rules("DRA572"),
    ("validateSkipNodeOperations", "Invalid", "fldPath"): rules("DRA575", "DRA602"),
    ("validateNodeAllocatableResources", "Invalid", "keyPath"): rules("DRA574"),
    ("validateNodeAllocatableResources", "Required", "keyPath"): rules("DRA574"),
    ("validateNodeAllocatableMapping", "Invalid", 'fldPath.Child("capacityKey")'): rules("DRA574"),
    ("validateNodeAllocatableMapping", "Required", 'fldPath.Child("capacityMultiplier")'): rules("DRA574"),
    ("validateNodeAllocatableMapping", "Invalid", 'fldPath.Child("capacityMultiplier")'): rules("DRA574"),
    ("validateNodeAllocatableMapping", "Invalid", 'fldPath.Child("deviceMultiplier")'): rules("DRA574"),
    ("validateNodeAllocatableMapping", "Required", 'fldPath.Child("capacityKey")'): rules("DRA574"),
    ("validateNodeAllocatableOverheadMapping", "Invalid", "fldPath"): rules("DRA574"),
    ("validateNodeAllocatableOverheadMapping", "Invalid", 'fldPath.Child("perPod")'): rules("DRA574"),
    ("validateNodeAllocatableOverheadMapping", "Invalid", 'fldPath.Child("perContainer")'): rules("DRA574"),
}

