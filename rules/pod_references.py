"""Pod-side references to DRA objects (DRA7xx).

Pods and pod templates (Pod, PodTemplate, ReplicationController, Deployment,
ReplicaSet, StatefulSet, DaemonSet, Job, CronJob) name the claims they use in
`spec.resourceClaims[]`; containers pick from those in
`resources.claims[]`. The document rules here mirror the API server's pod
validation (`pkg/apis/core/validation`), with its field paths; the run rules
follow references across the documents of one run.

Namespaces in cross-document checks: a missing `metadata.namespace` means
"whatever namespace the manifest is applied to" (kubectl's `-n` or the
context's namespace), which is the same for every file of one `kubectl
apply`. So a missing namespace on either side matches any namespace; only two
explicit, different namespaces are a mismatch.
"""

from __future__ import annotations

from dralint.api import DocumentView, Place, RunIndex, rule, shared
from dralint.k8s.claims import is_nested
from dralint.k8s.names import DNS1123_SUBDOMAIN_MAX, dns1123_label, dns1123_subdomain
from dralint.k8s.resource import GROUP
from dralint.k8s.suggest import OneEditAway, close_hint
from dralint.model import fields_reduce
from dralint.records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

# (API version, kind) -> path of the pod spec inside the object.
POD_SPECS: dict[tuple[str, str], tuple[str, ...]] = {
    ("v1", "Pod"): ("spec",),
    ("v1", "PodTemplate"): ("template", "spec"),
    ("v1", "ReplicationController"): ("spec", "template", "spec"),
    ("apps/v1", "Deployment"): ("spec", "template", "spec"),
    ("apps/v1", "ReplicaSet"): ("spec", "template", "spec"),
    ("apps/v1", "StatefulSet"): ("spec", "template", "spec"),
    ("apps/v1", "DaemonSet"): ("spec", "template", "spec"),
    ("batch/v1", "Job"): ("spec", "template", "spec"),
    ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}
POD_KINDS = frozenset(kind for _, kind in POD_SPECS)
POD_API_VERSIONS = frozenset(version for version, _ in POD_SPECS)
FLAT_SHAPE = "1.31"  # PodResourceClaim lost its `source` in 1.31; container claims gained `request`
SOURCE_KEYS = ("resourceClaimName", "resourceClaimTemplateName")


def pod_spec_path(view: DocumentView) -> tuple[str, ...] | None:
    return POD_SPECS.get((view.api_version or "", view.kind or ""))


POD_CLAIMS = tuple(sorted({".".join((*spec, "resourceClaims")) for spec in POD_SPECS.values()}))  # where DRA701/702 start
# The claims of every container (`_containers`): what DRA704 reads.
CONTAINER_CLAIMS = tuple(sorted({".".join((*spec, field, "*", "resources", "claims")) for spec in POD_SPECS.values() for field in ("initContainers", "containers")}))


def _is_set(value: Any) -> bool:
    # Go's *string: an explicit null is nil; an empty string is set (and then invalid).
    return value is not None


# ---------------------------------------------------------------------------
# Document rules: what the API server checks on the pod spec.


@rule("DRA701", "pod-claim-name", severity="error", kinds=POD_KINDS, api_versions=POD_API_VERSIONS, needs=POD_CLAIMS)
def pod_claim_name(doc, report):
    """Each pod-level claim needs a unique name that is a DNS label.

    `spec.resourceClaims[].name` is how containers refer to the claim
    (`resources.claims[].name`) and how generated claims are named; the API
    server requires it (Required), rejects repeats (Duplicate) and anything
    that is not a lowercase RFC 1123 label of at most 63 characters (Invalid).

    Invalid: two entries of `resourceClaims` both named `gpu`. Valid: `gpu` and `nic`.

    Upstream: `validatePodResourceClaim` (pkg/apis/core/validation/validation.go).
    """
    base = pod_spec_path(doc)
    if base is None:
        return
    seen: set[str] = set()
    for i, claim in doc.items(*base, "resourceClaims"):
        path = (*base, "resourceClaims", i, "name")
        name = claim.get("name")
        if not isinstance(name, str) or name == "":
            if "name" in claim and name is not None and not isinstance(name, str):
                report(path, f"name must be a string, not {type(name).__name__}", error_type="Invalid", show_type=False)
            else:
                report(path, "a pod resource claim needs a name (containers refer to it in resources.claims)", error_type="Required", show_type=False)
            continue
        if name in seen:
            report(path, f"duplicate pod resource claim name {name!r}; every entry of resourceClaims needs its own name", error_type="Duplicate", show_type=False)
            continue
        errs = dns1123_label(name)
        for detail in errs:
            report(path, f"invalid pod resource claim name {name!r}: {detail}", error_type="Invalid", show_type=False)
        if not errs:
            seen.add(name)


