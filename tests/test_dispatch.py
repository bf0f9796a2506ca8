"""Rules dispatched only where they can fire (`@rule(needs=...)`, dralint.pipeline.dispatch) lose nothing.

One lint of every fixture under tests/cases at every release a fixture names, and of the real-world
corpus (when ../shared is present) at each file's release and feature gates, calls every rule of each
document's type (dispatch observed, not applied) and serves these checks at once:
* A rule that dispatch skips on a document reports nothing there, and a rule that reports on a
  document, called again on that document with every path it declares removed, reports nothing either.
* A rule reads nothing outside its `needs` where dispatch skips it: on every such document (and on
  every stripped one) the rule is called on a view that records the paths it looks up, and each must
  lie on the way to one of its `needs` (`spec`, `spec.devices` for `spec.devices.constraints`). A read
  of a field the rule does not declare is where a finding dispatch would lose starts, whether or not
  the documents at hand make the rule report; test_a_rule_reading_outside_its_needs_is_named shows the
  check failing. Reads a shared `memo` computation makes (the requests, request names and selector
  targets several rules derive once per document) are that helper's, which models every field of what
  it reads; the mappings it hands back record what the rule then reads of them. A field a rule sees only
  through a helper's derived value is outside this check (the checks above cover it where it fires).
* The whole path through the engine: the report in every format (text, json, sarif, github, junit) of
  that lint and of one with dispatch on is the same, on the fixtures at the default release and on
  each of the corpus's runs.
Each path a rule declares is one it reads: on a document that has only that path, every gate on, the
rule looks it up for some kind, API version and release it applies to. Rules are independent of each
other (`memo` only caches), so the problems with dispatch on are those of every rule called, less the
skipped rules' (none): the same, at every release.
"""

from __future__ import annotations

import copy
import itertools
from collections import defaultdict
from typing import Any, NamedTuple

import pytest

import dralint.pipeline.stages
from dralint import schemas
from dralint.api import DocumentView, Rule
from dralint.k8s.resource import CLASSIC, STRUCTURED
from dralint.model import Document
from dralint.pipeline import dispatch
from dralint.pipeline.dispatch import Dispatch, has_path
from dralint.registry import all_rules
from dralint.report import FORMATS, ReportOptions, renderer
from dralint.rules.pod_references import POD_CLAIMS

from conftest import CASES, Corpus, corpus_clusters
from engine import REPORTED, lint_paths
from expectations import read_fixture


class _Run(NamedTuple):
    """One `dralint --no-config -k RELEASE --feature-gates GATES FILES`; with `formats`, its report in
    every format is compared with dispatch on and off."""

    release: str | None
    gates: tuple[tuple[str, bool], ...]
    files: tuple[str, ...]
    formats: bool


def _fixture_runs() -> list[_Run]:
    """Runs covering every fixture at every release one of its blocks names. A document's rules see
    only it, its release and gates: a block at the release the run without `-k` lints the file at
    (its own `kubernetes-version`, or the default) needs no run of its own."""
    by_release: dict[str | None, list[str]] = defaultdict(list)
    for path in sorted(p for p in CASES.rglob("*") if p.suffix in (".yaml", ".yml", ".json")):
        releases = {None}
        if path.suffix != ".json":
            fixture = read_fixture(path)
            releases |= {block.release for block in fixture.blocks} - {fixture.file_release or schemas.DEFAULT_RELEASE}
        for release in releases:
            by_release[release].append(str(path))
    return [_Run(release, (), tuple(files), release is None) for release, files in sorted(by_release.items(), key=lambda item: item[0] or "")]


def _corpus_runs(corpus: Corpus) -> dict[_Run, Any]:
    """The corpus's runs, each with its result with dispatch on: the session's lint of the corpus
    (conftest `corpus`, which tests/test_corpus.py reads)."""
    return {_Run(release, gates, tuple(map(str, files)), True): corpus.results[release, gates] for (release, gates), files in corpus_clusters(corpus.rows)}


