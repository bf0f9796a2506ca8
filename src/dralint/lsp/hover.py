"""Hover text: a rule code's documentation, or what the release's schema says about a field."""

from __future__ import annotations

import re

from .. import gates
from ..model import Document, Path, format_path
from .convert import rule_url
from .field_docs import field_doc

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

_CODE = re.compile(r"DRA\d{3}")


def code_at(line: str, column: int) -> str | None:
    """The rule code (DRA101) under 1-based `column` of `line`, if any."""
    for match in _CODE.finditer(line):
        if match.start() < column <= match.end() + 1:
            return match.group()
    return None


def rule_markdown(code: str, row: dict[str, str]) -> str:
    doc = (row.get("doc") or row.get("summary") or "").strip()
    return f"**{code}** `{row['slug']}` ({row['severity']})\n\n{doc}\n\n[{code} in the rule reference]({rule_url(code, row['slug'])})"


def field_at(documents: list[Document], line: int, column: int) -> tuple[Document, Path] | None:
    """The document and field path whose key is under (line, column)."""
    for doc in documents:
        root = doc.positions.get(())
        if root is None or not (root.value.line <= line <= root.value.end_line):
            continue
        for path, node in doc.positions.items():
            key = node.key
            if key is not None and key.line == line and key.column <= column < max(key.end_column, key.column + 1):
                return doc, path
    return None


def _resolve(node: Any, root: dict[str, Any]) -> dict[str, Any]:
    return _resolve_named(node, root)[0]


def _resolve_named(node: Any, root: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The schema behind `node`'s `$ref`s, and the Go type it was defined for (io.k8s.api.resource.v1.X -> X)."""
    name = None
    for _ in range(8):
        if not isinstance(node, dict) or "$ref" not in node:
            break
        merged = {k: v for k, v in node.items() if k != "$ref"}
        name = node["$ref"].rpartition("/")[2]
        target = root.get("$defs", {}).get(name, {})
        node = {**target, **merged}  # the property's own description wins over its type's
    return (node if isinstance(node, dict) else {}), (name.rpartition(".")[2] if name else None)


def describe_field(schema: dict[str, Any], path: Path, release: str, api_version: str | None, kind: str | None) -> str | None:
    node: dict[str, Any] = schema
    parent: dict[str, Any] = {}
    parent_type: str | None = None
    for part in path:
        node, go_type = _resolve_named(node, schema)
        parent_type = go_type or (None if part != path[-1] else parent_type)
        if isinstance(part, int):
            parent, node = {}, node.get("items", {})
        else:
            props = node.get("properties")
            if props is None or part not in props:
                extra = node.get("additionalProperties")
                if isinstance(extra, dict):  # a map: labels, attributes ...
                    parent, node = {}, extra
                    continue
                return None
            parent, node = node, props[part]
    node = _resolve(node, schema)
    kind_of = node.get("type") or ("object" if "properties" in node else "any")
    if "format" in node:
        kind_of = f"{kind_of} ({node['format']})"
    if "items" in node:
        item = _resolve(node["items"], schema)
        kind_of = f"array of {item.get('type', 'object')}"
    required = str(path[-1]) in parent.get("required", []) if path else False
    doc = field_doc(release, api_version, parent_type, path[-1]) if path and isinstance(path[-1], str) else None
    description = doc.text if doc is not None else ""
    facts = [f"type: {kind_of}", "required" if required else "optional"]
    values = node.get("enum") or (doc.values if doc is not None else ())
    if values:
        facts.append("one of " + ", ".join(f"`{v}`" for v in values))
    field_gates = gates.field_gates(release, api_version, parent_type) if parent_type and path and isinstance(path[-1], str) else {}
    for gate in field_gates.get(str(path[-1]), ()) if path else ():
        stage = gates.gate_stage(release, gate)
        on = "on" if gates.gate_default(release, gate) else "off"
        facts.append(f"feature gate: {gate} ({stage or 'unknown stage'}, {on} by default in {release})")
    title = f"**{format_path(path) or kind}** — {api_version} {kind} at Kubernetes {release}"
    return "\n\n".join(part for part in (title, " · ".join(facts), description) if part)
