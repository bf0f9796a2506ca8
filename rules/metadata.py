"""Object metadata as the API server validates it for resource.k8s.io kinds (dra-api-rules.md §5.1, §6).

ValidateObjectMeta: name / generateName (DNS-1123 subdomain), namespace
(DNS-1123 label), labels and annotations (reported at the map's path, not per
key), annotation size, generation; ValidateTemplateObjectMeta for the
`spec.metadata` of a ResourceClaimTemplate; the silent namespace drop of
cluster-scoped kinds.

A missing `metadata.namespace` is not reported: kubectl and the request URL
fill it in, so manifests normally leave it out.
"""

from __future__ import annotations

from dralint.api import rule
from dralint.k8s.names import (
    ANNOTATIONS_MAX_TOTAL,
    dns1123_label,
    dns1123_subdomain,
    generate_name_prefix,
    generated_name,
    label_value,
    qualified_name,
)
from dralint.k8s.resource import EVERY_VERSION

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

CLUSTER_SCOPED = frozenset({"DeviceClass", "ResourceClass", "ResourceSlice", "DeviceTaintRule", "ResourcePoolStatusRequest"})

# Go field names of ObjectMeta (JSON name -> name in the error path: first letter lower-cased).
_TEMPLATE_FORBIDDEN = {
    "name": "name",
    "generateName": "generateName",
    "namespace": "namespace",
    "selfLink": "selfLink",
    "uid": "uID",
    "resourceVersion": "resourceVersion",
    "generation": "generation",
    "creationTimestamp": "creationTimestamp",
    "deletionTimestamp": "deletionTimestamp",
    "deletionGracePeriodSeconds": "deletionGracePeriodSeconds",
    "ownerReferences": "ownerReferences",
    "finalizers": "finalizers",
    "managedFields": "managedFields",
}


def _meta(doc: Any) -> dict:
    meta = doc.get("metadata", type=dict)
    return meta if meta is not None else {}


def _str(meta: dict, key: str) -> str:
    value = meta.get(key)
    return value if isinstance(value, str) else ""


def _validates_generate_name(doc: Any) -> bool:
    # 1.35 DeviceClass: only the generated name is validated (validate.LongName), not the prefix.
    return not (doc.kind == "DeviceClass" and doc.release_tuple >= (1, 35))


@rule("DRA201", "metadata-name-required", severity="error", api_versions=EVERY_VERSION)
def name_required(doc, report):
    """An object needs `metadata.name` or `metadata.generateName`.

    The API server answers `metadata.name: Required value` when neither is set.

    Invalid:

        metadata:
          namespace: default

    Valid:

        metadata:
          name: gpu-claim

    Upstream: `ValidateDeviceClass`, `ValidateDeviceTaintRule`, `ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateResourceSlice` (pkg/apis/resource/validation/validation.go).
    """
    if doc.get("metadata") is not None and not isinstance(doc.get("metadata"), dict):
        return
    meta = _meta(doc)
    if not _str(meta, "name") and not _str(meta, "generateName"):
        report(("metadata", "name"), "set metadata.name (or metadata.generateName): the object has no name", error_type="Required")


@rule("DRA202", "metadata-name-format", severity="error", api_versions=EVERY_VERSION, needs=("metadata.name", "metadata.generateName"))
def name_format(doc, report):
    """`metadata.name` must be a DNS-1123 subdomain.

    At most 253 characters of lower-case letters, digits, `-` and `.`,
    starting and ending with a letter or digit. A name generated from
    `generateName` is checked the same way (reported at `metadata.name`).

    Invalid: `name: GPU_Claim`. Valid: `name: gpu-claim`.

    Upstream: `ValidateDeviceClass`, `ValidateDeviceTaintRule`, `ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateResourceSlice` (pkg/apis/resource/validation/validation.go).
    """
    meta = _meta(doc)
    name = _str(meta, "name")
    if name:
        errs = dns1123_subdomain(name)
        if errs:
            report(("metadata", "name"), f"metadata.name '{name}' is invalid: {errs[-1]}", error_type="Invalid")
        return
    prefix = _str(meta, "generateName")
    if prefix:
        errs = dns1123_subdomain(generated_name(prefix))
        if errs:
            report(
                ("metadata", "name"),
                f"names generated from generateName '{prefix}' are invalid: {errs[-1]}",
                error_type="Invalid",
                locate=("metadata", "generateName"),
            )


