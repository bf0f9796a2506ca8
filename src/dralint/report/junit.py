"""`--format junit`: JUnit XML for CI test-report views (GitLab, Jenkins, Azure ...).

One `<testcase>` per document, named `file#index kind/name` (list items of a
`kind: List` get `file#index[item]`), one `<failure>` per error-level problem,
warnings and infos in the test case's `<system-out>`. Problems that belong to
no document (an unreadable file, a syntax error before the first document)
get a test case of their own. The output follows the widely used JUnit schema
(Jenkins/Surefire `junit-10.xsd`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from ..lint import LintResult
from ..model import Problem, Severity, format_path
from . import ReportOptions

# Characters XML 1.0 cannot carry, even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


@dataclass
class _Case:
    source: str
    index: int
    item: int | None = None
    kind: str | None = None
    obj: str | None = None
    problems: list[Problem] = field(default_factory=list)

    @property
    def name(self) -> str:
        where = f"{self.source}#{self.index}" + (f"[{self.item}]" if self.item is not None else "")
        what = "/".join(x for x in (self.kind, self.obj) if x)
        return f"{where} {what}" if what else where


def _documents(result: LintResult) -> list[_Case]:
    return [_Case(o.source, o.index, o.list_item, o.kind, o.object) for o in result.objects]


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
    cases = _assign(result, _documents(result))
    failures = sum(1 for c in cases for p in c.problems if p.severity >= Severity.ERROR)
    suites = ET.Element("testsuites", name="dralint", tests=str(len(cases)), failures=str(failures), errors="0", time="0")
    suite = ET.SubElement(suites, "testsuite", name="dralint", tests=str(len(cases)), failures=str(failures), errors="0", skipped="0", time="0")
    for case in cases:
        element = ET.SubElement(suite, "testcase", name=_clean(case.name), classname=_clean(case.source), time="0")
        notes = []
        for p in case.problems:
            if p.severity >= Severity.ERROR:
                failure = ET.SubElement(element, "failure", type=f"{p.rule} {p.name}", message=_clean(p.message))
                failure.text = _clean(_line(p))
            else:
                notes.append(_clean(_line(p)))
        if notes:
            ET.SubElement(element, "system-out").text = "\n".join(notes)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
