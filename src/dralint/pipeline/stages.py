"""The stages of one file and of one document, in the order a run applies them.

`FILE_STAGES` take a file from its bytes to its kept problems; the document stage of that list
runs `DOCUMENT_STAGES` over each document. A stage reads and writes the work record it is given
and the run's state (`dralint.pipeline.run._Run`: counts, run-scope records, suppressions, what
the retention policy keeps); it returns False when the file or document needs nothing further
(an unreadable file). What must stay true: the order below is the order of the data flow (read →
triage → load → resolve → schema → rules → run-scope records → suppress/select → settle), and a
stage never reaches back to one before it.
"""

from __future__ import annotations

from .. import schemas
from ..api import DocumentView
from ..catalog import ENGINE_CHECKS
from ..model import Document, Problem, Severity
from .drop import Dropped, GateState, drop_disabled_fields
from .engine import run_document_rules
from .gate_settings import file_gates
from .kustomize import Patch, as_patches
from .load import load
from .origins import rendered_documents
from .partial import DocumentSummary
from .releases import file_release
from .resolve import Resolution, disabled_once_per_file, resolve
from .schema_check import check_schema
from .sources import Source
from .triage import Triaged, passed_over_unread, triage

# The run whose state a stage reads and writes (dralint.pipeline.run._Run). Not imported: the run
# imports the stages, and the stages must not know more of the run than the attributes they use.
TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable
    _Run = Any


class FileWork:
    """One file on its way through FILE_STAGES."""

    __slots__ = ("source", "release", "gates", "problems", "documents", "late", "rendered", "text")

    def __init__(self, source: Source):
        self.source = source
        self.release = ""
        self.gates: dict[str, bool] = {}
        self.problems: list[Problem] = []
        self.documents: list[Document] = []
        self.late: list[Problem] = []  # what a position table finds while positions are computed
        self.rendered: dict[int, Document] | None = None  # documents of a rendered stream naming their origin
        self.text: str | None = None


class DocumentWork:
    """One document on its way through DOCUMENT_STAGES; `problems` is its file's list."""

    __slots__ = ("doc", "release", "state", "problems", "resolution", "dropped", "view")

    def __init__(self, doc: Document, release: str, state: GateState, problems: list[Problem]):
        self.doc = doc
        self.release = release
        self.state = state
        self.problems = problems
        self.resolution: Resolution | None = None
        self.dropped: tuple[Dropped, ...] = ()
        self.view: DocumentView | None = None


# --- the file's stages ---------------------------------------------------------------------

def read_comments(run: _Run, work: FileWork) -> bool:
    """Read: an unreadable file is one DRA006; a readable one's release and gate comments."""
    source = work.source
    if source.data is None:
        run.add(source.name, None, [_unreadable(source)])
        return False
    work.release, work.problems = file_release(source.name, source.data, run.options.release)
    work.gates, gate_problems = file_gates(source.name, source.data, work.release)
    work.problems.extend(gate_problems)
    return True


def load_documents(run: _Run, work: FileWork) -> bool:
    """Triage and load: the file's documents (a kustomize patch as a part of an object), or none."""
    source = work.source
    patch = run.patch_of(source.name)
    loaded = passed_over_unread(source.name, source.data) if patch is None else None
    if loaded is None:
        raw = load(source.name, source.data, size=source.size, lists=patch is not None, positioned=run.positioned)
        loaded = triage(source.name, source.data, raw)
        work.late = raw.late_problems
        if patch is not None and raw.documents and not any(p.rule == "DRA014" for p in loaded.problems):
            loaded = _as_patches(patch, raw.documents, loaded)
    result = run.result
    if loaded.passed_over:
        result.files_passed_over += 1
        if run.retain.objects:
            result.passed_over_files.append(source.name)
    result.empty += loaded.empty
    work.problems.extend(loaded.problems)
    work.documents = loaded.documents
    work.rendered = rendered_documents(source.data, loaded.documents) if run.options.origins else None
    work.text = loaded.documents[0].text if loaded.documents else None
    return True


def judge_documents(run: _Run, work: FileWork) -> bool:
    """Resolve, schema, rules and run-scope records of every document, then the file's own checks."""
    work.problems = run.judge(work.documents, work.release, work.problems, work.gates)
    return True


