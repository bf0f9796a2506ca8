"""Codes of the problems the engine itself reports (loading, API versions, schema).

Semantic rules declare their own codes next to their code in `rules/`; these
are the ones raised before any rule runs. Every code is stable: users select,
ignore and re-level them in `.dralint.yaml`.
"""




from .model import Document, Path, Problem, Severity
from .records import NamedRecord, tuple_new


class Check(NamedRecord):
    __slots__ = ()

    def __new__(_cls, code: str, slug: str, severity: Severity, summary: str) -> "Check":
        return tuple_new(_cls, (code, slug, severity, summary))


def _c(code: str, slug: str, severity: Severity, summary: str) -> Check:
    return Check(code, slug, severity, summary)


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

ENGINE_CHECKS: dict[str, Check] = {
    c.code: c
    for c in (
        # Input: the source could not be turned into documents.
        _c("DRA001", "yaml-syntax", E, "The file is not valid YAML or JSON."),
        _c("DRA002", "duplicate-key", E, "A mapping has the same key twice; the API server's strict decoding rejects it."),
        _c("DRA003", "not-an-object", E, "A document is not a mapping (a list or a scalar at the top level)."),
        _c("DRA004", "encoding", E, "The file is not UTF-8 text (binary data or an invalid byte sequence)."),
        _c("DRA005", "resource-limit", E, "The document exceeds a safety limit (alias expansion, nesting depth or size) and was not checked."),
        _c("DRA006", "unreadable", E, "The file or directory could not be read."),
        _c("DRA007", "missing-type", E, "A document has no apiVersion or kind, so the API server cannot decode it."),
        _c("DRA008", "non-string-key", E, "A mapping key is not a string; Kubernetes objects only have string keys."),
        _c("DRA009", "bad-release-comment", E, "A `# dralint: kubernetes-version=` or `# dralint: feature-gates=` comment names a release or gate dralint does not know (or a locked gate against its value), is malformed, or stands after the first document."),
        # Files that are not manifests: passed over, never failing the run (dralint.pipeline.triage).
        _c("DRA014", "go-template", I, "A Go template (Helm chart templates): not checked; render it first (`helm template ... | dralint -`)."),
        _c("DRA015", "not-a-manifest", I, "A YAML or JSON file that holds no Kubernetes object was passed over, yet it mentions resource.k8s.io or is not valid YAML or JSON."),
        _c("DRA016", "fix-not-written", E, "With --fix: the file's fixes could not be written (it changed during the run, has other hard links, or cannot be written); it was left as it was."),
        # API versions and kinds.
        _c("DRA010", "api-version-not-served", E, "The apiVersion/kind is not served by the selected Kubernetes release."),
        _c("DRA011", "api-version-disabled-by-default", W, "The apiVersion is served but disabled by default (alpha or beta): it must be enabled with --runtime-config."),
        _c("DRA012", "wrong-api-group", E, "A resource.k8s.io kind is declared with another API group."),
        _c("DRA013", "unknown-kind", E, "resource.k8s.io has no such kind in any release."),
        _c("DRA020", "deprecated-api-version", W, "With --target-version: the apiVersion is deprecated in the target release; move to its replacement (see dralint.pipeline.lifecycle)."),
        _c("DRA021", "removed-api-version", E, "With --target-version: the target release no longer serves this apiVersion/kind; the object will be rejected after the upgrade."),
        _c("DRA022", "immutable-field", E, "Admission webhook, on UPDATE: the spec of a ResourceClaim or ResourceClaimTemplate cannot change."),
        # Schema: one code per JSON-Schema keyword, so each can be tuned on its own.
        _c("DRA101", "unknown-field", E, "A field the API does not define; strict decoding rejects it."),
        _c("DRA102", "required-field", E, "A field the API requires is missing."),
        _c("DRA103", "wrong-type", E, "A value has the wrong JSON type (string, integer, object ...)."),
        _c("DRA104", "enum-value", E, "A value is not one of the allowed values."),
        _c("DRA105", "invalid-format", E, "A value does not match its format (quantity, date-time, int32/int64 range ...)."),
        _c("DRA106", "schema-violation", E, "Any other schema constraint the value breaks."),
        # Meta.
        _c("DRA900", "unused-suppression", W, "A `# dralint: disable` comment or config ignore that suppressed nothing."),
        _c("DRA901", "internal-error", E, "A rule failed while checking this document; please report it."),
    )
}


def check(code: str) -> Check:
    return ENGINE_CHECKS[code]


def engine_problem(doc: Document, code: str, path: Path, message: str, *, at_key: bool = False, error_type: str | None = None) -> Problem:
    """A problem of one of the engine's own checks, positioned at `path` in `doc`."""
    c = ENGINE_CHECKS[code]
    return Problem(
        rule=code,
        name=c.slug,
        severity=c.severity,
        message=message,
        source=doc.source,
        document=doc.index,
        path=path,
        where=lambda: doc.locate(path, prefer_key=at_key),
        api_version=doc.api_version,
        kind=doc.kind,
        object=doc.object_ref,
        error_type=error_type,
    )