def _lint(run: _Run, extra: tuple[Rule, ...] = ()):
    """The result of `run`, in process, keeping what every format reads when its report is compared."""
    return lint_paths(run.files, release=run.release, feature_gates=dict(run.gates), keep=REPORTED if run.formats else None, rules=extra)


def _reports(result) -> dict[str, str]:
    shown = ReportOptions(show_source=True)
    return {fmt: renderer(fmt)(result, shown) for fmt in FORMATS}


def _without(node: Any, paths: list[tuple[str, ...]]) -> Any:
    """`node` (a recording view) with every one of `paths` removed (a document on which dispatch
    skips their rule), copying only the mappings and lists on the way to a removed key."""
    ahead: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for path in paths:
        ahead[path[0]].append(path[1:])
    if isinstance(node, list) and "*" in ahead:
        return [_without(entry, ahead["*"]) for entry in node]
    if not isinstance(node, dict):
        return node
    copied = _Dict(node)
    copied._at = node._at
    for key, rests in ahead.items():
        if key in copied:
            if () in rests:
                del copied[key]
            else:
                copied[key] = _without(copied[key], rests)
    return copied


# What rules read besides the way to their `needs`, where dispatch skips them: context that only a
# finding under a need uses (the pod's claims, which a container's claim is judged against; the
# namespace a message names). A read of anything else, or of these by another rule, is reported.
_CONTEXT: dict[str, tuple[str, ...]] = {
    "DRA704": POD_CLAIMS,
    "DRA802": ("metadata.namespace",),
}


def _covered(path: tuple, paths: tuple[tuple[str, ...], ...]) -> bool:
    """Whether `path` lies on the way to one of `paths` or under one."""
    return any(path[: len(p)] == p[: len(path)] for p in paths)


class _Observed:
    """What one lint of every fixture (or of the corpus) shows about dispatch, gathered in one pass."""

    def __init__(self) -> None:
        self.leaks: list[tuple] = []  # problems of rules dispatch would have skipped
        self.pruned_leaks: list[tuple] = []  # problems of a rule on a document stripped of what it needs
        self.outside: dict[tuple[str, str], str] = {}  # (rule, path read outside its needs) -> where first
        self.read = 0  # paths recorded, rule call by rule call
        self.skipped = 0  # rule calls dispatch would have skipped
        self.pruned = 0  # (rule, document) pairs called again without their paths
        self.reported: set[str] = set()  # rules with `needs` that reported somewhere
        self.reports: dict[_Run, tuple[dict[str, str], dict[str, str]]] = {}  # every format: dispatch off, on


def _observe(runs: list[_Run], extra: tuple[Rule, ...] = (), on: dict[_Run, Any] | None = None) -> _Observed:
    """`runs` observed, and each with `formats` linted again with dispatch on (unless `on` has its result)."""
    seen = _Observed()
    off: dict[_Run, dict[str, str]] = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        _observing(seen, monkeypatch)
        for r in runs:
            result = _lint(r, extra)
            if r.formats:
                off[r] = _reports(result)
    for r, reports in off.items():
        seen.reports[r] = (reports, _reports(on[r] if on is not None else _lint(r, extra)))
    return seen


