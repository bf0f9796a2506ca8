"""Every call the language server makes into the lint engine, in this one module.

The server hands over a buffer (path + text) and gets back problems, the loaded
documents (for hover) and the release they were judged at. Options come from
the same `.dralint.yaml` discovery as the command line, searched upward from
the buffer's folder (an editor's working directory is arbitrary), and are
cached until the config file changes.
"""

from __future__ import annotations

import os

from .. import schemas
from ..commands import all_checks
from ..config import ConfigError, Overrides, build_options, discover
from ..fix import fix_text
from ..migration_fixes import with_fixes
from ..model import Document, Problem
from ..pipeline.load import load
from ..pipeline.releases import file_release
from ..pipeline.run import LintOptions, lint
from ..pipeline.sources import Source
from ..records import NamedRecord, tuple_new
from ..registry import RuleLoadError
from . import incremental, workspace
from .encode import lintable

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any


class Outcome(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        problems: list[Problem],
        kubernetes: bool,  # the buffer holds at least one Kubernetes object (else: stay silent)
    ) -> "Outcome":
        return tuple_new(_cls, (problems, kubernetes))


class BufferConfig(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        options: LintOptions,
        config_path: str | None,
        error: str | None,  # the config file could not be used; defaults apply
    ) -> "BufferConfig":
        return tuple_new(_cls, (options, config_path, error))


_settings: dict[tuple[str | None, int], BufferConfig] = {}


def config_key(path: str) -> tuple[str | None, int]:
    """Which config judges a buffer at `path`: its nearest `.dralint.yaml` (None: the defaults) and that file's mtime."""
    config = discover(os.path.dirname(os.path.abspath(path)))
    try:
        stamp = os.stat(config).st_mtime_ns if config else 0
    except OSError:
        stamp = 0
    return config, stamp


def settings_for(path: str) -> BufferConfig:
    """Options for a buffer at `path`: its nearest `.dralint.yaml`, as the CLI would read it."""
    key = config_key(path)
    found = _settings.get(key)
    if found is None:
        found = _settings[key] = _build(key[0])
    return found


def _build(config: str | None) -> BufferConfig:
    error = None
    try:
        options, _ = build_options(Overrides(config=config, no_config=config is None))
    except (ConfigError, RuleLoadError) as exc:
        error = str(exc)
        options, _ = build_options(Overrides(no_config=True))
    return BufferConfig(with_fixes(options), config, error)


def config_error(path: str) -> str | None:
    """Why the buffer's `.dralint.yaml` could not be used (its defaults apply), if it could not."""
    return settings_for(path).error


def forget_settings() -> None:
    """A config changed: its options, and what the workspace index read with them, are stale."""
    _settings.clear()
    workspace.forget()
    incremental.forget()


# "Not defined in the linted files": in the editor, what the workspace does not define lives in the
# cluster, and saying so at every reference is noise.
OUTSIDE_THE_WORKSPACE = frozenset({"DRA712", "DRA713"})


def lint_buffer(path: str, text: str, folders: tuple[str, ...] = ()) -> Outcome:
    """The buffer's problems, its references judged against what the workspace `folders` define."""
    index = workspace.index_for(folders, settings_for)
    known = index.known(path) if index is not None else None
    options = settings_for(path).options
    # Document by document, only the changed ones checked again (dralint.lsp.incremental); else the whole.
    result = incremental.lint_pieces(path, text, options, known)
    if result is None:
        result = lint([Source(path, lintable(text))], options.at_the_stream(), known=known)
    problems = [p for p in result.problems if p.source == path and p.rule not in OUTSIDE_THE_WORKSPACE]
    # Files without a Kubernetes object (dralint.pipeline.triage) get nothing: other YAML servers run beside this one.
    kubernetes = not result.files_passed_over and (result.documents > 0 or ("apiVersion" in text and "kind" in text))
    return Outcome(problems, kubernetes)


def fix_buffer(path: str, text: str) -> str:
    """The buffer with every applicable fix applied, as `dralint --fix` would write it."""
    # A lone surrogate cannot be written as UTF-8: the fixed text has U+FFFD in its place.
    return fix_text(path, lintable(text).decode("utf-8"), settings_for(path).options)


def documents(path: str, text: str) -> list[Document]:
    return load(path, lintable(text)).documents


def release_for(path: str, text: str, default: str) -> str:
    """The release a buffer is judged at: its header comment's, else `default` (its config's)."""
    return file_release(path, lintable(text), default)[0]


def schema_for(release: str, api_version: str | None, kind: str | None) -> dict[str, Any] | None:
    catalog = schemas.catalog(release)
    if catalog.served(api_version, kind) is None:
        return None
    return catalog.schema(api_version, kind)  # type: ignore[arg-type]


class ConfigFacts(NamedRecord):
    """What the language server answers hover and code actions from without asking the lint process again."""

    __slots__ = ()

    def __new__(
        _cls,
        docs: dict[str, dict[str, str]],  # rule_docs
        reads_others: frozenset[str],  # codes whose problems in a document can change when another document does
        release: str,  # the release the config judges at, unless a buffer's comment says otherwise
    ) -> "ConfigFacts":
        return tuple_new(_cls, (docs, reads_others, release))


# Reported once per file, on its first document of an apiVersion (dralint.pipeline.resolve.disabled_once_per_file).
ONCE_PER_FILE = frozenset({"DRA011"})


def config_facts(path: str) -> ConfigFacts:
    """The rule docs, the codes of the run-scope rules and the release of `path`'s config."""
    options = settings_for(path).options
    run_scope = frozenset(rule.code for rule in options.rules() if rule.scope == "run")
    return ConfigFacts(rule_docs(path), run_scope | ONCE_PER_FILE, options.release)


def rule_docs(path: str) -> dict[str, dict[str, str]]:
    """code -> {slug, severity, summary, doc} for the engine checks and every rule the buffer's config loads."""
    options = settings_for(path).options
    rows = all_checks(options.rules_dirs, plugins=options.plugins)
    docs = {row["code"]: row for row in rows}
    for rule in options.extra_rules:
        docs.setdefault(rule.code, {"code": rule.code, "slug": rule.slug, "severity": str(rule.severity), "summary": rule.summary, "doc": rule.doc})
    return docs
