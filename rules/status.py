"""ResourceClaim status (dra-api-rules.md §8).

The API server discards `status` when a claim is created (and on normal
updates); only writes to the `/status` subresource are validated. So a
status in a manifest is reported as a warning that it is ignored (DRA600),
and the problems the `/status` endpoint would reject are reported as
warnings with the server's path and error type (DRA601-DRA603), modelled as
a status write right after creation (no previous status).
"""

from __future__ import annotations

import re

from dralint.api import rule
from dralint.k8s.claims import (
    RequestNames,
    check_request_ref,
    duplicate_path,
    gate_enabled,
    node_selector_problems,
    too_many_type,
)
from dralint.k8s.names import dns1123_label, dns1123_subdomain, driver_name_error_types, go_json_size, interface_address_problem, qualified_name
from dralint.k8s.resource import CLASSIC, STRUCTURED

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

ALL = [*CLASSIC, *STRUCTURED]
# Compiled by `re` on first use, not at import: only shareIDs need it.
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


STATUS = ("status",)  # DRA601-603 start from `_status`


def _status(doc: Any) -> dict | None:
    status = doc.get("status", type=dict)
    return status or None


def _driver(report: Any, path: tuple, value: Any) -> None:
    if not isinstance(value, str):
        return
    for etype, msg in driver_name_error_types(value):
        report(path, f"'{value}' is not a valid driver name: {msg}", error_type=etype)


def _pool(report: Any, path: tuple, value: Any) -> None:
    if not isinstance(value, str):
        return
    if value == "":
        report(path, "pool name must not be empty", error_type="Required")
        return
    if len(value) > 253:
        report(path, "pool name must be no more than 253 characters", error_type="TooLong")
    for part in value.split("/"):
        errs = dns1123_subdomain(part)
        if errs:
            report(path, f"pool name part '{part}' is invalid: {errs[-1]}", error_type="Invalid")
            break


def _device(report: Any, path: tuple, value: Any) -> None:
    if isinstance(value, str):
        errs = dns1123_label(value)
        if errs:
            report(path, f"device name '{value}' is invalid: {errs[-1]}", error_type="Invalid")


@rule("DRA600", "status-ignored-on-create", severity="warning", kinds=["ResourceClaim"], api_versions=ALL, needs=STATUS)
def status_ignored(doc, report):
    """A ResourceClaim's `status` is discarded when the claim is created.

    Only drivers and the scheduler write status, through the `/status`
    subresource. Remove it from manifests (it usually comes from
    `kubectl get -o yaml`).

    Invalid: a claim with a non-empty `status`, e.g. `status: {allocation: ...}`.
    Valid: the same claim without `status`.

    Upstream: `PrepareForCreate` (pkg/registry/resource/resourceclaim/strategy.go).
    """
    if _status(doc) is not None:
        report(("status",), "status is ignored when the claim is created; remove it from the manifest", at_key=True)


@rule("DRA601", "status-reserved-for", severity="warning", kinds=["ResourceClaim"], api_versions=ALL, needs=STATUS)
def reserved_for(doc, report):
    """`status.reservedFor` as the `/status` endpoint validates it.

    At most 32 entries (256 from 1.32), unique `uid`, each with `resource`,
    `name` and `uid`; not allowed without `status.allocation`; in classic
    DRA more than one entry needs `allocation.shareable: true`.

    Invalid: two `reservedFor` entries with `uid: "1"`, or any without `status.allocation`.
    Valid: `reservedFor` entries with distinct `uid`s beside a `status.allocation`.

    Upstream: `validateResourceClaimStatusUpdate`, `validateResourceClaimUserReference` (pkg/apis/resource/validation/validation.go).
    """
    status = _status(doc)
    if status is None:
        return
    seq = status.get("reservedFor")
    if not isinstance(seq, list) or not seq:
        return
    base = ("status", "reservedFor")
    limit = 256 if doc.release_tuple >= (1, 32) else 32
    if len(seq) > limit:
        etype = too_many_type(doc)
        report(base, f"{len(seq)} reservations; at most {limit} are allowed", error_type=etype, at_key=True)
        if doc.release_tuple >= (1, 35):
            return
    seen: set[str] = set()
    for n, ref in enumerate(seq):
        if not isinstance(ref, dict):
            continue
        for key in ("resource", "name", "uid"):
            if ref.get(key) == "":
                report(base + (n, key), f"reservedFor entry needs a non-empty {key}", error_type="Required")
        uid = ref.get("uid")
        if isinstance(uid, str):
            if uid in seen:
                path = base + (n,) if doc.version in ("v1alpha1", "v1alpha2") else duplicate_path(doc, base + (n,), "uid")
                report(path, f"uid '{uid}' is reserved twice", error_type="Duplicate", locate=base + (n, "uid"))
            seen.add(uid)
    allocation = status.get("allocation")
    if allocation is None:
        report(base, "reservedFor may not be set while status.allocation is not set", error_type="Forbidden", at_key=True)
    elif doc.version in ("v1alpha1", "v1alpha2") and isinstance(allocation, dict) and not allocation.get("shareable") and len(seq) > 1:
        report(base, "a claim without allocation.shareable may not be reserved more than once", error_type="Forbidden", at_key=True)


