"""How the API server sees claims, templates and classes: the helpers the built-in rules share, public for plugins.

What the API server does before validation matters for what it reports
(dra-api-rules.md §3, §9), so this module models it once:

* the claim spec prefix: `spec` for a ResourceClaim, `spec.spec` for a template;
* request shapes: flat (v1alpha3/v1beta1) vs nested (`exactly`, v1beta2/v1),
  and from 1.33 the internal nested type that makes the server report
  flat-shape problems under `requests[i].exactly.<field>` (`Exact.api`)
  while the YAML has them at `requests[i].<field>` (`Exact.src`);
* defaulting of `allocationMode`/`count`;
* feature gates: the release's defaults unless the user set them (the fields of
  a gate that is off are dropped before the rules run, dralint.pipeline.drop);
* release differences: TooLong (1.31) vs TooMany (1.32+), duplicate paths
  (`…[n].name` up to 1.34, `…[n]` in 1.35), and from 1.37 the short-circuit of
  the declarative checks of an over-long list (see `short_circuits`).

Every derived view (the requests, the validated exact requests and subrequests,
the selector lists, the constraint and config entries, the gates, the names a
reference may use) is built once per document through `doc.memo` and shared by
every rule that asks, so a rule reads fields without walking from the root.
"""

from __future__ import annotations

from .. import gates
from ..records import NamedRecord, tuple_new
from .names import dns1123_label, dns1123_subdomain, qualified_name
from .resource import (
    CLAIM_KINDS,
    DEVICE_REQUESTS_MAX,
    EXACT_FIELDS,
    FLAT_VERSIONS,
    NESTED_VERSIONS,
    STRUCTURED_VERSIONS,
)

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterable, Iterator

Path = tuple


# --- release behaviour -------------------------------------------------------


def too_many_type(doc: Any) -> str:
    """List-size error type: TooLong up to 1.31, TooMany from 1.32."""
    return "TooLong" if doc.release_tuple < (1, 32) else "TooMany"


def short_circuits(doc: Any) -> bool:
    """Whether an over-long list stops the checks that declarative validation enforces in its entries.

    The hand-written validation (pkg/apis/resource/validation, `validateSlice`) checks
    every entry besides adding TooMany, in every release: the per-entry errors of a list
    over its maximum are reported too (the API server's own tests show them; that source
    is not in ../shared, the Go types and their tags are). Declarative validation (`+k8s:` tags) returns
    early at `+k8s:maxItems` (`MarkShortCircuit()` in zz_generated.validations.go), so
    its checks of the entries (uniqueness, formats and enums it covers) are not run. Its
    results replace the hand-written errors it covers only once the tags are enforced:
    up to 1.36 they are un-prefixed (1.35, DeclarativeValidationTakeover off by default)
    or `+k8s:alpha` (1.36, shadow only); in 1.37 `+k8s:beta`, enforced.
    """
    return doc.release_tuple >= (1, 37)


def items_validated(doc: Any, seq: Any, limit: int) -> bool:
    """Whether the declaratively covered checks of the entries of `seq` run (see `short_circuits`).

    Use it for checks a `+k8s:` tag covers (tests/tag_rules.py), not for hand-written ones."""
    return not (short_circuits(doc) and isinstance(seq, list) and len(seq) > limit)


def duplicate_path(doc: Any, item_path: Path, key: str) -> Path:
    """Where a duplicate list-map entry is reported: `item.key` up to 1.34, `item` in 1.35."""
    return item_path + (key,) if doc.release_tuple <= (1, 34) else item_path


def report_too_many(doc: Any, report: Any, path: Path, count: int, limit: int, what: str) -> None:
    etype = too_many_type(doc)
    report(path, f"{what} has {count} entries; at most {limit} are allowed", error_type=etype, at_key=True)


# --- feature gates (§9) ------------------------------------------------------

# Gate defaults per release and the fields each gate governs are generated from upstream
# (dralint.gates reads schemas/feature_gates.json); no table here.


_GATE_DEFAULTS: dict[tuple[tuple[int, int], str], bool] = {}


