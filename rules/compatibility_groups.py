"""Device compatibility groups (1.37+, gate DRADeviceCompatibilityGroups): what the API server's
declarative validation checks of `consumesCounters[].compatibilityGroups`.

Ports the generated validation of `DeviceCounterConsumption.CompatibilityGroups`
(`zz_generated.validations.go` of `k8s.io/api/resource/v1`, from the tags
`+k8s:maxItems=2`, `+k8s:unique=set`, `+k8s:eachVal=+k8s:format=k8s-short-name`):
`validate.MaxItems` short-circuits the rest, then each value is a short name
(`validate.ShortName`) and the values are unique (`validate.ValSliceUnique`).
A field whose gate is off is dropped before validation and not judged here.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import too_many_type
from dralint.k8s.names import dns1123_label
from dralint.k8s.resource import STRUCTURED
from dralint.k8s.slices import device_go_type, device_paths, devices, kept

# DeviceCompatibilityGroupsMaxSize (k8s.io/api/resource/v1/types.go).
COMPATIBILITY_GROUPS_MAX = 2


@rule("DRA590", "slice-compatibility-groups", severity="error", kinds=["ResourceSlice"], api_versions=STRUCTURED, releases=("1.37", None), needs=device_paths("consumesCounters"))
def compatibility_groups(doc, report):
    """A counter consumption's `compatibilityGroups`: at most 2, each a short name (a DNS label), no value twice.

    Why: the API server rejects the slice (declarative validation of
    `DeviceCounterConsumption.compatibilityGroups`, gate DRADeviceCompatibilityGroups).

    Invalid: `compatibilityGroups: [a, b, c]` (TooMany), `[Group_A]` (Invalid), `[a, a]` (Duplicate).
    Valid: `compatibilityGroups: [fast, shared]`.

    Upstream: `Validate_DeviceCounterConsumption` (staging/src/k8s.io/api/resource/v1/zz_generated.validations.go).
    """
    go_type = device_go_type(doc)
    for shape in devices(doc):
        seq = shape.fields.get("consumesCounters")
        if not isinstance(seq, list) or kept(doc, go_type, shape.fields, "consumesCounters") is None:
            continue
        api_base, src_base = shape.at("consumesCounters")
        for j, consumption in enumerate(seq):
            groups = kept(doc, "DeviceCounterConsumption", consumption, "compatibilityGroups")
            if not isinstance(groups, list):
                continue
            api, src = api_base + (j, "compatibilityGroups"), src_base + (j, "compatibilityGroups")
            if len(groups) > COMPATIBILITY_GROUPS_MAX:
                etype = too_many_type(doc)
                report(api, f"compatibilityGroups has {len(groups)} entries; at most {COMPATIBILITY_GROUPS_MAX} are allowed",
                       error_type=etype, locate=src, at_key=True)
                continue  # MaxItems short-circuits the value checks
            seen: set[str] = set()
            for k, group in enumerate(groups):
                if not isinstance(group, str):
                    continue  # the schema reports a value that is not a string
                errors = dns1123_label(group)
                if errors:
                    report(api + (k,), f"compatibility group '{group}' is invalid: {errors[0]}", error_type="Invalid", locate=src + (k,))
                if group in seen:  # judged apart from the format, as upstream runs both validators
                    report(api + (k,), f"compatibility group '{group}' is listed twice", error_type="Duplicate", locate=src + (k,))
                seen.add(group)