@rule("DRA203", "generate-name-format", severity="error", api_versions=EVERY_VERSION, needs=("metadata.generateName",))
def generate_name_format(doc, report):
    """`metadata.generateName` must be a DNS-1123 subdomain prefix (a trailing `-` is fine).

    Invalid: `generateName: GPU_`. Valid: `generateName: gpu-claim-`.
    (DeviceClass in 1.35 validates only the generated name, see DRA202.)

    Upstream: `ValidateDeviceClass`, `ValidateDeviceTaintRule`, `ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateResourceSlice` (pkg/apis/resource/validation/validation.go).
    """
    if not _validates_generate_name(doc):
        return
    prefix = _str(_meta(doc), "generateName")
    if prefix:
        errs = generate_name_prefix(prefix)
        if errs:
            report(("metadata", "generateName"), f"metadata.generateName '{prefix}' is invalid: {errs[-1]}", error_type="Invalid")


@rule("DRA204", "namespace-format", severity="error", api_versions=EVERY_VERSION, needs=("metadata.namespace",))
def namespace_format(doc, report):
    """`metadata.namespace` must be a DNS-1123 label (at most 63 characters, no dots).

    Invalid: `namespace: Team.A`. Valid: `namespace: team-a`.

    Upstream: `ValidateDeviceClass`, `ValidateDeviceTaintRule`, `ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateResourceSlice` (pkg/apis/resource/validation/validation.go).
    """
    if doc.kind in CLUSTER_SCOPED:
        return
    ns = _str(_meta(doc), "namespace")
    if ns:
        errs = dns1123_label(ns)
        if errs:
            report(("metadata", "namespace"), f"metadata.namespace '{ns}' is invalid: {errs[-1]}", error_type="Invalid")


def _check_labels(doc: Any, report: Any, base: tuple) -> None:
    labels = doc.get(*base, "labels", type=dict)
    if not labels:
        return
    for key, value in labels.items():
        if not isinstance(key, str):
            continue
        key_errs = qualified_name(key)
        if key_errs:
            report(base + ("labels",), f"label key '{key}' is invalid: {key_errs[0]}", error_type="Invalid", locate=base + ("labels", key), at_key=True)
        if isinstance(value, str):
            value_errs = label_value(value)
            if value_errs:
                report(base + ("labels",), f"value '{value}' of label '{key}' is invalid: {value_errs[-1]}", error_type="Invalid", locate=base + ("labels", key))


def _check_annotation_keys(doc: Any, report: Any, base: tuple) -> None:
    annotations = doc.get(*base, "annotations", type=dict)
    if not annotations:
        return
    for key in annotations:
        if not isinstance(key, str):
            continue
        errs = qualified_name(key.lower())
        if errs:
            report(base + ("annotations",), f"annotation key '{key}' is invalid: {errs[0]}", error_type="Invalid", locate=base + ("annotations", key), at_key=True)


def _check_annotation_size(doc: Any, report: Any, base: tuple) -> None:
    annotations = doc.get(*base, "annotations", type=dict)
    if not annotations:
        return
    total = 0
    for key, value in annotations.items():
        total += len(str(key).encode("utf-8"))
        if isinstance(value, str):
            total += len(value.encode("utf-8"))
    if total > ANNOTATIONS_MAX_TOTAL:
        report(
            base + ("annotations",),
            f"annotations total {total} bytes; keys and values together may use at most {ANNOTATIONS_MAX_TOTAL} bytes",
            error_type="TooLong",
            at_key=True,
        )


def _bases(doc: Any) -> list[tuple]:
    bases = [("metadata",)]
    if doc.kind == "ResourceClaimTemplate":
        bases.append(("spec", "metadata"))
    return bases


@rule("DRA205", "label-format", severity="error", api_versions=EVERY_VERSION, needs=("metadata.labels", "spec.metadata.labels"))
def label_format(doc, report):
    """Label keys must be qualified names and values valid label values.

    The API server reports these at the map's path (`metadata.labels`, or
    `spec.metadata.labels` in a ResourceClaimTemplate), not per key.

    Invalid: `labels: {"team/a/b": x}` or `labels: {app: "-gpu"}`. Valid: `labels: {app: gpu}`.

    Upstream: `validateResourceClaimTemplateSpec`, `ValidateDeviceClass`, `ValidateDeviceTaintRule`, `ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateResourceSlice` (pkg/apis/resource/validation/validation.go).
    """
    for base in _bases(doc):
        _check_labels(doc, report, base)


