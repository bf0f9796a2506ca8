"""The one `lint` function every front door (CLI, pre-commit, webhook, Python API) feeds.

A run takes each file through `FILE_STAGES` and each document through `DOCUMENT_STAGES`
(dralint.pipeline.stages), judges the run-scope rules in `finish`, and settles the problems
(dralint.pipeline.settle); what it keeps on the way is the retention policy's call
(dralint.pipeline.partial.Retention: the streaming CLI lets documents go, the API keeps them).
So the front doors differ only in how they report. Files
stream through: each is loaded, checked and filtered before the next is read,
and its documents are let go; what rules over the whole run (pod references
across files) need is kept as small records (`collect`, dralint.api) and
judged at the end. `--jobs` (dralint.pipeline.parallel) runs `_Run`s over chunks of
files in worker processes and merges their partial results here.

    from dralint.lint import LintOptions, Source, lint
    result = lint([Source("claim.yaml", data)], LintOptions(release="1.35"))
"""

from __future__ import annotations

from ..api import DocumentView, Place
from ..model import Document, Problem, Span
from .dispatch import Dispatch
from .drop import GateState
from .engine import collect_records, collectors, run_index_rules, run_run_rules
from .kustomize import Kustomizations, Patch, partial_problems
from .options import Fixer, LintOptions, known_codes  # noqa: F401 - re-exported (dralint.lint)
from .origins import Origins, portable
from .partial import LintResult, PartialResult, Retention
from .settle import capped, in_report_order
from .sources import Source
from .stages import DOCUMENT_STAGES, FILE_STAGES, DocumentWork, FileWork, file_checks

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterable

    from .suppress import Suppressor


def lint(sources: Iterable[Source], options: LintOptions | None = None, known: dict[str, dict[str, list]] | None = None) -> LintResult:
    """`known`: run-scope records of files outside the run (release -> collector key -> records, as
    `records_of` makes them), judged with the run's own: the language server's workspace index. Their
    own problems are the caller's to drop (a rule may report at a record of theirs)."""
    run = _Run(options or LintOptions())
    for source in sources:
        run.check_source(source)
    if known:
        run.add_known(known)
    return run.finish()


def records_of(source: Source, options: LintOptions) -> dict[str, dict[str, list]]:
    """The run-scope records one file contributes to a run (release -> collector key -> records)."""
    run = _Run(options)
    run.check_source(source)
    return run.records


class Alone:
    """Sources checked one at a time, each as a run of its own before run-scope judging, then judged
    together (the language server's documents, dralint.lsp.incremental). One checker serves many runs:
    its rules, dispatch tables and gate states are made once."""

    def __init__(self, options: LintOptions):
        self.run = _Run(options)

    def check(self, source: Source) -> PartialResult | None:
        """What `source` adds to a run. None where a part of a larger source cannot be checked alone:
        legacy run rules need every document, a kustomize patch its base."""
        run = self.run
        if run.legacy_rules or run.patch_of(source.name) is not None:
            return None
        run.check_source(source)
        return run.take_partial()

    def judge(self, partial: PartialResult, known: dict[str, dict[str, list]] | None = None) -> LintResult:
        """The end of the run whose sources `partial` holds: the run-scope rules over its records (and
        `known`'s, as `lint` takes them), and every problem in report order."""
        run = self.run
        run.result, run.records, run.first = partial.result, partial.records, partial.first
        if known:
            run.add_known(known)
        try:
            return run.finish()
        finally:  # the next run starts afresh
            run.take_partial()
            run.messages = {}


def lint_documents(documents: list[Document], options: LintOptions | None = None) -> LintResult:
    """For callers that already hold objects (the admission webhook): no file, no comments."""
    options = options or LintOptions()
    run = _Run(options)
    run.check_documents(documents, options.release, text=None)
    return run.finish()


_ALWAYS_POSITIONED = frozenset({"apiVersion"})


