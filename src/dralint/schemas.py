"""Runtime access to the generated resource.k8s.io schemas (`schemas/`, made by tools/extract_schemas.py).

Cheap to import: only `json`; `index.json` is read on first use and each schema
file when first asked for, and both are cached.

    cat = catalog("1.37")
    info = cat.served("resource.k8s.io/v1", "ResourceClaim")   # KindInfo | None
    schema = cat.schema("resource.k8s.io/v1", "ResourceClaim")  # dict, JSON Schema 2020-12
    explain_not_served("1.37", "resource.k8s.io/v1alpha2", "ResourceClaim")
"""

from __future__ import annotations

import os
from functools import lru_cache

__all__ = [
    "GROUP",
    "preview_notice",
    "KindInfo",
    "VersionLifecycle",
    "Catalog",
    "schemas_dir",
    "index",
    "catalog",
    "lifecycle",
    "kind_lifecycle",
    "unsupported_release",
    "explain_not_served",
    "release_key",
    "version_key",
]

from . import jsondata
from .k8s.resource import GROUP
from .lazy_re import LazyPattern
from .records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

_STABILITY_RANK = {"alpha": 1, "beta": 2, "ga": 3}


def schemas_dir() -> str:
    """The generated schemas: inside the installed wheel, else the repository's top-level `schemas/`."""
    here = os.path.dirname(os.path.abspath(__file__))
    packaged = os.path.join(here, "_data", "schemas")
    if os.path.isfile(os.path.join(packaged, "index.json")):
        return packaged
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(here))), "schemas")


@lru_cache(maxsize=1)
def index() -> dict[str, Any]:
    """The parsed `index.json` (cached; do not mutate)."""
    path = os.path.join(schemas_dir(), "index.json")
    return jsondata.load(path)


def release_key(release: str) -> tuple[int, ...]:
    """Sort key of a Kubernetes minor release, "1.9" < "1.26"."""
    return tuple(int(p) for p in release.split("."))


_VERSION_RE = LazyPattern(r"^v(\d+)(?:(alpha|beta)(\d+))?$")  # compiled on first use: a lint may never sort versions


def version_key(api_version: str) -> tuple[int, int, int]:
    """Kubernetes version priority of `group/vN[alpha|betaM]`: v1 > v1beta2 > v1beta1 > v1alpha3."""
    version = api_version.rsplit("/", 1)[-1]
    m = _VERSION_RE.match(version)
    if not m:
        return (0, 0, 0)
    stab = {"alpha": 1, "beta": 2, None: 3}[m.group(2)]
    return (int(m.group(1)), stab, int(m.group(3) or 0))


@lru_cache(maxsize=1)
def _all_kinds() -> frozenset[str]:
    return frozenset(
        kind
        for versions in index()["releases"].values()
        for entry in versions.values()
        for kind in entry["kinds"]
    )


def __getattr__(name: str) -> Any:
    # RELEASES and ALL_DRA_KINDS are computed from index.json on first access.
    if name == "RELEASES":
        value: Any = tuple(sorted(index()["releases"], key=release_key))
    elif name == "PREVIEWS":
        # Releases whose data is a development snapshot, not the release (index.json `previews`).
        value = dict(index().get("previews", {}))
    elif name == "DEFAULT_RELEASE":
        # The newest released release: the one a current cluster runs. A preview never is.
        previews = index().get("previews", {})
        value = max((r for r in index()["releases"] if r not in previews), key=release_key)
    elif name == "ALL_DRA_KINDS":
        value = _all_kinds()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


class KindInfo(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        group: str,
        version: str,
        kind: str,
        scope: str,  # "Namespaced" or "Cluster"
        plural: str,
        default_enabled: bool,
        schema_path: str,  # relative to schemas_dir(), posix separators
    ) -> "KindInfo":
        return tuple_new(_cls, (group, version, kind, scope, plural, default_enabled, schema_path))

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"

    @property
    def namespaced(self) -> bool:
        return self.scope == "Namespaced"


