"""Which of a document type's rules can report on one document: those whose `needs` it has.

A rule declares with `@rule(needs=...)` the paths of which at least one must be present for it
to be able to report; the table of one (release, apiVersion, kind) is built once per run, and
each distinct path is tested once per document, shared by every rule that names it. A rule
without `needs` always runs. tests/test_dispatch.py holds every declaration to what its rule
reads: on every fixture, a skipped rule called anyway reports nothing.
"""

from __future__ import annotations

from typing import Any

from ..api import Rule

ENABLED = True  # off: every rule of the type runs (tests compare the two)


class Dispatch:
    """The rules of one (release, apiVersion, kind), in order, and the paths they need."""

    __slots__ = ("rules", "paths", "_chosen")

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        needed = {p: None for r in rules if r.needs is not None for p in r.needs}
        self.paths = tuple(needed) if ENABLED else ()
        self._chosen: dict[tuple[bool, ...], list[Rule]] = {}  # by which of `paths` are present

    def for_document(self, data: Any) -> list[Rule]:
        if not self.paths:
            return self.rules
        key = tuple(has_path(data, p) for p in self.paths)
        chosen = self._chosen.get(key)
        if chosen is None:
            present = {p for p, there in zip(self.paths, key, strict=True) if there}
            chosen = self._chosen[key] = [r for r in self.rules if r.needs is None or not present.isdisjoint(r.needs)]
        return chosen


def has_path(node: Any, path: tuple[str, ...]) -> bool:
    """Whether `path` is present in `node`: each key in a mapping, `*` any entry of a list."""
    for i, key in enumerate(path):
        if key == "*":
            if not isinstance(node, list):
                return False
            rest = path[i + 1 :]
            return any(has_path(entry, rest) for entry in node)
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True
