"""Comments that travel with the keys `dralint migrate` moves (under `exactly`, out of `basic`).

ruamel.yaml keeps the full-line comments that precede a key as the comment after
the key before it, written out as read, at their old indentation. Between two
keys that move one level together, they are shifted by that level, so a
comment stays with the key it is written above.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any


def shift_comment_lines(value: str, by: int) -> str:
    """`value` (a comment as ruamel.yaml keeps it) with each full-line comment moved `by` columns.

    The text before the first line break is the rest of the key's own line (an end-of-line comment): kept."""
    head, sep, rest = value.partition("\n")
    lines = rest.split("\n")
    for i, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if stripped.startswith("#"):
            lines[i] = " " * max(len(line) - len(stripped) + by, 0) + stripped
    return head + sep + "\n".join(lines)


def move_keys(src: Any, keys: list[Any], order: list[Any], indent: int) -> Any:
    """A new mapping (of `src`'s type) holding `keys` taken from `src` with their comments, one level deeper."""
    dst = type(src)() if hasattr(src, "ca") else {}
    ca = getattr(src, "ca", None)
    for key in keys:
        dst[key] = src[key]
        if ca is not None and key in ca.items:
            dst.ca.items[key] = ca.items.pop(key)
        del src[key]
    move_comments_between(dst, keys, order, indent)
    return dst


def move_comments_between(mapping: Any, moved: list[Any], order: list[Any], by: int) -> None:
    """Shift the comments between consecutive `moved` keys (in the original `order`) of `mapping` by `by`.

    Such a comment is kept either before the later key or after the earlier key's value (its last scalar,
    however deep). A comment after the last moved key precedes a key that stays, or closes the mapping: it
    stays too."""
    ca = getattr(mapping, "ca", None)
    if ca is None or not by:
        return
    moving = set(moved)
    for at, key in enumerate(order[:-1]):
        if key in moving and order[at + 1] in moving:
            entry = ca.items.get(order[at + 1])
            shift_tokens(entry[1] if entry is not None and len(entry) > 1 else None, by)
            owner, last = _tail(mapping, key)
            entry = owner.ca.items.get(last) if hasattr(owner, "ca") else None
            token = entry[2] if entry is not None and len(entry) > 2 else None
            if token is not None and isinstance(token.value, str):
                token.value = shift_comment_lines(token.value, by)


def keep_above_first(mapping: Any, keys: list[Any], tokens: Any, by: int) -> None:
    """The comments written above the first of `keys` (kept on the mapping that held them, now gone) stay
    above it, `by` columns over."""
    if not tokens or not keys or getattr(mapping, "ca", None) is None:
        return
    shift_tokens(tokens, by)
    entry = mapping.ca.items.setdefault(keys[0], [None, None, None, None])
    entry[1] = [*tokens, *(entry[1] or [])]


def shift_tokens(tokens: Any, by: int) -> None:
    """Comments kept as tokens with a column (those written before a key): `by` columns over."""
    for token in tokens if isinstance(tokens, list) else ():
        if token is not None and token.column is not None:
            token.column = max(token.column + by, 0)


def _tail(mapping: Any, key: Any) -> tuple[Any, Any]:
    """The mapping or list, and its key, of the last scalar written under `mapping[key]`."""
    owner = mapping
    while True:
        value = owner[key]
        if isinstance(value, dict) and value:
            owner, key = value, next(reversed(value))
        elif isinstance(value, list) and value:
            owner, key = value, len(value) - 1
        else:
            return owner, key
