#!/usr/bin/env python3
"""Turn the upstream definition of resource.k8s.io into self-contained JSON Schema
(draft 2020-12) files, one per release, version and kind, plus `schemas/index.json`
(what each release serves, scope, plural, lifecycle) and `schemas/feature_gates.json`.

    python tools/extract_schemas.py [--shared DIR] [--out DIR] [--check]

Sources, under `--shared` (default ../shared); each release takes the first that exists:
1. OpenAPI v3: `openapi/k8s-1.NN/apis__resource.k8s.io__<version>_openapi.json`;
2. OpenAPI v2: `openapi-v2/1.NN/swagger.json`;
3. the Go API types: `k8s-api/1.NN/resource/<version>/*.go` (and `core/v1/types.go` where
   present), with the apimachinery types (ObjectMeta, Quantity, Condition), whose Go
   source is not part of the data, from the newest older release's OpenAPI.
All three give the same schemas (tests/test_sources.py proves it release by release), so a
new Kubernetes release is a data drop plus a rerun. The Go types also give what no
OpenAPI document carries: introduced/deprecated/removed per kind
(`zz_generated.prerelease-lifecycle.go`) and the `+featureGate=` of each field;
feature-gate defaults come from `k8s-api/dra-feature-gates.json`. Facts without any
upstream file (the old alphas) are hand-kept in `tools/api_lifecycle.json`.

Output: `<out>/1.NN/resource.k8s.io/<version>/<kind>.json`, `<out>/index.json`,
`<out>/feature_gates.json`, `<out>/docs.json` (the fields' Go comments and allowed values, for
the language server's hover; tools/go_docs.py). `--check` regenerates into a temporary directory and
exits 1 when the result differs from `--out` (drift check). Standard library only;
the output is byte-reproducible (sorted keys, no timestamps, no absolute paths).

Conversion (OpenAPI 3.0 component schema -> JSON Schema 2020-12):
* `#/components/schemas/X` -> `#/$defs/X`; only the definitions reachable from the kind are kept.
* `{"allOf": [{"$ref": R}], ...siblings}` -> `{"$ref": R, ...siblings}` (2020-12 allows $ref siblings).
* every schema with `properties` gets `"type": "object"` (if missing) and
  `"additionalProperties": false` (strict decoding) unless it declares
  `additionalProperties` itself or carries `x-kubernetes-preserve-unknown-fields`.
* `nullable: true` -> "null" added to `type` (or `anyOf` with `{"type": "null"}` around a $ref).
* `x-kubernetes-int-or-string: true` -> `"type": ["integer", "string"]`.
* Special apimachinery types are rewritten by name, see SPECIAL_TYPES.
* Documentation is left out (`description`, `default`, `example`): dralint never reads
  it, and each source words it differently (openapi-gen reflows Go comments, v2 has no
  `default` next to a `$ref`), which would make the sources disagree for no reason.
  `required` is sorted (the generators list it in field order, not a meaning).
* `enum` is left out too: the v3 documents have none while v2 lists the values of
  `+enum` types; the semantic rules report an unsupported value as the API server does
  (NotSupported, with the allowed values), so a schema enum would only say it twice.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sibling modules when run or loaded by path

from api_sources import ReleaseAPI, base_components, read_go_types, read_openapi_v2, read_openapi_v3  # noqa: E402
from go_docs import field_docs  # noqa: E402
from go_schema import gated_fields, load_package, prerelease_lifecycle  # noqa: E402

GROUP = "resource.k8s.io"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_BASE = "https://dralint.dev/schemas/"
REF_PREFIX = "#/components/schemas/"
DEFS_PREFIX = "#/$defs/"

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SHARED = REPO / ".." / "shared"
DEFAULT_OUT = REPO / "schemas"
LIFECYCLE_FILE = Path(__file__).resolve().parent / "api_lifecycle.json"

RELEASE_DIR_RE = re.compile(r"^(?:k8s-)?(1\.[0-9]+)$")

# Documentation: dropped (see the module docstring).
_DROPPED = {"description", "default", "example", "enum"}
TOP_LEVEL_FILES = ("index.json", "feature_gates.json", "docs.json")
# Keys whose values are data, not sub-schemas: copied verbatim, never walked.
_VERBATIM = {"enum", "const", "required", "format", "type", "title"}

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
                out: dict[str, Any] = json.loads(json.dumps(special))
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
            if key in _DROPPED:
                continue
            if key == "$ref":
                if not isinstance(value, str) or not value.startswith(REF_PREFIX):
                    raise ValueError(f"non-local reference {value!r}")
                out[key] = DEFS_PREFIX + value[len(REF_PREFIX):]
            elif key == "required":
                out[key] = sorted(value)
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


# --- sources -------------------------------------------------------------------

def release_sources(shared: Path) -> dict[str, tuple[str, Path]]:
    """release -> (source, path): OpenAPI v3 where it exists, else v2, else the Go types."""
    found: dict[str, tuple[str, Path]] = {}
    for source, folder, marker in (("go-types", "k8s-api", None), ("openapi-v2", "openapi-v2", "swagger.json"), ("openapi-v3", "openapi", None)):
        root = Path(shared) / folder
        if not root.is_dir():
            continue
        for entry in root.iterdir():
            m = RELEASE_DIR_RE.match(entry.name)
            if not m or not entry.is_dir() or (source == "go-types" and not (entry / "resource").is_dir()):
                continue
            found[m.group(1)] = (source, entry / marker if marker else entry)
    return dict(sorted(found.items(), key=lambda item: _version_key(item[0])))


def read_source(source: str, path: Path, base: dict[str, Any] | None = None) -> ReleaseAPI:
    if source == "openapi-v3":
        return read_openapi_v3(path)
    if source == "openapi-v2":
        return read_openapi_v2(path)
    if base is None:
        raise ValueError("the Go types need the components of an OpenAPI document for other packages' types")
    return read_go_types(path, base)


def read_releases(shared: Path) -> dict[str, tuple[str, ReleaseAPI]]:
    """release -> (description of the source, API); Go-type releases borrow the apimachinery
    types from the newest OpenAPI release before them."""
    out: dict[str, tuple[str, ReleaseAPI]] = {}
    base: tuple[str, dict[str, Any]] | None = None
    for release, (source, path) in release_sources(shared).items():
        if source == "go-types":
            if base is None:
                raise SystemExit(f"{path}: no older OpenAPI document to take ObjectMeta and core types from")
            out[release] = (f"go-types (apimachinery types from {base[0]})", read_source(source, path, base[1]))
        else:
            api = read_source(source, path)
            base = (f"{release} {source}", base_components(api))
            out[release] = (source, api)
    if not out:
        raise SystemExit(f"no release data under {shared}")
    return out


# --- schemas ----------------------------------------------------------------------

def release_files(release: str, api: ReleaseAPI) -> tuple[dict[str, str], dict[str, Any]]:
    """The schema files of one release (relative path -> text) and its index entry."""
    files: dict[str, str] = {}
    entry: dict[str, Any] = {}
    for gv in sorted(api):
        conv = _Converter(api[gv]["components"])
        kinds: dict[str, Any] = {}
        version = gv.rpartition("/")[2]
        for kind, info in sorted(api[gv]["kinds"].items()):
            rel = f"{release}/{GROUP}/{version}/{kind.lower()}.json"
            files[rel] = _dump(_kind_schema(conv, info["definition"], ID_BASE + rel))
            kinds[kind] = {"scope": info["scope"], "plural": info["plural"], "schema": rel}
        entry[gv] = {"kinds": kinds}
    return files, entry


# --- lifecycle and feature gates ---------------------------------------------------

def upstream_lifecycle(shared: Path) -> dict[str, dict[str, Any]]:
    """group/version -> kind -> {introduced, deprecated, removed, source}, newest file winning."""
    out: dict[str, dict[str, Any]] = {}
    root = Path(shared) / "k8s-api"
    releases = sorted((p.name for p in root.iterdir() if RELEASE_DIR_RE.match(p.name) and (p / "resource").is_dir()), key=_version_key) if root.is_dir() else []
    for release in releases:
        for pkg_dir in sorted((root / release / "resource").iterdir()):
            for kind, facts in prerelease_lifecycle(pkg_dir).items():
                entry = {"introduced": None, "deprecated": None, "removed": None, **facts}
                entry["source"] = f"k8s-api/{release}/resource/{pkg_dir.name}/zz_generated.prerelease-lifecycle.go"
                out.setdefault(f"{GROUP}/{pkg_dir.name}", {})[kind] = entry
    return out


def _version_lifecycle(gv: str, hand: dict[str, Any], kinds: dict[str, Any], served_in: list[str],
                       releases: dict[str, Any]) -> dict[str, Any]:
    """One `versions` entry: policy facts from the hand-kept file, dates from upstream where it has them."""
    entry = {k: v for k, v in hand.items() if k not in ("introduced", "deprecated", "removed")}
    if kinds:
        # A version starts to go away when the first of the kinds it serves in its newest
        # release does (each kind keeps its own dates in kind_lifecycle).
        newest = [k for k in (releases[served_in[-1]][gv]["kinds"] if served_in else kinds) if k in kinds] or sorted(kinds)
        entry["introduced"] = min((k["introduced"] for k in kinds.values() if k["introduced"]), key=_version_key, default=None)
        for what in ("deprecated", "removed"):
            dates = [kinds[k][what] for k in newest if kinds[k][what]]
            entry[what] = min(dates, key=_version_key) if len(dates) == len(newest) else None
        entry["source"] = "upstream: zz_generated.prerelease-lifecycle.go (see kind_lifecycle)"
    else:
        for what in ("introduced", "deprecated", "removed"):
            entry[what] = hand.get(what)
        entry["source"] = "hand-kept: tools/api_lifecycle.json (no prerelease-lifecycle file upstream)"
    entry["served_in"] = served_in
    return entry


def _check_kind_lifecycle(gv: str, kinds: dict[str, Any], served_in_by_kind: dict[str, list[str]]) -> None:
    """Upstream dates and the served data must agree: nothing is served at or after its removal."""
    for kind, facts in kinds.items():
        served = served_in_by_kind.get(kind, [])
        if facts["removed"] and served and _version_key(served[-1]) >= _version_key(facts["removed"]):
            raise SystemExit(f"{gv} {kind}: removed in {facts['removed']} but served in {served[-1]}")


def _check_lifecycle(gv: str, entry: dict[str, Any], all_releases: list[str]) -> None:
    """The hand-kept introduced/removed facts must agree with what the releases serve."""
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


def feature_gates(shared: Path, releases: list[str]) -> dict[str, Any]:
    """Gate defaults per release (from dra-feature-gates.json) and the fields each gate governs
    (from the `+featureGate=` markers of each release's Go types)."""
    history = json.loads((Path(shared) / "k8s-api" / "dra-feature-gates.json").read_text(encoding="utf-8"))
    gates: dict[str, Any] = {}
    for gate, steps in sorted(history.items()):
        if gate.startswith("_"):
            continue
        per_release: dict[str, Any] = {}
        current = None
        for release in releases:
            for since, default, stage in steps:
                if since == release:
                    current = {"default": bool(default), "stage": stage}
            if current is not None:
                per_release[release] = current
        gates[gate] = per_release
    fields: dict[str, Any] = {}
    for release in releases:
        resource = Path(shared) / "k8s-api" / release / "resource"
        if not resource.is_dir():
            continue
        for pkg_dir in sorted(resource.iterdir()):
            gated = gated_fields(load_package(pkg_dir))
            if gated:
                fields.setdefault(release, {})[f"{GROUP}/{pkg_dir.name}"] = gated
    return {
        "_about": "Generated by tools/extract_schemas.py. defaults: each DRA feature gate's default and stage per "
                  "release (a gate absent from a release does not exist there), from k8s-api/dra-feature-gates.json. "
                  "fields: release -> group/version -> Go type -> JSON field -> gates its `+featureGate=` marker names.",
        "defaults": gates,
        "fields": fields,
    }


def _generate(shared: Path) -> dict[str, str]:
    """relative posix path -> file text."""
    hand = json.loads(LIFECYCLE_FILE.read_text(encoding="utf-8"))
    files: dict[str, str] = {}
    releases: dict[str, Any] = {}
    sources: dict[str, str] = {}
    served_in: dict[str, list[str]] = {}
    served_kind_in: dict[str, dict[str, list[str]]] = {}
    for release, (source, api) in read_releases(shared).items():
        release_schemas, entry = release_files(release, api)
        files.update(release_schemas)
        for gv, gv_entry in entry.items():
            if gv not in hand["versions"]:
                raise SystemExit(f"{gv} is served by {release} but missing from {LIFECYCLE_FILE.name}")
            since = hand["versions"][gv].get("default_enabled_since")
            gv_entry["default_enabled"] = since is not None and _version_key(release) >= _version_key(since)
            served_in.setdefault(gv, []).append(release)
            for kind in gv_entry["kinds"]:
                served_kind_in.setdefault(gv, {}).setdefault(kind, []).append(release)
        releases[release] = entry
        sources[release] = source

    all_releases = list(releases)
    upstream = upstream_lifecycle(shared)
    versions: dict[str, Any] = {}
    for gv, life in hand["versions"].items():
        kinds = upstream.get(gv, {})
        entry = _version_lifecycle(gv, life, kinds, served_in.get(gv, []), releases)
        if kinds:
            _check_kind_lifecycle(gv, kinds, served_kind_in.get(gv, {}))
        else:
            _check_lifecycle(gv, entry, all_releases)
        versions[gv] = entry
    index = {
        "group": GROUP,
        "releases": releases,
        "sources": sources,
        "versions": versions,
        "kind_lifecycle": upstream,
        "kinds": hand.get("kinds", {}),
        "previews": _previews(hand, all_releases),
    }
    files["index.json"] = _dump(index)
    files["feature_gates.json"] = _dump(feature_gates(shared, all_releases))
    files["docs.json"] = _dump(field_docs(shared, all_releases))
    return files


def _previews(hand: dict[str, Any], all_releases: list[str]) -> dict[str, Any]:
    """The releases whose data is a preview (tools/api_lifecycle.json `previews`).

    Which release is the default (the newest that is not a preview) follows from this,
    so the data drop of a release's tag, which deletes its entry, makes it the default
    without a code change. An entry for a release that has no data is an error: it
    would otherwise outlive its release unseen.
    """
    previews = hand.get("previews", {})
    for release in previews:
        if release not in all_releases:
            raise SystemExit(f"{LIFECYCLE_FILE.name}: preview {release} has no release data")
    if all(r in previews for r in all_releases):
        raise SystemExit(f"{LIFECYCLE_FILE.name}: every release is a preview; no default release")
    return {r: previews[r] for r in sorted(previews, key=_version_key)}


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
    # Remove stale outputs: only 1.*/ and the top-level files are ours.
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


def extract(shared: Path, out_dir: Path) -> list[Path]:
    """Generate the schemas from the upstream data under `shared` into `out_dir`; returns the files written (sorted)."""
    return _write(_generate(Path(shared)), Path(out_dir))


def _snapshot(out_dir: Path) -> dict[str, bytes]:
    snap: dict[str, bytes] = {}
    if not out_dir.is_dir():
        return snap
    for name in TOP_LEVEL_FILES:
        if (out_dir / name).is_file():
            snap[name] = (out_dir / name).read_bytes()
    for release_dir in out_dir.glob("1.*"):
        for path in release_dir.rglob("*"):
            if path.is_file():
                snap[path.relative_to(out_dir).as_posix()] = path.read_bytes()
    return snap


def check(shared: Path, out_dir: Path) -> list[str]:
    """Differences between a fresh extraction and `out_dir`, as human-readable lines."""
    with tempfile.TemporaryDirectory() as tmp:
        extract(shared, Path(tmp))
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
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED,
                        help="directory holding openapi/, openapi-v2/ and k8s-api/ (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from a fresh extraction")
    args = parser.parse_args(argv)
    if not args.shared.is_dir():
        print(f"extract_schemas: no upstream data directory at {args.shared}", file=sys.stderr)
        return 2
    if args.check:
        lines = check(args.shared, args.out)
        if lines:
            print(f"extract_schemas: {args.out} is out of date ({len(lines)} files differ):", file=sys.stderr)
            for line in lines:
                print("  " + line, file=sys.stderr)
            print("run: python tools/extract_schemas.py", file=sys.stderr)
            return 1
        print("extract_schemas: schemas are up to date")
        return 0
    written = extract(args.shared, args.out)
    print(f"extract_schemas: {len(written)} files in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
