"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One `reportingDescriptor` per rule code (engine checks, built-in rules, the
plugins' rules, and any other code that shows up in the results), one result
per problem with a physical location (URI relative to the working directory,
1-based region, end column exclusive as SARIF wants it), the API server's
field path as a logical location, and a `partialFingerprints` value built from
what identifies a problem independently of where the lines moved: rule, file,
object, field path and message.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from json.encoder import encode_basestring as _string  # json.dumps's own (C) string encoder, ensure_ascii=False
from urllib.parse import quote

from .. import __version__
from ..catalog import ENGINE_CHECKS
from ..commands import all_checks
from ..model import Fix, Problem, Severity, format_path
from ..pipeline.partial import LintResult
from . import ReportOptions

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
# Where the rule documentation lives; `Documentation` in the package's project URLs wins.
DEFAULT_DOCS_URL = "https://github.com/dralint/dralint/blob/main/docs/"
FINGERPRINT_KEY = "dralint/v1"
SRCROOT = "%SRCROOT%"

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


@functools.lru_cache(maxsize=1)
def docs_url() -> str:
    """The installed package's documentation URL (read once per process: installed metadata)."""
    try:
        # Only SARIF asks the installed metadata: other formats do not import importlib.metadata.
        from importlib.metadata import metadata

        for entry in metadata("dralint").get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            if label.strip().lower() in ("documentation", "docs") and url.strip():
                return url.strip().rstrip("/") + "/"
    except Exception:  # not installed (running from a checkout): the default is right
        pass
    return DEFAULT_DOCS_URL


def help_uri(code: str, base: str | None = None) -> str:
    return f"{base or docs_url()}rules.md#{code.lower()}"


def artifact_uri(source: str, cwd: str | None = None) -> tuple[str, bool]:
    """(uri, relative?) of a source name: relative to the working directory when inside it."""
    if source in ("-", "<stdin>"):
        return "stdin", True
    cwd = cwd or os.getcwd()
    absolute = os.path.abspath(source)
    try:
        rel = os.path.relpath(absolute, cwd)
    except ValueError:  # another drive on Windows
        rel = None
    if rel is not None and not rel.startswith(os.pardir):
        return _quoted(rel.replace(os.sep, "/")), True
    return "file://" + _quoted(absolute.replace(os.sep, "/") if absolute.startswith("/") else "/" + absolute.replace(os.sep, "/")), False


def _quoted(path: str) -> str:
    """A path as a URI path: percent-encoded UTF-8, and a name's bytes that are not UTF-8 (which Python
    holds as surrogate escapes, and `quote` cannot encode) percent-encoded as they are."""
    return quote(os.fsencode(path))


def fingerprint(p: Problem, uri: str) -> str:
    """Stable across runs and across line moves: no line or column goes in."""
    parts = [p.rule, uri, p.kind or "", p.object or "", format_path(p.path), p.message]
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def _rule_descriptors(result: LintResult) -> tuple[list[dict[str, Any]], dict[str, int], tuple]:
    """The descriptors, each code's index among them, and all they are made of but constants (the rows
    and the documentation URL): what their indented text is kept by (_indented_rules)."""
    try:
        rows = all_checks()
    except Exception:  # a broken plugin must not cost the report
        rows = [{"code": c.code, "slug": c.slug, "severity": str(c.severity), "summary": c.summary, "doc": c.summary}
                for c in ENGINE_CHECKS.values()]
    known = {row["code"] for row in rows}
    for p in result.problems:  # rules from --rules-dir, policies: only their problems say they exist
        if p.rule not in known:
            known.add(p.rule)
            rows.append({"code": p.rule, "slug": p.name, "severity": str(p.severity), "summary": p.name, "doc": ""})
    rows.sort(key=lambda row: row["code"])
    base = docs_url()
    made_of = (base, *(tuple(row.items()) for row in rows))
    descriptors = []
    index: dict[str, int] = {}
    for row in rows:
        summary = row.get("summary") or row["slug"]
        full = row.get("doc") or summary
        index[row["code"]] = len(descriptors)
        descriptors.append(
            {
                "id": row["code"],
                "name": row["slug"],
                "shortDescription": {"text": summary},
                "fullDescription": {"text": full},
                "helpUri": help_uri(row["code"], base),
                "help": {"text": full},
                "defaultConfiguration": {"level": LEVELS[Severity.parse(row["severity"])]},
                "properties": {"tags": ["kubernetes", "dra"]},
            }
        )
    return descriptors, index, made_of