def gate_default(release: tuple[int, int], gate: str) -> bool:
    # Asked for every gate of every claim (~40,000 times in 10,000 documents): the answer per
    # release and gate is fixed, so it is looked up in the generated table once.
    key = (release, gate)
    try:
        return _GATE_DEFAULTS[key]
    except KeyError:
        value = _GATE_DEFAULTS[key] = gates.gate_default(f"{release[0]}.{release[1]}", gate)
        return value


def _gate_override(doc: Any, gate: str) -> bool | None:
    """The state the user set for `gate` (`--feature-gates`, `feature-gates:` in the config, a file's
    `# dralint: feature-gates=` comment, `rule-options: feature-gates`), or None."""
    configured = getattr(doc, "feature_gates", None)
    if configured is None:
        options = getattr(doc, "options", None)
        configured = options.get("feature-gates") if isinstance(options, dict) else None
    value = configured.get(gate) if isinstance(configured, dict) else None
    return value if isinstance(value, bool) else None


def gate_on_by_default(doc: Any, gate: str) -> bool:
    """The gate as the cluster has it: as the user set it, else the release's default."""
    override = _gate_override(doc, gate)
    return override if override is not None else gate_default(doc.release_tuple, gate)


def kind_gate_enabled(doc: Any, gate: str) -> bool:
    """Whether to validate a kind that `gate` serves (e.g. DRAResourcePoolStatus): unless configured off.

    A cluster with the gate off does not serve the kind at all, so none of its
    checks run; whoever writes one runs a cluster that enables it.
    """
    return _gate_override(doc, gate) is not False


def gate_enabled(doc: Any, gate: str) -> bool:
    """Whether to validate as if the gate were on: as the user set it, else the release's default.

    The fields of a gate that is off are gone by the time the rules run (dralint.pipeline.drop,
    as the API server drops them before validation; DRA801 says so), so a manifest
    that uses them is judged as the server judges what is left of it.
    """
    return gate_on_by_default(doc, gate)


def spec_fields(doc: Any) -> set[str]:
    """Every field name set (not null) anywhere in `spec`, 12 levels deep, found once per document:
    whether a document uses a field at all, e.g. one a feature gate governs, is one set test."""
    return doc.memo("spec-fields", _keys_set, doc.get("spec"))


def _keys_set(node: Any) -> set[str]:
    found: set[str] = set()
    # A stack of the mappings and lists still to look into, never scalars: a claim has a few
    # dozen fields and this runs once per document, so no call per node.
    pending = [(node, 0)] if isinstance(node, (dict, list)) else []
    while pending:
        node, depth = pending.pop()
        if depth > 12:
            continue
        if isinstance(node, dict):
            for key, value in node.items():
                if value is not None and isinstance(key, str):  # field names are strings; other keys may not hash
                    found.add(key)
                if isinstance(value, (dict, list)):
                    pending.append((value, depth + 1))
        else:
            for item in node:
                if isinstance(item, (dict, list)):
                    pending.append((item, depth + 1))
    return found


# --- what a rule needs (`@rule(needs=...)`, dralint.pipeline.dispatch) ---------------

# Where the requests of a claim and of a template are.
REQUESTS = ("spec.devices.requests", "spec.spec.devices.requests")


def claim_paths(*fields: str) -> tuple[str, ...]:
    """`needs=` paths of `fields` of the claim spec (`spec.devices.constraints` ...), in a claim and in a template."""
    return tuple(f"{base}.{field}" for base in ("spec", "spec.spec") for field in fields)


def request_paths(*fields: str) -> tuple[str, ...]:
    """`needs=` paths of `fields` wherever a request may carry them, in a claim and in a template:
    on the request itself (the flat shape), under `exactly` and on every subrequest of `firstAvailable`."""
    return tuple(f"{base}.*{middle}.{field}" for base in REQUESTS for middle in ("", ".exactly", ".firstAvailable.*") for field in fields)


# Every `selectors` list: a DeviceClass's, and a request's in every shape (also one left on a v1 request).
SELECTORS = ("spec.selectors", *request_paths("selectors"))


