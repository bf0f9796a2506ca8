"""Is this file a Kubernetes manifest? The decision that makes a whole repository lintable.

A file that has nothing to do with Kubernetes never fails the run; a file that
does is never silently skipped. Between the loader and the checks, each file is
put in one of three bins:

* a template of a manifest: its `{{ ... }}` actions break the YAML or stand
  for values only rendering supplies, so every finding would be noise; one
  info says to render it first. Go templating (Helm: `.Values`, `include`,
  `$x :=`) makes any file a template; other braces (a GitHub Actions
  `${{ }}` expression, Ansible's Jinja `{{ item }}`) make one only of a file
  that is written as a Kubernetes object and that they broke;
* a manifest: it holds at least one Kubernetes object (a mapping with
  `apiVersion` and `kind`, or a mapping plainly meant as one), or it is broken
  but recognisably written as one; everything the loader found is kept;
* anything else (a Helm `Chart.yaml` or `values.yaml`, an Ansible playbook, a
  compose file, a JSON array, an OpenAPI document, a GitHub workflow, JSON
  with comments and trailing commas as editors keep it, `tsconfig.json`,
  `.vscode/*.json`): passed over and counted; a syntax error in it is an info,
  and so is a mention of resource.k8s.io, so a DRA object that cannot be
  checked is still pointed out.
"""

from __future__ import annotations

import re

from .. import schemas
from ..catalog import ENGINE_CHECKS
from ..k8s.resource import GROUP
from ..lazy_re import LazyPattern
from ..model import Document, Problem, Span
from .kustomize import NAMES as KUSTOMIZATIONS
from .load import plain_json

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

# Loader findings that mean "this could not be read as YAML or JSON" rather than
# "this object is wrong".
_UNREADABLE = frozenset({"DRA001", "DRA004", "DRA005"})

# What unquoted `{{ ... }}` does to YAML: a syntax error, a mapping as a key
# (`name: {{ .x }}` reads as a flow mapping), or a top-level non-mapping.
_TEMPLATE_DAMAGE = frozenset({"DRA001", "DRA003", "DRA008"})

# Where the text writes a Kubernetes type (see _marked): an `apiVersion:` or `kind:` key, optionally
# quoted, at the start of a line or after whitespace, `{` or `,` (YAML or JSON, indented or not).
_MARK_WORD = LazyPattern(rb"""(?:apiVersion|kind)["']?[ \t]*:""")  # not for files that name the DRA group
_BEFORE_MARK = frozenset(b" \t\n\r\f\v{,")

# A template action. Inside a quoted string `{{ x }}` may be plain data (an Argo
# parameter, a Prometheus annotation), and GitHub Actions (`${{ matrix.os }}`)
# and Ansible (`"{{ item }}"`, Jinja) use the same braces, so an action makes a
# file a template only if it reads like Go templating: a field of the dot
# (`.Values`), `$.`, a variable assignment, a comment or a keyword that is not
# called like a Jinja function (`range(3)`) or read like a variable
# (`template.name`); or if it broke a file written as a Kubernetes object.
# Compiled on first use, as the JSONC patterns below: only files with braces or comments need them.
_ACTION = LazyPattern(rb"\{\{")
_GO_ACTION = LazyPattern(
    rb"\{\{-?\s*(?:\.|\$\.|\$\w*\s*:?=|/\*"
    rb"|(?:if|else|end|range|with|define|template|block|include|tpl|toYaml|required)\b(?![(.]))"
)
# Jinja rather than Go in an action (a call `f(`, a 'string' longer than a Go rune, `item.name` without
# Go's leading dot or `$`, a test `is defined`), or a Jinja statement or comment: the info's wording.
_JINJA = LazyPattern(
    rb"\{\{[^}\n]{0,400}?(?:\w\(|'[^'\n]{2,}'|(?<![\w.$])[A-Za-z_]\w*\.[A-Za-z_]|\bis\s)|\{%|\{#"
)