def _result(p: Problem, rule_index: dict[str, int], where: tuple[str, bool]) -> dict[str, Any]:
    uri, relative = where
    artifact: dict[str, Any] = {"uri": uri}
    if relative and uri != "stdin":
        artifact["uriBaseId"] = SRCROOT
    span = p.span
    end_line = max(span.end_line, span.line)
    end_column = span.end_column if (end_line > span.line or span.end_column > span.column) else span.column + 1
    path = format_path(p.path)
    message = p.message + (f" (at {path})" if path else "")
    out: dict[str, Any] = {
        "ruleId": p.rule,
        "ruleIndex": rule_index[p.rule],
        "level": LEVELS[p.severity],
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {
                        "startLine": max(span.line, 1),
                        "startColumn": max(span.column, 1),
                        "endLine": max(end_line, 1),
                        "endColumn": max(end_column, 1),
                    },
                },
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(p, uri)},
    }
    if path:
        owner = "/".join(x for x in (p.kind, p.object) if x)
        out["locations"][0]["logicalLocations"] = [
            {"name": path, "fullyQualifiedName": f"{owner}:{path}" if owner else path, "kind": "member"}
        ]
    if p.origin is not None:
        out["relatedLocations"] = [_origin_location(p)]
    fixes = p.fixes
    if fixes:
        out["fixes"] = [_fix(fix, artifact) for fix in fixes]
    props = {k: v for k, v in (("document", p.document), ("apiVersion", p.api_version), ("kind", p.kind), ("object", p.object)) if v is not None}
    if props:
        out["properties"] = props
    return out


def _origin_location(p: Problem) -> dict[str, Any]:
    """A rendered stream's problem (dralint.pipeline.origins): moved into its file, the stream's position is related;
    left in the stream (the file cannot be read here), the file it came from is."""
    origin = p.origin
    assert origin is not None
    if origin.found:
        uri, relative = artifact_uri(origin.stream)
        artifact: dict[str, Any] = {"uri": uri}
        if relative and uri != "stdin":
            artifact["uriBaseId"] = SRCROOT
        span = origin.span
        region = {"startLine": max(span.line, 1), "startColumn": max(span.column, 1)}
        return {"id": 1, "physicalLocation": {"artifactLocation": artifact, "region": region},
                "message": {"text": "where the rendered stream has it"}}
    uri, relative = artifact_uri(origin.file)
    artifact = {"uri": uri}
    if relative:
        artifact["uriBaseId"] = SRCROOT
    return {"id": 1, "physicalLocation": {"artifactLocation": artifact}, "message": {"text": "the file this document was rendered from"}}