# --- shapes ------------------------------------------------------------------


def is_template(doc: Any) -> bool:
    return doc.kind == "ResourceClaimTemplate"


# The paths are shared constants (tuples cannot change): every claim rule asks for them.
_SPEC: Path = ("spec",)
_TEMPLATE_SPEC: Path = ("spec", "spec")
_DEVICES: Path = ("spec", "devices")
_TEMPLATE_DEVICES: Path = ("spec", "spec", "devices")


def spec_path(doc: Any) -> Path:
    """Where the claim spec lives: `spec`, or `spec.spec` in a template."""
    return _TEMPLATE_SPEC if doc.kind == "ResourceClaimTemplate" else _SPEC


def devices_path(doc: Any) -> Path:
    return _TEMPLATE_DEVICES if doc.kind == "ResourceClaimTemplate" else _DEVICES


def is_flat(doc: Any) -> bool:
    return doc.version in FLAT_VERSIONS


def is_nested(doc: Any) -> bool:
    return doc.version in NESTED_VERSIONS


def internal_nested(doc: Any) -> bool:
    """From 1.33 the server validates the nested internal type (`exactly` / `firstAvailable`)."""
    return doc.release_tuple >= (1, 33)


def _is_set(value: Any) -> bool:
    """Go zero-value test for the flat request fields the conversion looks at."""
    if value is None:
        return False
    if isinstance(value, str) and value == "":
        return False
    if isinstance(value, bool):
        return True  # adminAccess: false is a non-nil pointer
    if isinstance(value, int) and value == 0:
        return False
    return True


def str_value(data: Any, key: str) -> str | None:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


class Exact(NamedRecord):
    """The exact-count part of a request: the flat request itself or its `exactly` object."""

    __slots__ = ()

    def __new__(
        _cls,
        api: Path,  # path the API server reports, e.g. spec.devices.requests[0].exactly
        src: Path,  # path of the same object in the source (flat shape: the request)
        data: dict,
        defaulted: bool,  # whether allocationMode/count defaulting applied
    ) -> "Exact":
        return tuple_new(_cls, (api, src, data, defaulted))

    def at(self, *fields: Any) -> tuple[Path, Path]:
        """(API path, source path) of a field of the exact request."""
        return self.api + fields, self.src + fields


class SubRequest(NamedRecord):
    __slots__ = ()

    def __new__(_cls, index: int, path: Path, data: dict) -> "SubRequest":
        return tuple_new(_cls, (index, path, data))

    def at(self, *fields: Any) -> tuple[Path, Path]:
        return self.path + fields, self.path + fields


class Request(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        index: int,
        path: Path,
        data: dict,
        exact: Exact | None,
        first_available: list[SubRequest] = [],  # noqa: B006 - never mutated: each Request is built with its own list
        # What the server validates: "exact", "first", "neither" or "both" (1.33+); always "exact" before.
        state: str = "exact",
        # firstAvailable as written, before the DRAPrioritizedList drop.
        first_available_raw: Any = None,
    ) -> "Request":
        return tuple_new(_cls, (index, path, data, exact, first_available, state, first_available_raw))


def allocation(data: dict, defaulted: bool) -> tuple[Any, Any]:
    """(allocationMode, count) after defaulting, as the validation sees them."""
    mode = data.get("allocationMode")
    if mode is None:
        mode = ""
    count = data.get("count")
    if count is None or isinstance(count, bool) or not isinstance(count, (int, float)):
        count = 0
    if defaulted:
        if mode == "":
            mode = "ExactCount"
        if mode == "ExactCount" and count == 0:
            count = 1
    return mode, count


def raw_requests(doc: Any) -> list:
    """The `requests` list as written ([] when missing or not a list); do not modify it."""
    return doc.memo("raw-requests", _raw_requests, doc)


def _raw_requests(doc: Any) -> list:
    return doc.get(*devices_path(doc), "requests", type=list, default=[])