class VersionLifecycle(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        api_version: str,
        stability: str,  # "alpha", "beta" or "ga"
        introduced: str | None,
        deprecated: str | None,
        removed: str | None,
        replacement: str | None,  # group/version to move to, e.g. "resource.k8s.io/v1"
        served_in: tuple[str, ...],  # releases (within the data) that serve this version
        note: str | None = None,
    ) -> "VersionLifecycle":
        return tuple_new(_cls, (api_version, stability, introduced, deprecated, removed, replacement, served_in, note))


class Catalog:
    """What one Kubernetes release serves in resource.k8s.io."""

    def __init__(self, release: str) -> None:
        releases = index()["releases"]
        if release not in releases:
            known = ", ".join(sorted(releases, key=release_key))
            raise ValueError(f"unknown Kubernetes release {release!r}; known: {known}")
        self.release = release
        self._entries: dict[str, dict[str, Any]] = releases[release]
        self._schemas: dict[str, dict[str, Any]] = {}
        # What `served` and `served_versions` answer, kept: asked for every document of a run, and the
        # release's data never changes.
        self._served: dict[tuple[str, str], KindInfo] = {}
        self._versions: tuple[str, ...] | None = None

    def __repr__(self) -> str:
        return f"Catalog({self.release!r})"

    def served(self, api_version: str | None, kind: str | None) -> KindInfo | None:
        if type(api_version) is str and type(kind) is str:
            info = self._served.get((api_version, kind))
            if info is not None:
                return info
        info = self._info(api_version, kind)
        if info is not None:  # only what the release serves is kept: a few entries, whatever documents say
            self._served[(api_version, kind)] = info
        return info

    def _info(self, api_version: str | None, kind: str | None) -> KindInfo | None:
        entry = self._entries.get(api_version or "")
        if entry is None or kind not in entry["kinds"]:
            return None
        k = entry["kinds"][kind]
        group, _, version = api_version.rpartition("/")
        return KindInfo(
            group=group,
            version=version,
            kind=kind,
            scope=k["scope"],
            plural=k["plural"],
            default_enabled=bool(entry["default_enabled"]),
            schema_path=k["schema"],
        )

    def served_versions(self) -> list[str]:
        """group/version strings served by this release, highest priority first (v1, v1beta2, ...)."""
        if self._versions is None:
            self._versions = tuple(sorted(self._entries, key=version_key, reverse=True))
        return list(self._versions)

    def kinds(self, api_version: str | None) -> list[str]:
        """Kinds served under `api_version` in this release (sorted); empty when the version is not served."""
        entry = self._entries.get(api_version or "")
        return sorted(entry["kinds"]) if entry else []

    def default_enabled(self, api_version: str | None) -> bool:
        entry = self._entries.get(api_version or "")
        return bool(entry and entry["default_enabled"])

    def versions_serving(self, kind: str | None) -> list[str]:
        """group/versions of this release that serve `kind`, best first (default-enabled, most stable, newest)."""
        found = [gv for gv, e in self._entries.items() if kind in e["kinds"]]
        return sorted(found, key=self._preference, reverse=True)

    def _preference(self, gv: str) -> tuple:
        return (bool(self._entries[gv]["default_enabled"]), version_key(gv))

    def schema(self, api_version: str, kind: str) -> dict[str, Any]:
        """The JSON Schema of `kind` (loaded once, cached; do not mutate). KeyError when not served."""
        info = self.served(api_version, kind)
        if info is None:
            raise KeyError(f"{api_version} {kind} is not served by Kubernetes {self.release}")
        cached = self._schemas.get(info.schema_path)
        if cached is None:
            cached = jsondata.load(os.path.join(schemas_dir(), *info.schema_path.split("/")))
            self._schemas[info.schema_path] = cached
        return cached


def catalog(release: str | None = None) -> Catalog:
    """The (cached) Catalog of a release such as "1.35" (default: DEFAULT_RELEASE). ValueError for an unknown release."""
    return _catalog(release or __getattr__("DEFAULT_RELEASE"))


