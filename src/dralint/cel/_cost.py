"""Worst-case cost estimate of a checked DRA selector, after cel-go's `checker.CostEstimator`.

Model (cost units as in cel-go): constants 0, identifiers and field selections
1, a function call 1 plus its arguments (string functions 1 + 0.1 per
character of the receiver), `&&`/`||` the sum of both sides, `?:` the
condition plus the dearer branch, and a comprehension (macros such as `all`,
`exists`, `map`, `filter`, `cel.bind` expand into one) its range and
initialiser plus, per element of the range, its loop condition and step.

Size hints are those the API server declares for the `device` variable:
`device.attributes` and `device.capacity` have at most 32 domains, each with
at most 32 entries; domains are at most 63 characters, identifiers 32,
attribute values 64 (strings) and the driver name 63. Literal lists and
strings have their literal size.

Limits (documented in docs/cel.md): sizes the estimator cannot bound (e.g. a
comprehension over `lists.range(n)` with a computed `n`, or over the result of
a function it does not model) are treated as unknown and the estimate is
then reported as a lower bound that is not flagged; per-function costs of the
Kubernetes libraries are approximated, so expressions within ~20% of the
limit may be judged differently than by the API server. Nested comprehensions
over the attribute maps, the case that trips the limit in practice, are
modelled exactly enough: four nested levels over 32-entry maps always exceed
1,000,000, two never do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._ast import Checked, Node

MAX_COST = 1_000_000
MAP_ENTRIES = 32
DOMAIN_LEN = 63
ID_LEN = 32
VALUE_LEN = 64
DRIVER_LEN = 63


@dataclass(frozen=True)
class Shape:
    """Known maximum size of a value (characters, elements or entries), with element/key shapes."""

    size: int | None = None  # None: unknown
    elem: "Shape | None" = None  # list element or map value
    key: "Shape | None" = None  # map key


UNKNOWN = Shape()
_ATTR_VALUE = Shape(VALUE_LEN, elem=Shape(VALUE_LEN))
_ATTRIBUTES = Shape(MAP_ENTRIES, key=Shape(DOMAIN_LEN), elem=Shape(MAP_ENTRIES, key=Shape(ID_LEN), elem=_ATTR_VALUE))
_CAPACITY = Shape(MAP_ENTRIES, key=Shape(DOMAIN_LEN), elem=Shape(MAP_ENTRIES, key=Shape(ID_LEN), elem=Shape(1)))
_DEVICE_FIELDS = {"driver": Shape(DRIVER_LEN), "attributes": _ATTRIBUTES, "capacity": _CAPACITY, "allowMultipleAllocations": Shape(1)}
_DEVICE = Shape(None)

_STRING_TRAVERSAL = 0.1
_STRING_FUNCS = {
    "contains", "startsWith", "endsWith", "lowerAscii", "upperAscii", "trim", "replace", "split", "join",
    "substring", "charAt", "indexOf", "lastIndexOf", "find", "findAll", "format", "quote", "url", "isURL",
    "quantity", "isQuantity", "semver", "isSemver", "ip", "isIP", "cidr", "isCIDR", "validate",
}
_LIST_FUNCS = {"sum", "min", "max", "isSorted", "indexOf", "lastIndexOf", "distinct", "sort", "reverse", "flatten", "@in"}


@dataclass
class Estimate:
    cost: int  # worst-case cost (a lower bound when `bounded` is False)
    bounded: bool
    hot_offset: int | None  # offset of the costliest comprehension (for pointing at it)


class _Estimator:
    def __init__(self, checked: Checked):
        self.checked = checked
        self.bounded = True
        self.hot: tuple[int, int] | None = None  # (cost, node id)

    # sizes ----------------------------------------------------------------------------------
    def shape(self, n: Node | None, scope: dict[str, Shape]) -> Shape:
        if n is None:
            return UNKNOWN
        if n.kind == "const":
            if isinstance(n.const, (str, bytes)):
                return Shape(len(n.const))
            return Shape(1)
        if n.kind == "ident":
            if n.name in scope:
                return scope[n.name]
            return _DEVICE if n.name == "device" else UNKNOWN
        if n.kind == "select":
            base = self.shape(n.target, scope)
            if n.test_only:
                return Shape(1)
            if base is _DEVICE:
                return _DEVICE_FIELDS.get(n.name, UNKNOWN)
            return base.elem or UNKNOWN
        if n.kind == "list":
            elems = [self.shape(a, scope) for a in n.args]
            return Shape(len(n.args), elem=_widest(elems))
        if n.kind == "call":
            if n.name in ("_[_]", "_[?_]") and n.args:
                return self.shape(n.args[0], scope).elem or UNKNOWN
            if n.name == "_+_" and len(n.args) == 2:
                a, b = (self.shape(x, scope) for x in n.args)
                if a.size is not None and b.size is not None:
                    return Shape(a.size + b.size, elem=_widest([a.elem or UNKNOWN, b.elem or UNKNOWN]))
                return UNKNOWN
            if n.name in ("lowerAscii", "upperAscii", "trim", "substring", "charAt") and n.target is not None:
                return Shape(self.shape(n.target, scope).size)
            if n.name == "split" and n.target is not None:
                s = self.shape(n.target, scope).size
                return Shape(s, elem=Shape(s))
            if n.name in ("size", "int", "uint", "double", "bool") or n.name.startswith(("_", "@", "!")):
                return Shape(1)
            return UNKNOWN
        if n.kind == "comprehension":
            rng = self.shape(n.iter_range, scope)
            init = self.shape(n.accu_init, scope)
            if n.accu_init is not None and n.accu_init.kind == "list" and not n.accu_init.args:
                return Shape(rng.size, elem=UNKNOWN)  # map/filter: at most one element per iteration
            if n.iter_range is not None and n.iter_range.kind == "list" and not n.iter_range.args:
                inner = dict(scope)
                inner[n.accu_var] = init
                return self.shape(n.result, inner)  # cel.bind
            return UNKNOWN
        return UNKNOWN

    # costs ----------------------------------------------------------------------------------
    def cost(self, n: Node | None, scope: dict[str, Shape]) -> int:
        if n is None:
            return 0
        k = n.kind
        if k == "const":
            return 0
        if k == "ident":
            return 1
        if k == "select":
            return self.cost(n.target, scope) + (0 if n.test_only else 1)
        if k in ("list", "struct"):
            return 10 + sum(self.cost(a, scope) for a in n.args)
        if k == "call":
            return self._call(n, scope)
        if k == "comprehension":
            return self._comprehension(n, scope)
        return 1

    def _call(self, n: Node, scope: dict[str, Shape]) -> int:
        args = n.args
        name = n.name
        if name in ("_&&_", "_||_"):
            return sum(self.cost(a, scope) for a in args)
        if name == "_?_:_" and len(args) == 3:
            return self.cost(args[0], scope) + max(self.cost(args[1], scope), self.cost(args[2], scope))
        base = self.cost(n.target, scope) + sum(self.cost(a, scope) for a in args)
        receiver = n.target if n.target is not None else (args[0] if args else None)
        rsize = self.shape(receiver, scope).size
        if name in ("_==_", "_!=_", "_+_") and len(args) == 2:
            sizes = [self.shape(a, scope).size for a in args]
            if all(s is not None for s in sizes):
                total = min(sizes) if name != "_+_" else sum(sizes)  # type: ignore[type-var, arg-type]
                return base + 1 + math.ceil(_STRING_TRAVERSAL * total)
            return base + 1
        if name == "matches" and len(args) >= 1:
            pattern = args[-1]
            psize = len(pattern.const) if pattern.kind == "const" and isinstance(pattern.const, str) else None
            if rsize is not None and psize is not None:
                return base + math.ceil(_STRING_TRAVERSAL * (rsize + 1)) * math.ceil(0.25 * psize + 1)
            return base + 1
        if name == "@in" and len(args) == 2:
            s = self.shape(args[1], scope).size
            return base + 1 + (s or 0)
        if name in _STRING_FUNCS and rsize is not None:
            return base + 1 + math.ceil(_STRING_TRAVERSAL * rsize)
        if name in _LIST_FUNCS and rsize is not None:
            return base + 1 + rsize
        return base + 1

    def _comprehension(self, n: Node, scope: dict[str, Shape]) -> int:
        rng = self.shape(n.iter_range, scope)
        inner = dict(scope)
        is_map = rng.key is not None
        if n.iter_var2:
            inner[n.iter_var] = rng.key if is_map else Shape(1)
            inner[n.iter_var2] = rng.elem or UNKNOWN
        else:
            inner[n.iter_var] = (rng.key if is_map else rng.elem) or UNKNOWN
        inner[n.accu_var] = self.shape(n.accu_init, scope)
        per_iteration = self.cost(n.loop_condition, inner) + self.cost(n.loop_step, inner)
        fixed = self.cost(n.iter_range, scope) + self.cost(n.accu_init, scope)
        result_scope = dict(scope)
        result_scope[n.accu_var] = inner[n.accu_var]
        fixed += self.cost(n.result, result_scope)
        if rng.size is None:
            empty_range = n.iter_range is not None and n.iter_range.kind == "list" and not n.iter_range.args
            if not empty_range:
                self.bounded = False
            total = fixed
        else:
            total = fixed + rng.size * per_iteration
        if rng.size and (self.hot is None or total >= self.hot[0]):
            self.hot = (total, n.id)
        return total


def _widest(shapes: list[Shape]) -> Shape:
    if not shapes:
        return UNKNOWN
    sizes = [s.size for s in shapes]
    if any(s is None for s in sizes):
        return UNKNOWN
    return Shape(max(sizes))  # type: ignore[type-var]


def estimate(checked: Checked) -> Estimate:
    est = _Estimator(checked)
    cost = est.cost(checked.root, {})
    hot = checked.positions.get(est.hot[1]) if est.hot else None
    return Estimate(cost, est.bounded, hot)
