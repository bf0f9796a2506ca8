"""API lifecycle: which resource.k8s.io version of which kind is served, deprecated or removed when.

Nothing here is hand-written: the table is computed from `schemas/index.json`
— its `releases` section (what each release serves, 1.26-1.37), its
`kind_lifecycle` section (introduced/deprecated/removed per group/version and
kind, generated from upstream's `zz_generated.prerelease-lifecycle.go`) and its
`versions` section (the same per version; hand-kept only for the old alphas
v1alpha1/v1alpha2, which have no such file). Releases newer than the data
(`--target-version 1.38`) are projected: the newest known release's kinds,
minus those whose `removed` release has come.

`--target-version 1.NN` (the upgrade check) adds, for every object:

* DRA020 `deprecated-api-version` (warning): its apiVersion is deprecated at
  or before the target release and still served there;
* DRA021 `removed-api-version` (error): the target release no longer serves
  its apiVersion/kind although the release it is linted at does;

both naming what to move to.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache

from .. import schemas
from ..model import Document, Problem, Severity
from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterable

DEPRECATED = ("DRA020", "deprecated-api-version", Severity.WARNING,
              "The apiVersion is deprecated in the --target-version release; move to its replacement before it is removed.")
REMOVED = ("DRA021", "removed-api-version", Severity.ERROR,
           "The --target-version release no longer serves this apiVersion/kind; the object will be rejected after the upgrade.")
CHECKS = {c[0]: c for c in (DEPRECATED, REMOVED)}


@dataclass(frozen=True, slots=True)
class Status:
    """What one release does with one group/version and kind."""

    api_version: str
    kind: str | None
    release: str
    served: bool
    deprecated: bool  # deprecated at or before `release`
    removed: bool  # served by some earlier release, not by this one
    deprecated_in: str | None
    removed_in: str | None  # the release that stopped serving it (for this kind), if known
    replacement: str | None  # group/version to use instead, served by `release` for this kind
    projected: bool  # `release` is newer than the data: served-ness is projected


def _key(release: str) -> tuple[int, ...]:
    return schemas.release_key(release)


def parse_release(text: str) -> str:
    """"1.38" -> "1.38". ValueError unless it reads 1.NN (any minor, also beyond the data)."""
    parts = str(text).strip().lstrip("v").split(".")
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts) or parts[0] != "1":
        raise ValueError(f"not a Kubernetes release: {text!r} (expected 1.NN, e.g. 1.35)")
    return f"{int(parts[0])}.{int(parts[1])}"


def known_releases() -> list[str]:
    return sorted(schemas.index()["releases"], key=_key)


@lru_cache(maxsize=None)
def served_kinds(release: str) -> dict[str, frozenset[str]]:
    """group/version -> kinds served by `release`; projected past the newest release of the data."""
    releases = schemas.index()["releases"]
    if release in releases:
        return {gv: frozenset(e["kinds"]) for gv, e in releases[release].items()}
    newest = known_releases()[-1]
    if _key(release) < _key(newest):
        raise ValueError(f"no data for Kubernetes {release}")
    out = {}
    for gv, e in releases[newest].items():
        kinds = frozenset(k for k in e["kinds"] if not _removed_by(schemas.kind_lifecycle(gv, k), release))
        if kinds:
            out[gv] = kinds
    return out


def _removed_by(life: schemas.VersionLifecycle | None, release: str) -> bool:
    return bool(life and life.removed and _key(life.removed) <= _key(release))


def _first_unserved(api_version: str, kind: str | None, release: str, life: schemas.VersionLifecycle | None) -> str | None:
    """The first release after the last one serving api_version/kind, up to `release` (projected too)."""
    served_before = None
    for r in known_releases():
        if _key(r) > _key(release):
            break
        if kind in served_kinds(r).get(api_version, ()):
            served_before = r
        elif served_before is not None:
            return r
    if served_before is None:
        return None
    if life and life.removed and _key(life.removed) <= _key(release):
        return life.removed
    return None


def _replacement(api_version: str, kind: str | None, release: str, version_life: schemas.VersionLifecycle | None) -> str | None:
    serving = served_kinds(release)
    candidates = [gv for gv, kinds in serving.items() if kind in kinds and gv != api_version]
    if candidates:
        stable = [gv for gv in candidates if (life := _lifecycles(gv, kind).kind) and not life.deprecated]
        return max(stable or candidates, key=schemas.version_key)
    return version_life.replacement if version_life else None


class _Lifecycles(NamedRecord):
    """What the data says of one group/version and kind, read once for every release asked about."""

    __slots__ = ()

    def __new__(
        _cls,
        kind: schemas.VersionLifecycle | None,  # the kind's own dates where upstream gives them
        version: schemas.VersionLifecycle | None,  # the group/version's; None: no such version
    ) -> "_Lifecycles":
        return tuple_new(_cls, (kind, version))


@lru_cache(maxsize=None)
def _lifecycles(api_version: str, kind: str | None) -> _Lifecycles:
    return _Lifecycles(schemas.kind_lifecycle(api_version, kind), schemas.lifecycle(api_version))


@lru_cache(maxsize=None)
def status(api_version: str, kind: str | None, release: str) -> Status:
    return _status(api_version, kind, parse_release(release), _lifecycles(api_version, kind))


def _status(api_version: str, kind: str | None, release: str, lives: _Lifecycles) -> Status:
    """`status` of a parsed release, from the lifecycles already read."""
    life = lives.kind
    served = kind in served_kinds(release).get(api_version, frozenset())
    deprecated_in = life.deprecated if life else None
    deprecated = bool(deprecated_in and _key(deprecated_in) <= _key(release))
    removed_in = None if served else _first_unserved(api_version, kind, release, life)
    return Status(
        api_version=api_version,
        kind=kind,
        release=release,
        served=served,
        deprecated=deprecated,
        removed=removed_in is not None,
        deprecated_in=deprecated_in,
        removed_in=removed_in,
        replacement=_replacement(api_version, kind, release, lives.version),
        projected=release not in schemas.index()["releases"],
    )


def table(releases: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """One row per group/version: stability, introduced/deprecated/removed, replacement, per-release state.

    State per release: "default" (served, on by default), "served" (served, off by
    default), "deprecated" (served and deprecated), "" (not served).
    """
    idx = schemas.index()
    rels = list(releases) if releases is not None else known_releases()
    rows = []
    for gv in sorted(idx["versions"], key=schemas.version_key):
        life = schemas.lifecycle(gv)
        states = {}
        for r in rels:
            kinds = served_kinds(r).get(gv)
            if not kinds:
                states[r] = ""
            elif life.deprecated and _key(life.deprecated) <= _key(r):
                states[r] = "deprecated"
            else:
                entry = idx["releases"].get(r, {}).get(gv)
                on = bool(entry and entry["default_enabled"]) or bool(
                    r not in idx["releases"] and (idx["versions"][gv].get("default_enabled_since"))
                )
                states[r] = "default" if on else "served"
        rows.append(
            {
                "apiVersion": gv,
                "stability": life.stability,
                "introduced": life.introduced,
                "deprecated": life.deprecated,
                "removed": life.removed,
                "replacement": life.replacement,
                "releases": states,
            }
        )
    return rows


def render_table(releases: Iterable[str] | None = None) -> str:
    """A plain-text table for `dralint versions`."""
    rels = list(releases) if releases is not None else known_releases()
    rows = table(rels)
    marks = {"default": "on", "served": "off", "deprecated": "dep", "": "-"}
    width = max(len(r["apiVersion"]) for r in rows)
    head = f"{'apiVersion':<{width}}  {'deprecated':<10} {'removed':<8} " + " ".join(f"{r:>5}" for r in rels)
    lines = [head]
    for row in rows:
        cells = " ".join(f"{marks[row['releases'][r]]:>5}" for r in rels)
        lines.append(f"{row['apiVersion']:<{width}}  {row['deprecated'] or '-':<10} {row['removed'] or '-':<8} {cells}")
    lines.append("on = served and enabled by default, off = served but disabled by default, dep = deprecated, - = not served")
    return "\n".join(lines) + "\n"


def _problem(check: tuple, doc: Document, message: str) -> Problem:
    code, slug, severity, _ = check
    path = ("apiVersion",)
    return Problem(
        rule=code,
        name=slug,
        severity=severity,
        message=message,
        source=doc.source,
        document=doc.index,
        path=path,
        span=doc.locate(path),
        api_version=doc.api_version,
        kind=doc.kind,
        object=doc.object_ref,
    )


def upgrade_problems(doc: Document, target: str, release: str) -> list[Problem]:
    """DRA020/DRA021 for one document linted at `release` and upgraded to `target`."""
    api_version, kind = doc.api_version, doc.kind
    if not api_version or not kind or api_version.rpartition("/")[0] != schemas.GROUP:
        return []
    verdict = _upgrade(api_version, kind, release, target)
    return [_problem(verdict[0], doc, verdict[1])] if verdict is not None else []


@lru_cache(maxsize=None)
def _upgrade(api_version: str, kind: str, release: str, target: str) -> tuple[tuple, str] | None:
    """The check and message of an api_version/kind linted at `release` and upgraded to `target`, or None:
    its lifecycle read once, then judged at both releases."""
    lives = _lifecycles(api_version, kind)
    if lives.version is None:
        return None  # not a version at all: the engine already reported it
    if release in schemas.index()["releases"] and not _status(api_version, kind, parse_release(release), lives).served:
        return None  # not served today: DRA010 already says so
    then = _status(api_version, kind, parse_release(target), lives)
    what = f"{api_version} {kind}"
    migrate = ""
    if then.replacement and then.replacement.endswith("/v1") and kind in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice"):
        migrate = f" (dralint migrate --to {then.replacement} rewrites it)"
    advice = f"; use {then.replacement}{migrate}" if then.replacement else ""
    if then.removed or not then.served:
        when = f"removed in Kubernetes {then.removed_in}" if then.removed_in else f"not served by Kubernetes {target}"
        projected = " (upstream's planned removal)" if then.projected else ""
        return REMOVED, f"{what} is {when}, at or before the target release {target}{projected}{advice}"
    if then.deprecated:
        removal = f" and will be removed in {lives.kind.removed}" if lives.kind and lives.kind.removed else ""
        return DEPRECATED, f"{what} is deprecated since Kubernetes {then.deprecated_in}{removal}{advice}"
    return None


def main(argv: list[str] | None = None) -> int:
    """`python -m dralint.pipeline.lifecycle [1.NN ...]`: print the table (what `dralint versions` would show)."""
    args = list(sys.argv[1:] if argv is None else argv)
    releases = [parse_release(a) for a in args] if args else None
    sys.stdout.write(render_table(releases))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
