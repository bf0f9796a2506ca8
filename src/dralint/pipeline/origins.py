"""Origins of rendered streams: a problem of `helm template` or `kustomize build` output, in the file it came from.

A rendered stream says where each document was written:

* Helm puts `# Source: CHART/templates/FILE` before each document;
* kustomize, with `buildMetadata: [originAnnotations]`, annotates each object with
  `config.kubernetes.io/origin`, a YAML string whose `path:` is the resource file
  (relative to the kustomization that was built).

A problem in such a document names that file (Problem.origin). When the file can
be read from the working directory, the problem is moved there: to the line where
the offending key or value is written when that is unambiguous, else to the start
of the document in that file; the stream's position stays in Problem.origin. So
`--format github` and `sarif` annotate the template or base in the pull request,
not a stream nobody wrote. Its fixes are dropped: they edit the stream.

Where the file is looked for, only under the working directory (a report quotes
lines of it): the path as written; for Helm also without the chart's name (run from the chart's folder)
and one or two folders down (`charts/CHART/...`, found once, else not at all);
for kustomize also without leading `../` (the paths are relative to the built
kustomization, which is usually that many folders below the repository root).

This runs after suppressions and selection, on the problems that are reported:
it moves positions, it judges nothing.
"""

from __future__ import annotations

import os
import re

from ..lazy_re import LazyPattern
from ..model import Document, Origin, Path, Problem, Span, value_at
from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

ANNOTATION = "config.kubernetes.io/origin"
_MARKERS = (b"# Source: ", ANNOTATION.encode())
# Only rendered streams (may_name_origins) need these: compiled on first use.
_HELM_SOURCE = LazyPattern(r"^#\s*Source:\s*(\S.*?)\s*$")
_ORIGIN_PATH = LazyPattern(r"^\s*path:\s*['\"]?(.*?)['\"]?\s*$", re.MULTILINE)
_SEPARATOR = LazyPattern(r"^---")
_TYPE_KEY = LazyPattern(r"^(?:apiVersion|kind)\s*:")
MAX_FILE = 4 * 1024 * 1024
MAX_FILES = 256  # origin files kept read in one run


class Named(NamedRecord):
    """What a rendered document says of its origin: by whom ("helm" or "kustomize"), which file, and
    how many documents of the stream that file had rendered before this one."""

    __slots__ = ()

    def __new__(_cls, tool: str, path: str, nth: int) -> "Named":
        return tuple_new(_cls, (tool, path, nth))


def may_name_origins(data: bytes) -> bool:
    """Whether a source may be a rendered stream: cheap, so that other files pay nothing."""
    source, annotation = _MARKERS
    return source in data or annotation in data


def name_origins(documents: list[Document]) -> None:
    """Set `origin` on each document of one source that names where it was written."""
    seen: dict[str, int] = {}
    lines: list[str] | None = None
    for doc in documents:
        named = _annotated(doc.data)
        tool = "kustomize"
        if named is None and doc.text is not None:
            if lines is None:
                lines = doc.text.split("\n")
            named = _helm_source(lines, doc)
            tool = "helm"
        if named is None:
            continue
        nth = seen.get(named, 0)
        seen[named] = nth + 1
        doc.origin = Named(tool, named, nth)


def _annotated(data: Any) -> str | None:
    meta = data.get("metadata") if isinstance(data, dict) else None
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    value = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
    if not isinstance(value, str):
        return None
    match = _ORIGIN_PATH.search(value)
    return match.group(1) if match and match.group(1) else None


def _helm_source(lines: list[str], doc: Document) -> str | None:
    """The `# Source:` comment between the document's start and the separator above it."""
    root = doc.positions.get(())
    if root is None:
        return None
    i = root.value.line - 2  # the line above the document's first line, 0-based
    while i >= 0 and not _SEPARATOR.match(lines[i]):
        match = _HELM_SOURCE.match(lines[i])
        if match:
            return match.group(1)
        i -= 1
    return None