def list_entries(doc: Any, path: Path) -> list[tuple[Path, dict]]:
    """(path, mapping) of every mapping in the list at `path` (e.g. the constraints or the
    config entries of a claim), found once per document and path; do not modify it."""
    return doc.memo(("list-entries", path), _list_entries, doc, path)


def _list_entries(doc: Any, path: Path) -> list[tuple[Path, dict]]:
    seq = doc.get(*path, type=list, default=[])
    return [(path + (k,), item) for k, item in enumerate(seq) if isinstance(item, dict)]


def requests(doc: Any, *, all_entries: bool = False) -> list[Request]:
    """The requests the API server validates, modelled as described in the module docstring.

    Every entry, also of an over-long list (the hand-written checks run on each);
    `all_entries` is kept for plugins that passed it. Computed once per document:
    most claim rules start from here.
    """
    return doc.memo(("requests", all_entries), _requests, doc, all_entries)


def _requests(doc: Any, all_entries: bool) -> list[Request]:
    base = devices_path(doc) + ("requests",)
    seq = raw_requests(doc)
    prioritized = gate_enabled(doc, "DRAPrioritizedList")
    out: list[Request] = []
    for i, req in enumerate(seq):
        if not isinstance(req, dict):
            continue
        path = base + (i,)
        fa_raw = req.get("firstAvailable")
        subs: list[SubRequest] = []
        if isinstance(fa_raw, list) and prioritized:
            subs = [SubRequest(j, path + ("firstAvailable", j), s) for j, s in enumerate(fa_raw) if isinstance(s, dict)]
        has_first = isinstance(fa_raw, list) and len(fa_raw) > 0 and prioritized
        if is_nested(doc):
            ex = req.get("exactly")
            exact = Exact(path + ("exactly",), path + ("exactly",), ex, True) if isinstance(ex, dict) else None
            has_exact = exact is not None
        elif internal_nested(doc):
            has_exact = any(_is_set(req.get(f)) for f in EXACT_FIELDS)
            defaulted = bool(str_value(req, "deviceClassName"))
            exact = Exact(path + ("exactly",), path, req, defaulted) if has_exact else None
        else:
            has_exact = True
            exact = Exact(path, path, req, True)
        if not internal_nested(doc):
            state = "exact"
        elif has_exact and has_first:
            state = "both"
        elif has_exact:
            state = "exact"
        elif has_first:
            state = "first"
        else:
            state = "neither"
        out.append(Request(i, path, req, exact, subs, state, fa_raw))
    return out


# The iterators below walk lists built once per document (several rules walk each).


def validated_exacts(doc: Any) -> Iterator[tuple[Request, Exact]]:
    return iter(doc.memo("validated-exacts", _validated_exacts, doc))


def _validated_exacts(doc: Any) -> list[tuple[Request, Exact]]:
    return [(req, req.exact) for req in requests(doc) if req.state == "exact" and req.exact is not None]


def validated_subrequests(doc: Any) -> Iterator[tuple[Request, SubRequest]]:
    return iter(doc.memo("validated-subrequests", _validated_subrequests, doc))


def _validated_subrequests(doc: Any) -> list[tuple[Request, SubRequest]]:
    return [(req, sub) for req in requests(doc) if req.state == "first" for sub in req.first_available]


def device_selector_targets(doc: Any) -> Iterator[tuple[Path, Path, dict]]:
    """(API path, source path, object) of everything that has `selectors`, `deviceClassName`,
    `allocationMode`/`count` and `tolerations` and that the server validates: exact requests
    and subrequests of claims/templates."""
    return iter(doc.memo("selector-targets", _device_selector_targets, doc))


def _device_selector_targets(doc: Any) -> list[tuple[Path, Path, dict]]:
    targets = [(exact.api, exact.src, exact.data) for _req, exact in validated_exacts(doc)]
    targets += [(sub.path, sub.path, sub.data) for _req, sub in validated_subrequests(doc)]
    return targets


_CLASS_SELECTORS: Path = ("spec", "selectors")


def selector_lists(doc: Any) -> Iterator[tuple[Path, Path, list]]:
    """(API path, source path, list) of every `selectors` list the server validates, claims and classes.

    Handy for CEL rules too: report at `api + (k, "cel", "expression")`, locate at `src + (…)`.
    """
    return iter(doc.memo("selector-lists", _selector_lists, doc))


