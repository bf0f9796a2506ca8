"""The public rule API: what built-in rules (top-level `rules/`) and plugins use.

A rule is a function decorated with `@rule(...)`. It receives a read-only
view of one document and a reporter, and reports problems by field path. It
never sees YAML, lines or columns: the engine turns paths into positions.

A rule over the whole run (`scope="run"`, references between files) never
holds documents: its `collect(doc)` returns a small record of what one
document declares and references, with `doc.place(path)` for each place it
may report at; at the end the rule gets a `RunIndex` of every record of a
release and reports with `report(place, message)`. Records travel between
processes (`--jobs`), so they must pickle: tuples, strings, numbers, Places.

    from dralint.api import rule

    @rule("ACME001", "gpu-limit", severity="error", kinds={"ResourceClaim"})
    def gpu_limit(doc, report):
        '''At most 4 GPUs per request.'''
        for i, req in enumerate(doc.get("spec", "devices", "requests", default=[])):
            ...
            report(("spec", "devices", "requests", i, "exactly", "count"), "at most 4 GPUs")

Plugins expose rules through the entry-point group `dralint.rules` (the
entry point may name a module, whose `@rule` functions are collected, or a
callable returning rules), or through `--rules-dir DIR` (every `*.py` file in
DIR is loaded).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .model import Document, MapKey, Path, Severity, Span, fields_reduce
from .records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterable, Iterator, Protocol, Sequence
else:
    # `Reporter` is a typing.Protocol to type checkers and a plain class when run: the engine hands rules
    # its reporters and never checks one against it, and typing would cost every start-up 10-16 M instructions.
    Protocol = object

__all__ = [
    "rule",
    "Rule",
    "DocumentView",
    "RunView",
    "RunIndex",
    "Place",
    "shared",
    "Reporter",
    "Severity",
    "MapKey",
    "release_tuple",
]



@functools.lru_cache(maxsize=64)  # asked several times per document, about a few releases
def release_tuple(release: str) -> tuple[int, int]:
    major, minor = release.split(".")[:2]
    return int(major), int(minor)


class Rule(NamedRecord):
    """A rule as `@rule` declares it (immutable)."""

    __slots__ = ()

    def __new__(
        _cls,
        code: str,
        slug: str,
        severity: Severity,
        check: Callable[..., None],
        summary: str,
        doc: str,
        kinds: frozenset[str] | None = None,  # None: every kind
        api_versions: frozenset[str] | None = None,  # "resource.k8s.io/v1" form; None: every version
        min_release: str | None = None,  # inclusive
        max_release: str | None = None,  # inclusive
        scope: str = "document",  # or "run": judges the records `collect` made of every document of the run
        origin: str = "builtin",  # module or plugin the rule came from
        # scope="run": DocumentView -> a small picklable record (or None); None for a legacy rule given a RunView.
        collect: Callable[["DocumentView"], Any] | None = None,
        # scope="run": the mapping keys whose places `collect` asks for; the loader keeps where they stand.
        positioned: frozenset[str] = frozenset(),
        # Dotted paths from the document root (`*`: any entry of a list); the rule can only report when
        # one of them is present, so the engine skips it for documents with none. None: always run.
        needs: tuple[tuple[str, ...], ...] | None = None,
    ) -> "Rule":
        return tuple_new(_cls, (code, slug, severity, check, summary, doc, kinds, api_versions, min_release, max_release, scope, origin, collect, positioned, needs))

    def applies_to(self, api_version: str | None, kind: str | None, release: str) -> bool:
        if self.kinds is not None and kind not in self.kinds:
            return False
        if self.api_versions is not None and api_version not in self.api_versions:
            return False
        return self.in_releases(release)

    def in_releases(self, release: str) -> bool:
        rel = release_tuple(release)
        if self.min_release and rel < release_tuple(self.min_release):
            return False
        if self.max_release and rel > release_tuple(self.max_release):
            return False
        return True


def rule(
    code: str,
    slug: str,
    *,
    severity: str | Severity = "error",
    kinds: Iterable[str] | None = None,
    api_versions: Iterable[str] | None = None,
    releases: tuple[str | None, str | None] = (None, None),
    scope: str = "document",
    collect: Callable[["DocumentView"], Any] | None = None,
    positioned: Iterable[str] = (),
    needs: Iterable[str] | None = None,
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Declare a rule. The function's docstring is its documentation: first line the summary.

    `scope="run"` with `collect`: `collect(doc)` is called for every document of the
    run (of the rule's releases; `kinds` and `api_versions` do not filter it) and
    returns a small picklable record, or None; the rule is then called once per
    release as `check(index: RunIndex, report)` and reports at `Place`s.
    `scope="run"` without `collect` (deprecated): the rule gets a `RunView` of every
    document, which keeps them all in memory and makes `--jobs` run serially.
    `positioned`: the mapping keys (e.g. "deviceClassName") whose `view.place()` `collect`
    asks for; the loader notes where they stand while it reads, instead of replaying the
    document for them. Only a hint: every place is right without it.
    `needs`: dotted paths (`spec.devices.requests`, `*` for any list entry) of which at least one
    must be present for the rule to be able to report; documents with none skip the rule. It must
    never be narrower than what the rule reads, or findings are lost (see docs/plugins.md).
    """
    if scope not in ("document", "run"):
        raise ValueError(f"rule {code}: scope must be 'document' or 'run'")
    if collect is not None and scope != "run":
        raise ValueError(f"rule {code}: collect is for scope='run' rules")
    if needs is not None and (isinstance(needs, str) or scope != "document"):
        raise ValueError(f"rule {code}: needs is a list of paths, for scope='document' rules")
    sev = severity if isinstance(severity, Severity) else Severity.parse(severity)

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        doc = _cleandoc(func.__doc__ or "")
        if not doc:
            raise ValueError(f"rule {code} ({func.__module__}.{func.__name__}) needs a docstring")
        func.__dralint_rule__ = Rule(  # type: ignore[attr-defined]
            code=code,
            slug=slug,
            severity=sev,
            check=func,
            summary=doc.splitlines()[0],
            doc=doc,
            kinds=frozenset(kinds) if kinds is not None else None,
            api_versions=frozenset(api_versions) if api_versions is not None else None,
            min_release=releases[0],
            max_release=releases[1],
            scope=scope,
            origin=func.__module__,
            collect=collect,
            positioned=frozenset(positioned),
            needs=tuple(tuple(p.split(".")) for p in needs) if needs is not None else None,
        )
        return func

    return decorate