@lru_cache(maxsize=None)
def _catalog(release: str) -> Catalog:
    return Catalog(release)


def preview_notice(release: str) -> str | None:
    """The one line that says `release` is judged from a preview of its data, or None when it is not one."""
    entry = index().get("previews", {}).get(release)
    if entry is None:
        return None
    due = f"; {release}.0 is due {entry['due']}" if entry.get("due") else ""
    return f"Kubernetes {release} is a preview ({entry.get('note', 'not the release')}){due}: its checks may change until the release"


@lru_cache(maxsize=None)
def lifecycle(api_version: str | None) -> VersionLifecycle | None:
    """Lifecycle facts of a resource.k8s.io group/version, or None when it never existed."""
    entry = index()["versions"].get(api_version or "")
    if entry is None:
        return None
    return VersionLifecycle(
        api_version=api_version,
        stability=entry["stability"],
        introduced=entry.get("introduced"),
        deprecated=entry.get("deprecated"),
        removed=entry.get("removed"),
        replacement=entry.get("replacement"),
        served_in=tuple(entry.get("served_in", ())),
        note=entry.get("note"),
    )


@lru_cache(maxsize=None)
def kind_lifecycle(api_version: str | None, kind: str | None) -> VersionLifecycle | None:
    """Lifecycle of one kind in one group/version: upstream's prerelease-lifecycle dates where
    they exist (a kind can outlive the others of its version, as DeviceTaintRule does in
    v1beta2), else those of the version."""
    life = lifecycle(api_version)
    facts = index().get("kind_lifecycle", {}).get(api_version or "", {}).get(kind or "")
    if life is None or facts is None:
        return life
    return life._replace(introduced=facts.get("introduced"), deprecated=facts.get("deprecated"), removed=facts.get("removed"))


def unsupported_release(text: str) -> str:
    """Why `text` cannot be judged against: newer than the data (not released yet) or unknown."""
    releases = sorted(index()["releases"], key=release_key)
    newest = releases[-1]
    try:
        newer = release_key(text) > release_key(newest)
    except ValueError:
        newer = False
    if newer:
        preview = f" ({newest} as a preview)" if newest in index().get("previews", {}) else ""
        return (f"Kubernetes {text} is not released yet (or is newer than this dralint); the newest release "
                f"dralint knows is {newest}{preview}. Use --target-version {text} to check an upgrade to it.")
    return f"unsupported Kubernetes version {text!r}; supported: {releases[0]}..{newest}"


def _releases_serving(api_version: str | None, kind: str | None) -> list[str]:
    out = []
    for release, entries in index()["releases"].items():
        if api_version is None:
            if any(kind in e["kinds"] for e in entries.values()):
                out.append(release)
        elif api_version in entries and (kind is None or kind in entries[api_version]["kinds"]):
            out.append(release)
    return sorted(out, key=release_key)


def _span(releases: list[str]) -> str:
    """"1.27-1.30", "1.26" or "1.31-1.33 and 1.35" style text for a sorted list of releases."""
    if not releases:
        return ""
    every = sorted(index()["releases"], key=release_key)
    runs: list[list[str]] = []
    for r in releases:
        if runs and every.index(r) == every.index(runs[-1][-1]) + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    parts = [run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs]
    return " and ".join(parts) if len(parts) <= 2 else ", ".join(parts)


def _kind_note(kind: str | None) -> dict[str, Any]:
    return index().get("kinds", {}).get(kind or "", {})


def _did_you_mean(kind: str | None) -> str | None:
    if not kind:
        return None
    from .k8s.suggest import close_matches  # only for an unknown kind, as in resolve

    kinds = sorted(_all_kinds())
    for k in kinds:
        if k.lower() == kind.lower() and k != kind:
            return k
    close = close_matches(kind, kinds, cutoff=0.75)
    return close[0] if close and close[0] != kind else None


