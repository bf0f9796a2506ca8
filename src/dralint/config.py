"""`.dralint.yaml`: project settings, found upward from the working directory.

    kubernetes-version: "1.35"
    feature-gates: {DRAListTypeAttributes: true}   # what the cluster runs (default: the release's defaults)
    fail-on: error
    select: [DRA1, DRA3]          # codes, slugs or code prefixes
    ignore: [DRA011]
    severity: {DRA011: error}     # re-level rules
    rules-dirs: [lint/rules]      # relative to the config file
    policies: [lint/gpu-policy.yaml]
    plugins: true                 # load rules from installed entry points
    jobs: 4                       # worker processes (default: the usable cores; at most 2 per core; 1: serial)
    cache-dir: .dralint_cache     # the result cache (relative to the config file; default: beside it)

Command-line options win over the file; lists given on the command line are
added to the file's. Every front door turns what it was told into `Overrides`
and gets typed `LintOptions` (for `lint()`) and `Settings` (output and exit
policy) back.
"""

from __future__ import annotations

import os

from . import schemas
from .model import Document, Severity
from .pipeline.gate_settings import check_gates, gate_mapping, parse_gate_list
from .pipeline.options import LintOptions, known_codes
from .pipeline.releases import parse_release, supported_release
from .pipeline.selection import Selection
from .records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

CONFIG_NAMES = (".dralint.yaml", ".dralint.yml")
KNOWN_KEYS = {
    "kubernetes-version",
    "target-version",
    "format",
    "fail-on",
    "select",
    "ignore",
    "severity",
    "rules-dirs",
    "policies",
    "plugins",
    "rule-options",
    "feature-gates",
    "ignore-paths",
    "jobs",
    "cache-dir",
}
SEVERITIES = ("error", "warning", "info")


class ConfigError(Exception):
    """A setting that cannot be used: a usage error (exit 2) naming the file and line."""


class Overrides(NamedRecord):
    """What the command line (or another front door) says; empty means "not given"."""

    __slots__ = ()

    def __new__(
        _cls,
        kubernetes_version: str | None = None,
        target_version: str | None = None,
        format: str | None = None,
        fail_on: str | None = None,
        select: tuple[str, ...] = (),
        ignore: tuple[str, ...] = (),
        severity: tuple[str, ...] = (),  # CODE=LEVEL
        rules_dirs: tuple[str, ...] = (),
        policies: tuple[str, ...] = (),
        no_plugins: bool = False,
        config: str | None = None,  # an explicit file; else discovered
        no_config: bool = False,
        jobs: int | None = None,  # --jobs
        feature_gates: tuple[str, ...] = (),  # --feature-gates=A=true,B=false (repeatable)
        cache_dir: str | None = None,  # --cache-dir
        no_cache: bool = False,  # --no-cache
    ) -> "Overrides":
        return tuple_new(_cls, (kubernetes_version, target_version, format, fail_on, select, ignore, severity, rules_dirs, policies, no_plugins, config, no_config, jobs, feature_gates, cache_dir, no_cache))


class Settings(NamedRecord):
    """What the front door needs besides LintOptions (output and exit policy)."""

    __slots__ = ()

    def __new__(
        _cls,
        format: str = "auto",
        fail_on: Severity = Severity.ERROR,
        config_path: str | None = None,
        jobs: int | None = None,  # worker processes; None: one per usable core (dralint.pipeline.parallel)
        cache: bool = True,  # the result cache (dralint.pipeline.result_cache), unless --no-cache
        cache_dir: str | None = None,  # where it is; None: `.dralint_cache` at the project root
    ) -> "Settings":
        return tuple_new(_cls, (format, fail_on, config_path, jobs, cache, cache_dir))


def discover(start: str | None = None) -> str | None:
    """The nearest `.dralint.yaml` in `start` (default: the working directory) or a folder above it."""
    folder = os.path.realpath(start or os.getcwd())
    while True:
        for name in CONFIG_NAMES:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                return path
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


class ConfigFile(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        path: str,
        document: Document | None,  # None: an empty file
    ) -> "ConfigFile":
        return tuple_new(_cls, (path, document))

    @property
    def data(self) -> dict[str, Any]:
        return self.document.data if self.document is not None else {}

    def where(self, key: str, *, at_key: bool = False) -> str:
        """`file:line:column` of a setting's value (or key), for error messages."""
        if self.document is None:
            return self.path
        span = self.document.locate((key,), prefer_key=at_key)
        return f"{self.path}:{span.line}:{span.column}"

    def source_text(self, key: str) -> str | None:
        """A setting's value as written (YAML reads an unquoted 1.30 as the number 1.3)."""
        if self.document is None or self.document.text is None or (key,) not in self.document.positions:
            return None
        span = self.document.positions[(key,)].value
        if span.end_line != span.line:
            return None
        return self.document.text.split("\n")[span.line - 1][span.column - 1 : span.end_column - 1]