def _cleandoc(text: str) -> str:
    """inspect.cleandoc without importing inspect (and ast, dis, tokenize behind it) on a hook's start-up."""
    lines = text.expandtabs().splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents) if indents else 0
    cleaned = [lines[0].strip()] + [line[margin:].rstrip() for line in lines[1:]] if lines else []
    while cleaned and not cleaned[0]:
        cleaned.pop(0)
    while cleaned and not cleaned[-1]:
        cleaned.pop()
    return "\n".join(cleaned)


_MISSING = object()


class DocumentView:
    """Read-only access to one document for rules: data, type, release, safe lookups."""

    __slots__ = ("_doc", "release", "options", "api_version", "kind", "release_tuple", "_memo", "_builtin_memo", "_module_memos", "_lazy_places", "feature_gates", "dropped")

    def __init__(
        self, doc: Document, release: str, options: dict[str, Any] | None = None, *, lazy_places: bool = False,
        feature_gates: dict[str, bool] | None = None, dropped: tuple = (),
    ):
        self._doc = doc
        # A run that keeps its documents (the language server, the Python API) positions a Place only when a
        # problem is reported there: positioning every reference up front was a quarter of such a lint.
        self._lazy_places = lazy_places
        self.release = release
        self.options = options or {}
        # The gates the user set for this document's cluster (the rest are the release's defaults), and the
        # fields the API server dropped before validation because a gate is off (dralint.pipeline.drop.Dropped):
        # `data` is what is left, and `dropped` is what DRA801 reports.
        self.feature_gates: dict[str, bool] = feature_gates if feature_gates is not None else _configured_gates(self.options)
        self.dropped: tuple = dropped
        # Read by every rule for every document: computed once.
        self.api_version: str | None = doc.api_version
        self.kind: str | None = doc.kind
        self.release_tuple: tuple[int, int] = release_tuple(release)
        # `memo` keys are the rule author's own: the built-in rules share one table, each plugin module
        # has its own (the engine switches with `_enter`), so a plugin's key never meets a built-in's.
        self._memo: dict[Any, Any] = {}
        self._builtin_memo = self._memo
        self._module_memos: dict[str, dict[Any, Any]] | None = None

    def _enter(self, module: str | None) -> None:
        """For the engine: the `memo` table of the rules of `module` (a plugin's), or None for the built-ins'."""
        if module is None:
            self._memo = self._builtin_memo
            return
        if self._module_memos is None:
            self._module_memos = {}
        self._memo = self._module_memos.setdefault(module, {})

    @property
    def data(self) -> Any:
        return self._doc.data

    def memo(self, key: Any, compute: Callable[..., Any], *args: Any) -> Any:
        """`compute(*args)` once per document and key: for derived views several rules share
        (the requests of a claim, whether a feature gate's fields are used ...). Keys are per
        module of rules: the built-in rules share theirs, each plugin module has its own. Passing the
        arguments rather than a lambda saves building a closure on every call of a hot helper."""
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = compute(*args)
            return value

    def forget(self) -> None:
        """Drop what `memo` holds. The engine calls it when the document's rules are done: a run that
        keeps views to its end would otherwise keep every document's derived views, which the cyclic
        garbage collector then walks again and again (bench/scale.py)."""
        self._builtin_memo.clear()
        self._module_memos = None
        self._memo = self._builtin_memo

    @property
    def partial(self) -> bool:
        """Whether the document is a kustomize patch: it says what it changes, not the whole object.
        A rule that reports what is missing skips a partial document."""
        return self._doc.patch is not None

    def patched(self) -> tuple[Any, ...]:
        """For a patch, the objects of its kustomization it applies to (plain data, read-only), so that a
        reference inside the object (a container's claim) resolves against what the patch is merged into."""
        patch = self._doc.patch
        if patch is None:
            return ()
        return self.memo("api.patched", patch.base_objects, self.api_version, self.kind, self.name)

    def patch_context(self) -> tuple[tuple[str, Any], ...]:
        """For a patch, (file, object) of every object of the kustomization it belongs to (its resources,
        through bases and overlays): what a run-scope rule counts as defined besides the run's files."""
        patch = self._doc.patch
        patch = getattr(patch, "patch", patch)  # a JSON 6902 operation belongs to its patch
        return patch.objects() if patch is not None and hasattr(patch, "objects") else ()

    @property
    def group(self) -> str:
        av = self.api_version or ""
        return av.rpartition("/")[0]

    @property
    def version(self) -> str:
        return (self.api_version or "").rpartition("/")[2]

    @property
    def name(self) -> str | None:
        data = self._doc.data
        meta = data.get("metadata") if isinstance(data, dict) else None
        value = meta.get("name") if isinstance(meta, dict) else None
        return value if isinstance(value, str) else None

    @property
    def namespace(self) -> str | None:
        data = self._doc.data
        meta = data.get("metadata") if isinstance(data, dict) else None
        value = meta.get("namespace") if isinstance(meta, dict) else None
        return value if isinstance(value, str) else None

    @property
    def source(self) -> str:
        return self._doc.source

    @property
    def index(self) -> int:
        return self._doc.index

    def at_least(self, release: str) -> bool:
        return self.release_tuple >= release_tuple(release)

    def get(self, *path: Any, default: Any = None, type: type | tuple[type, ...] | None = None) -> Any:
        """The value at `path`, or `default` when any step is missing or of the wrong shape.

        With `type`, a value of another type also gives `default`, so a rule
        never trips over data the schema check already reported.
        """
        if len(path) == 1 and isinstance(path[0], tuple):
            path = path[0]
        node: Any = self._doc.data
        # About 40 calls per document: the common step (a str key into a plain dict, as the
        # loader builds them) is one class test and one dict.get; anything else takes the
        # general test below.
        for part in path:
            if part.__class__ is str and node.__class__ is dict:
                node = node.get(part, _MISSING)
                if node is _MISSING:
                    return default
            elif isinstance(part, int):
                if not isinstance(node, list) or not -len(node) <= part < len(node):
                    return default
                node = node[part]
            else:
                if not isinstance(node, dict) or part not in node:
                    return default
                node = node[part]
        # bool is an int in Python but not in JSON: `count: true` is no count.
        if type is not None and node.__class__ is not type and (
            not isinstance(node, type) or (node.__class__ is bool and (bool not in type if type.__class__ is tuple else type is not bool))
        ):
            return default
        return node

    def has(self, *path: Any) -> bool:
        return self.get(*path, default=_MISSING) is not _MISSING

    def items(self, *path: Any) -> Iterator[tuple[int, dict]]:
        """(index, item) for every mapping item of the list at `path`."""
        seq = self.get(*path, type=list, default=[])
        for i, item in enumerate(seq):
            if isinstance(item, dict):
                yield i, item

    def exists_in_source(self, path: Path) -> bool:
        return path in self._doc.positions

    def place(self, path: Path, *, locate: Path | None = None, at_key: bool = False) -> "Place":
        """Where `path` of this document stands, for run-scope records, which outlive the document:
        positioned now in a run that lets documents go, on first use in one that keeps them.
        `locate` and `at_key` as for `report`."""
        doc = self._doc
        where = tuple(locate) if locate is not None else tuple(path)
        at: Span | Callable[[], Span] = functools.partial(doc.locate, where, prefer_key=at_key) if self._lazy_places else doc.locate(where, prefer_key=at_key)
        field = tuple(path)
        if MapKey not in map(type, field):  # MapKey("x") == "x": sharing could swap `[x]` for `.x` in the report
            field = shared(field)
        return Place(doc.source, doc.index, doc.list_item, field, at, shared(self.api_version), shared(self.kind), doc.object_ref)

    @property
    def document(self) -> Document:
        """The underlying document, for the engine and for rules that need source text (CEL)."""
        return self._doc


