"""Which rules a run reports, and at what severity: `select`, `ignore` and `severity`.

One object answers both questions for every stage and front door (rules that
are not selected do not run, problems are filtered and re-levelled, unused
suppressions of unselected rules are not reported, the webhook's own checks).
A selector is a rule code, a code prefix (`DRA3`) or a slug (`unknown-field`).
"""

from __future__ import annotations

from ..model import Problem, Severity

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterable, Mapping


class Selection:
    __slots__ = ("select", "ignore", "severities", "_verdicts")

    def __init__(
        self,
        select: Iterable[str] = (),
        ignore: Iterable[str] = (),
        severities: Mapping[str, Severity] | None = None,
    ):
        self.select: tuple[str, ...] = tuple(select)  # empty: every rule
        self.ignore: tuple[str, ...] = tuple(ignore)
        self.severities: dict[str, Severity] = dict(severities or {})  # code or slug -> severity
        # Asked once per problem: a run with 100k problems asks about a few dozen codes.
        self._verdicts: dict[tuple[str, str | None], bool] = {}

    def __repr__(self) -> str:
        return f"Selection(select={self.select!r}, ignore={self.ignore!r}, severities={self.severities!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Selection) and (self.select, self.ignore, self.severities) == (other.select, other.ignore, other.severities)

    __hash__ = None  # type: ignore[assignment]

    def selected(self, code: str, slug: str | None = None) -> bool:
        key = (code, slug)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = (not self.select or _matches(self.select, code, slug)) and not _matches(self.ignore, code, slug)
        return verdict

    def severity(self, code: str, slug: str | None, default: Severity) -> Severity:
        return self.severities.get(code) or (self.severities.get(slug) if slug else None) or default

    def apply(self, problems: Iterable[Problem]) -> list[Problem]:
        """The selected problems, re-levelled as configured."""
        kept: list[Problem] = []
        for problem in problems:
            if not self.selected(problem.rule, problem.name):
                continue
            if self.severities:
                problem.severity = self.severity(problem.rule, problem.name, problem.severity)
            kept.append(problem)
        return kept

    def unknown(self, known: Mapping[str, str]) -> list[str]:
        """Selectors that name no code, prefix or slug of `known` (code -> slug): typos that
        would silently switch a rule off, or everything else off."""
        slugs = set(known.values())
        return [
            selector
            for selector in (*self.select, *self.ignore, *self.severities)
            if selector not in slugs and not any(code.startswith(selector) for code in known)
        ]


def _matches(selectors: tuple[str, ...], code: str, slug: str | None) -> bool:
    return any(code.startswith(s) or s == slug for s in selectors)
