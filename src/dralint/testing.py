"""Test rules the way dralint tests its own: expectations written inside a fixture as comments.

    from dralint.testing import check_fixture
    import acme_rules

    def test_acme_fixtures():
        assert check_fixture("tests/cases/gpu-limit.yaml", rules=acme_rules) == []

`check_fixture` lints the file with the real engine (built-in rules, plus the given
module's rules or rules directories) once per release block and returns the differences
from its expectations, one line each. The grammar (docs/plugins.md, tests/cases/README.md):

    # expect-codes: DRA2 DRA3        compare only problems whose code starts so (default: all)
    # expect-select: DRA0 DRA1       run with --select (default: every rule)
    # expect-ignore: DRA712          run with --ignore
    # expect-release: 1.34           the expectations below are for 1.34 (repeatable)
    # expect: DRA301 8:13 spec.devices.requests[0].name Invalid
    # expect: DRA011 2:13-2:36 apiVersion warning "served by Kubernetes 1.31"
    # expect: none                   the block expects no problem

The error type is compared as the problem's `error_type` field, not read from its message.
dralint's own `tools/update_expectations.py` rewrites the expect lines from a real run.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from .api import Rule
from .model import Problem, format_path

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterable

SEVERITIES = ("error", "warning", "info")
# The API server's field.ErrorType names (the reporter writes the problem's own after its message).
ERROR_TYPES = ("Required", "Invalid", "NotSupported", "Duplicate", "Forbidden", "TooLong", "TooMany", "NotFound", "TypeInvalid", "InternalError")
_POSITION = re.compile(r"(?P<line>\d*):(?P<column>\d+)(?:-(?P<end_line>\d+):(?P<end_column>\d+))?")
_DIRECTIVE = re.compile(r"#\s*expect(?P<kind>|-release|-codes|-select|-ignore):\s*(?P<body>.*?)\s*$")
_RELEASE_COMMENT = re.compile(r"^\s*#\s*dralint:\s*kubernetes-version=\s*(\S+)")
# Without quotes, backslashes or whitespace other than shlex's own four, shell words are what
# str.split() gives: most expectations, read far faster than by shlex (a suite reads every fixture's).
_SHELL_QUOTING = re.compile(r"[\"'\\]|[^\S \t\r\n]")
EMPTY_PATH = "-"


class ExpectationError(ValueError):
    """A malformed expect comment: the fixture, not the engine, is wrong."""


@dataclass(frozen=True)
class Key:
    """What identifies a problem in a comparison: all of it must match exactly."""

    code: str
    line: int
    column: int
    path: str
    error_type: str | None
    severity: str

    def render(self) -> str:
        parts = [self.code, f"{self.line}:{self.column}", self.path or EMPTY_PATH]
        if self.error_type:
            parts.append(self.error_type)
        if self.severity != "error":
            parts.append(self.severity)
        return " ".join(parts)


@dataclass
class Expectation:
    key: Key
    end: tuple[int, int] | None = None  # checked only when written
    contains: list[str] = field(default_factory=list)  # fragments the message must contain
    equals: str | None = None  # the whole message, when written as ="..."
    source_line: int = 0  # where the comment is, for error messages

    def render(self) -> str:
        parts = [self.key.render()]
        if self.end is not None:
            head, position, rest = parts[0].split(" ", 2)
            parts = [f"{head} {position}-{self.end[0]}:{self.end[1]} {rest}"]
        parts += [_quote(text) for text in self.contains]
        if self.equals is not None:
            parts.append(_quote("=" + self.equals))
        return "# expect: " + " ".join(parts)


@dataclass
class Block:
    release: str | None  # None: the file's own `# dralint: kubernetes-version=` or the default
    expectations: list[Expectation] = field(default_factory=list)


@dataclass
class Fixture:
    path: Path
    blocks: list[Block]
    codes: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    file_release: str | None = None


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def key_of(problem: Problem) -> Key:
    """The error type compared is the problem's own `error_type` (what formatters and the webhook emit), not text."""
    span = problem.span
    return Key(problem.rule, span.line, span.column, format_path(problem.path), problem.error_type, str(problem.severity))


def parse_expect(body: str, comment_line: int) -> Expectation:
    try:
        tokens = shlex.split(body) if _SHELL_QUOTING.search(body) else body.split()
    except ValueError as exc:
        raise ExpectationError(f"line {comment_line}: {exc}") from None
    if len(tokens) < 3:
        raise ExpectationError(f"line {comment_line}: an expectation is CODE LINE:COLUMN PATH [TYPE] [SEVERITY] [\"TEXT\"...], got {body!r}")
    code, position, path, *rest = tokens
    match = _POSITION.fullmatch(position)
    if not re.fullmatch(r"[A-Z]+\d+", code) or match is None:
        raise ExpectationError(f"line {comment_line}: cannot read code/position in {body!r}")
    line = int(match["line"]) if match["line"] else comment_line  # ":7" is the comment's own line
    end = (int(match["end_line"]), int(match["end_column"])) if match["end_line"] else None
    error_type, severity, contains, equals = None, "error", [], None
    for token in rest:
        if token in SEVERITIES:
            severity = token
        elif token in ERROR_TYPES:
            error_type = token
        elif token.startswith("="):
            equals = token[1:]
        else:
            contains.append(token)
    key = Key(code, line, int(match["column"]), "" if path == EMPTY_PATH else path, error_type, severity)
    return Expectation(key, end, contains, equals, comment_line)


