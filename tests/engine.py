"""The one door from the tests into the engine, in process.

Every in-process lint in the suite goes through `lint_paths` (or the
shorthands below), so a change to `dralint.lint.lint()` and its options is one edit
here. It runs what `dralint --no-config` runs: the release from the command
line unless a file names its own, select/ignore/severity, policies, and
inline `# dralint:` suppressions (which `lint()` applies itself).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Iterable

from dralint.api import Rule
from dralint.config import Overrides, build_options
from dralint.lint import LintOptions, LintResult, lint, lint_documents
from dralint.model import Document, Problem, format_path
from dralint.pipeline.sources import collect

# What the report in every format reads besides the problems (`LintOptions.keep`).
REPORTED = ("texts", "objects", "fixes")


def lint_paths(
    paths: Iterable[str | Path],
    release: str | None = None,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    severities: dict[str, str] | None = None,
    stdin: str | bytes | None = None,
    policies: Iterable[str | Path] = (),
    feature_gates: dict[str, bool] | None = None,
    keep: Iterable[str] | None = None,
    rules: Iterable[Rule] = (),
) -> LintResult:
    """`dralint --no-config -k RELEASE --feature-gates ... --select ... --policy ... PATHS` in process; "-" reads `stdin`.

    `keep`: what the result keeps for a report (`REPORTED`: what every format reads, as the CLI keeps
    it, positions settled file by file); None keeps the documents, as the Python API does.
    `rules`: rules besides the built-in ones (`LintOptions.extra_rules`)."""
    options, _ = build_options(
        Overrides(
            kubernetes_version=release,
            select=tuple(select),
            ignore=tuple(ignore),
            severity=tuple(f"{code}={level}" for code, level in (severities or {}).items()),
            policies=tuple(str(p) for p in policies),
            no_config=True,
            feature_gates=tuple(f"{gate}={str(on).lower()}" for gate, on in (feature_gates or {}).items()),
        )
    )
    if keep is not None:
        options.keep = frozenset(keep)
    options.extra_rules = (*options.extra_rules, *rules)  # after the policies' rules
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return lint(collect([str(p) for p in paths], stdin=io.BytesIO(data or b"")), options)


def lint_fixture(path: str | Path, release: str | None = None, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Problem]:
    """The problems of one file, sorted as every report sorts them."""
    return lint_paths([path], release=release, select=select, ignore=ignore).problems


def lint_text(text: str, release: str | None = None, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> list[Problem]:
    """The problems of a manifest given as text (named "-", like stdin)."""
    return lint_paths(["-"], release=release, select=select, ignore=ignore, stdin=text).problems


def brief(problems: list[Problem]) -> list[tuple]:
    """(rule, path, line, column) of each problem: the shape most assertions compare."""
    return [(p.rule, format_path(p.path), p.span.line, p.span.column) for p in problems]


def lint_documents_in_process(documents: list[Document], release: str) -> list[Problem]:
    """The problems of documents already loaded (what the admission webhook lints)."""
    return lint_documents(documents, LintOptions(release=release)).problems
