"""The config's `ignore-paths`: which problems of which files a `.dralint.yaml` suppresses.

File globs are relative to the config file's folder:

    ignore-paths:
      - examples/legacy/**                 # every rule, in these files
      - paths: [deploy/**/*.yaml]          # file globs (default: every file)
        rules: [DRA011, unknown-field]     # codes, slugs or code prefixes (default: every rule)
        fields: [status, "spec.devices.requests[*].name"]   # field-path globs (default: every field)

File globs: `*` and `?` stay inside one folder, `**` crosses folders; a
pattern without `/` matches a file name in any folder; a folder matches
everything below it. Field globs are matched against the API server's path
(`spec.devices.requests[0].name`): `*` is one field name, `[*]` one index or
map key, `**` anything; a field matches everything below it.

Applied, and reported when unused, with the inline comments (dralint.pipeline.suppress).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..model import Problem
from ..records import NamedRecord, tuple_new
from .globs import Chars, Element, Glob, Maybe, Star

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

UNUSED = "DRA900"  # unused-suppression: what no suppression suppresses but by naming it


class SuppressionError(ValueError):
    """A malformed `ignore-paths` setting (a usage error)."""


@dataclass
class IgnoreEntry:
    index: int
    files: list[Glob]
    file_globs: list[str]
    rules: list[str]  # codes, slugs or prefixes; empty: every rule
    fields: list[Glob]
    field_globs: list[str] = field(default_factory=list)

    def matches_file(self, relative: str | None) -> bool:
        if not self.files:
            return True
        return relative is not None and any(p.fullmatch(relative) for p in self.files)

    def matches(self, problem: Problem, relative: str | None) -> bool:
        if problem.rule == UNUSED:
            return False
        if self.rules and not any(problem.rule.startswith(r) or problem.name == r for r in self.rules):
            return False
        if self.fields and not any(p.fullmatch(problem.path_text) for p in self.fields):
            return False
        return self.matches_file(relative)


_ANY = Chars()
_NAME = Chars(but="/")  # a character of one folder or file name


def file_glob(pattern: str) -> Glob:
    """A file glob (`**` crosses folders) as a matcher of `/`-separated relative paths (linear time: dralint.pipeline.globs)."""
    pattern = pattern.strip().replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    anchored = "/" in pattern.rstrip("/")
    body = pattern.strip("/")
    out: list[Element] = [] if anchored else [Maybe((Star(_ANY), Chars("/")))]
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append(Maybe((Star(_ANY), Chars("/"))))
            i += 3
        elif body.startswith("**", i):
            out.append(Star(_ANY))
            i += 2
        elif body[i] == "*":
            out.append(Star(_NAME))
            i += 1
        elif body[i] == "?":
            out.append(_NAME)
            i += 1
        else:
            out.append(Chars(body[i]))
            i += 1
    out.append(Maybe((Chars("/"), Star(_ANY))))  # a folder matches everything below it
    return Glob(out, pattern)


def field_glob(pattern: str) -> Glob:
    """A field-path glob (`spec.devices.requests[*].name`) as a matcher of API server paths."""
    out: list[Element] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("[*]", i):
            out += [Chars("["), Star(Chars(but="]")), Chars("]")]
            i += 3
        elif pattern.startswith("**", i):
            out.append(Star(_ANY))
            i += 2
        elif pattern[i] == "*":
            out.append(Star(Chars(but=".[]")))
            i += 1
        else:
            out.append(Chars(pattern[i]))
            i += 1
    out.append(Maybe((Chars(".["), Star(_ANY))))  # a field matches everything below it
    return Glob(out, pattern)


class IgnorePaths(NamedRecord):
    """The config's `ignore-paths`, parsed: what `LintOptions.ignore_paths` holds."""

    __slots__ = ()

    def __new__(
        _cls,
        entries: list[IgnoreEntry],
        config_path: str | None,  # where the setting stands, to point at an unused entry
        base: str,  # the folder the file globs are relative to
    ) -> "IgnorePaths":
        return tuple_new(_cls, (entries, config_path, base))


def ignore_paths(raw: Any, config_path: str | None, known: dict[str, str]) -> IgnorePaths:
    """Parse and check `ignore-paths`; raises SuppressionError for a malformed setting."""
    base = os.path.dirname(os.path.abspath(config_path)) if config_path else os.getcwd()
    return IgnorePaths(parse_ignore_paths(raw, config_path, known), config_path, base)


def parse_ignore_paths(raw: Any, config_path: str | None, known: dict[str, str]) -> list[IgnoreEntry]:
    where = f"{config_path}: " if config_path else ""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise SuppressionError(f"{where}'ignore-paths' must be a list of file globs or of mappings with paths, rules and fields")
    entries: list[IgnoreEntry] = []
    slugs = set(known.values())
    for i, item in enumerate(raw):
        label = f"{where}ignore-paths[{i}]"
        if isinstance(item, str):
            item = {"paths": [item]}
        if not isinstance(item, dict):
            raise SuppressionError(f"{label}: must be a file glob or a mapping with paths, rules and fields")
        unknown = sorted(set(item) - {"paths", "rules", "fields"})
        if unknown:
            raise SuppressionError(f"{label}: unknown key {', '.join(map(repr, unknown))}; use paths, rules and fields")
        lists = {}
        for key in ("paths", "rules", "fields"):
            value = item.get(key, [])
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise SuppressionError(f"{label}: '{key}' must be a list of non-empty strings")
            lists[key] = [v.strip() for v in value]
        if not lists["paths"] and not lists["fields"] and not lists["rules"]:
            raise SuppressionError(f"{label}: give at least one of paths, rules and fields")
        if not lists["paths"] and not lists["fields"]:
            raise SuppressionError(f"{label}: to switch a rule off everywhere use 'ignore', not 'ignore-paths'")
        for selector in lists["rules"]:
            if selector not in slugs and not any(code.startswith(selector) for code in known):
                raise SuppressionError(f"{label}: unknown rule {selector!r} (see 'dralint rules')")
        entries.append(
            IgnoreEntry(
                index=i,
                files=[file_glob(g) for g in lists["paths"]],
                file_globs=lists["paths"],
                rules=lists["rules"],
                fields=[field_glob(f) for f in lists["fields"]],
                field_globs=lists["fields"],
            )
        )
    return entries


__all__ = ["UNUSED", "SuppressionError", "IgnoreEntry", "IgnorePaths", "ignore_paths", "parse_ignore_paths", "file_glob", "field_glob"]
