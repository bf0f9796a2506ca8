"""ResourcePoolStatusRequest (resource.k8s.io/v1alpha3, 1.36+, feature gate DRAResourcePoolStatus).

The spec names which pools a one-time status report covers. Ported from
`validateResourcePoolStatusRequestSpec` (pkg/apis/resource/validation/
validation_resourcepoolstatusrequest.go); its status is written by the
controller through `/status` and is not judged here.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import gate_enabled, kind_gate_enabled
from dralint.k8s.names import driver_name_error_types, fully_qualified_name, pool_name_error_types

LIMIT_MIN = 1
LIMIT_MAX = 1000  # ResourcePoolStatusRequestLimitMax


@rule("DRA583", "pool-status-request-spec", severity="error", kinds=["ResourcePoolStatusRequest"],
      api_versions=["resource.k8s.io/v1alpha3"], releases=("1.36", None), needs=("spec.driver", "spec.poolName", "spec.limit", "spec.defaultPartitionTypeAttribute"))
def pool_status_request_spec(doc, report):
    """`spec` of a ResourcePoolStatusRequest: a driver name, an optional pool name, `limit` from 1 to 1000.

    Ports validateResourcePoolStatusRequestSpec: an empty `driver` is Required
    (and nothing else); otherwise it must be a driver name (at most 63
    characters: TooLong; a DNS subdomain when lower-cased: Invalid). `poolName`
    (a pointer) when set must not be empty (Invalid) and must be a pool name (at
    most 253 characters: TooLong; each `/`-separated part a DNS subdomain: Invalid). `limit`, when set, below 1 or
    above 1000 is Invalid. From 1.37 `defaultPartitionTypeAttribute` follows its
    declarative tags, which this kind's strategy enforces
    (`WithDeclarativeEnforcement`; it drops no field): with
    DRAPartitionableDevicesType on a fully qualified attribute name
    (`<domain>/<name>`, Invalid), with the gate off Forbidden. Not checked when
    DRAResourcePoolStatus is configured off: the kind is then not served at all.

    Invalid: `spec: {driver: gpu.example.com, limit: 0}`.
    Valid: `spec: {driver: gpu.example.com, poolName: node-1, limit: 1000}`.

    Upstream: `validatePoolName` (pkg/apis/resource/validation/validation.go).
    """
    if not kind_gate_enabled(doc, "DRAResourcePoolStatus"):
        return
    spec = doc.get("spec", type=dict)
    if spec is None:
        return
    base = ("spec",)
    driver = spec.get("driver")
    if driver == "":
        report(base + ("driver",), "driver name is required: name the DRA driver whose pools to report", error_type="Required")
    elif isinstance(driver, str):
        for etype, msg in driver_name_error_types(driver):
            report(base + ("driver",), f"driver '{driver}' is not a valid driver name: {msg}", error_type=etype)
    pool = spec.get("poolName")
    if pool == "":
        report(base + ("poolName",), "poolName must not be empty when specified: leave it out to cover every pool of the driver", error_type="Invalid")
    elif isinstance(pool, str):
        for etype, msg in pool_name_error_types(pool):
            report(base + ("poolName",), f"poolName '{pool}' is invalid: {msg}", error_type=etype)
    limit = spec.get("limit")
    if isinstance(limit, int) and not isinstance(limit, bool):
        if limit < LIMIT_MIN:
            report(base + ("limit",), f"limit {limit} must be at least {LIMIT_MIN}", error_type="Invalid")
        if limit > LIMIT_MAX:
            report(base + ("limit",), f"limit {limit} must not exceed {LIMIT_MAX}", error_type="Invalid")
    partition = spec.get("defaultPartitionTypeAttribute")
    if isinstance(partition, str) and doc.release_tuple >= (1, 37):
        where = base + ("defaultPartitionTypeAttribute",)
        if not gate_enabled(doc, "DRAPartitionableDevicesType"):
            report(where, "defaultPartitionTypeAttribute is forbidden while the DRAPartitionableDevicesType feature gate is off", error_type="Forbidden", at_key=True)
            return
        problems = fully_qualified_name(partition, doc.release_tuple)
        if problems:
            report(where, f"defaultPartitionTypeAttribute '{partition}' is not a fully qualified attribute name '<domain>/<name>': {problems[0][2]}",
                   error_type="Invalid")
