"""Every fixture under tests/cases/ that carries `# expect:` comments, linted in process.

The problems of each release block must be exactly the expected ones (for the
codes the fixture covers): none missing, none unexpected. Grammar:
tests/cases/README.md; `python tools/update_expectations.py FILE` rewrites
the expectations from a real run for review in `git diff`.

The same lints serve the contract every built-in rule keeps with the fixtures:
each rule has at least one *failing* fixture (a block that expects its code)
and one *clean* fixture: a block that compares the rule's code, in which the
rule ran on a document of its kind and reported nothing there. With both, a
rule that stops reporting fails the first, and a rule that starts reporting on
valid input fails the second (test_case checks every block exactly). Which
rules ran on which document is recorded from the real engine while the
fixtures are linted: nothing about a rule's scope is restated here.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

import dralint.pipeline.stages
from dralint.api import Rule
from dralint.registry import BUILTIN_PACKAGE, all_rules

from conftest import CASES, ROOT
from engine import lint_fixture
from expectations import compare, covered, read_fixture

FIXTURE_SUFFIXES = (".yaml", ".yml")


def _blocks():
    for path in sorted(p for p in CASES.rglob("*") if p.suffix in FIXTURE_SUFFIXES):
        fixture = read_fixture(path)
        for block in fixture.blocks:
            name = path.relative_to(CASES).as_posix()
            yield pytest.param(fixture, block, id=f"{name}@{block.release or fixture.file_release or 'default'}")


BLOCKS = list(_blocks())

# Block id -> its lint's problems and, document by document, (the rules run, the document's kind, their
# problems): recorded by test_case as it lints, read by the rule contract below, which lints again only
# the blocks test_case did not (as under `-k`).
_LINTED: dict[str, tuple[list, list[tuple[tuple[Rule, ...], str | None, list]]]] = {}


def _lint_block(name: str, fixture, block) -> tuple[list, list]:
    ran: list[tuple[tuple[Rule, ...], str | None, list]] = []
    original = dralint.pipeline.stages.run_document_rules

    def recording(rules, view):
        problems = original(rules, view)
        ran.append((tuple(rules), view.kind, problems))
        return problems

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dralint.pipeline.stages, "run_document_rules", recording)
        problems = lint_fixture(fixture.path, release=block.release, select=fixture.select, ignore=fixture.ignore)
    _LINTED[name] = (problems, ran)
    return problems, ran


@pytest.mark.parametrize("fixture, block", BLOCKS)
def test_case(fixture, block, request):
    problems, _ = _lint_block(request.node.callspec.id, fixture, block)
    differences = compare(block.expectations, covered(fixture, problems))
    where = fixture.path.relative_to(ROOT)
    assert not differences, (
        f"{where} at {block.release or fixture.file_release or 'the default release'}:\n  "
        + "\n  ".join(differences)
        + f"\n(review, then: python tools/update_expectations.py {where})"
    )


def test_cases_are_found():
    # A grammar change that made every fixture look expectation-free would pass silently otherwise.
    assert len(BLOCKS) >= 40


# --- the rule contract ----------------------------------------------------------------------

BUILTIN = sorted((r for r in all_rules(plugins=False) if r.origin == "builtin" or r.origin.startswith(BUILTIN_PACKAGE)), key=lambda r: r.code)


def _covers(fixture, code: str) -> bool:
    """Whether a fixture's blocks compare problems of `code` (its `expect-codes`, select and ignore)."""
    if fixture.codes and not code.startswith(fixture.codes):
        return False
    if fixture.select and not code.startswith(fixture.select):
        return False
    return not (fixture.ignore and code.startswith(fixture.ignore))


@pytest.fixture(scope="module")
def evidence():
    """(failing, clean): for each rule code, the fixture blocks that expect it / that it ran on cleanly."""
    failing: dict[str, list[str]] = defaultdict(list)
    clean: dict[str, list[str]] = defaultdict(list)
    for param in BLOCKS:
        fixture, block = param.values
        name = param.id
        for expectation in block.expectations:
            failing[expectation.key.code].append(name)
        problems, ran = _LINTED[name] if name in _LINTED else _lint_block(name, fixture, block)
        reported = {p.rule for p in problems}
        for rules, kind, document_problems in ran:
            on_document = {p.rule for p in document_problems}
            for rule in rules:
                if rule.code not in on_document and _covers(fixture, rule.code):
                    clean[rule.code].append(f"{name} ({kind})")
        # A run-scope rule judges the run: clean when it is in scope and reports nothing in the block.
        for rule in BUILTIN:
            if rule.scope == "run" and _covers(fixture, rule.code) and rule.code not in reported and _ran_on_its_kind(rule, ran):
                clean[rule.code].append(name)
    return failing, clean


def _ran_on_its_kind(rule: Rule, ran) -> bool:
    return any(rule.kinds is None or kind in rule.kinds for _, kind, _ in ran)


def test_every_rule_has_a_failing_fixture(evidence):
    failing, _ = evidence
    missing = [f"{r.code} {r.slug}" for r in BUILTIN if not failing.get(r.code)]
    assert not missing, "rules no fixture under tests/cases/ expects (add a failing case):\n  " + "\n  ".join(missing)


def test_every_rule_has_a_clean_fixture(evidence):
    _, clean = evidence
    missing = [f"{r.code} {r.slug}" for r in BUILTIN if not clean.get(r.code)]
    assert not missing, (
        "rules that never ran and stayed silent on a document of their kind in a fixture block that compares their code "
        "(add a valid case):\n  " + "\n  ".join(missing)
    )


def test_the_contract_sees_the_rules():
    # An import or registry change that found no rule would make the two tests above pass vacuously.
    assert len(BUILTIN) >= 80
    assert {r.code for r in BUILTIN} >= {"DRA501", "DRA506", "DRA573"}