@rule("DRA602", "status-allocation", severity="warning", kinds=["ResourceClaim"], api_versions=ALL, needs=STATUS)
def allocation(doc, report):
    """`status.allocation` as the `/status` endpoint validates a new allocation.

    Structured (1.31+): at most 32 results, each naming a request of the
    spec, a valid driver, pool and device name (and from 1.34 at most 4
    binding and 4 binding-failure conditions, from 1.35 at most 16
    tolerations, from 1.37 a set of known skipNodeOperations); at most 64 config entries
    with `source` FromClass/FromClaim, at most 32 unique request references
    (validateDeviceAllocationConfiguration) and valid opaque config; a valid node
    selector. Classic: `driverName` required, at most 32 resource handles of
    at most 16 KiB each, `availableOnNodes` a valid node selector;
    `deallocationRequested` needs an allocation and no reservations.

    Invalid: a result with `request: tpu` in a claim whose only request is `gpu`.
    Valid: `results: [{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}]`.

    Upstream: `validateAllocationConfigSource`, `validateAllocationResult`, `validateDeviceAllocationConfiguration`, `validateDeviceAllocationResult`, `validateDeviceBindingParameters`, `validateDeviceRequestAllocationResult`, `validatePoolName`, `validateRequestNameRef`, `validateSkipNodeOperations`, `validateUID` (pkg/apis/resource/validation/validation.go).
    """
    status = _status(doc)
    if status is None:
        return
    alloc = status.get("allocation")
    if doc.version in ("v1alpha1", "v1alpha2"):
        _classic_allocation(doc, report, status, alloc)
        return
    if not isinstance(alloc, dict):
        return
    base = ("status", "allocation")
    names = RequestNames(doc)
    devices = alloc.get("devices") if isinstance(alloc.get("devices"), dict) else {}
    results = devices.get("results") if isinstance(devices.get("results"), list) else []
    rbase = base + ("devices", "results")
    if len(results) > 32:
        etype = too_many_type(doc)
        report(rbase, f"{len(results)} results; at most 32 are allowed", error_type=etype, at_key=True)
    if not (doc.release_tuple >= (1, 35) and len(results) > 32):
        for r, res in enumerate(results):
            if not isinstance(res, dict):
                continue
            p = rbase + (r,)
            req = res.get("request")
            if isinstance(req, str):
                for _kind, msg in check_request_ref(doc, req, names):
                    report(p + ("request",), f"{msg}", error_type="Invalid")
            _driver(report, p + ("driver",), res.get("driver"))
            _pool(report, p + ("pool",), res.get("pool"))
            _device(report, p + ("device",), res.get("device"))
            share = res.get("shareID")
            if doc.release_tuple >= (1, 34) and isinstance(share, str) and not re.fullmatch(_UUID, share):
                report(p + ("shareID",), f"shareID '{share}' must be a lower-case UUID", error_type="Invalid")
            _result_lists(doc, report, res, p)
    configs = devices.get("config") if isinstance(devices.get("config"), list) else []
    cbase = base + ("devices", "config")
    if len(configs) > 64:
        etype = too_many_type(doc)
        report(cbase, f"{len(configs)} config entries; at most 64 are allowed", error_type=etype, at_key=True)
    for c, cfg in enumerate(configs):
        if not isinstance(cfg, dict):
            continue
        p = cbase + (c,)
        source = cfg.get("source")
        if source == "":
            report(p + ("source",), "source must be FromClass or FromClaim", error_type="Required")
        elif isinstance(source, str) and source not in ("FromClass", "FromClaim"):
            report(p + ("source",), f"source '{source}' is not supported: use FromClass or FromClaim", error_type="NotSupported")
        _config_requests(doc, report, cfg.get("requests"), p + ("requests",), names)
        opaque = cfg.get("opaque")
        if opaque is None:
            report(p + ("opaque",), "config entry needs opaque", error_type="Required")
        elif isinstance(opaque, dict):
            _driver(report, p + ("opaque", "driver"), opaque.get("driver"))
            params = opaque.get("parameters")
            if params is None:  # validateRawExtension: empty or null; the schema check does not look into status
                report(p + ("opaque", "parameters"), "opaque.parameters must be set", error_type="Required", locate=p + ("opaque",), at_key=True)
            elif not isinstance(params, dict):
                report(p + ("opaque", "parameters"), "opaque.parameters must be a JSON object", error_type="Invalid")
    selector = alloc.get("nodeSelector")
    if isinstance(selector, dict):
        for api, src, etype, msg in node_selector_problems(selector, base + ("nodeSelector",), base + ("nodeSelector",)):
            report(api, f"{msg}", error_type=etype, locate=src)