def portable(doc: Document) -> Document:
    """A rendered document as a worker sends it back (its positions computed: a lazy table holds functions),
    so that the parent moves the run-scope problems judged at the end to the document's origin too."""
    copy = Document(doc.source, doc.index, doc.data, dict(doc.positions.items()), doc.text, None, doc.list_item)
    copy.origin = doc.origin
    return copy


def rendered_documents(data: bytes, documents: list[Document]) -> dict[int, Document] | None:
    """The documents of a rendered stream that name the file they came from, by index; None for other sources."""
    if not documents or not may_name_origins(data):
        return None
    name_origins(documents)
    return {doc.index: doc for doc in documents if doc.origin is not None} or None


class _Read(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        name: str,  # as reported: the path found, relative to the working directory
        text: str,
        documents: list[Document] | None,  # kustomize: the file loaded; Helm: None (a template is no YAML)
    ) -> "_Read":
        return tuple_new(_cls, (name, text, documents))


class Origins:
    """Moves the problems of rendered documents into the files they name; each file read once."""

    def __init__(self) -> None:
        self._files: dict[tuple[str, str], _Read | None] = {}

    def relocate(self, problems: list[Problem], documents: dict[int, Document]) -> None:
        """Move each problem of a document (by index) that names its origin."""
        for p in problems:
            doc = documents.get(p.document)
            named = doc.origin if doc is not None else None
            if named is None or p.origin is not None:
                continue
            read = self._read(named)
            stream_span = p.span
            if read is None:
                p.origin = Origin(named.path, False, p.source, stream_span)
                continue
            span = _kustomize_span(read, doc, p) if read.documents is not None else _helm_span(read, named, doc, p)
            p.origin = Origin(read.name, True, p.source, stream_span)
            p.source = read.name
            p.span = span
            p.fixes = ()  # they edit the stream

    def data(self, name: str) -> bytes:
        """The bytes of an origin file problems were moved into (for reports that quote lines)."""
        read = next(r for r in self._files.values() if r is not None and r.name == name)
        return read.text.encode("utf-8")

    def _read(self, named: Named) -> _Read | None:
        key = (named.tool, named.path)
        if key in self._files:
            return self._files[key]
        found = None
        if len(self._files) < MAX_FILES:
            for candidate in _candidates(named):
                found = _read_file(candidate, named.tool)
                if found is not None:
                    break
        self._files[key] = found
        return found


def _candidates(named: Named) -> list[str]:
    path = named.path
    if "://" in path or os.path.isabs(path):
        return []
    out = [path]
    if named.tool == "helm" and "/" in path:
        out.append(path.split("/", 1)[1])  # run from inside the chart
    if named.tool == "kustomize":
        stripped = path
        while stripped.startswith("../"):
            stripped = stripped[3:]
        out.append(stripped)
    found = [os.path.normpath(p) for p in dict.fromkeys(out)]
    if named.tool == "helm":
        import glob  # off the start-up path: only a Helm-rendered origin looks for its chart

        # Rendered from the repository's root: the chart one or two folders down (charts/, deploy/helm/).
        for depth in ("*", os.path.join("*", "*")):
            matches = glob.glob(os.path.join(depth, glob.escape(path)))
            if len(matches) == 1:
                found.append(os.path.normpath(matches[0]))
                break
    return found


def _inside_working_directory(path: str) -> bool:
    """Only files under the working directory: a stream names its sources, and a report quotes their lines
    (a stream saying `# Source: ../../.ssh/id_rsa` must not put that file in a CI log)."""
    here = os.path.realpath(os.getcwd())
    try:
        return os.path.commonpath([here, os.path.realpath(path)]) == here
    except ValueError:  # another drive
        return False


def _read_file(path: str, tool: str) -> _Read | None:
    try:
        if not _inside_working_directory(path) or not os.path.isfile(path) or os.path.getsize(path) > MAX_FILE:
            return None
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    text = data.decode("utf-8", "replace")
    if tool == "helm":
        return _Read(path, text, None)
    from .load import load  # the origin file is read as the project reads any file

    return _Read(path, text, load(path, data).documents)


