"""The one `lint` function every front door (CLI, pre-commit, webhook, Python API) feeds.

    source -> load -> Document -> resolve type -> schema check -> drop gated fields -> rules
           -> suppressions and ignore-paths -> upgrade check -> selection and severity -> problems

It owns every stage, so the front doors differ only in how they report. Files
stream through: each is loaded, checked and filtered before the next is read,
and its documents are let go; what rules over the whole run (pod references
across files) need is kept as small records (`collect`, dralint.api) and
judged at the end. `--jobs` (dralint.parallel) runs `_Run`s over chunks of
files in worker processes and merges their partial results here.

    from dralint.lint import LintOptions, lint
    from dralint.sources import Source
    result = lint([Source("claim.yaml", data)], LintOptions(release="1.35"))
"""

from typing import TYPE_CHECKING, Iterable

from . import schemas
from .api import DocumentView, Place
from .catalog import ENGINE_CHECKS
from .dispatch import Dispatch
from .drop import Dropped, GateState, drop_disabled_fields
from .engine import collect_records, collectors, run_document_rules, run_index_rules, run_run_rules
from .gate_settings import file_gates
from .kustomize import Kustomizations, Patch, as_patches, partial_problems
from .load import MAX_PROBLEMS_PER_DOCUMENT, MAX_PROBLEMS_PER_FILE, load
from .model import Document, Problem, Severity, Span
from .options import LintOptions, known_codes  # re-exported: `from dralint.lint import LintOptions, lint`
from .origins import Origins, portable, rendered_documents
from .partial import DocumentSummary, LintResult, PartialResult, Retention
from .releases import file_release
from .resolve import disabled_once_per_file, resolve
from .schema_check import check_schema
from .sources import Source
from .triage import Triaged, passed_over_unread, triage

if TYPE_CHECKING:
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


def lint_documents(documents: list[Document], options: LintOptions | None = None) -> LintResult:
    """For callers that already hold objects (the admission webhook): no file, no comments."""
    options = options or LintOptions()
    run = _Run(options)
    run.check_documents(documents, options.release, text=None)
    return run.finish()


