"""JUnit counts that add up: `failures` counts failed test cases, `skipped` the files passed over (issue 10, item 12)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from conftest import CASES, ROOT, run_dralint

SCHEMA = ROOT / "tests" / "schemas" / "junit-10.xsd"

MANY_ERRORS = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: Bad_Name
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClasName: gpu.example.com
        count: -1
"""


def _junit(*paths: str) -> ET.Element:
    run = run_dralint("--no-config", "--format", "junit", *paths)
    assert run.code == 1, run.stderr
    xmlschema = pytest.importorskip("xmlschema")
    xmlschema.XMLSchema(str(SCHEMA)).validate(run.stdout)
    return ET.fromstring(run.stdout)


def _assert_counts_add_up(root: ET.Element) -> None:
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    for case in cases:
        assert len(case.findall("failure")) <= 1, case.get("name")
        assert not (case.find("failure") is not None and case.find("skipped") is not None)
    assert int(suite.get("tests")) == len(cases) == int(root.get("tests"))
    assert int(suite.get("failures")) == sum(1 for c in cases if c.find("failure") is not None) == int(root.get("failures"))
    assert int(suite.get("skipped")) == sum(1 for c in cases if c.find("skipped") is not None)


def test_several_errors_in_one_document_are_one_failed_test_case(tmp_path):
    (tmp_path / "claim.yaml").write_text(MANY_ERRORS)
    root = _junit(str(tmp_path / "claim.yaml"))
    _assert_counts_add_up(root)
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("1", "1", "0")
    failure = suite.find("testcase/failure")
    lines = failure.text.splitlines()
    assert len(lines) == 3 and [line.split(": ")[0] for line in lines] == [
        f"{tmp_path}/claim.yaml:4:9", f"{tmp_path}/claim.yaml:10:9", f"{tmp_path}/claim.yaml:11:16",
    ]
    assert failure.get("message").endswith(" (and 2 more errors)")


def test_a_repository_counts_passed_over_files_as_skipped():
    root = _junit(str(CASES / "repo"))
    _assert_counts_add_up(root)
    suite = root.find("testsuite")
    # 3 documents, 11 files without Kubernetes objects (the workflow in .github/ among them); one failure (the DRA mistake).
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("14", "1", "11")
    failed = [c.get("name") for c in suite.findall("testcase") if c.find("failure") is not None]
    assert failed == [f"{CASES / 'repo'}/k8s/claim-template.yaml#0 ResourceClaimTemplate/gpu-template"]