def _observing(seen: _Observed, monkeypatch) -> None:
    """Every rule of the document's type called, in order, as with dispatch off, on a view of the
    document that records what a rule dispatch skips reads there (`_recording`); then each rule that
    reports, alone on that view stripped of what it needs."""
    skipped: set[str] = set()  # the codes of the rules dispatch skips on the document at hand
    choose, run, memo = Dispatch.for_document, dralint.pipeline.stages.run_document_rules, DocumentView.memo
    # Kept, as the engine binds reporters to a rule sequence by its identity: id(a type's rules) ->
    # (them, them recording); id(a rule) -> (it, [it recording]).
    recording: dict[int, tuple[list[Rule], list[Rule]]] = {}
    alone: dict[int, tuple[Rule, list[Rule]]] = {}

    def for_document(self, data):
        skipped.clear()
        skipped.update(r.code for r in self.rules)
        skipped.difference_update(r.code for r in choose(self, data))
        seen.skipped += len(skipped)
        return self.rules

    def on_view(rules: list[Rule], view: DocumentView, data: Any) -> list:
        doc, kept = view.document, view.document.data
        doc.data = data
        try:
            return run(rules, view)
        finally:
            doc.data = kept

    def run_document_rules(rules, view):
        if id(rules) not in recording:
            recording[id(rules)] = (rules, [_recording(r, seen, skipped) if r.needs is not None else r for r in rules])
        tracked = _tracked(view.data, ())
        problems = on_view(recording[id(rules)][1], view, tracked)
        seen.leaks.extend((p.source, p.document, p.rule, p.message) for p in problems if p.rule in skipped)
        reported = {p.rule for p in problems}
        for r in rules:
            if r.needs is not None and r.code in reported:
                seen.reported.add(r.code)
                seen.pruned += 1
                if id(r) not in alone:
                    alone[id(r)] = (r, [_recording(r, seen, {r.code})])  # skipped wherever it is called alone
                again = on_view(alone[id(r)][1], view, _without(tracked, list(r.needs)))
                seen.pruned_leaks.extend((view.source, view.index, p.rule, p.message) for p in again)
        return problems

    def untracked_memo(self, key, compute, *args):  # what a shared helper reads is not the rule's own
        sink, _SINK[0] = _SINK[0], None
        try:
            return memo(self, key, compute, *args)
        finally:
            _SINK[0] = sink

    monkeypatch.setattr(Dispatch, "for_document", for_document)
    monkeypatch.setattr(dralint.pipeline.stages, "run_document_rules", run_document_rules)
    monkeypatch.setattr(DocumentView, "memo", untracked_memo)


def _recording(rule: Rule, seen: _Observed, skipped: set[str]) -> Rule:
    """`rule`, noting in `seen.outside` each path it reads that is not on the way to its `needs`, on
    a document where its code is in `skipped`."""
    allowed = rule.needs + tuple(tuple(p.split(".")) for p in _CONTEXT.get(rule.code, ()))
    check, code = rule.check, rule.code

    def recorded(view, report):
        if code not in skipped:
            return check(view, report)
        reads: set = set()
        _SINK[0] = reads
        try:
            check(view, report)
        finally:
            _SINK[0] = None
            seen.read += len(reads)
            for path in reads:
                if not _covered(path, allowed):
                    seen.outside.setdefault((code, ".".join(map(str, path))), f"{view.source}#{view.index}")

    return rule._replace(check=recorded)


@pytest.fixture(scope="module")
def fixtures_observed() -> _Observed:
    return _observe(_fixture_runs())


@pytest.fixture(scope="module")
def corpus_observed(corpus) -> _Observed:
    runs = _corpus_runs(corpus)
    return _observe(list(runs), on=runs)


def test_a_skipped_rule_reports_nothing_on_any_fixture(fixtures_observed):
    assert fixtures_observed.leaks == [], "a rule's `needs` is narrower than what it reads"
    assert fixtures_observed.skipped > 0  # the fixtures do exercise skipping


def test_a_rule_reports_nothing_on_a_fixture_stripped_of_what_it_needs(fixtures_observed):
    assert fixtures_observed.pruned_leaks == [], "a rule reports on a document that has none of its `needs`"
    declaring = {r.code for r in all_rules() if r.needs is not None}
    # Every declaring rule has a fixture it reports on (so each was stripped and called again).
    assert declaring - fixtures_observed.reported == set()


def test_no_rule_reads_outside_its_needs_where_dispatch_skips_it_on_a_fixture(fixtures_observed):
    assert fixtures_observed.outside == {}, "(rule, path it reads but does not declare): where first"
    assert fixtures_observed.read > 0


def test_a_skipped_rule_reports_nothing_and_reads_nothing_outside_its_needs_on_the_corpus(corpus_observed):
    assert corpus_observed.leaks == [] and corpus_observed.pruned_leaks == []
    assert corpus_observed.outside == {}, "(rule, path it reads but does not declare): where first"
    assert corpus_observed.skipped > 0 and corpus_observed.pruned > 0 and corpus_observed.read > 0


