"""Type resolution: which schema (if any) a document is checked against at the selected release.

Fails closed: a resource.k8s.io apiVersion or kind the release does not serve
is an error that says what it does serve, never a silently skipped document.
"""



from functools import lru_cache

from .. import schemas
from ..catalog import engine_problem as _problem
from ..k8s.resource import GROUP
from ..model import Document, Path, Problem, Severity
from ..records import NamedRecord, tuple_new
from .triage import is_kubernetes_object


class Resolution(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        info: schemas.KindInfo | None,  # set when the document is a DRA object served by the release
        problems: list[Problem],
        is_dra: bool,  # resource.k8s.io, or meant to be
        is_object: bool = True,  # False: no apiVersion, kind or metadata, no Kubernetes object at all
    ) -> "Resolution":
        return tuple_new(_cls, (info, problems, is_dra, is_object))


def resolve(doc: Document, release: str) -> Resolution:
    data = doc.data
    api_version, kind = data.get("apiVersion"), data.get("kind")
    problems: list[Problem] = []
    if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
        missing = [name for name, value in (("apiVersion", api_version), ("kind", kind)) if not isinstance(value, str) or not value]
        if not is_kubernetes_object(data):
            # No trace of a Kubernetes object (a CI workflow, a Helm Chart.yaml or values
            # file, a compose file): not ours to judge, so a repository root can be linted.
            return Resolution(None, problems, is_dra=False, is_object=False)
        path: Path = (missing[0],) if missing[0] in data else ()
        problems.append(_problem(doc, "DRA007", path, f"missing {' and '.join(missing)}: the API server cannot tell what this object is", at_key=bool(path)))
        return Resolution(None, problems, is_dra=False)

    group, _, version = api_version.rpartition("/")
    if group != GROUP:
        if kind in schemas.ALL_DRA_KINDS and _looks_like_dra(group):
            where = f"API group '{group}'" if group else "the core API group"
            problems.append(
                _problem(doc, "DRA012", ("apiVersion",), f"kind {kind} belongs to API group {GROUP}, not {where}; use apiVersion: {_suggest(kind, release)}")
            )
            return Resolution(None, problems, is_dra=True)
        return Resolution(None, problems, is_dra=False)

    if kind not in schemas.ALL_DRA_KINDS:
        problems.append(_problem(doc, "DRA013", ("kind",), schemas.explain_not_served(release, api_version, kind)))
        return Resolution(None, problems, is_dra=True)

    info = schemas.catalog(release).served(api_version, kind)
    if info is None:
        served_version = any(v == api_version for v in schemas.catalog(release).served_versions())
        path = ("kind",) if served_version else ("apiVersion",)
        problems.append(_problem(doc, "DRA010", path, schemas.explain_not_served(release, api_version, kind)))
        return Resolution(None, problems, is_dra=True)

    if not info.default_enabled:
        problems.append(_problem(doc, "DRA011", ("apiVersion",), _disabled_message(release, api_version, kind)))
    return Resolution(info, problems, is_dra=True)


def disabled_once_per_file(problems: list[Problem]) -> list[Problem]:
    """DRA011 once per file and apiVersion: on its first document, counting the others.

    Every document of a v1beta1 file is "disabled by default" for the same
    reason and with the same fix (`--runtime-config`), so repeating it on each
    buries the findings that differ.
    """
    disabled = [p for p in problems if p.rule == "DRA011"]
    if len(disabled) < 2:
        return problems
    first: dict[tuple[str, str | None], Problem] = {}
    count: dict[tuple[str, str | None], int] = {}
    for p in disabled:
        key = (p.source, p.api_version)
        count[key] = count.get(key, 0) + 1
        if key not in first or p.document < first[key].document:
            first[key] = p
    for key, p in first.items():
        if count[key] > 1:
            others = count[key] - 1
            p.message += f"; the same holds for the {others} other document{'s' if others > 1 else ''} of this file with this apiVersion"
    keep = {id(p) for p in first.values()}
    return [p for p in problems if p.rule != "DRA011" or id(p) in keep]


@lru_cache(maxsize=256)  # asked per document; only served (release, version, kind), which are few
def _disabled_message(release: str, api_version: str, kind: str) -> str:
    default_on = [v for v in schemas.catalog(release).served_versions() if _is_default_on(release, v, kind)]
    hint = f"; {default_on[0]} is on by default" if default_on else ""
    return (
        f"{api_version} is served by Kubernetes {release} but disabled by default "
        f"(needs --runtime-config={api_version}=true){hint}"
    )


def _is_default_on(release: str, api_version: str, kind: str) -> bool:
    info = schemas.catalog(release).served(api_version, kind)
    return info is not None and info.default_enabled


def _suggest(kind: str, release: str) -> str:
    cat = schemas.catalog(release)
    served = [v for v in cat.served_versions() if cat.served(v, kind)]
    on = [v for v in served if _is_default_on(release, v, kind)]
    pick = (on or served or [f"{GROUP}/v1"])[0]
    return pick


def _looks_like_dra(group: str) -> bool:
    # A DRA kind under a CRD group of its own (gpu.example.com) is somebody's custom
    # resource; under the core group or a near miss of resource.k8s.io it is a mistake.
    if group == "" or group.endswith(".k8s.io") or group.endswith("kubernetes.io"):
        return True
    import difflib  # only for a DRA kind under another group, not on a clean file's start-up

    return difflib.SequenceMatcher(None, group, GROUP).ratio() >= 0.8


__all__ = ["resolve", "Resolution", "Severity", "disabled_once_per_file"]
