"""Regular expressions compiled on first use.

`re` compiles a pattern in Python (its parser and compiler, more than a small module's import), so a
pattern that only some inputs need (a rendered stream, a file that says "dralint", a template, JSON with
comments) is a `LazyPattern`: no clean lint's start-up compiles it (bench/startup.py;
tests/test_architecture.py checks that a clean lint compiles none). Patterns every lint uses stay
`re.compile`d at import: a `LazyPattern` costs a Python call at each use.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

__all__ = ["LazyPattern"]


class LazyPattern:
    """`re.compile(pattern, flags)` when first used, with the methods dralint calls on it."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: Any, flags: int = 0):
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern | None = None

    def compiled(self) -> re.Pattern:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return compiled

    def search(self, string: Any, *args: int) -> re.Match | None:
        return self.compiled().search(string, *args)

    def match(self, string: Any, *args: int) -> re.Match | None:
        return self.compiled().match(string, *args)

    def fullmatch(self, string: Any, *args: int) -> re.Match | None:
        return self.compiled().fullmatch(string, *args)

    def finditer(self, string: Any, *args: int) -> Iterator[re.Match]:
        return self.compiled().finditer(string, *args)

    def sub(self, repl: Any, string: Any, count: int = 0) -> Any:
        return self.compiled().sub(repl, string, count)
