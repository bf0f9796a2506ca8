"""Device constraints of structured claims and templates (dra-api-rules.md §5.5).

`C` = `spec.devices.constraints[k]` (`spec.spec.…` in a template).
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import (
    devices_path,
    gate_enabled,
    items_validated,
    list_entries,
    report_request_refs,
    report_too_many,
    request_refs,
)
from dralint.k8s.names import fully_qualified_name
from dralint.k8s.resource import CLAIM_KINDS, DEVICE_CONSTRAINTS_MAX, DEVICE_REQUESTS_MAX, STRUCTURED

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

_BASES = {"ResourceClaim": ("spec", "devices", "constraints"), "ResourceClaimTemplate": ("spec", "spec", "devices", "constraints")}
CONSTRAINTS = ("spec.devices.constraints", "spec.spec.devices.constraints")  # where every constraint rule starts


def _constraints(doc: Any, covered: bool = False) -> list[tuple[tuple, dict]]:
    """Every entry (the hand-written checks run on each); with `covered`, none of an over-long
    list from 1.37, for the checks that declarative validation covers (`items_validated`)."""
    base = _BASES.get(doc.kind) or devices_path(doc) + ("constraints",)
    if covered and not items_validated(doc, doc.get(*base), DEVICE_CONSTRAINTS_MAX):
        return []
    return list_entries(doc, base)


def _refs(doc: Any, covered: bool = False) -> Iterator[tuple[tuple, str, int, list]]:
    """(path, value, index, list) of every validated constraint request reference."""
    return request_refs(doc, _constraints(doc, covered))


@rule("DRA501", "too-many-constraints", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONSTRAINTS)
def too_many_constraints(doc, report):
    """A claim may have at most 32 constraints (TooLong in 1.31, TooMany from 1.32).

    The API server rejects a claim (or template) over the limit: it can never be created.

    Invalid: a claim with 33 `constraints`. Valid: 32.

    Upstream: `validateDeviceClaim` (pkg/apis/resource/validation/validation.go).
    """
    seq = doc.get(*devices_path(doc), "constraints", type=list, default=[])
    if len(seq) > DEVICE_CONSTRAINTS_MAX:
        report_too_many(doc, report, devices_path(doc) + ("constraints",), len(seq), DEVICE_CONSTRAINTS_MAX, "spec.devices.constraints")


@rule("DRA502", "constraint-requests-too-many", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONSTRAINTS)
def constraint_requests_too_many(doc, report):
    """A constraint may name at most 32 requests (TooLong in 1.31, TooMany from 1.32).

    The API server rejects a claim (or template) over the limit: it can never be created.

    Invalid: a constraint whose `requests` lists 33 names. Valid: 32.

    Upstream: `validateDeviceConstraint` (pkg/apis/resource/validation/validation.go).
    """
    for path, c in _constraints(doc, covered=True):
        seq = c.get("requests")
        if isinstance(seq, list) and len(seq) > DEVICE_REQUESTS_MAX:
            report_too_many(doc, report, path + ("requests",), len(seq), DEVICE_REQUESTS_MAX, "constraint requests")


@rule("DRA503", "constraint-request-duplicate", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONSTRAINTS)
def constraint_request_duplicate(doc, report):
    """A constraint must not name the same request twice.

    Invalid: `requests: [gpu, gpu]`. Valid: `requests: [gpu, nic]`.

    Upstream: `validateDeviceConstraint` (pkg/apis/resource/validation/validation.go).
    """
    report_request_refs(doc, report, _refs(doc, covered=True), "duplicate", "constraint")


@rule("DRA504", "constraint-request-name-format", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONSTRAINTS)
def constraint_request_format(doc, report):
    """Constraint request references must be DNS-1123 labels (`<request>` or `<request>/<subrequest>` from 1.33).

    Invalid: `requests: [GPU]`. Valid: `requests: [gpu]`.

    Upstream: `validateRequestNameRef` (pkg/apis/resource/validation/validation.go).
    """
    report_request_refs(doc, report, _refs(doc), "format", "constraint")


@rule("DRA505", "constraint-request-unknown", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONSTRAINTS)
def constraint_request_unknown(doc, report):
    """Constraint request references must name a request (or `<request>/<subrequest>`) of the claim.

    Invalid: `requests: [gpu-1]` when the only request is `gpu-0`.
    Valid: `requests: [gpu-0]`.

    Upstream: `validateRequestNameRef` (pkg/apis/resource/validation/validation.go).
    """
    report_request_refs(doc, report, _refs(doc), "unknown", "constraint")


@rule("DRA506", "constraint-attribute-required", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONSTRAINTS)
def constraint_attribute_required(doc, report):
    """A constraint needs `matchAttribute` (or, with DRAConsumableCapacity on, `distinctAttribute`).

    `distinctAttribute` (1.34+) is dropped while the DRAConsumableCapacity
    gate is off (the default in 1.34-1.35), leaving `matchAttribute` missing.

    Invalid:

        constraints:
        - requests: [a, b]

    Valid:

        constraints:
        - requests: [a, b]
          matchAttribute: gpu.example.com/numa

    Upstream: `validateDeviceConstraint` (pkg/apis/resource/validation/validation.go).
    """
    consumable = doc.release_tuple >= (1, 34) and gate_enabled(doc, "DRAConsumableCapacity")
    for path, c in _constraints(doc):
        if c.get("matchAttribute") is not None:
            continue
        if consumable and c.get("distinctAttribute") is not None:
            continue
        if consumable:
            report(path, "constraint needs matchAttribute or distinctAttribute", error_type="Required")
        else:
            extra = " (distinctAttribute is dropped while the DRAConsumableCapacity feature gate is off)" if c.get("distinctAttribute") is not None else ""
            report(path + ("matchAttribute",), f"constraint needs matchAttribute, e.g. 'gpu.example.com/numa'{extra}", error_type="Required")


@rule("DRA507", "constraint-attribute-format", severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.31", None), needs=CONSTRAINTS)
def constraint_attribute_format(doc, report):
    """`matchAttribute`/`distinctAttribute` must be a fully qualified attribute name `<domain>/<identifier>`.

    The domain follows the driver-name rule (DNS subdomain, at most 63
    characters), the identifier is a C identifier of at most 32 characters.

    Invalid: `matchAttribute: parentDeviceID`. Valid: `matchAttribute: gpu.example.com/parentDeviceID`.

    Upstream: `validateCIdentifier`, `validateFullyQualifiedName` (pkg/apis/resource/validation/validation.go).
    """
    consumable = doc.release_tuple >= (1, 34) and gate_enabled(doc, "DRAConsumableCapacity")
    for path, c in _constraints(doc, covered=True):
        field = "matchAttribute"
        value = c.get("matchAttribute")
        if value is None and consumable:
            field, value = "distinctAttribute", c.get("distinctAttribute")
        if not isinstance(value, str):
            continue
        for suffix, etype, msg in fully_qualified_name(value, doc.release_tuple):
            report(path + (field,) + suffix, f"{field} '{value}' is invalid: {msg}", error_type=etype, locate=path + (field,))
