"""The one `lint` function every front door (CLI, pre-commit, webhook) feeds.

source -> load -> Document -> resolve type -> schema check -> rules -> filter -> problems.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from . import schemas
from .api import DocumentView, Rule
from .catalog import ENGINE_CHECKS
from .model import Document, Problem, Record, Severity, Span
from .sources import Source


class LintOptions(Record):
    """What to check and how: the release, which rules, and how to tune them."""

    __slots__ = ("release", "rules_dirs", "plugins", "select", "ignore", "severities", "rule_options", "postprocessors", "extra_rules")

    def __init__(
        self,
        release: str = schemas.DEFAULT_RELEASE,
        rules_dirs: list[str] | None = None,
        plugins: bool = True,
        select: list[str] | None = None,
        ignore: list[str] | None = None,
        severities: dict[str, Severity] | None = None,
        rule_options: dict[str, Any] | None = None,
        postprocessors: list[Callable[[list[Problem], list[Document]], list[Problem]]] | None = None,
        extra_rules: list[Rule] | None = None,
    ):
        self.release = release
        self.rules_dirs = rules_dirs or []
        self.plugins = plugins
        self.select = select or []  # codes, slugs or prefixes ("DRA3"); empty: all
        self.ignore = ignore or []
        self.severities = severities or {}  # code or slug -> severity
        self.rule_options = rule_options or {}
        # Applied before select/ignore, with the documents at hand (inline suppressions, upgrade check).
        self.postprocessors = postprocessors or []
        # Rules that are not in a module: CEL policy files compile into these.
        self.extra_rules = extra_rules or []

    def with_release(self, release: str) -> "LintOptions":
        copy = LintOptions.__new__(LintOptions)
        for name in self.__slots__:
            setattr(copy, name, getattr(self, name))
        copy.release = release
        return copy


class LintResult(Record):
    __slots__ = ("problems", "files", "documents", "checked", "passed_over", "empty", "dra_documents", "foreign_documents", "sources")

    def __init__(self, problems: list[Problem] | None = None):
        self.problems: list[Problem] = problems if problems is not None else []
        self.files = 0
        self.documents = 0  # every object found, DRA or not
        self.checked = 0  # DRA objects checked against a schema
        self.passed_over = 0  # objects outside resource.k8s.io that no rule applied to
        self.empty = 0
        self.dra_documents: set[tuple[str, int]] = set()  # (source, index) of resource.k8s.io objects
        self.foreign_documents: set[tuple[str, int]] = set()  # YAML that is no Kubernetes object at all
        # Raw bytes of each source by name, for formatters that quote the offending line.
        self.sources: dict[str, bytes] = {}

    def count(self, severity: Severity) -> int:
        return sum(1 for p in self.problems if p.severity == severity)


# A file may name the release it is meant for, in a comment before its first
# document: `# dralint: kubernetes-version=1.30`. It wins over the command line,
# so one run can check manifests written for clusters of different releases.
# `[^\r\n]`, not `[^\n]`: with `\r?\n` after it, a CRLF line could be matched two ways, and the
# leading comment lines of a CRLF file 2^n ways (30 lines: minutes).
_RELEASE_COMMENT = re.compile(rb"\A(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*?[ \t]*#[ \t]*dralint:[ \t]*kubernetes-version=[ \t]*(\S+)")


def file_release(data: bytes) -> tuple[str, int] | None:
    """The release a file's leading `# dralint: kubernetes-version=` comment names, and its line."""
    match = _RELEASE_COMMENT.match(data[:4096])
    if match is None:
        return None
    line = data.count(b"\n", 0, match.start(1)) + 1
    return match.group(1).decode("utf-8", "replace").strip("\"'"), line


def lint(sources: Iterable[Source], options: LintOptions | None = None) -> LintResult:
    from .load import load  # keeps `import dralint.lint` light for the webhook's start-up

    options = options or LintOptions()
    result = LintResult(problems=[])
    by_release: dict[str, list[Document]] = {}
    late: list[list[Problem]] = []  # each load's problems found after it returned (see load.LoadResult)
    for source in sources:
        result.files += 1
        if source.data is None:
            result.problems.append(_unreadable(source))
            continue
        result.sources[source.name] = source.data
        release = options.release
        declared = file_release(source.data)
        if declared is not None:
            if declared[0] in schemas.RELEASES:
                release = declared[0]
            else:
                result.problems.append(_bad_release_comment(source.name, *declared))
        loaded = load(source.name, source.data)
        result.problems.extend(loaded.problems)
        late.append(loaded.late_problems)
        result.empty += loaded.empty
        by_release.setdefault(release, []).extend(loaded.documents)
    rules = _rules(options)
    for release, documents in by_release.items():
        _check_documents(documents, options.with_release(release), rules, result)
    _finish(result, options, [d for docs in by_release.values() for d in docs])
    # _finish computed every reported position: a position table that failed to build has said so by now.
    failed = _filter([p for problems in late for p in problems], options)
    if failed:
        result.problems = sorted(result.problems + failed, key=Problem.sort_key)
    return result


def lint_documents(documents: list[Document], options: LintOptions | None = None) -> LintResult:
    """For callers that already hold objects (the admission webhook)."""
    options = options or LintOptions()
    result = LintResult(problems=[])
    rules = _rules(options)
    _check_documents(documents, options, rules, result)
    _finish(result, options, documents)
    return result


