"""Policy files: an organisation's own rules as CEL, in the shape of ValidatingAdmissionPolicy validations.

    apiVersion: dralint.dev/v1
    kind: Policy
    metadata:
      name: gpu-limits
    spec:
      match:
        kinds: [ResourceClaim, ResourceClaimTemplate]   # required; ["*"] for every kind
        apiVersions: [resource.k8s.io/v1]               # optional
        namespaces: [ml-team]                           # optional
      validations:
      - code: ORG001                                    # optional: default GPU-LIMITS-1, -2 ...
        expression: "object.spec.devices.requests.all(r, !has(r.exactly) || r.exactly.count <= 4)"
        message: at most 4 GPUs per request             # or messageExpression: "'...' + ..."
        fieldPath: spec.devices.requests                # optional: where to point (default: the object)
        severity: error                                 # error (default), warning or info

Each validation becomes a `Rule` made with the public `@rule` decorator,
evaluated over `object` (the document as plain data), so `select`, `ignore`,
`severity` and suppressions treat it like any built-in rule. Its slug is the
policy's name, so `--ignore gpu-limits` switches the whole policy off, and
a default code (`GPU-LIMITS-1`) can be selected by prefix (`GPU-LIMITS`).

A file may hold several policies (`---`). Anything wrong with a policy file —
YAML, shape, a CEL syntax or type error — is a usage error (exit 2) naming
`file:line:column`; a CEL error points at the character inside the expression.

Semantics, following ValidatingAdmissionPolicy:

* the expression must evaluate to a boolean; `false` is a problem;
* an object without `metadata.namespace` matches every `namespaces` list
  (it may be applied to any namespace);
* an evaluation error (typically `no such key` for a field the object does
  not set) fails the validation, as the API server's default
  `failurePolicy: Fail` does: the problem says what went wrong and suggests
  guarding optional fields with `has()`;
* `messageExpression` must give a string; when it fails or gives an empty
  string, `message` is used, else `failed expression: <expression>`.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path as FsPath

from .api import DocumentView, Rule, rule
from .model import Document, Path, Severity, Span
from .pipeline.load import load
from .positions import string_span

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterable

API_VERSION = "dralint.dev/v1"
KIND = "Policy"
_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_CODE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_CEL_POSITION = re.compile(r"<input>:(\d+):(\d+)")
_VALIDATION_KEYS = {"code", "expression", "message", "messageExpression", "fieldPath", "severity", "reason"}


class PolicyError(ValueError):
    """A policy file that cannot be used; the message starts with file:line:column."""


def _cel() -> tuple[Any, Any]:
    # The CEL package (and its engine) loads only when a policy file is configured.
    try:
        from .cel import compile_policy, evaluate
    except ImportError as exc:  # pragma: no cover - the CEL package ships with dralint
        raise PolicyError(f"CEL policies need the CEL engine, which could not be loaded: {exc}") from exc
    return compile_policy, evaluate


def load_policies(paths: Iterable[str | FsPath]) -> list[Rule]:
    """One rule per validation of every policy in `paths`; raises PolicyError (a usage error) on any defect."""
    rules: list[Rule] = []
    codes: dict[str, str] = {}
    seen: set[FsPath] = set()
    for path in paths:
        resolved = FsPath(path).resolve()
        if resolved in seen:  # named both in .dralint.yaml and with --policy
            continue
        seen.add(resolved)
        for r, where in _load_file(FsPath(path)):
            if r.code in codes:
                raise PolicyError(f"{where}: rule code {r.code} is already used by {codes[r.code]}")
            codes[r.code] = where
            rules.append(r)
    return rules


def _load_file(path: FsPath) -> list[tuple[Rule, str]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PolicyError(f"cannot read policy file {path}: {exc.strerror or exc}") from exc
    loaded = load(str(path), data)
    errors = [p for p in loaded.problems if p.severity >= Severity.ERROR]
    if errors:
        p = errors[0]
        raise PolicyError(f"{path}:{p.span.line}:{p.span.column}: {p.message}")
    if not loaded.documents:
        raise PolicyError(f"{path}:1:1: the policy file holds no policy")
    out: list[tuple[Rule, str]] = []
    for doc in loaded.documents:
        out.extend(_Policy(path, doc).rules())
    return out


class _Policy:
    def __init__(self, path: FsPath, doc: Document):
        self.path = path
        self.doc = doc

    def fail(self, where: Path, message: str, *, at_key: bool = False, span: Span | None = None) -> PolicyError:
        s = span or self.doc.locate(where, prefer_key=at_key)
        return PolicyError(f"{self.path}:{s.line}:{s.column}: {message}")

    def get(self, *path: Any) -> Any:
        node: Any = self.doc.data
        for part in path:
            if isinstance(part, int):
                node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            else:
                node = node.get(part) if isinstance(node, dict) else None
        return node

    def strings(self, path: Path, *, required: bool = False) -> list[str] | None:
        value = self.get(*path)
        if value is None:
            if required:
                raise self.fail(path, f"{'.'.join(map(str, path))} is required")
            return None
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            raise self.fail(path, f"{'.'.join(map(str, path))} must be a non-empty list of strings")
        return value

    def rules(self) -> list[tuple[Rule, str]]:
        data = self.doc.data
        if not isinstance(data, dict):
            raise self.fail((), "a policy must be a mapping")
        if data.get("apiVersion") != API_VERSION or data.get("kind") != KIND:
            raise self.fail(("apiVersion",) if "apiVersion" in data else (),
                            f"not a dralint policy: expected apiVersion: {API_VERSION} and kind: {KIND}")
        extra = sorted(set(data) - {"apiVersion", "kind", "metadata", "spec"})
        if extra:
            raise self.fail((extra[0],), f"unknown field {extra[0]!r} in a policy", at_key=True)
        name = self.get("metadata", "name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise self.fail(("metadata", "name"), "metadata.name must be a lowercase name (letters, digits, '-'), e.g. gpu-limits")
        spec = self.get("spec")
        if not isinstance(spec, dict):
            raise self.fail(("spec",), "spec is required and must be a mapping")
        extra = sorted(set(spec) - {"match", "validations"})
        if extra:
            raise self.fail(("spec", extra[0]), f"unknown field {extra[0]!r} in spec; use match and validations", at_key=True)
        match = self.get("spec", "match")
        if not isinstance(match, dict):
            raise self.fail(("spec", "match"), "spec.match is required: give the kinds the policy applies to (kinds: ['*'] for every kind)")
        extra = sorted(set(match) - {"kinds", "apiVersions", "namespaces"})
        if extra:
            raise self.fail(("spec", "match", extra[0]), f"unknown field {extra[0]!r} in match; use kinds, apiVersions and namespaces", at_key=True)
        kinds = self.strings(("spec", "match", "kinds"), required=True)
        api_versions = self.strings(("spec", "match", "apiVersions"))
        namespaces = self.strings(("spec", "match", "namespaces"))
        validations = self.get("spec", "validations")
        if not isinstance(validations, list) or not validations:
            raise self.fail(("spec", "validations"), "spec.validations must be a non-empty list")
        out = []
        for i, v in enumerate(validations):
            out.append(self.validation(i, v, name, kinds, api_versions, namespaces))
        return out

    def validation(self, i: int, v: Any, name: str, kinds: list[str] | None, api_versions: list[str] | None,
                   namespaces: list[str] | None) -> tuple[Rule, str]:
        compile_policy, evaluate = _cel()
        base: Path = ("spec", "validations", i)
        if not isinstance(v, dict):
            raise self.fail(base, "a validation must be a mapping with an expression")
        extra = sorted(set(v) - _VALIDATION_KEYS)
        if extra:
            raise self.fail((*base, extra[0]), f"unknown field {extra[0]!r} in a validation; use {', '.join(sorted(_VALIDATION_KEYS))}", at_key=True)
        expression = v.get("expression")
        if not isinstance(expression, str) or not expression.strip():
            raise self.fail((*base, "expression") if "expression" in v else base, "a validation needs an expression (CEL, over `object`)")
        code = v.get("code", f"{name.upper()}-{i + 1}")
        if not isinstance(code, str) or not _CODE.fullmatch(code):
            raise self.fail((*base, "code"), "code must start with a letter and hold only letters, digits, '-' and '_'")
        if code.upper().startswith("DRA"):
            raise self.fail((*base, "code"), f"code {code!r}: codes starting with DRA are reserved for dralint's own rules")
        severity_text = v.get("severity", "error")
        try:
            severity = Severity.parse(str(severity_text))
        except ValueError as exc:
            raise self.fail((*base, "severity"), str(exc)) from None
        message = v.get("message")
        if message is not None and not isinstance(message, str):
            raise self.fail((*base, "message"), "message must be a string")
        field_path: Path = ()
        if "fieldPath" in v:
            fp = v.get("fieldPath")
            if not isinstance(fp, str):
                raise self.fail((*base, "fieldPath"), "fieldPath must be a string such as spec.devices.requests[0].name")
            try:
                field_path = parse_field_path(fp)
            except ValueError as exc:
                raise self.fail((*base, "fieldPath"), f"invalid fieldPath {fp!r}: {exc}") from None
        program = self.compile(compile_policy, (*base, "expression"), expression)
        message_program = None
        if "messageExpression" in v:
            me = v.get("messageExpression")
            if not isinstance(me, str) or not me.strip():
                raise self.fail((*base, "messageExpression"), "messageExpression must be a CEL expression giving a string")
            message_program = self.compile(compile_policy, (*base, "messageExpression"), me)
        span = self.doc.locate((*base, "expression"))
        where = f"{self.path}:{span.line}:{span.column}"
        summary = message or f"policy {name}: {expression}"
        doc = (
            f"{summary}\n\nFrom policy {name!r} ({self.path}, validation {i + 1}):\n\n"
            f"    {expression}"
        )
        check = _make_check(program, message_program, evaluate, expression, message, field_path, namespaces)
        check.__doc__ = doc
        check.__name__ = f"policy_{name.replace('-', '_')}_{i + 1}"
        decorated = rule(code, name, severity=severity, kinds=None if "*" in (kinds or []) else kinds, api_versions=api_versions)(check)
        made: Rule = decorated.__dralint_rule__
        return made._replace(origin=f"policy {self.path}"), where

    def compile(self, compile_policy: Any, path: Path, expression: str) -> Any:
        """The compiled program, or a PolicyError pointing at the character the CEL error names."""
        source = expression
        shift = 0
        if path[-1] == "messageExpression":
            # compile_policy wants a bool-or-dyn result: dyn() lets a string expression through;
            # the result is checked to be a string when it runs.
            source, shift = f"dyn({expression})", len("dyn(")
        try:
            compiled = compile_policy(source)
            issues = compiled if isinstance(compiled, list) else []
        except Exception as exc:  # an engine that raises instead of returning issues
            issues = [_Issue(_cel_message(exc), _cel_offset(exc, source), 1)]
            compiled = None
        if not issues:
            return compiled
        issue = issues[0]
        message = getattr(issue, "message", str(issue))
        offset = getattr(issue, "offset", None)
        length = max(int(getattr(issue, "length", 1) or 1), 1)
        span = None
        if offset is not None:
            start = min(max(offset - shift, 0), len(expression))
            end = min(start + length, len(expression))
            span = string_span(self.doc, path, start, max(end, start))
        raise self.fail(path, f"CEL error in {path[-1]}: {message}", span=span)


@dataclasses.dataclass
class _Issue:
    message: str
    offset: int | None
    length: int


def _cel_message(exc: Exception) -> str:
    text = str(getattr(exc, "message", None) or exc)
    text = re.sub(r"^([A-Z_]+: )?(ERROR: )?", "", text.strip())
    text = _CEL_POSITION.sub("", text, count=1).lstrip(": ")
    first = text.split("\n | ")[0].split("\n")[0]
    first = re.sub(r'Key not found in map\s*:\s*"?([^"]*)"?', r"no such key: \1", first)
    return first.replace(" [INVALID_ARGUMENT]", "").strip() or type(exc).__name__


def _cel_offset(exc: Exception, expression: str) -> int | None:
    """0-based character offset of a CEL error inside the expression, when the error says where."""
    for attr in ("offset", "position"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 0 <= value <= len(expression):
            return value
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    if not (isinstance(line, int) and isinstance(column, int)):
        m = _CEL_POSITION.search(str(exc))
        if not m:
            return None
        line, column = int(m.group(1)), int(m.group(2))
    lines = expression.split("\n")
    if not 1 <= line <= len(lines):
        return None
    offset = sum(len(part) + 1 for part in lines[: line - 1]) + max(column - 1, 0)
    return min(offset, len(expression))


_FIELD_PART = re.compile(r"\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*\"((?:[^\"\\]|\\.)*)\"\s*\]")


def parse_field_path(text: str) -> Path:
    """`spec.devices.requests[0].name` or `metadata.labels['app']` -> path tuple (ValidatingAdmissionPolicy's fieldPath form)."""
    text = text.strip()
    if text.startswith("object."):
        text = text[len("object."):]
    out: list[str | int] = []
    i = 0
    while i < len(text):
        m = _FIELD_PART.match(text, i)
        if not m or m.end() == i or (i == 0 and text[0] == "."):
            raise ValueError(f"unexpected {text[i:]!r}")
        if m.group(1) is not None:
            if i > 0 and text[i] != ".":
                raise ValueError(f"expected '.' before {m.group(1)!r}")
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(int(m.group(2)))
        else:
            out.append((m.group(3) if m.group(3) is not None else m.group(4)).replace("\\", ""))
        i = m.end()
    return tuple(out)


def _missing_field(detail: str) -> bool:
    low = detail.lower()
    return "no such key" in low or "not found in map" in low or "no such field" in low or "not_found" in low


def _make_check(program: Any, message_program: Any, evaluate: Any, expression: str, message: str | None,
                field_path: Path, namespaces: list[str] | None) -> Any:
    fallback = message or f"failed expression: {expression}"

    def check(doc: DocumentView, report: Any) -> None:
        if namespaces is not None and doc.namespace is not None and doc.namespace not in namespaces:
            return
        activation = {"object": doc.data}
        at_key = isinstance(doc.get(*field_path), (dict, list)) if field_path else False
        try:
            result = evaluate(program, activation)
        except Exception as exc:  # an evaluation error fails the validation (failurePolicy: Fail)
            detail = _cel_message(exc)
            hint = " (guard optional fields with has(), e.g. has(object.spec.x) && ...)" if _missing_field(detail) else ""
            report(field_path, f"{fallback} (the expression could not be evaluated: {detail}{hint})", at_key=at_key)
            return
        if result is True:
            return
        if result is not False:
            report(field_path, f"{fallback} (the expression gave {result!r}, not a boolean)", at_key=at_key)
            return
        text = fallback
        if message_program is not None:
            try:
                produced = evaluate(message_program, activation)
            except Exception:
                produced = None
            if isinstance(produced, str) and produced.strip():
                text = produced.strip()
        report(field_path, text, at_key=at_key)

    return check


__all__ = ["load_policies", "parse_field_path", "PolicyError"]
