"""Which of a document type's rules can report on one document: those whose `needs` it has.

A rule declares with `@rule(needs=...)` the paths of which at least one must be present for it
to be able to report; the table of one (release, apiVersion, kind) is built once per run. The
paths of a table are merged into one tree, walked once per document (a prefix that many paths
share, such as `spec.devices.requests`, is looked up once), and the rule list of each
combination of present paths is chosen once. A rule without `needs` always runs.
tests/test_dispatch.py holds every declaration to what its rule reads.
"""

from __future__ import annotations

from ..api import Rule

ENABLED = True  # off: every rule of the type runs (tests and bench/dispatch.py compare the two)

# A tree of paths, one level per key: what `*` leads to (any entry of a list), and what each mapping
# key leads to; each as (bits of the paths that end there, the level below it or None).
TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any
    _Step = tuple[int, "_Level | None"]
    _Level = tuple["_Step | None", dict[Any, "_Step"]]
_MISSING = object()


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


def _tree(paths: tuple[tuple[str, ...], ...]) -> _Level:
    root: dict = {}  # key -> [ends, below]: built mutable, then frozen into levels
    for bit, path in enumerate(paths):
        node = root
        for i, key in enumerate(path):
            step = node.setdefault(key, [0, {}])
            if i == len(path) - 1:
                step[0] |= 1 << bit
            node = step[1]
    return _frozen(root)


def _frozen(node: dict) -> _Level:
    steps = {key: (ends, _frozen(below) if below else None) for key, (ends, below) in node.items()}
    return steps.pop("*", None), steps


def _present(node: Any, level: _Level) -> int:
    """The bits of the paths of `level` present in `node` (what `has_path` tells of each, all at once)."""
    star, keyed = level
    found = 0
    if keyed and isinstance(node, dict):
        if len(node) < len(keyed):  # a request has a few fields; the paths name many
            for key, value in node.items():
                step = keyed.get(key)
                if step is not None:
                    found |= step[0]
                    if step[1] is not None:
                        found |= _present(value, step[1])
        else:
            get = node.get
            for key, (ends, below) in keyed.items():
                value = get(key, _MISSING)
                if value is not _MISSING:
                    found |= ends
                    if below is not None:
                        found |= _present(value, below)
    elif star is not None and node and isinstance(node, list):
        ends, below = star
        found |= ends
        if below is not None:
            for entry in node:
                found |= _present(entry, below)
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
