"""What checking files contributes to a run before the run-scope rules judge it: a `PartialResult`.

One file's partial, a chunk's (dralint.pipeline.parallel: a worker's files) and a whole run's are the same
value: a chunk's is the merge of its files', in file order, and a run (dralint.pipeline.run) judges the
run-scope rules, the unused suppressions and the ignore-paths entries over the merge of all of them,
so the report is the one a single serial run gives, byte for byte.

A partial of a run that settles (`LintOptions.keep` set: the CLI) is plain data: its problems hold
their positions and fixes, not the documents or the functions that compute them; the rendered
documents are copies with their positions computed (dralint.pipeline.origins.portable); the suppressor leaves
its indexes behind. It pickles (a worker sends it to its parent) and can be stored. A partial holds
nothing of the legacy run-scope rules (no `collect`): they need every document in one process.
"""

from __future__ import annotations

from ..model import Document, Problem, Record, Severity
from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from ..api import Place
    from .suppress import Suppressor


class DocumentSummary(NamedRecord):
    """What a report needs to know of a document once the document itself is gone."""

    __slots__ = ()

    def __new__(_cls, source: str, index: int, list_item: int | None, kind: str | None, object: str | None) -> "DocumentSummary":
        return tuple_new(_cls, (source, index, list_item, kind, object))


class LintResult(Record):
    __slots__ = ("problems", "files", "documents", "checked", "passed_over", "passed_over_files", "files_passed_over", "empty", "objects", "source_names", "texts")

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.files = 0
        self.documents = 0  # every object found, DRA or not
        self.checked = 0  # DRA objects checked against a schema
        self.passed_over = 0  # objects outside resource.k8s.io that no rule applied to
        self.files_passed_over = 0  # files without a Kubernetes object (dralint.pipeline.triage)
        self.passed_over_files: list[str] = []  # their names, unless LintOptions.keep leaves "objects" out
        self.empty = 0
        self.objects: list[DocumentSummary] = []  # unless LintOptions.keep leaves "objects" out
        self.source_names: list[str] = []  # likewise
        # Raw bytes of the sources that have problems, for formatters that quote the offending line.
        self.texts: dict[str, bytes] = {}

    def count(self, severity: Severity) -> int:
        return sum(1 for p in self.problems if p.severity == severity)

    def merge(self, other: "LintResult") -> None:
        """Add what `other` found in the files that follow these."""
        self.problems.extend(other.problems)
        self.files += other.files
        self.documents += other.documents
        self.checked += other.checked
        self.passed_over += other.passed_over
        self.files_passed_over += other.files_passed_over
        self.empty += other.empty
        self.passed_over_files.extend(other.passed_over_files)
        self.objects.extend(other.objects)
        self.source_names.extend(other.source_names)
        self.texts.update(other.texts)


class Retention(Record):
    """What a run keeps of each file once it is checked: the one policy that tells the streaming CLI
    from the Python API, read from `LintOptions.keep` (what the report reads besides problems).

    settle   compute every kept problem's position (and fixes, if `fixes`) while the file's documents
             are at hand, so they go with the file: no document outlives its file, memory does not
             grow with the repository, and the partial result is plain data. Off (keep None: the API,
             the language server), positions and fixes are computed when read, from the documents.
    texts    the bytes of files with problems, to quote lines
    objects  every document's and file's name (junit)
    fixes    the problems' fixes (json, sarif); with `settle` off they are always there, built when read
    """

    __slots__ = ("settle", "texts", "objects", "fixes")

    def __init__(self, keep: frozenset[str] | None):
        self.settle = keep is not None
        self.texts = keep is None or "texts" in keep
        self.objects = keep is None or "objects" in keep
        self.fixes = keep is not None and "fixes" in keep


# release -> run-scope collector key (dralint.pipeline.engine.collectors) -> records, in file order
Records = dict[str, dict[str, list]]


class PartialResult(Record):
    """What some files contribute to a run, before run-scope judging.

    result      the files' problems (suppressed, selected and capped per file; settled when the run
                settles), counters, the names and texts a report reads
    records     the run-scope records they hold, per release and collector
    first       per release, the first document met at it: where a failing run-scope rule reports
    late        problems a position table found while the problems' positions were computed
    suppressor  the `# dralint:` comments and the ignore-paths entries met and used (None: none);
                unused ones are judged only over every file of the run
    rendered    per source, the documents of a rendered stream that name their origin (dralint.pipeline.origins),
                for moving the run-scope problems judged at the end
    """

    __slots__ = ("result", "records", "first", "late", "suppressor", "rendered")

    def __init__(
        self,
        result: LintResult | None = None,
        records: Records | None = None,
        first: "dict[str, Place] | None" = None,
        late: list[Problem] | None = None,
        suppressor: "Suppressor | None" = None,
        rendered: dict[str, dict[int, Document]] | None = None,
    ):
        self.result = result if result is not None else LintResult()
        self.records: Records = records if records is not None else {}
        self.first: dict[str, Place] = first if first is not None else {}
        self.late: list[Problem] = late if late is not None else []
        self.suppressor = suppressor
        self.rendered: dict[str, dict[int, Document]] = rendered if rendered is not None else {}

    def merge(self, other: "PartialResult") -> None:
        """Add `other`, of the files that follow these: as if one run had checked them all."""
        self.rendered.update(other.rendered)
        self.result.merge(other.result)
        for release, by_key in other.records.items():
            if release not in self.first:  # `other.first` need not hold a release these have (result_cache.merge)
                self.first[release] = other.first[release]
            mine = self.records.setdefault(release, {})
            for key, found in by_key.items():
                mine.setdefault(key, []).extend(found)
        self.late.extend(other.late)
        if other.suppressor is not None:
            if self.suppressor is None:
                self.suppressor = other.suppressor
            else:
                self.suppressor.absorb(other.suppressor)


__all__ = ["PartialResult", "Retention", "LintResult", "DocumentSummary", "Records"]
