"""CEL for dralint: DRA device selectors as the API server checks them, and CEL policy files.

Backed by cel-expr-python (CEL's C++ implementation, with its type checker);
see docs/cel.md for why and for what is and is not modelled.

Selectors
---------
`compile_selector(expression, release, *, feature_gates=()) -> list[CelIssue]`
    Checks one `selectors[k].cel.expression` the way the API server of
    Kubernetes `release` ("1.31" … "1.37") checks a *new* expression: length
    (1.32+, then nothing else), parse, type-check in that release's
    environment (variable `device`; the Kubernetes CEL libraries of the
    previous minor release), result type bool or dyn, and (1.32+) estimated
    cost. An empty list means the API server accepts it. Results are cached
    per (expression, release, gates), so each distinct expression is
    compiled once per run. `feature_gates` may contain "DRAConsumableCapacity"
    to declare `device.allowMultipleAllocations` (1.34+); without it that
    field is an undeclared reference, as with the default gates. With
    "DRAListTypeAttributes" (1.36+) the `includes()` helper is declared, for
    scalar and list attributes alike. Capacity values are Quantities, as at the
    API server: operators on them (`>=`, `+`, `==` with a number) are type errors.

`compile_derived_attribute(expression, release, *, feature_gates=()) -> DerivedVerdict`
    A derived attribute's expression (1.37+): the same checks, except that any
    result type is accepted; `DerivedVerdict(issues, cost)` also carries the
    estimated cost, which a claim's derived attributes share a budget of.

`CelIssue(kind, message, offset, length)`
    `kind`: "syntax", "undeclared", "type", "result-type", "too-long", "cost";
    or, when the expression could not be judged, "internal" (the CEL
    library is missing) or "cost-unknown" (the cost estimator failed); `offset`/`length`:
    0-based character (code point) range inside the expression, or None.

Policy files
------------
`compile_policy(expression) -> Policy | list[CelIssue]`
    Compiles a boolean-or-any expression over the variable `object` (dyn:
    the whole manifest as plain data). Environment: standard CEL, optional
    types, `cel.bind`, two-variable comprehensions, extended strings, sets,
    the lists extension, and from the Kubernetes libraries `find`,
    `findAll`, `isSorted`, `sum`, `min`, `max` (quantity, semver, URL,
    IP/CIDR and format functions are not available in policies).
`evaluate(policy, activation) -> value`
    Runs it on `{"object": data}`; returns the plain Python value. Raises
    `CelEvalError` for a runtime error (missing key, bad type, ...).
"""

from __future__ import annotations

import functools
import re

from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterable

__all__ = [
    "CelIssue",
    "CelEvalError",
    "CelUnchecked",
    "UNCHECKED",
    "Policy",
    "compile_selector",
    "compile_derived_attribute",
    "DerivedVerdict",
    "compile_policy",
    "evaluate",
    "MAX_EXPRESSION_LENGTH",
    "MAX_COST",
    "available",
]

MAX_EXPRESSION_LENGTH = 10 * 1024
MAX_COST = 1_000_000
SUPPORTED = ((1, 31), (1, 37))


# Issue kinds that say an expression could not be judged: never cached, never passed over.
UNCHECKED = frozenset({"internal", "cost-unknown"})


class CelUnchecked(Exception):
    """Raised by the selector rules when an expression could not be judged; the engine reports DRA901."""


class CelIssue(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        kind: str,
        message: str,
        offset: int | None = None,
        length: int = 1,
        # Names that could replace the text at offset/length (an unknown function's closest
        # declared ones, best first): they become the problem's fixes.
        suggestions: tuple[str, ...] = (),
    ) -> "CelIssue":
        return tuple_new(_cls, (kind, message, offset, length, suggestions))


class CelEvalError(Exception):
    """A CEL policy failed at run time."""


def available() -> bool:
    try:
        import cel_expr_python  # noqa: F401
        import google.protobuf  # noqa: F401
    except ImportError:
        return False
    return True


def _release(release: str) -> tuple[int, int]:
    major, minor = release.split(".")[:2]
    return int(major), int(minor)