def read_config(path: str) -> ConfigFile:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from exc
    from .config_memo import recall, remember  # noqa: PLC0415 - only a run with a config file needs it

    document = recall(path, data)
    if document is None:
        from .pipeline.load import load  # noqa: PLC0415 - only a config not met before is loaded as YAML

        loaded = load(str(path), data)
        if loaded.problems:
            p = loaded.problems[0]
            raise ConfigError(f"{path}:{p.span.line}:{p.span.column}: {p.message}")
        if not loaded.documents:
            return ConfigFile(path, None)
        document = loaded.documents[0]
        remember(path, data, document)
    config = ConfigFile(path, document)
    if not isinstance(config.document.data, dict):
        raise ConfigError(f"{path}: the configuration must be a mapping")
    unknown = sorted(set(config.data) - KNOWN_KEYS, key=str)
    if unknown:
        from .k8s.suggest import close_matches  # only on this error path, not on every start-up

        hints = []
        for key in unknown:
            close = close_matches(str(key), sorted(KNOWN_KEYS))
            hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ConfigError(f"{config.where(str(unknown[0]), at_key=True)}: unknown setting {', '.join(hints)}; known: {', '.join(sorted(KNOWN_KEYS))}")
    return config


def build_options(overrides: Overrides) -> tuple[LintOptions, Settings]:
    """LintOptions and Settings from a front door's overrides plus the config file."""
    config = _config_file(overrides)
    raw = config.data if config else {}
    # Paths in the config file are relative to the file's folder.
    base = os.path.dirname(os.path.abspath(config.path)) if config else os.getcwd()

    given = _release(overrides.kubernetes_version, config, "kubernetes-version", supported_release)
    release = given or schemas.DEFAULT_RELEASE
    target = _release(overrides.target_version, config, "target-version", parse_release)
    if given and target and schemas.release_key(target) < schemas.release_key(given):
        # The upgrade check looks ahead from the release judged against; below it, every version that
        # release serves but the older one did not would read as "removed". (Without a release given, a
        # file's own release comment may well lie below the target.)
        raise ConfigError(
            f"target-version {target} is older than kubernetes-version {release}: the upgrade check looks "
            f"ahead, so give a release from {release} on (or judge against {target} with -k {target})"
        )
    selection = Selection(
        select=_split([*_list(config, "select"), *overrides.select]),
        ignore=_split([*_list(config, "ignore"), *overrides.ignore]),
        severities=_severities(config, overrides.severity),
    )
    plugins = raw.get("plugins", True)
    if not isinstance(plugins, bool):
        raise ConfigError(f"{config.where('plugins')}: 'plugins' must be true or false")
    rule_options = raw.get("rule-options", {})
    if not isinstance(rule_options, dict):
        raise ConfigError(f"{config.where('rule-options')}: 'rule-options' must be a mapping")
    policies = [os.path.join(base, p) for p in _list(config, "policies")] + list(overrides.policies)
    extra_rules = _policy_rules(policies) if policies else []
    rules_dirs = [os.path.realpath(os.path.join(base, d)) for d in _list(config, "rules-dirs")] + list(overrides.rules_dirs)
    options = LintOptions(
        release,
        rules_dirs=rules_dirs,
        plugins=plugins and not overrides.no_plugins,
        selection=selection,
        rule_options=rule_options,
        extra_rules=extra_rules,
        target_version=target,
        feature_gates=_feature_gates(config, rule_options, overrides.feature_gates, release),
    )
    if options.builtin_rules_only() and not (selection.select or selection.ignore or selection.severities or raw.get("ignore-paths") is not None):
        # Nothing names a rule and no rule comes from elsewhere: the rules load when a file is judged, and a
        # re-run the result cache answers whole loads none (a plugin's or a rules folder's that fails to load
        # is a usage error here, before any file).
        return options, _settings(overrides, config)
    known = _known_codes(options)
    unknown = selection.unknown(known)
    if unknown:
        raise ConfigError(f"unknown rule {unknown[0]!r} (see 'dralint rules')")
    if raw.get("ignore-paths") is not None:
        # Imported only when configured: a clean file's start-up does not load its dataclasses and difflib.
        from .pipeline.ignore_paths import SuppressionError, ignore_paths

        try:
            options.ignore_paths = ignore_paths(raw["ignore-paths"], config.path, known)
        except SuppressionError as exc:
            raise ConfigError(str(exc)) from exc
    return options, _settings(overrides, config)


def _known_codes(options: LintOptions) -> dict[str, str]:
    """code -> slug of every check and rule the run can report, to validate the codes a config names.

    With the built-in rules only (and policies), the package's rule index names their codes, so no rule
    module is imported before a file needs it (a re-run the result cache answers whole imports none,
    bench/startup.py); tests/test_rule_index.py keeps the index equal to the rules' own declarations.
    Otherwise every rule is loaded, so that a plugin or rules folder that fails to load is a usage error
    here, before any file.
    """
    builtin = options.builtin_by_kind()
    if builtin is None:
        return known_codes(options.rules())
    known = known_codes(())
    known.update(builtin.codes)
    known.update(known_codes(options.extra_rules))
    return known


