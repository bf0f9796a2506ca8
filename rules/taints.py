"""Device taints: in a ResourceSlice (1.33+, DRADeviceTaints) and DeviceTaintRule (v1alpha3 1.33+,
v1beta2 1.36+, v1 1.37+); the same DeviceTaint type is validated in both places.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import kind_gate_enabled, too_many_type
from dralint.k8s.names import dns1123_label, driver_name_error_types, label_value, pool_name_error_types, qualified_name
from dralint.k8s.resource import STRUCTURED
from dralint.k8s.slices import TAINTS_MAX, device_go_type, device_paths, kept, taint_effects, validated_devices

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator


def _taint_problems(taint: dict, release: tuple[int, int]) -> Iterator[tuple[tuple, str, str]]:
    """(field suffix, error type, message) for one DeviceTaint."""
    key = taint.get("key")
    if isinstance(key, str):
        # metav1validation.ValidateLabelName, which "includes checking for non-empty": Invalid, not Required.
        for msg in qualified_name(key):
            yield ("key",), "Invalid", f"taint key '{key}' is invalid: {msg}"
    value = taint.get("value")
    if isinstance(value, str) and label_value(value):
        yield ("value",), "Invalid", f"taint value '{value}' is invalid: {label_value(value)[-1]}"
    effect = taint.get("effect")
    allowed = taint_effects(release)
    if isinstance(effect, str):
        if not effect:
            yield ("effect",), "Required", "a taint effect is required"
        elif effect not in allowed:
            yield ("effect",), "NotSupported", f"taint effect '{effect}' is not supported: use {', '.join(allowed)}"


def _rules_served(doc: Any) -> bool:
    """DeviceTaintRule is served only with its gate (DRADeviceTaints up to 1.34, DRADeviceTaintRules from 1.35)."""
    return kind_gate_enabled(doc, "DRADeviceTaintRules" if doc.release_tuple >= (1, 35) else "DRADeviceTaints")


def _report_taint(report: Callable, taint: Any, release: tuple[int, int], api: tuple, src: tuple) -> None:
    if not isinstance(taint, dict):
        return
    for suffix, etype, msg in _taint_problems(taint, release):
        report(api + suffix, f"{msg}", error_type=etype, locate=src + suffix, at_key=etype == "Required")


@rule("DRA573", "slice-device-taints", severity="error", kinds=["ResourceSlice"], api_versions=STRUCTURED, releases=("1.33", None), needs=device_paths("taints"))
def slice_taints(doc, report):
    """Device taints in a ResourceSlice (DRADeviceTaints) as validateDevice and validateDeviceTaint check them: at most 16 per device; key a label key, value a label value, effect NoSchedule or NoExecute (or None from 1.35).

    An empty key is Invalid (ValidateLabelName); from 1.35 more than 16 taints
    is only TooMany (no taint is checked).

    Invalid: `taints: [{key: example.com/unhealthy, effect: PreferNoSchedule}]`.
    Valid: `taints: [{key: example.com/unhealthy, effect: NoSchedule}]`.

    Upstream: `validateDevice`, `validateDeviceTaint`, `validateLabelValue` (pkg/apis/resource/validation/validation.go).
    """
    go_type = device_go_type(doc)
    for shape in validated_devices(doc):
        seq = kept(doc, go_type, shape.fields, "taints")
        if not isinstance(seq, list):
            continue
        api, src = shape.at("taints")
        if len(seq) > TAINTS_MAX:
            etype = too_many_type(doc)
            report(api, f"taints has {len(seq)} entries; at most {TAINTS_MAX} are allowed", error_type=etype, locate=src, at_key=True)
            if doc.release_tuple >= (1, 35):
                continue  # validateSlice stops at the size from 1.35: no taint is checked
        for k, taint in enumerate(seq):
            _report_taint(report, taint, doc.release_tuple, api + (k,), src + (k,))


@rule("DRA581", "taint-rule-taint", severity="error", kinds=["DeviceTaintRule"], api_versions=STRUCTURED, releases=("1.33", None), needs=("spec",))
def rule_taint(doc, report):
    """`spec.taint` of a DeviceTaintRule: key a label key, value a label value, effect required and NoSchedule or NoExecute (or None from 1.35).

    Ports validateDeviceTaint as validateDeviceTaintRuleSpec calls it. `taint` is
    a struct, not a pointer: a rule without it is decoded with an empty taint,
    so the server answers Invalid at `spec.taint.key` (ValidateLabelName of "")
    and Required at `spec.taint.effect`; both are reported at the `spec` key.

    Not checked when the gate that serves DeviceTaintRule is configured off.

    Invalid: `taint: {key: "bad key", effect: Evict}`, or no `taint` at all.
    Valid: `taint: {key: example.com/maintenance, effect: NoSchedule}`.

    Upstream: `validateDeviceTaint`, `validateLabelValue` (pkg/apis/resource/validation/validation.go).
    """
    if not _rules_served(doc):
        return
    spec = doc.get("spec", type=dict)
    if spec is not None and spec.get("taint") is None:
        report(("spec", "taint", "key"), "the rule has no taint: the server reads an empty taint key, which is not a label key",
               error_type="Invalid", locate=("spec",), at_key=True)
        report(("spec", "taint", "effect"), "the rule has no taint: a taint effect is required, one of " + ", ".join(taint_effects(doc.release_tuple)),
               error_type="Required", locate=("spec",), at_key=True)
        return
    _report_taint(report, doc.get("spec", "taint", type=dict), doc.release_tuple, ("spec", "taint"), ("spec", "taint"))


@rule("DRA582", "taint-rule-selector", severity="error", kinds=["DeviceTaintRule"], api_versions=STRUCTURED, releases=("1.33", None), needs=("spec.deviceSelector",))
def rule_selector(doc, report):
    """`spec.deviceSelector` of a DeviceTaintRule: `driver` a driver name, `pool` a pool name, `device` a DNS label, as in a ResourceSlice.

    Ports validateDeviceTaintSelector: a driver is checked by ValidateCSIDriverName
    (empty: Required; over 63 characters: TooLong; not a DNS subdomain: Invalid),
    a pool by validatePoolName (empty: Required; over 253 characters: TooLong, and
    each `/`-separated part a DNS subdomain: Invalid).

    Not checked when the gate that serves DeviceTaintRule is configured off.

    Invalid: `deviceSelector: {driver: GPU_Driver}`. Valid: `deviceSelector: {driver: gpu.example.com}`.

    Upstream: `validateDeviceTaintSelector`, `validatePoolName` (pkg/apis/resource/validation/validation.go).
    """
    selector = doc.get("spec", "deviceSelector", type=dict)
    if selector is None or not _rules_served(doc):
        return
    base = ("spec", "deviceSelector")
    driver = selector.get("driver")
    if isinstance(driver, str):
        for etype, msg in driver_name_error_types(driver):
            report(base + ("driver",), f"driver '{driver}' is invalid: {msg}", error_type=etype)
    pool = selector.get("pool")
    if isinstance(pool, str):
        for etype, msg in pool_name_error_types(pool):
            shown = f"pool name '{pool}' is invalid: {msg}" if pool else msg
            report(base + ("pool",), f"{shown}", error_type=etype)
    device = selector.get("device")
    if isinstance(device, str) and dns1123_label(device):
        report(base + ("device",), f"device name '{device}' is invalid: {dns1123_label(device)[0]}", error_type="Invalid")
