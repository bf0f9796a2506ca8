"""Rules dispatched only where they can fire (`@rule(needs=...)`, dralint.pipeline.dispatch) lose nothing.

* Every fixture under tests/cases at every release a fixture names, and the real-world corpus
  (when ../shared is present), are linted once with every rule of each document's type called
  (dispatch observed, not applied): a rule that dispatch would skip reports nothing there, and a
  rule that reports on a document, called again on that document with every path it declares
  removed (a document dispatch skips it on), reports nothing either.
* Each path a rule declares is one it reads: on a document that has only that path, every gate
  on, the rule looks it up for some kind, API version and release it applies to.
  Rules are independent of each other (`memo` only caches), so the problems with dispatch on are
  those of every rule called, less the skipped rules' (none): the same, at every release.
* The whole path through the engine: dispatch on and off give the same report in every format on
  the fixtures at the default release (the lint that observes is the one off).
"""

from __future__ import annotations

import copy
import itertools
from collections import defaultdict
from typing import Any

import pytest

import dralint.pipeline.stages
from dralint import cli, schemas
from dralint.api import DocumentView, Rule
from dralint.config import Overrides, build_options
from dralint.k8s.resource import CLASSIC, STRUCTURED
from dralint.model import Document
from dralint.pipeline import dispatch
from dralint.pipeline.dispatch import Dispatch, has_path
from dralint.pipeline.engine import run_document_rules
from dralint.registry import all_rules
from dralint.report import FORMATS, ReportOptions, renderer

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


def _without(node: Any, paths: list[tuple[str, ...]]) -> Any:
    """`node` with every one of `paths` removed (a document on which dispatch skips their rule),
    copying only the mappings and lists on the way to a removed key."""
    ahead: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for path in paths:
        ahead[path[0]].append(path[1:])
    if isinstance(node, list) and "*" in ahead:
        return [_without(entry, ahead["*"]) for entry in node]
    if not isinstance(node, dict):
        return node
    copied = dict(node)
    for key, rests in ahead.items():
        if key in copied:
            if () in rests:
                del copied[key]
            else:
                copied[key] = _without(copied[key], rests)
    return copied


class _Observed:
    """What one lint of every fixture (and the corpus) shows about dispatch, gathered in one pass."""

    def __init__(self) -> None:
        self.leaks: list[tuple] = []  # problems of rules dispatch would have skipped
        self.pruned_leaks: list[tuple] = []  # problems of a rule on a document stripped of what it needs
        self.skipped = 0  # rule calls dispatch would have skipped
        self.pruned = 0  # (rule, document) pairs called again without their paths
        self.reported: set[str] = set()  # rules with `needs` that reported somewhere
        self.reports: dict[str | None, dict[str, str]] = {}  # at the default release: every format, every rule called


def _observe(runs: list[tuple[str | None, list[str]]], monkeypatch, formats: bool = True) -> _Observed:
    seen = _Observed()
    skipped: list[set[str]] = [set()]
    choose, run = Dispatch.for_document, dralint.pipeline.stages.run_document_rules

    def for_document(self, data):
        skipped[0] = {r.code for r in self.rules} - {r.code for r in choose(self, data)}
        seen.skipped += len(skipped[0])
        return self.rules

    def run_document_rules(rules, view):
        problems = run(rules, view)
        by_rule: dict[str, list] = defaultdict(list)
        for p in problems:
            by_rule[p.rule].append(p)
        seen.leaks.extend((p.source, p.document, p.rule, p.message) for p in problems if p.rule in skipped[0])
        for rule in rules:
            if rule.needs is not None and rule.code in by_rule:
                seen.reported.add(rule.code)
                seen.pruned += 1
                again = run_document_rules_on(rule, view, _without(view.data, list(rule.needs)))
                seen.pruned_leaks.extend((view.source, view.index, p.rule, p.message) for p in again)
        return problems

    monkeypatch.setattr(Dispatch, "for_document", for_document)
    monkeypatch.setattr(dralint.pipeline.stages, "run_document_rules", run_document_rules)
    for release, files in runs:
        if release is None and formats:  # reported in every format; elsewhere the problems are what counts
            seen.reports[release] = _reports(files, release)
        else:
            lint_paths(files, release=release, severities=None)
    monkeypatch.undo()
    return seen


def run_document_rules_on(rule: Rule, view: DocumentView, data: Any) -> list:
    doc = view.document
    copied = Document(doc.source, doc.index, data, doc.positions, doc.text, doc.scalar_styles, doc.list_item)
    copied.patch = doc.patch
    again = DocumentView(copied, view.release, view.options, feature_gates=view.feature_gates, dropped=view.dropped)
    return run_document_rules([rule], again)


@pytest.fixture(scope="module")
def fixtures_observed():
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield _observe(_runs(), monkeypatch)


def test_a_skipped_rule_reports_nothing_on_any_fixture(fixtures_observed):
    assert fixtures_observed.leaks == [], "a rule's `needs` is narrower than what it reads"
    assert fixtures_observed.skipped > 0  # the fixtures do exercise skipping


def test_a_rule_reports_nothing_on_a_fixture_stripped_of_what_it_needs(fixtures_observed):
    assert fixtures_observed.pruned_leaks == [], "a rule reports on a document that has none of its `needs`"
    declaring = {r.code for r in all_rules() if r.needs is not None}
    # Every declaring rule has a fixture it reports on (so each was stripped and called again),
    # except the ones the fixtures never make fire.
    assert declaring - fixtures_observed.reported == set()


