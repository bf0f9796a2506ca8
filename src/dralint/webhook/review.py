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
  become `warnings`, sized so that the API server passes them on uncut (see
  WARNING_MAX_CHARS). DRA011 (served but disabled by default) and DRA801
  (field dropped by a disabled feature gate) are never sent: the object
  arrived, so its version is enabled, and the API server drops the fields of
  disabled gates before admission.
* A rule that fails (DRA901) makes the decision a failure: the caller answers
  as `--on-error` says instead of denying for a dralint bug.
* Numbers the JSON decoder will not read (over 4,300 digits) become DRA005 at
  their path; the rest of the object is still checked.
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
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from ..k8s.resource import GROUP
from ..model import Document, Node, Problem, Severity, Span, format_path
from ..pipeline.run import lint_documents
from ..pipeline.selection import Selection

REVIEW_API_VERSION = "admission.k8s.io/v1"
REVIEW_KIND = "AdmissionReview"
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
SOURCE = "<admission>"

# Kinds whose whole `spec` the API server refuses to change on update.
IMMUTABLE_SPEC_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})
IMMUTABLE_CODE = "DRA022"
IMMUTABLE_SLUG = "immutable-field"

# The API server passes warnings on whole while their total stays within 4096 characters; past that
# it cuts every warning to 256 (k8s.io/apiserver/pkg/endpoints/filters/warning.go). AdmissionResponse
# asks for 120 "if possible": our `path: message [CODE]` lines need more to keep the advice, so each is
# kept within 256 and all of them within a total that leaves room for the API server's own warnings.
WARNING_MAX_CHARS = 256
WARNINGS_TOTAL_CHARS = 3072
# True of a file, never of an object the API server sent: it arrived, so its version is enabled (DRA011),
# and the API server drops fields of disabled feature gates before admission, or keeps them on update
# because the old object uses them (DRA801 "silently dropped").
NOT_IN_ADMISSION = frozenset({"DRA011", "DRA801"})
INTERNAL_ERROR_CODE = "DRA901"  # a rule failed: the caller answers as --on-error says
RESOURCE_LIMIT_CODE = "DRA005"
MAX_INT_DIGITS = 4300  # CPython's limit for int(str) (sys.get_int_max_str_digits)
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

    def __post_init__(self) -> None:
        # What admission never reports is not selected, so no DRA005 cap summary can stand for it
        # (104 DRA801 warnings, none of them sent, would otherwise deny under --fail-on warning).
        selection = self.options.selection
        missing = tuple(code for code in sorted(NOT_IN_ADMISSION) if code not in selection.ignore)
        if missing:
            self.options.selection = Selection(selection.select, selection.ignore + missing, selection.severities)


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
    failures: list[Problem] = field(default_factory=list)  # rules that failed (DRA901): see --on-error


# --------------------------------------------------------------------------- parsing


class Request(dict):
    """The `request` of an AdmissionReview, and whether its body held numbers too long to read."""

    huge_integers = 0


def parse_review(body: bytes) -> Request:
    """The `request` of an AdmissionReview, checked enough that `decide` cannot trip over its shape."""
    huge: list[int] = []
    review = _load(body, huge)
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
    parsed = Request(request)
    parsed.huge_integers = len(huge)
    return parsed


