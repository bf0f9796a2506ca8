"""API lifecycle table (dralint.pipeline.lifecycle) and the upgrade check `--target-version` (DRA020/DRA021)."""

from __future__ import annotations

import json

import pytest

from dralint import schemas
from dralint.pipeline import lifecycle
from dralint.pipeline.load import load

from conftest import lint_json, run_dralint

CLAIM = """\
apiVersion: resource.k8s.io/{version}
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
{body}"""
FLAT = "      deviceClassName: gpu.example.com\n"
NESTED = "      exactly:\n        deviceClassName: gpu.example.com\n"


def _docs(text: str):
    return load("m.yaml", text.encode()).documents


def _upgrade(text: str, target: str, release: str = "1.35"):
    problems = [p for doc in _docs(text) for p in lifecycle.upgrade_problems(doc, lifecycle.parse_release(target), release)]
    return [(p.rule, p.span.line, p.span.column, p.message) for p in problems]


def test_table_comes_from_the_index_data():
    rows = {row["apiVersion"]: row for row in lifecycle.table()}
    versions = schemas.index()["versions"]
    assert set(rows) == set(versions)
    for gv, row in rows.items():
        assert (row["deprecated"], row["removed"], row["replacement"]) == (
            versions[gv]["deprecated"], versions[gv]["removed"], versions[gv]["replacement"])
        served = [r for r, state in row["releases"].items() if state]
        assert served == versions[gv]["served_in"]
    assert rows["resource.k8s.io/v1"]["releases"]["1.34"] == "default"
    assert rows["resource.k8s.io/v1beta1"]["releases"]["1.35"] == "deprecated"
    assert rows["resource.k8s.io/v1beta2"]["releases"]["1.35"] == "served"


def test_projection_past_the_data():
    assert "resource.k8s.io/v1beta1" in lifecycle.served_kinds("1.37")
    assert "resource.k8s.io/v1beta1" not in lifecycle.served_kinds("1.38")
    assert "resource.k8s.io/v1beta2" in lifecycle.served_kinds("1.38")
    # Upstream's prerelease-lifecycle dates are per kind: v1beta2 loses its claim and
    # class kinds in 1.39 but keeps DeviceTaintRule (introduced there in 1.36) until 1.42.
    assert lifecycle.served_kinds("1.39")["resource.k8s.io/v1beta2"] == {"DeviceTaintRule"}
    assert "resource.k8s.io/v1beta2" not in lifecycle.served_kinds("1.42")
    assert lifecycle.served_kinds("1.39")["resource.k8s.io/v1alpha3"] == {"ResourcePoolStatusRequest"}
    assert "ResourceClaim" in lifecycle.served_kinds("1.50")["resource.k8s.io/v1"]
    # 1.38 is in the data (a preview): not projected; 1.39 is past it.
    s = lifecycle.status("resource.k8s.io/v1beta1", "ResourceClaim", "1.38")
    assert (s.served, s.removed, s.removed_in, s.replacement, s.projected) == (False, True, "1.38", "resource.k8s.io/v1", False)
    s = lifecycle.status("resource.k8s.io/v1beta1", "ResourceClaim", "1.39")
    assert (s.served, s.removed, s.removed_in, s.replacement, s.projected) == (False, True, "1.38", "resource.k8s.io/v1", True)
    s = lifecycle.status("resource.k8s.io/v1alpha3", "DeviceTaintRule", "1.39")
    assert (s.served, s.removed_in, s.replacement) == (False, "1.39", "resource.k8s.io/v1")
    s = lifecycle.status("resource.k8s.io/v1beta2", "DeviceTaintRule", "1.39")
    assert (s.served, s.deprecated, s.deprecated_in) == (True, True, "1.39")


def test_kind_level_removal_inside_the_data():
    # v1alpha3 still exists in 1.34, but only for DeviceTaintRule.
    s = lifecycle.status("resource.k8s.io/v1alpha3", "ResourceClaim", "1.34")
    assert (s.served, s.removed_in, s.replacement) == (False, "1.34", "resource.k8s.io/v1")
    assert lifecycle.status("resource.k8s.io/v1alpha3", "DeviceTaintRule", "1.35").served