class _Run:
    """The state of one lint run: rules matched per type, suppressions, the run-scope records."""

    def __init__(self, options: LintOptions):
        self.options = options
        self.selection = options.selection
        rules = options.rules()
        # A rule whose code is not selected would only have its problems dropped: it does not run.
        selected = [r for r in rules if self.selection.selected(r.code, r.slug)]
        self.document_rules = [r for r in selected if r.scope == "document"]
        self.run_rules = [r for r in selected if r.scope == "run"]
        self.index_rules = [r for r in self.run_rules if r.collect is not None]
        self.legacy_rules = [r for r in self.run_rules if r.collect is None]  # given every DocumentView
        self.positioned = frozenset().union(*(r.positioned for r in self.index_rules))  # for the loader
        self.collectors = collectors(self.index_rules)
        self.rules_by_type: dict[tuple[str, str | None, str | None], Dispatch] = {}
        self.known = known_codes(rules)
        self.suppressor: Suppressor | None = None
        if options.ignore_paths is not None:
            self.suppressor = self._suppressor()
        self.retain = Retention(options.keep)
        self.views_by_release: dict[str, list[DocumentView]] = {}
        self.records: dict[str, dict[str, list]] = {}  # release -> collector key -> records, in run order
        self.first: dict[str, Place] = {}  # release -> its first document, where a failing run rule is reported
        self.result = LintResult()
        self.late: list[list[Problem]] = []
        self.messages: dict[str, str] = {}  # one copy of each message the kept problems carry (settled runs)
        self.kustomizations: Kustomizations | None = None  # read when the first file is checked
        self.origins: Origins | None = None  # made for the first rendered stream (dralint.origins)
        self.rendered: dict[str, dict[int, Document]] = {}  # source -> its documents that name their origin
        self.gate_states: dict[tuple, GateState] = {}

    def check_source(self, source: Source) -> None:
        result = self.result
        result.files += 1
        if self.retain.objects:
            result.source_names.append(source.name)
        if source.data is None:
            self._add(source.name, None, [_unreadable(source)])
            return
        release, problems = file_release(source.name, source.data, self.options.release)
        gates, gate_problems = file_gates(source.name, source.data, release)
        problems.extend(gate_problems)
        patch = self._patch_of(source.name)
        loaded = passed_over_unread(source.name, source.data) if patch is None else None
        late: list[Problem] = []
        if loaded is None:
            raw = load(source.name, source.data, size=source.size, lists=patch is not None, positioned=self.positioned)
            loaded = triage(source.name, source.data, raw)
            late = raw.late_problems
            if patch is not None and raw.documents and not any(p.rule == "DRA014" for p in loaded.problems):
                # A patch is judged as a part of an object (a JSON 6902 list of operations too), unless it is
                # a template (DRA014) or the loader could not read it.
                loaded = Triaged(as_patches(patch, raw.documents), raw.problems, loaded.empty, passed_over=False)
        if loaded.passed_over:
            result.files_passed_over += 1
            if self.retain.objects:
                result.passed_over_files.append(source.name)
        result.empty += loaded.empty
        problems.extend(loaded.problems)
        rendered = rendered_documents(source.data, loaded.documents) if self.options.origins else None
        text = loaded.documents[0].text if loaded.documents else None
        problems = self._check(loaded.documents, release, problems, gates)
        if self.suppressor is None and self.options.inline_suppressions and b"dralint" in source.data:
            self.suppressor = self._suppressor()
        if self.suppressor is not None:
            self.suppressor.add_source(source.name, text, loaded.documents)
        self._add(source.name, source.data, problems, rendered)
        if rendered:
            self.rendered[source.name] = rendered  # for the run-scope problems judged at the end
        # Problems a position table finds while positions are computed (dralint.load.LoadResult): settled
        # runs have computed every position of this file's problems by now, the others do it in finish().
        if late or not self.retain.settle:
            self.late.append(late)

    def check_documents(self, documents: list[Document], release: str, text: str | None) -> None:
        problems = self._check(documents, release, [])
        if documents and self.suppressor is not None:
            self.suppressor.add_source(documents[0].source, text, documents)
        self._add(documents[0].source if documents else "", None, problems)

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
        result.problems = _in_report_order(result.problems, late, self.messages if self.retain.settle else {})
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
        """What this run kept of its files, for a parent run to `absorb` (dralint.parallel: a worker's chunk).
        Plain data once `settle`d (dralint.partial): the problems hold positions and fixes, not documents."""
        late = [p for problems in self.late for p in problems]
        rendered = {name: {i: portable(doc) for i, doc in docs.items()} for name, docs in self.rendered.items()}
        return PartialResult(self.result, self.records, self.first, late, self.suppressor, rendered)

    def take_partial(self) -> PartialResult:
        """`partial()` of the files checked since the last take, and this run starts afresh: checking one
        source and taking gives that file's partial, which `absorb` merges back as if it had been checked."""
        partial = self.partial()
        self.result, self.records, self.first, self.late, self.rendered = LintResult(), {}, {}, [], {}
        self.suppressor = self._suppressor() if self.options.ignore_paths is not None else None
        return partial

    def absorb(self, partial: PartialResult) -> None:
        """Merge another run's partial result, of the files that follow this run's: as if it had checked them."""
        mine = PartialResult(self.result, self.records, self.first, [], self.suppressor, self.rendered)
        mine.merge(partial)
        self.suppressor = mine.suppressor
        if mine.late:
            self.late.append(mine.late)

    def _add(self, name: str, data: bytes | None, problems: list[Problem], rendered: dict[int, Document] | None = None) -> None:
        if self.suppressor is not None:
            problems = self.suppressor.keep(problems)
        kept = _capped(self.selection.apply(problems))
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

    def _check(self, documents: list[Document], release: str, problems: list[Problem], gates: dict[str, bool] | None = None) -> list[Problem]:
        """Every problem of one file's documents (added to the loader's), before suppressions and selection."""
        dra: set[int] = set()
        foreign: set[int] = set()
        gates = gates or {}
        for doc in documents:
            start = len(problems)
            verdict = self._check_document(doc, release, problems, gates)
            if doc.patch is not None:
                problems[start:] = partial_problems(doc, problems[start:])
            if verdict == "dra":
                dra.add(doc.index)
            elif verdict == "foreign":
                foreign.add(doc.index)
        if self.options.target_version:
            problems.extend(_upgrade_problems(documents, self.options.target_version, release))
        for fixer in self.options.fixers:
            fixer(problems, documents)
        return _soften_outside_dra(disabled_once_per_file(_merge_overlaps(problems)), dra, foreign)

    def _gate_state(self, release: str, gates: dict[str, bool]) -> GateState:
        """The cluster's gates at `release`: the options' overrides, a file's own over them."""
        key = (release, tuple(sorted(gates.items())))
        state = self.gate_states.get(key)
        if state is None:
            state = self.gate_states[key] = GateState(release, {**self.options.feature_gates, **gates})
        return state

    def _check_document(self, doc: Document, release: str, problems: list[Problem], gates: dict[str, bool]) -> str:
        result = self.result
        result.documents += 1
        if self.retain.objects:
            result.objects.append(DocumentSummary(doc.source, doc.index, doc.list_item, doc.kind, doc.object_ref))
        resolution = resolve(doc, release)
        problems.extend(resolution.problems)
        state = self._gate_state(release, gates)
        dropped: tuple[Dropped, ...] = ()
        if resolution.info is not None:
            result.checked += 1
            schema_problems = check_schema(doc, schemas.catalog(release).schema(doc.api_version, doc.kind))
            # What the API server validates: the fields of gates that are off dropped, as on create.
            doc, dropped = drop_disabled_fields(doc, state)
            problems.extend(_decoded(schema_problems, dropped) if dropped else schema_problems)
        view = DocumentView(doc, release, self.options.rule_options, lazy_places=not self.retain.settle, feature_gates=state.overrides, dropped=dropped)
        if self.run_rules:
            self._collect(view, problems)
        table = self._rules_for(release, view.api_version, view.kind)
        applicable = table.rules
        if not resolution.is_dra and not applicable and not resolution.problems:
            result.passed_over += 1
        # A DRA object the release does not serve has no schema to hold the rules' assumptions to.
        if applicable and not (resolution.is_dra and resolution.info is None):
            problems.extend(run_document_rules(table.for_document(view.data), view))
        if resolution.is_dra:
            return "dra"
        return "object" if resolution.is_object else "foreign"

    def _collect(self, view: DocumentView, problems: list[Problem]) -> None:
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
        """Move the problems of a rendered stream's documents into the files they came from (dralint.origins)."""
        if self.origins is None:
            self.origins = Origins()
        self.origins.relocate(problems, rendered)
        if self.retain.texts:
            for p in problems:
                if p.origin is not None and p.origin.found and p.source not in self.result.texts:
                    self.result.texts[p.source] = self.origins.data(p.source)

    def _patch_of(self, name: str) -> Patch | None:
        """The kustomize patch a file is (dralint.kustomize), or None; not looked for in stdin or an admission."""
        if name == "-" or name.startswith("<"):
            return None
        if self.kustomizations is None:
            self.kustomizations = Kustomizations()
        return self.kustomizations.patch_of(name)

    def _suppressor(self) -> "Suppressor":
        """Made for the first file with a `# dralint:` comment, or at the start with `ignore-paths`."""
        # Imported then: its dataclasses and difflib are ~8 ms of every clean file's start-up.
        from .suppress import Suppressor

        return Suppressor(self.selection, self.known, self.options.ignore_paths, self.options.inline_suppressions)

    def _rules_for(self, release: str, api_version: str | None, kind: str | None) -> Dispatch:
        key = (release, api_version, kind)
        table = self.rules_by_type.get(key)
        if table is None:
            table = self.rules_by_type[key] = Dispatch([r for r in self.document_rules if r.applies_to(api_version, kind, release)])
        return table


