"""Kubernetes name and format validators, as k8s.io/apimachinery implements them.

Each returns a list of error detail strings (empty when valid), like the Go
helpers in pkg/util/validation, so rules can report one problem per detail.
"""

from __future__ import annotations

import re

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63
DRIVER_NAME_MAX = 63
DEVICE_MAX_DOMAIN = 63
DEVICE_MAX_ID = 32

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def dns1123_label(value: str) -> list[str]:
    errs = []
    if len(value) > DNS1123_LABEL_MAX:
        errs.append(f"must be no more than {DNS1123_LABEL_MAX} characters")
    if not _DNS1123_LABEL.fullmatch(value):
        errs.append(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
            "and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')"
        )
    return errs


def dns1123_subdomain(value: str) -> list[str]:
    errs = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errs.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX} characters")
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        errs.append(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
            "and must start and end with an alphanumeric character (e.g. 'example.com')"
        )
    return errs


def qualified_name(value: str) -> list[str]:
    """A label or annotation key: optional DNS-subdomain prefix and '/', then a name of at most 63 characters."""
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
    return errs


def label_value(value: str) -> list[str]:
    errs = []
    if len(value) > LABEL_VALUE_MAX:
        errs.append(f"must be no more than {LABEL_VALUE_MAX} characters")
    if value and not _QUALIFIED_NAME.fullmatch(value):
        errs.append(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character"
        )
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
