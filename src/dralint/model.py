"""The data every stage of the pipeline hands to the next.

source -> load -> Document -> schema check -> drop gated fields -> rules -> Problem -> report.
Nothing here knows about YAML: a Document is plain data plus a table that
maps field paths to source ranges.
"""

from __future__ import annotations

import enum
import operator

from .records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable

PathPart = str | int
Path = tuple[PathPart, ...]


class Severity(enum.IntEnum):
    # Ordered so that `severity >= threshold` means "at least as bad".
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> "Severity":
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r}; use error, warning or info") from None

    def __str__(self) -> str:
        return self.name.lower()


def fields_reduce(self: tuple) -> tuple:
    """`__reduce__` of the named tuples the result cache and `--jobs` workers pickle by the thousand (spans,
    places, run-scope records): their class and fields, one call, instead of object.__reduce_ex__'s
    `__getnewargs__` and state. Only for classes whose instances hold nothing but their fields."""
    return type(self), tuple(self)


class Span(NamedRecord):
    """A source range, 1-based lines and columns; end is exclusive (one past the last character).

    A named tuple, not a frozen dataclass: the loader makes a few per node and a
    frozen dataclass costs four times as much to create.
    """

    __slots__ = ()

    def __new__(_cls, line: int, column: int, end_line: int, end_column: int) -> "Span":
        return tuple_new(_cls, (line, column, end_line, end_column))

    __reduce__ = fields_reduce

    @staticmethod
    def point(line: int = 1, column: int = 1) -> "Span":
        return Span(line, column, line, column + 1)


class Edit(NamedRecord):
    """Replace the text of `span` (1-based, end exclusive, code points) with `text`."""

    __slots__ = ()

    def __new__(_cls, span: Span, text: str) -> "Edit":
        return tuple_new(_cls, (span, text))

    __reduce__ = fields_reduce


class Fix(NamedRecord):
    """A machine-readable repair: edits applied together, all or none."""

    __slots__ = ()

    def __new__(_cls, description: str, edits: tuple[Edit, ...]) -> "Fix":
        return tuple_new(_cls, (description, edits))

    __reduce__ = fields_reduce


class Node(NamedRecord):
    """Where one field of a document stands: its key (None for list items and the root) and its value."""

    __slots__ = ()

    def __new__(_cls, key: Span | None, value: Span) -> "Node":
        return tuple_new(_cls, (key, value))


class Record:
    """A slotted record with a field-wise repr and equality.

    What @dataclass would give, without importing dataclasses (and inspect behind
    it) on the lint path: a pre-commit hook's start-up must stay small (bench/startup.py).
    """

    __slots__ = ()

    def _fields(self) -> tuple[str, ...]:
        return self.__slots__

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(getattr(self, n) == getattr(other, n) for n in self._fields())

    __hash__ = None  # type: ignore[assignment]  # mutable


class Document(Record):
    """One object from a source: plain data and where each path of it stands.

    `positions` maps a path tuple, e.g. ("spec", "devices", "requests", 0, "name"),
    to a Node. The root path () is always present.
    `scalar_styles` maps a path to the YAML style of a scalar value (None for
    plain, "'", '"', "|", ">") so that positions inside a string (CEL columns) can
    be mapped back through quoting; absent for JSON or where not needed.
    """

    __slots__ = ("source", "index", "data", "positions", "text", "scalar_styles", "list_item", "_object_ref", "patch", "origin")
    FIELDS = ("source", "index", "data", "positions", "text", "scalar_styles", "list_item")

    def __init__(
        self,
        source: str,
        index: int,
        data: Any,
        positions: dict[Path, Node] | None = None,
        text: str | None = None,
        scalar_styles: dict[Path, str | None] | None = None,
        list_item: int | None = None,
    ):
        self.source = source  # file name as given by the user, "-" for stdin, or "<admission>"
        self.index = index  # 0-based index of the document in its source
        self.data = data
        self.positions: dict[Path, Node] = positions if positions is not None else {}
        self.text = text  # the whole source text, when there is one (for CEL and inline suppressions)
        self.scalar_styles: dict[Path, str | None] = scalar_styles if scalar_styles is not None else {}
        # Set when this document is an item of a `kind: List`: its index in `items`.
        self.list_item = list_item
        self._object_ref: str | None | bool = False  # not computed yet
        # A kustomize patch (dralint.pipeline.kustomize.Patch): a partial object, judged for what it writes, not
        # for what it leaves out. None for whole objects.
        self.patch: Any = None
        # Where a rendered document was written (dralint.pipeline.origins.Origin): a Helm `# Source:` comment or
        # kustomize's origin annotation named it. None for documents read from their own source.
        self.origin: Any = None

    def _fields(self) -> tuple[str, ...]:
        return self.FIELDS

    @property
    def api_version(self) -> str | None:
        value = self.data.get("apiVersion") if isinstance(self.data, dict) else None
        return value if isinstance(value, str) else None

    @property
    def kind(self) -> str | None:
        value = self.data.get("kind") if isinstance(self.data, dict) else None
        return value if isinstance(value, str) else None

    @property
    def object_ref(self) -> str | None:
        """`namespace/name`, `name`, or None when the document has no name.

        One string per document, whatever the number of problems and records that carry it
        (documents are not changed once loaded)."""
        if self._object_ref is False:
            self._object_ref = self._name_in_namespace()
        return self._object_ref  # type: ignore[return-value]

    def _name_in_namespace(self) -> str | None:
        if not isinstance(self.data, dict):
            return None
        meta = self.data.get("metadata")
        if not isinstance(meta, dict):
            return None
        name = meta.get("name") or meta.get("generateName")
        if not isinstance(name, str) or not name:
            return None
        namespace = meta.get("namespace")
        return f"{namespace}/{name}" if isinstance(namespace, str) and namespace else name

    def locate(self, path: Path, *, prefer_key: bool = False) -> Span:
        """The source range of `path`, or of its nearest ancestor that exists.

        A value by default; the key when `prefer_key` (unknown or duplicate keys).
        A path that does not exist (a missing field) resolves to the key of the
        nearest existing ancestor, as DESIGN.md asks for missing fields.
        """
        exact = self.positions.get(path)
        if exact is not None:
            if prefer_key and exact.key is not None:
                return exact.key
            return exact.value
        probe = path
        while probe:
            probe = probe[:-1]
            node = self.positions.get(probe)
            if node is not None:
                return node.key if node.key is not None else node.value
        root = self.positions.get(())
        return Span.point(root.value.line, root.value.column) if root else Span.point()


