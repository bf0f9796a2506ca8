"""Running rules: gives each rule a view of the documents it applies to and turns its reports into Problems.

A rule that fails is a DRA901 of the document it was checking, whatever it raised: `sys.exit()` in a rule
(SystemExit) or any other BaseException must not end the run without a report, in this process or in a
worker's. Only Ctrl-C (KeyboardInterrupt) goes through and stops the run.
"""

from __future__ import annotations

# threading.local is _thread's: taken from there, a lint does not import threading (bench/startup.py).
from _thread import _local as thread_local

from ..api import DocumentView, Place, Rule, RunIndex, RunView
from ..catalog import ENGINE_CHECKS, engine_problem
from ..model import Document, Edit, Fix, Path, Problem, Severity, Span
from ..registry import BUILTIN_PACKAGE


class _Current:
    """The document being checked and its problem list, shared by the reporters of one rule sequence."""

    __slots__ = ("view", "problems")

    def __init__(self, view: DocumentView | None, problems: list[Problem]):
        self.view = view
        self.problems = problems


class _Reporter:
    __slots__ = ("rule", "current", "module")

    def __init__(self, rule: Rule, current: _Current):
        self.rule = rule
        self.current = current
        self.module = memo_module(rule)

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
        current = self.current
        view = doc or current.view
        if view is None:
            raise ValueError(f"rule {self.rule.code} has run scope: report(..., doc=view) must name the document")
        document = view.document
        where = tuple(locate) if locate is not None else tuple(path)
        def span() -> Span:
            if string_range is not None and where in document.positions:
                from ..positions import string_span  # only CEL and policy rules need it

                return string_span(document, where, string_range[0], string_range[1])
            return document.locate(where, prefer_key=at_key)

        if severity is None:
            sev = self.rule.severity
        else:
            sev = severity if isinstance(severity, Severity) else Severity.parse(severity)
        problems = current.problems
        problems.append(
            Problem(
                rule=self.rule.code,
                name=self.rule.slug,
                severity=sev,
                message=with_type(message, error_type, show_type, type_note),
                source=document.source,
                document=document.index,
                path=tuple(path),
                where=span,
                api_version=document.api_version,
                kind=document.kind,
                object=document.object_ref,
                error_type=error_type,
            )
        )
        if replace_with and string_range is not None:  # a name inside a string (CEL): replace just that
            problems[-1].fixes = lambda: [Fix(f"replace with '{v}'", (Edit(span(), str(v)),)) for v in replace_with]
        elif replace_with:
            problems[-1].fixes = lambda: _replace_value(document, where, list(replace_with))


def with_type(message: str, error_type: str | None, show_type: bool = True, type_note: str = "") -> str:
    """The message as the user reads it: the API server's error type follows it in parentheses, written
    from `error_type` alone so that text and data cannot disagree ("... (Invalid)", "... (Forbidden otherwise)")."""
    if error_type is None or not show_type:
        return message
    suffix = f" ({error_type} {type_note})" if type_note else f" ({error_type})"
    # A plugin written before report() rendered the type may still end its message with it: once is enough.
    return message if message.endswith(suffix) else message + suffix


def _replace_value(document: Document, where: Path, values: list[Any]) -> list[Fix]:
    # Deferred: fixes are built only when read, and a clean file's start-up does not import repairs.
    from ..repairs import replace_value

    return replace_value(document, where, None, values)


def run_document_rules(rules: Sequence[Rule], view: DocumentView) -> list[Problem]:
    """Run `rules`, which the caller has already matched to the document's type and release."""
    problems: list[Problem] = []
    # The hot path (one call per rule and document): each rule of the sequence has its own reporter, made
    # on the sequence's first document (bench/bench.py guards the cost); only the shared document and
    # problem list change per call, so a reporter a rule keeps and calls later still reports under its code.
    bound = getattr(_BOUND, "reporters", None)
    if bound is None:
        bound = _BOUND.reporters = {}
    held = bound.get(id(rules))
    if held is None or held[0] is not rules:  # the caller's sequences are few, long-lived and never changed
        if len(bound) > 256:
            bound.clear()
        current = _Current(view, problems)
        held = bound[id(rules)] = (rules, current, [_Reporter(rule, current) for rule in rules])
    current = held[1]
    current.view = view
    current.problems = problems
    module = None  # whose `memo` table the view holds: the built-ins' first
    for rule, reporter in zip(rules, held[2], strict=True):
        if reporter.module is not module:
            module = reporter.module
            view._enter(module)
        try:
            rule.check(view, reporter)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # one broken rule must not hide the others' findings (as in _run)
            problems.append(_failed(rule, view.document, exc))
    view.forget()
    return problems


# Per thread (a host may lint in several at once): id(rules) -> (rules, a reporter for each rule), for the
# rule sequences the caller passes (one per release and document type). By identity: hashing the Rules'
# fields on every call would cost more than the reporters save. Bounded for long-lived processes.
_BOUND = thread_local()


