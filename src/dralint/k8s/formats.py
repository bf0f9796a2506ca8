"""Kubernetes string formats used by the extracted schemas (`format` keyword).

Shared by the fast validator and the jsonschema FormatChecker so that both
agree on what is valid.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from decimal import Decimal
    from typing import Any, Callable

# The patterns are strings that `re` compiles on first use and caches: a clean claim has no
# quantity or timestamp, so its start-up compiles none of them (bench/startup.py).
# k8s.io/apimachinery/pkg/api/resource: <signedNumber><suffix>, suffix one of the
# binary SI, decimal SI or a decimal exponent (e/E followed by a signed integer).
_QUANTITY = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[KMGTPE]i|[mkMGTPE]|[eE][+-]?[0-9]+)?"
# RFC 3339 as metav1.Time parses it (time.RFC3339): seconds required, fraction and zone as Go accepts.
_DATE_TIME = (
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
    r"(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
)
# White space as Go's strings.TrimSpace sees it (unicode.IsSpace).
_GO_SPACE = " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


def is_quantity(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    # Quantity.UnmarshalJSON parses strings.TrimSpace(value): surrounding white space is accepted.
    return isinstance(value, str) and re.fullmatch(_QUANTITY, value.strip(_GO_SPACE)) is not None


_QUANTITY_PARTS = r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([KMGTPE]i|[mkMGTPE]|[eE][+-]?[0-9]+)?"


def quantity_value(value: Any) -> Decimal | None:
    """The exact value of a quantity (`16Gi` -> 17179869184), or None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    m = re.fullmatch(_QUANTITY_PARTS, str(value).strip(_GO_SPACE))
    if m is None:
        return None
    number, suffix = m.group(1), m.group(2) or ""
    # Imported here, not at the top: only the ResourceSlice capacity rules compare quantities, and a
    # clean file's start-up does not pay for decimal (bench/startup.py).
    from decimal import Decimal, InvalidOperation

    try:
        if suffix[:1] in ("e", "E"):
            return Decimal(number).scaleb(int(suffix[1:]))
        return Decimal(number) * _suffix_factors()[suffix]
    except (InvalidOperation, ValueError):
        return None


@functools.lru_cache(maxsize=1)
def _suffix_factors() -> dict[str, Decimal]:
    from decimal import Decimal  # see quantity_value

    return {
        "": Decimal(1), "m": Decimal("0.001"), "k": Decimal(10) ** 3, "M": Decimal(10) ** 6, "G": Decimal(10) ** 9,
        "T": Decimal(10) ** 12, "P": Decimal(10) ** 15, "E": Decimal(10) ** 18,
        "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20, "Gi": Decimal(2) ** 30, "Ti": Decimal(2) ** 40,
        "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
    }


def is_date_time(value: Any) -> bool:
    return not isinstance(value, str) or re.fullmatch(_DATE_TIME, value) is not None


def is_int32(value: Any) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or INT32[0] <= value <= INT32[1]


def is_int64(value: Any) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or INT64[0] <= value <= INT64[1]


def is_byte(value: Any) -> bool:
    if not isinstance(value, str):
        return True
    import base64  # noqa: PLC0415 - only `format: byte` fields need it, not a clean lint's start-up
    import binascii  # noqa: PLC0415 - as base64 (an extension module to load)

    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


# Formats not listed are annotations only, as in the API server (e.g. "double").
CHECKS: dict[str, Callable[[Any], bool]] = {
    "quantity": lambda v: not isinstance(v, (str, int, float)) or is_quantity(v),
    "date-time": is_date_time,
    "int32": is_int32,
    "int64": is_int64,
    "byte": is_byte,
}

EXPLAIN: dict[str, str] = {
    "quantity": "a Kubernetes quantity such as 8Gi, 500m or 1.5",
    "date-time": "an RFC 3339 timestamp such as 2025-01-31T12:00:00Z",
    "int32": "a 32-bit integer",
    "int64": "a 64-bit integer",
    "byte": "base64-encoded data",
}
