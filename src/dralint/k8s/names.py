"""Kubernetes name and format validators, as k8s.io/apimachinery implements them.

Each returns a list of error detail strings (empty when valid), like the Go
helpers in pkg/util/validation, so rules can report one problem per detail.
"""

from __future__ import annotations

import re

from ..lazy_re import LazyPattern

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63
DRIVER_NAME_MAX = 63
DEVICE_MAX_DOMAIN = 63
DEVICE_MAX_ID = 32

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
# Compiled on first use: a claim names no qualified name or C identifier.
_QUALIFIED_NAME = LazyPattern(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_C_IDENTIFIER = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")

# Values already found valid, per validator: a repository repeats the same names (namespaces,
# class names, request names, label keys) in every document, and a set lookup is a tenth of a
# regular-expression match. Only valid values are kept, so every caller still gets its own list.
_VALID_MAX = 50_000
_valid_labels: set[str] = set()
_valid_subdomains: set[str] = set()
_valid_qualified: set[str] = set()
_valid_label_values: set[str] = set()


def _remember(valid: set[str], value: str) -> None:
    if len(valid) >= _VALID_MAX:
        valid.clear()
    valid.add(value)


def dns1123_label(value: str) -> list[str]:
    if value in _valid_labels:
        return []
    errs = []
    if len(value) > DNS1123_LABEL_MAX:
        errs.append(f"must be no more than {DNS1123_LABEL_MAX} characters")
    if not _DNS1123_LABEL.fullmatch(value):
        errs.append(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
            "and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')"
        )
    if not errs:
        _remember(_valid_labels, value)
    return errs


def dns1123_subdomain(value: str) -> list[str]:
    if value in _valid_subdomains:
        return []
    errs = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errs.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX} characters")
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        errs.append(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
            "and must start and end with an alphanumeric character (e.g. 'example.com')"
        )
    if not errs:
        _remember(_valid_subdomains, value)
    return errs


