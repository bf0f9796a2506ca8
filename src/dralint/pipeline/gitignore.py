"""`.gitignore` files, as git reads them, for the directory walk (dralint.pipeline.sources).

A folder's `.gitignore` holds patterns for the paths below it; the last
pattern that matches a path decides (`!pattern` brings it back), and a deeper
`.gitignore` overrides a shallower one. A pattern with a `/` at its start or
middle is anchored to its file's folder, one without matches a name at any
depth; a trailing `/` matches folders only; `*`, `?` and `[...]` stay inside
one name, `**/`, `/**/` and `/**` cross folders. An excluded folder is not
walked, so nothing below it comes back (as git: "it is not possible to
re-include a file if a parent directory of that file is excluded").

Each file's patterns are one automaton (dralint.pipeline.globs): a path is matched in
one pass, in time linear in its length, whatever the patterns (a repository's
`.gitignore` is not trusted to be kind to a backtracking matcher). Only the
first MAX_PATTERNS patterns of a file are used: past them a file is data, not
a list of ignores, and the automaton would grow with it.
"""

from __future__ import annotations

import os

from ..records import NamedRecord, tuple_new
from .globs import Chars, Element, Glob, Maybe, Ranges, Star

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Callable

FILE = ".gitignore"
MAX_PATTERNS = 10_000

# A folder is matched as its path and FOLDER, a character no name holds: a pattern ending in `/` matches
# folders only (it ends in FOLDER), any other pattern both (an optional FOLDER), and `generated/*` still
# never matches `generated` itself (as `generated/` would).
FOLDER = "\0"
_ANY = Chars(but=FOLDER)
_NAME = Chars(but="/" + FOLDER)
_SLASH = Chars("/")


class Patterns(NamedRecord):
    """One `.gitignore` file: its patterns as one automaton, and which of them bring paths back."""

    __slots__ = ()

    def __new__(_cls, glob: Glob, negated: tuple[bool, ...]) -> "Patterns":
        return tuple_new(_cls, (glob, negated))


def parse(text: str, label: str = FILE) -> Patterns | None:
    """The patterns of a `.gitignore` file's text; None when it has none."""
    compiled: list[list[Element]] = []
    negated: list[bool] = []
    for line in text.splitlines():
        pattern = _pattern(line)
        if pattern is not None:
            compiled.append(pattern[0])
            negated.append(pattern[1])
            if len(compiled) >= MAX_PATTERNS:
                break
    if not compiled:
        return None
    return Patterns(Glob.of_all(compiled, label), tuple(negated))


def _pattern(line: str) -> tuple[list[Element], bool] | None:
    """One line as (elements, negated?); None for a blank line, a comment or a pattern that matches nothing."""
    if line.startswith("#"):
        return None
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]  # trailing spaces, unless escaped
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    folders_only = line.endswith("/")
    if folders_only:
        line = line[:-1]  # one slash, as git: `a//` is `a/` and a folder
    anchored = "/" in line
    if line.startswith("/"):
        line = line[1:]
    if not line:
        return None
    elements: list[Element] = [] if anchored else [Maybe((Star(_ANY), _SLASH))]
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "*":
            run = i
            while i < len(line) and line[i] == "*":
                i += 1
            # Two stars or more, a whole name: they cross folders (git's wildmatch); else one `*`.
            if i - run >= 2 and (run == 0 or line[run - 1] == "/") and (i == len(line) or line[i] == "/"):
                if i == len(line):
                    elements.append(Star(_ANY))  # trailing /**: everything inside
                else:
                    elements.append(Maybe((Star(_ANY), _SLASH)))  # **/: any number of folders, none included
                    i += 1
            else:
                elements.append(Star(_NAME))
        elif ch == "?":
            elements.append(_NAME)
            i += 1
        elif ch == "[":
            bracket = _bracket(line, i)
            if bracket is None:
                return None  # not closed: git's pattern matches nothing
            elements.append(bracket[0])
            i = bracket[1]
        elif ch == "\\":
            if i + 1 == len(line):
                return None  # a trailing backslash: git's pattern matches nothing
            elements.append(Chars(line[i + 1]))
            i += 2
        else:
            elements.append(Chars(ch))
            i += 1
    elements.append(Chars(FOLDER) if folders_only else Maybe((Chars(FOLDER),)))
    return elements, negated


def _bracket(line: str, start: int) -> tuple[Ranges, int] | None:
    """The bracket expression at `start` and where it ends; None when it is not closed."""
    i = start + 1
    negated = i < len(line) and line[i] in "!^"
    if negated:
        i += 1
    ranges: list[tuple[str, str]] = []
    first = True
    while i < len(line):
        ch = line[i]
        if ch == "]" and not first:
            return Ranges(tuple(ranges), negated), i + 1
        first = False
        if ch == "\\" and i + 1 < len(line):
            ch = line[i + 1]
            i += 1
        if i + 2 < len(line) and line[i + 1] == "-" and line[i + 2] != "]":
            high = line[i + 2]
            if high == "\\" and i + 3 < len(line):
                high = line[i + 3]
                i += 1
            ranges.append((ch, high))
            i += 3
        else:
            ranges.append((ch, ch))
            i += 1
    return None


class Level(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        patterns: Patterns,
        prefix: str,  # the walked folder's path relative to the `.gitignore`'s folder, `/`-separated, ending in `/` (or "")
    ) -> "Level":
        return tuple_new(_cls, (patterns, prefix))


class Ignores(NamedRecord):
    """The `.gitignore` files that apply to one folder of the walk, the deepest last."""

    __slots__ = ()

    def __new__(_cls, levels: tuple[Level, ...] = ()) -> "Ignores":
        return tuple_new(_cls, (levels,))

    def with_file(self, patterns: Patterns | None) -> Ignores:
        """These, and the folder's own `.gitignore`."""
        return Ignores(self.levels + (Level(patterns, ""),)) if patterns is not None else self

    def below(self, name: str) -> Ignores:
        """What applies inside the subfolder `name`."""
        return Ignores(tuple(Level(level.patterns, f"{level.prefix}{name}/") for level in self.levels))

    def excluded(self, name: str, folder: bool) -> bool:
        """Whether the entry `name` of this folder is excluded."""
        for level in reversed(self.levels):
            which = level.patterns.glob.last_match(level.prefix + name + FOLDER if folder else level.prefix + name)
            if which >= 0:
                return not level.patterns.negated[which]
        return False


def above(root: str, read: Callable[[str], Patterns | None]) -> Ignores:
    """The `.gitignore` files of the folders above `root`, from the top of the git work tree that holds it
    (none when it is in none): they apply below `root` too. `read` gives a folder's; `root`'s own is the walk's."""
    folder = os.path.abspath(root)
    names: list[str] = []  # from `root` up to the top
    while not os.path.lexists(os.path.join(folder, ".git")):
        parent = os.path.dirname(folder)
        if parent == folder:
            return Ignores()
        names.append(os.path.basename(folder))
        folder = parent
    ignores = Ignores()
    for name in reversed(names):
        ignores = ignores.with_file(read(folder)).below(name)
        folder = os.path.join(folder, name)
    return ignores


__all__ = ["FILE", "Ignores", "Patterns", "above", "parse"]
