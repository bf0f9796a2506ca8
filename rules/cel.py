"""CEL device selectors (dra-api-rules.md §7): every `selectors[k].cel.expression` is
compiled the way the API server of the target release compiles a new expression.

Where: ResourceClaim `spec.devices.requests[i]` and ResourceClaimTemplate
`spec.spec.devices.requests[i]` — flat shape (v1alpha3/v1beta1: `selectors`
on the request), nested shape (v1beta2/v1: `exactly.selectors`) and
`firstAvailable[j].selectors` — and DeviceClass `spec.selectors`.

Paths follow the API server: from 1.33 a flat-shape request's selectors are
reported under `requests[i].exactly.selectors…` (validation runs on the
internal nested type) but located at the real `requests[i].selectors…`.
Every problem points at the offending character inside the expression.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.claims import SELECTORS, gate_enabled, selector_lists
from dralint.model import format_path

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

_STRUCTURED = {
    "resource.k8s.io/v1alpha3",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1",
}
_FLAT = {"v1alpha3", "v1beta1"}
_KINDS = {"ResourceClaim", "ResourceClaimTemplate", "DeviceClass"}
_ERROR_TYPE = {
    "syntax": "Invalid",
    "undeclared": "Invalid",
    "type": "Invalid",
    "result-type": "Invalid",
    "too-long": "TooLong",
    "cost": "Forbidden",
}


def _selectors(doc, base: tuple, located: tuple, seq: list | None = None) -> Iterator[tuple[tuple, tuple, str]]:
    """(reported path, source path, expression) of each selector in the list at `located`."""
    entries = enumerate(seq) if seq is not None else doc.items(*located)
    for k, sel in entries:
        if not isinstance(sel, dict):
            continue
        cel = sel.get("cel")
        if not isinstance(cel, dict):
            continue
        expression = cel.get("expression")
        if isinstance(expression, str):
            yield base + (k, "cel", "expression"), located + (k, "cel", "expression"), expression


def selector_expressions(doc) -> Iterator[tuple[tuple, tuple, str]]:
    """Every CEL selector the API server compiles: (path, locate, expression).

    Only the selector lists the server validates (`_claims.selector_lists`): not
    those of a request that sets both `exactly` and `firstAvailable` (1.33+).
    The hand-written CEL check runs on every selector, also inside an
    over-long list (requests > 32, firstAvailable > 8, selectors > 32).
    """
    for api, src, seq in selector_lists(doc):
        yield from _selectors(doc, api, src, seq)
    if doc.kind == "DeviceClass" or doc.version in _FLAT:
        return
    # Selectors left on a v1beta2/v1 request itself (a flat-shape habit) are an unknown field the
    # schema check reports; their expressions are checked too, so that fixing the nesting does
    # not reveal a second round of errors.
    spec: tuple = ("spec",) if doc.kind == "ResourceClaim" else ("spec", "spec")
    requests = spec + ("devices", "requests")
    for i, _req in doc.items(*requests):
        r = requests + (i,)
        yield from _selectors(doc, r + ("selectors",), r + ("selectors",))


def _issues(doc) -> list[tuple[tuple, tuple, Any]]:
    """(path, source path, CelIssue) of every selector of the document, compiled once for all six rules."""
    selectors = list(selector_expressions(doc))
    if not selectors:
        return []
    # The same gates as the other rules: the release's defaults unless the user set them.
    gates = tuple(g for g in ("DRAConsumableCapacity", "DRAListTypeAttributes") if gate_enabled(doc, g))
    return [
        (path, locate, issue)
        for path, locate, expression in selectors
        for issue in _verdict(expression, doc.release, gates)
    ]


# Verdicts of this process: compile_selector asks its on-disk cache (a SHA-256 key and an HMAC
# seal) for every selector, and a repository repeats the same few expressions in thousands of
# documents. A verdict that could not be reached is not kept: it is asked again.
_VERDICTS: dict[tuple[str, str, tuple[str, ...]], tuple] = {}


def _verdict(expression: str, release: str, gates: tuple[str, ...]) -> tuple:
    key = (expression, release, gates)
    found = _VERDICTS.get(key)
    if found is None:
        from dralint.cel import UNCHECKED, compile_selector  # documents without selectors never load CEL

        found = tuple(compile_selector(expression, release, feature_gates=gates))
        if not any(issue.kind in UNCHECKED for issue in found):
            if len(_VERDICTS) >= 4096:
                _VERDICTS.clear()
            _VERDICTS[key] = found
    return found


def _check(doc, report, kinds: set[str], unchecked: str | None = None) -> None:
    """Report the issues of `kinds`; then fail (DRA901) if an expression could not be judged (`unchecked`)."""
    issues = doc.memo("cel-issues", lambda: _issues(doc))
    for path, locate, issue in issues:
        if issue.kind not in kinds:
            continue
        string_range = None
        if issue.offset is not None:
            string_range = (issue.offset, issue.offset + max(issue.length, 0))
        report(
            path,
            issue.message,
            error_type=_ERROR_TYPE.get(issue.kind), show_type=False,
            locate=locate if locate != path else None,
            string_range=string_range,
            replace_with=issue.suggestions,
        )
    # A selector that could not be checked must not pass as a good one: the engine
    # turns the exception into DRA901 (an error), after this rule's own findings.
    failed = [f"{format_path(path)}: {issue.message}" for path, _, issue in issues if issue.kind == unchecked]
    if failed:
        from dralint.cel import CelUnchecked  # only reached when CEL was consulted

        raise CelUnchecked("; ".join(dict.fromkeys(failed)))


_COMMON: dict[str, Any] = dict(kinds=_KINDS, api_versions=_STRUCTURED, releases=("1.31", None), needs=SELECTORS)


@rule("DRA401", "cel-syntax", **_COMMON)
def cel_syntax(doc, report):
    """A CEL selector expression does not parse.

    The API server rejects the object (Invalid, "compilation failed"). The
    problem points at the offending character; an expression that ends too
    early (a dangling `||` or `&&`) points at the dangling operator.

    Invalid: `expression: device.driver ==`. Valid: `expression: device.driver == "gpu.example.com"`.

    Upstream: `convertCELErrorToValidationError` (pkg/apis/resource/validation/validation.go).
    """
    _check(doc, report, {"syntax"}, unchecked="internal")


@rule("DRA402", "cel-undeclared-reference", **_COMMON)
def cel_undeclared(doc, report):
    """A CEL selector refers to a variable, field or function that does not exist in the target release.

    The only variable is `device`, with the fields `driver`, `attributes` and
    `capacity` (`allowMultipleAllocations` only from 1.34 with the alpha gate
    DRAConsumableCapacity). Library functions count from the release whose
    CEL environment offers them to new expressions (e.g. `format.*` from 1.32,
    two-variable comprehensions from 1.33). Invalid at the expression.

    Invalid: `device.vendor == "gpu.example.com"`. Valid: `device.driver == "gpu.example.com"`.

    Upstream: `convertCELErrorToValidationError` (pkg/apis/resource/validation/validation.go).
    """
    _check(doc, report, {"undeclared"})


@rule("DRA403", "cel-type", **_COMMON)
def cel_type(doc, report):
    """A CEL selector does not type-check (no matching overload), e.g. comparing a quantity with an int.

    Attribute values are dynamically typed, so only mistakes the checker can
    see statically are reported. Invalid at the expression.

    Invalid: `device.capacity["gpu.example.com"].memory > 1`.
    Valid: `device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) > 0`.

    Upstream: `convertCELErrorToValidationError` (pkg/apis/resource/validation/validation.go).
    """
    _check(doc, report, {"type"})


@rule("DRA404", "cel-result-not-bool", **_COMMON)
def cel_result(doc, report):
    """A CEL selector evaluates to something other than bool (or an attribute of unknown type).

    E.g. `device.driver` alone is a string; write `device.driver == "example.com"`.
    Invalid at the expression.

    Invalid: `expression: device.driver`. Valid: `expression: device.driver == "gpu.example.com"`.

    Upstream: `convertCELErrorToValidationError` (pkg/apis/resource/validation/validation.go).
    """
    _check(doc, report, {"result-type"})


@rule("DRA405", "cel-expression-too-long", kinds=_KINDS, api_versions=_STRUCTURED, releases=("1.32", None), needs=SELECTORS)
def cel_too_long(doc, report):
    """A CEL selector is longer than 10240 bytes (1.32+).

    The API server rejects it (TooLong) and does not compile it, so it checks nothing else of the expression.

    Invalid: an `expression` of 10241 bytes. Valid: one of 10240 bytes.

    Upstream: `validateCELExpression`, `validateCELSelector` (pkg/apis/resource/validation/validation.go).
    """
    _check(doc, report, {"too-long"})


@rule("DRA406", "cel-cost-exceeded", kinds=_KINDS, api_versions=_STRUCTURED, releases=("1.32", None), needs=SELECTORS)
def cel_cost(doc, report):
    """The estimated worst-case cost of a CEL selector exceeds 1,000,000 units (1.32+); Forbidden.

    The estimate assumes what the API server assumes: up to 32 attribute and
    capacity domains with 32 entries each and strings of bounded length, so
    comprehensions nested four deep over `device.attributes` are rejected even
    though real devices are small. The estimate is best effort (docs/cel.md).

    Invalid: `device.attributes.all(d1, device.attributes[d1].all(k1, device.attributes.all(d2,
    device.attributes[d2].all(k2, k1 != k2 || d1 == d2))))`.
    Valid: `device.attributes.all(d1, device.attributes[d1].all(k1, true))`.

    Upstream: `validateCELExpression`, `validateCELSelector` (pkg/apis/resource/validation/validation.go).
    """
    _check(doc, report, {"cost"}, unchecked="cost-unknown")