def _in_report_order(listed: list[Problem], late: list[Problem], messages: dict[str, str]) -> list[Problem]:
    """The problems listed file by file and the run-scope ones (capped per file, counting what the file
    listed), sorted as reports show them: by source, then document, line, column, rule and message.

    Sorted file by file, which gives what one stable sort of the whole list gives: a run with
    160,000 problems holds the sort keys of one file at a time, not 160,000 of them at once.
    """
    groups: dict[str, list[Problem]] = {}
    for p in listed:
        groups.setdefault(p.source, []).append(p)
    first_late: dict[str, int] = {}  # where each file's run-scope problems start in its group
    for p in late:
        p.message = messages.setdefault(p.message, p.message)
        group = groups.setdefault(p.source, [])
        first_late.setdefault(p.source, len(group))
        group.append(p)
    for source, start in first_late.items():
        group = groups[source]
        if len(group) > MAX_PROBLEMS_PER_DOCUMENT:
            group[start:] = _capped(group[start:], start)
    ordered: list[Problem] = []
    for source in sorted(groups):
        group = groups.pop(source)
        group.sort(key=Problem.sort_key)
        ordered.extend(group)
    return ordered


def _capped(problems: list[Problem], listed: int = 0) -> list[Problem]:
    """At most MAX_PROBLEMS_PER_DOCUMENT of a document and MAX_PROBLEMS_PER_FILE of a file, then one
    DRA005 saying how many more: 30,000 broken claims in one file must not cost 100,000 Problems.
    `listed`: how many of the file's problems were listed before (run-scope rules report at the end).

    The DRA005 has the highest severity of the problems it stands for, as selection and `severity`
    left them: 104 infos about a valid claim are not an error, and must not fail a run or deny it."""
    if len(problems) + listed <= MAX_PROBLEMS_PER_DOCUMENT:
        return problems
    kept: list[Problem] = []
    per_document: dict[int, int] = {}
    dropped: dict[int, list] = {}  # document, or -1 for the rest of the file -> [first dropped, count, highest severity]
    for p in problems:
        count = per_document.get(p.document, 0)
        if count < MAX_PROBLEMS_PER_DOCUMENT and len(kept) + listed < MAX_PROBLEMS_PER_FILE:
            per_document[p.document] = count + 1
            kept.append(p)
            continue
        key = p.document if len(kept) + listed < MAX_PROBLEMS_PER_FILE else -1
        entry = dropped.setdefault(key, [p, 0, p.severity])
        entry[1] += 1
        entry[2] = max(entry[2], p.severity)
    for key, (first, count, severity) in dropped.items():
        where = "this file" if key == -1 else "this document"
        limit = MAX_PROBLEMS_PER_FILE if key == -1 else MAX_PROBLEMS_PER_DOCUMENT
        kept.append(
            Problem(
                rule="DRA005", name=ENGINE_CHECKS["DRA005"].slug, severity=severity,
                message=f"{count} more problems in {where} were not listed (at most {limit} are); this is where the first of them is",
                source=first.source, document=first.document, span=first.span,
            )
        )
    return kept


