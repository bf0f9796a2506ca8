"""Finding rules: the built-in `dralint.rules` package, `--rules-dir` folders and the `dralint.rules` entry points.

The built-in rules are loaded the way a plugin package is (`rules_in_package`),
so they can use nothing a plugin could not.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable
from types import ModuleType

from . import jsondata

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

    from .api import Rule

BUILTIN_PACKAGE = "dralint.rules"


class RuleLoadError(Exception):
    """A plugin or rules folder could not be loaded; a usage error (exit 2)."""


def rules_in_module(module: ModuleType) -> list[Rule]:
    found = []
    for value in vars(module).values():
        rule = getattr(value, "__dralint_rule__", None)
        if isinstance(rule, _rule_class()) and getattr(value, "__module__", None) == module.__name__:
            found.append(rule)
    return found


def rules_in_package(package: ModuleType) -> list[Rule]:
    """Every `@rule` of a package and of its modules; modules starting with `_` are helpers."""
    rules = rules_in_module(package)
    for folder in getattr(package, "__path__", []):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py") and not name.startswith("_"):
                module = importlib.import_module(f"{package.__name__}.{name[:-3]}")
                rules.extend(rules_in_module(module))
    return rules


_namespaces: dict[str, str] = {}  # real path of a rules folder -> its package name in this process


def folder_namespace(folder: str) -> str:
    """The package name a rules folder is mounted as: one per folder, whatever the load order."""
    real = os.path.realpath(folder)
    return _namespaces.setdefault(real, f"dralint_user_rules_{len(_namespaces)}")


def load_rules_dir(folder: str, *, namespace: str | None = None) -> list[Rule]:
    """Every `@rule` in the `*.py` files of `folder`.

    The folder is mounted as a package named `namespace`, so its modules can
    share helpers with relative imports (`from ._shared import ...`); files
    starting with `_` are helpers, not rule modules.
    """
    folder = str(folder)
    namespace = namespace or folder_namespace(folder)
    if not os.path.isdir(folder):
        raise RuleLoadError(f"rules folder {folder} does not exist")
    package = sys.modules.get(namespace)
    if package is None:
        package = ModuleType(namespace)
        package.__path__ = [folder]  # type: ignore[attr-defined]
        package.__package__ = namespace
        sys.modules[namespace] = package
    rules: list[Rule] = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py") or name.startswith("_"):
            continue
        file = os.path.join(folder, name)
        try:
            module = importlib.import_module(f"{namespace}.{name[:-3]}")
        except Exception as exc:  # a broken plugin must be a clear usage error, not a traceback
            raise RuleLoadError(f"cannot load rules from {file}: {type(exc).__name__}: {exc}") from exc
        rules.extend(rules_in_module(module))
    return rules


def entry_points_of(group: str) -> list[tuple[str, str]]:
    """(name, "module:attr") of every installed entry point in `group`, first distribution on sys.path wins
    (read once per group and sys.path in a process).

    Reads `*.dist-info/entry_points.txt` directly: importlib.metadata imports
    email, zipfile, csv and more (a large part of a pre-commit hook's start-up,
    bench/startup.py) to answer what a directory listing answers.
    """
    key = (group, tuple(sys.path))
    if key not in _entry_points:
        _entry_points[key] = _read_entry_points(group)
    return _entry_points[key]


_entry_points: dict[tuple, list[tuple[str, str]]] = {}


def _read_entry_points(group: str) -> list[tuple[str, str]]:
    found: dict[str, str] = {}
    seen_dists: set[str] = set()
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in sorted(names):
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            dist = name.rsplit("-", 1)[0].lower().replace("_", "-") if name.count("-") else name
            if dist in seen_dists:
                continue
            seen_dists.add(dist)
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as handle:
                    text = handle.read()
            except OSError:
                continue
            for ep_name, value in _entry_points_in(text, group):
                found.setdefault(ep_name, value)
    return sorted(found.items())


def _entry_points_in(text: str, group: str) -> list[tuple[str, str]]:
    out, current = [], None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            continue
        if current == group and "=" in line:
            name, _, value = line.partition("=")
            # "module:attr [extra]" -> drop the extras marker, as importlib.metadata does.
            out.append((name.strip(), value.split("[")[0].strip()))
    return out


def load_entry_points(group: str = "dralint.rules") -> list[Rule]:
    rules: list[Rule] = []
    for name, value in entry_points_of(group):
        module_name, _, attr = value.partition(":")
        try:
            target: Any = importlib.import_module(module_name.strip())
            for part in filter(None, attr.strip().split(".")):
                target = getattr(target, part)
        except Exception as exc:
            raise RuleLoadError(f"cannot load plugin {name!r} ({value}): {type(exc).__name__}: {exc}") from exc
        rules.extend(_rules_from(target, name))
    return rules


def _rules_from(target: Any, name: str) -> list[Rule]:
    if isinstance(target, ModuleType):
        return rules_in_package(target) if hasattr(target, "__path__") else rules_in_module(target)
    Rule = _rule_class()
    if isinstance(getattr(target, "__dralint_rule__", None), Rule):
        return [target.__dralint_rule__]
    if callable(target):
        produced = target()
        out: list[Rule] = []
        for item in produced if isinstance(produced, Iterable) else []:
            rule = item if isinstance(item, Rule) else getattr(item, "__dralint_rule__", None)
            if not isinstance(rule, Rule):
                raise RuleLoadError(f"plugin {name!r} returned {item!r}, which is not a rule")
            out.append(rule)
        return out
    raise RuleLoadError(f"plugin {name!r} is neither a module, a rule nor a callable returning rules")


def _rule_class() -> type:
    from .api import Rule  # noqa: PLC0415 - what only needs the names here (the result cache's key) loads no rule API

    return Rule


# What each built-in rule module declares, read without importing it (rules/kinds.json, written by
# tools/gen_rule_index.py; tests/test_rule_index.py checks it against the modules): a run of built-in
# rules only imports the modules with a rule for the kinds it meets (`BuiltinRules`).
INDEX_FILE = "kinds.json"


def builtin_index() -> dict[str, Any]:
    """module -> {"kinds": the kinds its document rules judge, "always": whether it must load for every run
    (a run-scope rule, or a document rule of every kind), "codes": code -> slug}, from every built-in rule."""
    package = importlib.import_module(BUILTIN_PACKAGE)
    modules: dict[str, Any] = {}
    if rules_in_module(package):
        raise RuleLoadError(f"{BUILTIN_PACKAGE} declares rules in its __init__: the index has no place for them")
    for rule in rules_in_package(package):
        entry = modules.setdefault(rule.origin.rpartition(".")[2], {"kinds": set(), "always": False, "codes": {}})
        entry["codes"][rule.code] = rule.slug
        if rule.scope != "document" or rule.kinds is None:
            entry["always"] = True
        else:
            entry["kinds"].update(rule.kinds)
    return {name: {"kinds": sorted(e["kinds"]), "always": e["always"], "codes": dict(sorted(e["codes"].items()))}
            for name, e in sorted(modules.items())}


_index_file: list[dict[str, Any] | None] = []  # the package's index, once read


class BuiltinRules:
    """The built-in rules of a run, imported module by module: first those every document needs, then,
    as each kind turns up, the modules with a rule for it. `codes`: code -> slug of every built-in rule."""

    def __init__(self, index: dict[str, Any]):
        self._index = index
        self._loaded: set[str] = set()
        self.codes = dict(sorted((code, slug) for entry in index.values() for code, slug in entry["codes"].items()))

    @classmethod
    def from_package(cls) -> BuiltinRules | None:
        """From the package's index file, read once in a process (a server makes a run per request); None when
        it has none (every rule is then loaded at once)."""
        if not _index_file:
            _index_file.append(None)
            package = importlib.import_module(BUILTIN_PACKAGE)
            for folder in getattr(package, "__path__", []):
                try:
                    _index_file[0] = jsondata.load(os.path.join(folder, INDEX_FILE))["modules"]
                    break
                except OSError:
                    continue
        return None if _index_file[0] is None else cls(_index_file[0])

    def always(self) -> list[Rule]:
        return self._load(name for name, entry in self._index.items() if entry["always"])

    def for_kind(self, kind: str | None) -> list[Rule]:
        """The rules of the modules not loaded yet that judge `kind` (none for a document without a kind)."""
        return self._load(name for name, entry in self._index.items() if kind in entry["kinds"])

    def _load(self, names: Iterable[str]) -> list[Rule]:
        rules: list[Rule] = []
        for name in names:
            if name not in self._loaded:
                self._loaded.add(name)
                rules.extend(rules_in_module(importlib.import_module(f"{BUILTIN_PACKAGE}.{name}")))
        return sorted(rules, key=lambda r: r.code)


_cache: dict[tuple, list[Rule]] = {}


def all_rules(rules_dirs: Iterable[str] = (), *, plugins: bool = True) -> list[Rule]:
    key = (tuple(str(d) for d in rules_dirs), plugins)
    if key in _cache:
        return _cache[key]
    rules = rules_in_package(importlib.import_module(BUILTIN_PACKAGE))
    if plugins:
        rules += load_entry_points()
    for folder in rules_dirs:
        rules += load_rules_dir(str(folder))
    codes: dict[str, Rule] = {}
    for rule in rules:
        if rule.code in codes and codes[rule.code] is not rule:
            other = codes[rule.code]
            raise RuleLoadError(f"rule code {rule.code} is declared twice: by {other.origin} and by {rule.origin}")
        codes[rule.code] = rule
    result = sorted(codes.values(), key=lambda r: r.code)
    _cache[key] = result
    return result
