"""The enforced `+k8s:` declarative validation tags of each release's Go API types
(../shared/k8s-api/<release>/resource/<version>/*.go), on the types a kind that dralint
checks reaches. Parsed with tools/go_types.py.

A tag line is `+k8s:<tag>`, optionally behind lifecycle and gate prefixes:
`+k8s:beta(since: "1.37")=+k8s:maxItems=8` is enforced (beta), `+k8s:alpha(...)=...`
is shadow-only (compared in the server's logs, never returned) and left out;
`+k8s:ifEnabled(Gate)=+k8s:format=...` is enforced while Gate is on.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
K8S_API = ROOT.parent / "shared" / "k8s-api"

# ResourcePoolStatusRequest by its spec: its status is written by the controller, never by a manifest.
CHECKED_KINDS = ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourcePoolStatusRequestSpec")
# Markers for code generators, not validation.
_NOT_VALIDATION = re.compile(r"^(deepcopy-gen|prerelease-lifecycle-gen|supportsSubresource|opaqueType)\b")
_PREFIX = re.compile(r"^\+k8s:(beta|alpha)\(since: *\"[0-9.]+\"\)=")


@lru_cache(maxsize=1)
def _go_types():
    spec = importlib.util.spec_from_file_location("go_types", ROOT / "tools" / "go_types.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["go_types"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True, order=True)
class Tag:
    release: str
    version: str
    type: str  # Go type name
    field: str  # JSON name; "" for a tag on the type itself
    tag: str  # normalised: lifecycle prefix removed, e.g. "maxItems=8", "ifEnabled(G)=format=k8s-..."
    stage: str  # "ga", "beta"


def normalise(line: str) -> tuple[str, str] | None:
    """(tag, stage) of one enforced validation tag line; None for shadow-only or non-validation lines."""
    text = line.strip()
    if not text.startswith("+k8s:"):
        return None
    stage = "ga"
    m = _PREFIX.match(text)
    if m:
        if m.group(1) == "alpha":
            return None
        stage = m.group(1)
        text = text[m.end():]
    tag = text.replace("+k8s:", "")
    if _NOT_VALIDATION.match(tag):
        return None
    return tag, stage


def _referenced(expr, go) -> list[str]:
    if isinstance(expr, go.Ident):
        return [expr.name]
    if isinstance(expr, (go.Pointer, go.Slice)):
        return _referenced(expr.elem, go)
    if isinstance(expr, go.Map):
        return _referenced(expr.key, go) + _referenced(expr.value, go)
    if isinstance(expr, go.Struct):
        return [n for f in expr.fields for n in _referenced(f.type, go)]
    return []


def _reachable(pkg, go) -> list[str]:
    seen: list[str] = []
    todo = [k for k in CHECKED_KINDS if k in pkg.types]
    while todo:
        name = todo.pop()
        if name in seen or name not in pkg.types:
            continue
        seen.append(name)
        todo.extend(_referenced(pkg.types[name].type, go))
    return seen


@lru_cache(maxsize=None)
def enforced_tags(release: str) -> tuple[Tag, ...]:
    go = _go_types()
    out: list[Tag] = []
    for vdir in sorted((K8S_API / release / "resource").iterdir()):
        pkg = go.parse_package(sorted(vdir.glob("*.go")))
        for name in _reachable(pkg, go):
            decl = pkg.types[name]
            lines = [("", decl.doc)]
            if isinstance(decl.type, go.Struct):
                lines += [(f.json_name, f.doc) for f in decl.type.fields if f.json_name]
            for field, doc in lines:
                for line in doc:
                    found = normalise(line)
                    if found:
                        out.append(Tag(release, vdir.name, name, field, *found))
    return tuple(sorted(set(out)))
