"""Which of a document type's rules can report on one document: those whose `needs` it has.

A rule declares with `@rule(needs=...)` the paths of which at least one must be present for it
to be able to report; the table of one (release, apiVersion, kind) is built once per run. The
paths of a table are merged into one tree, walked once per document (a prefix that many paths
share, such as `spec.devices.requests`, is looked up once), and the rule list of each
combination of present paths is chosen once. A rule without `needs` always runs.
tests/test_dispatch.py holds every declaration to what its rule reads.
"""

from __future__ import annotations

from typing import Any

from ..api import Rule

ENABLED = True  # off: every rule of the type runs (tests and bench/dispatch.py compare the two)

# A tree of paths: key -> (bits of the paths that end there, the tree below it).
_Tree = dict[str, tuple[int, "_Tree"]]


class Dispatch:
    """The rules of one (release, apiVersion, kind), in order, and the paths they need."""

    __slots__ = ("rules", "paths", "_tree", "_chosen")

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        needed = {p: None for r in rules if r.needs is not None for p in r.needs}
        self.paths = tuple(needed) if ENABLED else ()
        self._tree = _tree(self.paths)
        self._chosen: dict[int, list[Rule]] = {}  # by the bit set of the `paths` present

    def for_document(self, data: Any) -> list[Rule]:
        if not self.paths:
            return self.rules
        present = _present(data, self._tree)
        chosen = self._chosen.get(present)
        if chosen is None:
            there = {p for bit, p in enumerate(self.paths) if present >> bit & 1}
            chosen = self._chosen[present] = [r for r in self.rules if r.needs is None or not there.isdisjoint(r.needs)]
        return chosen


def _tree(paths: tuple[tuple[str, ...], ...]) -> _Tree:
    root: dict = {}
    for bit, path in enumerate(paths):
        node = root
        for i, key in enumerate(path):
            ends, below = node.get(key, (0, {}))
            if i == len(path) - 1:
                ends |= 1 << bit
            node[key] = (ends, below)
            node = below
    return root


def _present(node: Any, tree: _Tree) -> int:
    """The bits of the paths of `tree` present in `node` (as `has_path` tells, all at once)."""
    found = 0
    for key, (ends, below) in tree.items():
        if key == "*":
            if node.__class__ is not list and not isinstance(node, list):
                continue
            for entry in node:
                found |= ends
                if below:
                    found |= _present(entry, below)
            continue
        if node.__class__ is not dict and not isinstance(node, dict):
            continue
        try:
            value = node[key]
        except KeyError:
            continue
        found |= ends
        if below:
            found |= _present(value, below)
    return found


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