def compile_selector(expression: str, release: str, *, feature_gates: Iterable[str] = ()) -> list[CelIssue]:
    gates = set(feature_gates)
    multi = "DRAConsumableCapacity" in gates
    lists = "DRAListTypeAttributes" in gates
    # Verdicts persist across runs: a pre-commit run over unchanged selectors
    # then never builds the CEL environment (tens of milliseconds of protobuf).
    cache = _verdicts()
    key = cache.key(release, str(multi), str(lists), expression)
    cached = cache.get(key)
    if isinstance(cached, list):
        try:
            return [CelIssue(*item[:4], tuple(item[4]) if len(item) > 4 else ()) for item in cached]
        except TypeError:
            pass
    issues = list(_compile_selector(expression, release, multi, lists))
    if not any(issue.kind in UNCHECKED for issue in issues):
        cache.put(key, [[i.kind, i.message, i.offset, i.length, list(i.suggestions)] for i in issues])
    return issues


@functools.lru_cache(maxsize=1)
def _verdicts() -> Any:
    # Only a file with a CEL selector gets here: no other run's start-up loads the cache module.
    import os

    from .. import runtime
    from ..cache import VerdictCache, code_fingerprint

    here = os.path.dirname(__file__)
    files = [os.path.join(here, name) for name in sorted(os.listdir(here)) if name.endswith(".py")]
    try:
        spec = runtime.find_spec("cel_expr_python")
        if spec is not None and spec.origin:
            files.append(spec.origin)
    except (ImportError, ValueError):
        pass
    return VerdictCache("cel-selectors", code_fingerprint(*files))


class DerivedVerdict(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        issues: list[CelIssue],
        cost: int,  # estimated worst-case cost of an expression that compiled; 0 when it did not
    ) -> "DerivedVerdict":
        return tuple_new(_cls, (issues, cost))


def compile_derived_attribute(expression: str, release: str, *, feature_gates: Iterable[str] = ()) -> DerivedVerdict:
    """A derived attribute's `expression` (1.37+) as validateCELExpression checks it.

    Compiled in the selectors' environment, but any result type is accepted (a
    scalar or a list of scalars groups devices); over MAX_COST alone is a "cost"
    issue, and the cost is returned so that the claim's derived attributes can be
    held to their shared budget (DeviceClaimDerivedAttributeCELMaxCost). Not cached
    on disk: derived attributes are rare.
    """
    gates = set(feature_gates)
    issues, cost = _judge(expression, release, "DRAConsumableCapacity" in gates, "DRAListTypeAttributes" in gates, want_bool=False)
    return DerivedVerdict(list(issues), cost or 0)


def _compile_selector(expression: str, release: str, multi_alloc: bool, list_attributes: bool = False) -> tuple[CelIssue, ...]:
    return _judge(expression, release, multi_alloc, list_attributes, want_bool=True)[0]


@functools.lru_cache(maxsize=4096)
def _judge(expression: str, release: str, multi_alloc: bool, list_attributes: bool, want_bool: bool) -> tuple[tuple[CelIssue, ...], int | None]:
    """(issues, estimated cost when it was estimated) of one expression; `want_bool`: a selector's result must be a bool."""
    rel = _release(release)
    if rel < SUPPORTED[0]:
        return (), None
    rel = min(rel, SUPPORTED[1])
    if rel >= (1, 32) and len(expression.encode("utf-8")) > MAX_EXPRESSION_LENGTH:
        return (CelIssue("too-long", f"may not be longer than {MAX_EXPRESSION_LENGTH} bytes "
                         f"(the expression has {len(expression.encode('utf-8'))})", None, 0),), None
    if not available():
        return (CelIssue("internal", "CEL selectors were not checked: cel-expr-python or protobuf cannot be imported; "
                         "they are dependencies of dralint: reinstall it (pip install 'cel-expr-python>=0.1.3' protobuf)", None, 0),), None
    # cel-expr-python and protobuf, the largest imports, load only when a selector is not in the verdict cache.
    from . import _env

    compat = (rel[0], rel[1] - 1)
    env = _env.selector_env(compat, multi_alloc and rel >= (1, 34), list_attributes and rel >= (1, 36))
    compiled, issues = _compile(env, expression, rel)
    if issues:
        return tuple(issues), None
    # Only compiled expressions are walked (the walker imports their protobuf messages).
    from . import _ast, _quantity

    tree = _ast.checked(compiled.serialize())
    misuses = _quantity.misuses(tree)
    if misuses:
        return tuple(CelIssue("type", m.message, m.offset, len(m.operator)) for m in misuses[:5]), None
    result = compiled.return_type().name().lower()
    if want_bool and result not in ("bool", "dyn", "google.protobuf.any", "any"):
        return (CelIssue("result-type", f"must evaluate to bool or the unknown type, not {_type_text(result)}",
                         _first_token(expression), _token_length(expression, _first_token(expression))),), None
    if rel < (1, 32):
        return (), None
    # The cost estimator is imported only from 1.32, for an expression that compiled.
    from . import _cost

    try:
        est = _cost.estimate(tree)
    except Exception as exc:  # noqa: BLE001 - an estimator bug must not hide the other checks, nor pass silently
        return (CelIssue("cost-unknown", f"the cost of this selector could not be estimated ({type(exc).__name__}: {exc}), "
                         f"so whether the API server accepts it (limit {MAX_COST}) is unknown; please report it", None, 0),), None
    if est.cost > MAX_COST:
        where = est.hot_offset if est.hot_offset is not None else 0
        if expression[where:where + 1] == "(":  # a macro call: point at its name
            m = re.search(r"[A-Za-z_][A-Za-z0-9_]*\s*$", expression[:where])
            where = m.start() if m else where
        elif expression[where:where + 1] == ".":
            where += 1
        return (CelIssue("cost", f"estimated worst-case cost {est.cost} exceeds the limit of {MAX_COST} "
                         "(the API server rejects it; iterating the attribute or capacity maps in nested "
                         "comprehensions is the usual cause)", where, _token_length(expression, where)),), est.cost
    return (), est.cost


