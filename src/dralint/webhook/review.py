"""AdmissionReview (admission.k8s.io/v1) in, AdmissionReview out.

Pure functions, no HTTP and no I/O, so that the server, the tests and anyone
embedding dralint in another webhook share one implementation:

    request = parse_review(body)          # ReviewError -> HTTP 400
    decision = decide(request, policy)    # lints request.object (and oldObject on UPDATE)
    body = encode(decision.review)

What is answered:

* CREATE / UPDATE: `request.object` is linted as a Document without source
  text (problems carry field paths only). Problems at or above the failing
  severity (default error) deny with `status.code` 422, reason `Invalid`,
  a message listing each problem as `path: message [CODE]`, and one
  `status.details.causes` entry per problem. Lower problems down to warning
  become `warnings` (each cut to 120 characters, as the API server advises).
* UPDATE of ResourceClaim / ResourceClaimTemplate: a changed `spec` is one
  Invalid error at `spec` (`DRA022 immutable-field`), as the API server
  reports it. DeviceClass (and the old ResourceClass) specs are mutable.
  Problems the old object already had do not deny an update (ratcheting, as
  the API server does for its own validation): a claim created before a rule
  existed can still get its finalizers removed. They are returned as warnings.
* DELETE and CONNECT: allowed, nothing is linted.
* `dryRun` requests are judged exactly like the others.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..k8s.resource import GROUP
from ..model import Document, Node, Problem, Severity, Span, format_path

REVIEW_API_VERSION = "admission.k8s.io/v1"
REVIEW_KIND = "AdmissionReview"
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
SOURCE = "<admission>"

# Kinds whose whole `spec` the API server refuses to change on update.
IMMUTABLE_SPEC_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})
IMMUTABLE_CODE = "DRA022"
IMMUTABLE_SLUG = "immutable-field"

WARNING_MAX_CHARS = 120  # "Limit warnings to 120 characters if possible" (AdmissionResponse.warnings)
MAX_WARNINGS = 32  # "large numbers of warnings may be truncated": say how many were left out instead
MAX_LISTED_PROBLEMS = 50  # in status.message; the rest are counted
MAX_LINE_CHARS = 400
DENY_CODE = 422  # what the API server itself answers for an invalid object (StatusReasonInvalid)

_CAUSE_TYPES = {
    "Required": "FieldValueRequired",
    "Invalid": "FieldValueInvalid",
    "NotSupported": "FieldValueNotSupported",
    "Duplicate": "FieldValueDuplicate",
    "TooLong": "FieldValueTooLong",
    "TooMany": "FieldValueTooMany",
    "Forbidden": "FieldValueForbidden",
    "NotFound": "FieldValueNotFound",
    "TypeInvalid": "FieldValueTypeInvalid",
}


class ReviewError(ValueError):
    """The body is not an admission.k8s.io/v1 AdmissionReview request: HTTP 400, never a review."""


@dataclass
class Policy:
    """What the webhook judges with: the lint options and the lowest severity that denies."""

    options: Any  # dralint.lint.LintOptions
    fail_on: Severity = Severity.ERROR


@dataclass
class Decision:
    uid: str
    allowed: bool
    operation: str
    kind: str  # request.kind.kind, for metrics and logs ("" when absent)
    namespace: str
    name: str
    dry_run: bool
    review: dict[str, Any]
    problems: list[Problem] = field(default_factory=list)  # every problem reported, denying or not
    denying: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- parsing


def parse_review(body: bytes) -> dict[str, Any]:
    """The `request` of an AdmissionReview, checked enough that `decide` cannot trip over its shape."""
    try:
        review = json.loads(body)
    except UnicodeDecodeError as exc:
        raise ReviewError(f"request body is not UTF-8 JSON: {exc.reason} at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise ReviewError(f"request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ReviewError("request body is nested too deeply") from None
    if not isinstance(review, dict):
        raise ReviewError(f"request body must be a JSON object (an AdmissionReview), got {_json_type(review)}")
    api_version, kind = review.get("apiVersion"), review.get("kind")
    if kind != REVIEW_KIND:
        raise ReviewError(f"expected kind {REVIEW_KIND!r}, got {kind!r}")
    if api_version != REVIEW_API_VERSION:
        raise ReviewError(
            f"unsupported AdmissionReview version {api_version!r}: this webhook speaks {REVIEW_API_VERSION} only "
            f"(set admissionReviewVersions: [\"v1\"] in the webhook configuration)"
        )
    request = review.get("request")
    if not isinstance(request, dict):
        raise ReviewError("AdmissionReview has no 'request' object")
    uid = request.get("uid")
    if not isinstance(uid, str) or not uid:
        raise ReviewError("request.uid must be a non-empty string")
    operation = request.get("operation")
    if operation not in OPERATIONS:
        raise ReviewError(f"request.operation must be one of {', '.join(OPERATIONS)}, got {operation!r}")
    gvk = request.get("kind")
    if gvk is not None and not isinstance(gvk, dict):
        raise ReviewError("request.kind must be an object {group, version, kind}")
    if operation in ("CREATE", "UPDATE"):
        if not isinstance(request.get("object"), dict):
            raise ReviewError(f"request.object must be an object for {operation}")
        if operation == "UPDATE" and request.get("oldObject") is not None and not isinstance(request["oldObject"], dict):
            raise ReviewError("request.oldObject must be an object")
    for name in ("namespace", "name"):
        if request.get(name) is not None and not isinstance(request[name], str):
            raise ReviewError(f"request.{name} must be a string")
    if request.get("dryRun") is not None and not isinstance(request["dryRun"], bool):
        raise ReviewError("request.dryRun must be true or false")
    return request


def peek_uid(body: bytes) -> str | None:
    """The request uid of a body that `parse_review` rejected or `decide` failed on, if it has one."""
    try:
        uid = json.loads(body)["request"]["uid"]
    except Exception:
        return None
    return uid if isinstance(uid, str) and uid else None


def _json_type(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


# --------------------------------------------------------------------------- deciding


def decide(request: dict[str, Any], policy: Policy) -> Decision:
    operation = request["operation"]
    gvk = request.get("kind") or {}
    kind = gvk.get("kind") if isinstance(gvk.get("kind"), str) else ""
    obj = request.get("object") if isinstance(request.get("object"), dict) else None
    decision = Decision(
        uid=request["uid"],
        allowed=True,
        operation=operation,
        kind=kind or (obj or {}).get("kind") or "",
        namespace=request.get("namespace") or _object_namespace(obj) or "",
        name=request.get("name") or _object_name(obj) or "",
        dry_run=bool(request.get("dryRun")),
        review={},
    )
    if operation in ("DELETE", "CONNECT") or obj is None:
        decision.review = allow_review(decision.uid)
        return decision

    problems = _lint(_with_type(obj, gvk), policy)
    old = request.get("oldObject") if operation == "UPDATE" else None
    existing: set[tuple] = set()
    if isinstance(old, dict):
        old_typed = _with_type(old, gvk)
        immutable = _immutable_spec(old_typed, _with_type(obj, gvk), request, policy)
        if immutable is not None:
            problems.append(immutable)
            problems.sort(key=Problem.sort_key)
        if problems:
            existing = {_identity(p) for p in _lint(old_typed, policy)}

    decision.problems = problems
    warnings: list[str] = []
    for p in problems:
        if p.severity >= policy.fail_on and _identity(p) not in existing:
            decision.denying.append(p)
        elif p.severity >= Severity.WARNING:
            prefix = "unchanged: " if _identity(p) in existing and p.severity >= policy.fail_on else ""
            warnings.append(problem_line(p, WARNING_MAX_CHARS, prefix))
    decision.warnings = shorten_warnings(warnings)
    decision.allowed = not decision.denying
    if decision.allowed:
        decision.review = allow_review(decision.uid, decision.warnings)
    else:
        decision.review = deny_review(decision, policy)
    return decision


def _lint(obj: dict[str, Any], policy: Policy) -> list[Problem]:
    from ..lint import lint_documents

    doc = Document(source=SOURCE, index=0, data=obj, positions={(): Node(None, Span.point())})
    # Only problems of the object itself: a finding about the configuration (an unused `ignore-paths`
    # entry, DRA900) says nothing about this request and must not turn into a warning on every one.
    return [p for p in lint_documents([doc], policy.options).problems if p.source == SOURCE]


def _with_type(obj: dict[str, Any], gvk: dict[str, Any]) -> dict[str, Any]:
    """The object with apiVersion and kind, taken from request.kind when the object lacks them."""
    if isinstance(obj.get("apiVersion"), str) and isinstance(obj.get("kind"), str):
        return obj
    group, version, kind = gvk.get("group"), gvk.get("version"), gvk.get("kind")
    filled = dict(obj)
    if not isinstance(filled.get("apiVersion"), str) and isinstance(version, str) and version:
        filled["apiVersion"] = f"{group}/{version}" if group else version
    if not isinstance(filled.get("kind"), str) and isinstance(kind, str) and kind:
        filled["kind"] = kind
    return filled


def _identity(p: Problem) -> tuple:
    return (p.rule, p.path, p.message)


def _immutable_spec(old: dict[str, Any], new: dict[str, Any], request: dict[str, Any], policy: Policy) -> Problem | None:
    kind = new.get("kind")
    if kind not in IMMUTABLE_SPEC_KINDS or request.get("subResource"):
        # The status subresource copies the old spec: a spec sent with it is ignored, not rejected.
        return None
    if str(new.get("apiVersion", "")).rpartition("/")[0] != GROUP:
        return None
    if _normal(old.get("spec")) == _normal(new.get("spec")):
        return None
    selection = policy.options.selection
    if not selection.selected(IMMUTABLE_CODE, IMMUTABLE_SLUG):
        return None
    severity = selection.severity(IMMUTABLE_CODE, IMMUTABLE_SLUG, Severity.ERROR)
    meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else {}
    namespace, name = meta.get("namespace"), meta.get("name")
    return Problem(
        rule=IMMUTABLE_CODE,
        name=IMMUTABLE_SLUG,
        severity=severity,
        message=f"field is immutable: the spec of a {kind} cannot change after creation (delete and recreate it)",
        source=SOURCE,
        document=0,
        path=("spec",),
        api_version=new.get("apiVersion"),
        kind=kind,
        object=f"{namespace}/{name}" if namespace and name else name,
        error_type="Invalid",
    )


def _normal(value: Any) -> Any:
    # A null field is an absent field to the API server.
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def _object_namespace(obj: dict[str, Any] | None) -> str | None:
    meta = (obj or {}).get("metadata")
    value = meta.get("namespace") if isinstance(meta, dict) else None
    return value if isinstance(value, str) else None


def _object_name(obj: dict[str, Any] | None) -> str | None:
    meta = (obj or {}).get("metadata")
    if not isinstance(meta, dict):
        return None
    name = meta.get("name")
    if isinstance(name, str) and name:
        return name
    generate = meta.get("generateName")
    return f"{generate}*" if isinstance(generate, str) and generate else None


# --------------------------------------------------------------------------- answering


def problem_line(p: Problem, limit: int | None = None, prefix: str = "") -> str:
    """`path: message [CODE]`; with `limit`, the message is cut so that the path and the code survive."""
    path = format_path(p.path)
    head = f"{prefix}{path}: " if path else prefix
    tail = f" [{p.rule}]"
    message = _printable(p.message)
    if limit is not None and len(head) + len(message) + len(tail) > limit:
        room = limit - len(head) - len(tail)
        if room < 20:
            return shorten(_printable(head + message + tail), limit)
        message = shorten(message, room)
    return _printable(head) + message + tail


def _printable(text: str) -> str:
    # The API server drops warnings with control characters; messages quote user data.
    return "".join(c if c.isprintable() else " " for c in text)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def shorten_warnings(warnings: list[str]) -> list[str]:
    out = [shorten(w, WARNING_MAX_CHARS) for w in warnings[:MAX_WARNINGS]]
    if len(warnings) > MAX_WARNINGS:
        out[-1] = f"... and {len(warnings) - MAX_WARNINGS + 1} more dralint warnings"
    return out


def allow_review(uid: str, warnings: list[str] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"uid": uid, "allowed": True}
    if warnings:
        response["warnings"] = warnings
    return {"apiVersion": REVIEW_API_VERSION, "kind": REVIEW_KIND, "response": response}


def deny_review(decision: Decision, policy: Policy) -> dict[str, Any]:
    denying = decision.denying
    what = decision.kind or "object"
    who = f"{decision.namespace}/{decision.name}" if decision.namespace and decision.name else decision.name
    release = getattr(policy.options, "release", "")
    header = f"{what} {who} is invalid" if who else f"{what} is invalid"
    header += f" (dralint, Kubernetes {release})" if release else " (dralint)"
    lines = [problem_line(p, MAX_LINE_CHARS) for p in denying[:MAX_LISTED_PROBLEMS]]
    if len(denying) > MAX_LISTED_PROBLEMS:
        lines.append(f"... and {len(denying) - MAX_LISTED_PROBLEMS} more problems")
    causes = [
        {
            "reason": _CAUSE_TYPES.get(p.error_type or "", "FieldValueInvalid"),
            "message": shorten(_printable(f"{p.message} [{p.rule}]"), MAX_LINE_CHARS),
            "field": format_path(p.path),
        }
        for p in denying[:MAX_LISTED_PROBLEMS]
    ]
    status: dict[str, Any] = {
        "status": "Failure",
        "code": DENY_CODE,
        "reason": "Invalid",
        "message": header + ":\n" + "\n".join(lines),
        "details": {"name": decision.name, "kind": decision.kind, "causes": causes},
    }
    response: dict[str, Any] = {"uid": decision.uid, "allowed": False, "status": status}
    if decision.warnings:
        response["warnings"] = decision.warnings
    return {"apiVersion": REVIEW_API_VERSION, "kind": REVIEW_KIND, "response": response}


def error_review(uid: str, allowed: bool, message: str) -> dict[str, Any]:
    """The answer when dralint itself failed: allowed or denied as --on-error says."""
    response: dict[str, Any] = {"uid": uid, "allowed": allowed}
    if allowed:
        response["warnings"] = [shorten(_printable(message), WARNING_MAX_CHARS)]
    else:
        response["status"] = {"status": "Failure", "code": 500, "reason": "InternalError", "message": message}
    return {"apiVersion": REVIEW_API_VERSION, "kind": REVIEW_KIND, "response": response}


def bad_request_status(message: str, code: int = 400, reason: str = "BadRequest") -> dict[str, Any]:
    """A metav1.Status body for HTTP errors that are not reviews (400, 404, 405, 408, 413, 415)."""
    return {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason, "code": code}


def encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
