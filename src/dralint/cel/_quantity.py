"""Capacity values are Quantities: operators the API server's type checker rejects on them.

The `device` message dralint hands to the C++ checker types `device.capacity[d].x`
as dyn (a protobuf Struct value: protobuf maps cannot nest and cannot hold CEL's
opaque `kubernetes.Quantity`). The API server types it as `kubernetes.Quantity`,
which has no operators at all: `device.capacity["gpu.example.com"].memory >=
17179869184` fails there with "found no matching overload for '_>=_' applied to
'(kubernetes.Quantity, int)'". This module finds such operators in the checked AST,
where dyn let them pass.
"""

from __future__ import annotations

from ..records import NamedRecord, tuple_new
from ._ast import Checked, Node

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Iterator

QUANTITY = "kubernetes.Quantity"
# No overload of these takes a Quantity.
_ORDERING = {"_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">="}
_ARITHMETIC = {"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%"}
# `_==_`/`_!=_` are (A, A): a Quantity only fails against a concrete other type.
_EQUALITY = {"_==_": "==", "_!=_": "!="}
_CONCRETE = {"int", "uint", "double", "string", "bool", "bytes"}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_BINARY_SUFFIXES = (("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


class Misuse(NamedRecord):
    __slots__ = ()

    def __new__(_cls, offset: int | None, operator: str, message: str) -> "Misuse":
        return tuple_new(_cls, (offset, operator, message))


def _is_capacity_map(node: Node) -> bool:
    """`device.capacity`."""
    return (node.kind == "select" and node.name == "capacity" and not node.test_only
            and node.target is not None and node.target.kind == "ident" and node.target.name == "device")


def _is_domain(node: Node) -> bool:
    """`device.capacity[d]` (or `device.capacity.d`)."""
    if node.kind == "call" and node.name == "_[_]" and len(node.args) == 2:
        return _is_capacity_map(node.args[0])
    return node.kind == "select" and not node.test_only and node.target is not None and _is_capacity_map(node.target)


def is_capacity_value(node: Node) -> bool:
    """`device.capacity[d].name` or `device.capacity[d]["name"]`: a Quantity at the API server."""
    if node.kind == "call" and node.name == "_[_]" and len(node.args) == 2:
        return _is_domain(node.args[0])
    return node.kind == "select" and not node.test_only and node.target is not None and _is_domain(node.target)


def _walk(node: Node | None) -> Iterator[Node]:
    """Children before their parent: an operand's error is found before the operator using it."""
    if node is None:
        return
    yield from _walk(node.target)
    for child in node.args:
        yield from _walk(child)
    for part in (node.iter_range, node.accu_init, node.loop_condition, node.loop_step, node.result):
        yield from _walk(part)
    yield node


def _ids(node: Node | None) -> Iterator[int]:
    for n in _walk(node):
        yield n.id


def _quantity_text(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        return "16Gi"
    for suffix, base in _BINARY_SUFFIXES:
        if value and value % base == 0:
            return f"{value // base}{suffix}"
    return str(value)


def _hint(op: str, value_on_left: bool, other: Node) -> str:
    if op in _MIRROR:
        relation = op if value_on_left else _MIRROR[op]
        q = _quantity_text(other.const if other.kind == "const" else None)
        return f"compare quantities instead: `.compareTo(quantity(\"{q}\")) {relation} 0`"
    if op in ("==", "!="):
        q = _quantity_text(other.const if other.kind == "const" else None)
        return f"compare quantities instead: `.compareTo(quantity(\"{q}\")) {op} 0`"
    return "Quantities have no arithmetic operators: use `.add()`/`.sub()`, or `.asInteger()` for a number"


def misuses(checked: Checked) -> list[Misuse]:
    """Operators applied to a capacity value that the API server's checker rejects."""
    found: list[Misuse] = []
    failed: set[int] = set()  # nodes reported: an operator on them is not reported again
    for node in _walk(checked.root):
        if node.kind != "call" or len(node.args) != 2:
            continue
        op = _ORDERING.get(node.name) or _ARITHMETIC.get(node.name) or _EQUALITY.get(node.name)
        if op is None:
            continue
        left, right = node.args
        if failed and failed & (set(_ids(left)) | set(_ids(right))):
            continue
        for value, other, value_on_left in ((left, right, True), (right, left, False)):
            if not is_capacity_value(value):
                continue
            other_type = QUANTITY if is_capacity_value(other) else checked.types.get(other.id, "dyn")
            if node.name in _EQUALITY and other_type not in _CONCRETE:
                continue
            operands = (QUANTITY, other_type) if value_on_left else (other_type, QUANTITY)
            found.append(Misuse(
                checked.positions.get(node.id), op,
                f"found no matching overload for '{node.name}' applied to '({operands[0]}, {operands[1]})': "
                f"capacity values are Quantities; {_hint(op, value_on_left, other)}",
            ))
            failed.add(node.id)
            break
    return found