def _type_text(name: str) -> str:
    return {"string": "string", "int": "int", "uint": "uint", "double": "double"}.get(name, name)


# --- compile and translate errors ---------------------------------------------------------------

_ERROR = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*)")


def _compile(env: Any, expression: str, rel: tuple[int, int]) -> tuple[Any, list[CelIssue]]:
    try:
        return env.compile(expression), []
    except Exception as exc:  # cel-expr-python raises RuntimeError with the checker's report
        text = str(exc)
    # `existsOne` (single variable) is an alias of `exists_one` since cel-go 0.22 (Kubernetes 1.32);
    # the C++ parser only knows it as a two-variable macro.
    if rel >= (1, 32) and "existsOne" in expression:
        alt = expression.replace(".existsOne(", ".exists_one(")
        try:
            return env.compile(alt), []
        except Exception:  # noqa: BLE001
            pass
    return None, _issues(text, expression, rel)


def _issues(text: str, expression: str, rel: tuple[int, int]) -> list[CelIssue]:
    line_starts = [0]
    at = expression.find("\n")
    while at != -1:  # a step per line, not per character: a selector can be megabytes on one line
        line_starts.append(at + 1)
        at = expression.find("\n", at + 1)
    found: list[CelIssue] = []
    seen = set()
    for m in _ERROR.finditer(text):
        line, col, msg = int(m.group(1)), int(m.group(2)), m.group(3).strip()
        msg = re.sub(r"\s*\[INVALID_ARGUMENT\]$", "", msg)
        offset = (line_starts[line - 1] if 0 < line <= len(line_starts) else 0) + col - 1
        issue = _classify(msg, expression, max(0, min(offset, len(expression))), rel)
        if (issue.kind, issue.offset) not in seen:
            seen.add((issue.kind, issue.offset))
            found.append(issue)
        if len(found) >= 5:
            break
    assignment = _lone_equals(expression) if any(i.kind == "syntax" for i in found) else None
    if assignment is not None:  # `model = "H100"`: the parser's two complaints say less than this
        message = "syntax error: `=` is no CEL operator; did you mean `==`?"
        return [CelIssue("syntax", message, assignment, 1, ("==",))]
    hinted = [i for i in found if "not available in DRA selectors" in i.message]
    if hinted:  # one missing library cascades into several errors: report the cause only
        found = hinted[:1]
    if not found:
        first = text.strip().splitlines()[0] if text.strip() else "unknown error"
        found.append(CelIssue("syntax", f"compilation failed: {first}", 0, 0))
    return found


