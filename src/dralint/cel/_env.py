"""Building CEL environments on cel-expr-python (CEL's C++ implementation).

The environment is described in CEL's env-config format (JSON is valid YAML),
so type parameters, opaque types and the standard-library subset can be
declared; the `device` variable is a protobuf message built at run time
(`kubernetes.DRADevice`), because field selection needs a message type.
"""

from __future__ import annotations

import functools
import json
import re

from . import _decls

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

DEVICE_TYPE = "kubernetes.DRADevice"


def _cel():
    from cel_expr_python import cel  # imported lazily: only runs that contain CEL pay for it

    return cel


@functools.lru_cache(maxsize=None)
def _device_pool(with_multi_alloc: bool) -> Any:
    """A descriptor pool holding `kubernetes.DRADevice` (and google.protobuf.Struct)."""
    # protobuf's descriptor modules load with the first environment built, not with dralint.cel.
    from google.protobuf import descriptor_pb2, descriptor_pool, struct_pb2

    F = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="dralint/dra_device.proto", package="kubernetes", syntax="proto3")
    fdp.dependency.append("google/protobuf/struct.proto")
    msg = fdp.message_type.add(name="DRADevice")
    msg.field.add(name="driver", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    # map(domain, map(identifier, value)): protobuf maps cannot nest, so the inner map is a
    # google.protobuf.Struct, which CEL sees as map(string, dyn).
    for number, name in ((2, "attributes"), (3, "capacity")):
        entry = msg.nested_type.add(name=name.capitalize() + "Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
        entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, type_name=".google.protobuf.Struct", label=F.LABEL_OPTIONAL)
        msg.field.add(name=name, number=number, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                      type_name=f".kubernetes.DRADevice.{entry.name}", json_name=name)
    if with_multi_alloc:
        msg.field.add(name="allowMultipleAllocations", number=4, type=F.TYPE_BOOL, label=F.LABEL_OPTIONAL,
                      json_name="allowMultipleAllocations")
    pool = descriptor_pool.DescriptorPool()
    struct_file = descriptor_pb2.FileDescriptorProto()
    struct_pb2.DESCRIPTOR.CopyToProto(struct_file)
    pool.Add(struct_file)
    pool.Add(fdp)
    return pool


def _config(compat: tuple[int, int], *, dra: bool, extra_functions: list[dict] | None = None) -> str:
    extensions = []
    for since, name, version in _decls.EXTENSIONS:
        if since <= compat:
            ext: dict[str, Any] = {"name": name}
            if version is not None:
                ext["version"] = version
            extensions.append(ext)
    functions: dict[str, list[dict]] = {}
    for d in _decls.available_decls(compat, dra=dra):
        overload: dict[str, Any] = {"id": d.overload_id, "args": [_decls.type_spec(a) for a in d.args],
                                    "return": _decls.type_spec(d.result)}
        if d.target is not None:
            overload["target"] = _decls.type_spec(d.target)
        functions.setdefault(d.name, []).append(overload)
    # Cross-type numeric comparisons (1.28+): replace the standard ordering operators.
    cross = compat >= (1, 28)
    for op, overloads in _decls.ordering_overloads(cross).items():
        functions[op] = [{"id": oid, "args": [_decls.type_spec(a) for a in args], "return": {"type_name": ret}}
                         for oid, args, ret in overloads]
    for f in extra_functions or []:
        functions.setdefault(f["name"], []).extend(f["overloads"])
    config = {
        "extensions": extensions,
        "stdlib": {"exclude_functions": [{"name": op} for op in (*_decls.ORDERING_OPERATORS, *_decls.STDLIB_REDECLARED)]},
        "functions": [{"name": name, "overloads": ovs} for name, ovs in functions.items()],
    }
    return json.dumps(config)


def _optional_ext(compat: tuple[int, int]) -> list:
    if compat < (1, 28):
        return []
    # The optional-types extension exists from 1.28 environments on; older ones never load it.
    from cel_expr_python.ext import ext_optional

    return [ext_optional.ExtOptional()]


# `includes()` (1.36, DRAListTypeAttributes): attribute values are dyn, so one member overload
# on dyn serves scalar attributes (equality) and list attributes (membership) alike.
_INCLUDES = [{"name": "includes", "overloads": [
    {"id": "dra_dyn_includes_dyn", "target": {"type_name": "dyn"}, "args": [{"type_name": "dyn"}], "return": {"type_name": "bool"}},
]}]


@functools.lru_cache(maxsize=None)
def selector_env(compat: tuple[int, int], with_multi_alloc: bool, with_list_attributes: bool = False) -> Any:
    """The environment for new DRA selector expressions at base compatibility version `compat`."""
    cel = _cel()
    extra = _INCLUDES if with_list_attributes else None
    return cel.NewEnv(
        _device_pool(with_multi_alloc),
        config=cel.NewEnvConfigFromYaml(_config(compat, dra=True, extra_functions=extra)),
        variables={"device": cel.Type(DEVICE_TYPE)},
        extensions=_optional_ext(compat),
    )


# --- policy environment -------------------------------------------------------------------------

def _policy_impls() -> tuple[list[dict], dict[str, Any]]:
    """Functions of the policy environment that dralint implements in Python (typed over dyn)."""

    def find(s, p):
        m = re.search(p, s)
        return m.group(0) if m else ""

    def find_all(s, p, n=-1):
        found = [m.group(0) for m in re.finditer(p, s)]
        return found if n < 0 else found[:n]

    impls = {
        "dralint_string_find": find,
        "dralint_string_findAll": find_all,
        "dralint_string_findAll_int": find_all,
        "dralint_list_isSorted": lambda lst: all(a <= b for a, b in zip(lst, lst[1:], strict=False)),
        "dralint_list_sum": lambda lst: sum(lst),
        "dralint_list_min": lambda lst: min(lst),
        "dralint_list_max": lambda lst: max(lst),
    }
    s, i, dl, d, b = ({"type_name": t} for t in ("string", "int", "list", "dyn", "bool"))
    dl = {"type_name": "list", "params": [{"type_name": "dyn"}]}
    sl = {"type_name": "list", "params": [{"type_name": "string"}]}
    decls = [
        {"name": "find", "overloads": [{"id": "dralint_string_find", "target": s, "args": [s], "return": s}]},
        {"name": "findAll", "overloads": [
            {"id": "dralint_string_findAll", "target": s, "args": [s], "return": sl},
            {"id": "dralint_string_findAll_int", "target": s, "args": [s, i], "return": sl}]},
        {"name": "isSorted", "overloads": [{"id": "dralint_list_isSorted", "target": dl, "args": [], "return": b}]},
        {"name": "sum", "overloads": [{"id": "dralint_list_sum", "target": dl, "args": [], "return": d}]},
        {"name": "min", "overloads": [{"id": "dralint_list_min", "target": dl, "args": [], "return": d}]},
        {"name": "max", "overloads": [{"id": "dralint_list_max", "target": dl, "args": [], "return": d}]},
    ]
    return decls, impls


@functools.lru_cache(maxsize=None)
def policy_env() -> Any:
    cel = _cel()
    # cel-expr-python's extensions load with the first policy environment, like the library itself.
    from cel_expr_python.ext import ext_optional

    decls, impls = _policy_impls()
    config = {
        "extensions": [{"name": "cel.lib.ext.bindings"}, {"name": "cel.lib.ext.strings", "version": 2},
                       {"name": "cel.lib.ext.sets"}, {"name": "cel.lib.ext.comprev2"}, {"name": "cel.lib.ext.lists"}],
        "functions": decls,
    }
    return cel.NewEnv(
        config=cel.NewEnvConfigFromYaml(json.dumps(config)),
        variables={"object": cel.Type.DYN},
        extensions=[ext_optional.ExtOptional()],
        function_impls=impls,
    )
