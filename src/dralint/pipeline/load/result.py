"""What a load produces: documents and problems, with a cap on how many problems a file keeps."""

from __future__ import annotations

from ...catalog import check
from ...lines import LineTable
from ...model import Document, Path, Problem, Span
from .lazy_table import ListItems, Tables, lazy_table
from .scalars import describe

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["LoadResult", "Sink", "MAX_NODES", "MAX_DEPTH", "MAX_PROBLEMS_PER_DOCUMENT", "MAX_PROBLEMS_PER_FILE"]

MAX_NODES = 100_000  # nodes per document after alias expansion
MAX_DEPTH = 100  # nesting of mappings/sequences per document

# Past these, problems are counted, not kept: 400,000 repeated keys must not cost 400,000 Problems.
MAX_PROBLEMS_PER_DOCUMENT = 100
MAX_PROBLEMS_PER_FILE = 1000
_REST_OF_FILE = -1  # the key under which problems past the file's cap are counted

class LoadResult:
    __slots__ = ("documents", "problems", "empty", "late_problems")

    def __init__(self) -> None:
        self.documents: list[Document] = []
        self.problems: list[Problem] = []
        self.empty = 0  # empty documents skipped (e.g. a trailing `---`)
        # Problems found after load() returned: a position table that could not be built when first read
        # (DRA901). Read it once the problems' positions have been computed.
        self.late_problems: list[Problem] = []


def problem(code: str, message: str, source: str, document: int, span: Span, path: Path = ()) -> Problem:
    c = check(code)
    return Problem(rule=c.code, name=c.slug, severity=c.severity, message=message, source=source,
                   document=document, path=path, span=span)


class Sink:
    """Collects one source's documents and problems while it is read."""

    __slots__ = ("source", "text", "lines", "result", "keep_lists", "positioned", "parser_coordinates", "_per_document", "_dropped", "_converted")

    def __init__(self, source: str, text: str, result: LoadResult) -> None:
        self.source = source
        self.text = text
        self.lines = LineTable(text)
        self.result = result
        # Top-level lists kept as documents (a JSON 6902 patch is a list of operations), not DRA003.
        self.keep_lists = False
        self.positioned: frozenset[str] = frozenset()  # keys whose places the reader notes (load's `positioned`)
        # True while problems are positioned as the YAML parser counts lines (see lines.py); JSON's are not.
        self.parser_coordinates = False
        self._per_document: dict[int, int] = {}
        # document (or _REST_OF_FILE) -> (problems not kept, document and span of the first)
        self._dropped: dict[int, tuple[int, int, Span]] = {}
        self._converted: set[int] = set()  # ids of problems positioned from a (converted) position table

    def add(self, code: str, message: str, document: int, span: Span, path: Path = (), *,
            converted: bool = False) -> None:
        """Record a problem, or only count it once its document or the file has too many.

        `converted`: the span comes from a position table, already in the editors' convention.
        """
        kept = self._per_document.get(document, 0)
        if kept >= MAX_PROBLEMS_PER_DOCUMENT or len(self.result.problems) >= MAX_PROBLEMS_PER_FILE:
            self.drop(document, 1, span)
            return
        self._per_document[document] = kept + 1
        self.result.problems.append(problem(code, message, self.source, document, span, path))
        if converted:
            self._converted.add(id(self.result.problems[-1]))

    def drop(self, document: int, count: int, span: Span) -> None:
        """Count problems that are not kept: per document, or for the rest of the file once it has too many."""
        key = document
        if len(self.result.problems) >= MAX_PROBLEMS_PER_FILE and document not in self._dropped:
            key = _REST_OF_FILE
        dropped, first_document, first = self._dropped.get(key, (0, document, span))
        self._dropped[key] = (dropped + count, first_document, first)

    def finish(self) -> None:
        """Positions inside the file and in the editors' convention; a last problem per capped document."""
        result = self.result
        for key, (count, doc, span) in self._dropped.items():
            if key == _REST_OF_FILE:
                message = (f"{count} more problems in this file were not listed (at most {MAX_PROBLEMS_PER_FILE} "
                           "a file are); this is where the first of them is")
            else:
                message = (f"{count} more problems in this document were not listed (at most "
                           f"{MAX_PROBLEMS_PER_DOCUMENT} a document are); this is where the first of them is")
            result.problems.append(problem("DRA005", message, self.source, doc, span))
        lines = self.lines
        for p in result.problems:
            p.span = lines.inside(p.span, self.parser_coordinates and id(p) not in self._converted)
        result.problems.sort(key=lambda p: (p.document, p.span.line, p.span.column))

    def document(self, root: dict, tables: Callable[[], Tables], doc_index: int) -> None:
        """Add a document, or the items of a `kind: List`, whose tables are computed by `tables()`."""
        entries = root.get("items") if isinstance(root, dict) else None
        if entries is not None and root.get("kind") == "List" and isinstance(entries, list) and root.get("apiVersion", "v1") == "v1":
            items = ListItems(tables)
            for i, item in enumerate(entries):
                if not isinstance(item, dict):
                    pos = tables()[0]
                    node = pos.get(("items", i)) or pos.get(("items",)) or pos.get(())
                    self.add("DRA003", f"item {i} of the List is {describe(item)}, not an object", doc_index,
                             node.value if node else Span.point(), ("items", i), converted=True)
                    continue
                fill = items.item(i)
                self.result.documents.append(Document(
                    source=self.source, index=doc_index, data=item, positions=lazy_table(fill, 0, getattr(fill, "lookup", None)),
                    text=self.text, scalar_styles=lazy_table(fill, 1, getattr(fill, "style", None)), list_item=i))
            return
        self.result.documents.append(Document(
            source=self.source, index=doc_index, data=root, positions=lazy_table(tables, 0, getattr(tables, "lookup", None)),
            text=self.text, scalar_styles=lazy_table(tables, 1, getattr(tables, "style", None))))

    def not_an_object(self, value: Any, doc_index: int, span: Span) -> None:
        what = "a list" if isinstance(value, list) else f"a scalar ({describe(value)})"
        self.add("DRA003", f"the document is {what}, not an object; a Kubernetes manifest is a mapping "
                 "with apiVersion, kind and metadata", doc_index, span)
