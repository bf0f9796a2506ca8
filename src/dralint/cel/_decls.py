"""The Kubernetes CEL libraries, as typed declarations, with the release that introduced each.

Each entry is `(introduced, signature)`. `introduced` is the Kubernetes
release whose *base environment* first carried the option (kubernetes/apiserver
`pkg/cel/environment/base.go`); a DRA selector compiled for release 1.N sees
only options introduced in 1.(N-1) or earlier (the "new expressions"
compatibility version), see `available_decls`.

Signature mini-language (parsed by `parse_signature`):

    name(ARG, ARG) -> RET            global function (`quantity(string)`)
    ns.name(ARG) -> RET              namespaced global function (`sets.contains`)
    <TARGET>.name(ARG) -> RET        member function (`<string>.find(string)`)

Types: `bool int uint double string bytes dyn null_type timestamp duration`,
`list(T)`, `map(K, V)`, `optional_type(T)`, an opaque type name such as
`kubernetes.Quantity`, and type parameters written as a single capital letter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Q = "kubernetes.Quantity"
SV = "kubernetes.Semver"
URL = "kubernetes.URL"
IP = "net.IP"
CIDR = "net.CIDR"
FMT = "kubernetes.NamedFormat"

# (introduced in the base environment, signature)
_BASE: list[tuple[tuple[int, int], str]] = [
    # --- the standard `string()` conversions: re-declared because the IP/CIDR library adds
    # overloads to this standard-library function (see STDLIB_REDECLARED)
    ((1, 0), "string(string) -> string"),
    ((1, 0), "string(int) -> string"),
    ((1, 0), "string(uint) -> string"),
    ((1, 0), "string(double) -> string"),
    ((1, 0), "string(bytes) -> string"),
    ((1, 0), "string(timestamp) -> string"),
    ((1, 0), "string(duration) -> string"),
    # --- URL library (1.0)
    ((1, 0), f"url(string) -> {URL}"),
    ((1, 0), "isURL(string) -> bool"),
    ((1, 0), f"<{URL}>.getScheme() -> string"),
    ((1, 0), f"<{URL}>.getHost() -> string"),
    ((1, 0), f"<{URL}>.getHostname() -> string"),
    ((1, 0), f"<{URL}>.getPort() -> string"),
    ((1, 0), f"<{URL}>.getEscapedPath() -> string"),
    ((1, 0), f"<{URL}>.getQuery() -> map(string, list(string))"),
    # --- regex library (1.0)
    ((1, 0), "<string>.find(string) -> string"),
    ((1, 0), "<string>.findAll(string) -> list(string)"),
    ((1, 0), "<string>.findAll(string, int) -> list(string)"),
    # --- Kubernetes list library (1.0)
    ((1, 0), "<list(T)>.isSorted() -> bool"),
    ((1, 0), "<list(T)>.sum() -> T"),
    ((1, 0), "<list(T)>.min() -> T"),
    ((1, 0), "<list(T)>.max() -> T"),
    ((1, 0), "<list(T)>.indexOf(T) -> int"),
    ((1, 0), "<list(T)>.lastIndexOf(T) -> int"),
    # --- extended strings library v2 (1.29; v0 before, which lacked format/quote), declared here
    # rather than loaded from the C++ extension so that `indexOf`/`lastIndexOf` can carry the
    # list overloads of the Kubernetes list library as well.
    ((1, 0), "<string>.charAt(int) -> string"),
    ((1, 0), "<string>.indexOf(string) -> int"),
    ((1, 0), "<string>.indexOf(string, int) -> int"),
    ((1, 0), "<string>.lastIndexOf(string) -> int"),
    ((1, 0), "<string>.lastIndexOf(string, int) -> int"),
    ((1, 0), "<string>.lowerAscii() -> string"),
    ((1, 0), "<string>.upperAscii() -> string"),
    ((1, 0), "<string>.replace(string, string) -> string"),
    ((1, 0), "<string>.replace(string, string, int) -> string"),
    ((1, 0), "<string>.split(string) -> list(string)"),
    ((1, 0), "<string>.split(string, int) -> list(string)"),
    ((1, 0), "<string>.substring(int) -> string"),
    ((1, 0), "<string>.substring(int, int) -> string"),
    ((1, 0), "<string>.trim() -> string"),
    ((1, 0), "<list(string)>.join() -> string"),
    ((1, 0), "<list(string)>.join(string) -> string"),
    ((1, 29), "<string>.format(list(dyn)) -> string"),
    ((1, 29), "strings.quote(string) -> string"),
    # --- quantity library (1.28)
    ((1, 28), f"quantity(string) -> {Q}"),
    ((1, 28), "isQuantity(string) -> bool"),
    ((1, 28), f"<{Q}>.sign() -> int"),
    ((1, 28), f"<{Q}>.isInteger() -> bool"),
    ((1, 28), f"<{Q}>.asInteger() -> int"),
    ((1, 28), f"<{Q}>.asApproximateFloat() -> double"),
    ((1, 28), f"<{Q}>.add({Q}) -> {Q}"),
    ((1, 28), f"<{Q}>.add(int) -> {Q}"),
    ((1, 28), f"<{Q}>.sub({Q}) -> {Q}"),
    ((1, 28), f"<{Q}>.sub(int) -> {Q}"),
    ((1, 28), f"<{Q}>.isLessThan({Q}) -> bool"),
    ((1, 28), f"<{Q}>.isGreaterThan({Q}) -> bool"),
    ((1, 28), f"<{Q}>.compareTo({Q}) -> int"),
    # --- IP and CIDR libraries (1.30)
    ((1, 30), f"ip(string) -> {IP}"),
    ((1, 30), "isIP(string) -> bool"),
    ((1, 30), "ip.isCanonical(string) -> bool"),
    ((1, 30), f"<{IP}>.family() -> int"),
    ((1, 30), f"<{IP}>.isUnspecified() -> bool"),
    ((1, 30), f"<{IP}>.isLoopback() -> bool"),
    ((1, 30), f"<{IP}>.isLinkLocalMulticast() -> bool"),
    ((1, 30), f"<{IP}>.isLinkLocalUnicast() -> bool"),
    ((1, 30), f"<{IP}>.isGlobalUnicast() -> bool"),
    ((1, 30), f"string({IP}) -> string"),
    ((1, 30), f"cidr(string) -> {CIDR}"),
    ((1, 30), "isCIDR(string) -> bool"),
    ((1, 30), f"<{CIDR}>.containsIP({IP}) -> bool"),
    ((1, 30), f"<{CIDR}>.containsIP(string) -> bool"),
    ((1, 30), f"<{CIDR}>.containsCIDR({CIDR}) -> bool"),
    ((1, 30), f"<{CIDR}>.containsCIDR(string) -> bool"),
    ((1, 30), f"<{CIDR}>.ip() -> {IP}"),
    ((1, 30), f"<{CIDR}>.masked() -> {CIDR}"),
    ((1, 30), f"<{CIDR}>.prefixLength() -> int"),
    ((1, 30), f"string({CIDR}) -> string"),
    # --- format library (1.31)
    ((1, 31), f"format.named(string) -> optional_type({FMT})"),
    *[
        ((1, 31), f"format.{n}() -> {FMT}")
        for n in (
            "dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
            "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime",
        )
    ],
    ((1, 31), f"<{FMT}>.validate(string) -> optional_type(list(string))"),
    # --- semver library v1 in the base environment (1.33): the normalising overloads
    ((1, 33), f"semver(string, bool) -> {SV}"),
    ((1, 33), "isSemver(string, bool) -> bool"),
]

# DRA's own additions, present for every structured-parameters release (1.31+):
# the semver library (DRA's own copy in 1.31, the apiserver one at level 0 later).
_DRA: list[tuple[tuple[int, int], str]] = [
    ((1, 0), f"semver(string) -> {SV}"),
    ((1, 0), "isSemver(string) -> bool"),
    ((1, 0), f"<{SV}>.major() -> int"),
    ((1, 0), f"<{SV}>.minor() -> int"),
    ((1, 0), f"<{SV}>.patch() -> int"),
    ((1, 0), f"<{SV}>.isLessThan({SV}) -> bool"),
    ((1, 0), f"<{SV}>.isGreaterThan({SV}) -> bool"),
    ((1, 0), f"<{SV}>.compareTo({SV}) -> int"),
]

# Extensions provided by the CEL implementation itself, by the base-environment release
# that introduced them (name in the env config, version or None).
EXTENSIONS: list[tuple[tuple[int, int], str, int | None]] = [
    ((1, 0), "cel.lib.ext.bindings", None),  # DRA adds cel.bind for every release
    ((1, 29), "cel.lib.ext.sets", None),
    ((1, 32), "cel.lib.ext.comprev2", None),  # two-variable comprehensions
    ((1, 34), "cel.lib.ext.lists", None),  # lists extension v3 (the C++ library's newest level)
]

# Standard-library functions that the environment excludes and declares itself (with more overloads).
STDLIB_REDECLARED = ("string",)

# Cross-type numeric comparisons (1.28): the standard ordering operators are re-declared
# with the mixed int/uint/double overloads.
_ORDERED_SAME = ["bool", "int", "uint", "double", "string", "bytes", "timestamp", "duration"]
_NUMERIC = ["int", "uint", "double"]
ORDERING_OPERATORS = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}


def ordering_overloads(cross_numeric: bool) -> dict[str, list[tuple[str, list[str], str]]]:
    """Overloads of `<`, `<=`, `>`, `>=`: (id, args, result)."""
    ids = {"int": "int64", "uint": "uint64"}
    out: dict[str, list[tuple[str, list[str], str]]] = {}
    for op, stem in ORDERING_OPERATORS.items():
        overloads = [(f"{stem}_{ids.get(t, t)}", [t, t], "bool") for t in _ORDERED_SAME]
        if cross_numeric:
            for a in _NUMERIC:
                for b in _NUMERIC:
                    if a != b:
                        overloads.append((f"{stem}_{ids.get(a, a)}_{ids.get(b, b)}", [a, b], "bool"))
        out[op] = overloads
    return out


@dataclass(frozen=True)
class Decl:
    name: str
    target: str | None
    args: tuple[str, ...]
    result: str
    overload_id: str


_SIG = re.compile(r"^\s*(?:<(?P<target>.+?)>\.)?(?P<name>[A-Za-z_][\w.]*)\((?P<args>.*)\)\s*->\s*(?P<ret>.+?)\s*$")


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_signature(sig: str) -> Decl:
    m = _SIG.match(sig)
    if not m:
        raise ValueError(f"bad signature {sig!r}")
    target = m.group("target")
    args = tuple(_split_top(m.group("args")))
    ident = re.sub(r"\W+", "_", "_".join([m.group("name"), *([target] if target else []), *args])).strip("_")
    return Decl(m.group("name"), target, args, m.group("ret"), "k8s_" + ident)


def available_decls(compat: tuple[int, int], *, dra: bool) -> list[Decl]:
    """Declarations of the base environment at compatibility version `compat` (plus DRA's own)."""
    entries = [s for since, s in _BASE if since <= compat]
    if dra:
        entries = [s for since, s in _DRA if since <= compat] + entries
    return [parse_signature(s) for s in entries]


def introduced(name: str) -> tuple[int, int] | None:
    """The base-environment release that introduced function `name` (None: not a Kubernetes library function)."""
    found = [since for since, sig in _BASE if parse_signature(sig).name == name]
    return min(found) if found else None


def type_spec(text: str) -> dict:
    """A type in the CEL env-config form: {type_name, params, is_type_param}."""
    text = text.strip()
    if re.fullmatch(r"[A-Z]", text):
        return {"type_name": text, "is_type_param": True}
    m = re.fullmatch(r"([\w.]+)\((.*)\)", text)
    if m:
        return {"type_name": m.group(1), "params": [type_spec(p) for p in _split_top(m.group(2))]}
    return {"type_name": text}
