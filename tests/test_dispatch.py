"""Rules dispatched only where they can fire (`@rule(needs=...)`, dralint.pipeline.dispatch) lose nothing.

Every fixture under tests/cases, at every release a fixture names, and the real-world corpus
(when ../shared is present) give the same problems with dispatch on and off; and a rule that
dispatch skips on a document, called there anyway, reports nothing, so no `needs` declaration
is narrower than what its rule reads.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

import dralint.pipeline.stages
from dralint.model import Problem
from dralint.pipeline import dispatch
from dralint.pipeline.dispatch import Dispatch, has_path
from dralint.registry import all_rules

from conftest import CASES, SHARED
from engine import lint_paths
from expectations import read_fixture

CORPUS = SHARED / "corpus" / "real-world"


def _runs() -> list[tuple[str | None, list[str]]]:
    """(release, files) covering every fixture at every release one of its blocks names."""
    by_release: dict[str | None, list[str]] = defaultdict(list)
    for path in sorted(p for p in CASES.rglob("*") if p.suffix in (".yaml", ".yml", ".json")):
        releases = {None}
        if path.suffix != ".json":
            releases |= {block.release for block in read_fixture(path).blocks}
        for release in releases:
            by_release[release].append(str(path))
    return sorted(by_release.items(), key=lambda item: item[0] or "")


RUNS = _runs()


def _facts(problems: list[Problem]) -> list[tuple]:
    return [tuple(getattr(p, f) for f in Problem.FIELDS) for p in problems]


def _lint(files: list[str], release: str | None) -> list[Problem]:
    return lint_paths(files, release=release, severities=None).problems


@pytest.mark.parametrize("release, files", RUNS, ids=[r or "default" for r, _ in RUNS])
def test_fixtures_same_problems_with_dispatch_on_and_off(release, files, monkeypatch):
    on = _facts(_lint(files, release))
    monkeypatch.setattr(dispatch, "ENABLED", False)
    assert _facts(_lint(files, release)) == on


@pytest.mark.parametrize("release", [None, "1.31", "1.33"])
def test_corpus_same_problems_with_dispatch_on_and_off(release, monkeypatch):
    if not CORPUS.is_dir():
        pytest.skip("the real-world corpus (../shared/corpus/real-world) is not present")
    on = _facts(_lint([str(CORPUS)], release))
    monkeypatch.setattr(dispatch, "ENABLED", False)
    assert _facts(_lint([str(CORPUS)], release)) == on


def _leaks(files: list[str], release: str | None, monkeypatch) -> tuple[list[tuple], int]:
    """Problems of rules dispatch skipped (each called anyway), and how many such calls there were."""
    skipped: list[set[str]] = [set()]
    calls = [0]
    choose, run = Dispatch.for_document, dralint.pipeline.stages.run_document_rules

    def for_document(self, data):
        chosen = choose(self, data)
        skipped[0] = {r.code for r in self.rules} - {r.code for r in chosen}
        calls[0] += len(skipped[0])
        return self.rules

    leaks: list[tuple] = []

    def run_document_rules(rules, view):
        problems = run(rules, view)
        leaks.extend((p.source, p.document, p.rule, p.message) for p in problems if p.rule in skipped[0])
        return problems

    monkeypatch.setattr(Dispatch, "for_document", for_document)
    monkeypatch.setattr(dralint.pipeline.stages, "run_document_rules", run_document_rules)
    _lint(files, release)
    return leaks, calls[0]


def test_a_skipped_rule_reports_nothing_on_any_fixture(monkeypatch):
    total = 0
    for release, files in RUNS:
        leaks, calls = _leaks(files, release, monkeypatch)
        assert leaks == [], f"at {release}: a rule's `needs` is narrower than what it reads"
        total += calls
    assert total > 0  # the fixtures do exercise skipping


def test_a_skipped_rule_reports_nothing_on_the_corpus(monkeypatch):
    if not CORPUS.is_dir():
        pytest.skip("the real-world corpus (../shared/corpus/real-world) is not present")
    leaks, calls = _leaks([str(CORPUS)], None, monkeypatch)
    assert leaks == []
    assert calls > 0


def test_needs_declarations_are_well_formed():
    for r in all_rules():
        if r.needs is not None:
            assert r.needs and r.scope == "document", r.code
            assert all(all(part for part in path) for path in r.needs), r.code


def test_has_path():
    data = {"spec": {"devices": {"requests": [{"name": "a"}, 3, {"exactly": {}}]}}, "kind": None}
    assert has_path(data, ("kind",))
    assert has_path(data, ("spec", "devices", "requests"))
    assert has_path(data, ("spec", "devices", "requests", "*", "exactly"))
    assert not has_path(data, ("spec", "devices", "requests", "*", "firstAvailable"))
    assert not has_path(data, ("spec", "devices", "constraints"))
    assert not has_path(data, ("spec", "devices", "requests", "name"))
    assert not has_path(["spec"], ("spec",))
    assert not has_path(None, ("spec",))


def test_a_rule_without_needs_always_runs_and_one_with_runs_where_a_path_is_present():
    from dralint.api import rule

    def always(doc, report):
        """Runs on every document of its type."""

    def needy(doc, report):
        """Runs where `spec.a` or some `spec.b[*].c` is present."""

    first = rule("X001", "always")(always).__dralint_rule__
    second = rule("X002", "needy", needs=("spec.a", "spec.b.*.c"))(needy).__dralint_rule__
    table = Dispatch([first, second])
    assert table.for_document({}) == [first]
    assert table.for_document({"spec": {"b": [{"d": 1}]}}) == [first]
    assert table.for_document({"spec": {"b": [{"c": 1}]}}) == [first, second]
    assert table.for_document({"spec": {"a": None}}) == [first, second]
    with pytest.raises(ValueError):
        rule("X003", "bad", needs="spec.a")