@rule("DRA702", "pod-claim-source", severity="error", kinds=POD_KINDS, api_versions=POD_API_VERSIONS, needs=POD_CLAIMS)
def pod_claim_source(doc, report):
    """A pod-level claim names exactly one ResourceClaim or ResourceClaimTemplate.

    Exactly one of `resourceClaimName` (an existing claim, shared) and
    `resourceClaimTemplateName` (a claim generated for this pod) must be set,
    and it must be a DNS subdomain. From Kubernetes 1.31 both sit directly in
    the `resourceClaims[]` entry; in 1.26-1.30 they sit under `source:`. The
    API server reports the choice at the entry (1.31+) or at `source`
    (1.26-1.30).

    Invalid: an entry that sets both `resourceClaimName` and `resourceClaimTemplateName`. Valid: one of them.

    Upstream: `validatePodResourceClaimSource` (pkg/apis/core/validation/validation.go).
    """
    base = pod_spec_path(doc)
    if base is None:
        return
    flat = doc.at_least(FLAT_SHAPE)
    for i, claim in doc.items(*base, "resourceClaims"):
        entry = (*base, "resourceClaims", i)
        if flat:
            holder, holder_path = claim, entry
            if "source" in claim:
                # DRA703 reports the shape; the entry itself still lacks its reference.
                if not any(_is_set(claim.get(k)) for k in SOURCE_KEYS):
                    continue
        else:
            source = claim.get("source")
            if not isinstance(source, dict):
                if any(k in claim for k in SOURCE_KEYS):
                    continue  # DRA703: flat shape at an old release
                report(
                    (*entry, "source"),
                    f"must specify one of: `resourceClaimName`, `resourceClaimTemplateName` (under `source:` in Kubernetes {doc.release})",
                    error_type="Invalid", show_type=False,
                )
                continue
            holder, holder_path = source, (*entry, "source")
        present = [k for k in SOURCE_KEYS if _is_set(holder.get(k))]
        if len(present) == 2:
            report(holder_path, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified", error_type="Invalid", show_type=False,
                   locate=(*holder_path, "resourceClaimTemplateName"), at_key=True)
        elif not present:
            report(holder_path, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`", error_type="Invalid", show_type=False, at_key=True)
        for key in present:
            value = holder.get(key)
            path = (*holder_path, key)
            if not isinstance(value, str):
                report(path, f"{key} must be a string", error_type="Invalid", show_type=False)
                continue
            what = "ResourceClaim" if key == "resourceClaimName" else "ResourceClaimTemplate"
            for detail in dns1123_subdomain(value) if value else ["a lowercase RFC 1123 subdomain is required"]:
                report(path, f"invalid {what} name {value!r}: {detail}", error_type="Invalid", show_type=False)


@rule("DRA703", "pod-claim-shape", severity="error", kinds=POD_KINDS, api_versions=POD_API_VERSIONS, needs=(*POD_CLAIMS, *CONTAINER_CLAIMS))
def pod_claim_shape(doc, report):
    """The pod claim fields must have the shape of the selected Kubernetes release.

    Kubernetes 1.31 moved `resourceClaims[].source.resourceClaimName` and
    `.resourceClaimTemplateName` up into the entry (`source` is gone) and added
    `resources.claims[].request` to containers. A manifest in the other
    release's shape has unknown fields, which strict decoding rejects.

    Invalid: `resourceClaims: [{name: gpu, source: {resourceClaimTemplateName: gpu-template}}]` (1.31+).
    Valid: `resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu-template}]` (1.31+).

    Upstream: policy. The API server rejects the other shape by strict decoding of
    unknown fields, not by a function of validation.go.
    """
    base = pod_spec_path(doc)
    if base is None:
        return
    flat = doc.at_least(FLAT_SHAPE)
    for i, claim in doc.items(*base, "resourceClaims"):
        entry = (*base, "resourceClaims", i)
        if flat and "source" in claim:
            report((*entry, "source"),
                   f"unknown field 'source': since Kubernetes 1.31 resourceClaimName/resourceClaimTemplateName sit directly in the "
                   f"resourceClaims entry (this is Kubernetes {doc.release})", at_key=True)
        if not flat:
            for key in SOURCE_KEYS:
                if key in claim:
                    report((*entry, key),
                           f"unknown field {key!r}: before Kubernetes 1.31 it goes under 'source:' (this is Kubernetes {doc.release})",
                           at_key=True)
    if not flat:
        for cpath, _container in _containers(doc, base):
            for j, ref in doc.items(*cpath, "resources", "claims"):
                if "request" in ref:
                    report((*cpath, "resources", "claims", j, "request"),
                           f"unknown field 'request': container claims can name a request only from Kubernetes 1.31 (this is Kubernetes {doc.release})",
                           at_key=True)


def _patched_claims(doc: DocumentView, base: tuple[str, ...]) -> set[str]:
    """The pod claims a kustomize patch's target declares: the patch is merged into them."""
    names: set[str] = set()
    for data in doc.patched():
        node: Any = data
        for part in base:
            node = node.get(part) if isinstance(node, dict) else None
        claims = node.get("resourceClaims") if isinstance(node, dict) else None
        for claim in claims if isinstance(claims, list) else ():
            if isinstance(claim, dict) and isinstance(claim.get("name"), str) and claim["name"]:
                names.add(claim["name"])
    return names


def _containers(doc: DocumentView, base: tuple[str, ...]) -> Iterator[tuple[tuple, dict]]:
    for field in ("initContainers", "containers"):
        for i, container in doc.items(*base, field):
            yield (*base, field, i), container


@rule("DRA704", "container-claim-reference", severity="error", kinds=POD_KINDS, api_versions=POD_API_VERSIONS, needs=CONTAINER_CLAIMS)
def container_claim_reference(doc, report):
    """A container's `resources.claims[].name` must name one of the pod's `resourceClaims`.

    The API server reports a name that the pod does not declare (NotFound),
    an empty name (Required) and the same claim (or claim/request pair) twice
    (Duplicate), at `...resources.claims[N]`. A `request`, where set, must be
    a DNS label; it names a request of that claim. In a kustomize patch the
    pod declares what the patch and the objects it patches declare.

    Invalid: `resources: {claims: [{name: gpu}]}` in a pod whose only claim is `tpu`.
    Valid: the same in a pod with `resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu-template}]`.

    Upstream: `validateResourceClaimNames` (pkg/apis/core/validation/validation.go).
    """
    base = pod_spec_path(doc)
    if base is None:
        return
    declared = sorted({c["name"] for _, c in doc.items(*base, "resourceClaims") if isinstance(c.get("name"), str) and c["name"]}
                      | _patched_claims(doc, base))
    declared_set = set(declared)
    known = _known_names(declared)
    hints = _Hints(declared)
    flat = doc.at_least(FLAT_SHAPE)
    for cpath, _container in _containers(doc, base):
        used: set[str] = set()
        for j, ref in doc.items(*cpath, "resources", "claims"):
            path = (*cpath, "resources", "claims", j)
            name = ref.get("name")
            request = ref.get("request") if flat else None
            if isinstance(request, str) and request:
                for detail in dns1123_label(request):
                    report((*path, "request"), f"invalid request name {request!r}: {detail}", error_type="Invalid", show_type=False)
            if not isinstance(name, str) or not name:
                report(path, "a container claim needs the name of one of the pod's resourceClaims", error_type="Required", show_type=False,
                       locate=(*path, "name"), at_key="name" not in ref)
                continue
            key = f"{name}/{request}" if isinstance(request, str) and request else name
            if key in used:
                report(path, f"claim {key!r} is listed twice for this container", error_type="Duplicate", show_type=False, locate=(*path, "name"))
            used.add(key)
            if name not in declared_set:
                report(
                    path,
                    f"claim {name!r} is not declared by the pod: must be one of the names in pod.spec.resourceClaims{known}{hints.of(name)}",
                    error_type="NotFound", show_type=False,
                    locate=(*path, "name"),
                )


# A pod declaring more claims than this is generated, not typed: its DRA704 messages list this many
# names and suggest only a name one edit away, so that N undeclared references to N declared names
# cost N, not N * N (difflib compares each reference with every name; each message held every name).
LISTED_CLAIMS_MAX = 16


def _known_names(declared: list[str]) -> str:
    if not declared:
        return " which is empty"
    # Every undeclared reference's message holds this list, so a name longer than any object name can be
    # (DRA701 reports it) is cut short here: messages stay small however long the name.
    listed = [n if len(n) <= DNS1123_SUBDOMAIN_MAX else f"{n[:DNS1123_SUBDOMAIN_MAX]}..." for n in declared[:LISTED_CLAIMS_MAX]]
    more = f" and {len(declared) - LISTED_CLAIMS_MAX} more" if len(declared) > LISTED_CLAIMS_MAX else ""
    return f": {', '.join(listed)}{more}"


class _Hints:
    """The did-you-mean of DRA704 for each undeclared name of one pod."""

    def __init__(self, declared: list[str]):
        self.declared = declared
        self._near: OneEditAway | None = None
        self._hints: dict[str, str] = {}  # a container list can repeat a name; init and app containers often do

    def of(self, name: str) -> str:
        hint = self._hints.get(name)
        if hint is None:
            if len(self.declared) <= LISTED_CLAIMS_MAX:
                hint = close_hint(name, self.declared)
            else:
                if self._near is None:
                    self._near = OneEditAway(self.declared)
                match = self._near.closest(name)
                hint = f"; did you mean {match!r}?" if match else ""
            self._hints[name] = hint
        return hint


# ---------------------------------------------------------------------------
# Run rules: references between the documents of one run.


def _same_namespace(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


Reference = tuple[Place, str, str]  # where, kind, name


class _Object(NamedRecord):
    """What one document of the run declares and references: all the run rules keep of it."""

    __slots__ = ()

    def __new__(
        _cls,
        kind: str | None,  # a resource.k8s.io object with a name: its kind (else None: declares nothing)
        name: str | None,
        namespace: str | None,
        source: str,
        pod_refs: tuple[Reference, ...],  # claims and templates a pod spec names
        class_refs: tuple[Reference, ...],  # classes a claim's requests name
        # A kustomize patch: what the objects of its kustomization declare, as records that reference nothing.
        context: tuple["_Object", ...] = (),
    ) -> "_Object":
        return tuple_new(_cls, (kind, name, namespace, source, pod_refs, class_refs, context))

    __reduce__ = fields_reduce  # records are pickled by the result cache and --jobs workers, one a document


def _collect(view: DocumentView) -> _Object | None:
    declares = view.group == GROUP and bool(view.name)
    pod_refs = tuple((view.place(path), kind, shared(name)) for path, kind, name in _pod_references(view))
    class_refs = tuple((view.place(path), kind, shared(name)) for path, kind, name in _class_references(view)) if view.group == GROUP else ()
    if not (declares or pod_refs or class_refs):
        return None
    context = _patch_context(view) if pod_refs or class_refs else ()
    return _Object(shared(view.kind or "") if declares else None, view.name, shared(view.namespace), view.source, pod_refs, class_refs, context)


def _patch_context(view: DocumentView) -> tuple[_Object, ...]:
    """The DRA objects a patch's kustomization defines: its references resolve against them too, so that
    a patch linted alone (pre-commit passes the changed files) is judged as with its base."""
    found = []
    for source, data in view.patch_context():
        api_version, kind, meta = data.get("apiVersion"), data.get("kind"), data.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        if isinstance(api_version, str) and api_version.rpartition("/")[0] == GROUP and isinstance(kind, str) and isinstance(name, str) and name:
            namespace = meta.get("namespace")
            found.append(_Object(kind, name, namespace if isinstance(namespace, str) else None, source, (), ()))
    return tuple(found)


def _index(run: RunIndex) -> "_Index":
    return run.memo("pod_references.index", lambda: _Index(run))


class _Index:
    """Objects of the run by kind and name."""

    def __init__(self, records: RunIndex):
        # name -> its record, or a list of them when several objects share it: no list nor tuple per
        # name (a third of the memory of judging 100,000 records).
        self.by_kind: dict[str, dict[str, _Object | list[_Object]]] = {}
        for record in _with_context(records):
            if record.kind is not None:
                names = self.by_kind.setdefault(record.kind, {})
                held = names.get(record.name)
                if held is None:
                    names[record.name] = record
                elif isinstance(held, list):
                    held.append(record)
                else:
                    names[record.name] = [held, record]
        self._near: dict[str, OneEditAway] = {}  # built on the first dangling reference of a kind
        # (kind, name, otherwise) -> message: 100,000 pods naming 20,000 missing claims ask 20,000 questions.
        self._messages: dict[tuple[str, str, str], str] = {}

    def defines(self, kind: str, name: str) -> bool:
        """Whether the run defines an object of `kind` named `name` (no list built: a name defined in many
        namespaces is looked up once per reference)."""
        return name in self.by_kind.get(kind, ())

    def find(self, kind: str, name: str) -> list[tuple[str | None, str]]:
        """(namespace, source) of each object of `kind` named `name`, in run order."""
        held = self.by_kind.get(kind, {}).get(name)
        if held is None:
            return []
        return [(r.namespace, r.source) for r in held] if isinstance(held, list) else [(held.namespace, held.source)]

    def not_defined(self, kind: str, name: str, otherwise: str) -> str:
        """The message for a reference to nothing in the run, naming a close name of the run if there is one."""
        key = (kind, name, otherwise)
        message = self._messages.get(key)
        if message is None:
            message = self._messages[key] = self._not_defined(kind, name, otherwise)
        return message

    def _not_defined(self, kind: str, name: str, otherwise: str) -> str:
        near = self._near.get(kind)
        if near is None:
            near = self._near[kind] = OneEditAway(list(self.by_kind.get(kind, {})))
        close = near.closest(name)
        if close is None:
            return f"{kind} {name!r} is not defined in the linted files; {otherwise}"
        return (f"{kind} {name!r} is not defined in the linted files; did you mean {close!r} "
                f"({self.find(kind, close)[0][1]})? Otherwise {otherwise}")


def _with_context(records: RunIndex) -> Iterator[_Object]:
    """The run's records, and after them what kustomize patches' kustomizations define (each file once)."""
    context: dict[tuple, _Object] = {}
    for record in records:
        yield record
        for found in record.context:
            context.setdefault((found.source, found.kind, found.namespace, found.name), found)
    yield from context.values()


def _pod_references(view: DocumentView) -> Iterator[tuple[tuple, str, str]]:
    """(path, kind, name) of every claim or template a pod spec names."""
    base = pod_spec_path(view)
    if base is None:
        return
    flat = view.at_least(FLAT_SHAPE)
    for i, claim in view.items(*base, "resourceClaims"):
        holder_path: tuple = (*base, "resourceClaims", i)
        holder = claim
        if not flat:
            holder = claim.get("source")
            holder_path = (*holder_path, "source")
            if not isinstance(holder, dict):
                continue
        for key, kind in (("resourceClaimName", "ResourceClaim"), ("resourceClaimTemplateName", "ResourceClaimTemplate")):
            value = holder.get(key)
            if isinstance(value, str) and value:
                yield (*holder_path, key), kind, value


# The fields whose places _collect asks for: the loader notes them as it reads (a replay of the whole
# document for one reference would cost more than checking it).
_PLACED = ("resourceClaimName", "resourceClaimTemplateName", "resourceClassName", "deviceClassName")


@rule("DRA710", "claim-reference-kind", severity="warning", kinds=POD_KINDS, scope="run", collect=_collect, positioned=_PLACED)
def claim_reference_kind(run, report):
    """A pod's claim reference names an object of the other kind defined in the same run.

    `resourceClaimName` must name a ResourceClaim and
    `resourceClaimTemplateName` a ResourceClaimTemplate. When the run defines
    the name only as the other kind (in a matching namespace), the pod would
    wait forever for an object that does not exist. The API server accepts
    the pod (the object might exist in the cluster), hence a warning.

    Invalid: `resourceClaimName: gpus` when the run defines `gpus` only as a ResourceClaimTemplate. Valid: `resourceClaimTemplateName: gpus`.

    Upstream: policy.
    """
    index = _index(run)
    other = {"ResourceClaim": "ResourceClaimTemplate", "ResourceClaimTemplate": "ResourceClaim"}
    field_of = {"ResourceClaim": "resourceClaimName", "ResourceClaimTemplate": "resourceClaimTemplateName"}
    for pod in run:
        for place, kind, name in pod.pod_refs:
            if any(_same_namespace(ns, pod.namespace) for ns, _ in index.find(kind, name)):
                continue
            wrong = [(ns, source) for ns, source in index.find(other[kind], name) if _same_namespace(ns, pod.namespace)]
            if wrong:
                report(place, f"{field_of[kind]} {name!r} names a {other[kind]} defined in {wrong[0][1]}, not a {kind}; "
                              f"use {field_of[other[kind]]}", error_type="NotFound", show_type=False)


@rule("DRA711", "claim-reference-namespace", severity="warning", kinds=POD_KINDS, scope="run", collect=_collect, positioned=_PLACED)
def claim_reference_namespace(run, report):
    """A pod refers to a ResourceClaim or ResourceClaimTemplate that the run defines only in another namespace.

    A pod can only use claims and templates of its own namespace. A missing
    `metadata.namespace` on either side matches any namespace (it is the
    namespace the manifest is applied to), so only two explicit, different
    namespaces are reported. The API server accepts the pod (the object might
    also exist in the cluster), hence a warning; the pod stays Pending
    otherwise.

    Invalid: a pod in namespace `a` naming claim `gpus`, defined only in namespace `b`. Valid: the claim defined in `a`.

    Upstream: policy.
    """
    index = _index(run)
    for pod in run:
        for place, kind, name in pod.pod_refs:
            found = index.find(kind, name)
            if not found or any(_same_namespace(ns, pod.namespace) for ns, _ in found):
                continue
            where = ", ".join(sorted({repr(ns) for ns, _ in found if ns}))
            report(place, f"{kind} {name!r} is defined in namespace {where}, but this pod is in namespace {pod.namespace!r}; "
                          f"a pod can only use {kind}s of its own namespace", error_type="NotFound", show_type=False)


@rule("DRA712", "claim-reference-unresolved", severity="info", kinds=POD_KINDS, scope="run", collect=_collect, positioned=_PLACED)
def claim_reference_unresolved(run, report):
    """A pod refers to a ResourceClaim or ResourceClaimTemplate that no file of the run defines.

    That is fine when the object already exists in the cluster; this note
    says what must exist there.

    Invalid: `resourceClaimName: gpus` when no file of the run defines `gpus`. Valid: the run includes ResourceClaim `gpus`.

    Upstream: policy.
    """
    index = _index(run)
    for pod in run:
        for place, kind, name in pod.pod_refs:
            if index.defines(kind, name):
                continue  # defined: fine, or DRA711
            other = "ResourceClaimTemplate" if kind == "ResourceClaim" else "ResourceClaim"
            if any(_same_namespace(ns, pod.namespace) for ns, _ in index.find(other, name)):
                continue  # DRA710
            where = f"namespace {pod.namespace!r}" if pod.namespace else "the pod's namespace"
            report(place, index.not_defined(kind, name, f"it must exist in {where} of the cluster"))


def _class_references(view: DocumentView) -> Iterator[tuple[tuple, str, str]]:
    """(path, class kind, name) of the device or resource class each claim request names."""
    if view.kind == "ResourceClaim":
        spec: tuple = ("spec",)
    elif view.kind == "ResourceClaimTemplate":
        spec = ("spec", "spec")
    else:
        return
    value = view.get(*spec, "resourceClassName")
    if isinstance(value, str) and value:  # 1.26-1.30
        yield (*spec, "resourceClassName"), "ResourceClass", value
    for i, request in view.items(*spec, "devices", "requests"):
        rpath = (*spec, "devices", "requests", i)
        # Only the flat shape (v1alpha3/v1beta1) names the class on the request itself;
        # in v1beta2/v1 a class there is misplaced, and DRA304 says so.
        candidates = [] if is_nested(view) else [(rpath, request)]
        exactly = request.get("exactly")
        if isinstance(exactly, dict):
            candidates.append(((*rpath, "exactly"), exactly))
        for j, sub in view.items(*rpath, "firstAvailable"):
            candidates.append(((*rpath, "firstAvailable", j), sub))
        for path, holder in candidates:
            name = holder.get("deviceClassName")
            if isinstance(name, str) and name:
                yield (*path, "deviceClassName"), "DeviceClass", name


@rule("DRA713", "device-class-unresolved", severity="info", kinds={"ResourceClaim", "ResourceClaimTemplate"}, scope="run", collect=_collect, positioned=_PLACED)
def device_class_unresolved(run, report):
    """A claim request names a DeviceClass (or, before 1.31, a ResourceClass) that no file of the run defines.

    That is fine when the class is installed in the cluster (drivers usually
    ship their classes); this note says what must exist there.

    Invalid: `deviceClassName: gpu.example.com` when no file of the run defines that DeviceClass. Valid: the run includes it.

    Upstream: policy.
    """
    index = _index(run)
    for claim in run:
        for place, kind, name in claim.class_refs:
            if index.defines(kind, name):
                continue
            report(place, index.not_defined(kind, name, "it must be installed in the cluster"))