def _fix(fix: Fix, artifact: dict[str, Any]) -> dict[str, Any]:
    """A SARIF `fix`: replacements in the result's file (regions 1-based, end column exclusive)."""
    replacements = [
        {
            "deletedRegion": {"startLine": e.span.line, "startColumn": e.span.column, "endLine": e.span.end_line, "endColumn": e.span.end_column},
            "insertedContent": {"text": e.text},
        }
        for e in fix.edits
    ]
    return {"description": {"text": fix.description}, "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}]}


def sarif_log(result: LintResult, cwd: str, results: Any) -> tuple[dict[str, Any], dict[str, int], tuple]:
    """The log with `results` where its list of results goes, each rule code's index in it, and what its
    rule descriptors are made of (_rule_descriptors)."""
    descriptors, rule_index, made_of = _rule_descriptors(result)
    base = "file://" + _quoted(cwd.replace(os.sep, "/").rstrip("/") + "/")
    if not base.startswith("file:///"):
        base = "file:///" + base[len("file://"):]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "dralint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": docs_url(),
                "rules": descriptors,
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": base}},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "invocations": [{"executionSuccessful": True}],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, rule_index, made_of


def _results(problems: list[Problem], rule_index: dict[str, int], cwd: str) -> Iterator[dict[str, Any]]:
    uris: dict[str, tuple[str, bool]] = {}  # a file's problems are consecutive: its relpath computed once
    for p in problems:
        where = uris.get(p.source)
        if where is None:
            uris.clear()
            where = uris[p.source] = artifact_uri(p.source, cwd)
        yield _result(p, rule_index, where)


# json.dumps(indent=2) puts the items of `runs[0].results` at this depth.
_ITEM_INDENT = " " * 8
# Where the results and the rule descriptors go: strings no log holds otherwise (json.dumps escapes
# NUL wherever it occurs).
_RESULTS = "\0results\0"
_RESULTS_DUMPED = '"\\u0000results\\u0000"'
_RULES = "\0rules\0"
_RULES_DUMPED = '"\\u0000rules\\u0000"'
# json.dumps(indent=2) puts `runs[0].tool.driver.rules` at this depth.
_RULES_INDENT = " " * 10
# The rule descriptors as json.dumps(indent=2) writes them, by what they are made of: most of a log's
# head, and json's indenting encoder is the pure-Python one, so a process that renders many logs
# (tests, library callers) writes each set of rules once.
_INDENTED_RULES: dict[tuple, str] = {}


class _Unusual(Exception):
    """A value `_write` does not render itself: json.dumps does."""


def _indented(value: Any, indent: str) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)` with every line after the first indented
    further by `indent`, byte for byte. json's indenting encoder is its pure-Python one, slower
    than the lint that found the problems; this writes the plain data a SARIF log is made of with
    json's C string encoder, and hands anything else to json.dumps."""
    parts: list[str] = []
    try:
        _write(value, "\n" + indent, parts)
    except _Unusual:
        return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
    return "".join(parts)


def _write(value: Any, newline: str, parts: list[str]) -> None:
    kind = type(value)
    if kind is str:
        parts.append(_string(value))
    elif kind is dict or kind is list or kind is tuple:
        if not value:
            parts.append("{}" if kind is dict else "[]")
            return
        inner = newline + "  "
        separator = ("{" if kind is dict else "[") + inner
        for key in value:
            parts.append(separator)
            if kind is dict:
                if type(key) is not str:
                    raise _Unusual
                parts.append(_string(key) + ": ")
                _write(value[key], inner, parts)
            else:
                _write(key, inner, parts)
            separator = "," + inner
        parts.append(newline + ("}" if kind is dict else "]"))
    elif value is None or kind is bool:
        parts.append("null" if value is None else "true" if value else "false")
    elif kind is int:
        parts.append(int.__repr__(value))
    elif kind is float and value == value and value not in (float("inf"), float("-inf")):
        parts.append(float.__repr__(value))
    else:
        raise _Unusual


def _indented_rules(rules: list[dict[str, Any]], made_of: tuple) -> str:
    """`rules` indented, kept by what they are made of (_rule_descriptors): cheaper to hash than the
    rules' own JSON, which is as long as the text kept."""
    text = _INDENTED_RULES.get(made_of)
    if text is None:
        if len(_INDENTED_RULES) >= 8:
            _INDENTED_RULES.clear()
        text = _INDENTED_RULES[made_of] = _indented(rules, _RULES_INDENT)
    return text


def render(result: LintResult, options: ReportOptions) -> str:
    return "".join(pieces(result, options))


def pieces(result: LintResult, options: ReportOptions) -> Iterator[str]:
    """What json.dumps(log, indent=2) writes, one result at a time: the log of a large run is never
    built whole (bench/memory.py)."""
    cwd = os.getcwd()
    log, rule_index, made_of = sarif_log(result, cwd, _RESULTS)
    driver = log["runs"][0]["tool"]["driver"]
    rules, driver["rules"] = driver["rules"], _RULES
    head, found, tail = _indented(log, "").partition(_RESULTS_DUMPED)
    assert found and head.count(_RULES_DUMPED) == 1, "the log holds the placeholders once each"
    # A JSON string holds no newline (it is escaped): re-indenting the lines is safe.
    head = head.replace(_RULES_DUMPED, _indented_rules(rules, made_of))
    if not result.problems:
        yield head + "[]" + tail + "\n"
        return
    yield head + "[\n" + _ITEM_INDENT
    separator = ""
    for item in _results(result.problems, rule_index, cwd):
        # A JSON string holds no newline (it is escaped): re-indenting the lines is safe.
        yield separator + _indented(item, _ITEM_INDENT)
        separator = ",\n" + _ITEM_INDENT
    yield "\n" + _ITEM_INDENT[:-2] + "]" + tail + "\n"