def _classify(msg: str, expression: str, offset: int, rel: tuple[int, int]) -> CelIssue:
    if msg.startswith("Syntax error"):
        off, length = _syntax_position(expression, offset)
        detail = msg[len("Syntax error: "):]
        if detail.startswith("mismatched input '<EOF>'"):
            # The parser's list of expected tokens helps nobody: say what happened.
            after = expression[off:off + length] if off is not None else ""
            detail = f"the expression ends after '{after}' where an operand is expected" if after.strip() else (
                "the expression ends where an operand or a closing bracket is expected")
        return CelIssue("syntax", f"syntax error: {detail}", off, length)
    m = re.match(r"undeclared reference to '([^']+)'", msg)
    if m:
        name = m.group(1)
        off, length = _name_position(expression, offset, name)
        called = off is not None and "." not in name and expression[off + len(name):].lstrip().startswith("(")
        suggestions = _function_suggestions(name, rel, expression, off)
        message = _undeclared_message(name, rel, suggestions if called else None)
        return CelIssue("undeclared", message, off, length, suggestions)
    m = re.match(r"undefined field '([^']+)'", msg)
    if m:
        field = m.group(1)
        off, length = _field_position(expression, offset, field)
        text = f"undefined field '{field}': `device` has only the fields driver, attributes and capacity"
        if field == "allowMultipleAllocations":
            text = ("undefined field 'allowMultipleAllocations': it exists only from Kubernetes 1.34 with the "
                    "alpha feature gate DRAConsumableCapacity, which is off by default")
        elif field in ("name", "pool", "basic"):
            text += " (device and pool names cannot be selected in CEL)"
        return CelIssue("undeclared", text, off, length)
    m = re.match(r"found no matching overload for '([^']+)'", msg)
    if m:
        name = m.group(1)
        off, length = _name_position(expression, offset, name)
        hint = _later_hint(name, rel) or _quantity_hint(name, msg)
        return CelIssue("type", msg + (f"; {hint}" if hint else ""), off, length)
    return CelIssue("type", msg, offset, _token_length(expression, offset))


# CEL's standard functions and macros (cel-spec, language definition): with the Kubernetes
# library's declarations, what a mistyped call may have meant.
_STANDARD_FUNCTIONS = (
    "size", "matches", "startsWith", "endsWith", "contains", "has", "all", "exists", "exists_one",
    "map", "filter", "int", "uint", "double", "string", "bool", "bytes", "type", "dyn",
)


def _function_suggestions(name: str, rel: tuple[int, int], expression: str, offset: int | None) -> tuple[str, ...]:
    """Declared function names close to an unknown one that is called (`name(` follows it)."""
    if offset is None or "." in name or not expression[offset + len(name):].lstrip().startswith("("):
        return ()
    # Only expressions with an unknown name get here: difflib and the declaration tables load for them alone.
    from ..k8s.suggest import close_matches
    from . import _decls

    known = {_decls.parse_signature(sig).name.rsplit(".", 1)[-1] for since, sig in _decls._BASE if since <= rel}
    known.update(_STANDARD_FUNCTIONS)
    return tuple(close_matches(name, sorted(known), n=3, cutoff=0.75))


def _undeclared_message(name: str, rel: tuple[int, int], called: tuple[str, ...] | None = None) -> str:
    """What an undeclared name is: a function that does not exist when it is called (`called`: the declared
    names close to it), else a variable, and the only variable is `device`."""
    first = name.split(".")[0]
    if first in ("devic", "dev", "devices", "d") or (first != "device" and "." in name and name.split(".")[1] in ("driver", "attributes", "capacity")):
        return f"undeclared reference to '{first}': the only variable is `device` (did you mean 'device'?)"
    hint = _later_hint(name, rel)
    base = f"undeclared reference to '{name}'"
    if hint:
        return f"{base}: {hint}"
    if name == "includes":
        when = "" if rel >= (1, 36) else " from Kubernetes 1.36"
        return f"{base}: includes() exists{when} only when the cluster enables the alpha feature gate DRAListTypeAttributes"
    from ..k8s.suggest import close_matches  # as in the suggestions above: only undeclared names get here

    close = close_matches(name, _function_names(rel), n=2, cutoff=0.8)
    close = [c for c in close if c != name]  # `format` of `format.x()` is a namespace, not a misspelling
    if called is not None:
        close = close or list(called) or _same_words(name, _function_names(rel))
    if close:
        return f"{base}: no such function; did you mean '{close[0]}'?"
    if called is not None:
        return f"{base}: no such function in DRA selectors of Kubernetes {rel[0]}.{rel[1]}"
    return base + (": the only variable is `device`" if "." in name or name.isidentifier() else "")


