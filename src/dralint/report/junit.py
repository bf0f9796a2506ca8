"""`--format junit`: JUnit XML for CI test-report views (GitLab, Jenkins, Azure ...).

One `<testcase>` per document, named `file#index kind/name` (list items of a
`kind: List` get `file#index[item]`). A test case with errors has one
`<failure>` listing them all, so that `failures` counts failed test cases and
never exceeds `tests`; warnings and infos go to the test case's `<system-out>`.
Problems that belong to no document (an unreadable file, a syntax error before
the first document) get a test case of their own; a file without Kubernetes
objects that was passed over (dralint.pipeline.triage) is one `<skipped>` test case.
The output follows the widely used JUnit schema (Jenkins/Surefire `junit-10.xsd`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from ..model import Problem, Severity, format_path
from ..pipeline.partial import LintResult
from . import ReportOptions, escape

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterator

# Characters XML 1.0 cannot carry, even escaped, and surrogates (a file name's bytes that are not UTF-8,
# a JSON manifest's lone `\\udc80`), which no UTF-8 document can: written as escapes (`\\x1b`, `\\xff`).
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    return escape(match.group())


@dataclass(slots=True, eq=False)  # a case is itself (eq=False): counted once even when two are alike
class _Case:
    source: str
    index: int
    item: int | None = None
    kind: str | None = None
    obj: str | None = None
    problems: list[Problem] = field(default_factory=list)
    passed_over: bool = False

    @property
    def name(self) -> str:
        where = f"{self.source}#{self.index}" + (f"[{self.item}]" if self.item is not None else "")
        what = "/".join(x for x in (self.kind, self.obj) if x)
        return f"{where} {what}" if what else where


def _documents(result: LintResult) -> list[_Case]:
    passed_over = [_Case(name, 0, passed_over=True) for name in result.passed_over_files]
    return passed_over + [_Case(o.source, o.index, o.list_item, o.kind, o.object) for o in result.objects]


def _assign(result: LintResult, cases: list[_Case]) -> list[_Case]:
    by_doc: dict[tuple[str, int], list[_Case]] = {}
    for case in cases:
        by_doc.setdefault((case.source, case.index), []).append(case)
    for p in result.problems:
        candidates = by_doc.get((p.source, p.document))
        if not candidates:
            case = _Case(p.source, p.document)
            cases.append(case)
            candidates = by_doc[(p.source, p.document)] = [case]
        exact = [c for c in candidates if c.kind == p.kind and c.obj == p.object]
        (exact or candidates)[0].problems.append(p)
    files = {c.source for c in cases}
    for name in result.source_names:  # a file with no document at all still shows up, and passes
        if name not in files:
            cases.append(_Case(name, 0))
    return sorted(cases, key=lambda c: (c.source, c.index, -1 if c.item is None else c.item))


def _line(p: Problem) -> str:
    path = format_path(p.path)
    at = f" (at {path})" if path else ""
    return f"{p.source}:{p.span.line}:{p.span.column}: {p.severity}: {p.message}{at} [{p.rule} {p.name}]"


def render(result: LintResult, options: ReportOptions) -> str:
    return "".join(pieces(result, options))


# Where the test cases go in the indented tree: an element no report holds otherwise.
_PLACEHOLDER = "dralint-testcases"
_CASE_INDENT = "\n    "  # ET.indent's whitespace before a test case (depth 2)


def pieces(result: LintResult, options: ReportOptions) -> Iterator[str]:
    """What ET.indent and ET.tostring write of the whole tree, one test case at a time: the tree of a
    large run is never built whole (bench/memory.py)."""
    cases = _assign(result, _documents(result))
    failed = sum(1 for c in cases if _errors(c))
    skipped = sum(1 for c in cases if c.passed_over and not _errors(c))
    counts = {"tests": str(len(cases)), "failures": str(failed), "errors": "0"}
    suites = ET.Element("testsuites", name="dralint", **counts, time="0")
    suite = ET.SubElement(suites, "testsuite", name="dralint", **counts, skipped=str(skipped), time="0")
    if cases:
        ET.SubElement(suite, _PLACEHOLDER)
    ET.indent(suites)
    head, found, tail = ET.tostring(suites, encoding="unicode").partition(f"<{_PLACEHOLDER} />")
    assert found or not cases, "the tree holds the test cases' placeholder"
    yield '<?xml version="1.0" encoding="UTF-8"?>\n' + head
    separator = ""
    for case in cases:
        element = _element(case)
        ET.indent(element, level=2)
        yield separator + ET.tostring(element, encoding="unicode")
        separator = _CASE_INDENT
    yield tail + "\n"


def _errors(case: _Case) -> list[Problem]:
    return [p for p in case.problems if p.severity >= Severity.ERROR]


def _element(case: _Case) -> ET.Element:
    element = ET.Element("testcase", name=_clean(case.name), classname=_clean(case.source), time="0")
    errors = _errors(case)
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
        failure = ET.SubElement(element, "failure", type=_clean(f"{first.rule} {first.name}"), message=_clean(first.message + more))
        failure.text = "\n".join(_clean(_line(p)) for p in errors)
    elif case.passed_over:
        ET.SubElement(element, "skipped", message="no Kubernetes object in this file: passed over")
    notes = [_clean(_line(p)) for p in case.problems if p.severity < Severity.ERROR]
    if notes:
        ET.SubElement(element, "system-out").text = "\n".join(notes)
    return element