def _upgrade_problems(documents: list[Document], target: str, release: str) -> list[Problem]:
    """DRA020/DRA021: the upgrade check, judged from the release each file is written for."""
    # Imported only with --target-version: its dataclasses are ~5 ms of a clean file's start-up.
    from .lifecycle import upgrade_problems

    problems: list[Problem] = []
    seen: set[tuple[int, int | None]] = set()
    for doc in documents:
        key = (doc.index, doc.list_item)
        if key not in seen:
            seen.add(key)
            problems.extend(upgrade_problems(doc, target, release))
    return problems


def _merge_overlaps(problems: list[Problem]) -> list[Problem]:
    """One mistake, one problem: a rule's finding replaces the schema's at the same path and error type.

    The schema says "missing required field"; the rule for the same field says
    what the API server of this release answers, which is more precise.
    """
    by_rule = {(p.document, p.path, p.error_type): p for p in problems if not p.rule.startswith("DRA1")}
    if not by_rule:
        return problems
    kept = []
    for p in problems:
        precise = by_rule.get((p.document, p.path, p.error_type)) if p.rule.startswith("DRA1") and p.error_type else None
        if precise is None:
            kept.append(p)
        else:
            precise.adopt_fixes(p)  # the schema knows how to repair what the rule explains
    return kept


# What decoding rejects before the registry strategy drops anything: an unknown field (strict
# decoding), a value of the wrong JSON type, or one that does not parse (a quantity, an int64 out of
# range) fails the request even inside a field that would be dropped.
_DECODE_TIME = frozenset({"DRA101", "DRA103", "DRA105"})


def _decoded(schema_problems: list[Problem], dropped) -> list[Problem]:
    """The schema problems the API server reports when `dropped` fields are removed before validation.

    Required fields, enums, formats and bounds are validation (after PrepareForCreate drops the
    fields of disabled gates), so inside a dropped field they are never judged; decoding errors are.
    """
    cut = [d.path for d in dropped]
    return [p for p in schema_problems
            if p.rule in _DECODE_TIME or not any(p.path[:len(c)] == c for c in cut)]


def _soften_outside_dra(problems: list[Problem], dra: set[int], foreign: set[int]) -> list[Problem]:
    """Key problems outside resource.k8s.io: warnings in other Kubernetes objects, nothing in other YAML.

    dralint judges DRA objects; for the Deployments and ConfigMaps around them
    it points out a duplicate or non-string key without failing the build over
    an object it does not otherwise check. YAML that is no Kubernetes object
    (a GitHub workflow's `on:` key is a boolean to YAML 1.1) is not its business.
    """
    kept = []
    for p in problems:
        if p.rule in ("DRA002", "DRA008") and p.document not in dra:
            if p.document in foreign:
                continue
            p.severity = Severity.WARNING
            p.message += " (in an object outside resource.k8s.io)"
        kept.append(p)
    return kept


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


__all__ = ["LintOptions", "LintResult", "DocumentSummary", "PartialResult", "lint", "lint_documents", "known_codes"]