def _same_words(name: str, known: tuple[str, ...]) -> list[str]:
    """Known names that hold every word of a camel-case `name` in its order (`asFloat`: `asApproximateFloat`)."""
    words = [w.lower() for w in re.findall(r"[a-z]+|[A-Z][a-z]*|\d+", name)]
    if len(words) < 2:
        return []
    pattern = re.compile(".*".join(map(re.escape, words)), re.I)
    return [k for k in known if k != name and "." not in k and pattern.fullmatch(k)][:1]


# How a relational operator reads on quantities (k8s.io/apiserver/pkg/cel/library/quantity.go): they are no
# numbers, so `<`, `>`, `<=` and `>=` have no overload for them; compareTo and isLessThan/isGreaterThan do.
_QUANTITY_COMPARISONS = {
    "_>_": "a.compareTo(b) > 0 or a.isGreaterThan(b)",
    "_<_": "a.compareTo(b) < 0 or a.isLessThan(b)",
    "_>=_": "a.compareTo(b) >= 0",
    "_<=_": "a.compareTo(b) <= 0",
}


def _quantity_hint(name: str, msg: str) -> str | None:
    if name not in _QUANTITY_COMPARISONS or "kubernetes.Quantity" not in msg:
        return None
    return (f"quantities are compared with compareTo, isGreaterThan or isLessThan, not `{name.strip('_')}`: "
            f"write {_QUANTITY_COMPARISONS[name]}, with b a quantity (quantity(\"40Gi\"))")


# A CEL string literal: quoted, raw (r"..") or triple-quoted; a lone `=` is looked for outside them.
_STRING = re.compile(r'''[rR]?(?:"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')''')


def _lone_equals(expression: str) -> int | None:
    """The offset of the first `=` outside a string that is not part of `==`, `!=`, `<=` or `>=`."""
    at = 0
    for literal in [*_STRING.finditer(expression), None]:
        end = literal.start() if literal is not None else len(expression)
        for i in range(at, end):
            if expression[i] == "=" and expression[i - 1:i] not in ("=", "!", "<", ">") and expression[i + 1:i + 2] != "=":
                return i
        if literal is None:
            return None
        at = literal.end()
    return None


# Functions and macros of standard CEL and of the strings extension, which every
# selector environment has, then those of the extensions a release adds.
_STANDARD_FUNCTIONS = (
    "size", "contains", "startsWith", "endsWith", "matches", "has", "all", "exists", "exists_one",
    "map", "filter", "int", "uint", "double", "string", "bytes", "bool", "type", "dyn", "duration", "timestamp",
    "charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim",
    "join", "quote", "format", "reverse", "bind",
)
_EXTENSION_FUNCTIONS = {
    "cel.lib.ext.sets": ("contains", "equivalent", "intersects"),
    "cel.lib.ext.comprev2": ("transformList", "transformMap", "transformMapEntry", "existsOne"),
    "cel.lib.ext.lists": ("slice", "flatten", "distinct", "sort", "sortBy", "range"),
}


@functools.lru_cache(maxsize=None)
def _function_names(rel: tuple[int, int]) -> tuple[str, ...]:
    """What a misspelt function may have meant in release `rel`: only what that release offers."""
    # Error path only: a clean run's start-up does not build the declaration tables.
    from . import _decls

    compat = (rel[0], rel[1] - 1)
    # The checker names the parts of `format.dns1123Label()` one by one: offer the last part too.
    names = {part for d in _decls.available_decls(compat, dra=True) for part in (d.name, d.name.rsplit(".", 1)[-1])}
    names.update(_STANDARD_FUNCTIONS)
    for since, extension, _ in _decls.EXTENSIONS:
        if since <= compat:
            names.update(_EXTENSION_FUNCTIONS.get(extension, ()))
    return tuple(sorted(names))


