"""Position tables that fill themselves on first use.

A document's position table and scalar styles are only computed when somebody
reads them (see position_table.py for what that costs and why); until then the
document holds a `LazyTable`, which behaves as an ordinary ``dict`` in every
respect, pickling included (it turns into a plain dict).
"""

from __future__ import annotations

from ...model import Node

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

__all__ = ["LazyTable", "lazy_table", "ListItems", "Tables", "MISS", "ABSENT"]

MISS = object()  # what a lookup returns when only the whole table can answer
ABSENT = object()  # what a lookup returns when it knows the whole table has no such key

Tables = tuple[dict, dict]  # (positions, scalar styles) of one document


class LazyTable(dict):
    """A dict that fills itself on first use (positions or scalar styles of one document).

    With a `lookup`, reading one key (``t[k]``, ``t.get(k)``, ``k in t``) asks `lookup(k)` first, which
    may answer without computing the whole table; it returns MISS when it cannot, and ABSENT when it knows
    the whole table has no such key.
    """

    __slots__ = ("_fill",)

    def _force(self) -> None:
        f = self._fill
        if f is not None:
            self._fill = None
            fill, which, _lookup = f
            dict.update(self, fill()[which])

    def _answer(self, lookup: Callable[[Any], Any] | None, k: Any) -> Any:
        """While the table is unfilled: what `lookup` answers for `k`, or MISS once the whole table is filled."""
        if lookup is not None:
            v = lookup(k)
            if v is not MISS:
                return v
        self._force()
        return MISS

    # A filled table (the usual case once read) answers without a call beyond dict's own.
    def __getitem__(self, k: Any) -> Any:
        f = self._fill
        if f is not None:
            v = self._answer(f[2], k)
            if v is not MISS:
                if v is ABSENT:
                    raise KeyError(k)
                return v
        return dict.__getitem__(self, k)

    def get(self, k: Any, default: Any = None) -> Any:
        f = self._fill
        if f is not None:
            v = self._answer(f[2], k)
            if v is not MISS:
                return default if v is ABSENT else v
        return dict.get(self, k, default)

    def __contains__(self, k: object) -> bool:
        f = self._fill
        if f is not None:
            v = self._answer(f[2], k)
            if v is not MISS:
                return v is not ABSENT
        return dict.__contains__(self, k)

    def __iter__(self) -> Iterator[Any]:
        self._force()
        return dict.__iter__(self)

    def __reversed__(self) -> Iterator[Any]:
        self._force()
        return dict.__reversed__(self)

    def __len__(self) -> int:
        if self._fill is not None:
            self._force()
        return dict.__len__(self)

    def keys(self):  # type: ignore[override]
        self._force()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self._force()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self._force()
        return dict.items(self)

    def __repr__(self) -> str:
        self._force()
        return dict.__repr__(self)

    def __eq__(self, other: object) -> bool:
        self._force()
        if isinstance(other, LazyTable):
            other._force()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> dict:  # type: ignore[override]
        self._force()
        return dict(dict.items(self))

    def __or__(self, other: Any) -> dict:
        self._force()
        d = dict(dict.items(self))
        d.update(other)
        return d

    def __ror__(self, other: Any) -> dict:
        self._force()
        d = dict(other)
        d.update(dict.items(self))
        return d

    def __ior__(self, other: Any) -> "LazyTable":
        self._force()
        dict.update(self, other)
        return self

    def __setitem__(self, k: Any, v: Any) -> None:
        self._force()
        dict.__setitem__(self, k, v)

    def __delitem__(self, k: Any) -> None:
        self._force()
        dict.__delitem__(self, k)

    def setdefault(self, k: Any, default: Any = None) -> Any:
        self._force()
        return dict.setdefault(self, k, default)

    def pop(self, *args: Any) -> Any:
        self._force()
        return dict.pop(self, *args)

    def popitem(self) -> Any:
        self._force()
        return dict.popitem(self)

    def update(self, *args: Any, **kw: Any) -> None:
        self._force()
        dict.update(self, *args, **kw)

    def clear(self) -> None:
        self._fill = None
        dict.clear(self)

    def __reduce__(self) -> Any:
        self._force()
        return (dict, (dict(dict.items(self)),))

    def __reduce_ex__(self, protocol: Any) -> Any:
        return self.__reduce__()

    def __copy__(self) -> dict:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> dict:
        import copy  # noqa: PLC0415 - only a deep copy needs it: a lint does not import copy (bench/startup.py)

        self._force()
        return copy.deepcopy(dict(dict.items(self)), memo)


def lazy_table(fill: Callable[[], Tables], which: int, lookup: Callable[[Any], Any] | None = None) -> LazyTable:
    """A table that is `fill()[which]`, computed when first read (or a key at a time by `lookup`)."""
    t = LazyTable()
    t._fill = (fill, which, lookup)
    return t


class ListItems:
    """The tables of each item of a `kind: List` document, split from the document's tables once."""

    __slots__ = ("tables", "_items")

    def __init__(self, tables: Callable[[], Tables]) -> None:
        self.tables = tables
        self._items: dict[int, Tables] | None = None

    def item(self, i: int) -> Callable[[], Tables]:
        """Item i's tables, split from the document's; or what the document's tables give for an item
        (json_fast.Seek.item: sought a path at a time, split from the document's when read whole)."""
        def whole() -> Tables:
            return self._split().get(i, ({}, {}))

        of_item = getattr(self.tables, "item", None)
        return whole if of_item is None else of_item(i, whole)

    def _split(self) -> dict[int, Tables]:
        if self._items is None:
            pos, styles = self.tables()
            items: dict[int, Tables] = {}
            for which, table in ((0, pos), (1, styles)):
                for path, value in table.items():
                    if len(path) >= 2 and path[0] == "items" and type(path[1]) is int:
                        items.setdefault(path[1], ({}, {}))[which][path[2:]] = value
            for n, (ipos, _styles) in items.items():
                node = pos.get(("items", n))
                if node is not None:
                    ipos[()] = Node(None, node.value)
            self._items = items
        return self._items