def _load(body: bytes, huge: list[int] | None = None) -> Any:
    """JSON with integers of more than MAX_INT_DIGITS digits as HugeInteger stand-ins (counted in `huge`)."""

    def parse_int(text: str) -> int:
        if len(text) <= MAX_INT_DIGITS:
            return int(text)
        number = HugeInteger(-_HUGE if text.startswith("-") else _HUGE)
        number.digits = len(text.lstrip("-"))
        if huge is not None:
            huge.append(number.digits)
        return number

    try:
        return json.loads(body, parse_int=parse_int)
    except UnicodeDecodeError as exc:
        raise ReviewError(f"request body is not UTF-8 JSON: {exc.reason} at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise ReviewError(f"request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ReviewError(f"request body is nested more than {sys.getrecursionlimit()} levels deep") from None


class HugeInteger(int):
    """Stands for an integer of more than MAX_INT_DIGITS digits: out of int64 range like the number it replaces.

    Reading the digits would take time quadratic in their number; the value is never needed,
    only the fact and the place (DRA005).
    """

    digits: int = 0


_HUGE = 2**64


def peek_uid(body: bytes) -> str | None:
    """The request uid of a body that `parse_review` rejected or `decide` failed on, if it has one."""
    return peek(body).get("uid")


def peek(body: bytes) -> dict[str, Any]:
    """uid, kind, operation, namespace and name of a review, as far as they can be read: for answering
    and logging a review that could not be judged."""
    try:
        request = _load(body)["request"]
    except Exception:
        return {}
    if not isinstance(request, dict):
        return {}
    gvk = request.get("kind")
    found = {
        "uid": request.get("uid"),
        "kind": gvk.get("kind") if isinstance(gvk, dict) else None,
        "operation": request.get("operation"),
        "namespace": request.get("namespace"),
        "name": request.get("name"),
    }
    return {k: v for k, v in found.items() if isinstance(v, str) and v}


PEEK_BYTES = 64 * 1024
# One JSON token after optional white space: a string (unrolled, so that an unterminated one fails in
# linear time), a bracket or separator, or a bare literal (number, true, false, null).
_TOKEN = re.compile(rb'[ \t\r\n]*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([{}\[\]:,])|([^ \t\r\n{}\[\]:,"]+))', re.DOTALL)
_PEEKED = {
    ("request", "uid"): "uid",
    ("request", "operation"): "operation",
    ("request", "namespace"): "namespace",
    ("request", "name"): "name",
    ("request", "kind", "kind"): "kind",
}


def peek_head(body: bytes | bytearray) -> dict[str, Any]:
    """`peek` from the first PEEK_BYTES of the body only, without building it and without recursion.

    For the server's event loop, which must answer a review no judge answered without spending on it
    the time or memory a full parse of up to 3 MiB (and 10,000 levels) takes. The API server writes
    `request.uid`, `kind`, `name`, `namespace` and `operation` before the object (Go encodes struct
    fields in declaration order), so they are in the head of any review it sends.
    """
    head = bytes(body[:PEEK_BYTES])
    found: dict[str, Any] = {}
    # One entry per open container: [the key being read or holding the value, whether a key comes next];
    # arrays have no key (None) and never expect one.
    stack: list[list[Any]] = []
    pos = 0
    while len(found) < len(_PEEKED):
        match = _TOKEN.match(head, pos)
        if match is None:
            break
        pos = match.end()
        string, punct, _literal = match.groups()
        top = stack[-1] if stack else None
        if punct is not None:
            if punct in b"{[":
                stack.append([None, punct == b"{"])
            elif punct in b"}]":
                if stack:
                    stack.pop()
            elif punct == b":" and top is not None:
                top[1] = False
            elif punct == b"," and top is not None and top[0] is not None:
                top[0], top[1] = None, True
            continue
        if string is None:
            continue
        try:
            text = json.loads(string)
        except ValueError:
            text = None
        if top is not None and top[1]:
            top[0] = text if isinstance(text, str) else ""
        elif top is not None:
            name = _PEEKED.get(tuple(entry[0] for entry in stack))
            if name is not None and isinstance(text, str) and text:
                found.setdefault(name, text)
    return found


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

    typed = _with_type(obj, gvk)
    huge = getattr(request, "huge_integers", 0) > 0
    problems = _lint(typed, policy, huge)
    old = request.get("oldObject") if operation == "UPDATE" else None
    existing: set[tuple] = set()
    if isinstance(old, dict):
        old_typed = _with_type(old, gvk)
        immutable = _immutable_spec(old_typed, typed, request, policy)
        if immutable is not None:
            problems.append(immutable)
            problems.sort(key=Problem.sort_key)
        if problems:
            existing = {_identity(p) for p in _lint(old_typed, policy, huge)}

    decision.problems = problems
    decision.failures = [p for p in problems if p.rule == INTERNAL_ERROR_CODE]
    warnings: list[str] = []
    for p in problems:
        if p.rule == INTERNAL_ERROR_CODE:
            continue
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


def _lint(obj: dict[str, Any], policy: Policy, huge_integers: bool = False) -> list[Problem]:
    """The one call into the engine; with `huge_integers`, also DRA005 where the body had numbers too long to read."""
    doc = Document(source=SOURCE, index=0, data=obj, positions={(): Node(None, Span.point())})
    # Only problems of the object itself: a finding about the configuration (an unused `ignore-paths`
    # entry, DRA900) says nothing about this request and must not turn into a warning on every one.
    problems = [p for p in lint_documents([doc], policy.options).problems if p.source == SOURCE and p.rule not in NOT_IN_ADMISSION]
    huge = _huge_integers(obj) if huge_integers else []
    if huge:
        # One mistake, one problem: the stand-in's own findings there (out of int64 range ...) are noise.
        places = {path for path, _ in huge}
        problems = [p for p in problems if p.path not in places]
        problems.extend(p for p in (_huge_integer_problem(obj, path, digits, policy) for path, digits in huge) if p is not None)
        problems.sort(key=Problem.sort_key)
    return problems


def _huge_integers(obj: Any) -> list[tuple[tuple, int]]:
    """Paths of the HugeInteger stand-ins in `obj`, walked without recursion (the data may be deep)."""
    found: list[tuple[tuple, int]] = []
    stack: list[tuple[tuple, Any]] = [((), obj)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in enumerate(value))
        elif type(value) is HugeInteger:
            found.append((path, value.digits))
    return found


def _huge_integer_problem(obj: dict[str, Any], path: tuple, digits: int, policy: Policy) -> Problem | None:
    return _configured(policy, Problem(
        rule=RESOURCE_LIMIT_CODE,
        name="resource-limit",
        severity=Severity.ERROR,
        message=f"a number of {digits} digits is out of range (the API server decodes at most 64-bit integers and "
                f"doubles; dralint reads at most {MAX_INT_DIGITS} digits)",
        source=SOURCE,
        document=0,
        path=path,
        api_version=obj.get("apiVersion"),
        kind=obj.get("kind"),
        object=_object_name(obj) or "",
        error_type="Invalid",
    ))


def _configured(policy: Policy, problem: Problem) -> Problem | None:
    """`problem` as select, ignore and severity in the configuration leave it, for problems made outside the engine."""
    selection = policy.options.selection
    if not selection.selected(problem.rule, problem.name):
        return None
    problem.severity = selection.severity(problem.rule, problem.name, problem.severity)
    return problem


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
    if _same_spec(old.get("spec"), new.get("spec")):
        return None
    meta = new.get("metadata") if isinstance(new.get("metadata"), dict) else {}
    namespace, name = meta.get("namespace"), meta.get("name")
    return _configured(policy, Problem(
        rule=IMMUTABLE_CODE,
        name=IMMUTABLE_SLUG,
        severity=Severity.ERROR,
        message=f"field is immutable: the spec of a {kind} cannot change after creation (delete and recreate it)",
        source=SOURCE,
        document=0,
        path=("spec",),
        api_version=new.get("apiVersion"),
        kind=kind,
        object=f"{namespace}/{name}" if namespace and name else name,
        error_type="Invalid",
    ))


def _same_spec(old: Any, new: Any) -> bool:
    """Equal as the API server sees them (a null field is an absent field), compared without recursion:
    the spec may hold deeply nested opaque parameters.

    Scalars compare as JSON values, type and all: `true` is not `1` (Python's `True == 1`), and an
    integer is not a fraction (`1` is not `1.0`): opaque parameters are kept as the JSON text sent,
    so the API server sees either change as a changed spec."""
    pending = [(old, new)]
    while pending:
        a, b = pending.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            a_keys = {k for k, v in a.items() if v is not None}
            if a_keys != {k for k, v in b.items() if v is not None}:
                return False
            pending.extend((a[k], b[k]) for k in a_keys)
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return False
            pending.extend(zip(a, b, strict=True))
        elif isinstance(a, (dict, list)) or isinstance(b, (dict, list)) or not _same_scalar(a, b):
            return False
    return True


def _same_scalar(a: Any, b: Any) -> bool:
    if type(a) is not type(b):  # bool vs int, int vs float, HugeInteger vs int
        return False
    if type(a) is HugeInteger:
        return a == b and a.digits == b.digits
    return a == b


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
    """Each warning within WARNING_MAX_CHARS, all within WARNINGS_TOTAL_CHARS: the rest are counted in a last line."""
    out: list[str] = []
    room = WARNINGS_TOTAL_CHARS - 100  # for the "... and N more" line
    for i, warning in enumerate(warnings):
        warning = shorten(warning, WARNING_MAX_CHARS)
        if len(warning) > room:
            out.append(f"... and {len(warnings) - i} more dralint warnings (see the webhook's log or run dralint on the manifest)")
            break
        out.append(warning)
        room -= len(warning)
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
    # A lone surrogate (from a "\ud800" escape in the request) cannot be UTF-8: written back as the
    # same JSON escape, so the answer stays valid JSON and echoes the uid it was given.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "backslashreplace")
