"""A minimal reader for the checked AST that cel-expr-python serializes (cel.expr.CheckedExpr).

Decodes the protobuf wire format directly (no generated classes needed) into
small Python objects: expressions with ids, kinds and children, the type of
each node, and the source offset of each node.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def fields(buf: bytes) -> dict[int, list[Any]]:
    """field number -> list of raw values (int for varint/fixed, bytes for length-delimited)."""
    out: dict[int, list[Any]] = {}
    i, n = 0, len(buf)
    while i < n:
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, i = _varint(buf, i)
        elif wt == 1:
            val = struct.unpack_from("<q", buf, i)[0]
            i += 8
        elif wt == 2:
            ln, i = _varint(buf, i)
            val = buf[i:i + ln]
            i += ln
        elif wt == 5:
            val = struct.unpack_from("<i", buf, i)[0]
            i += 4
        else:
            raise ValueError(f"unsupported wire type {wt}")
        out.setdefault(num, []).append(val)
    return out


def _one(f: dict[int, list[Any]], num: int, default: Any = None) -> Any:
    vals = f.get(num)
    return vals[-1] if vals else default


def _str(f: dict[int, list[Any]], num: int) -> str:
    v = _one(f, num, b"")
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else ""


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


@dataclass
class Node:
    id: int
    kind: str  # const, ident, select, call, list, struct, comprehension
    name: str = ""  # ident name, select field, call function
    const: Any = None
    test_only: bool = False
    target: "Node | None" = None
    args: list["Node"] = field(default_factory=list)  # call args, list elements, struct values
    # comprehension parts
    iter_var: str = ""
    iter_var2: str = ""
    accu_var: str = ""
    iter_range: "Node | None" = None
    accu_init: "Node | None" = None
    loop_condition: "Node | None" = None
    loop_step: "Node | None" = None
    result: "Node | None" = None


def _const(buf: bytes) -> Any:
    f = fields(buf)
    if 6 in f:
        return f[6][-1].decode("utf-8", "replace")
    if 7 in f:
        return f[7][-1]
    if 3 in f:
        return _signed(f[3][-1])
    if 4 in f:
        return f[4][-1]
    if 2 in f:
        return bool(f[2][-1])
    if 5 in f:
        return struct.unpack("<d", struct.pack("<q", f[5][-1]))[0]
    return None


def expr(buf: bytes) -> Node:
    f = fields(buf)
    nid = _signed(_one(f, 2, 0))
    if 3 in f:
        return Node(nid, "const", const=_const(f[3][-1]))
    if 4 in f:
        return Node(nid, "ident", name=_str(fields(f[4][-1]), 1))
    if 5 in f:
        s = fields(f[5][-1])
        return Node(nid, "select", name=_str(s, 2), test_only=bool(_one(s, 3, 0)),
                    target=expr(_one(s, 1)) if 1 in s else None)
    if 6 in f:
        c = fields(f[6][-1])
        return Node(nid, "call", name=_str(c, 2), target=expr(_one(c, 1)) if 1 in c else None,
                    args=[expr(a) for a in c.get(3, [])])
    if 7 in f:
        lst = fields(f[7][-1])
        return Node(nid, "list", args=[expr(a) for a in lst.get(1, [])])
    if 8 in f:
        st = fields(f[8][-1])
        values = []
        for entry in st.get(2, []):
            e = fields(entry)
            if 3 in e:
                values.append(expr(e[3][-1]))
            if 4 in e:
                values.append(expr(e[4][-1]))
        return Node(nid, "struct", name=_str(st, 1), args=values)
    if 9 in f:
        c = fields(f[9][-1])

        def sub(num: int) -> Node | None:
            return expr(c[num][-1]) if num in c else None

        return Node(nid, "comprehension", iter_var=_str(c, 1), iter_var2=_str(c, 8), accu_var=_str(c, 3),
                    iter_range=sub(2), accu_init=sub(4), loop_condition=sub(5), loop_step=sub(6), result=sub(7))
    return Node(nid, "unknown")


def type_name(buf: bytes) -> str:
    """A CEL type as text: bool, int, string, list(...), map(...), dyn, a message or abstract type name."""
    f = fields(buf)
    if 1 in f:
        return "dyn"
    if 2 in f:
        return "null_type"
    if 3 in f:
        return {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}.get(f[3][-1], "?")
    if 4 in f:
        return "wrapper"
    if 5 in f:
        return {1: "any", 2: "timestamp", 3: "duration"}.get(f[5][-1], "?")
    if 6 in f:
        return f"list({type_name(_one(fields(f[6][-1]), 1, b''))})"
    if 7 in f:
        m = fields(f[7][-1])
        return f"map({type_name(_one(m, 1, b''))}, {type_name(_one(m, 2, b''))})"
    if 9 in f:
        return f[9][-1].decode()
    if 10 in f:
        return f[10][-1].decode()
    if 11 in f:
        return "type"
    if 12 in f:
        return "error"
    if 14 in f:
        return _str(fields(f[14][-1]), 1)
    return "?"


@dataclass
class Checked:
    root: Node
    types: dict[int, str]
    positions: dict[int, int]


def checked(serialized: bytes) -> Checked:
    top = fields(serialized)
    # cel-expr-python wraps the CheckedExpr in a google.protobuf.Any.
    if 1 in top and isinstance(top[1][-1], bytes) and top[1][-1].startswith(b"type.googleapis.com/"):
        top = fields(top[2][-1])
    types: dict[int, str] = {}
    for entry in top.get(3, []):
        e = fields(entry)
        types[_signed(_one(e, 1, 0))] = type_name(_one(e, 2, b""))
    positions: dict[int, int] = {}
    if 5 in top:
        si = fields(top[5][-1])
        for entry in si.get(4, []):
            e = fields(entry)
            positions[_signed(_one(e, 1, 0))] = _one(e, 2, 0)
    return Checked(expr(_one(top, 4, b"")), types, positions)