def _config_requests(doc: Any, report: Any, seq: Any, path: tuple, names: Any) -> None:
    """validateDeviceAllocationConfiguration's `requests`: a set of at most 32 request references.

    From 1.35 an over-long list gets only its size error (validateSet short-circuits).
    """
    if not isinstance(seq, list):
        return
    if len(seq) > 32:
        etype = too_many_type(doc)
        report(path, f"{len(seq)} requests; at most 32 are allowed", error_type=etype, at_key=True)
        if doc.release_tuple >= (1, 35):
            return
    for m, ref in enumerate(seq):
        if not isinstance(ref, str):
            continue
        for _kind, msg in check_request_ref(doc, ref, names):
            report(path + (m,), f"{msg}", error_type="Invalid")
        if ref in seq[:m]:
            report(path + (m,), f"request '{ref}' is listed twice", error_type="Duplicate")


def _classic_allocation(doc: Any, report: Any, status: dict, alloc: Any) -> None:
    base = ("status",)
    driver = status.get("driverName")
    if isinstance(alloc, dict) and not driver:
        report(base + ("driverName",), "status.driverName must be set when allocation is set", error_type="Required")
    if isinstance(driver, str) and driver:
        _driver(report, base + ("driverName",), driver)
    if status.get("deallocationRequested") is True:
        if alloc is None:
            report(base + ("deallocationRequested",), "deallocationRequested may not be set without an allocation", error_type="Forbidden")
        elif status.get("reservedFor"):
            report(base + ("deallocationRequested",), "deallocation cannot be requested while reservedFor is set", error_type="Forbidden")
    if not isinstance(alloc, dict):
        return
    abase = base + ("allocation",)
    handle = alloc.get("resourceHandle")
    if isinstance(handle, str) and len(handle.encode()) > 16384:
        report(abase + ("resourceHandle",), "resourceHandle may be at most 16384 bytes", error_type="TooLong", at_key=True)
    handles = alloc.get("resourceHandles")
    if isinstance(handles, list):
        if len(handles) > 32:
            report(abase + ("resourceHandles",), f"{len(handles)} resource handles; at most 32 are allowed", error_type="TooLong", at_key=True)
        for h, item in enumerate(handles):
            if not isinstance(item, dict):
                continue
            data = item.get("data")
            if isinstance(data, str) and len(data.encode()) > 16384:
                report(abase + ("resourceHandles", h, "data"), "resource handle data may be at most 16384 bytes", error_type="TooLong", at_key=True)
            if item.get("driverName"):
                _driver(report, abase + ("resourceHandles", h, "driverName"), item.get("driverName"))
            if item.get("data") and item.get("structuredData") is not None:
                report(abase + ("resourceHandles", h), "data and structuredData are mutually exclusive", error_type="Invalid")
    selector = alloc.get("availableOnNodes")
    if isinstance(selector, dict):
        for api, src, etype, msg in node_selector_problems(selector, abase + ("availableOnNodes",), abase + ("availableOnNodes",)):
            report(api, f"{msg}", error_type=etype, locate=src)


