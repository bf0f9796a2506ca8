"""`.dralint.yaml`: project settings, found upward from the working directory.

    kubernetes-version: "1.37"
    fail-on: error
    select: [DRA1, DRA3]          # codes, slugs or code prefixes
    ignore: [DRA011]
    severity: {DRA011: error}     # re-level rules
    rules-dirs: [lint/rules]      # relative to the config file
    policies: [lint/gpu-policy.yaml]
    plugins: true                 # load rules from installed entry points

Command-line options win over the file; lists given on the command line are
added to the file's.
"""


import os
from typing import Any, NamedTuple

from .model import Severity

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
    "ignore-paths",
}


class ConfigError(Exception):
    pass


class Settings(NamedTuple):
    """What the front door needs besides LintOptions (output and exit policy)."""

    format: str = "auto"
    fail_on: str = "error"
    target_version: str | None = None
    config_path: str | None = None
    raw: dict[str, Any] = {}


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


def read_config(path: str) -> dict[str, Any]:
    from .load import load

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from exc
    loaded = load(str(path), data)
    if loaded.problems:
        p = loaded.problems[0]
        raise ConfigError(f"{path}:{p.span.line}:{p.span.column}: {p.message}")
    if not loaded.documents:
        return {}
    raw = loaded.documents[0].data
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the configuration must be a mapping")
    unknown = sorted(set(raw) - KNOWN_KEYS)
    if unknown:
        import difflib

        hints = []
        for key in unknown:
            close = difflib.get_close_matches(str(key), sorted(KNOWN_KEYS), n=1)
            hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ConfigError(f"{path}: unknown setting {', '.join(hints)}; known: {', '.join(sorted(KNOWN_KEYS))}")
    return raw


def _list(raw: dict[str, Any], key: str, path: str | None) -> list[str]:
    value = raw.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: '{key}' must be a list of strings")
    return value


def _split(values: list[str]) -> list[str]:
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def build_options(args: Any) -> tuple[Any, Settings]:
    """LintOptions and Settings from parsed command-line arguments plus the config file."""
    from . import schemas
    from .lint import LintOptions

    config_path: str | None = None
    raw: dict[str, Any] = {}
    if not getattr(args, "no_config", False):
        config_path = str(args.config) if getattr(args, "config", None) else discover()
        if config_path is not None:
            if not os.path.isfile(config_path):
                raise ConfigError(f"config file {config_path} does not exist")
            raw = read_config(config_path)
    # Paths in the config file are relative to the file's folder.
    base = os.path.dirname(os.path.abspath(config_path)) if config_path else os.getcwd()

    release = args.kubernetes_version or raw.get("kubernetes-version") or schemas.DEFAULT_RELEASE
    release = _release(str(release))
    target = getattr(args, "target_version", None) or raw.get("target-version")

    severities: dict[str, Severity] = {}
    config_sev = raw.get("severity", {})
    if not isinstance(config_sev, dict):
        raise ConfigError(f"{config_path}: 'severity' must map rule codes to error, warning or info")
    for code, level in config_sev.items():
        severities[str(code)] = Severity.parse(str(level))
    for item in _split(args.severity):
        code, sep, level = item.partition("=")
        if not sep:
            raise ConfigError(f"--severity takes CODE=LEVEL, got {item!r}")
        severities[code.strip()] = Severity.parse(level)

    rules_dirs = [os.path.realpath(os.path.join(base, d)) for d in _list(raw, "rules-dirs", config_path)] + list(args.rules_dir)
    plugins = raw.get("plugins", True)
    if not isinstance(plugins, bool):
        raise ConfigError(f"{config_path}: 'plugins' must be true or false")
    if getattr(args, "no_plugins", False):
        plugins = False
    rule_options = raw.get("rule-options", {})
    if not isinstance(rule_options, dict):
        raise ConfigError(f"{config_path}: 'rule-options' must be a mapping")

    options = LintOptions(
        release=release,
        rules_dirs=rules_dirs,
        plugins=plugins,
        select=_split(_list(raw, "select", config_path) + list(args.select)),
        ignore=_split(_list(raw, "ignore", config_path) + list(args.ignore)),
        severities=severities,
        rule_options=rule_options,
    )
    policies = [os.path.join(base, p) for p in _list(raw, "policies", config_path)] + list(getattr(args, "policy", []))
    if policies:
        from .policy import load_policies

        options.extra_rules.extend(load_policies(policies))
    if target:
        from .lifecycle import parse_release, target_version_postprocessor

        try:
            target = parse_release(str(target))  # may lie beyond the schemas: 1.38 is a fair upgrade target
        except ValueError as exc:
            raise ConfigError(f"--target-version: {exc}") from None
        options.postprocessors.append(target_version_postprocessor(target, release))
    # Last, so that it sees (and can suppress) what the other postprocessors add.
    ignore_paths = raw.get("ignore-paths")
    if ignore_paths is not None:
        from .suppress import SuppressionError, suppressions

        try:
            options.postprocessors.append(suppressions(options, ignore_paths, _as_path(config_path)))
        except SuppressionError as exc:
            raise ConfigError(str(exc)) from exc
    else:
        options.postprocessors.append(_inline_suppressions(options, config_path))

    settings = Settings(
        format=getattr(args, "format", None) or raw.get("format") or "auto",
        fail_on=getattr(args, "fail_on", None) or raw.get("fail-on") or "error",
        target_version=target,
        config_path=config_path,
        raw=raw,
    )
    _validate_codes(options)
    return options, settings


def _as_path(path: str | None) -> Any:
    from pathlib import Path  # only where suppressions are in play: pathlib is ~4 ms of start-up

    return Path(path) if path is not None else None


def _inline_suppressions(options: Any, config_path: str | None) -> Any:
    """Inline `# dralint:` comments, handled only for runs whose files have any.

    Most files have none; this spares them the suppression module's import.
    """

    def apply(problems: list, documents: list) -> list:
        texts = {id(doc.text): doc.text for doc in documents if doc.text}
        if not any("dralint" in text for text in texts.values()):
            return problems
        from .suppress import suppressions

        return suppressions(options, None, _as_path(config_path))(problems, documents)

    return apply


def _release(text: str) -> str:
    from . import schemas

    if text not in schemas.RELEASES:
        raise ConfigError(schemas.unsupported_release(text))
    return text


def _validate_codes(options: Any) -> None:
    """A typo in select/ignore would silently switch a rule off or everything else off: refuse it."""
    from .lint import known_codes
    from .registry import all_rules

    codes = known_codes([*all_rules(options.rules_dirs, plugins=options.plugins), *options.extra_rules])
    slugs = set(codes.values())
    for selector in [*options.select, *options.ignore, *options.severities]:
        if selector in slugs or any(code.startswith(selector) for code in codes):
            continue
        raise ConfigError(f"unknown rule {selector!r} (see 'dralint rules')")


__all__ = ["ConfigError", "Settings", "build_options", "discover", "read_config"]
