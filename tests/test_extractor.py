"""The schema extractor (tools/extract_schemas.py) and the schema-access module (dralint.schemas)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
OPENAPI = SHARED / "openapi"
SCHEMAS = REPO / "schemas"

sys.path.insert(0, str(REPO / "src"))
from dralint import schemas as S  # noqa: E402

needs_openapi = pytest.mark.skipif(not OPENAPI.is_dir(), reason=f"upstream OpenAPI data not found at {OPENAPI}")


def _load_tool():
    spec = importlib.util.spec_from_file_location("extract_schemas", REPO / "tools" / "extract_schemas.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(root: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def _committed() -> dict[str, bytes]:
    tree = _tree(SCHEMAS)
    return {k: v for k, v in tree.items() if k in ("index.json", "feature_gates.json", "docs.json") or k.startswith("1.")}


# ---------------------------------------------------------------- extractor


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    """One extraction of the upstream inputs, shared by the tests below (each run takes seconds)."""
    if not OPENAPI.is_dir():
        pytest.skip(f"upstream OpenAPI data not found at {OPENAPI}")
    out = tmp_path_factory.mktemp("extracted") / "schemas"
    written = _load_tool().extract(SHARED, out)
    assert written and all(p.is_file() for p in written)
    return out


@needs_openapi
def test_no_drift(extracted):
    # Reproducible: the `--check` run below is a second extraction, and it finds only the files that test broke.
    assert _tree(extracted) == _committed(), "schemas/ is out of date: run python tools/extract_schemas.py"


@needs_openapi
def test_check_mode_names_changed_and_stale_files_and_a_new_run_repairs_them(extracted, tmp_path, capsys):
    import shutil

    tool = _load_tool()
    # The repair below writes what `--check` generated: one generation, not two, for the writing it tests.
    generate, generated = tool._generate, []

    def generate_once(shared):
        if not generated:
            generated.append(generate(shared))
        return generated[0]

    tool._generate = generate_once
    # `--check` on the committed tree: up to date, exit 0.
    assert tool.main(["--shared", str(SHARED), "--out", str(REPO / "schemas"), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    out = tmp_path / "s"
    shutil.copytree(extracted, out)
    (out / "1.35" / "resource.k8s.io" / "v1" / "deviceclass.json").write_text("{}\n")
    (out / "1.26" / "extra.json").write_text("{}\n")
    stale = out / "1.35" / "resource.k8s.io" / "v9" / "old.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    assert tool.main(["--shared", str(SHARED), "--out", str(out), "--check"]) == 1
    err = capsys.readouterr().err
    assert "changed: 1.35/resource.k8s.io/v1/deviceclass.json" in err
    assert "stale:   1.26/extra.json" in err
    # A second extraction differs from the first in nothing else: the extractor is reproducible.
    listed = [line.strip() for line in err.splitlines() if line.strip().startswith(("changed:", "stale:", "missing:"))]
    assert [line.split(" (")[0] for line in listed] == [
        "stale:   1.26/extra.json",
        "changed: 1.35/resource.k8s.io/v1/deviceclass.json",
        "stale:   1.35/resource.k8s.io/v9/old.json",
    ], err
    assert len(generated) == 1
    # A run into the same directory rewrites what changed and removes stale files and folders.
    tool.extract(SHARED, out)
    assert not stale.exists() and not stale.parent.exists() and not (out / "1.26" / "extra.json").exists()
    assert _tree(out) == _tree(extracted)


def test_output_is_canonical_json():
    files = _committed()
    assert "index.json" in files and len(files) > 50
    for rel, data in files.items():
        text = data.decode("utf-8")
        parsed = json.loads(text)
        assert text == json.dumps(parsed, indent=1, sort_keys=True, ensure_ascii=False) + "\n", rel
        assert "/work/" not in text, rel  # no absolute paths


# ---------------------------------------------------------------- generated schemas

jsonschema = pytest.importorskip("jsonschema")


def _all_schema_files():
    return sorted(SCHEMAS.glob("1.*/resource.k8s.io/*/*.json"))


def test_every_schema_is_valid_2020_12():
    files = _all_schema_files()
    assert len(files) == 118  # 1.38: v1, v1beta2 (5 kinds each) and v1alpha3 (2); no v1beta1
    # The meta-schema checks each entry of $defs as a schema of its own, and most definitions recur in
    # every release: checking each distinct one once is the same verdict at an eighth of the time.
    checked_defs: set[str] = set()
    for path in files:
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        rel = path.relative_to(SCHEMAS).as_posix()
        assert schema["$id"] == f"https://dralint.dev/schemas/{rel}"
        jsonschema.Draft202012Validator.check_schema({k: v for k, v in schema.items() if k != "$defs"})
        for definition in schema["$defs"].values():
            key = json.dumps(definition, sort_keys=True)
            if key not in checked_defs:
                checked_defs.add(key)
                jsonschema.Draft202012Validator.check_schema(definition)
        text = path.read_text(encoding="utf-8")
        assert "#/components/" not in text and '"allOf"' not in text and '"nullable"' not in text, rel
        # apiVersion/kind are plain strings, metadata refs ObjectMeta.
        assert schema["properties"]["apiVersion"]["type"] == "string"
        assert schema["properties"]["kind"]["type"] == "string"
        assert schema["properties"]["metadata"]["$ref"] == "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        assert schema["additionalProperties"] is False
        # Only reachable definitions, and every reference resolves.
        refs = set()

        def walk(node, refs=refs):
            if isinstance(node, dict):
                for k, v in node.items():
                    if k == "$ref":
                        refs.add(v.removeprefix("#/$defs/"))
                    elif k not in ("default", "description"):
                        walk(v, refs)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        walk(schema)
        assert refs == set(schema["$defs"]), rel


def test_struct_schemas_are_strict():
    schema = json.loads((SCHEMAS / "1.35/resource.k8s.io/v1/resourceclaim.json").read_text())
    for name, d in schema["$defs"].items():
        if "properties" in d:
            assert d["type"] == "object", name
            assert d["additionalProperties"] is False, name
    q = schema["$defs"]["io.k8s.apimachinery.pkg.api.resource.Quantity"]
    assert q["type"] == ["string", "number"] and q["format"] == "quantity"
    t = schema["$defs"]["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]
    assert t["type"] == "string" and t["format"] == "date-time"
    labels = schema["$defs"]["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["labels"]
    assert labels["type"] == "object" and labels["additionalProperties"]["type"] == "string"


def _validator(release, version, kind):
    schema = S.catalog(release).schema(f"resource.k8s.io/{version}", kind)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _errors(validator, obj):
    return sorted(((e.validator, list(e.absolute_path)) for e in validator.iter_errors(obj)), key=str)


CLAIM_V1 = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "gpu", "namespace": "default", "labels": {"a": "b"}},
    "spec": {
        "devices": {
            "requests": [
                {
                    "name": "gpu",
                    "exactly": {
                        "deviceClassName": "gpu.example.com",
                        "allocationMode": "ExactCount",
                        "count": 2,
                        "selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}],
                        "capacity": {"requests": {"memory": "8Gi", "cores": 1}},
                    },
                }
            ],
            "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"any": ["thing", 1]}}}],
        }
    },
}


def test_v1_claim_validates():
    assert _errors(_validator("1.35", "v1", "ResourceClaim"), CLAIM_V1) == []


def test_v1_claim_with_flat_request_fails():
    bad = json.loads(json.dumps(CLAIM_V1))
    bad["spec"]["devices"]["requests"][0] = {"name": "gpu", "deviceClassName": "gpu.example.com"}
    assert _errors(_validator("1.35", "v1", "ResourceClaim"), bad) == [
        ("additionalProperties", ["spec", "devices", "requests", 0])
    ]
    # ... which is the right shape for v1beta1.
    flat = json.loads(json.dumps(bad))
    flat["apiVersion"] = "resource.k8s.io/v1beta1"
    assert _errors(_validator("1.35", "v1beta1", "ResourceClaim"), flat) == []


def test_wrong_types_and_required():
    v = _validator("1.35", "v1", "ResourceClaim")
    bad = json.loads(json.dumps(CLAIM_V1))
    exactly = bad["spec"]["devices"]["requests"][0]["exactly"]
    exactly["count"] = "two"
    exactly["capacity"]["requests"]["memory"] = True
    del bad["spec"]["devices"]["config"][0]["opaque"]["driver"]
    errors = _errors(v, bad)
    assert ("type", ["spec", "devices", "requests", 0, "exactly", "count"]) in errors
    assert ("type", ["spec", "devices", "requests", 0, "exactly", "capacity", "requests", "memory"]) in errors
    assert ("required", ["spec", "devices", "config", 0, "opaque"]) in errors
    assert _errors(v, {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {}}) == [("required", [])]


def test_older_releases():
    v = _validator("1.26", "v1alpha1", "ResourceClaim")
    claim = {"apiVersion": "resource.k8s.io/v1alpha1", "kind": "ResourceClaim", "metadata": {"name": "a"},
             "spec": {"resourceClassName": "gpu", "parametersRef": {"kind": "ConfigMap", "name": "p"}}}
    assert _errors(v, claim) == []
    del claim["spec"]["resourceClassName"]
    assert _errors(v, claim) == [("required", ["spec"])]
    cls = {"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClass", "metadata": {"name": "gpu"}, "driverName": "d"}
    assert _errors(_validator("1.29", "v1alpha2", "ResourceClass"), cls) == []
    cls["spec"] = {}
    assert _errors(_validator("1.29", "v1alpha2", "ResourceClass"), cls) == [("additionalProperties", [])]


def test_slice_quantities_and_timestamps():
    v = _validator("1.35", "v1", "ResourceSlice")
    rs = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
          "metadata": {"name": "s", "creationTimestamp": "2025-01-01T00:00:00Z"},
          "spec": {"driver": "d.example.com", "nodeName": "n", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                   "devices": [{"name": "gpu-0", "capacity": {"memory": {"value": "80Gi"}, "cores": {"value": 4}}}]}}
    assert _errors(v, rs) == []
    rs["spec"]["devices"][0]["capacity"]["memory"] = {"value": ["80Gi"]}
    assert _errors(v, rs) == [("type", ["spec", "devices", 0, "capacity", "memory", "value"])]


# ---------------------------------------------------------------- dralint.schemas


def test_releases_and_kinds():
    assert S.RELEASES == tuple(f"1.{n}" for n in range(26, 39))
    assert S.DEFAULT_RELEASE == "1.37"
    assert S.ALL_DRA_KINDS == {
        "ResourceClaim", "ResourceClaimTemplate", "ResourceClass", "DeviceClass", "ResourceSlice",
        "PodScheduling", "PodSchedulingContext", "ResourceClaimParameters", "ResourceClassParameters", "DeviceTaintRule",
        "ResourcePoolStatusRequest",
    }
    assert os.path.isfile(os.path.join(S.schemas_dir(), "index.json"))


def test_served_per_release():
    c26, c30, c31, c32, c33, c34, c35 = (S.catalog(r) for r in ("1.26", "1.30", "1.31", "1.32", "1.33", "1.34", "1.35"))
    assert S.catalog("1.35") is c35
    assert c26.served_versions() == ["resource.k8s.io/v1alpha1"]
    assert c26.served("resource.k8s.io/v1alpha1", "PodScheduling") is not None
    assert c26.served("resource.k8s.io/v1alpha1", "PodSchedulingContext") is None
    assert c30.kinds("resource.k8s.io/v1alpha2") == [
        "PodSchedulingContext", "ResourceClaim", "ResourceClaimParameters", "ResourceClaimTemplate",
        "ResourceClass", "ResourceClassParameters", "ResourceSlice"]
    assert c31.served("resource.k8s.io/v1alpha3", "ResourceClass") is None
    assert c31.served("resource.k8s.io/v1alpha3", "DeviceClass") is not None
    assert c32.served_versions() == ["resource.k8s.io/v1beta1", "resource.k8s.io/v1alpha3"]
    assert c33.served("resource.k8s.io/v1alpha3", "DeviceTaintRule") is not None
    assert c34.kinds("resource.k8s.io/v1alpha3") == ["DeviceTaintRule"]
    assert c35.served("resource.k8s.io/v1alpha3", "ResourceClaim") is None
    assert c35.served_versions() == ["resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1", "resource.k8s.io/v1alpha3"]
    assert c35.served("v1", "ResourceClaim") is None
    assert c35.served(None, None) is None
    assert c35.kinds("resource.k8s.io/v1alpha2") == []
    with pytest.raises(KeyError):
        c35.schema("resource.k8s.io/v1alpha2", "ResourceClaim")
    with pytest.raises(ValueError):
        S.catalog("1.99")


def test_kind_info_and_default_enabled():
    info = S.catalog("1.35").served("resource.k8s.io/v1", "ResourceClaim")
    assert info == S.KindInfo(group="resource.k8s.io", version="v1", kind="ResourceClaim", scope="Namespaced",
                              plural="resourceclaims", default_enabled=True,
                              schema_path="1.35/resource.k8s.io/v1/resourceclaim.json")
    assert info.api_version == "resource.k8s.io/v1" and info.namespaced
    assert S.catalog("1.35").served("resource.k8s.io/v1", "DeviceClass").scope == "Cluster"
    assert S.catalog("1.31").served("resource.k8s.io/v1alpha3", "ResourceSlice").scope == "Cluster"
    assert S.catalog("1.27").served("resource.k8s.io/v1alpha2", "ResourceClass").scope == "Cluster"
    assert S.catalog("1.27").served("resource.k8s.io/v1alpha2", "PodSchedulingContext").plural == "podschedulingcontexts"
    assert S.catalog("1.34").served("resource.k8s.io/v1", "DeviceClass").default_enabled is True
    assert S.catalog("1.35").served("resource.k8s.io/v1beta1", "ResourceClaim").default_enabled is False
    assert S.catalog("1.35").served("resource.k8s.io/v1alpha3", "DeviceTaintRule").default_enabled is False
    for release in S.RELEASES:
        cat = S.catalog(release)
        for gv in cat.served_versions():
            for kind in cat.kinds(gv):
                expected = gv == "resource.k8s.io/v1"
                assert cat.served(gv, kind).default_enabled is expected, (release, gv, kind)
    assert not any(S.catalog("1.33").default_enabled(gv) for gv in S.catalog("1.33").served_versions())
    # Schemas load and are cached.
    cat = S.catalog("1.35")
    assert cat.schema("resource.k8s.io/v1", "ResourceClaim") is cat.schema("resource.k8s.io/v1", "ResourceClaim")


def test_lifecycle():
    v1a2 = S.lifecycle("resource.k8s.io/v1alpha2")
    assert (v1a2.introduced, v1a2.removed, v1a2.stability) == ("1.27", "1.31", "alpha")
    assert v1a2.served_in == ("1.27", "1.28", "1.29", "1.30")
    v1b1 = S.lifecycle("resource.k8s.io/v1beta1")
    assert (v1b1.introduced, v1b1.deprecated, v1b1.removed, v1b1.stability) == ("1.32", "1.35", "1.38", "beta")
    v1b2 = S.lifecycle("resource.k8s.io/v1beta2")
    assert (v1b2.introduced, v1b2.deprecated, v1b2.removed) == ("1.33", "1.36", "1.39")
    v1 = S.lifecycle("resource.k8s.io/v1")
    assert (v1.introduced, v1.stability, v1.removed) == ("1.34", "ga", None)
    assert S.lifecycle("resource.k8s.io/v1alpha1").removed == "1.27"
    assert S.lifecycle("resource.k8s.io/v1alpha3").introduced == "1.31"
    assert S.lifecycle("resource.k8s.io/v2") is None
    assert S.lifecycle(None) is None


@pytest.mark.parametrize(
    "release, api_version, kind, expected",
    [
        ("1.35", "resource.k8s.io/v1alpha2", "ResourceClaim",
         "resource.k8s.io/v1alpha2 is not served by Kubernetes 1.35 (removed in 1.31); use resource.k8s.io/v1"),
        ("1.32", "resource.k8s.io/v1beta2", "ResourceClaim",
         "resource.k8s.io/v1beta2 is not served by Kubernetes 1.32 (introduced in 1.33); use resource.k8s.io/v1beta1"),
        ("1.26", "resource.k8s.io/v1", "ResourceClaim",
         "resource.k8s.io/v1 is not served by Kubernetes 1.26 (introduced in 1.34); use resource.k8s.io/v1alpha1"),
        ("1.31", "resource.k8s.io/v1alpha3", "ResourceClass",
         "kind ResourceClass is not served by resource.k8s.io/v1alpha3 in Kubernetes 1.31 "
         "(it serves DeviceClass, PodSchedulingContext, ResourceClaim, ResourceClaimTemplate, ResourceSlice); "
         "did you mean DeviceClass?"),
        ("1.35", "resource.k8s.io/v1", "DeviceTaintRule",
         "kind DeviceTaintRule is not served by resource.k8s.io/v1 in Kubernetes 1.35 "
         "(resource.k8s.io/v1 serves it in 1.37-1.38; in 1.35 it serves DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice); use resource.k8s.io/v1alpha3"),
        ("1.35", "v1", "ResourceClaim",
         "kind ResourceClaim belongs to API group resource.k8s.io, not v1; use apiVersion resource.k8s.io/v1"),
        ("1.27", "resource.k8s.io/v1alpha2", "PodScheduling",
         "kind PodScheduling is not served by resource.k8s.io/v1alpha2 in Kubernetes 1.27 "
         "(it serves PodSchedulingContext, ResourceClaim, ResourceClaimTemplate, ResourceClass); "
         "did you mean PodSchedulingContext?"),
    ],
)
def test_explain_not_served_exact(release, api_version, kind, expected):
    assert S.explain_not_served(release, api_version, kind) == expected


def test_explain_not_served_other_cases():
    msg = S.explain_not_served("1.34", "resource.k8s.io/v1alpha3", "ResourceClaim")
    assert "serves it in 1.31-1.33" in msg and "DeviceTaintRule" in msg and msg.endswith("use resource.k8s.io/v1")
    msg = S.explain_not_served("1.35", "resource.k8s.io/v1alpha2", "ResourceClass")
    assert "(removed in 1.31)" in msg and "DeviceClass" in msg and "resource.k8s.io/v1" in msg
    assert S.explain_not_served("1.35", "resource.k8s.io/v1", "Resourceclaim").endswith("did you mean ResourceClaim?")
    assert S.explain_not_served("1.35", "resource.k8s.io/v1", "Foo").endswith("resource.k8s.io has no kind Foo in any release")
    assert "not a resource.k8s.io version" in S.explain_not_served("1.35", "resource.k8s.io/v2", "ResourceClaim")
    msg = S.explain_not_served("1.30", "apps/v1", "DeviceClass")
    assert "not apps/v1" in msg and "1.31-1.38" in msg
    assert S.explain_not_served("1.26", "resource.k8s.io/v1alpha1", "PodSchedulingContext").endswith("did you mean PodScheduling?")


def test_field_docs_carry_the_go_comment_and_the_values_of_typed_string_constants():
    """schemas/docs.json (tools/go_docs.py): the comment without its +markers, and the constants of the
    field's string type also where the type has no +enum marker yet (1.31's v1alpha3)."""
    from dralint.lsp.field_docs import field_doc

    v1 = field_doc("1.35", "resource.k8s.io/v1", "ExactDeviceRequest", "allocationMode")
    alpha = field_doc("1.31", "resource.k8s.io/v1alpha3", "DeviceRequest", "allocationMode")
    assert v1.values == alpha.values == ("ExactCount", "All")
    assert v1.text.startswith("AllocationMode and its related fields define how devices are allocated to satisfy this request.")
    assert "+optional" not in v1.text and "+k8s:" not in v1.text
    assert field_doc("1.35", "resource.k8s.io/v1", "ExactDeviceRequest", "noSuchField") is None
    assert field_doc("1.35", "resource.k8s.io/v1", "NoSuchType", "count") is None