def _selector_lists(doc: Any) -> list[tuple[Path, Path, list]]:
    if doc.kind == "DeviceClass":
        seq = doc.get(*_CLASS_SELECTORS, type=list)
        return [] if seq is None else [(_CLASS_SELECTORS, _CLASS_SELECTORS, seq)]
    if doc.kind not in CLAIM_KINDS or doc.version not in STRUCTURED_VERSIONS:
        return []
    return [
        (api + ("selectors",), src + ("selectors",), data["selectors"])
        for api, src, data in device_selector_targets(doc)
        if isinstance(data.get("selectors"), list)
    ]


# --- request references (constraints, config, allocation results) -----------


class RequestNames:
    """gatherRequestNames: request name -> subrequest names (None when it has no firstAvailable)."""

    def __init__(self, doc: Any):
        self.nested = internal_nested(doc)
        self.names: dict[str, set[str] | None] = {}
        prioritized = gate_enabled(doc, "DRAPrioritizedList")
        for req in raw_requests(doc):
            if not isinstance(req, dict):
                continue
            name = req.get("name")
            if not isinstance(name, str):
                name = ""
            fa = req.get("firstAvailable") if prioritized else None
            if self.nested and isinstance(fa, list) and fa:
                self.names[name] = {s.get("name") for s in fa if isinstance(s, dict) and isinstance(s.get("name"), str)}
            else:
                self.names[name] = None

    def has(self, ref: str) -> bool:
        if not self.nested:
            return ref in self.names
        segs = ref.split("/")
        if len(segs) > 2 or segs[0] not in self.names:
            return False
        if len(segs) == 1:
            return True
        subs = self.names[segs[0]]
        return subs is not None and segs[1] in subs


def request_names(doc: Any) -> RequestNames:
    """`RequestNames(doc)`, built once per document."""
    return doc.memo("request-names", RequestNames, doc)


def check_request_ref(doc: Any, ref: str, names: RequestNames) -> list[tuple[str, str]]:
    """validateRequestNameRef: ("format" | "unknown", detail) for each problem of one reference."""
    problems: list[tuple[str, str]] = []
    if names.has(ref) and not any(dns1123_label(seg) for seg in (ref.split("/") if names.nested else (ref,))):
        return problems  # the common case, without listing the known names for a message
    known = ", ".join(sorted(n for n in names.names if n)) or "none"
    if names.nested:
        segs = ref.split("/")
        if len(segs) > 2:
            return [("unknown", f"'{ref}' must be a request name or '<request>/<subrequest>' (at most one '/')")]
        for seg in segs:
            errs = dns1123_label(seg)
            if errs:
                problems.append(("format", f"'{seg}' is not a valid request name: {errs[-1]}"))
        if not names.has(ref):
            what = "a request or '<request>/<subrequest>'" if "/" in ref else "a request"
            problems.append(("unknown", f"'{ref}' does not name {what} of this claim (requests: {known})"))
    else:
        errs = dns1123_label(ref)
        if errs:
            problems.append(("format", f"'{ref}' is not a valid request name: {errs[-1]}"))
        if not names.has(ref):
            problems.append(("unknown", f"'{ref}' does not name a request of this claim (requests: {known})"))
    return problems


# --- node selectors (ResourceClass/DeviceClass suitableNodes, status) --------


