#!/usr/bin/env python3
"""Turn the upstream Kubernetes OpenAPI v3 documents for resource.k8s.io into
self-contained JSON Schema (draft 2020-12) files, one per release, version and kind,
plus `schemas/index.json` (what each release serves, scope, plural, lifecycle).

    python tools/extract_schemas.py [--openapi DIR] [--out DIR] [--check]

Input: `<openapi>/k8s-1.NN/apis__resource.k8s.io__<version>_openapi.json`.
Output: `<out>/1.NN/resource.k8s.io/<version>/<kind>.json` and `<out>/index.json`.
`--check` regenerates into a temporary directory and exits 1 when the result
differs from `--out` (drift check). Standard library only; the output is
byte-reproducible (sorted keys, no timestamps, no absolute paths).

Conversion (OpenAPI 3.0 component schema -> JSON Schema 2020-12):
* `#/components/schemas/X` -> `#/$defs/X`; only the definitions reachable from the kind are kept.
* `{"allOf": [{"$ref": R}], ...siblings}` -> `{"$ref": R, ...siblings}` (2020-12 allows $ref siblings).
* every schema with `properties` gets `"type": "object"` (if missing) and
  `"additionalProperties": false` (strict decoding) unless it declares
  `additionalProperties` itself or carries `x-kubernetes-preserve-unknown-fields`.
* `nullable: true` -> "null" added to `type` (or `anyOf` with `{"type": "null"}` around a $ref).
* `x-kubernetes-int-or-string: true` -> `"type": ["integer", "string"]`.
* Special apimachinery types are rewritten by name, see SPECIAL_TYPES.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

GROUP = "resource.k8s.io"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_BASE = "https://dralint.dev/schemas/"
REF_PREFIX = "#/components/schemas/"
DEFS_PREFIX = "#/$defs/"

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OPENAPI = REPO / ".." / "shared" / "openapi"
DEFAULT_OUT = REPO / "schemas"
LIFECYCLE_FILE = Path(__file__).resolve().parent / "api_lifecycle.json"

FILE_RE = re.compile(r"^apis__resource\.k8s\.io__(v[0-9a-z]+)_openapi\.json$")
RELEASE_DIR_RE = re.compile(r"^k8s-(1\.[0-9]+)$")

# Keys whose values are data, not sub-schemas: copied verbatim, never walked.
_VERBATIM = {"default", "example", "enum", "const", "required", "description", "format", "type", "title"}

# Rewrites of apimachinery types whose upstream encoding does not validate what the
# API server accepts. Keyed by the last segment of the dotted Go name.
_QUANTITY = {"type": ["string", "number"], "format": "quantity"}
_INT_OR_STRING = {"type": ["integer", "string"], "format": "int-or-string", "x-kubernetes-int-or-string": True}
_TIME = {"type": "string", "format": "date-time"}
SPECIAL_TYPES: dict[str, dict[str, Any]] = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": _QUANTITY,
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": _INT_OR_STRING,
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": _TIME,
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": _TIME,
    # Opaque driver parameters: any JSON value passes the schema; the semantic
    # rules check what the API server requires of them.
    "io.k8s.apimachinery.pkg.runtime.RawExtension": {},
}


def _version_key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


def _dump(data: Any) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


class _Converter:
    """Converts component schemas of one OpenAPI document, collecting the reachable refs."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.components = components
        self._cache: dict[str, Any] = {}

    def definition(self, name: str) -> Any:
        if name not in self._cache:
            if name not in self.components:
                raise KeyError(f"unresolved reference {REF_PREFIX}{name}")
            source = self.components[name]
            special = SPECIAL_TYPES.get(name)
            if special is not None:
                out: dict[str, Any] = {}
                if "description" in source:
                    out["description"] = source["description"]
                out.update(json.loads(json.dumps(special)))
                for key, value in source.items():
                    if key.startswith("x-kubernetes-"):
                        out[key] = value
                self._cache[name] = out
            else:
                self._cache[name] = self.convert(source)
        return self._cache[name]

    def convert(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.convert(x) for x in node]
        if not isinstance(node, dict):
            return node
        node = dict(node)
        # Unwrap {"allOf": [{"$ref": R}], siblings...}
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict) \
                and set(all_of[0]) == {"$ref"} and "$ref" not in node:
            node.pop("allOf")
            node["$ref"] = all_of[0]["$ref"]
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref":
                if not isinstance(value, str) or not value.startswith(REF_PREFIX):
                    raise ValueError(f"non-local reference {value!r}")
                out[key] = DEFS_PREFIX + value[len(REF_PREFIX):]
            elif key in _VERBATIM or key.startswith("x-"):
                out[key] = value
            elif key == "properties":
                out[key] = {k: self.convert(v) for k, v in value.items()}
            elif key in ("items", "additionalProperties", "not", "patternProperties") and isinstance(value, dict):
                out[key] = {k: self.convert(v) for k, v in value.items()} if key == "patternProperties" else self.convert(value)
            elif key in ("allOf", "anyOf", "oneOf"):
                out[key] = [self.convert(x) for x in value]
            elif key == "nullable":
                continue  # handled below
            else:
                out[key] = value
        if "properties" in out:
            out.setdefault("type", "object")
            if "additionalProperties" not in out and not out.get("x-kubernetes-preserve-unknown-fields"):
                out["additionalProperties"] = False
        if out.get("x-kubernetes-int-or-string"):
            out.pop("anyOf", None)
            out["type"] = ["integer", "string"]
        if node.get("nullable") is True:
            if "type" in out:
                types = out["type"] if isinstance(out["type"], list) else [out["type"]]
                if "null" not in types:
                    out["type"] = types + ["null"]
            elif "$ref" in out:
                ref = out.pop("$ref")
                out["anyOf"] = [{"$ref": ref}, {"type": "null"}]
        return out


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(DEFS_PREFIX):
                found.add(value[len(DEFS_PREFIX):])
            elif key not in _VERBATIM and not key.startswith("x-"):
                _refs(value, found)
    elif isinstance(node, list):
        for x in node:
            _refs(x, found)