def _rules(options: LintOptions) -> list[Rule]:
    from .registry import all_rules

    rules = [*all_rules(options.rules_dirs, plugins=options.plugins), *options.extra_rules]
    # A rule whose code is not selected would only have its problems dropped: skip it.
    return [r for r in rules if _selected(r.code, r.slug, options)]


def _selected(code: str, slug: str, options: LintOptions) -> bool:
    def matches(selectors: list[str]) -> bool:
        return any(code.startswith(s) or slug == s for s in selectors)

    return not (options.select and not matches(options.select)) and not (options.ignore and matches(options.ignore))


def _check_documents(documents: list[Document], options: LintOptions, rules: list[Rule], result: LintResult) -> None:
    from .resolve import resolve

    document_rules = [r for r in rules if r.scope == "document"]
    by_type: dict[tuple[str | None, str | None], list[Rule]] = {}  # (apiVersion, kind) -> rules that apply
    views: list[DocumentView] = []
    catalog = schemas.catalog(options.release)
    for doc in documents:
        result.documents += 1
        resolution = resolve(doc, options.release)
        result.problems.extend(resolution.problems)
        if resolution.is_dra:
            result.dra_documents.add((doc.source, doc.index))
        elif not resolution.is_object:
            result.foreign_documents.add((doc.source, doc.index))
        if resolution.info is not None:
            from .schema_check import check_schema

            result.checked += 1
            result.problems.extend(check_schema(doc, catalog.schema(doc.api_version, doc.kind)))
        view = DocumentView(doc, options.release, options.rule_options)
        views.append(view)
        key = (view.api_version, view.kind)
        applicable = by_type.get(key)
        if applicable is None:
            applicable = by_type[key] = [r for r in document_rules if r.applies_to(view.api_version, view.kind, options.release)]
        if not resolution.is_dra and not applicable and not resolution.problems:
            result.passed_over += 1
        if resolution.is_dra and resolution.info is None:
            # Not served: there is no schema to hold the rules' assumptions to.
            continue
        if applicable:
            from .engine import run_document_rules

            result.problems.extend(run_document_rules(applicable, view))
    if any(r.scope == "run" and r.in_releases(options.release) for r in rules):
        from .engine import run_run_rules

        result.problems.extend(run_run_rules(rules, views, options.release))


def _finish(result: LintResult, options: LintOptions, documents: list[Document]) -> None:
    problems = _merge_overlaps(result.problems)
    problems = _soften_outside_dra(problems, documents, result)
    # Postprocessors first: what they add (upgrade warnings, unused suppressions)
    # is selected, ignored and re-levelled like every other problem.
    for post in options.postprocessors:
        problems = post(problems, documents)
    problems = _filter(problems, options)
    problems.sort(key=Problem.sort_key)
    result.problems = problems


def _merge_overlaps(problems: list[Problem]) -> list[Problem]:
    """One mistake, one problem: a rule's finding replaces the schema's at the same path and error type.

    The schema says "missing required field"; the rule for the same field says
    what the API server of this release answers, which is more precise.
    """
    by_rule = {(p.source, p.document, p.path, p.error_type) for p in problems if not p.rule.startswith("DRA1")}
    return [
        p
        for p in problems
        if not (p.rule.startswith("DRA1") and p.error_type and (p.source, p.document, p.path, p.error_type) in by_rule)
    ]


def _soften_outside_dra(problems: list[Problem], documents: list[Document], result: LintResult) -> list[Problem]:
    """Key problems outside resource.k8s.io: warnings in other Kubernetes objects, nothing in other YAML.

    dralint judges DRA objects; for the Deployments and ConfigMaps around them
    it points out a duplicate or non-string key without failing the build over
    an object it does not otherwise check. YAML that is no Kubernetes object
    (a GitHub workflow's `on:` key is a boolean to YAML 1.1) is not its business.
    """
    outside = {(d.source, d.index) for d in documents} - result.dra_documents
    kept = []
    for p in problems:
        if p.rule in ("DRA002", "DRA008") and (p.source, p.document) in outside:
            if (p.source, p.document) in result.foreign_documents:
                continue
            p.severity = Severity.WARNING
            p.message += " (in an object outside resource.k8s.io)"
        kept.append(p)
    return kept


def _filter(problems: list[Problem], options: LintOptions) -> list[Problem]:
    out: list[Problem] = []
    for p in problems:
        if not _selected(p.rule, p.name, options):
            continue
        override = options.severities.get(p.rule) or options.severities.get(p.name)
        if override is not None:
            p.severity = override
        out.append(p)
    return out


def _bad_release_comment(source: str, value: str, line: int) -> Problem:
    check = ENGINE_CHECKS["DRA009"]
    return Problem(
        rule=check.code,
        name=check.slug,
        severity=check.severity,
        message=f"unsupported Kubernetes version {value!r} in the file's dralint comment; supported: {', '.join(schemas.RELEASES)}",
        source=source,
        document=0,
        span=Span.point(line, 1),
    )


def _unreadable(source: Source) -> Problem:
    check = ENGINE_CHECKS["DRA006"]
    return Problem(
        rule=check.code,
        name=check.slug,
        severity=check.severity,
        message=f"cannot read {source.name}: {source.error}",
        source=source.name,
        document=0,
    )


def known_codes(rules: Iterable[Rule]) -> dict[str, str]:
    """code -> slug for every engine check and rule, for validating select/ignore lists."""
    codes = {c.code: c.slug for c in ENGINE_CHECKS.values()}
    codes.update({r.code: r.slug for r in rules})
    return codes
