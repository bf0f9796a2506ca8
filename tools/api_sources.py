"""Readers of the three upstream sources of the resource.k8s.io API, each giving the same shape.

A release's API, as every reader returns it:

    {"resource.k8s.io/v1": {
        "components": {dotted Go name: OpenAPI v3 schema, refs "#/components/schemas/<name>"},
        "kinds": {"ResourceClaim": {"definition": "io.k8s.api.resource.v1.ResourceClaim",
                                    "scope": "Namespaced", "plural": "resourceclaims"}}}}

* `read_openapi_v3(dir)`: `k8s-1.NN/apis__resource.k8s.io__<version>_openapi.json`.
* `read_openapi_v2(path)`: a whole-cluster `swagger.json` (definitions under
  `definitions`, bare `$ref`s, every group in one document).
* `read_go_types(dir, base)`: the Go packages `k8s.io/api/resource/<version>` (see
  go_types.py and go_schema.py), and `k8s.io/api/core/v1` where the release folder
  has it (NodeSelector ...); apimachinery types (ObjectMeta, Quantity, Condition) are
  taken from `base`, the components of an OpenAPI document, because their Go
  sources are not part of the input.

The extractor converts any of them to the same JSON Schemas, so two sources of
one release can be compared file by file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from go_schema import package_api, prerelease_lifecycle, sibling_packages

GROUP = "resource.k8s.io"
V3_REF = "#/components/schemas/"
V2_REF = "#/definitions/"
V3_FILE_RE = re.compile(r"^apis__resource\.k8s\.io__(v[0-9a-z]+)_openapi\.json$")
RESOURCE_PREFIX = "io.k8s.api.resource."

ReleaseAPI = dict[str, dict[str, Any]]


def _rest_resources(paths: dict[str, Any], version: str) -> dict[str, tuple[str, str]]:
    """kind -> (scope, plural), from the `post` operations of the paths."""
    out: dict[str, tuple[str, str]] = {}
    for path, ops in sorted(paths.items()):
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


def _kinds(components: dict[str, Any], paths: dict[str, Any], version: str, where: str) -> dict[str, Any]:
    resources = _rest_resources(paths, version)
    kinds: dict[str, Any] = {}
    for def_name in sorted(components):
        if def_name.startswith("io.k8s.apimachinery."):
            continue  # DeleteOptions, WatchEvent ...: meta types registered in every group
        for gvk in components[def_name].get("x-kubernetes-group-version-kind", []):
            if gvk.get("group") != GROUP or gvk.get("version") != version or gvk["kind"].endswith("List"):
                continue
            if gvk["kind"] not in resources:
                raise SystemExit(f"{where}: kind {gvk['kind']} has no REST path")
            scope, plural = resources[gvk["kind"]]
            kinds[gvk["kind"]] = {"definition": def_name, "scope": scope, "plural": plural}
    return kinds


def read_openapi_v3(release_dir: Path) -> ReleaseAPI:
    api: ReleaseAPI = {}
    for path in sorted(Path(release_dir).iterdir()):
        m = V3_FILE_RE.match(path.name)
        if not m:
            continue
        version = m.group(1)
        doc = json.loads(path.read_text(encoding="utf-8"))
        components = doc.get("components", {}).get("schemas", {})
        kinds = _kinds(components, doc.get("paths", {}), version, f"{release_dir.name}/{path.name}")
        if kinds:
            api[f"{GROUP}/{version}"] = {"components": components, "kinds": kinds}
    return api


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(V2_REF):
                out[key] = V3_REF + value[len(V2_REF):]
            else:
                out[key] = _rewrite_refs(value)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(x) for x in node]
    return node


def v2_components(doc: dict[str, Any]) -> dict[str, Any]:
    """The definitions of a swagger document, with references in the v3 form."""
    return {name: _rewrite_refs(schema) for name, schema in doc.get("definitions", {}).items()}


def read_openapi_v2(swagger: Path) -> ReleaseAPI:
    doc = json.loads(Path(swagger).read_text(encoding="utf-8"))
    components = v2_components(doc)
    versions = sorted({
        gvk["version"]
        for name, schema in components.items() if name.startswith(RESOURCE_PREFIX)
        for gvk in schema.get("x-kubernetes-group-version-kind", []) if gvk.get("group") == GROUP
    })
    api: ReleaseAPI = {}
    for version in versions:
        mine = {n: s for n, s in components.items() if not n.startswith(RESOURCE_PREFIX) or n.startswith(f"{RESOURCE_PREFIX}{version}.")}
        kinds = _kinds(mine, doc.get("paths", {}), version, str(swagger))
        if kinds:
            api[f"{GROUP}/{version}"] = {"components": mine, "kinds": kinds}
    return api


def read_go_types(release_dir: Path, base: dict[str, Any]) -> ReleaseAPI:
    """The Go packages under `<release_dir>/resource/<version>/`; types of other packages from
    their Go source when the release folder has it (`core/v1`), else from `base`."""
    api: ReleaseAPI = {}
    siblings = sibling_packages(release_dir)
    own = tuple(f"io.k8s.api.{path.split('/', 2)[2].replace('/', '.')}." for path in siblings)
    external = {n: s for n, s in base.items() if not n.startswith(RESOURCE_PREFIX) and not n.startswith(own)}
    release = _release_of(release_dir)
    for pkg_dir in sorted((Path(release_dir) / "resource").iterdir(), key=lambda p: p.name):
        if pkg_dir.is_dir():
            entry = package_api(pkg_dir, external, siblings)
            for kind in unserved_kinds(pkg_dir, release):
                entry["kinds"].pop(kind, None)
            if entry["kinds"]:
                api[f"{GROUP}/{pkg_dir.name}"] = entry
    return api


def _release_of(release_dir: Path) -> tuple[int, ...]:
    """`.../1.38` (or `k8s-1.38`) -> (1, 38)."""
    m = re.search(r"(\d+)\.(\d+)$", Path(release_dir).name)
    if m is None:
        raise SystemExit(f"{release_dir}: not a release folder (1.NN)")
    return int(m.group(1)), int(m.group(2))


def unserved_kinds(pkg_dir: Path, release: tuple[int, ...]) -> list[str]:
    """Kinds of a Go package that the API server of `release` does not serve.

    Upstream keeps a version's Go package after the API server stops serving it (the
    v1beta1 package is still in the 1.38 tree, its kinds removed in 1.38): what a release
    serves comes from the package's `zz_generated.prerelease-lifecycle.go`, not from
    which folders exist. A kind is served from its `introduced` release up to, not
    including, its `removed` release.
    """
    out = []
    for kind, facts in prerelease_lifecycle(pkg_dir).items():
        removed = facts.get("removed")
        introduced = facts.get("introduced")
        if (removed and release >= _release_key(removed)) or (introduced and release < _release_key(introduced)):
            out.append(kind)
    return sorted(out)


def _release_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def base_components(api: ReleaseAPI) -> dict[str, Any]:
    """Every component of a release read from OpenAPI, merged across its versions."""
    merged: dict[str, Any] = {}
    for entry in api.values():
        merged.update(entry["components"])
    return merged