# JSON with comments and trailing commas (JSONC: tsconfig.json, .vscode/*.json, devcontainer.json): strings
# are kept whole, `//` and `/* */` comments go, then a comma before `}` or `]`.
_JSONC_COMMENT = LazyPattern(r'("(?:[^"\\\n]|\\.)*")|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)  # \Z: linear when unclosed
_JSONC_TRAILING_COMMA = LazyPattern(r'("(?:[^"\\\n]|\\.)*")|,(?=\s*[}\]])')


class Triaged:
    """What the checks get of one file: the loader's result, sifted."""

    __slots__ = ("documents", "problems", "empty", "passed_over")

    def __init__(self, documents: list[Document], problems: list[Problem], empty: int, passed_over: bool):
        self.documents = documents
        self.problems = problems
        self.empty = empty
        self.passed_over = passed_over  # the file holds no Kubernetes object and was not checked


def triage(source: str, data: bytes, loaded: Any) -> Triaged:
    """Sift `loaded` (the loader's result for `data`) by what the file is."""
    broken = any(p.rule in _TEMPLATE_DAMAGE for p in loaded.problems)
    template_at = _template_action(data, manifest=broken and _written_as_object(data, loaded))
    if template_at is not None:
        return Triaged([], [_template_info(source, data, template_at)], loaded.empty, passed_over=True)
    if any(is_kubernetes_object(doc.data) for doc in loaded.documents) or any(
        p.rule == "DRA003" and p.path for p in loaded.problems  # an item of a `kind: List`
    ):
        return Triaged(loaded.documents, loaded.problems, loaded.empty, passed_over=False)
    unreadable = [p for p in loaded.problems if p.rule in _UNREADABLE]
    if unreadable and _jsonc_but_no_object(source, data):  # an editor's settings, read as the editor does
        notes = [_not_checked(source, data, None)] if GROUP.encode() in data else []
        return Triaged([], notes, loaded.empty, passed_over=True)
    if unreadable and _marked(data):
        return Triaged(loaded.documents, unreadable, loaded.empty, passed_over=False)
    if not loaded.documents and not loaded.problems:
        return Triaged([], [], loaded.empty, passed_over=False)  # only comments or nothing: nothing to pass over
    # A kustomization names resource.k8s.io in a patch's target: what it lists is checked (dralint.pipeline.kustomize).
    named = GROUP.encode() in data and source.rpartition("/")[2] not in KUSTOMIZATIONS
    notes = [_not_checked(source, data, unreadable[0] if unreadable else None)] if unreadable or named else []
    return Triaged([], notes, loaded.empty, passed_over=True)


def passed_over_unread(source: str, data: bytes) -> Triaged | None:
    """What `triage` would say of a JSON file that is plainly no manifest, without loading it (None: load
    it). Lock files and other large JSON of a repository would cost the position-keeping reader a full
    load only to be passed over; this tells the same from a scan of the bytes (bench/bench_load.py)."""
    if _marked(data):  # a Kubernetes type or the DRA group is written in it
        return None
    whole, value = plain_json(source, data)
    # As `triage` decides: no object of it is Kubernetes, no template (in a file that holds no Kubernetes
    # object only Go templating makes one), nothing unreadable, no group named.
    if not whole or is_kubernetes_object(value) or _template_action(data, manifest=False) is not None:
        return None
    return Triaged([], [], 0, passed_over=True)


def _marked(data: bytes) -> bool:
    """Whether `data` writes a Kubernetes type (an `apiVersion:` or `kind:` key) or names the DRA group.

    The words first, then what precedes them: a pattern with the context in front makes the regex engine
    try every position of a large file."""
    if b"resource.k8s.io" in data:
        return True
    for match in _MARK_WORD.finditer(data):
        at = match.start()
        if at and data[at - 1] in b"\"'":  # the pattern's optional quote
            at -= 1
        if at == 0 or data[at - 1] in _BEFORE_MARK:
            return True
    return False


def is_kubernetes_object(data: Any) -> bool:
    """A mapping with apiVersion and kind, or one that is plainly meant as an object but lacks one.

    `metadata`, an API group of Kubernetes (`*.k8s.io`) or a DRA kind shows the
    intent, so a manifest that lost its `kind:` is reported, while a Helm
    `Chart.yaml` (`apiVersion: v2`, no kind) is not mistaken for one.
    """
    if not isinstance(data, dict):
        return False
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if isinstance(api_version, str) and api_version and isinstance(kind, str) and kind:
        return True
    if "metadata" in data:
        return True
    if isinstance(api_version, str) and api_version.rpartition("/")[0].endswith("k8s.io"):
        return True
    return isinstance(kind, str) and kind in schemas.ALL_DRA_KINDS


def _written_as_object(data: bytes, loaded: Any) -> bool:
    """Whether the file is written as a Kubernetes object: one of its documents is, or it could not be read
    and writes a Kubernetes type. A playbook (a list) or a workflow (no `apiVersion`/`kind`) is not."""
    if any(is_kubernetes_object(doc.data) for doc in loaded.documents):
        return True
    return any(p.rule == "DRA001" for p in loaded.problems) and _marked(data)


def _jsonc_but_no_object(source: str, data: bytes) -> bool:
    """Whether `data`, unreadable as JSON, is JSON with comments or trailing commas that holds no Kubernetes
    object. A manifest written so stays an error: kubectl and the API server read plain JSON only."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    if not (source.lower().endswith(".json") or text.lstrip()[:1] in ("{", "[")):
        return False
    unclosed = False

    def keep_strings(match: re.Match) -> str:
        nonlocal unclosed
        unclosed = unclosed or (match.group().startswith("/*") and not match.group().endswith("*/", 2))
        return match.group(1) or ""

    plain = _JSONC_TRAILING_COMMA.sub(keep_strings, _JSONC_COMMENT.sub(keep_strings, text))
    if plain == text or unclosed:
        return False  # no comment and no trailing comma: some other fault
    import json  # noqa: PLC0415 - only a JSON file with comments costs it: a lint does not import json (dralint.jsondata)

    try:
        value = json.loads(plain)
    except (ValueError, RecursionError):
        return False
    return not is_kubernetes_object(value)


def _template_action(data: bytes, manifest: bool) -> tuple[int, bool] | None:
    """(offset, Jinja?) of the first template action outside a comment line, if the file is a template:
    any action of a file written as a Kubernetes object that the braces broke (`manifest`), else a Go one."""
    if b"{{" not in data:  # what both patterns start with: most files, told without compiling either
        return None
    pattern = _ACTION if manifest else _GO_ACTION
    at = 0
    while (match := pattern.search(data, at)) is not None:
        line_start = data.rfind(b"\n", 0, match.start()) + 1
        if not data[line_start : match.start()].lstrip().startswith(b"#"):
            if data.find(b"}}", match.end()) != -1:
                jinja = manifest and _GO_ACTION.search(data) is None and _JINJA.search(data) is not None
                return match.start(), jinja
            return None
        # A comment line: the rest of it is comment too (looking at each of its matches from the line's
        # start would be quadratic on a long one).
        line_end = data.find(b"\n", match.end())
        if line_end == -1:
            return None
        at = line_end + 1
    return None


def _point(data: bytes, offset: int) -> Span:
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return Span.point(data.count(b"\n", 0, offset) + 1, column)


def _template_info(source: str, data: bytes, found: tuple[int, bool]) -> Problem:
    check = ENGINE_CHECKS["DRA014"]
    offset, jinja = found
    render = (
        "a Jinja template (Ansible): dralint checks rendered manifests, not templates; render it first"
        if jinja
        else "a Go template (Helm): dralint checks rendered manifests, not templates; "
        "render it first, e.g. `helm template RELEASE CHART | dralint -`"
    )
    return Problem(
        rule=check.code,
        name=check.slug,
        severity=check.severity,
        message=render,
        source=source,
        document=0,
        span=_point(data, offset),
    )


def _not_checked(source: str, data: bytes, unreadable: Problem | None) -> Problem:
    check = ENGINE_CHECKS["DRA015"]
    if unreadable is not None:
        reason = unreadable.message.split("; the rest of the file")[0]
        message = f"passed over: no Kubernetes manifest, and not readable as YAML or JSON ({reason})"
        span = unreadable.span
    else:
        message = f"passed over: mentions {GROUP} but holds no Kubernetes object (a mapping with apiVersion and kind)"
        span = _point(data, data.find(GROUP.encode()))
    return Problem(
        rule=check.code,
        name=check.slug,
        severity=check.severity,
        message=message,
        source=source,
        document=unreadable.document if unreadable is not None else 0,
        span=span,
    )


__all__ = ["triage", "Triaged", "is_kubernetes_object"]
