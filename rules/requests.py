"""Device requests of structured claims and templates (dra-api-rules.md §5.3, §5.4, §5.7).

Paths follow the API server: `R` = `spec.devices.requests[i]` (`spec.spec.…`
in a template); the exact request `E` is `R` up to 1.32 and `R.exactly` from
1.33, also for the flat v1alpha3/v1beta1 shape, whose fields are then located
at `R.<field>` in the source. `S` = `R.firstAvailable[j]`.

Missing fields the OpenAPI schema marks required (DRA102) are not reported
again here; empty strings and the fields that became optional in 1.33 are.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import (
    REQUESTS,
    SELECTORS,
    claim_paths,
    device_selector_targets,
    devices_path,
    duplicate_path,
    gate_enabled,
    internal_nested,
    is_flat,
    is_nested,
    items_validated,
    raw_requests,
    report_too_many,
    request_paths,
    requests,
    selector_lists,
    spec_path,
    validated_exacts,
    validated_subrequests,
)
from dralint.k8s.names import dns1123_label, dns1123_subdomain, driver_name_error_types, label_value, qualified_name
from dralint.k8s.resource import (
    ALLOCATION_MODES,
    CLAIM_KINDS,
    DEVICE_REQUESTS_MAX,
    DEVICE_SELECTORS_MAX,
    EXACT_FIELDS,
    FIRST_AVAILABLE_MAX,
    STRUCTURED,
    TOLERATIONS_DOCUMENTED_MAX,
)

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

CLASS_AND_CLAIMS = [*CLAIM_KINDS, "DeviceClass"]
# What the rules need present to be able to report (dralint.pipeline.dispatch): the requests (REQUESTS), or one field of them.
FIRST_AVAILABLE = tuple(f"{base}.*.firstAvailable" for base in REQUESTS)
TOLERATIONS = request_paths("tolerations")


@rule("DRA301", "request-name-dns-label", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=REQUESTS)
def request_name(doc, report):
    """Request names must be DNS-1123 labels.

    At most 63 characters of lower-case letters, digits and `-`, starting and
    ending with a letter or digit; constraints and config refer to requests
    by this name. An empty name fails the same way (Invalid).

    Invalid: `- name: GPU_0`. Valid: `- name: gpu-0`.

    Upstream: `validateDeviceRequest` (pkg/apis/resource/validation/validation.go).
    """
    for req in requests(doc):
        name = req.data.get("name")
        if isinstance(name, str):
            errs = dns1123_label(name)
            if errs:
                report(req.path + ("name",), f"request name '{name}' is invalid: {errs[-1]}", error_type="Invalid")


@rule("DRA302", "request-name-duplicate", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=REQUESTS)
def request_name_duplicate(doc, report):
    """Request names must be unique within a claim.

    Reported at `requests[i].name` up to 1.34 and at `requests[i]` from 1.35.
    From 1.37 (declarative `+k8s:unique=map`) not in a list over 32 entries,
    which gets only its size error.

    Invalid: two requests both named `gpu`. Valid: `gpu-0` and `gpu-1`.

    Upstream: `validateDeviceClaim` (pkg/apis/resource/validation/validation.go).
    """
    if not items_validated(doc, raw_requests(doc), DEVICE_REQUESTS_MAX):
        return
    _report_duplicate_names(doc, report, requests(doc), "duplicate request name '{name}': every request needs its own name")


def _report_duplicate_names(doc, report, entries, message: str) -> None:
    """Duplicate `name`s among requests or subrequests (entries with `.data` and `.path`).

    A missing name is compared as the zero value, as the server does, so two
    nameless entries collide. `message` is formatted with `name`.
    """
    seen: set[str] = set()
    for entry in entries:
        name = entry.data.get("name")
        if name is None:
            name = ""
        if not isinstance(name, str):
            continue
        if name in seen:
            report(
                duplicate_path(doc, entry.path, "name"),
                message.format(name=name),
                error_type="Duplicate",
                locate=entry.path + ("name",),
                at_key=True,
            )
        seen.add(name)


@rule("DRA303", "too-many-requests", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=REQUESTS)
def too_many_requests(doc, report):
    """A claim may have at most 32 requests.

    TooLong in 1.31, TooMany from 1.32; from 1.35 the requests of an
    over-long list are not validated further.

    Upstream: `validateDeviceClaim` (pkg/apis/resource/validation/validation.go).

    Invalid: a claim with 33 requests. Valid: one with 32.
    """
    seq = raw_requests(doc)
    if len(seq) > DEVICE_REQUESTS_MAX:
        report_too_many(doc, report, devices_path(doc) + ("requests",), len(seq), DEVICE_REQUESTS_MAX, "spec.devices.requests")


@rule("DRA304", "request-needs-device", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=REQUESTS)
def request_needs_device(doc, report):
    """A request needs exactly one of `exactly` or `firstAvailable` (1.33+).

    In v1beta2/v1 the request must contain `exactly` or a non-empty
    `firstAvailable`; in the flat v1alpha3/v1beta1 shape it needs a
    `deviceClassName` (or other exact fields) or `firstAvailable`. A
    `firstAvailable` dropped because DRAPrioritizedList is off (1.33) counts as
    missing. A v1beta1-style request in v1beta2/v1 (`deviceClassName`, `count`
    ... beside `name`) is this one error, naming the fields to move under
    `exactly:`; the schema check's unknown fields for them are folded into it.

    Invalid:

        requests:
        - name: gpu

    Valid:

        requests:
        - name: gpu
          exactly: {deviceClassName: gpu.example.com}

    Upstream: `validateDeviceRequest` (pkg/apis/resource/validation/validation.go).
    """
    for req in requests(doc):
        if req.state == "neither":
            hint = "exactly" if not is_flat(doc) else "deviceClassName"
            dropped = ""
            if isinstance(req.first_available_raw, list) and req.first_available_raw and not gate_enabled(doc, "DRAPrioritizedList"):
                dropped = " (firstAvailable is dropped because the DRAPrioritizedList feature gate is off by default in this release)"
            flat = [f for f in EXACT_FIELDS if f in req.data] if is_nested(doc) else []
            if flat:
                # The flat request of v1alpha3/v1beta1 in a nested version: the root cause, with the fix.
                names = " and ".join(", ".join(f"'{f}'" for f in flat).rsplit(", ", 1))
                report(req.path, f"request has neither 'exactly' nor 'firstAvailable': {names} {'are fields' if len(flat) > 1 else 'is a field'} "
                                 f"of the flat v1beta1 request; in {doc.api_version} move {'them' if len(flat) > 1 else 'it'} under 'exactly:'{dropped}",
                       error_type="Required", at_key=False)
                continue
            report(req.path, f"request has neither '{hint}' nor 'firstAvailable'; set exactly one of them{dropped}", error_type="Required", at_key=False)


@rule("DRA305", "request-exactly-and-first-available", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=FIRST_AVAILABLE)
def request_both(doc, report):
    """A request must not combine an exact request with `firstAvailable` (1.33+).

    Invalid:

        - name: gpu
          exactly: {deviceClassName: a}
          firstAvailable: [{name: x, deviceClassName: b}]

    Valid: move the exact request into `firstAvailable` as its first entry.

    Upstream: `validateDeviceRequest` (pkg/apis/resource/validation/validation.go).
    """
    for req in requests(doc):
        if req.state == "both":
            what = "exactly" if not is_flat(doc) else "deviceClassName/selectors/allocationMode/count"
            report(req.path, f"request sets both '{what}' and 'firstAvailable'; use exactly one of them", error_type="Invalid")


def _class_name_problem(value: Any, required_by_schema: bool) -> tuple[str, str] | None:
    if value is None:
        return None if required_by_schema else ("Required", "deviceClassName is required")
    if not isinstance(value, str):
        return None
    if value == "":
        return ("Required", "deviceClassName must not be empty")
    errs = dns1123_subdomain(value)
    if errs:
        return ("Invalid", f"deviceClassName '{value}' is invalid: {errs[-1]}")
    return None


@rule("DRA306", "device-class-name-required", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=REQUESTS)
def device_class_name_required(doc, report):
    """Every exact request and subrequest needs a non-empty `deviceClassName`.

    From 1.33 a flat-shape request (v1alpha3/v1beta1) with e.g. only `count`
    or `selectors` is an exact request without a class; the server reports it
    at `requests[i].exactly.deviceClassName`.

    Invalid: `deviceClassName: ""`. Valid: `deviceClassName: gpu.example.com`.

    Upstream: `validateDeviceClass` (pkg/apis/resource/validation/validation.go).
    """
    flat_optional = is_flat(doc) and internal_nested(doc)
    for _req, exact in validated_exacts(doc):
        problem = _class_name_problem(exact.data.get("deviceClassName"), required_by_schema=not flat_optional)
        if problem and problem[0] == "Required":
            api, src = exact.at("deviceClassName")
            report(api, f"{problem[1]}: name the DeviceClass to allocate from", error_type="Required", locate=src)
    for _req, sub in validated_subrequests(doc):
        problem = _class_name_problem(sub.data.get("deviceClassName"), required_by_schema=True)
        if problem and problem[0] == "Required":
            report(sub.path + ("deviceClassName",), f"{problem[1]}: name the DeviceClass to allocate from", error_type="Required")


@rule("DRA307", "device-class-name-format", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=request_paths("deviceClassName"))
def device_class_name_format(doc, report):
    """`deviceClassName` must be a DNS-1123 subdomain (the name of a DeviceClass).

    Invalid: `deviceClassName: GPU_Class`. Valid: `deviceClassName: gpu.example.com`.

    Upstream: `validateDeviceClass` (pkg/apis/resource/validation/validation.go).
    """
    for _req, exact in validated_exacts(doc):
        problem = _class_name_problem(exact.data.get("deviceClassName"), True)
        if problem and problem[0] == "Invalid":
            api, src = exact.at("deviceClassName")
            report(api, f"{problem[1]}", error_type="Invalid", locate=src)
    for _req, sub in validated_subrequests(doc):
        problem = _class_name_problem(sub.data.get("deviceClassName"), True)
        if problem and problem[0] == "Invalid":
            report(sub.path + ("deviceClassName",), f"{problem[1]}", error_type="Invalid")


@rule("DRA308", "too-many-first-available", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=FIRST_AVAILABLE)
def too_many_first_available(doc, report):
    """`firstAvailable` may list at most 8 subrequests (TooMany).

    Their own checks still run (hand-written); from 1.37 the declarative ones
    (unique names) stop at an over-long list.

    Upstream: `validateDeviceRequest` (pkg/apis/resource/validation/validation.go).

    Invalid: a request whose `firstAvailable` lists 9 subrequests. Valid: 8.
    """
    for req in requests(doc):
        if req.state == "first" and isinstance(req.first_available_raw, list) and len(req.first_available_raw) > FIRST_AVAILABLE_MAX:
            report_too_many(doc, report, req.path + ("firstAvailable",), len(req.first_available_raw), FIRST_AVAILABLE_MAX, "firstAvailable")


@rule("DRA309", "subrequest-name-dns-label", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=FIRST_AVAILABLE)
def subrequest_name(doc, report):
    """Subrequest names (`firstAvailable[j].name`) must be DNS-1123 labels.

    Constraints and config refer to them as `<request>/<subrequest>`.

    Invalid: `- name: Small_GPU`. Valid: `- name: small-gpu`.

    Upstream: `validateDeviceSubRequest` (pkg/apis/resource/validation/validation.go).
    """
    for _req, sub in validated_subrequests(doc):
        name = sub.data.get("name")
        if isinstance(name, str):
            errs = dns1123_label(name)
            if errs:
                report(sub.path + ("name",), f"subrequest name '{name}' is invalid: {errs[-1]}", error_type="Invalid")


@rule("DRA310", "subrequest-name-duplicate", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=FIRST_AVAILABLE)
def subrequest_name_duplicate(doc, report):
    """Subrequest names must be unique within one request.

    Reported at `firstAvailable[j].name` up to 1.34 and at `firstAvailable[j]` from 1.35.
    From 1.37 (declarative `+k8s:unique=map`) not in an over-long list.

    Upstream: `validateDeviceRequest` (pkg/apis/resource/validation/validation.go).

    Invalid: `firstAvailable` with two subrequests named `small`. Valid: `small` and `large`.
    """
    over_long = not items_validated(doc, raw_requests(doc), DEVICE_REQUESTS_MAX)
    for req in requests(doc):
        if over_long or req.state != "first" or not items_validated(doc, req.first_available_raw, FIRST_AVAILABLE_MAX):
            continue
        owner = str(req.data.get("name")).replace("{", "{{").replace("}", "}}")
        _report_duplicate_names(doc, report, req.first_available, f"duplicate subrequest name '{{name}}' in request '{owner}'")


@rule("DRA311", "too-many-selectors", severity="error", kinds=CLASS_AND_CLAIMS, api_versions=STRUCTURED, releases=("1.31", None), needs=SELECTORS)
def too_many_selectors(doc, report):
    """A request, subrequest or DeviceClass may have at most 32 selectors.

    TooLong in 1.31, TooMany from 1.32; from 1.35 the selectors of an
    over-long list are not validated further (no CEL check).

    Upstream: `validateDeviceClassSpec`, `validateSelectorSlice` (pkg/apis/resource/validation/validation.go).

    Invalid: a request with 33 `selectors`. Valid: 32.
    """
    for api, src, seq in selector_lists(doc):
        if len(seq) > DEVICE_SELECTORS_MAX:
            from dralint.k8s.claims import too_many_type

            etype = too_many_type(doc)
            report(api, f"{len(seq)} selectors; at most {DEVICE_SELECTORS_MAX} are allowed", error_type=etype, locate=src, at_key=True)


@rule("DRA312", "selector-cel-required", severity="error", kinds=CLASS_AND_CLAIMS, api_versions=STRUCTURED, releases=("1.31", None), needs=SELECTORS)
def selector_cel_required(doc, report):
    """Every selector needs a `cel` selector with an `expression`.

    A selector entry without `cel` (or with `cel: null`, often a
    mis-indented `expression`) is rejected with `selectors[k].cel: Required value`.

    Invalid:

        selectors:
        - cel:
          expression: device.driver == "gpu.example.com"

    Valid:

        selectors:
        - cel:
            expression: device.driver == "gpu.example.com"

    Upstream: `validateSelector` (pkg/apis/resource/validation/validation.go).
    """
    for api, src, seq in selector_lists(doc):
        for k, selector in enumerate(seq):
            if isinstance(selector, dict) and selector.get("cel") is None:
                report(api + (k, "cel"), "selector has no 'cel' entry: add 'cel: {expression: ...}'", error_type="Required", locate=src + (k, "cel") if "cel" in selector else src + (k,), at_key="cel" in selector)


@rule("DRA313", "allocation-mode-unsupported", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=REQUESTS)
def allocation_mode(doc, report):
    """`allocationMode` must be `ExactCount` or `All` (omitted means ExactCount).

    In the flat v1alpha3/v1beta1 shape from 1.33 the default applies only
    when `deviceClassName` is set, so a request without a class also gets
    this error.

    Invalid: `allocationMode: Any`. Valid: `allocationMode: All`.

    Upstream: `validateDeviceAllocationMode` (pkg/apis/resource/validation/validation.go).
    """
    from dralint.k8s.claims import allocation

    targets = [(e.api, e.src, e.data, e.defaulted) for _r, e in validated_exacts(doc)]
    targets += [(s.path, s.path, s.data, True) for _r, s in validated_subrequests(doc)]
    for api, src, data, defaulted in targets:
        mode, _count = allocation(data, defaulted)
        if mode not in ALLOCATION_MODES:
            shown = f"'{mode}'" if mode else "an empty allocationMode"
            report(api + ("allocationMode",), f"{shown} is not supported: use ExactCount or All", error_type="NotSupported", locate=src + ("allocationMode",), replace_with=sorted(ALLOCATION_MODES))


@rule("DRA314", "count-invalid", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=request_paths("allocationMode", "count"))
def count_invalid(doc, report):
    """`count` must be positive with ExactCount and absent with All.

    `count: 0` with ExactCount is defaulted to 1, so only negative counts
    fail; with `allocationMode: All` any count other than 0 is Invalid.

    Invalid: `allocationMode: All` with `count: 2`, or `count: -1`. Valid: `count: 2`.

    Upstream: `validateDeviceAllocationMode` (pkg/apis/resource/validation/validation.go).
    """
    from dralint.k8s.claims import allocation

    targets = [(e.api, e.src, e.data, e.defaulted) for _r, e in validated_exacts(doc)]
    targets += [(s.path, s.path, s.data, True) for _r, s in validated_subrequests(doc)]
    for api, src, data, defaulted in targets:
        mode, count = allocation(data, defaulted)
        if mode == "All" and count != 0:
            report(api + ("count",), f"count {count} must not be set when allocationMode is All", error_type="Invalid", locate=src + ("count",))
        elif mode == "ExactCount" and count <= 0:
            report(api + ("count",), f"count {count} must be greater than zero", error_type="Invalid", locate=src + ("count",))


def _tolerations(doc: Any):
    """(API path, source path, toleration) for every toleration the server validates (gate on)."""
    if not gate_enabled(doc, "DRADeviceTaints"):
        return
    for api, src, data in device_selector_targets(doc):
        seq = data.get("tolerations")
        if not isinstance(seq, list):
            continue
        for t, tol in enumerate(seq):
            if isinstance(tol, dict):
                yield api + ("tolerations", t), src + ("tolerations", t), tol


@rule("DRA315", "toleration-key-format", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=TOLERATIONS)
def toleration_key(doc, report):
    """A toleration `key`, when set, must be a qualified name (a label key).

    Checked only when the DRADeviceTaints feature gate is on (off by default
    in 1.33-1.35, when tolerations are dropped; see DRA801).

    Invalid: `key: "bad key"`. Valid: `key: example.com/unhealthy`.

    Upstream: `validateDeviceToleration` (pkg/apis/resource/validation/validation.go).
    """
    for api, src, tol in _tolerations(doc):
        key = tol.get("key")
        if isinstance(key, str) and key:
            errs = qualified_name(key)
            if errs:
                report(api + ("key",), f"toleration key '{key}' is invalid: {errs[0]}", error_type="Invalid", locate=src + ("key",))


@rule("DRA316", "toleration-operator", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=TOLERATIONS)
def toleration_operator(doc, report):
    """A toleration `operator` must be `Equal` (the default) or `Exists`.

    An omitted or empty operator is defaulted to `Equal` before validation
    (`+default="Equal"`: the defaulter replaces the zero value ""), so the
    server's Required error for an empty operator cannot be reached from a
    manifest. Checked only when the DRADeviceTaints feature gate is on.

    Invalid: `operator: In`. Valid: `operator: Exists`.

    Upstream: `validateDeviceToleration` (pkg/apis/resource/validation/validation.go).
    """
    for api, src, tol in _tolerations(doc):
        op = tol.get("operator") or "Equal"
        if isinstance(op, str) and op not in ("Equal", "Exists"):
            report(api + ("operator",), f"toleration operator '{op}' is not supported: use Equal or Exists", error_type="NotSupported", locate=src + ("operator",), replace_with=["Equal", "Exists"])


@rule("DRA317", "toleration-value", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=TOLERATIONS)
def toleration_value(doc, report):
    """A toleration `value` must be empty with `Exists` and a valid label value with `Equal`.

    Checked only when the DRADeviceTaints feature gate is on.

    Invalid: `operator: Exists` with `value: "true"`. Valid: `operator: Equal`, `value: "true"`.

    Upstream: `validateDeviceToleration`, `validateLabelValue` (pkg/apis/resource/validation/validation.go).
    """
    for api, src, tol in _tolerations(doc):
        op = tol.get("operator") or "Equal"
        value = tol.get("value")
        value = value if isinstance(value, str) else ""
        if op == "Exists" and value:
            report(api + ("value",), f"toleration value '{value}' must be empty with operator Exists", error_type="Invalid", locate=src + ("value",))
        elif op == "Equal":
            errs = label_value(value)
            if errs:
                report(api + ("value",), f"toleration value '{value}' is invalid: {errs[-1]}", error_type="Invalid", locate=src + ("value",))


@rule("DRA318", "toleration-effect", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=TOLERATIONS)
def toleration_effect(doc, report):
    """A toleration `effect` must be empty, `NoSchedule` or `NoExecute` (plus `None` from 1.35).

    Checked only when the DRADeviceTaints feature gate is on.

    Invalid: `effect: PreferNoSchedule`. Valid: `effect: NoExecute`.

    Upstream: `validateDeviceToleration` (pkg/apis/resource/validation/validation.go).
    """
    allowed = ["NoSchedule", "NoExecute"] + (["None"] if doc.release_tuple >= (1, 35) else [])
    for api, src, tol in _tolerations(doc):
        effect = tol.get("effect")
        if isinstance(effect, str) and effect and effect not in allowed:
            report(api + ("effect",), f"toleration effect '{effect}' is not supported: use {', '.join(allowed)} or leave it empty", error_type="NotSupported", locate=src + ("effect",), replace_with=allowed)


@rule("DRA319", "too-many-tolerations", severity="warning", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.33", None), needs=TOLERATIONS)
def too_many_tolerations(doc, report):
    """More than 16 tolerations on one request exceeds the documented maximum.

    The API server does not enforce it (a linter warning only).

    Invalid: a request with 17 `tolerations`. Valid: 16.

    Upstream: policy.
    """
    for api, src, data in device_selector_targets(doc):
        seq = data.get("tolerations")
        if isinstance(seq, list) and len(seq) > TOLERATIONS_DOCUMENTED_MAX:
            report(api + ("tolerations",), f"{len(seq)} tolerations; the API documents at most {TOLERATIONS_DOCUMENTED_MAX}", locate=src + ("tolerations",), at_key=True)


@rule("DRA320", "claim-controller-name", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", "1.31"), needs=claim_paths("controller"))
def claim_controller(doc, report):
    """1.31 only: `spec.controller`, when set, must be a valid driver name.

    At most 63 characters and a DNS-1123 subdomain when lower-cased.

    Invalid: `controller: "my controller"`. Valid: `controller: gpu.example.com`.

    Upstream: `validateResourceClaimSpec` (pkg/apis/resource/validation/validation.go in 1.31), which calls validateDriverName.
    """
    value = doc.get(*spec_path(doc), "controller", type=str)
    if value:
        for etype, msg in driver_name_error_types(value):
            report(spec_path(doc) + ("controller",), f"controller '{value}' is not a valid driver name: {msg}", error_type=etype)
