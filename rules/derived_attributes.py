"""Derived attributes of claim requests (1.37+, feature gate DRADerivedAttributes).

`D` = `R.exactly.derivedAttributes` (the flat v1beta1 request: reported there,
located at `R.derivedAttributes`) and `R.firstAvailable[j].derivedAttributes`.
Ported from validateDeviceDerivedAttributes / validateDeviceDerivedAttribute
(pkg/apis/resource/validation, 1.38 tree) and the declarative `+k8s:` tags of
DeviceDerivedAttribute (`name`: required, fully qualified name; `expression`:
required; the list: at most 32). With the gate off the field is dropped before
validation (DRA801 says so) and none of this runs.

The hand-written checks run only where the server reaches them: not in a
request list over 32 entries nor in a firstAvailable list over 8 (validateSet
short-circuits there).
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import (
    devices_path,
    gate_enabled,
    raw_requests,
    request_paths,
    too_many_type,
    validated_exacts,
    validated_subrequests,
)
from dralint.k8s.names import fully_qualified_name
from dralint.k8s.resource import CLAIM_KINDS, DEVICE_REQUESTS_MAX, FIRST_AVAILABLE_MAX, STRUCTURED

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

DERIVED_ATTRIBUTES_MAX = 32
CEL_EXPRESSION_MAX = 10 * 1024  # CELSelectorExpressionMaxLength, shared with selectors
GATE = "DRADerivedAttributes"
_COMMON: dict[str, Any] = dict(severity="error", kinds=CLAIM_KINDS, api_versions=STRUCTURED, releases=("1.37", None), needs=request_paths("derivedAttributes"))


def _lists(doc: Any) -> Iterator[tuple[str, tuple, tuple, list]]:
    """(request reference, API path, source path, list) of every derivedAttributes list the server validates."""
    if not gate_enabled(doc, GATE) or len(raw_requests(doc)) > DEVICE_REQUESTS_MAX:
        return
    for req, exact in validated_exacts(doc):
        seq = exact.data.get("derivedAttributes")
        if isinstance(seq, list):
            api, src = exact.at("derivedAttributes")
            yield _name(req.data), api, src, seq
    for req, sub in validated_subrequests(doc):
        fa = req.first_available_raw
        if isinstance(fa, list) and len(fa) > FIRST_AVAILABLE_MAX:
            continue
        seq = sub.data.get("derivedAttributes")
        if isinstance(seq, list):
            api, src = sub.at("derivedAttributes")
            yield f"{_name(req.data)}/{_name(sub.data)}", api, src, seq


def _name(data: dict) -> str:
    name = data.get("name")
    return name if isinstance(name, str) else ""


def _entries(doc: Any) -> Iterator[tuple[str, tuple, tuple, dict]]:
    for ref, api, src, seq in _lists(doc):
        for k, entry in enumerate(seq):
            if isinstance(entry, dict):
                yield ref, api + (k,), src + (k,), entry


def _constraint_attributes(doc: Any) -> dict[str, set[str]]:
    """gatherConstraintAttributes: request reference ("" for every request) -> attribute names its constraints use.

    A constraint's `distinctAttribute` counts only while DRAConsumableCapacity keeps it.
    """
    distinct = gate_enabled(doc, "DRAConsumableCapacity")
    attrs: dict[str, set[str]] = {}
    for c in doc.get(*devices_path(doc), "constraints", type=list, default=[]):
        if not isinstance(c, dict):
            continue
        name = c.get("matchAttribute")
        if name is None and distinct:
            name = c.get("distinctAttribute")
        if not isinstance(name, str):
            continue
        targets = c.get("requests") if isinstance(c.get("requests"), list) else []
        for target in [t for t in targets if isinstance(t, str)] or [""]:
            attrs.setdefault(target, set()).add(name)
    return attrs


def _used(name: str, ref: str, attrs: dict[str, set[str]]) -> bool:
    """isAttributeUsedByConstraint: by a constraint on every request, on this (sub)request, or on its parent."""
    parent = ref.split("/", 1)[0]
    return any(name in attrs.get(key, ()) for key in ("", ref, parent))


@rule("DRA321", "derived-attributes-list", **_COMMON)
def derived_attributes_list(doc, report):
    """A request's `derivedAttributes`: at most 32 entries, each name once.

    Ports validateDeviceDerivedAttributes (validateSet keyed by name, no size
    limit of its own: Duplicate at the repeated entry) and the declarative
    `+k8s:maxItems=32` (TooMany). Checked only with DRADerivedAttributes on.

    Invalid: two entries both named `example.com/numa`.
    Valid: entries named `example.com/numa` and `example.com/socket`.

    Upstream: `validateDeviceDerivedAttributes` (pkg/apis/resource/validation/validation.go).
    """
    for _ref, api, src, seq in _lists(doc):
        if len(seq) > DERIVED_ATTRIBUTES_MAX:
            etype = too_many_type(doc)
            report(api, f"{len(seq)} derived attributes; at most {DERIVED_ATTRIBUTES_MAX} are allowed", error_type=etype, locate=src, at_key=True)
        seen: set[str] = set()
        for k, entry in enumerate(seq):
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str):
                continue
            if name in seen:
                report(api + (k,), f"derived attribute '{name}' is defined twice in this request", error_type="Duplicate",
                       locate=src + (k, "name"), at_key=True)
            seen.add(name)


@rule("DRA322", "derived-attribute-name", **_COMMON)
def derived_attribute_name(doc, report):
    """A derived attribute's `name`: required, a fully qualified name, and used by a constraint on its request.

    Ports validateDeviceDerivedAttribute: a non-empty name must be the
    `matchAttribute` (or, with DRAConsumableCapacity on, `distinctAttribute`) of
    a constraint that applies to the request — one without `requests`, one
    naming the request, or, for a subrequest, one naming it or its parent
    (Invalid). The declarative tags add: empty is Required, and the name must be
    `<domain>/<identifier>` (Invalid). Checked only with DRADerivedAttributes on.

    Invalid:

        derivedAttributes:
        - {name: example.com/numa, expression: device.attributes["gpu.example.com"].numa}
        # ...and no constraint with matchAttribute: example.com/numa

    Valid: the same with `constraints: [{matchAttribute: example.com/numa}]`.

    Upstream: `validateDeviceDerivedAttribute` (pkg/apis/resource/validation/validation.go).
    """
    attrs = None
    for ref, api, src, entry in _entries(doc):
        name = entry.get("name")
        if name == "":
            report(api + ("name",), "a derived attribute needs a name, e.g. 'derived/numaNode'", error_type="Required", locate=src + ("name",))
            continue
        if not isinstance(name, str):
            continue
        problems = fully_qualified_name(name, doc.release_tuple)
        if problems:
            report(api + ("name",), f"derived attribute name '{name}' is not '<domain>/<identifier>': {problems[0][2]}",
                   error_type="Invalid", locate=src + ("name",))
        attrs = _constraint_attributes(doc) if attrs is None else attrs
        if not _used(name, ref, attrs):
            report(api + ("name",), f"derived attribute '{name}' must be referenced by at least one matchAttribute or distinctAttribute "
                                    f"constraint targeting request '{ref}'", error_type="Invalid", locate=src + ("name",))


@rule("DRA323", "derived-attribute-expression", **_COMMON)
def derived_attribute_expression(doc, report):
    """A derived attribute's `expression`: required, at most 10240 bytes, a CEL expression that compiles, within the cost limits.

    Ports validateDeviceDerivedAttribute's call of validateCELExpression (the
    declarative tag: empty is Required): longer than 10240 bytes is TooLong and
    not compiled; otherwise syntax errors, unknown names and type errors are
    Invalid, as for selectors, but the expression may return any scalar or list
    of scalars. An estimated worst-case cost over 1,000,000 is Forbidden at the
    expression, and so is the claim whose derived attributes together exceed
    that budget (DeviceClaimDerivedAttributeCELMaxCost, at `spec.devices`).
    Checked only with DRADerivedAttributes on.

    Invalid: `expression: device.attributes[`. Valid: `expression: device.attributes["gpu.example.com"].numa`.

    Upstream: `convertCELErrorToValidationError`, `validateCELExpression`, `validateDeviceClaim` (pkg/apis/resource/validation/validation.go).
    """
    total, failed = 0, []
    for _ref, api, src, entry in _entries(doc):
        expression = entry.get("expression")
        where, located = api + ("expression",), src + ("expression",)
        if expression == "":
            report(where, "a derived attribute needs an expression", error_type="Required", locate=located)
            continue
        if not isinstance(expression, str):
            continue
        if len(expression.encode("utf-8")) > CEL_EXPRESSION_MAX:
            report(where, f"the expression may be at most {CEL_EXPRESSION_MAX} bytes", error_type="TooLong", locate=located, at_key=True)
            continue
        verdict = _compile(expression, doc)
        total += verdict.cost
        for issue in verdict.issues:
            etype = _ERROR_TYPE.get(issue.kind)
            if etype is None:
                failed.append(issue.message)
                continue
            span = (issue.offset, issue.offset + max(issue.length, 0)) if issue.offset is not None else None
            report(where, f"{issue.message}", error_type=etype, locate=located, string_range=span)
    if total > CLAIM_DERIVED_COST_MAX:
        report(devices_path(doc), f"the derived attributes' CEL expressions together have an estimated cost of {total}, over the claim's "
                                  f"budget of {CLAIM_DERIVED_COST_MAX}", error_type="Forbidden", at_key=True)
    if failed:
        from dralint.cel import CelUnchecked  # an expression that could not be judged must not pass (DRA901)

        raise CelUnchecked("; ".join(dict.fromkeys(failed)))


_ERROR_TYPE = {"syntax": "Invalid", "undeclared": "Invalid", "type": "Invalid", "cost": "Forbidden"}
CLAIM_DERIVED_COST_MAX = 1_000_000  # DeviceClaimDerivedAttributeCELMaxCost


def _compile(expression: str, doc: Any) -> Any:
    from dralint.cel import compile_derived_attribute  # documents without derived attributes never load CEL

    gates = [g for g in ("DRAConsumableCapacity", "DRAListTypeAttributes") if gate_enabled(doc, g)]
    return compile_derived_attribute(expression, doc.release, feature_gates=gates)