@pytest.fixture(scope="module")
def corpus_observed():
    if not CORPUS.is_dir():
        pytest.skip("the real-world corpus (../shared/corpus/real-world) is not present")
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield _observe([(None, [str(CORPUS)])], monkeypatch, formats=False)


def test_a_skipped_rule_reports_nothing_on_the_corpus(corpus_observed):
    assert corpus_observed.leaks == [] and corpus_observed.pruned_leaks == []
    assert corpus_observed.skipped > 0 and corpus_observed.pruned > 0


# --- each declared path is read ------------------------------------------------------------


class _Reads(set):
    """The paths looked up in a document (list indices as `*`)."""


class _Dict(dict):
    __slots__ = ("_at", "_reads")

    def _note(self, key: Any) -> None:
        self._reads.add(self._at + (key,))

    def __getitem__(self, key):
        self._note(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._note(key)
        return super().get(key, default)

    def __contains__(self, key):
        self._note(key)
        return super().__contains__(key)

    def __iter__(self):
        for key in super().__iter__():
            self._note(key)
            yield key

    def keys(self):
        return list(self)

    def items(self):
        return [(key, super(_Dict, self).__getitem__(key)) for key in self]

    def values(self):
        return [value for _, value in self.items()]


def _tracked(value: Any, at: tuple, reads: _Reads) -> Any:
    if isinstance(value, dict):
        tracked = _Dict({k: _tracked(v, at + (k,), reads) for k, v in value.items()})
        tracked._at, tracked._reads = at, reads
        return tracked
    if isinstance(value, list):
        return [_tracked(v, at + ("*",), reads) for v in value]
    return value


class _EveryGate(dict):
    """Feature gates all on: a declared path that only a gate lets the rule read is read."""

    def get(self, key, default=None):
        return True

    def __contains__(self, key):
        return True


def _with_path(api_version: str, kind: str, path: tuple[str, ...], leaf: Any) -> dict:
    """A document of the type that has `path` (list entries as one-entry lists) and little else."""
    data: dict = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
    node: Any = data
    for i, key in enumerate(path):
        after = path[i + 1] if i + 1 < len(path) else None
        if key == "*":
            entry: dict = {}
            if path[i - 1] == "requests" and after not in ("exactly", "firstAvailable"):
                entry["deviceClassName"] = "c"  # a flat request with a class is an exact request
            node.append(entry)
            node = entry
            continue
        child = leaf if after is None else ([] if after == "*" else {})
        node[key] = child
        node = child
    return data


_LEAVES = ([{}], {}, "x", 1, True)


def _types(rule: Rule) -> list[tuple[str, str, str]]:
    versions = sorted(rule.api_versions) if rule.api_versions is not None else [*STRUCTURED, *CLASSIC]
    kinds = sorted(rule.kinds) if rule.kinds is not None else sorted(schemas.ALL_DRA_KINDS)
    releases = [r for r in schemas.RELEASES if rule.in_releases(r)]
    return list(itertools.product(releases, versions, kinds))


def _reads_path(rule: Rule, path: tuple[str, ...]) -> bool:
    for (release, api_version, kind), leaf in itertools.product(_types(rule), _LEAVES):
        reads = _Reads()
        data = _tracked(_with_path(api_version, kind, path, copy.deepcopy(leaf)), (), reads)
        view = DocumentView(Document("x.yaml", 0, data), release, feature_gates=_EveryGate())
        try:
            rule.check(view, lambda *args, **kwargs: None)
        except Exception:  # a document this bare may trip a rule; another type or leaf will do
            continue
        if path in reads:
            return True
    return False


def test_every_declared_path_is_one_its_rule_reads():
    unread = [(r.code, ".".join(p)) for r in all_rules() if r.needs is not None for p in r.needs if not _reads_path(r, p)]
    assert unread == []


# --- the same reports -----------------------------------------------------------------------


def _reports(paths: list[str], release: str | None) -> dict[str, str]:
    """The report of `dralint --no-config [-k RELEASE] PATHS` in every format, in process."""
    options, _ = build_options(Overrides(no_config=True, kubernetes_version=release))
    options.keep = ("texts", "objects", "fixes")
    result = cli._lint(paths, options, 1)
    shown = ReportOptions(show_source=True)
    return {fmt: renderer(fmt)(result, shown) for fmt in FORMATS}


def test_fixtures_give_the_same_report_in_every_format_with_dispatch_on_and_off(fixtures_observed):
    assert _reports(dict(_runs())[None], None) == fixtures_observed.reports[None]


# --- the table itself -----------------------------------------------------------------------


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


def test_the_tree_walk_finds_what_has_path_finds():
    paths = (("spec", "a"), ("spec", "b", "*", "c"), ("spec", "b", "*"), ("spec", "b"), ("kind",), ("spec", "b", "*", "d", "*", "e"))
    table = Dispatch([Rule("X1", "x", None, None, "", "", needs=paths)])  # type: ignore[arg-type]
    documents = [
        {}, [], None, {"spec": None}, {"spec": {"a": None}}, {"spec": {"b": []}}, {"spec": {"b": [1, {"c": 0}]}},
        {"spec": {"b": {"c": 1}}}, {"kind": "X", "spec": {"b": [{"d": [{"e": 1}, 2]}]}}, {"spec": {"b": [{"d": {"e": 1}}]}},
    ]
    for data in documents:
        present = dispatch._present(data, table._tree)
        assert [bool(present >> bit & 1) for bit in range(len(paths))] == [has_path(data, p) for p in paths], data


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