def qualified_name(value: str) -> list[str]:
    """A label or annotation key: optional DNS-subdomain prefix and '/', then a name of at most 63 characters."""
    if value in _valid_qualified:
        return []
    errs = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend(f"prefix part {e}" for e in dns1123_subdomain(prefix))
    else:
        return [
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
            "an alphanumeric character, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    else:
        if len(name) > QUALIFIED_NAME_MAX:
            errs.append(f"name part must be no more than {QUALIFIED_NAME_MAX} characters")
        if not _QUALIFIED_NAME.fullmatch(name):
            errs.append(
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
                "an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc')"
            )
    if not errs:
        _remember(_valid_qualified, value)
    return errs


def label_value(value: str) -> list[str]:
    if value in _valid_label_values:
        return []
    errs = []
    if len(value) > LABEL_VALUE_MAX:
        errs.append(f"must be no more than {LABEL_VALUE_MAX} characters")
    if value and not _QUALIFIED_NAME.fullmatch(value):
        errs.append(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character"
        )
    if not errs:
        _remember(_valid_label_values, value)
    return errs


def c_identifier(value: str) -> list[str]:
    if _C_IDENTIFIER.fullmatch(value):
        return []
    return ["a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'"]


def driver_name(value: str) -> tuple[str | None, list[str]]:
    """The driver-name rule (CSI driver names): (error type, details).

    Empty -> Required; longer than 63 -> TooLong; lower-cased value not a DNS
    subdomain -> Invalid. Returns (None, []) when valid.
    """
    if not value:
        return "Required", ["a driver name is required"]
    if len(value) > DRIVER_NAME_MAX:
        return "TooLong", [f"must be no more than {DRIVER_NAME_MAX} characters"]
    errs = dns1123_subdomain(value.lower())
    return ("Invalid", errs) if errs else (None, [])


def is_namespace_name(value: str) -> bool:
    return not dns1123_label(value)


# --- Additions for the API-server parity rules (claims, classes, metadata). ---

ANNOTATIONS_MAX_TOTAL = 256 * 1024
GENERATE_NAME_MAX_PREFIX = 58  # the registry cuts generateName to 58 characters and appends 5 random ones
OPAQUE_PARAMETERS_MAX = 10 * 1024
QUALIFIED_NAME_PREFIX_MAX = DNS1123_SUBDOMAIN_MAX


def mask_trailing_dash(value: str) -> str:
    """apimachinery's maskTrailingDash: a generateName prefix may end with '-'."""
    if len(value) > 1 and value.endswith("-"):
        return value[:-2] + "a"
    return value


def generate_name_prefix(value: str) -> list[str]:
    """`metadata.generateName` as NameIsDNSSubdomain(prefix=true) checks it."""
    return dns1123_subdomain(mask_trailing_dash(value))


def generated_name(prefix: str) -> str:
    """A stand-in for the name the registry generates (5 lower-case alphanumerics appended)."""
    return prefix[:GENERATE_NAME_MAX_PREFIX] + "x7k2q"


def driver_name_errors(value: str) -> list[tuple[str, str]]:
    """ValidateCSIDriverName exactly: every (error type, detail) it produces, in order.

    An empty name gives Required *and* Invalid; a long name TooLong (and Invalid
    when its characters are also wrong).
    """
    errs: list[tuple[str, str]] = []
    if not value:
        errs.append(("Required", "a driver name is required"))
    if len(value) > DRIVER_NAME_MAX:
        errs.append(("TooLong", f"must be no more than {DRIVER_NAME_MAX} characters"))
    errs.extend(("Invalid", msg) for msg in dns1123_subdomain(value.lower()))
    return errs


def driver_name_error_types(value: str) -> list[tuple[str, str]]:
    """`driver_name_errors` with one (error type, detail) per error type, in the server's order.

    The server reports one error per message; a verdict compares (path, type),
    so each type is reported once.
    """
    out: list[tuple[str, str]] = []
    for etype, msg in driver_name_errors(value):
        if etype not in [t for t, _ in out]:
            out.append((etype, msg))
    return out


POOL_NAME_MAX = 253


def pool_name_error_types(value: str) -> list[tuple[str, str]]:
    """validatePoolName: (error type, detail), each type once, in the server's order.

    Empty is Required and nothing else; over 253 characters is TooLong, and each
    `/`-separated part must still be a DNS subdomain (Invalid), both reported.
    """
    if value == "":
        return [("Required", "a pool name is required")]
    out: list[tuple[str, str]] = []
    if len(value) > POOL_NAME_MAX:
        out.append(("TooLong", f"must be no more than {POOL_NAME_MAX} characters"))
    for part in value.split("/"):
        errs = dns1123_subdomain(part)
        if errs:
            out.append(("Invalid", f"part '{part}' is not a DNS subdomain: {errs[-1]}"))
            break
    return out


def interface_address_problem(value: str) -> str | None:
    """IsValidInterfaceAddress: what is wrong with an "ifaddr" (an IP and a prefix length), or None.

    It must parse as `<ip>/<bits>` and be written canonically: the address as the
    server prints it (IPv6 compressed, lower case; an IPv4-mapped IPv6 address as
    IPv4 with the prefix length shortened by 96) and the prefix length in decimal.
    """
    import ipaddress

    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        return "must be a valid address in CIDR form (e.g. 10.9.8.7/24 or 2001:db8::1/64)"
    if "/" not in value:
        return "must be a valid address in CIDR form (e.g. 10.9.8.7/24 or 2001:db8::1/64)"
    ip, bits = iface.ip, iface.network.prefixlen
    mapped = getattr(ip, "ipv4_mapped", None)
    if mapped is not None and bits >= 96:
        ip, bits = mapped, bits - 96
    canonical = f"{ip}/{bits}"
    return None if value == canonical else f"must be in canonical form ('{canonical}')"


def fully_qualified_name(value: str, release: tuple[int, int]) -> list[tuple[tuple[str, ...], str, str]]:
    """validateFullyQualifiedName (constraint matchAttribute/distinctAttribute), and validateQualifiedName
    (attribute and capacity keys) without its "must include a domain" error.

    Returns (path suffix, error type, detail) triples; the suffix is () for the
    field itself or ("domain",) for the 1.31 "no domain" error.
    """
    out: list[tuple[tuple[str, ...], str, str]] = []
    old = release <= (1, 34)
    empty_type = "Required" if old else "Invalid"
    if value == "" and old:
        out.append(((), "Required", "a fully qualified attribute name is required"))
        if release == (1, 31):
            out.append((("domain",), "Required", "must include a domain: '<domain>/<name>'"))
        return out
    parts = value.split("/")

    def c_ident(ident: str) -> None:
        if len(ident) > DEVICE_MAX_ID:
            out.append(((), "TooLong", f"the identifier must be no more than {DEVICE_MAX_ID} characters"))
        for msg in c_identifier(ident):
            out.append(((), "TypeInvalid" if old else "Invalid", msg))

    if len(parts) == 1:
        c_ident(parts[0])
    elif len(parts) == 2:
        domain, ident = parts
        if not domain:
            out.append(((), empty_type, "the domain must not be empty"))
        else:
            for etype, msg in driver_name_errors(domain):
                out.append(((), etype, f"domain {msg}"))
        if not ident:
            out.append(((), empty_type, "the name must not be empty"))
        else:
            c_ident(ident)
    elif release >= (1, 38):
        # validateQualifiedName's `default:` branch (kubernetes#141644, 1.38): up to 1.37 a name
        # with more than one '/' was accepted unchecked.
        out.append(((), "Invalid", "must not contain more than one slash"))
    if "/" not in value:
        if release == (1, 31):
            out.append((("domain",), "Required", "must include a domain: '<domain>/<name>'"))
        else:
            out.append(((), "Invalid", "must include a domain: '<domain>/<name>'"))
    return out


def is_extended_resource_name(value: str) -> bool:
    """v1helper.IsExtendedResourceName: has '/', not kubernetes.io/, not requests.*, requests.<v> a qualified name."""
    if "kubernetes.io/" in value or "/" not in value:
        return False
    if value.startswith("requests."):
        return False
    return not qualified_name("requests." + value)


def go_json_size(value: object) -> int:
    """Bytes of the compact JSON that kubectl (Go encoding/json) sends for `value`.

    Go escapes <, > and & as \\u003c etc. and U+2028/U+2029; everything else is
    UTF-8 as is. Floats with integral values print without '.0' in Go.
    Walked with a stack, not recursion: parameters can nest thousands of levels.
    """
    size = 0
    pending = [value]
    while pending:
        v = pending.pop()
        if isinstance(v, dict):
            size += 2 + max(len(v) - 1, 0) + len(v)  # braces, commas, colons
            for k, x in v.items():
                size += _go_json_string_size(str(k))
                pending.append(x)
        elif isinstance(v, (list, tuple)):
            size += 2 + max(len(v) - 1, 0)
            pending.extend(v)
        elif isinstance(v, str):
            size += _go_json_string_size(v)
        elif isinstance(v, (bool, int, float)) or v is None:
            if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
                v = int(v)
            import json  # noqa: PLC0415 - only a number costs it: a lint does not import json (dralint.jsondata)

            size += len(json.dumps(v))
        else:
            size += _go_json_string_size(str(v))
    return size


def _go_json_string_size(text: str) -> int:
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        # What JSON writes as is (most keys and values): no call into json for it.
        return len(text) + 2 + 5 * (text.count("<") + text.count(">") + text.count("&"))
    import json  # noqa: PLC0415 - as above

    size = len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    size += 5 * sum(text.count(c) for c in "<>&")
    return size + 3 * (text.count("\u2028") + text.count("\u2029"))
