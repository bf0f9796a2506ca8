"""What a lint run checks and how (`LintOptions`), apart from the run itself (dralint.pipeline.run).

Its own module so that what only needs the options (the configuration, the result cache answering a
re-run from what it stored, the reports) does not load the loader, the schema checker and the rest of
the pipeline (bench/startup.py). `dralint.pipeline.run` and `dralint.lint` re-export it.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import schemas
from ..catalog import ENGINE_CHECKS
from ..model import Document, Problem, Record
from .selection import Selection

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterable

    from ..api import Rule
    from ..registry import BuiltinRules
    from .ignore_paths import IgnorePaths

PLUGIN_GROUP = "dralint.rules"  # the entry points plugins declare their rules under

# Adds fixes to the problems of one file, given its documents (e.g. dralint.migration_fixes).
Fixer = Callable[[list[Problem], list[Document]], None]


class LintOptions(Record):
    """What to check and how. Every front door builds one (the CLI and the webhook from
    the command line and `.dralint.yaml`, see `dralint.config`) and hands it to `lint`."""

    __slots__ = ("release", "rules_dirs", "plugins", "selection", "rule_options", "extra_rules", "target_version", "ignore_paths", "inline_suppressions", "fixers", "keep", "feature_gates", "origins")

    def __init__(
        self,
        release: str = schemas.DEFAULT_RELEASE,
        *,
        rules_dirs: Iterable[str] = (),
        plugins: bool = True,
        selection: Selection | None = None,
        rule_options: dict[str, Any] | None = None,
        extra_rules: Iterable[Rule] = (),
        target_version: str | None = None,
        ignore_paths: "IgnorePaths | None" = None,
        inline_suppressions: bool = True,
        fixers: Iterable[Fixer] = (),
        keep: Iterable[str] | None = None,
        feature_gates: dict[str, bool] | None = None,
    ):
        self.release = release  # the default; a file's `# dralint: kubernetes-version=` comment wins
        self.rules_dirs: tuple[str, ...] = tuple(rules_dirs)
        self.plugins = plugins  # rules from installed `dralint.rules` entry points
        self.selection = selection or Selection()
        self.rule_options: dict[str, Any] = rule_options or {}
        # The gates the cluster sets otherwise than the release's defaults (`--feature-gates`, the config's
        # `feature-gates:`; `rule-options: feature-gates` too, beneath them); a file's comment wins for it.
        configured = self.rule_options.get("feature-gates")
        self.feature_gates: dict[str, bool] = {
            **({k: v for k, v in configured.items() if isinstance(v, bool)} if isinstance(configured, dict) else {}),
            **(feature_gates or {}),
        }
        self.extra_rules: tuple[Rule, ...] = tuple(extra_rules)  # rules from no module: compiled CEL policies
        self.target_version = target_version  # upgrade check (DRA020/DRA021); may lie beyond the schemas
        self.ignore_paths = ignore_paths  # the config's `ignore-paths`, parsed
        self.inline_suppressions = inline_suppressions  # honour `# dralint: disable` comments
        # Attach fixes to a file's problems while its documents are at hand (`--fix`, the language server).
        self.fixers: tuple[Fixer, ...] = tuple(fixers)
        # What the report reads besides problems and counts: "texts" (the bytes of files with problems,
        # to quote lines), "objects" (every document's and file's name: junit), "fixes" (json, sarif).
        # None: all of it, fixes built when read (a document then lives as long as its problems).
        # A set (the CLI): the rest is let go file by file and fixes are built then, so no document
        # outlives its file and memory does not grow with the repository.
        self.keep: frozenset[str] | None = frozenset(keep) if keep is not None else None
        # Report a rendered stream's problems in the files its documents came from (dralint.pipeline.origins). Off where
        # the stream itself is edited: the language server's buffer, `--fix`.
        self.origins = True

    def at_the_stream(self) -> "LintOptions":
        """These options, reporting every problem where it stands in the source linted (no origins)."""
        if not self.origins:
            return self
        copy = LintOptions.__new__(LintOptions)
        for name in self.__slots__:
            setattr(copy, name, getattr(self, name))
        copy.origins = False
        return copy

    def rules(self) -> list[Rule]:
        """Every rule these options load, selected or not: loaded on the first call (a re-run the result cache
        answers whole loads none, dralint.pipeline.result_cache)."""
        from ..registry import all_rules  # noqa: PLC0415

        return [*all_rules(self.rules_dirs, plugins=self.plugins), *self.extra_rules]

    def builtin_by_kind(self) -> BuiltinRules | None:
        """The built-in rules, imported as the kinds they judge turn up (dralint.registry.BuiltinRules), when
        they are all the rules these options load besides policies; None otherwise: `rules()` then."""
        if not self.builtin_rules_only():
            return None
        from ..registry import BuiltinRules  # noqa: PLC0415

        return BuiltinRules.from_package()

    def builtin_rules_only(self) -> bool:
        """Whether the rules are the built-in ones (and policies): no rules folder, no plugin installed."""
        from ..registry import entry_points_of  # noqa: PLC0415

        return not self.rules_dirs and not (self.plugins and entry_points_of(PLUGIN_GROUP))


def known_codes(rules: Iterable[Rule]) -> dict[str, str]:
    """code -> slug for every engine check and rule, for validating select/ignore lists."""
    codes = {c.code: c.slug for c in ENGINE_CHECKS.values()}
    codes.update({r.code: r.slug for r in rules})
    return codes