def node_selector_problems(selector: Any, api: Path, src: Path) -> Iterator[tuple[Path, Path, str, str]]:
    """core ValidateNodeSelector: (API path, source path, error type, message)."""
    if not isinstance(selector, dict):
        return
    terms = selector.get("nodeSelectorTerms")
    if terms is not None and not isinstance(terms, list):
        return  # wrong type: the schema check reports it
    if not terms:
        # Missing or empty: len(nil) == 0 in Go. The schema check leaves a missing list to this
        # rule, whose path is the server's (a 1.31 DeviceClass reports `suitableNodes…` without `spec.`).
        yield api + ("nodeSelectorTerms",), src + ("nodeSelectorTerms",), "Required", "a node selector needs at least one entry in nodeSelectorTerms"
        return
    for t, term in enumerate(terms):
        if not isinstance(term, dict):
            continue
        tp = ("nodeSelectorTerms", t)
        # A list of the wrong type is the schema check's to report.
        expressions, fields = term.get("matchExpressions"), term.get("matchFields")
        for x, req in enumerate(expressions if isinstance(expressions, list) else ()):
            if not isinstance(req, dict):
                continue
            p = tp + ("matchExpressions", x)
            op = req.get("operator")
            values = req.get("values") if isinstance(req.get("values"), list) else []
            if op in ("In", "NotIn"):
                if not values:
                    yield api + p + ("values",), src + p + ("values",), "Required", f"operator {op} needs at least one value"
            elif op in ("Exists", "DoesNotExist"):
                if values:
                    yield api + p + ("values",), src + p + ("values",), "Forbidden", f"operator {op} must not have values"
            elif op in ("Gt", "Lt"):
                if len(values) != 1:
                    yield api + p + ("values",), src + p + ("values",), "Required", f"operator {op} needs exactly one value"
            elif isinstance(op, str):
                yield api + p + ("operator",), src + p + ("operator",), "Invalid", f"operator '{op}' is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt"
            key = req.get("key")
            if isinstance(key, str):
                errs = qualified_name(key)
                if errs:
                    yield api + p + ("key",), src + p + ("key",), "Invalid", f"key '{key}' is not a valid label key: {errs[0]}"
        for x, req in enumerate(fields if isinstance(fields, list) else ()):
            if not isinstance(req, dict):
                continue
            p = tp + ("matchFields", x)
            op = req.get("operator")
            values = req.get("values") if isinstance(req.get("values"), list) else []
            if op is None:
                pass  # missing: the schema check reports it (Invalid, an empty operator)
            elif isinstance(op, str) and op not in ("In", "NotIn"):
                yield api + p + ("operator",), src + p + ("operator",), "Invalid", f"operator '{op}' is not supported for matchFields; use In or NotIn"
            elif len(values) != 1:
                yield api + p + ("values",), src + p + ("values",), "Required", "matchFields needs exactly one value"
            key = req.get("key")
            if isinstance(key, str) and key != "metadata.name":
                yield api + p + ("key",), src + p + ("key",), "Invalid", f"matchFields key '{key}' is not supported; only metadata.name is"
            elif key == "metadata.name":
                for v, value in enumerate(values):
                    if isinstance(value, str) and dns1123_subdomain(value):
                        yield api + p + ("values", v), src + p + ("values", v), "Invalid", f"'{value}' is not a valid node name"


def request_refs(doc: Any, entries: Iterable[tuple[Path, dict]]) -> Iterator[tuple[Path, str, int, list]]:
    """(path, value, index, list) of every `requests` reference of constraint or config entries."""
    for path, entry in entries:
        seq = entry.get("requests")
        if not isinstance(seq, list):
            continue
        for m, ref in enumerate(seq):
            if isinstance(ref, str):
                yield path + ("requests", m), ref, m, seq


def report_request_refs(doc: Any, report: Any, refs: Iterable[tuple[Path, str, int, list]], problem: str, where: str) -> None:
    """Report the references with `problem` ("duplicate", "format" or "unknown"), as the API server checks them."""
    names = request_names(doc) if problem != "duplicate" else None
    for path, ref, m, seq in refs:
        if problem == "duplicate":  # declarative `+k8s:unique=set` from 1.37: not in an over-long list
            if ref in seq[:m] and items_validated(doc, seq, DEVICE_REQUESTS_MAX):
                report(path, f"request '{ref}' is listed twice in this {where}", error_type="Duplicate")
            continue
        # The format and the unknown-name rules of constraints and config judge the same references.
        for kind, msg in doc.memo(("request-ref", ref), check_request_ref, doc, ref, names):
            if kind == problem:
                report(path, f"{msg}", error_type="Invalid")