# Per-result list limits of an allocation (Go types: +k8s:maxItems, +k8s:listType=set).
_RESULT_LIST_MAX = (("bindingConditions", 4, (1, 34)), ("bindingFailureConditions", 4, (1, 34)), ("tolerations", 16, (1, 35)))
_SKIP_NODE_OPERATIONS = ("NodePrepareResources", "NodeUnprepareResources", "*")


def _result_lists(doc: Any, report: Any, res: dict, p: tuple) -> None:
    for field, limit, since in _RESULT_LIST_MAX:
        seq = res.get(field)
        if doc.release_tuple >= since and isinstance(seq, list) and len(seq) > limit:
            etype = too_many_type(doc)
            report(p + (field,), f"{len(seq)} {field}; at most {limit} are allowed", error_type=etype, at_key=True)
    ops = res.get("skipNodeOperations")
    if doc.release_tuple >= (1, 37) and isinstance(ops, list):
        for n, op in enumerate(ops):
            if isinstance(op, str) and op not in _SKIP_NODE_OPERATIONS:
                report(p + ("skipNodeOperations", n), f"'{op}' is not supported: use {', '.join(_SKIP_NODE_OPERATIONS)}", error_type="NotSupported")
            elif op in ops[:n]:
                report(p + ("skipNodeOperations", n), f"'{op}' is listed twice", error_type="Duplicate")


@rule("DRA603", "status-devices", severity="warning", kinds=["ResourceClaim"], api_versions=STRUCTURED, releases=("1.32", None), needs=STATUS)
def device_status(doc, report):
    """`status.devices` (device health and network data) as the `/status` endpoint validates it.

    Unique driver/pool/device(/shareID), each naming an allocated device;
    at most 8 conditions, each as metav1 ValidateConditions checks it (type,
    status, reason, lastTransitionTime, message); `data` a JSON object of at most 10 KiB;
    `networkData.interfaceName` at most 256 and `hardwareAddress` at most 128
    characters, at most 16 unique IPs, each an address with a prefix length in
    canonical form (`10.9.8.7/24`). Dropped while
    DRAResourceClaimDeviceStatus is off (1.32).

    Invalid: `devices: [{driver: gpu.example.com, pool: node-1, device: gpu-1}]` when only
    `gpu-0` is allocated. Valid: the same naming `gpu-0`.

    Upstream: `validateDeviceStatus`, `validateNetworkDeviceData`, `validateResourceClaimStatusUpdate`, `validateUID` (pkg/apis/resource/validation/validation.go).
    """
    status = _status(doc)
    if status is None or not gate_enabled(doc, "DRAResourceClaimDeviceStatus"):
        return
    seq = status.get("devices")
    if not isinstance(seq, list):
        return
    allocation = status.get("allocation")
    devices = allocation.get("devices") if isinstance(allocation, dict) else None
    results = devices.get("results") if isinstance(devices, dict) else None
    allocated = {_device_key(res) for res in results if isinstance(res, dict)} if isinstance(results, list) else set()
    base = ("status", "devices")
    seen = set()
    for d, dev in enumerate(seq):
        if not isinstance(dev, dict):
            continue
        p = base + (d,)
        key = _device_key(dev)
        share = dev.get("shareID")
        if doc.release_tuple >= (1, 34) and isinstance(share, str) and not re.fullmatch(_UUID, share):
            report(p + ("shareID",), f"shareID '{share}' must be a lower-case UUID", error_type="Invalid")
        _driver(report, p + ("driver",), dev.get("driver"))
        _pool(report, p + ("pool",), dev.get("pool"))
        _device(report, p + ("device",), dev.get("device"))
        if key not in allocated:
            report(p, f"device {key[0]}/{key[1]}/{key[2]} is not an allocated device of this claim", error_type="Invalid")
        if key in seen:
            report(p, f"device {key[0]}/{key[1]}/{key[2]} is listed twice", error_type="Duplicate")
        seen.add(key)
        conditions = dev.get("conditions")
        if isinstance(conditions, list):
            if len(conditions) > 8:
                report(p + ("conditions",), f"{len(conditions)} conditions; at most 8 are allowed", error_type="TooMany", at_key=True)
            _conditions(report, conditions, p + ("conditions",))
        data = dev.get("data")
        if data is not None:
            if go_json_size(data) > 10 * 1024:
                report(p + ("data",), "data may be at most 10240 bytes of JSON", error_type="TooLong", at_key=True)
            elif not isinstance(data, dict):
                report(p + ("data",), "data must be a JSON object", error_type="Invalid")
        net = dev.get("networkData")
        if isinstance(net, dict):
            if isinstance(net.get("interfaceName"), str) and len(net["interfaceName"]) > 256:
                report(p + ("networkData", "interfaceName"), "interfaceName may be at most 256 characters", error_type="TooLong")
            if isinstance(net.get("hardwareAddress"), str) and len(net["hardwareAddress"]) > 128:
                report(p + ("networkData", "hardwareAddress"), "hardwareAddress may be at most 128 characters", error_type="TooLong")
            _network_ips(doc, report, net.get("ips"), p + ("networkData", "ips"))


