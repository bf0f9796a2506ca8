"""The contract every built-in rule keeps with the fixtures under tests/cases/.

Each rule has at least one *failing* fixture (a block that expects its code)
and one *clean* fixture: a block that compares the rule's code, in which the
rule ran on a document of its kind and reported nothing there. With both, a
rule that stops reporting fails the first, and a rule that starts reporting on
valid input fails the second (tests/test_cases.py checks every block exactly).

Which rules ran on which document is recorded from the real engine while the
fixtures are linted: nothing about a rule's scope is restated here.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from test_cases import BLOCKS

import dralint.pipeline.stages
from dralint.api import Rule
from dralint.registry import BUILTIN_PACKAGE, all_rules

from engine import lint_fixture

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
    original = dralint.pipeline.stages.run_document_rules
    ran: list[tuple[list[Rule], str | None, list]] = []

    def recording(rules, view):
        rules = list(rules)
        problems = original(rules, view)
        ran.append((rules, view.kind, problems))
        return problems

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dralint.pipeline.stages, "run_document_rules", recording)
        for param in BLOCKS:
            fixture, block = param.values
            name = param.id
            for expectation in block.expectations:
                failing[expectation.key.code].append(name)
            ran.clear()
            problems = lint_fixture(fixture.path, release=block.release, select=fixture.select, ignore=fixture.ignore)
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