def run_run_rules(rules: Iterable[Rule], views: list[DocumentView], release: str) -> list[Problem]:
    problems: list[Problem] = []
    run = RunView(views, release)
    for rule in rules:
        if rule.scope == "run" and rule.collect is None and views and rule.in_releases(release):
            _run(rule, problems, None, run, fallback=views[0].document)
    return problems


class _PlaceReporter:
    """What a run-scope rule with `collect` reports through: at Places, positioned when collected."""

    __slots__ = ("rule", "problems", "messages")

    def __init__(self, rule: Rule, problems: list[Problem], messages: dict[str, str]):
        self.rule = rule
        self.problems = problems
        # One copy of each message: "DeviceClass 'x' is not defined ..." is reported once per claim of a
        # run, and each copy would live until the report is written (bench/memory.py).
        self.messages = messages

    def __call__(self, place: Place, message: str, *, error_type: str | None = None, severity: Severity | str | None = None,
                 show_type: bool = True, type_note: str = "") -> None:
        if not isinstance(place, Place):
            raise TypeError(f"rule {self.rule.code} has run scope: report(place, ...) takes a Place (doc.place(path) in collect)")
        if severity is None:
            sev = self.rule.severity
        else:
            sev = severity if isinstance(severity, Severity) else Severity.parse(severity)
        message = with_type(message, error_type, show_type, type_note)
        lazy = callable(place.at)  # positioned on first use: the document is still at hand (DocumentView.place)
        self.problems.append(
            Problem(
                rule=self.rule.code, name=self.rule.slug, severity=sev, message=self.messages.setdefault(message, message), source=place.source,
                document=place.document, path=place.path, span=None if lazy else place.at, where=place.at if lazy else None,
                api_version=place.api_version, kind=place.kind, object=place.object, error_type=error_type,
            )
        )


TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Iterator, Sequence
    Collector = tuple[str, Callable[[DocumentView], Any], tuple[Rule, ...]]  # key, collect, the rules sharing it


def collectors(rules: Iterable[Rule]) -> list[Collector]:
    """The distinct `collect` functions of run-scope rules, each with the rules that judge its records."""
    by_key: dict[str, list[Rule]] = {}
    for rule in rules:
        if rule.collect is not None:
            by_key.setdefault(collector_key(rule), []).append(rule)
    return [(key, rules[0].collect, tuple(rules)) for key, rules in by_key.items()]  # type: ignore[misc]


def collect_records(collectors: list[Collector], view: DocumentView, problems: list[Problem]) -> Iterator[tuple[str, Any]]:
    """(collector key, record) for one document; a failing collector adds a DRA901 to `problems`."""
    for key, collect, rules in collectors:
        if not any(r.in_releases(view.release) for r in rules):
            continue
        view._enter(memo_module(rules[0]))
        try:
            record = collect(view)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a broken collector must not hide the others' findings
            problems.append(_failed(rules[0], view.document, exc))
            continue
        if record is not None:
            yield key, record
    view._enter(None)


def memo_module(rule: Rule) -> str | None:
    """Whose `DocumentView.memo` table a rule uses: None for the built-in rules (they share derived views),
    else the plugin module that declared it."""
    origin = rule.origin
    return None if origin == "builtin" or origin == BUILTIN_PACKAGE or origin.startswith(BUILTIN_PACKAGE + ".") else origin


def collector_key(rule: Rule) -> str:
    """Names a rule's collector the same way in every worker process."""
    func = rule.collect
    return f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', repr(func))}"


def run_index_rules(rules: Iterable[Rule], records: dict[str, list[Any]], release: str, first: Place,
                    messages: dict[str, str]) -> list[Problem]:
    """Judge the run's records (collector key -> records in run order) with the run-scope rules of `release`.
    `first`: the release's first document, where a failing rule is reported; `messages`: one copy of each
    message the run keeps."""
    problems: list[Problem] = []
    memos: dict[str, dict] = {}  # per collector: what its rules derive from the records, computed once
    for rule in rules:
        if rule.collect is None or not rule.in_releases(release):
            continue
        key = collector_key(rule)
        try:
            rule.check(RunIndex(records.get(key, []), release, memos.setdefault(key, {})), _PlaceReporter(rule, problems, messages))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # one broken rule must not hide the others' findings
            check = ENGINE_CHECKS["DRA901"]
            problems.append(Problem(rule=check.code, name=check.slug, severity=check.severity, source=first.source, document=first.document,
                                    message=f"rule {rule.code} ({rule.slug}) failed: {type(exc).__name__}: {exc}", span=first.span,
                                    api_version=first.api_version, kind=first.kind, object=first.object))
    return problems


def _run(rule: Rule, problems: list[Problem], view: DocumentView | None, target: Any, fallback: Document | None = None) -> None:
    reporter = _Reporter(rule, _Current(view, problems))
    try:
        rule.check(target, reporter)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # one broken rule must not hide the others' findings
        doc = view.document if view is not None else fallback
        assert doc is not None
        problems.append(_failed(rule, doc, exc))


def _failed(rule: Rule, doc: Document, exc: BaseException) -> Problem:
    return engine_problem(doc, "DRA901", (), f"rule {rule.code} ({rule.slug}) failed: {type(exc).__name__}: {exc}")