def _policy_rules(paths: list[str]) -> list:
    # Imported only for runs with policies: a pre-commit hook's start-up does not load dataclasses and pathlib.
    from .policy import PolicyError, load_policies

    try:
        return load_policies(paths)
    except PolicyError as exc:
        raise ConfigError(str(exc)) from exc


def _config_file(overrides: Overrides) -> ConfigFile | None:
    if overrides.no_config:
        return None
    path = overrides.config or discover()
    if path is None:
        return None
    if not os.path.isfile(path):
        raise ConfigError(f"config file {path} does not exist")
    return read_config(path)


def _settings(overrides: Overrides, config: ConfigFile | None) -> Settings:
    raw = config.data if config else {}
    fail_on = overrides.fail_on or raw.get("fail-on") or "error"
    if fail_on not in SEVERITIES:
        where = config.where("fail-on") if config and not overrides.fail_on else "--fail-on"
        raise ConfigError(f"{where}: fail-on must be one of {', '.join(SEVERITIES)}, not {fail_on!r}")
    fmt = overrides.format or raw.get("format") or "auto"
    if not isinstance(fmt, str):
        raise ConfigError(f"{config.where('format')}: 'format' must be a string")
    return Settings(format=fmt, fail_on=Severity.parse(fail_on), config_path=config.path if config else None, jobs=_jobs(overrides, config),
                    cache=not overrides.no_cache, cache_dir=_cache_dir(overrides, config))


def _cache_dir(overrides: Overrides, config: ConfigFile | None) -> str | None:
    if overrides.cache_dir:
        return overrides.cache_dir
    value = config.data.get("cache-dir") if config else None
    if value is None:
        return None
    assert config is not None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{config.where('cache-dir')}: 'cache-dir' must be a folder name, not {value!r}")
    return os.path.join(os.path.dirname(os.path.abspath(config.path)), value)


def _jobs(overrides: Overrides, config: ConfigFile | None) -> int | None:
    if overrides.jobs is not None:
        if overrides.jobs < 1:
            raise ConfigError(f"--jobs must be at least 1 (1: serial), not {overrides.jobs}")
        return overrides.jobs
    value = config.data.get("jobs") if config else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        assert config is not None
        raise ConfigError(f"{config.where('jobs')}: 'jobs' must be a whole number of worker processes, at least 1 (1: serial), not {value!r}")
    return value


def _release(given: str | None, config: ConfigFile | None, key: str, parse: Any) -> str | None:
    """A release from the command line, else from the config file, checked by `parse`."""
    if given:
        try:
            return parse(given)
        except ValueError as exc:
            raise ConfigError(f"--{key}: {exc}") from None
    if config is None or config.data.get(key) is None:
        return None
    value = config.data[key]
    if isinstance(value, float):
        value = config.source_text(key) or str(value)  # 1.30 unquoted: take it as written
    try:
        return parse(str(value))
    except ValueError as exc:
        raise ConfigError(f"{config.where(key)}: {key}: {exc}") from None


def _feature_gates(config: ConfigFile | None, rule_options: dict, given: tuple[str, ...], release: str) -> dict[str, bool]:
    """The cluster's gates: `rule-options: feature-gates`, then the top-level `feature-gates:`, then
    `--feature-gates` (each over the one before), checked as kube-apiserver of `release` would."""
    settings: dict[str, bool] = {}
    for key, value in (("rule-options", rule_options.get("feature-gates")), ("feature-gates", config.data.get("feature-gates") if config else None)):
        if value is None:
            continue
        assert config is not None
        try:
            settings.update(gate_mapping(value, config.where(key)))
            check_gates(settings, release)
        except ValueError as exc:
            raise ConfigError(f"{config.where(key)}: {exc}" if not str(exc).startswith(config.path) else str(exc)) from None
    for text in given:
        try:
            found = parse_gate_list(text)
            check_gates(found, release)
        except ValueError as exc:
            raise ConfigError(f"--feature-gates: {exc}") from None
        settings.update(found)
    return settings


def _severities(config: ConfigFile | None, given: tuple[str, ...]) -> dict[str, Severity]:
    severities: dict[str, Severity] = {}
    configured = config.data.get("severity", {}) if config else {}
    if not isinstance(configured, dict):
        raise ConfigError(f"{config.where('severity')}: 'severity' must map rule codes to error, warning or info")
    for code, level in configured.items():
        try:
            severities[str(code)] = Severity.parse(str(level))
        except ValueError as exc:
            raise ConfigError(f"{config.where('severity')}: {code}: {exc}") from None
    for item in _split(list(given)):
        code, sep, level = item.partition("=")
        if not sep:
            raise ConfigError(f"--severity takes CODE=LEVEL, got {item!r}")
        try:
            severities[code.strip()] = Severity.parse(level)
        except ValueError as exc:
            raise ConfigError(f"--severity {item}: {exc}") from None
    return severities


def _list(config: ConfigFile | None, key: str) -> list[str]:
    if config is None:
        return []
    value = config.data.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{config.where(key)}: '{key}' must be a list of strings")
    return value


def _split(values: list[str]) -> list[str]:
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


__all__ = ["ConfigError", "Overrides", "Settings", "build_options", "discover", "read_config"]