def note_suppressions(run: _Run, work: FileWork) -> bool:
    """The file's `# dralint:` comments, read once the file has one (or `ignore-paths` is set)."""
    if run.suppressor is None and run.options.inline_suppressions and b"dralint" in work.source.data:
        run.suppressor = run.new_suppressor()
    if run.suppressor is not None:
        run.suppressor.add_source(work.source.name, work.text, work.documents)
    return True


def keep(run: _Run, work: FileWork) -> bool:
    """Suppress, select, cap and settle the file's problems; keep what the run judges at the end."""
    name = work.source.name
    run.add(name, work.source.data, work.problems, work.rendered)
    if work.rendered:
        run.rendered[name] = work.rendered  # for the run-scope problems judged at the end
    # Settled runs have computed every position of this file's problems by now; the others do in finish().
    if work.late or not run.retain.settle:
        run.late.append(work.late)
    return True


if TYPE_CHECKING:
    FileStage = Callable[[_Run, FileWork], bool]
FILE_STAGES: tuple[FileStage, ...] = (read_comments, load_documents, judge_documents, note_suppressions, keep)


# --- a document's stages -------------------------------------------------------------------

def resolve_type(run: _Run, work: DocumentWork) -> bool:
    """Resolve: apiVersion and kind to the release's type, or why not."""
    result = run.result
    result.documents += 1
    doc = work.doc
    if run.retain.objects:
        result.objects.append(DocumentSummary(doc.source, doc.index, doc.list_item, doc.kind, doc.object_ref))
    work.resolution = resolve(doc, work.release)
    work.problems.extend(work.resolution.problems)
    return True


def check_schema_and_drop(run: _Run, work: DocumentWork) -> bool:
    """Schema, then what the API server validates: the fields of gates that are off dropped, as on create."""
    if work.resolution.info is None:
        return True
    run.result.checked += 1
    doc = work.doc
    schema_problems = check_schema(doc, schemas.catalog(work.release).schema(doc.api_version, doc.kind))
    work.doc, work.dropped = drop_disabled_fields(doc, work.state)
    work.problems.extend(_decoded(schema_problems, work.dropped) if work.dropped else schema_problems)
    return True


def view_and_collect(run: _Run, work: DocumentWork) -> bool:
    """The rules' view of the document, and what the run-scope rules keep of it."""
    work.view = DocumentView(
        work.doc, work.release, run.options.rule_options, lazy_places=not run.retain.settle,
        feature_gates=work.state.overrides, dropped=work.dropped,
    )
    if run.run_rules:
        run.collect(work.view, work.problems)
    return True


def apply_rules(run: _Run, work: DocumentWork) -> bool:
    """The document rules that apply to its type and can fire on its fields (dralint.pipeline.dispatch)."""
    view, resolution = work.view, work.resolution
    table = run.rules_for(work.release, view.api_version, view.kind)
    applicable = table.rules
    if not resolution.is_dra and not applicable and not resolution.problems:
        run.result.passed_over += 1
    # A DRA object the release does not serve has no schema to hold the rules' assumptions to.
    if applicable and not (resolution.is_dra and resolution.info is None):
        work.problems.extend(run_document_rules(table.for_document(view.data), view))
    return True


if TYPE_CHECKING:
    DocumentStage = Callable[[_Run, DocumentWork], bool]
DOCUMENT_STAGES: tuple[DocumentStage, ...] = (resolve_type, check_schema_and_drop, view_and_collect, apply_rules)


# --- a file's own checks, after its documents ------------------------------------------------

def file_checks(documents: list[Document], problems: list[Problem], dra: set[int], foreign: set[int], run: _Run, release: str) -> list[Problem]:
    """The upgrade check and the fixers, then one problem per mistake, and key problems outside DRA softened."""
    target = run.options.target_version
    if target:
        problems.extend(_upgrade_problems(documents, target, release))
    for fixer in run.options.fixers:
        fixer(problems, documents)
    return _soften_outside_dra(disabled_once_per_file(_merge_overlaps(problems)), dra, foreign)


def _as_patches(patch: Patch, documents: list[Document], loaded: Triaged) -> Triaged:
    # A patch is judged as a part of an object (a JSON 6902 list of operations too), unless it is a
    # template (DRA014) or the loader could not read it.
    return Triaged(as_patches(patch, documents), loaded.problems, loaded.empty, passed_over=False)


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