class Origin(NamedRecord):
    """Where a problem of a rendered stream (`helm template`, `kustomize build`) was written.

    `found`: the problem was moved into `file` (its source and span point there now);
    otherwise it stays in the stream and only names the file, which cannot be read from
    the working directory. `stream` and `span`: where it stands in the rendered stream."""

    __slots__ = ()

    def __new__(_cls, file: str, found: bool, stream: str, span: Span) -> "Origin":
        return tuple_new(_cls, (file, found, stream, span))


class Problem(Record):
    """One finding. Its source range may be given as `span`, or as `where`, a function
    computing it on first use: a problem that select/ignore drops then never costs the
    position table of its document."""

    __slots__ = ("rule", "name", "severity", "message", "source", "document", "path", "_span", "_where", "api_version", "kind", "object", "error_type", "_fixes", "origin")
    FIELDS = ("rule", "name", "severity", "message", "source", "document", "path", "span", "api_version", "kind", "object", "error_type")

    def __init__(
        self,
        rule: str,
        name: str,
        severity: Severity,
        message: str,
        source: str,
        document: int,
        path: Path = (),
        span: Span | None = None,
        api_version: str | None = None,
        kind: str | None = None,
        object: str | None = None,
        error_type: str | None = None,
        where: Callable[[], Span] | None = None,
    ):
        self.rule = rule  # stable code, e.g. "DRA101"
        self.name = name  # stable slug, e.g. "unknown-field"
        self.severity = severity
        self.message = message
        self.source = source
        self.document = document
        self.path = path
        self._span = span if span is not None or where is not None else Span.point()
        self._where = where
        self.api_version = api_version
        self.kind = kind
        self.object = object
        # The API server's field error type (Required, Invalid, TooMany ...) when the
        # problem mirrors one; None for pure lint findings.
        self.error_type = error_type
        self._fixes: list[Fix] | Callable[[], list[Fix]] = ()  # type: ignore[assignment]
        self.origin: Origin | None = None  # a rendered stream's problem: the file it was written in

    def _fields(self) -> tuple[str, ...]:
        return self.FIELDS

    def __reduce__(self) -> tuple:
        # One call and a tuple of the slots, not object.__reduce_ex__'s dict of slot names per problem:
        # problems are pickled by the result cache, --jobs workers and the webhook (bench/cache.py).
        return _problem, _problem_slots(self)

    @property
    def span(self) -> Span:
        if self._span is None:
            self._span = self._where() if self._where is not None else Span.point()
            self._where = None
        return self._span

    @span.setter
    def span(self, value: Span) -> None:
        self._span = value
        self._where = None

    @property
    def fixes(self) -> list[Fix]:
        """Known repairs, best first; empty when none is known.

        Computed on first use like `span`: building one needs the position
        table, which a problem that is filtered out never pays for.
        """
        if callable(self._fixes):
            self._fixes = self._fixes()
        return list(self._fixes)

    @fixes.setter
    def fixes(self, value: "list[Fix] | Callable[[], list[Fix]]") -> None:
        self._fixes = value

    def adopt_fixes(self, other: "Problem") -> None:
        """Take `other`'s fixes (still unbuilt) when this problem knows none: it replaces `other`."""
        if not self._fixes:
            self._fixes = other._fixes

    @property
    def path_text(self) -> str:
        return format_path(self.path)

    def sort_key(self) -> tuple:
        return (self.source, self.document, self.span.line, self.span.column, self.rule, self.message)


_problem_slots = operator.attrgetter(*Problem.__slots__)


def _problem(*values: Any) -> Problem:
    """A pickled Problem back (`Problem.__reduce__`): its slots in their declared order."""
    problem = Problem.__new__(Problem)
    for name, value in zip(Problem.__slots__, values, strict=True):
        setattr(problem, name, value)
    return problem


class MapKey(str):
    """A map key in a field path: printed in brackets (`attributes[model]`) even when it
    looks like a field name, as the API server prints every map key."""

    __slots__ = ()


def value_at(data: Any, path: Path, default: Any = None) -> Any:
    """The value a path names in a document's plain data (mappings by key, lists by index), else `default`."""
    for part in path:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return default
    return data


def format_path(path: Path) -> str:
    """The API server's field path form: `spec.devices.requests[0].name`, map keys as `[key]`."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif out and (isinstance(part, MapKey) or _is_map_key(part)):
            out.append(f"[{part}]")
        else:
            out.append(f".{part}" if out else part)
    return "".join(out)


def _is_map_key(part: str) -> bool:
    # Field names are identifiers; anything else (labels, annotations, attribute
    # keys) is a map key, which the API server prints in brackets.
    return not part.replace("_", "a").isalnum() or part[:1].isdigit()