def _configured_gates(options: dict[str, Any]) -> dict[str, bool]:
    """`rule-options: feature-gates`, for a view built without gates (a plugin's tests)."""
    gates = options.get("feature-gates") if isinstance(options, dict) else None
    return {k: v for k, v in gates.items() if isinstance(v, bool)} if isinstance(gates, dict) else {}


_SHARED: dict[Any, Any] = {}


def shared(value: Any) -> Any:
    """One copy of a hashable value that many records hold (a field path, a kind, a class name): a run of
    100,000 documents keeps each Place's path and kind once, not 100,000 times."""
    if len(_SHARED) >= 20_000:  # a bound, for long-lived processes (the language server) and unique values
        return _SHARED.get(value, value)
    return _SHARED.setdefault(value, value)


class Place(NamedRecord):
    """A field of one document and where it stands, kept after the document is gone
    (`DocumentView.place`): what a run-scope rule reports at."""

    __slots__ = ()

    def __new__(
        _cls,
        source: str,
        document: int,  # index of the document in its source
        list_item: int | None,  # its item in a `kind: List`, if it is one
        path: Path,  # the API server's field path
        at: Span | Callable[[], Span],  # positioned, or (in runs that keep their documents) how to position it
        api_version: str | None = None,
        kind: str | None = None,
        object: str | None = None,  # `namespace/name` of the document
    ) -> "Place":
        return tuple_new(_cls, (source, document, list_item, path, at, api_version, kind, object))

    __reduce__ = fields_reduce

    @property
    def span(self) -> Span:
        return self.at() if callable(self.at) else self.at


