"""Glob matching in linear time, for `ignore-paths` (dralint.pipeline.ignore_paths) and `.gitignore` files
(dralint.pipeline.gitignore).

A glob is compiled to a small automaton (a state per pattern element) and a
text is matched by carrying the set of states it can be in, one character at a
time: the work is the text's length times the pattern's, whatever the pattern.
A backtracking regex takes exponential time on patterns a repository can hold
(`**a**a**a**a**a**a**a**a**b` against a long name), and a repository's config
or `.gitignore` is not trusted to be kind. The sets met are remembered per glob
(a lazily built DFA, bounded), so matching names again costs a dict look-up a
character.

Several globs can share one automaton (`Glob.of_all`): `last_match` then says
which of them is the last to match, in one pass over the text (what a
`.gitignore` file needs: its last matching line decides).
"""

from __future__ import annotations

from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Sequence


class Chars(NamedRecord):
    """Which characters one step consumes: those of `only` (None: any) that are not in `but`."""

    __slots__ = ()

    def __new__(_cls, only: str | None = None, but: str = "") -> "Chars":
        return tuple_new(_cls, (only, but))

    def take(self, ch: str) -> bool:
        return (self.only is None or ch in self.only) and ch not in self.but


class Ranges(NamedRecord):
    """A bracket expression (`[a-z]`, `[!0-9]`): one character of a range (not of them, `negated`), never `/`
    (nor NUL: dralint.pipeline.gitignore marks folders with it)."""

    __slots__ = ()

    def __new__(_cls, ranges: tuple[tuple[str, str], ...], negated: bool = False) -> "Ranges":
        return tuple_new(_cls, (ranges, negated))

    def take(self, ch: str) -> bool:
        return ch not in "/\0" and any(low <= ch <= high for low, high in self.ranges) != self.negated


# A pattern, as a sequence of elements: a Chars or Ranges (exactly one such character), Star(Chars)
# (any number of them) or Maybe(elements) (the sequence, or nothing).
class Star(NamedRecord):
    __slots__ = ()

    def __new__(_cls, chars: Chars) -> "Star":
        return tuple_new(_cls, (chars,))


class Maybe(NamedRecord):
    __slots__ = ()

    def __new__(_cls, elements: tuple) -> "Maybe":
        return tuple_new(_cls, (elements,))


Element = Chars | Ranges | Star | Maybe
Step = Chars | Ranges

_DEAD = -1  # the DFA "state" no text continues from
MAX_REMEMBERED = 4096  # DFA states kept per glob; past it they are worked out again


class Glob:
    """A compiled glob: `fullmatch(text)` says whether the whole text matches (as re.Pattern.fullmatch)."""

    def __init__(self, elements: Sequence[Element], pattern: str):
        self.__init_all([elements], pattern)

    @classmethod
    def of_all(cls, patterns: Sequence[Sequence[Element]], label: str) -> Glob:
        """One automaton for several globs: `last_match` tells the last of them that matches."""
        glob = cls.__new__(cls)
        glob.__init_all(patterns, label)
        return glob

    def __init_all(self, patterns: Sequence[Sequence[Element]], label: str) -> None:
        self.pattern = label
        # State i: consumes one character of steps[i][0] and goes to steps[i][1], or (steps[i][0] None)
        # branches to the states of steps[i][1] without consuming. Accepting states branch nowhere.
        self._steps: list[tuple[Step | None, tuple[int, ...]]] = []
        self._accepts: dict[int, int] = {}  # accepting state -> which pattern it ends
        starts = []
        for index, elements in enumerate(patterns):
            end = self._state(None, ())
            self._accepts[end] = index
            starts.append(self._build(tuple(elements), end))
        self._closures: dict[int, frozenset[int]] = {}
        self._start_set = self._closure(tuple(starts))
        self._forget()

    def _forget(self) -> None:
        """The DFA built so far, dropped (it grows with the variety of texts matched): state 0 is the start."""
        self._ids: dict[frozenset[int], int] = {}
        self._sets: list[frozenset[int]] = []
        self._next: list[dict[str, int]] = []  # per DFA state: character -> DFA state
        self._last: list[int] = []  # per DFA state: the last pattern it accepts, -1 for none
        self._dfa(self._start_set)

    def _dfa(self, states: frozenset[int]) -> int:
        known = self._ids.get(states)
        if known is not None:
            return known
        self._ids[states] = len(self._sets)
        self._sets.append(states)
        self._next.append({})
        self._last.append(max((self._accepts[s] for s in states if s in self._accepts), default=-1))
        return len(self._sets) - 1

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r})"

    def _state(self, chars: Step | None, targets: tuple[int, ...]) -> int:
        self._steps.append((chars, targets))
        return len(self._steps) - 1

    def _build(self, elements: tuple, follow: int) -> int:
        """The first state of `elements`, built from the end (`follow`: where they lead)."""
        for element in reversed(elements):
            if isinstance(element, Star):
                loop = self._state(None, ())
                consume = self._state(element.chars, (loop,))
                self._steps[loop] = (None, (consume, follow))
                follow = loop
            elif isinstance(element, Maybe):
                follow = self._state(None, (self._build(element.elements, follow), follow))
            else:
                follow = self._state(element, (follow,))
        return follow

    def _closure(self, states: tuple[int, ...]) -> frozenset[int]:
        """The consuming and accepting states reachable from `states` without consuming."""
        found: set[int] = set()
        seen: set[int] = set()
        todo = list(states)
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            chars, targets = self._steps[state]
            if chars is not None or state in self._accepts:
                found.add(state)
            else:
                todo.extend(targets)
        return frozenset(found)

    def _move(self, current: frozenset[int], ch: str) -> frozenset[int]:
        nxt: set[int] = set()
        for state in current:
            chars, targets = self._steps[state]
            if chars is not None and chars.take(ch):
                target = targets[0]
                closure = self._closures.get(target)
                if closure is None:
                    closure = self._closures[target] = self._closure((target,))
                nxt |= closure
        return frozenset(nxt)

    def last_match(self, text: str) -> int:
        """The index of the last of the globs that matches the whole text; -1 when none does."""
        if len(self._sets) > MAX_REMEMBERED:
            self._forget()
        current = 0
        transitions = self._next
        for ch in text:
            nxt = transitions[current].get(ch)
            if nxt is None:
                states = self._move(self._sets[current], ch)
                nxt = transitions[current][ch] = self._dfa(states) if states else _DEAD
            if nxt == _DEAD:
                return -1
            current = nxt
        return self._last[current]

    def fullmatch(self, text: str) -> bool:
        return self.last_match(text) >= 0


__all__ = ["Chars", "Glob", "Maybe", "Ranges", "Star"]
