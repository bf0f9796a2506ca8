"""OpenAPI v3 component schemas, served kinds, lifecycle and feature gates from Go API types.

Follows what kube-openapi's generator does with the same source, for the subset
these packages use:

* a struct becomes `{"type": "object", "properties": ..., "required": ...}`; a field is
  required when it says `+required`, or says neither `+optional` nor `omitempty`;
* an embedded field with `json:",inline"` (or no tag) contributes its fields; TypeMeta
  gives `apiVersion` and `kind`;
* a named non-struct type (`type DeviceTaintEffect string`) is inlined as its underlying type;
* `+listType`, `+listMapKey`, `+mapType`, `+structType`, `+patchStrategy`, `+patchMergeKey`
  become the `x-kubernetes-*` extensions;
* types of other packages are references to `io.k8s.<reversed import path>.<Name>`,
  resolved in the `external` components handed in (taken from an OpenAPI document).

Served kinds come from `register.go` (`addKnownTypes`), scope from
`+genclient:nonNamespaced`; lifecycle from `zz_generated.prerelease-lifecycle.go`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from go_types import GoPackage, Ident, Map, Pointer, Qualified, Slice, Struct, TypeDecl, TypeExpr, parse_package

GROUP = "resource.k8s.io"
V3_REF = "#/components/schemas/"

_BASIC: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "bool": {"type": "boolean"},
    "int": {"type": "integer", "format": "int32"},
    "int32": {"type": "integer", "format": "int32"},
    "int64": {"type": "integer", "format": "int64"},
    "float64": {"type": "number", "format": "double"},
}
# Types of other packages that the generator inlines because they are named strings.
_EXTERNAL_BASIC = {
    "io.k8s.apimachinery.pkg.types.UID": {"type": "string"},
    "io.k8s.apimachinery.pkg.types.NodeName": {"type": "string"},
}
_GENERATED_SKIPPED = ("zz_generated.deepcopy.go", "zz_generated.validations.go")


def load_package(pkg_dir: Path) -> GoPackage:
    files = [p for p in sorted(Path(pkg_dir).glob("*.go")) if p.name not in _GENERATED_SKIPPED and not p.name.endswith("_test.go")]
    return parse_package(files)


def definition_prefix(import_path: str) -> str:
    """"k8s.io/api/core/v1" -> "io.k8s.api.core.v1" (the generator's naming)."""
    host, _, rest = import_path.partition("/")
    return ".".join(reversed(host.split("."))) + "." + rest.replace("/", ".")


def plural(kind: str) -> str:
    lower = kind.lower()
    if lower.endswith("ss"):
        return lower + "es"
    if lower.endswith("s"):
        return lower
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"


def flag(markers: dict[str, list[str]], name: str) -> bool:
    return name in markers


class _SchemaBuilder:
    """Component schemas of one Go package; `siblings` (import path -> package) are other
    packages whose Go source is at hand: their types are built too, not taken from `external`."""

    def __init__(self, pkg: GoPackage, import_path: str, external: dict[str, Any],
                 siblings: dict[str, GoPackage] | None = None, components: dict[str, Any] | None = None) -> None:
        self.pkg = pkg
        self.prefix = definition_prefix(import_path) + "."
        self.external = external
        self.siblings = siblings or {}
        self.components: dict[str, Any] = {} if components is None else components

    def type_schema(self, expr: TypeExpr) -> dict[str, Any]:
        if isinstance(expr, Pointer):
            return self.type_schema(expr.elem)
        if isinstance(expr, Slice):
            if expr.elem == Ident("byte"):
                return {"type": "string", "format": "byte"}
            return {"type": "array", "items": self.type_schema(expr.elem)}
        if isinstance(expr, Map):
            return {"type": "object", "additionalProperties": self.type_schema(expr.value)}
        if isinstance(expr, Ident):
            if expr.name in _BASIC:
                return dict(_BASIC[expr.name])
            decl = self.pkg.types.get(expr.name)
            if decl is None:
                raise KeyError(f"unknown type {expr.name}")
            if isinstance(decl.type, Struct):
                self.struct_definition(decl)
                return {"$ref": V3_REF + self.prefix + decl.name}
            return self.type_schema(decl.type)
        if isinstance(expr, Qualified):
            path = self.pkg.imports.get(expr.package)
            if path is None:
                raise KeyError(f"unknown package {expr.package}")
            name = definition_prefix(path) + "." + expr.name
            if name in _EXTERNAL_BASIC:
                return dict(_EXTERNAL_BASIC[name])
            if path in self.siblings:
                sibling = _SchemaBuilder(self.siblings[path], path, self.external, self.siblings, self.components)
                return sibling.type_schema(Ident(expr.name))
            if name not in self.external:
                raise KeyError(f"{name} is not in the base OpenAPI components")
            return {"$ref": V3_REF + name}
        raise TypeError(f"unsupported type {expr!r}")

    def struct_definition(self, decl: TypeDecl) -> None:
        name = self.prefix + decl.name
        if name in self.components:
            return
        self.components[name] = {}  # reserve: recursive types
        properties: dict[str, Any] = {}
        required: list[str] = []
        self._fields(decl.type, properties, required)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        markers = decl.markers
        if markers.get("structType") == ["atomic"]:
            schema["x-kubernetes-map-type"] = "atomic"
        self.components[name] = schema

    def _fields(self, struct: Struct, properties: dict[str, Any], required: list[str]) -> None:
        for field in struct.fields:
            json_name = field.json_name
            if json_name == "" or (field.name is None and json_name is None):
                self._inline(field.type, properties, required)
                continue
            if json_name is None:
                continue  # `json:"-"`
            markers = field.markers
            schema = self.type_schema(field.type)
            for marker, key in (("listType", "x-kubernetes-list-type"), ("mapType", "x-kubernetes-map-type"),
                                ("patchStrategy", "x-kubernetes-patch-strategy"), ("patchMergeKey", "x-kubernetes-patch-merge-key")):
                if marker in markers:
                    schema[key] = markers[marker][-1]
            if "listMapKey" in markers:
                schema["x-kubernetes-list-map-keys"] = list(markers["listMapKey"])
            properties[json_name] = schema
            if flag(markers, "required") or not (flag(markers, "optional") or "omitempty" in field.json_options):
                required.append(json_name)

    def _inline(self, expr: TypeExpr, properties: dict[str, Any], required: list[str]) -> None:
        if isinstance(expr, Pointer):
            expr = expr.elem
        if isinstance(expr, Qualified) and expr.name == "TypeMeta":
            properties["apiVersion"] = {"type": "string"}
            properties["kind"] = {"type": "string"}
            return
        decl = self.pkg.types.get(expr.name) if isinstance(expr, Ident) else None
        if decl is not None and isinstance(decl.type, Struct):
            self._fields(decl.type, properties, required)
            return
        raise TypeError(f"cannot inline {expr!r}")


def registered_kinds(pkg: GoPackage) -> list[str]:
    """Kinds `addKnownTypes` registers (`&Kind{}`), lists left out."""
    kinds: list[str] = []
    for func in pkg.funcs:
        if func.name != "addKnownTypes":
            continue
        body = func.body
        for i in range(len(body) - 2):
            if body[i] == "&" and body[i + 2] == "{" and body[i + 1][:1].isupper():
                kind = body[i + 1]
                if not kind.endswith("List"):
                    kinds.append(kind)
    return kinds


def package_api(pkg_dir: Path, external: dict[str, Any], siblings: dict[str, GoPackage] | None = None) -> dict[str, Any]:
    """{"components": ..., "kinds": ...} of one `resource/<version>` package."""
    version = Path(pkg_dir).name
    pkg = load_package(pkg_dir)
    builder = _SchemaBuilder(pkg, f"k8s.io/api/resource/{version}", external, siblings)
    kinds: dict[str, Any] = {}
    for kind in registered_kinds(pkg):
        decl = pkg.types[kind]
        builder.struct_definition(decl)
        definition = builder.prefix + kind
        builder.components[definition]["x-kubernetes-group-version-kind"] = [{"group": GROUP, "kind": kind, "version": version}]
        scope = "Cluster" if flag(decl.markers, "genclient:nonNamespaced") else "Namespaced"
        kinds[kind] = {"definition": definition, "scope": scope, "plural": plural(kind)}
    return {"components": {**external, **builder.components}, "kinds": kinds}


def sibling_packages(release_dir: Path) -> dict[str, GoPackage]:
    """Packages other than resource/* whose Go source a release folder carries (core/v1 from 1.36)."""
    out: dict[str, GoPackage] = {}
    for group_dir in sorted(Path(release_dir).iterdir()):
        if not group_dir.is_dir() or group_dir.name == "resource":
            continue
        for pkg_dir in sorted(p for p in group_dir.iterdir() if p.is_dir()):
            out[f"k8s.io/api/{group_dir.name}/{pkg_dir.name}"] = load_package(pkg_dir)
    return out


_LIFECYCLE_METHODS = {"APILifecycleIntroduced": "introduced", "APILifecycleDeprecated": "deprecated", "APILifecycleRemoved": "removed"}


def prerelease_lifecycle(pkg_dir: Path) -> dict[str, dict[str, str]]:
    """kind -> {"introduced", "deprecated", "removed"} from zz_generated.prerelease-lifecycle.go ({} if absent)."""
    path = Path(pkg_dir) / "zz_generated.prerelease-lifecycle.go"
    if not path.is_file():
        return {}
    pkg = parse_package([path])
    out: dict[str, dict[str, str]] = {}
    for func in pkg.funcs:
        what = _LIFECYCLE_METHODS.get(func.name)
        if what is None or func.receiver is None or func.receiver.endswith("List"):
            continue
        # body: return <major> , <minor>
        if len(func.body) != 4 or func.body[0] != "return" or func.body[2] != ",":
            raise ValueError(f"{path}:{func.line}: unexpected body of {func.receiver}.{func.name}")
        out.setdefault(func.receiver, {})[what] = f"{int(func.body[1])}.{int(func.body[3])}"
    return out


def gated_fields(pkg: GoPackage) -> dict[str, dict[str, list[str]]]:
    """Go type -> {json field: [gates]} of every field with a `+featureGate=` marker."""
    out: dict[str, dict[str, list[str]]] = {}
    for name, decl in sorted(pkg.types.items()):
        if not isinstance(decl.type, Struct):
            continue
        for field in decl.type.fields:
            gates = field.markers.get("featureGate")
            if gates and field.json_name:
                out.setdefault(name, {})[field.json_name] = sorted({g.strip() for v in gates for g in v.split(",") if g.strip()})
    return out
