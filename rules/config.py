"""Opaque device configuration of claims, templates and DeviceClasses (dra-api-rules.md §5.6, §6).

`G` = `spec.devices.config[k]` in a claim (`spec.spec.…` in a template) and
`spec.config[k]` in a DeviceClass.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import devices_path, items_validated, list_entries, report_request_refs, report_too_many, request_refs
from dralint.k8s.names import OPAQUE_PARAMETERS_MAX, driver_name_error_types, go_json_size
from dralint.k8s.resource import CLAIM_KINDS, DEVICE_CONFIG_MAX, DEVICE_REQUESTS_MAX, STRUCTURED

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

KINDS = [*CLAIM_KINDS, "DeviceClass"]


_BASES = {"DeviceClass": ("spec", "config"), "ResourceClaim": ("spec", "devices", "config"), "ResourceClaimTemplate": ("spec", "spec", "devices", "config")}
CLAIM_CONFIG = ("spec.devices.config", "spec.spec.devices.config")  # where `_config_base` starts in a claim and a template
CONFIG = ("spec.config", *CLAIM_CONFIG)  # and in a DeviceClass


def _config_base(doc: Any) -> tuple:
    return _BASES.get(doc.kind) or devices_path(doc) + ("config",)


def _configs(doc: Any, covered: bool = False) -> list[tuple[tuple, dict]]:
    """Every entry (the hand-written checks run on each); with `covered`, none of an over-long
    list from 1.37, for the checks that declarative validation covers (`items_validated`)."""
    base = _config_base(doc)
    if covered and not items_validated(doc, doc.get(*base), DEVICE_CONFIG_MAX):
        return []
    return list_entries(doc, base)


def _refs(doc: Any, covered: bool = False) -> Iterator[tuple[tuple, str, int, list]]:
    if doc.kind == "DeviceClass":
        return iter(())
    return request_refs(doc, _configs(doc, covered))


@rule("DRA521", "too-many-config", severity="error", kinds=KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONFIG)
def too_many_config(doc, report):
    """A claim or DeviceClass may have at most 32 config entries (TooLong in 1.31, TooMany from 1.32).

    The API server rejects an object over the limit: it can never be created.

    Invalid: a claim with 33 `config` entries. Valid: 32.

    Upstream: `validateDeviceClaim`, `validateDeviceClassSpec` (pkg/apis/resource/validation/validation.go).
    """
    base = _config_base(doc)
    seq = doc.get(*base, type=list, default=[])
    if len(seq) > DEVICE_CONFIG_MAX:
        report_too_many(doc, report, base, len(seq), DEVICE_CONFIG_MAX, ".".join(base))


@rule("DRA522", "config-requests-too-many", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CLAIM_CONFIG)
def config_requests_too_many(doc, report):
    """A config entry may name at most 32 requests (TooLong in 1.31, TooMany from 1.32).

    The API server rejects an object over the limit: it can never be created.

    Invalid: a config entry whose `requests` lists 33 names. Valid: 32.

    Upstream: `validateDeviceClaimConfiguration` (pkg/apis/resource/validation/validation.go).
    """
    for path, g in _configs(doc, covered=True):
        seq = g.get("requests")
        if isinstance(seq, list) and len(seq) > DEVICE_REQUESTS_MAX:
            report_too_many(doc, report, path + ("requests",), len(seq), DEVICE_REQUESTS_MAX, "config requests")


@rule("DRA523", "config-request-duplicate", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CLAIM_CONFIG)
def config_request_duplicate(doc, report):
    """A config entry must not name the same request twice.

    Invalid: `requests: [gpu, gpu]`. Valid: `requests: [gpu]`.

    Upstream: `validateDeviceClaimConfiguration` (pkg/apis/resource/validation/validation.go).
    """
    report_request_refs(doc, report, _refs(doc, covered=True), "duplicate", "config entry")


@rule("DRA524", "config-request-name-format", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CLAIM_CONFIG)
def config_request_format(doc, report):
    """Config request references must be DNS-1123 labels (`<request>` or `<request>/<subrequest>` from 1.33).

    Invalid: `requests: [My_GPU]`. Valid: `requests: [gpu]`.

    Upstream: `validateRequestNameRef` (pkg/apis/resource/validation/validation.go).
    """
    report_request_refs(doc, report, _refs(doc), "format", "config entry")


@rule("DRA525", "config-request-unknown", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CLAIM_CONFIG)
def config_request_unknown(doc, report):
    """Config request references must name a request (or `<request>/<subrequest>`) of the claim.

    Invalid: `requests: [nic]` when the claim only has `gpu`. Valid: `requests: [gpu]`.

    Upstream: `validateRequestNameRef` (pkg/apis/resource/validation/validation.go).
    """
    report_request_refs(doc, report, _refs(doc), "unknown", "config entry")


@rule("DRA526", "config-opaque-required", severity="error", kinds=KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONFIG)
def config_opaque_required(doc, report):
    """Every config entry needs `opaque` (the only configuration type).

    Invalid:

        config:
        - requests: [gpu]

    Valid:

        config:
        - requests: [gpu]
          opaque: {driver: gpu.example.com, parameters: {mode: shared}}

    Upstream: `validateDeviceConfiguration` (pkg/apis/resource/validation/validation.go).
    """
    for path, g in _configs(doc):
        if g.get("opaque") is None:
            report(path + ("opaque",), "config entry has no 'opaque' configuration: add opaque.driver and opaque.parameters", error_type="Required")


@rule("DRA527", "opaque-driver-name", severity="error", kinds=KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONFIG)
def opaque_driver_name(doc, report):
    """`opaque.driver` must be a driver name: non-empty, at most 63 characters, a DNS subdomain when lower-cased.

    Every failed check is reported, as the API server does: an empty driver
    is Required and (up to 1.34) also Invalid, a long one with bad characters
    TooLong and Invalid.

    Invalid: `driver: "gpu example"`. Valid: `driver: gpu.example.com`.

    Upstream: `validateOpaqueConfiguration` (pkg/apis/resource/validation/validation.go).
    """
    for path, g in _configs(doc, covered=True):
        opaque = g.get("opaque")
        if not isinstance(opaque, dict):
            continue
        driver = opaque.get("driver")
        if driver is None:
            driver = ""  # missing: the zero value is validated (the Required error replaces the schema's)
        if not isinstance(driver, str):
            continue
        for etype, msg in driver_name_error_types(driver):
            if etype == "Required":
                text = "opaque.driver must not be empty: name the DRA driver the parameters are for"
            elif not driver:
                if doc.release_tuple >= (1, 35):
                    # 1.35 passes coverage options to ValidateCSIDriverName; whether an empty
                    # name still gets the format error too is not known (dra-api-rules.md §5.6 "may").
                    continue
                text = f"opaque.driver '' is not a valid driver name either: {msg}"
            else:
                text = f"opaque.driver '{driver}' is not a valid driver name: {msg}"
            report(path + ("opaque", "driver"), text, error_type=etype)


@rule("DRA528", "opaque-parameters", severity="error", kinds=KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONFIG)
def opaque_parameters(doc, report):
    """`opaque.parameters` must be a JSON object of at most 10240 bytes (the size limit applies from 1.32).

    The size is measured on the compact JSON kubectl sends; values within 1%
    of the limit are reported as approximate. `null`, strings, numbers and
    lists are rejected.

    Invalid: `parameters: [a, b]` or `parameters: "mode=shared"`.
    Valid: `parameters: {apiVersion: gpu.example.com/v1, kind: GpuConfig}`.

    Upstream: `validateRawExtension` (pkg/apis/resource/validation/validation.go).
    """
    for path, g in _configs(doc):
        opaque = g.get("opaque")
        if not isinstance(opaque, dict) or "parameters" not in opaque:
            continue  # missing: the schema check reports the required field
        params = opaque["parameters"]
        where = path + ("opaque", "parameters")
        if params is None:
            continue  # `parameters: null` is the same as missing (schema check)
        if doc.release_tuple >= (1, 32):
            size = go_json_size(params)
            if size > OPAQUE_PARAMETERS_MAX:
                approx = " (about, measured as compact JSON)" if size <= OPAQUE_PARAMETERS_MAX * 1.01 else ""
                report(where, f"opaque.parameters is {size} bytes{approx}; at most {OPAQUE_PARAMETERS_MAX} are allowed", error_type="TooLong", at_key=True)
                continue
        if not isinstance(params, dict):
            kind = "a list" if isinstance(params, list) else f"a {type(params).__name__.replace('str', 'string').replace('bool', 'boolean').replace('int', 'number').replace('float', 'number')}"
            report(where, f"opaque.parameters must be a JSON object, not {kind}", error_type="Invalid")