def _later_hint(name: str, rel: tuple[int, int]) -> str | None:
    # Error path only (see _function_names).
    from . import _decls

    fn = name.rsplit(".", 1)[-1] if not name.startswith(("format.", "sets.", "strings.", "ip.", "lists.")) else name
    later = []
    for since, sig in _decls._BASE:
        d = _decls.parse_signature(sig)
        if (d.name in (fn, name) or d.name.startswith(name + ".")) and since > (rel[0], rel[1] - 1):
            later.append(since)
    for since, ext, _ in _decls.EXTENSIONS:
        if since > (rel[0], rel[1] - 1) and (
            (ext.endswith("comprev2") and fn in ("transformList", "transformMap", "transformMapEntry", "all", "exists", "existsOne"))
            or (ext.endswith("lists") and fn in ("slice", "flatten", "distinct", "reverse", "sort", "sortBy", "lists.range", "range"))
            or (ext.endswith("sets") and name.startswith("sets."))
        ):
            later.append(since)
    if not later:
        return None
    since = min(later)
    usable = f"{since[0]}.{since[1] + 1}"
    return (f"not available in DRA selectors of Kubernetes {rel[0]}.{rel[1]} "
            f"(added to the CEL environment in {since[0]}.{since[1]}, usable in new selectors from {usable})")


_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\|\||&&|==|!=|<=|>=|\S")


def _token_length(expression: str, offset: int) -> int:
    m = _TOKEN.match(expression, offset)
    return len(m.group()) if m else 1


def _first_token(expression: str) -> int:
    m = re.search(r"\S", expression)
    return m.start() if m else 0


def _syntax_position(expression: str, offset: int) -> tuple[int, int]:
    """Syntax errors at the end of the input point at the last token (the dangling operator)."""
    if offset >= len(expression.rstrip()):
        stripped = expression.rstrip()
        m = re.search(r"(\|\||&&|==|!=|<=|>=|[A-Za-z_0-9]+|\S)$", stripped)
        if m:
            return m.start(), len(m.group())
        return max(0, len(stripped) - 1), 1
    return offset, _token_length(expression, offset)


def _name_position(expression: str, offset: int, name: str) -> tuple[int, int]:
    """The start of `name` around the checker's offset (which may be the '.' or '(' after it)."""
    if name.startswith("_") and name.endswith("_"):  # an operator: the checker points at it
        return offset, _token_length(expression, offset)
    parts = name.split(".")
    first, last = parts[0], parts[-1]
    # a function: the checker points at the '(' after the name or the '.' before it
    for candidate in (offset - len(last), offset + 1, offset):
        if 0 <= candidate and expression[candidate:candidate + len(last)] == last and len(parts) == 1:
            return candidate, len(last)
    # a qualified identifier `a.b.c`: point at its first segment
    start = expression.rfind(first, 0, offset + 1)
    if start >= 0:
        return start, len(first)
    return offset, _token_length(expression, offset)


def _field_position(expression: str, offset: int, field: str) -> tuple[int, int]:
    for candidate in (offset + 1, offset, offset - len(field)):
        if 0 <= candidate and expression[candidate:candidate + len(field)] == field:
            return candidate, len(field)
    return offset, _token_length(expression, offset)


# --- policies ----------------------------------------------------------------------------------

class Policy(NamedRecord):
    __slots__ = ()

    def __new__(_cls, expression: str, program: Any) -> "Policy":
        return tuple_new(_cls, (expression, program))


def compile_policy(expression: str) -> Policy | list[CelIssue]:
    if not available():
        return [CelIssue("internal", "CEL policies need cel-expr-python and protobuf", None, 0)]
    # cel-expr-python and protobuf load only for configurations with policies, which compile them.
    from . import _env

    env = _env.policy_env()
    try:
        program = env.compile(expression)
    except Exception as exc:  # noqa: BLE001
        return _issues(str(exc), expression, SUPPORTED[1])
    result = program.return_type().name().lower()
    if result not in ("bool", "dyn"):
        return [CelIssue("result-type", f"a policy must evaluate to bool, not {result}", 0, _token_length(expression, 0))]
    return Policy(expression, program)


def evaluate(policy: Policy, activation: dict[str, Any]) -> Any:
    try:
        value = policy.program.eval(data=activation)
    except Exception as exc:  # noqa: BLE001
        raise CelEvalError(str(exc)) from exc
    if value.type().name() == "ERROR":
        raise CelEvalError(str(value.value()))
    return value.plain_value()