class RunIndex:
    """The records `collect` made of the documents of one run and release, in run order
    (file by file, document by document, whatever `--jobs` is)."""

    __slots__ = ("records", "release", "_memo")

    def __init__(self, records: list[Any], release: str, memo: dict[Any, Any] | None = None):
        self.records = records
        self.release = release
        self._memo = memo if memo is not None else {}

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """`compute()` once per run, release and key, shared by the rules of one collector
        (an index of the records by name ...): each collector has its own keys."""
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = compute()
            return value

    def __iter__(self) -> Iterator[Any]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)


class RunView:
    """Every document of one run, for legacy rules with `scope="run"` and no `collect`."""

    def __init__(self, documents: list[DocumentView], release: str):
        self.documents = documents
        self.release = release


class Reporter(Protocol):
    def __call__(
        self,
        path: Path,
        message: str,
        *,
        error_type: str | None = None,
        at_key: bool = False,
        locate: Path | None = None,
        string_range: tuple[int, int] | None = None,
        severity: Severity | str | None = None,
        doc: DocumentView | None = None,
        replace_with: Sequence[Any] = (),
        show_type: bool = True,
        type_note: str = "",
    ) -> None:
        """Report a problem at the API server's field `path`.

        `error_type`: the API server's field.ErrorType ("Invalid", "Required", "TooMany" ...). The
        reporter writes it after the message, "... (Invalid)": a message never names it itself.
        `show_type=False`: the message quotes the API server's own wording, which names no type; the
        type is still the problem's `error_type`. `type_note`: a word after the type, when the type
        applies only under a condition the linter cannot see: "(Forbidden otherwise)".

        `locate`: where it stands in the source when that differs from `path`
        (e.g. flat-shape requests whose errors the server reports under `exactly`).
        `at_key`: point at the key rather than the value.
        `string_range`: character offsets inside the string value at `locate or path`.
        `doc`: the document, for legacy run-scope rules given a RunView.
        A run-scope rule with `collect` reports at a `Place` instead of a path:
        `report(place, message, error_type=..., severity=...)`.
        `replace_with`: values the field's value could be instead (an enum's members):
        each becomes a fix, the closest to the wrong value first.
        """