# ---------------------------------------------------------------------------
# kustomize: the origin file is YAML; the same field path, if it holds the same value there.


def _kustomize_span(read: _Read, rendered: Document, p: Problem) -> Span:
    source = _matching_document(read.documents or [], rendered)
    if source is None:
        return Span.point()
    start = source.positions.get(())
    doc_start = Span.point(start.value.line, start.value.column) if start else Span.point()
    located = _located(rendered, p.path)
    if located is None or not _present(source.data, located):
        return doc_start
    if located == p.path and value_at(source.data, located) != value_at(rendered.data, located):
        return doc_start  # the stream's value came from elsewhere (a patch, a generator)
    node = rendered.positions.get(located)
    at_key = node is not None and node.key is not None and node.key == p.span
    return source.locate(located, prefer_key=at_key)


def _matching_document(documents: list[Document], rendered: Document) -> Document | None:
    same_kind = [d for d in documents if d.kind == rendered.kind]
    if len(same_kind) == 1:
        return same_kind[0]
    name = _name(rendered.data)
    named = [d for d in same_kind if name is not None and _name(d.data) is not None and _name(d.data) in name]
    return named[0] if len(named) == 1 else None


def _name(data: Any) -> str | None:
    meta = data.get("metadata") if isinstance(data, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else None


def _located(doc: Document, path: Path) -> Path | None:
    """The longest prefix of `path` the rendered document has: where its problem points."""
    for end in range(len(path), -1, -1):
        if _present(doc.data, path[:end]):
            return path[:end]
    return None


def _present(data: Any, path: Path) -> bool:
    return value_at(data, path, _ABSENT) is not _ABSENT


_ABSENT = object()


# ---------------------------------------------------------------------------
# Helm: the origin file is a Go template; the line that writes the same text, or the same key.


def _helm_span(read: _Read, named: Named, rendered: Document, p: Problem) -> Span:
    lines = read.text.split("\n")
    start, end = _chunk(lines, named.nth)
    doc_start = Span.point(start + 1, 1)
    stream = (rendered.text or "").split("\n")
    if not 1 <= p.span.line <= len(stream):
        return doc_start
    written = stream[p.span.line - 1]
    content = written.strip()
    if content:
        same = [i for i in range(start, end) if lines[i].strip() == content]
        if len(same) == 1:
            i = same[0]
            shift = lines[i].index(content) - written.index(content)
            end_column = p.span.end_column + shift if p.span.end_line == p.span.line else len(lines[i]) + 1
            return Span(i + 1, max(p.span.column + shift, 1), i + 1, max(end_column, 1))
    key = next((part for part in reversed(p.path) if isinstance(part, str)), None)
    if key is None:
        return doc_start
    pattern = re.compile(r"^(\s*(?:-\s+)?)" + re.escape(key) + r"\s*:")
    keyed = [(i, m) for i in range(start, end) if (m := pattern.match(lines[i]))]
    if len(keyed) != 1:
        return doc_start
    i, match = keyed[0]
    column = len(match.group(1)) + 1
    return Span(i + 1, column, i + 1, column + len(key))


def _chunk(lines: list[str], nth: int) -> tuple[int, int]:
    """Lines [start, end) of the template's `nth` document: of its `---`-separated parts, those that write
    an `apiVersion:` or `kind:`. A template that writes one (in a `range`, say) renders it each time."""
    bounds = [0] + [i + 1 for i, line in enumerate(lines) if _SEPARATOR.match(line)] + [len(lines) + 1]
    chunks = [(bounds[k], bounds[k + 1] - 1) for k in range(len(bounds) - 1)]
    chunks = [(s, e) for s, e in chunks if any(_TYPE_KEY.match(line) for line in lines[s:e])]
    if nth < len(chunks):
        return chunks[nth]
    return chunks[0] if len(chunks) == 1 else (0, len(lines))
