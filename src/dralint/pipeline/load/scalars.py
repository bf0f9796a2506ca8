"""What a YAML scalar becomes: the one place that resolves plain scalars and tags.

Kubernetes reads YAML with sigs.k8s.io/yaml, i.e. go-yaml v2 (YAML 1.1 rules)
into ``interface{}``, converts that to JSON and decodes the JSON. We mirror the
outcome of that pipeline:

* booleans: ``true/false``, ``yes/no``, ``on/off``, ``y/n`` in the lower,
  Title and UPPER spellings go-yaml v2 knows (``y: 1`` really is ``true: 1``
  for the API server);
* null: empty, ``~``, ``null``, ``Null``, ``NULL``;
* integers: Go ``strconv.ParseInt(s, 0, 64)`` after removing ``_``: decimal,
  ``0x`` hex, ``0o`` and leading-``0`` octal (``0755`` is 493), ``0b`` binary;
  values up to uint64; anything larger falls through to float;
* floats: go-yaml's ``[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?``
  plus ``.inf``/``.nan``. A *finite integral* float below 1e21 becomes an
  ``int``, because Go's JSON encoder prints ``2.0`` as ``2`` and the API server
  then sees an integer (``count: 2.0`` is accepted by kubectl). A number
  outside float64's range (``1e400``, or 5,000 digits) stays a string, as
  ``strconv.ParseFloat`` fails on it and go-yaml then keeps the text;
* timestamps (``2024-01-01``) stay strings (go-yaml v2 keeps them as strings
  when decoding into ``interface{}``); sexagesimal ``1:20`` is a string;
* quoted and block scalars are always strings;
* tags: ``!!str`` forces a string, ``!!int``/``!!float``/``!!bool``/``!!null``
  convert (a value that does not convert is a DRA001), other tags (``!foo``,
  ``!!binary``, ``!!timestamp``) leave the text as a string.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

MISS = object()  # "not a reserved word" from WORDS.get
# math.inf and math.nan's values, without importing math (an extension module to load: bench/startup.py).
_INF, _NAN = float("inf"), float("nan")

# Plain scalars that are words, not text: null, booleans, infinities, NaN.
WORDS: dict[str, Any] = {"": None, "~": None, "null": None, "Null": None, "NULL": None}
for _w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"):
    WORDS[_w] = True
for _w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"):
    WORDS[_w] = False
for _w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
    WORDS[_w] = _INF
for _w in ("-.inf", "-.Inf", "-.INF"):
    WORDS[_w] = -_INF
for _w in (".nan", ".NaN", ".NAN"):
    WORDS[_w] = _NAN
del _w

NUMBER_START = frozenset("0123456789+-.")
_INT_RE = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]+|[0-9]+)")
_FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INT64_MIN = -(2**63)
_UINT64_MAX = 2**64 - 1
# uint64 has 20 decimal digits: longer ones (leading zeros aside, which make an octal number) are out of
# range, and Python refuses int() of more than 4,300 digits anyway.
_MAX_DECIMAL_DIGITS = 20
_STR_TAG = "tag:yaml.org,2002:str"
_NULL_WORDS = ("", "~", "null", "Null", "NULL")


_OCTAL_DIGITS = frozenset("01234567")


def resolve_number(text: str) -> Any:
    """An int or float as go-yaml v2 + JSON make of `text`, or `text` itself when it is no number."""
    s = text.replace("_", "") if "_" in text else text
    m = _INT_RE.fullmatch(s)
    if m is not None:
        sign, digits = m.groups()
        if len(digits) > 1 and digits[0] == "0" and digits[1] in "01234567":
            # strconv.ParseInt(s, 0, 64) reads a leading 0 as octal and fails on an 8 or 9; go-yaml
            # then tries ParseFloat, which reads 0128 as 128.
            n: int | None = int(digits, 8) if _OCTAL_DIGITS.issuperset(digits) else None
        elif digits.isdigit():
            n = int(digits) if len(digits) <= _MAX_DECIMAL_DIGITS else None
        else:
            n = int(digits, 0)
        if n is not None:
            if sign == "-":
                n = -n
            if _INT64_MIN <= n <= _UINT64_MAX:  # strconv.ParseInt, then ParseUint
                return n
    if _FLOAT_RE.fullmatch(s) is not None:
        f = float(s)
        if abs(f) == _INF:
            return text  # strconv.ParseFloat: out of range, go-yaml keeps the string
        if f.is_integer() and -1e21 < f < 1e21:
            return int(f)
        return f
    return text


def resolve_plain(text: str) -> Any:
    """The value of a plain (unquoted, untagged) scalar, as Kubernetes reads it."""
    r = WORDS.get(text, MISS)
    if r is not MISS:
        return r
    if text[0] in NUMBER_START:
        return resolve_number(text)
    return text


def resolve_tagged(value: str, tag: str) -> tuple[Any, str | None]:
    """(value, error message or None) of a scalar with an explicit tag."""
    if tag == _STR_TAG or tag == "!":
        return value, None
    word = value.strip()
    if tag == "tag:yaml.org,2002:int":
        r = resolve_number(word)
        if type(r) is int:
            return r, None
        return value, f"value {value!r} is tagged !!int but is not an integer"
    if tag == "tag:yaml.org,2002:float":
        r = WORDS.get(word, MISS)
        if r is MISS:
            r = resolve_number(word) if word else value
        if type(r) in (int, float):
            return r, None
        return value, f"value {value!r} is tagged !!float but is not a number"
    if tag == "tag:yaml.org,2002:bool":
        r = WORDS.get(word, MISS)
        if type(r) is bool:
            return r, None
        return value, f"value {value!r} is tagged !!bool but is not a boolean"
    if tag == "tag:yaml.org,2002:null":
        if word in _NULL_WORDS:
            return None, None
        return value, f"value {value!r} is tagged !!null but is not null"
    # !!binary, !!timestamp, local tags (!foo): go-yaml keeps the text.
    return value, None


def scalar_value(value: str, tag: Any, style: str | None) -> tuple[Any, str | None]:
    """Value of a scalar (its text, tag and style as the parser gives them) and an error message or None."""
    if tag is not None:
        return resolve_tagged(value, str(tag))
    if style:
        return value, None
    return resolve_plain(value), None


def key_string(k: Any) -> str | None:
    """The string sigs.k8s.io/yaml would make of a non-string key, None when it rejects it."""
    if type(k) is bool:
        return "true" if k else "false"
    if type(k) is int:
        return str(k)
    if type(k) is float:
        if k != k:
            return ".nan"
        if abs(k) == _INF:
            return ".inf" if k > 0 else "-.inf"
        return repr(k)
    return None


def describe(v: Any) -> str:
    """A value's kind for a message: `null`, `boolean true`, `number 3`, `mapping` ..."""
    if v is None:
        return "null"
    if type(v) is bool:
        return "boolean " + ("true" if v else "false")
    if isinstance(v, (int, float)):
        return f"number {v!r}"
    if isinstance(v, dict):
        return "mapping"
    if isinstance(v, list):
        return "sequence"
    return repr(v)
