"""API-server parity rules (rules/metadata.py, classic.py, requests.py, constraints.py, config.py,
deviceclass.py, status.py, feature_gates.py): real YAML fixtures under tests/cases/rules/, run
through the real CLI; each expectation is (rule, path, line, column, error type named in the message).
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from conftest import CASES, lint_json, run_dralint

RULES = CASES / "rules"
MINE = ("DRA2", "DRA3", "DRA5", "DRA6", "DRA8")


def mine(problems: list[dict]) -> list[dict]:
    return [p for p in problems if p["rule"].startswith(MINE)]


def rows(problems: list[dict]) -> list[tuple]:
    return [(p["rule"], p["path"], p["line"], p["column"]) for p in mine(problems)]


INVALID = [
    ("requests-invalid", "1.34", [
        ('DRA301', 'spec.devices.requests[0].name', 8, 13, 'Invalid'),
        ('DRA307', 'spec.devices.requests[0].exactly.deviceClassName', 10, 26, 'Invalid'),
        ('DRA313', 'spec.devices.requests[0].exactly.allocationMode', 11, 25, 'NotSupported'),
        ('DRA314', 'spec.devices.requests[1].exactly.count', 16, 16, 'Invalid'),
        ('DRA302', 'spec.devices.requests[2].name', 17, 7, 'Duplicate'),
        ('DRA306', 'spec.devices.requests[2].exactly.deviceClassName', 19, 26, 'Required'),
        ('DRA314', 'spec.devices.requests[2].exactly.count', 20, 16, 'Invalid'),
        ('DRA304', 'spec.devices.requests[3]', 21, 7, 'Required'),
        ('DRA305', 'spec.devices.requests[4]', 22, 7, 'Invalid'),
        ('DRA309', 'spec.devices.requests[5].firstAvailable[0].name', 28, 16, 'Invalid'),
        ('DRA306', 'spec.devices.requests[5].firstAvailable[1].deviceClassName', 29, 36, 'Required'),
        ('DRA314', 'spec.devices.requests[5].firstAvailable[1].count', 29, 47, 'Invalid'),
        ('DRA310', 'spec.devices.requests[5].firstAvailable[2].name', 30, 10, 'Duplicate'),
        ('DRA307', 'spec.devices.requests[5].firstAvailable[2].deviceClassName', 30, 36, 'Invalid'),
        ('DRA313', 'spec.devices.requests[5].firstAvailable[2].allocationMode', 30, 63, 'NotSupported'),
    ]),
    ("requests-invalid", "1.35", [
        ('DRA301', 'spec.devices.requests[0].name', 8, 13, 'Invalid'),
        ('DRA307', 'spec.devices.requests[0].exactly.deviceClassName', 10, 26, 'Invalid'),
        ('DRA313', 'spec.devices.requests[0].exactly.allocationMode', 11, 25, 'NotSupported'),
        ('DRA314', 'spec.devices.requests[1].exactly.count', 16, 16, 'Invalid'),
        ('DRA302', 'spec.devices.requests[2]', 17, 7, 'Duplicate'),
        ('DRA306', 'spec.devices.requests[2].exactly.deviceClassName', 19, 26, 'Required'),
        ('DRA314', 'spec.devices.requests[2].exactly.count', 20, 16, 'Invalid'),
        ('DRA304', 'spec.devices.requests[3]', 21, 7, 'Required'),
        ('DRA305', 'spec.devices.requests[4]', 22, 7, 'Invalid'),
        ('DRA309', 'spec.devices.requests[5].firstAvailable[0].name', 28, 16, 'Invalid'),
        ('DRA306', 'spec.devices.requests[5].firstAvailable[1].deviceClassName', 29, 36, 'Required'),
        ('DRA314', 'spec.devices.requests[5].firstAvailable[1].count', 29, 47, 'Invalid'),
        ('DRA310', 'spec.devices.requests[5].firstAvailable[2]', 30, 10, 'Duplicate'),
        ('DRA307', 'spec.devices.requests[5].firstAvailable[2].deviceClassName', 30, 36, 'Invalid'),
        ('DRA313', 'spec.devices.requests[5].firstAvailable[2].allocationMode', 30, 63, 'NotSupported'),
    ]),
    ("flat-quirk", "1.32", [
        ('DRA314', 'spec.devices.requests[0].count', 10, 14, 'Invalid'),
    ]),
    ("flat-quirk", "1.33", [
        ('DRA314', 'spec.devices.requests[0].exactly.count', 10, 14, 'Invalid'),
        ('DRA306', 'spec.devices.requests[1].exactly.deviceClassName', 11, 7, 'Required'),
        ('DRA313', 'spec.devices.requests[1].exactly.allocationMode', 11, 7, 'NotSupported'),
    ]),
    ("selectors-invalid", "1.35", [
        ('DRA312', 'spec.devices.requests[0].exactly.selectors[0].cel', 12, 11, 'Required'),
        ('DRA312', 'spec.selectors[0].cel', 21, 5, 'Required'),
    ]),
    ("tolerations-invalid", "1.35", [
        ('DRA801', 'spec.devices.requests[0].exactly.tolerations', 11, 9, None),
        ('DRA315', 'spec.devices.requests[0].exactly.tolerations[0].key', 12, 17, 'Invalid'),
        ('DRA316', 'spec.devices.requests[0].exactly.tolerations[1].operator', 13, 42, 'NotSupported'),
        ('DRA317', 'spec.devices.requests[0].exactly.tolerations[2].value', 14, 57, 'Invalid'),
        ('DRA317', 'spec.devices.requests[0].exactly.tolerations[3].value', 15, 39, 'Invalid'),
        ('DRA318', 'spec.devices.requests[0].exactly.tolerations[3].effect', 15, 56, 'NotSupported'),
    ]),
    ("constraints-invalid", "1.35", [
        ('DRA503', 'spec.devices.constraints[0].requests[1]', 14, 23, 'Duplicate'),
        ('DRA504', 'spec.devices.constraints[0].requests[2]', 14, 28, 'Invalid'),
        ('DRA505', 'spec.devices.constraints[0].requests[2]', 14, 28, 'Invalid'),
        ('DRA505', 'spec.devices.constraints[0].requests[3]', 14, 33, 'Invalid'),
        ('DRA505', 'spec.devices.constraints[0].requests[4]', 14, 43, 'Invalid'),
        ('DRA507', 'spec.devices.constraints[0].matchAttribute', 15, 23, 'Invalid'),
        ('DRA506', 'spec.devices.constraints[1].matchAttribute', 16, 7, 'Required'),
        ('DRA507', 'spec.devices.constraints[2].matchAttribute', 18, 23, 'Invalid'),
    ]),
    ("constraints-invalid", "1.34", [
        ('DRA503', 'spec.devices.constraints[0].requests[1]', 14, 23, 'Duplicate'),
        ('DRA504', 'spec.devices.constraints[0].requests[2]', 14, 28, 'Invalid'),
        ('DRA505', 'spec.devices.constraints[0].requests[2]', 14, 28, 'Invalid'),
        ('DRA505', 'spec.devices.constraints[0].requests[3]', 14, 33, 'Invalid'),
        ('DRA505', 'spec.devices.constraints[0].requests[4]', 14, 43, 'Invalid'),
        ('DRA507', 'spec.devices.constraints[0].matchAttribute', 15, 23, 'Invalid'),
        ('DRA506', 'spec.devices.constraints[1].matchAttribute', 16, 7, 'Required'),
        ('DRA507', 'spec.devices.constraints[2].matchAttribute', 18, 23, 'Required'),
    ]),
    ("constraints-v1alpha3", "1.31", [
        ('DRA505', 'spec.devices.constraints[0].requests[1]', 11, 23, 'Invalid'),
        ('DRA507', 'spec.devices.constraints[0].matchAttribute.domain', 12, 23, 'Required'),
    ]),
    ("constraints-v1alpha3", "1.32", [
        ('DRA505', 'spec.devices.constraints[0].requests[1]', 11, 23, 'Invalid'),
        ('DRA507', 'spec.devices.constraints[0].matchAttribute', 12, 23, 'Invalid'),
    ]),
    ("config-invalid", "1.35", [
        ('DRA523', 'spec.devices.config[0].requests[1]', 11, 23, 'Duplicate'),
        ('DRA525', 'spec.devices.config[0].requests[2]', 11, 28, 'Invalid'),
        ('DRA527', 'spec.devices.config[0].opaque.driver', 13, 17, 'Required'),
        ('DRA528', 'spec.devices.config[0].opaque.parameters', 14, 21, 'Invalid'),
        ('DRA526', 'spec.devices.config[1].opaque', 15, 7, 'Required'),
        ('DRA527', 'spec.devices.config[2].opaque.driver', 17, 17, 'Invalid'),
        ('DRA528', 'spec.devices.config[2].opaque.parameters', 18, 21, 'Invalid'),
        ('DRA528', 'spec.config[0].opaque.parameters', 28, 19, 'Invalid'),
    ]),
    ("classic-invalid", "1.30", [
        ('DRA330', 'spec.resourceClassName', 6, 22, 'Invalid'),
        ('DRA331', 'spec.parametersRef.kind', 7, 25, 'Required'),
        ('DRA332', 'spec.allocationMode', 8, 19, 'NotSupported'),
        ('DRA553', 'driverName', 14, 13, 'Invalid'),
        ('DRA331', 'parametersRef.name', 15, 37, 'Required'),
        ('DRA554', 'parametersRef.namespace', 15, 52, 'Invalid'),
        ('DRA551', 'suitableNodes.nodeSelectorTerms[0].matchExpressions[0].values', 19, 7, 'Required'),
        ('DRA551', 'suitableNodes.nodeSelectorTerms[0].matchExpressions[1].values', 20, 54, 'Forbidden'),
        ('DRA551', 'suitableNodes.nodeSelectorTerms[0].matchExpressions[2].operator', 21, 38, 'Invalid'),
        ('DRA551', 'suitableNodes.nodeSelectorTerms[0].matchFields[0].key', 23, 13, 'Invalid'),
        ('DRA340', 'spec.potentialNodes[1]', 31, 28, 'Duplicate'),
        ('DRA340', 'spec.potentialNodes[2]', 31, 36, 'Invalid'),
    ]),
    ("deviceclass-v1alpha3", "1.31", [
        ('DRA551', 'suitableNodes.nodeSelectorTerms', 7, 5, 'Required'),
    ]),
    ("deviceclass-extended", "1.35", [
        ('DRA801', 'spec.extendedResourceName', 6, 3, None),
        ('DRA552', 'spec.extendedResourceName', 6, 25, 'Invalid'),
    ]),
    ("status-invalid", "1.35", [
        ('DRA600', 'status', 10, 1, None),
        ('DRA601', 'status.reservedFor', 11, 3, 'Forbidden'),
        ('DRA601', 'status.reservedFor[1]', 13, 36, 'Duplicate'),
    ]),
    ("status-invalid", "1.34", [
        ('DRA600', 'status', 10, 1, None),
        ('DRA601', 'status.reservedFor', 11, 3, 'Forbidden'),
        ('DRA601', 'status.reservedFor[1].uid', 13, 36, 'Duplicate'),
    ]),
    ("gates", "1.33", [
        ('DRA801', 'spec.devices.requests[0].firstAvailable', 10, 7, None),
        ('DRA801', 'spec.devices.requests[1].adminAccess', 14, 7, None),
        ('DRA802', 'spec.devices.requests[1].adminAccess', 14, 20, 'Forbidden'),
    ]),
    ("gates", "1.34", [
        ('DRA802', 'spec.devices.requests[1].adminAccess', 14, 20, 'Forbidden'),
    ]),
    ("too-many-requests", "1.31", [
        ('DRA303', 'spec.devices.requests', 7, 5, 'TooLong'),
    ]),
    ("too-many-requests", "1.32", [
        ('DRA303', 'spec.devices.requests', 7, 5, 'TooMany'),
    ]),
    ("too-many-requests-v1", "1.34", [
        ('DRA303', 'spec.devices.requests', 7, 5, 'TooMany'),
        ('DRA302', 'spec.devices.requests[33].name', 41, 8, 'Duplicate'),
    ]),
    ("too-many-requests-v1", "1.35", [
        ('DRA303', 'spec.devices.requests', 7, 5, 'TooMany'),
    ]),
    ("metadata-invalid", "1.35", [
        ('DRA202', 'metadata.name', 4, 9, 'Invalid'),
        ('DRA204', 'metadata.namespace', 5, 14, 'Invalid'),
        ('DRA208', 'metadata.generation', 6, 15, 'Invalid'),
        ('DRA205', 'metadata.labels', 8, 5, 'Invalid'),
        ('DRA205', 'metadata.labels', 9, 10, 'Invalid'),
        ('DRA206', 'metadata.annotations', 11, 5, 'Invalid'),
        ('DRA202', 'metadata.name', 21, 17, 'Invalid'),
        ('DRA203', 'metadata.generateName', 21, 17, 'Invalid'),
        ('DRA201', 'metadata.name', 30, 1, 'Required'),
    ]),
    ("template-metadata-forbidden", "1.35", [
        ('DRA209', 'spec.metadata.name', 7, 5, 'Forbidden'),
        ('DRA209', 'spec.metadata.uID', 8, 5, 'Forbidden'),
        ('DRA209', 'spec.metadata.finalizers', 10, 5, 'Forbidden'),
    ]),
    ("deviceclass-namespace", "1.35", [
        ('DRA210', 'metadata.namespace', 5, 3, None),
    ]),
]


@pytest.mark.parametrize("name,release,expected", INVALID, ids=[f"{n}@{r}" for n, r, _ in INVALID])
def test_invalid_fixture(name, release, expected):
    run = lint_json(str(RULES / f"{name}.yaml"), "-k", release)
    problems = mine(run.problems)
    assert rows(run.problems) == [e[:4] for e in expected]
    for problem, (_rule, _path, _line, _col, etype) in zip(problems, expected):
        if etype is not None:
            assert problem["message"].rstrip(")").endswith(etype) or f"({etype}" in problem["message"], problem["message"]


VALID = [
    ("valid-v1-claim", "1.34"),
    ("valid-v1-claim", "1.35"),
    ("valid-v1beta1-flat", "1.32"),
    ("valid-v1beta1-flat", "1.33"),
    ("valid-v1beta1-flat", "1.35"),
    ("valid-classic", "1.27"),
    ("valid-classic", "1.30"),
]


@pytest.mark.parametrize("name,release", VALID, ids=[f"{n}@{r}" for n, r in VALID])
def test_valid_fixture(name, release):
    run = lint_json(str(RULES / f"{name}.yaml"), "-k", release)
    assert rows(run.problems) == []
    assert not [p for p in run.problems if p["severity"] == "error"]


def test_release_differences():
    """The same mistake, reported differently by release."""

    def paths(name, release, code):
        run = lint_json(str(RULES / f"{name}.yaml"), "-k", release)
        return [(p["path"], p["message"]) for p in run.problems if p["rule"] == code]

    # TooLong (1.31) vs TooMany (1.32+).
    assert "(TooLong)" in paths("too-many-requests", "1.31", "DRA303")[0][1]
    assert "(TooMany)" in paths("too-many-requests", "1.32", "DRA303")[0][1]
    # Duplicate at R.name up to 1.34, at R in 1.35.
    assert [p for p, _ in paths("requests-invalid", "1.34", "DRA302")] == ["spec.devices.requests[2].name"]
    assert [p for p, _ in paths("requests-invalid", "1.35", "DRA302")] == ["spec.devices.requests[2]"]
    # 1.35 short-circuits an over-long list: no duplicate error for its entries.
    assert paths("too-many-requests-v1", "1.35", "DRA302") == []
    # Flat shape: real path up to 1.32, `exactly` path from 1.33 (same source line).
    assert [p for p, _ in paths("flat-quirk", "1.32", "DRA314")] == ["spec.devices.requests[0].count"]
    assert [p for p, _ in paths("flat-quirk", "1.33", "DRA314")] == ["spec.devices.requests[0].exactly.count"]
    # matchAttribute without a domain: Required at .domain in 1.31, Invalid at the field from 1.32.
    assert [p for p, _ in paths("constraints-v1alpha3", "1.31", "DRA507")] == ["spec.devices.constraints[0].matchAttribute.domain"]
    assert [p for p, _ in paths("constraints-v1alpha3", "1.32", "DRA507")] == ["spec.devices.constraints[0].matchAttribute"]
    # Empty identifier: Required up to 1.34, Invalid in 1.35.
    assert [m for p, m in paths("constraints-invalid", "1.34", "DRA507") if "constraints[2]" in p][0].endswith("(Required)")
    assert [m for p, m in paths("constraints-invalid", "1.35", "DRA507") if "constraints[2]" in p][0].endswith("(Invalid)")
    # Admin-access label key: 1.33 vs 1.34+.
    assert "resource.k8s.io/admin-access" in paths("gates", "1.33", "DRA802")[0][1]
    assert "resource.kubernetes.io/admin-access" in paths("gates", "1.34", "DRA802")[0][1]


def test_feature_gate_configured_off(tmp_path):
    """With DRAPrioritizedList explicitly off, a firstAvailable-only request has no device left."""
    run = run_dralint("--format", "json", "--config", str(RULES / "gates-off.dralint"), "-k", "1.33", str(RULES / "gates.yaml"))
    assert run.code == 1, run.stderr
    got = [(p["rule"], p["path"], p["line"], p["column"]) for p in json.loads(run.stdout)["problems"] if p["rule"] == "DRA304"]
    assert got == [("DRA304", "spec.devices.requests[0]", 9, 7)]


def _corpus(shared_dir):
    index = shared_dir / "corpus" / "real-world" / "index.json"
    if not index.is_file():
        pytest.skip("real-world corpus not present")
    return index.parent, json.loads(index.read_text())


def test_real_world_valid_files_have_no_errors(shared_dir):
    root, entries = _corpus(shared_dir)
    by_release: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.get("expected_valid") is True and entry.get("k8s_version"):
            by_release[entry["k8s_version"]].append(str(root / entry["file"]))
    assert by_release
    for release, files in sorted(by_release.items()):
        run = lint_json("-k", release, *files)
        errors = [(p["file"], p["rule"], p["path"]) for p in run.problems if p["severity"] == "error"]
        assert errors == [], f"{release}: {errors[:10]}"


def test_real_world_invalid_files_are_caught(shared_dir):
    root, entries = _corpus(shared_dir)
    by_release: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.get("expected_valid") is False and entry.get("k8s_version") and not entry.get("templated"):
            by_release[entry["k8s_version"]].append(str(root / entry["file"]))
    for release, files in sorted(by_release.items()):
        run = lint_json("-k", release, *files)
        flagged = {p["file"] for p in run.problems if p["severity"] == "error"}
        assert set(files) <= flagged, f"{release}: not caught: {sorted(set(files) - flagged)}"


def test_opaque_parameters_size_limit_from_1_32():
    """10240 bytes of compact JSON: no limit in 1.31, TooLong from 1.32 (pointing at the key)."""
    file = str(RULES / "parameters-too-long.yaml")
    assert rows(lint_json(file, "-k", "1.31").problems) == []
    got = [p for p in lint_json(file, "-k", "1.32").problems if p["rule"] == "DRA528"]
    assert [(p["path"], p["line"], p["column"]) for p in got] == [("spec.config[0].opaque.parameters", 9, 7)]
    assert got[0]["message"].endswith("(TooLong)")
