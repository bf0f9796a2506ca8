"""Did-you-mean: the known names closest to a misspelt one, for messages that suggest a fix.

`OneEditAway` finds a name one edit away among many (linear in the names, for run-scope
references); `close_hint` and `close_matches` rank a few candidates with difflib.
"""

from __future__ import annotations

from .names import DNS1123_SUBDOMAIN_MAX

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any


class OneEditAway:
    """Names one edit (a changed, missing, extra or swapped character) away from a given one.

    Looked up through an index of every name with one character deleted, so a run
    with 100,000 names and as many dangling references stays linear; comparing each
    reference with every name (difflib) made it quadratic.
    """

    def __init__(self, names: list[str]):
        # Names one edit apart differ in length by at most one, so a length's names are indexed when a
        # name of a neighbouring length is first looked up: a run with 100,000 names and references to
        # a few missing classes indexes the few names of their lengths, not ~15 variants of each name.
        # Keyed by the variant's hash, holding a name or a list of names (the strings and one-item
        # lists were ~150 bytes a variant); a hash can collide: closest() checks.
        # A name longer than an object name can be (DRA702 and others report it) is neither indexed nor
        # looked up: its L deletions of L characters each would take L * L bytes.
        self.by_length: dict[int, list[str]] = {}
        for name in names:
            if len(name) <= DNS1123_SUBDOMAIN_MAX:
                self.by_length.setdefault(len(name), []).append(name)
        self.by_variant: dict[int, Any] = {}
        self._answers: dict[str, str | None] = {}  # the same missing name is often referenced many times

    def _index(self, length: int) -> None:
        index = self.by_variant
        for name in self.by_length.pop(length, ()):
            for variant in {name, *self._deletions(name)}:
                key = hash(variant)
                held = index.get(key)
                if held is None:
                    index[key] = name
                elif isinstance(held, list):
                    held.append(name)
                else:
                    index[key] = [held, name]

    @staticmethod
    def _deletions(word: str) -> set[str]:
        return {word[:i] + word[i + 1 :] for i in range(len(word))}

    def closest(self, name: str) -> str | None:
        if name in self._answers:
            return self._answers[name]
        if len(name) > DNS1123_SUBDOMAIN_MAX:
            return None
        for length in (len(name) - 1, len(name), len(name) + 1):
            self._index(length)
        # Every name filed under the hash of one of `name`'s variants: a superset (a hash can collide, and two
        # names can share a deletion two edits apart: "--ba", "-ba1"), so a candidate is checked before it is
        # the answer, not before it is sorted (checking them all was most of judging 20,000 dangling
        # references to names one edit from many others).
        index = self.by_variant
        found: set[str] = set()
        for variant in {name, *self._deletions(name)}:
            held = index.get(hash(variant))
            if held is not None:
                found.update(held if isinstance(held, list) else (held,))
        # Same length first (a typo rather than a missing character), then alphabetically: stable output.
        answer = next((c for c in sorted(found, key=lambda c: (abs(len(c) - len(name)), c)) if one_edit(c, name)), None)
        self._answers[name] = answer
        return answer


def one_edit(a: str, b: str) -> bool:
    """Whether `a` is `b` with one character changed, deleted or inserted, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    if len(a) > len(b):
        return a[i + 1 :] == b[i:]
    if len(a) < len(b):
        return a[i:] == b[i + 1 :]
    if a[i + 1 :] == b[i + 1 :]:
        return True  # changed
    # i + 1 < len(a) here: the strings differ at i, and past i they differ too (else "changed" above).
    return a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]  # swapped


def close_hint(name: str, candidates: list[str]) -> str:
    """The "; did you mean 'x'?" tail of a message, naming the candidate difflib finds closest to `name`; empty if none."""
    import difflib  # only for references that name nothing, not on a clean file's start-up

    match = difflib.get_close_matches(name, candidates, n=1)
    return f"; did you mean {match[0]!r}?" if match else ""


_CLOSE: dict[tuple, tuple[str, ...]] = {}  # (word, candidates, n, cutoff) -> difflib's answer
_CLOSE_MAX = 1024  # answers kept, at most: a long-lived process (the language server) meets new words


def close_matches(word: str, candidates: list[str], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """difflib's closest `n` candidates at or above `cutoff`.

    Kept per question: the answer depends on nothing else, and the same unknown field is asked about
    three times in its document (schema_check) and again in every document that repeats it (1,256 calls,
    16 questions, on issue 23's sets), each a few difflib matchers.
    """
    import difflib  # only on error paths, not on a clean file's start-up (imported once: then a dict look-up)

    key = (word, tuple(candidates), n, cutoff)
    try:
        found = _CLOSE.get(key)
    except TypeError:  # a candidate that cannot be a key: asked afresh
        return difflib.get_close_matches(word, candidates, n=n, cutoff=cutoff)
    if found is None:
        found = tuple(difflib.get_close_matches(word, candidates, n=n, cutoff=cutoff))
        if len(_CLOSE) < _CLOSE_MAX:
            _CLOSE[key] = found
    return list(found)  # a list of its own for each caller, as difflib gives