@pytest.mark.parametrize("version,body,target,expected", [
    ("v1beta1", FLAT, "1.35", ["DRA020"]),
    ("v1beta1", FLAT, "1.37", ["DRA020"]),
    ("v1beta1", FLAT, "1.38", ["DRA021"]),
    ("v1beta2", NESTED, "1.35", []),
    ("v1beta2", NESTED, "1.36", ["DRA020"]),
    ("v1beta2", NESTED, "1.39", ["DRA021"]),
    ("v1", NESTED, "1.39", []),
])
def test_upgrade_check(version, body, target, expected):
    found = _upgrade(CLAIM.format(version=version, body=body), target)
    assert [f[0] for f in found] == expected
    for _rule, line, column, message in found:
        assert (line, column) == (1, 13)  # the apiVersion value
        assert "use resource.k8s.io/v1" in message
        assert "dralint migrate --to resource.k8s.io/v1" in message


def test_removed_before_the_data_ends():
    text = CLAIM.format(version="v1alpha3", body=FLAT)
    [(rule, _, _, message)] = _upgrade(text, "1.34", release="1.33")
    assert rule == "DRA021"
    assert "removed in Kubernetes 1.34" in message and "use resource.k8s.io/v1" in message
    # Not served at the linted release already: DRA010 says so, the upgrade check stays quiet.
    assert _upgrade(text, "1.35", release="1.35") == []


def test_select_ignore_and_severity_apply_to_upgrade_problems(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(CLAIM.format(version="v1beta1", body=FLAT))
    relevelled = lint_json("--target-version", "1.36", "--severity", "DRA020=error", str(f))
    assert [(p["rule"], p["severity"]) for p in relevelled.problems if p["rule"] == "DRA020"] == [("DRA020", "error")]
    assert relevelled.code == 1
    ignored = lint_json("--target-version", "1.36", "--ignore", "deprecated-api-version", str(f))
    assert [p for p in ignored.problems if p["rule"] == "DRA020"] == []


def test_rules_lists_the_codes():
    rows = {r["code"]: r for r in json.loads(run_dralint("rules", "--format", "json").stdout)}
    assert rows["DRA020"]["slug"] == "deprecated-api-version" and rows["DRA020"]["severity"] == "warning"
    assert rows["DRA021"]["slug"] == "removed-api-version" and rows["DRA021"]["severity"] == "error"


def test_cli_target_version_within_the_data(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(CLAIM.format(version="v1beta1", body=FLAT))
    run = lint_json("--target-version", "1.35", str(f))
    assert [(p["rule"], p["line"], p["column"]) for p in run.problems if p["rule"].startswith("DRA02")] == [("DRA020", 1, 13)]


def test_cli_target_version_past_the_data(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(CLAIM.format(version="v1beta1", body=FLAT))
    run = run_dralint("--format", "json", "--no-config", "--target-version", "1.38", str(f))
    assert run.code == 1, run.stderr
    assert [p["rule"] for p in json.loads(run.stdout)["problems"] if p["rule"].startswith("DRA02")] == ["DRA021"]


def test_parse_release():
    assert lifecycle.parse_release("1.38") == "1.38"
    assert lifecycle.parse_release("v1.39.2") == "1.39"
    for bad in ("2.0", "1", "1.x", "latest"):
        with pytest.raises(ValueError):
            lifecycle.parse_release(bad)


def test_render_table_mentions_every_version():
    text = lifecycle.render_table(["1.34", "1.35", "1.38"])
    for gv in schemas.index()["versions"]:
        assert gv in text


def test_a_target_below_the_release_judged_against_is_a_usage_error(tmp_path):
    # Looking "ahead" to an older release read v1 as removed; the command line or the config is wrong.
    f = tmp_path / "c.yaml"
    f.write_text(CLAIM.format(version="v1", body=FLAT))
    run = run_dralint("--no-config", "-k", "1.35", "--target-version", "1.33", str(f))
    assert (run.code, run.stdout) == (2, "")
    assert run.stderr.startswith(
        "dralint: error: target-version 1.33 is older than kubernetes-version 1.35: the upgrade check looks ahead"
    ), run.stderr
    (tmp_path / ".dralint.yaml").write_text("kubernetes-version: '1.36'\ntarget-version: '1.34'\n")
    run = run_dralint(str(f), cwd=tmp_path)
    assert run.code == 2 and "target-version 1.34 is older than kubernetes-version 1.36" in run.stderr
    # The same release, or a later one, is an upgrade check as before.
    assert lint_json("-k", "1.35", "--target-version", "1.35", str(f)).code in (0, 1)