def test_a_rule_reading_outside_its_needs_is_named(tmp_path):
    """A rule that declares `spec.devices.constraints` but looks at the requests: dispatch would skip
    it on a claim without constraints, and on this one it happens to report nothing, so only the
    recorded read tells."""
    from dralint.api import rule

    def more_than_one_request(doc, report):
        """Reports a claim with more than one request (a test rule: declares less than it reads)."""
        if len(doc.get("spec", "devices", "requests", type=list, default=[])) > 1:
            report(("spec", "devices", "requests"), "more than one request")

    under = rule("XT901", "under-declared", kinds=["ResourceClaim"], api_versions=STRUCTURED, needs=("spec.devices.constraints",))(
        more_than_one_request
    ).__dralint_rule__
    claim = tmp_path / "claim.yaml"
    claim.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: n}\n"
                     "spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu.example.com}\n")
    seen = _observe([_Run(None, (), (str(claim),), False)], extra=(under,))
    assert seen.leaks == [] and seen.skipped > 0
    assert seen.outside == {("XT901", "spec.devices.requests"): f"{claim}#0"}


# --- the recording view; each declared path is read ------------------------------------------


# Where a mapping of a recording view (`_tracked`) notes the paths looked up in it (list entries as
# `*`); None: nowhere.
_SINK: list[set | None] = [None]


class _Dict(dict):
    __slots__ = ("_at",)

    def __getitem__(self, key):
        reads = _SINK[0]
        if reads is not None:
            reads.add(self._at + (key,))
        return super().__getitem__(key)

    def get(self, key, default=None):
        reads = _SINK[0]
        if reads is not None:
            reads.add(self._at + (key,))
        return super().get(key, default)

    def __contains__(self, key):
        reads = _SINK[0]
        if reads is not None:
            reads.add(self._at + (key,))
        return super().__contains__(key)

    def __iter__(self):
        reads = _SINK[0]
        for key in super().__iter__():
            if reads is not None:
                reads.add(self._at + (key,))
            yield key

    def keys(self):
        return list(self)

    def items(self):
        return [(key, super(_Dict, self).__getitem__(key)) for key in self]

    def values(self):
        return [value for _, value in self.items()]


def _tracked(value: Any, at: tuple) -> Any:
    if isinstance(value, dict):
        tracked = _Dict({k: _tracked(v, at + (k,)) for k, v in value.items()})
        tracked._at = at
        return tracked
    if isinstance(value, list):
        return [_tracked(v, at + ("*",)) for v in value]
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
        reads: set = set()
        data = _tracked(_with_path(api_version, kind, path, copy.deepcopy(leaf)), ())
        view = DocumentView(Document("x.yaml", 0, data), release, feature_gates=_EveryGate())
        _SINK[0] = reads
        try:
            rule.check(view, lambda *args, **kwargs: None)
        except Exception:  # a document this bare may trip a rule; another type or leaf will do
            continue
        finally:
            _SINK[0] = None
        if path in reads:
            return True
    return False


def test_every_declared_path_is_one_its_rule_reads():
    unread = [(r.code, ".".join(p)) for r in all_rules() if r.needs is not None for p in r.needs if not _reads_path(r, p)]
    assert unread == []


# --- the same reports -----------------------------------------------------------------------


def test_fixtures_give_the_same_report_in_every_format_with_dispatch_on_and_off(fixtures_observed):
    (run,) = fixtures_observed.reports  # the default release
    off, on = fixtures_observed.reports[run]
    assert on == off and set(on) == set(FORMATS)


def test_the_corpus_gives_the_same_report_in_every_format_with_dispatch_on_and_off(corpus_observed):
    assert len(corpus_observed.reports) > 1  # each file at its release and gates
    for run, (off, on) in corpus_observed.reports.items():
        assert on == off, (run.release, run.gates)
    assert any('"ruleId"' in off["sarif"] for off, _ in corpus_observed.reports.values())  # problems were reported


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