def _kind_schema(conv: _Converter, def_name: str, schema_id: str) -> dict[str, Any]:
    root = dict(conv.definition(def_name))
    defs: dict[str, Any] = {}
    pending: set[str] = set()
    _refs(root, pending)
    while pending:
        name = pending.pop()
        if name in defs:
            continue
        defs[name] = conv.definition(name)
        more: set[str] = set()
        _refs(defs[name], more)
        pending |= more - set(defs)
    root["$schema"] = SCHEMA_DIALECT
    root["$id"] = schema_id
    if defs:
        root["$defs"] = defs
    return root


def _gvk_resources(doc: dict[str, Any], version: str) -> dict[str, tuple[str, str]]:
    """kind -> (scope, plural), from the `post` operations of the document's paths."""
    out: dict[str, tuple[str, str]] = {}
    for path, ops in sorted(doc.get("paths", {}).items()):
        if not isinstance(ops, dict):
            continue
        for op in ops.values():
            if not isinstance(op, dict) or op.get("x-kubernetes-action") != "post":
                continue
            gvk = op.get("x-kubernetes-group-version-kind") or {}
            if gvk.get("group") != GROUP or gvk.get("version") != version:
                continue
            scope = "Namespaced" if "/namespaces/{namespace}/" in path else "Cluster"
            plural = path.rstrip("/").rsplit("/", 1)[-1]
            out[gvk["kind"]] = (scope, plural)
    return out


def _generate(openapi_dir: Path) -> dict[str, str]:
    """relative posix path -> file text."""
    lifecycle = json.loads(LIFECYCLE_FILE.read_text(encoding="utf-8"))
    files: dict[str, str] = {}
    releases: dict[str, Any] = {}
    served_in: dict[str, list[str]] = {}
    release_dirs = sorted(
        (p for p in openapi_dir.iterdir() if p.is_dir() and RELEASE_DIR_RE.match(p.name)),
        key=lambda p: _version_key(RELEASE_DIR_RE.match(p.name).group(1)),
    )
    if not release_dirs:
        raise SystemExit(f"no k8s-1.NN directories under {openapi_dir}")
    for rdir in release_dirs:
        release = RELEASE_DIR_RE.match(rdir.name).group(1)
        rel_entry: dict[str, Any] = {}
        for f in sorted(rdir.iterdir()):
            m = FILE_RE.match(f.name)
            if not m:
                continue
            version = m.group(1)
            gv = f"{GROUP}/{version}"
            doc = json.loads(f.read_text(encoding="utf-8"))
            components = doc.get("components", {}).get("schemas", {})
            resources = _gvk_resources(doc, version)
            conv = _Converter(components)
            kinds: dict[str, Any] = {}
            for def_name in sorted(components):
                schema = components[def_name]
                if def_name.startswith("io.k8s.apimachinery."):
                    # DeleteOptions, WatchEvent ...: meta types registered in every group.
                    continue
                for gvk in schema.get("x-kubernetes-group-version-kind", []):
                    if gvk.get("group") != GROUP or gvk.get("version") != version:
                        continue
                    kind = gvk["kind"]
                    if kind.endswith("List"):
                        continue
                    if kind not in resources:
                        raise SystemExit(f"{rdir.name}/{f.name}: kind {kind} has no REST path")
                    scope, plural = resources[kind]
                    rel = f"{release}/{GROUP}/{version}/{kind.lower()}.json"
                    files[rel] = _dump(_kind_schema(conv, def_name, ID_BASE + rel))
                    kinds[kind] = {"scope": scope, "plural": plural, "schema": rel}
            if not kinds:
                continue
            life = lifecycle["versions"].get(gv)
            if life is None:
                raise SystemExit(f"{gv} is served by {release} but missing from {LIFECYCLE_FILE.name}")
            since = life.get("default_enabled_since")
            rel_entry[gv] = {
                "kinds": kinds,
                "default_enabled": since is not None and _version_key(release) >= _version_key(since),
            }
            served_in.setdefault(gv, []).append(release)
        releases[release] = rel_entry

    all_releases = list(releases)
    versions: dict[str, Any] = {}
    for gv, life in lifecycle["versions"].items():
        entry = dict(life)
        entry["served_in"] = served_in.get(gv, [])
        _check_lifecycle(gv, entry, all_releases)
        versions[gv] = entry
    index = {
        "group": GROUP,
        "releases": releases,
        "versions": versions,
        "kinds": lifecycle.get("kinds", {}),
    }
    files["index.json"] = _dump(index)
    return files