def _suggest_for_kind(cat: Catalog, kind: str | None) -> str | None:
    """`use <gv>` / `did you mean <Kind>?` advice for `kind` in this release, or None."""
    serving = cat.versions_serving(kind)
    if serving:
        return f"use {serving[0]}"
    note = _kind_note(kind)
    repl = note.get("replacement")
    if repl and cat.versions_serving(repl):
        return f"{kind} was replaced by {repl}: use {cat.versions_serving(repl)[0]} {repl}"
    return None


def explain_not_served(release: str, api_version: str | None, kind: str | None) -> str:
    """A one-line explanation why `api_version`/`kind` is not served by `release`, with advice.

    Returns a "... is served ..." sentence when it actually is served.
    """
    cat = catalog(release)
    gv = api_version or ""
    k8s = f"Kubernetes {release}"
    if cat.served(gv, kind) is not None:
        return f"{gv} {kind} is served by {k8s}"

    group = gv.rpartition("/")[0] if "/" in gv else ""
    if group != GROUP:
        # A DRA kind under another API group (e.g. apiVersion: v1 + kind: ResourceClaim).
        serving = cat.versions_serving(kind)
        if serving:
            return f"kind {kind} belongs to API group {GROUP}, not {gv or 'the core group'}; use apiVersion {serving[0]}"
        ever = _releases_serving(None, kind)
        if ever:
            return (f"kind {kind} belongs to API group {GROUP}, not {gv or 'the core group'}, "
                    f"and is not served by {k8s} (served in {_span(ever)})")
        return f"{gv} is not API group {GROUP}"

    life = lifecycle(gv)
    if gv not in cat.served_versions():
        # The group/version itself is not served by this release.
        if life is None:
            reason = f"{gv} is not a {GROUP} version in any Kubernetes release"
        elif life.removed and release_key(release) >= release_key(life.removed):
            reason = f"{gv} is not served by {k8s} (removed in {life.removed})"
        elif life.introduced and release_key(release) < release_key(life.introduced):
            reason = f"{gv} is not served by {k8s} (introduced in {life.introduced})"
        else:
            span = _span(list(life.served_in))
            reason = f"{gv} is not served by {k8s}" + (f" (served in {span})" if span else "")
        advice = _suggest_for_kind(cat, kind)
        if advice is None:
            if kind and kind in _all_kinds():
                ever = _releases_serving(None, kind)
                note = _kind_note(kind).get("note")
                extra = note.rstrip(".") if note else f"kind {kind} is served only in {_span(ever)}"
                advice = f"{extra}; {k8s} serves {', '.join(cat.served_versions())}"
            else:
                served = cat.served_versions()
                advice = f"use {served[0]}" if served else f"{k8s} serves no {GROUP} version"
        return f"{reason}; {advice}"

    # The version is served, the kind is not served by it.
    here = cat.kinds(gv)
    ever_here = _releases_serving(gv, kind)
    if ever_here:
        detail = f"{gv} serves it in {_span(ever_here)}; in {release} it serves {', '.join(here)}"
    else:
        detail = f"it serves {', '.join(here)}"
    msg = f"kind {kind} is not served by {gv} in {k8s} ({detail})"
    serving = cat.versions_serving(kind)
    if serving:
        return f"{msg}; use {serving[0]}"
    note = _kind_note(kind)
    repl = note.get("replacement")
    if repl and (repl in here or cat.versions_serving(repl)):
        return f"{msg}; did you mean {repl}?"
    # The older name of a renamed kind (PodSchedulingContext in 1.26 is PodScheduling).
    for old_kind, old_note in sorted(index().get("kinds", {}).items()):
        if old_note.get("replacement") == kind and old_kind in here:
            return f"{msg}; did you mean {old_kind}?"
    if note.get("note"):
        return f"{msg}; {note['note']}"
    guess = _did_you_mean(kind)
    if guess:
        return f"{msg}; did you mean {guess}?"
    if kind not in _all_kinds():
        return f"{msg}; {GROUP} has no kind {kind} in any release"
    return msg