class _Run:
    """The state of one lint run: rules matched per type, suppressions, the run-scope records."""

    def __init__(self, options: LintOptions):
        self.options = options
        self.selection = options.selection
        # Built-in rules only: those of the modules every document needs now, the others as their kinds turn up
        # (`rules_for`); the codes of all of them known from the index (dralint.registry.BuiltinRules).
        self.builtin = options.builtin_by_kind()
        if self.builtin is None:
            rules = options.rules()
            self.known = known_codes(rules)
        else:
            rules = [*self.builtin.always(), *options.extra_rules]
            self.known = known_codes([])
            self.known.update(self.builtin.codes)
            self.known.update(known_codes(options.extra_rules))
        # A rule whose code is not selected would only have its problems dropped: it does not run.
        selected = [r for r in rules if self.selection.selected(r.code, r.slug)]
        self.document_rules = [r for r in selected if r.scope == "document"]
        # How many of them, at the end, are the policies' (`_load_rules_of` puts built-in rules before them).
        self._policy_documents = sum(1 for r in options.extra_rules if r in self.document_rules)
        self.run_rules = [r for r in selected if r.scope == "run"]
        self.index_rules = [r for r in self.run_rules if r.collect is not None]
        self.legacy_rules = [r for r in self.run_rules if r.collect is None]  # given every DocumentView
        # For the loader: what the run-scope rules place in every document, and `apiVersion`, where the
        # problem real-world files have most often stands (DRA010/DRA011): positioned with no replay.
        self.positioned = frozenset().union(*(r.positioned for r in self.index_rules), _ALWAYS_POSITIONED)
        self.collectors = collectors(self.index_rules)
        self.rules_by_type: dict[tuple[str, str | None, str | None], Dispatch] = {}
        self.suppressor: Suppressor | None = None
        if options.ignore_paths is not None:
            self.suppressor = self.new_suppressor()
        self.retain = Retention(options.keep)
        self.views_by_release: dict[str, list[DocumentView]] = {}
        self.records: dict[str, dict[str, list]] = {}  # release -> collector key -> records, in run order
        self.first: dict[str, Place] = {}  # release -> its first document, where a failing run rule is reported
        self.result = LintResult()
        self.late: list[list[Problem]] = []
        self.messages: dict[str, str] = {}  # one copy of each message the kept problems carry (settled runs)
        self.kustomizations: Kustomizations | None = None  # read when the first file is checked
        self.origins: Origins | None = None  # made for the first rendered stream (dralint.pipeline.origins)
        self.rendered: dict[str, dict[int, Document]] = {}  # source -> its documents that name their origin
        self.gate_states: dict[tuple, GateState] = {}

    def check_source(self, source: Source) -> None:
        """One file through FILE_STAGES (dralint.pipeline.stages), up to the stage that ends it."""
        self.result.files += 1
        if self.retain.objects:
            self.result.source_names.append(source.name)
        work = FileWork(source)
        for stage in FILE_STAGES:
            if not stage(self, work):
                break

    def check_documents(self, documents: list[Document], release: str, text: str | None) -> None:
        problems = self.judge(documents, release, [])
        if documents and self.suppressor is not None:
            self.suppressor.add_source(documents[0].source, text, documents)
        self.add(documents[0].source if documents else "", None, problems)

    def finish(self) -> LintResult:
        result = self.result
        late: list[Problem] = []
        while self.records:  # each release's records let go once judged: the rest of finish() needs room
            release, records = next(iter(self.records.items()))
            del self.records[release]
            late.extend(run_index_rules(self.index_rules, records, release, self.first[release], self.messages))
            del records
        for release, views in self.views_by_release.items():
            if any(r.in_releases(release) for r in self.legacy_rules):
                late.extend(run_run_rules(self.legacy_rules, views, release))
        if self.suppressor is not None:
            late = self.suppressor.keep(late)
            late.extend(self.suppressor.unused())
        late = self.selection.apply(late)
        for p in late:
            if p.source in self.rendered:
                self._relocate([p], self.rendered[p.source])
        result.problems = in_report_order(result.problems, late, self.messages if self.retain.settle else {})
        # Sorting computed every reported position: a position table that failed to build has said so by now.
        failed = self.selection.apply([p for problems in self.late for p in problems])
        if failed:
            result.problems = sorted(result.problems + failed, key=Problem.sort_key)
        return result

    def add_known(self, known: dict[str, dict[str, list]]) -> None:
        """Records of files outside the run, after the run's own, for the releases the run judges."""
        for release, mine in self.records.items():
            for key, found in known.get(release, {}).items():
                mine[key] = [*mine.get(key, ()), *found]  # new lists: the caller's stay as they are

    def partial(self) -> PartialResult:
        """What this run kept of its files, for a parent run to `absorb` (dralint.pipeline.parallel: a worker's chunk).
        Plain data once `settle`d (dralint.pipeline.partial): the problems hold positions and fixes, not documents."""
        late = [p for problems in self.late for p in problems]
        rendered = {name: {i: portable(doc) for i, doc in docs.items()} for name, docs in self.rendered.items()}
        return PartialResult(self.result, self.records, self.first, late, self.suppressor, rendered)

    def take_partial(self) -> PartialResult:
        """`partial()` of the files checked since the last take, and this run starts afresh: checking one
        source and taking gives that file's partial, which `absorb` merges back as if it had been checked."""
        partial = self.partial()
        self.result, self.records, self.first, self.late, self.rendered = LintResult(), {}, {}, [], {}
        self.suppressor = self.new_suppressor() if self.options.ignore_paths is not None else None
        return partial

    def absorb(self, partial: PartialResult) -> None:
        """Merge another run's partial result, of the files that follow this run's: as if it had checked them."""
        mine = PartialResult(self.result, self.records, self.first, [], self.suppressor, self.rendered)
        mine.merge(partial)
        self.suppressor = mine.suppressor
        if mine.late:
            self.late.append(mine.late)

    def add(self, name: str, data: bytes | None, problems: list[Problem], rendered: dict[int, Document] | None = None) -> None:
        if self.suppressor is not None:
            problems = self.suppressor.keep(problems)
        kept = capped(self.selection.apply(problems))
        if not kept:
            return
        if rendered:
            self._relocate(kept, rendered)
        self.result.problems.extend(kept)
        if data is not None and self.retain.texts:
            self.result.texts[name] = data
        if self.retain.settle:
            # The problems' positions and fixes are read from the documents: computed now, the documents go.
            # Messages repeat across files (a beta API, a class the run does not define): kept once.
            messages = self.messages
            for p in kept:
                p.span  # noqa: B018
                p.fixes = (p.fixes or ()) if self.retain.fixes else ()  # () for none: not an empty list per problem
                p.message = messages.setdefault(p.message, p.message)

    def judge(self, documents: list[Document], release: str, problems: list[Problem], gates: dict[str, bool] | None = None) -> list[Problem]:
        """Every problem of one file's documents (added to the loader's), before suppressions and selection:
        each document through DOCUMENT_STAGES, then the file's own checks."""
        dra: set[int] = set()
        foreign: set[int] = set()
        state = self.gate_state(release, gates or {})
        for doc in documents:
            start = len(problems)
            work = DocumentWork(doc, release, state, problems)
            for stage in DOCUMENT_STAGES:
                if not stage(self, work):
                    break
            if doc.patch is not None:
                problems[start:] = partial_problems(doc, problems[start:])
            if work.resolution.is_dra:
                dra.add(doc.index)
            elif not work.resolution.is_object:
                foreign.add(doc.index)
        return file_checks(documents, problems, dra, foreign, self, release)

    def gate_state(self, release: str, gates: dict[str, bool]) -> GateState:
        """The cluster's gates at `release`: the options' overrides, a file's own over them."""
        key = (release, tuple(sorted(gates.items())) if gates else ())
        state = self.gate_states.get(key)
        if state is None:
            state = self.gate_states[key] = GateState(release, {**self.options.feature_gates, **gates})
        return state

    def collect(self, view: DocumentView, problems: list[Problem]) -> None:
        """What the run-scope rules keep of a document: records, and the document itself only for legacy rules."""
        release = view.release
        if release not in self.first:
            # Not positioned: that would build the position table of a document with nothing to report.
            doc = view.document
            self.first[release] = Place(doc.source, doc.index, doc.list_item, (), Span.point(), doc.api_version, doc.kind, doc.object_ref)
            self.records[release] = {}
        records = self.records[release]
        for key, record in collect_records(self.collectors, view, problems):
            records.setdefault(key, []).append(record)
        if self.legacy_rules:
            self.views_by_release.setdefault(release, []).append(view)

    def _relocate(self, problems: list[Problem], rendered: dict[int, Document]) -> None:
        """Move the problems of a rendered stream's documents into the files they came from (dralint.pipeline.origins)."""
        if self.origins is None:
            self.origins = Origins()
        self.origins.relocate(problems, rendered)
        if self.retain.texts:
            for p in problems:
                if p.origin is not None and p.origin.found and p.source not in self.result.texts:
                    self.result.texts[p.source] = self.origins.data(p.source)

    def patch_of(self, name: str) -> Patch | None:
        """The kustomize patch a file is (dralint.pipeline.kustomize), or None; not looked for in stdin or an admission."""
        if name == "-" or name.startswith("<"):
            return None
        if self.kustomizations is None:
            self.kustomizations = Kustomizations()
        return self.kustomizations.patch_of(name)

    def new_suppressor(self) -> "Suppressor":
        """Made for the first file with a `# dralint:` comment, or at the start with `ignore-paths`."""
        # Imported then: its dataclasses and difflib are ~8 ms of every clean file's start-up.
        from .suppress import Suppressor

        return Suppressor(self.selection, self.known, self.options.ignore_paths, self.options.inline_suppressions)

    def rules_for(self, release: str, api_version: str | None, kind: str | None) -> Dispatch:
        key = (release, api_version, kind)
        table = self.rules_by_type.get(key)
        if table is None:
            if self.builtin is not None:
                self._load_rules_of(kind)
            table = self.rules_by_type[key] = Dispatch([r for r in self.document_rules if r.applies_to(api_version, kind, release)])
        return table

    def _load_rules_of(self, kind: str | None) -> None:
        """The document rules of the built-in modules that judge `kind`, if not loaded yet, in their place: the
        built-in rules in code order, then the policies, as `LintOptions.rules()` gives them."""
        loaded = [r for r in self.builtin.for_kind(kind) if r.scope == "document" and self.selection.selected(r.code, r.slug)]
        if loaded:
            cut = len(self.document_rules) - self._policy_documents  # the built-in rules come first
            self.document_rules = [*sorted([*self.document_rules[:cut], *loaded], key=lambda r: r.code), *self.document_rules[cut:]]


__all__ = ["LintOptions", "LintResult", "PartialResult", "lint", "lint_documents", "known_codes"]