@rule("DRA206", "annotation-key-format", severity="error", api_versions=EVERY_VERSION, needs=("metadata.annotations", "spec.metadata.annotations"))
def annotation_key_format(doc, report):
    """Annotation keys must be qualified names (checked lower-cased).

    Invalid: `annotations: {"my annotation": x}`. Valid: `annotations: {example.com/note: x}`.

    Upstream: `validateResourceClaimTemplateSpec`, `ValidateDeviceClass`, `ValidateDeviceTaintRule`, `ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateResourceSlice` (pkg/apis/resource/validation/validation.go).
    """
    for base in _bases(doc):
        _check_annotation_keys(doc, report, base)


@rule("DRA207", "annotations-too-long", severity="error", api_versions=EVERY_VERSION, needs=("metadata.annotations", "spec.metadata.annotations"))
def annotations_too_long(doc, report):
    """All annotations together (keys plus values) may use at most 256 KiB.

    Invalid: a 300 KB annotation value. Valid: small annotations; put large data elsewhere.

    Upstream: `validateResourceClaimTemplateSpec`, `ValidateDeviceClass`, `ValidateDeviceTaintRule`, `ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateResourceSlice` (pkg/apis/resource/validation/validation.go).
    """
    for base in _bases(doc):
        _check_annotation_size(doc, report, base)


@rule("DRA208", "generation-negative", severity="error", api_versions=EVERY_VERSION, needs=("metadata.generation",))
def generation_negative(doc, report):
    """`metadata.generation` must not be negative.

    Invalid: `generation: -1`. Valid: leave it out (the server sets it).

    Upstream: `ValidateDeviceClass`, `ValidateDeviceTaintRule`, `ValidateResourceClaim`, `ValidateResourceClaimTemplate`, `ValidateResourceSlice` (pkg/apis/resource/validation/validation.go).
    """
    gen = doc.get("metadata", "generation", type=int)
    if gen is not None and gen < 0:
        report(("metadata", "generation"), f"metadata.generation {gen} must be greater than or equal to 0", error_type="Invalid")


def _is_set(value: Any) -> bool:
    # reflect.DeepEqual with the Go zero value: "", 0 and null are unset; a list, even empty, is set.
    if value is None:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, str):
        return value != ""
    if isinstance(value, (int, float)):
        return value != 0
    return True


@rule("DRA209", "template-metadata-forbidden", severity="error", kinds=["ResourceClaimTemplate"], api_versions=EVERY_VERSION, needs=("spec.metadata",))
def template_metadata_forbidden(doc, report):
    """In a ResourceClaimTemplate, `spec.metadata` may only carry `labels` and `annotations`.

    Every other field (name, namespace, generateName, finalizers,
    ownerReferences, ...) is Forbidden: the claims created from the template
    get their name and namespace from the pod.

    Invalid:

        spec:
          metadata:
            name: my-claim

    Valid:

        spec:
          metadata:
            labels: {app: inference}

    Upstream: `validateResourceClaimTemplateSpec` (pkg/apis/resource/validation/validation.go).
    """
    meta = doc.get("spec", "metadata", type=dict)
    if not meta:
        return
    for key, go_name in _TEMPLATE_FORBIDDEN.items():
        if key in meta and _is_set(meta[key]):
            report(
                ("spec", "metadata", go_name),
                f"spec.metadata.{key} cannot be set for a template; only labels and annotations are allowed",
                error_type="Forbidden",
                locate=("spec", "metadata", key),
                at_key=True,
            )


@rule("DRA210", "cluster-scoped-namespace", severity="warning", kinds=CLUSTER_SCOPED, api_versions=EVERY_VERSION, needs=("metadata.namespace",))
def cluster_scoped_namespace(doc, report):
    """A cluster-scoped object (DeviceClass, ResourceClass, ResourceSlice, DeviceTaintRule, ResourcePoolStatusRequest) has no namespace.

    The API server silently clears `metadata.namespace` on create, so the
    field is misleading; remove it.

    Invalid:

        kind: DeviceClass
        metadata: {name: gpu.example.com, namespace: default}

    Valid: the same without `namespace`.

    Upstream: `BeforeCreate` (staging/src/k8s.io/apiserver/pkg/registry/rest/create.go).
    """
    if doc.kind not in CLUSTER_SCOPED:
        return
    ns = _str(_meta(doc), "namespace")
    if ns:
        report(("metadata", "namespace"), f"{doc.kind} is cluster-scoped: metadata.namespace '{ns}' is ignored; remove it", at_key=True)
