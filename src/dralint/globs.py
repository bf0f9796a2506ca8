"""Glob matching in linear time, for `ignore-paths` (dralint.ignore_paths).

A glob is compiled to a small automaton (one state per pattern element) and a
text is matched by carrying the set of states it can be in, one character at a
time: the work is the text's length times the pattern's, whatever the pattern.
A backtracking regex takes exponential time on patterns a config file can hold
(`**a**a**a**a**a**a**a**a**b` against a long name), and a repository's config
is not trusted to be kind. The sets met are remembered per glob (a lazily built
DFA, bounded), so matching the same kind of names again costs a dict look-up a
character.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence


class Chars(NamedTuple):
    """Which characters one step consumes: those of `only` (None: any) that are not in `but`."""

    only: str | None = None
    but: str = ""

    def take(self, ch: str) -> bool:
        return (self.only is None or ch in self.only) and ch not in self.but


# A pattern, as a sequence of elements: a Chars (exactly one such character), Star(Chars)
# (any number of them) or Maybe(elements) (the sequence, or nothing).
class Star(NamedTuple):
    chars: Chars


class Maybe(NamedTuple):
    elements: tuple


Element = Chars | Star | Maybe

MAX_REMEMBERED = 4096  # DFA transitions kept per glob; past it they are worked out again


class Glob:
    """A compiled glob: `fullmatch(text)` says whether the whole text matches (as re.Pattern.fullmatch)."""

    def __init__(self, elements: Sequence[Element], pattern: str):
        self.pattern = pattern
        # State i: consumes one character of steps[i][0] and goes to steps[i][1], or (steps[i][0] None)
        # is a branch to the states of steps[i][1]. State 0 is the accepting end.
        self._steps: list[tuple[Chars | None, tuple[int, ...]]] = [(None, ())]
        start = self._build(tuple(elements), 0)
        self._closures: dict[int, frozenset[int]] = {}
        self._start = self._closure((start,))
        self._moves: dict[tuple[frozenset[int], str], frozenset[int]] = {}

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r})"

    def _state(self, chars: Chars | None, targets: tuple[int, ...]) -> int:
        self._steps.append((chars, targets))
        return len(self._steps) - 1

    def _build(self, elements: tuple, follow: int) -> int:
        """The first state of `elements`, built from the end (`follow`: where they lead)."""
        for element in reversed(elements):
            if isinstance(element, Chars):
                follow = self._state(element, (follow,))
            elif isinstance(element, Star):
                loop = self._state(None, ())
                consume = self._state(element.chars, (loop,))
                self._steps[loop] = (None, (consume, follow))
                follow = loop
            else:
                follow = self._state(None, (self._build(element.elements, follow), follow))
        return follow

    def _closure(self, states: tuple[int, ...] | frozenset[int]) -> frozenset[int]:
        """The consuming states (and 0, the end) reachable from `states` without consuming."""
        found: set[int] = set()
        seen: set[int] = set()
        todo = list(states)
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            chars, targets = self._steps[state]
            if chars is not None or state == 0:
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

    def fullmatch(self, text: str) -> bool:
        current = self._start
        moves = self._moves
        for ch in text:
            key = (current, ch)
            nxt = moves.get(key)
            if nxt is None:
                nxt = self._move(current, ch)
                if len(moves) >= MAX_REMEMBERED:
                    moves.clear()
                moves[key] = nxt
            if not nxt:
                return False
            current = nxt
        return 0 in current


__all__ = ["Chars", "Glob", "Maybe", "Star"]