def _check_lifecycle(gv: str, entry: dict[str, Any], all_releases: list[str]) -> None:
    """The hand-maintained introduced/removed facts must agree with what the OpenAPI files serve."""
    served = entry["served_in"]
    first, last = all_releases[0], all_releases[-1]
    problems = []
    intro = entry.get("introduced")
    if served:
        if intro != served[0] and served[0] != first:
            problems.append(f"introduced {intro} but first served in {served[0]}")
        idx = all_releases.index(served[-1])
        removed = entry.get("removed")
        if served[-1] != last:
            expected = all_releases[idx + 1]
            if removed != expected:
                problems.append(f"removed {removed} but last served in {served[-1]}")
        elif removed is not None and _version_key(removed) <= _version_key(last):
            problems.append(f"removed {removed} but still served in {last}")
    elif intro is not None and _version_key(intro) <= _version_key(last):
        problems.append(f"introduced {intro} but never served in {first}..{last}")
    if problems:
        raise SystemExit(f"{LIFECYCLE_FILE.name}: {gv}: " + "; ".join(problems))


def _write(files: dict[str, str], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for rel in sorted(files):
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = files[rel].encode("utf-8")
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        written.append(target)
    # Remove stale outputs: only under 1.* and index.json are ours.
    keep = {out_dir / rel for rel in files}
    for release_dir in sorted(out_dir.glob("1.*")):
        if release_dir.is_file():
            if release_dir not in keep:
                release_dir.unlink()
            continue
        for path in sorted(release_dir.rglob("*"), reverse=True):
            if path.is_file() and path not in keep:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        if release_dir.is_dir() and not any(release_dir.iterdir()):
            release_dir.rmdir()
    return written


def extract(openapi_dir: Path, out_dir: Path) -> list[Path]:
    """Generate the schemas from `openapi_dir` into `out_dir`; returns the files written (sorted)."""
    return _write(_generate(Path(openapi_dir)), Path(out_dir))


def _snapshot(out_dir: Path) -> dict[str, bytes]:
    snap: dict[str, bytes] = {}
    if not out_dir.is_dir():
        return snap
    index = out_dir / "index.json"
    if index.is_file():
        snap["index.json"] = index.read_bytes()
    for release_dir in out_dir.glob("1.*"):
        for path in release_dir.rglob("*"):
            if path.is_file():
                snap[path.relative_to(out_dir).as_posix()] = path.read_bytes()
    return snap


def check(openapi_dir: Path, out_dir: Path) -> list[str]:
    """Differences between a fresh extraction and `out_dir`, as human-readable lines."""
    with tempfile.TemporaryDirectory() as tmp:
        extract(openapi_dir, Path(tmp))
        fresh = _snapshot(Path(tmp))
    current = _snapshot(out_dir)
    lines: list[str] = []
    for rel in sorted(set(fresh) | set(current)):
        if rel not in current:
            lines.append(f"missing: {rel}")
        elif rel not in fresh:
            lines.append(f"stale:   {rel}")
        elif fresh[rel] != current[rel]:
            diff = list(difflib.unified_diff(
                current[rel].decode("utf-8", "replace").splitlines(),
                fresh[rel].decode("utf-8", "replace").splitlines(),
                lineterm="", n=0,
            ))
            changed = sum(1 for d in diff if d[:1] in "+-" and d[:3] not in ("+++", "---"))
            lines.append(f"changed: {rel} ({changed} lines)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--openapi", type=Path, default=DEFAULT_OPENAPI, help="directory holding k8s-1.NN/ (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from a fresh extraction")
    args = parser.parse_args(argv)
    if not args.openapi.is_dir():
        print(f"extract_schemas: no OpenAPI directory at {args.openapi}", file=sys.stderr)
        return 2
    if args.check:
        lines = check(args.openapi, args.out)
        if lines:
            print(f"extract_schemas: {args.out} is out of date ({len(lines)} files differ):", file=sys.stderr)
            for line in lines:
                print("  " + line, file=sys.stderr)
            print("run: python tools/extract_schemas.py", file=sys.stderr)
            return 1
        print("extract_schemas: schemas are up to date")
        return 0
    written = extract(args.openapi, args.out)
    print(f"extract_schemas: {len(written)} files in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
