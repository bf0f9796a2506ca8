"""The three upstream sources of the schemas (OpenAPI v3, OpenAPI v2, Go API types) and the Go parser.

The equality tests are the proof that the Go-types and v2 readers are right: for every
release where two sources exist, the generated schema files and index entries must be
identical. KNOWN_DIFFERENCES lists what could not be made equal, with the reason.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO / "tools"))

import extract_schemas as X  # noqa: E402
import go_schema  # noqa: E402
from go_types import GoSyntaxError, Ident, Map, Pointer, Qualified, Slice, markers, parse_file  # noqa: E402

needs_shared = pytest.mark.skipif(not (SHARED / "k8s-api").is_dir(), reason=f"upstream data not found at {SHARED}")

# (release, pair) -> differences that cannot be removed, with the reason. Empty: none remain.
KNOWN_DIFFERENCES: dict[tuple[str, str], dict[str, str]] = {}


# ---------------------------------------------------------------- Go parser

GO_SAMPLE = '''/*
Copyright header.
*/

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:prerelease-lifecycle-gen:introduced=1.34

// Widget is a test kind.
type Widget struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is required.
	Spec WidgetSpec `json:"spec"`
}

type WidgetSpec struct {
	// +required
	// +featureGate=GateA,GateB
	Name string `json:"name,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=key
	// +listMapKey=name
	Items []Item `json:"items,omitempty"`
	Sizes map[QualifiedName]resource.Quantity `json:"sizes"`
	Count *int64 `json:"count,omitempty"`
	Raw []byte `json:"raw,omitempty"`
	Hidden string `json:"-"`
	Inline `json:",inline"`
}

type Inline struct {
	Flag bool `json:"flag,omitempty"`
}

type (
	Item struct {
		Key, Name string
	}
	QualifiedName string
)

// +enum
type Effect string

const (
	// EffectNone does nothing.
	EffectNone Effect = "None"
	EffectAll  Effect = "All"
)

var x = map[string]int{"a": 1}

func (in *Widget) APILifecycleIntroduced() (major, minor int) {
	return 1, 34
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&Widget{},
		&WidgetList{},
		&metav1.Status{},
	)
	return nil
}
'''


def test_parse_structs_fields_and_markers():
    f = parse_file(GO_SAMPLE)
    assert f.package == "v1"
    assert f.imports == {"metav1": "k8s.io/apimachinery/pkg/apis/meta/v1", "resource": "k8s.io/apimachinery/pkg/api/resource"}
    widget = f.types["Widget"]
    assert widget.markers["genclient:nonNamespaced"] == [""]
    assert widget.markers["k8s:prerelease-lifecycle-gen:introduced"] == ["1.34"]
    fields = widget.type.fields
    assert [(x.name, x.json_name) for x in fields] == [(None, ""), (None, "metadata"), ("Spec", "spec")]
    assert fields[0].type == Qualified("metav1", "TypeMeta")
    assert fields[1].markers == {"optional": [""]}
    spec = {x.name: x for x in f.types["WidgetSpec"].type.fields}
    assert spec["Name"].markers == {"required": [""], "featureGate": ["GateA,GateB"]}
    assert spec["Name"].json_options == ("omitempty",)
    assert spec["Items"].markers["listMapKey"] == ["key", "name"]
    assert spec["Items"].type == Slice(Ident("Item"))
    assert spec["Sizes"].type == Map(Ident("QualifiedName"), Qualified("resource", "Quantity"))
    assert spec["Count"].type == Pointer(Ident("int64"))
    assert spec["Hidden"].json_name is None
    assert spec["Count"].line == 36
    # `Key, Name string` declares two fields; a grouped `type (...)` declares two types.
    assert [x.name for x in f.types["Item"].type.fields] == ["Key", "Name"]
    assert f.types["QualifiedName"].type == Ident("string")
    assert f.types["Effect"].markers == {"enum": [""]}
    assert [(c.name, c.type, c.value) for c in f.consts] == [("EffectNone", "Effect", '"None"'), ("EffectAll", "Effect", '"All"')]
    assert f.consts[0].doc == (" EffectNone does nothing.",)
    lifecycle = [fn for fn in f.funcs if fn.name == "APILifecycleIntroduced"][0]
    assert (lifecycle.receiver, lifecycle.body) == ("Widget", ("return", "1", ",", "34"))


def test_registered_kinds_and_schema_of_a_package(tmp_path):
    pkg_dir = tmp_path / "v1"
    pkg_dir.mkdir()
    (pkg_dir / "types.go").write_text(GO_SAMPLE)
    external = {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object"},
                "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"}}
    api = go_schema.package_api(pkg_dir, external)
    assert api["kinds"] == {"Widget": {"definition": "io.k8s.api.resource.v1.Widget", "scope": "Cluster", "plural": "widgets"}}
    widget = api["components"]["io.k8s.api.resource.v1.Widget"]
    assert widget["properties"]["metadata"] == {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    assert widget["required"] == ["spec"]
    assert widget["x-kubernetes-group-version-kind"] == [{"group": "resource.k8s.io", "kind": "Widget", "version": "v1"}]
    spec = api["components"]["io.k8s.api.resource.v1.WidgetSpec"]
    assert set(spec["properties"]) == {"name", "items", "sizes", "count", "raw", "flag"}
    # +required beats omitempty; no marker and no omitempty is required too.
    assert spec["required"] == ["name", "sizes"]
    assert spec["properties"]["items"]["x-kubernetes-list-map-keys"] == ["key", "name"]
    assert spec["properties"]["sizes"] == {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}}
    assert spec["properties"]["count"] == {"type": "integer", "format": "int64"}
    assert spec["properties"]["raw"] == {"type": "string", "format": "byte"}
    assert go_schema.gated_fields(go_schema.load_package(pkg_dir)) == {"WidgetSpec": {"name": ["GateA", "GateB"]}}
    (pkg_dir / "zz_generated.prerelease-lifecycle.go").write_text(
        "package v1\n\nfunc (in *Widget) APILifecycleRemoved() (major, minor int) {\n\treturn 1, 40\n}\n")
    assert go_schema.prerelease_lifecycle(pkg_dir) == {"Widget": {"removed": "1.40"}}


def test_unsupported_go_is_refused_with_its_line():
    with pytest.raises(GoSyntaxError, match=r"<go>:3: generic types"):
        parse_file("package x\n\ntype T[K any] struct{}\n")
    with pytest.raises(GoSyntaxError, match=r"<go>:1: unexpected character"):
        parse_file("package x @")


def test_markers_and_names():
    assert markers([" +optional", " +listMapKey=a", " +listMapKey=b", " + not a marker", "text"]) == {
        "optional": [""], "listMapKey": ["a", "b"]}
    assert go_schema.plural("DeviceClass") == "deviceclasses"
    assert go_schema.plural("ResourceClaimParameters") == "resourceclaimparameters"
    assert go_schema.plural("ResourcePoolStatusRequest") == "resourcepoolstatusrequests"
    assert go_schema.definition_prefix("k8s.io/api/core/v1") == "io.k8s.api.core.v1"


# ---------------------------------------------------------------- source equality


def _differences(release: str, a: dict, b: dict) -> dict[str, str]:
    files_a, index_a = X.release_files(release, a)
    files_b, index_b = X.release_files(release, b)
    out: dict[str, str] = {}
    if index_a != index_b:
        out["index"] = f"{index_a} != {index_b}"
    for rel in sorted(set(files_a) | set(files_b)):
        if files_a.get(rel) != files_b.get(rel):
            out[rel] = "differs" if rel in files_a and rel in files_b else "only in one source"
    return out


@needs_shared
def test_openapi_v2_gives_the_v3_schemas():
    v3 = X.read_openapi_v3(SHARED / "openapi" / "k8s-1.35")
    v2 = X.read_openapi_v2(SHARED / "openapi-v2" / "1.35" / "swagger.json")
    assert set(v2) == set(v3) == {f"resource.k8s.io/{v}" for v in ("v1", "v1alpha3", "v1beta1", "v1beta2")}
    assert _differences("1.35", v3, v2) == KNOWN_DIFFERENCES.get(("1.35", "v3-v2"), {})


@needs_shared
@pytest.mark.parametrize("release", [f"1.{n}" for n in range(26, 37)])
def test_go_types_give_the_openapi_schemas(release):
    source, path = X.release_sources(SHARED)[release]
    assert source in ("openapi-v3", "openapi-v2")
    openapi = X.read_source(source, path)
    go = X.read_go_types(SHARED / "k8s-api" / release, X.base_components(openapi))
    assert _differences(release, openapi, go) == KNOWN_DIFFERENCES.get((release, "openapi-go"), {})


@needs_shared
def test_each_release_takes_the_first_source_that_exists():
    sources = X.release_sources(SHARED)
    assert list(sources) == [f"1.{n}" for n in range(26, 39)]
    assert {r: s for r, (s, _) in sources.items() if s != "openapi-v3"} == {"1.36": "openapi-v2", "1.37": "go-types", "1.38": "go-types"}
    index = json.loads((REPO / "schemas" / "index.json").read_text())
    assert index["sources"]["1.37"] == "go-types (apimachinery types from 1.36 openapi-v2)"


@needs_shared
def test_new_kinds_of_1_36_and_1_37_match_register_go():
    index = json.loads((REPO / "schemas" / "index.json").read_text())
    for release in ("1.36", "1.37"):
        for gv, entry in index["releases"][release].items():
            pkg = go_schema.load_package(SHARED / "k8s-api" / release / "resource" / gv.rsplit("/", 1)[1])
            assert sorted(entry["kinds"]) == sorted(go_schema.registered_kinds(pkg)), (release, gv)
    assert "DeviceTaintRule" in index["releases"]["1.36"]["resource.k8s.io/v1beta2"]["kinds"]
    assert "DeviceTaintRule" not in index["releases"]["1.36"]["resource.k8s.io/v1"]["kinds"]
    assert "ResourcePoolStatusRequest" in index["releases"]["1.36"]["resource.k8s.io/v1alpha3"]["kinds"]
    assert index["releases"]["1.37"]["resource.k8s.io/v1"]["kinds"]["DeviceTaintRule"]["scope"] == "Cluster"