def _words(body: str) -> tuple[str, ...]:
    return tuple(word for word in re.split(r"[\s,]+", body) if word)


def read_fixture(path: Path) -> Fixture:
    """The expectations a fixture carries (no blocks when it carries none)."""
    fixture = Fixture(path, [])
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()  # some fixtures are broken on purpose
    for number, text in enumerate(lines, start=1):
        if fixture.file_release is None and (declared := _RELEASE_COMMENT.match(text)):
            fixture.file_release = declared.group(1)
        hash_at = text.find("# expect")
        if hash_at < 0:
            continue
        match = _DIRECTIVE.match(text, hash_at)
        if match is None:
            raise ExpectationError(f"{path}:{number}: not an expect directive: {text[hash_at:]!r}")
        kind, body = match["kind"], match["body"]
        if kind == "-codes":
            fixture.codes = _words(body)
        elif kind == "-select":
            fixture.select = _words(body)
        elif kind == "-ignore":
            fixture.ignore = _words(body)
        elif kind == "-release":
            fixture.blocks.append(Block(body))
        else:
            if not fixture.blocks:
                fixture.blocks.append(Block(None))
            if body != "none":
                # ":COLUMN" without a line number means the comment's own line (an expectation beside its problem).
                fixture.blocks[-1].expectations.append(parse_expect(body, number))
    if fixture.file_release and any(b.release not in (None, fixture.file_release) for b in fixture.blocks):
        raise ExpectationError(f"{path}: the file's own kubernetes-version comment wins over expect-release; drop one of them")
    return fixture


def covered(fixture: Fixture, problems: list[Problem]) -> list[Problem]:
    if not fixture.codes:
        return list(problems)
    return [p for p in problems if p.rule.startswith(fixture.codes)]


def compare(expectations: list[Expectation], problems: list[Problem]) -> list[str]:
    """Differences between what a block expects and what the run reported, one line each; [] when equal."""
    wanted = Counter(e.key for e in expectations)
    got = Counter(key_of(p) for p in problems)
    report = [f"- {key.render()}   (expected, not reported)" for key in sorted((wanted - got).elements(), key=_order)]
    report += [f"+ {key.render()}   (reported, not expected)" for key in sorted((got - wanted).elements(), key=_order)]
    by_key: dict[Key, list[Problem]] = {}
    for problem in problems:
        by_key.setdefault(key_of(problem), []).append(problem)
    for expectation in expectations:
        candidates = by_key.get(expectation.key, [])
        if candidates and not any(_details_match(expectation, p) for p in candidates):
            problem = candidates[0]
            span = problem.span
            report.append(
                f"~ {expectation.render()[len('# expect: '):]}   (reported as {span.end_line}:{span.end_column} {problem.message!r})"
            )
    return report


def _details_match(expectation: Expectation, problem: Problem) -> bool:
    span = problem.span
    if expectation.end is not None and expectation.end != (span.end_line, span.end_column):
        return False
    if expectation.equals is not None and problem.message != expectation.equals:
        return False
    return all(text in problem.message for text in expectation.contains)


def _order(key: Key) -> tuple:
    return (key.line, key.column, key.code, key.path)


def check_fixture(path: str | Path, *, rules: ModuleType | Iterable[Rule] = (), rules_dirs: Iterable[str | Path] = (),
                  plugins: bool = False) -> list[str]:
    """Differences between a fixture's `# expect:` lines and a real lint of it; [] when they agree.

    The file is linted as `dralint --no-config` lints it, once per `# expect-release:` block,
    with `# expect-select:`/`# expect-ignore:` applied and only the codes of `# expect-codes:`
    compared. `rules`: a module whose `@rule` functions join the built-ins (or the rules
    themselves); `rules_dirs`: as `--rules-dir`; `plugins`: also installed entry-point plugins.
    """
    from .config import Overrides, build_options  # the front door's own defaults (release, gates)
    from .pipeline.run import lint
    from .pipeline.sources import collect
    from .registry import rules_in_module

    fixture = read_fixture(Path(path))
    extra = tuple(rules_in_module(rules) if isinstance(rules, ModuleType) else rules)
    differences: list[str] = []
    for block in fixture.blocks:
        options, _ = build_options(Overrides(kubernetes_version=block.release, select=fixture.select, ignore=fixture.ignore,
                                             rules_dirs=tuple(str(d) for d in rules_dirs), no_plugins=not plugins, no_config=True))
        options.extra_rules = options.extra_rules + extra
        problems = lint(collect([str(path)]), options).problems
        where = block.release or fixture.file_release or "the default release"
        differences += [f"{path} at {where}: {line}" for line in compare(block.expectations, covered(fixture, problems))]
    return differences