_CONDITION_REASON = r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_CONDITION_STATUSES = ("False", "True", "Unknown")


def _conditions(report: Any, conditions: list, path: tuple) -> None:
    """metav1 ValidateConditions: a label-key `type` (each once), status True/False/Unknown,
    `lastTransitionTime` and a CamelCase `reason` (at most 1024 characters) set, `message`
    at most 32768 characters, `observedGeneration` not negative."""
    seen: set[str] = set()
    for n, cond in enumerate(conditions):
        if not isinstance(cond, dict):
            continue
        p = path + (n,)
        ctype = cond.get("type") if isinstance(cond.get("type"), str) else ""
        if ctype in seen:
            report(p + ("type",), f"condition type '{ctype}' is listed twice", error_type="Duplicate")
        seen.add(ctype)
        errs = qualified_name(ctype)
        if errs:
            report(p + ("type",), f"condition type '{ctype}' is invalid: {errs[0]}", error_type="Invalid")
        status = cond.get("status")
        if status not in _CONDITION_STATUSES:
            report(p + ("status",), f"condition status {status!r} is not supported: use True, False or Unknown", error_type="NotSupported")
        generation = cond.get("observedGeneration")
        if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
            report(p + ("observedGeneration",), f"observedGeneration {generation} must be greater than or equal to zero", error_type="Invalid")
        if not cond.get("lastTransitionTime"):
            report(p + ("lastTransitionTime",), "lastTransitionTime must be set", error_type="Required", locate=p, at_key=True)
        reason = cond.get("reason")
        if not reason:
            report(p + ("reason",), "reason must be set", error_type="Required", locate=p, at_key=True)
        elif isinstance(reason, str):
            if not re.fullmatch(_CONDITION_REASON, reason):
                report(p + ("reason",), f"reason '{reason}' must start with a letter and hold only letters, digits, '_', ',' and ':'", error_type="Invalid")
            if len(reason) > 1024:
                report(p + ("reason",), "reason may be at most 1024 characters", error_type="TooLong")
        message = cond.get("message")
        if isinstance(message, str) and len(message) > 32768:
            report(p + ("message",), "message may be at most 32768 characters", error_type="TooLong")


def _network_ips(doc: Any, report: Any, ips: Any, path: tuple) -> None:
    """validateNetworkDeviceData's `ips`: a set of at most 16 interface addresses.

    Over 16 is only TooMany from 1.35 (validateSet short-circuits); each entry must be
    an IP with a prefix length in canonical form (IsValidInterfaceAddress).
    """
    if not isinstance(ips, list):
        return
    if len(ips) > 16:
        report(path, f"{len(ips)} IPs; at most 16 are allowed", error_type="TooMany", at_key=True)
        if doc.release_tuple >= (1, 35):
            return
    for n, ip in enumerate(ips):
        if not isinstance(ip, str):
            continue
        problem = interface_address_problem(ip)
        if problem:
            report(path + (n,), f"IP '{ip}' {problem}", error_type="Invalid")
        if ip in ips[:n]:
            report(path + (n,), f"IP '{ip}' is listed twice", error_type="Duplicate")


def _device_key(entry: dict) -> tuple:
    """(driver, pool, device, shareID): hashable even when a value has the wrong type (the schema reports that)."""
    return tuple(v if v is None or isinstance(v, str) else repr(v) for v in (entry.get(k) for k in ("driver", "pool", "device", "shareID")))
