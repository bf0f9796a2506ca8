"""`--format sarif|github|junit` through the real CLI, validated against the formats' own schemas.

* SARIF: the OASIS SARIF 2.1.0 JSON Schema (errata01), `tests/schemas/sarif-schema-2.1.0.json`.
* JUnit: the Jenkins/Surefire `junit-10.xsd`, `tests/schemas/junit-10.xsd`.
Where each copy comes from: `tests/schemas/README.md`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

import jsonschema
import pytest

from conftest import run_dralint

SCHEMAS = Path(__file__).parent / "schemas"

BAD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClasName: gpu.example.com
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec: {}
---
apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata:
  name: beta.example.com
"""


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "claims.yaml").write_text(BAD)
    return tmp_path


def _lint(project: Path, fmt: str, *extra: str, env: dict | None = None):
    return run_dralint("--no-config", "--format", fmt, *extra, "k8s/claims.yaml", cwd=project, env=env)


# ---------------------------------------------------------------- SARIF


def _sarif_validator():
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def test_sarif_is_valid_and_complete(project):
    run = _lint(project, "sarif")
    assert run.code == 1, run.stderr
    log = json.loads(run.stdout)
    errors = sorted(_sarif_validator().iter_errors(log), key=str)
    assert errors == [], [e.message for e in errors]

    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids == sorted(set(ids))
    listed = json.loads(run_dralint("rules", "--format", "json").stdout)
    assert {row["code"] for row in listed} <= set(ids)  # every rule, not only the ones that fired
    by_id = {r["id"]: r for r in rules}
    dra101 = by_id["DRA101"]
    assert dra101["name"] == "unknown-field"
    assert dra101["helpUri"].endswith("rules.md#dra101")
    assert dra101["defaultConfiguration"]["level"] == "error"
    assert by_id["DRA011"]["defaultConfiguration"]["level"] == "warning"
    assert dra101["shortDescription"]["text"] and dra101["fullDescription"]["text"]

    results = run0["results"]
    typo = next(r for r in results if r["ruleId"] == "DRA101")
    assert rules[typo["ruleIndex"]]["id"] == "DRA101"
    assert typo["level"] == "error"
    loc = typo["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == "k8s/claims.yaml"  # relative to the working directory
    assert loc["physicalLocation"]["region"] == {"startLine": 11, "startColumn": 9, "endLine": 11, "endColumn": 23}
    assert loc["logicalLocations"][0]["name"] == "spec.devices.requests[0].exactly.deviceClasName"
    assert "deviceClasName" in typo["message"]["text"]
    beta = next(r for r in results if r["ruleId"] == "DRA011")
    assert beta["level"] == "warning"


def test_sarif_fingerprints_do_not_depend_on_lines(project):
    first = json.loads(_lint(project, "sarif").stdout)
    claims = project / "k8s" / "claims.yaml"
    claims.write_text("# a new first line moves every problem down\n\n" + BAD)
    second = json.loads(_lint(project, "sarif").stdout)
    fp = lambda log: [(r["ruleId"], r["partialFingerprints"]) for r in log["runs"][0]["results"]]  # noqa: E731
    lines = lambda log: [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in log["runs"][0]["results"]]  # noqa: E731
    assert fp(first) == fp(second)
    assert [n + 2 for n in lines(first)] == lines(second)
    assert len({v for _, f in fp(first) for v in f.values()}) == len(fp(first))  # distinct per problem


def test_sarif_of_a_clean_run_is_valid(project):
    (project / "k8s" / "claims.yaml").write_text(BAD.split("---\n")[1])
    run = _lint(project, "sarif")
    assert run.code == 0, run.stderr
    log = json.loads(run.stdout)
    assert list(_sarif_validator().iter_errors(log)) == []
    assert log["runs"][0]["results"] == []


def test_sarif_written_result_by_result_is_the_whole_log_dumped(project, tmp_path_factory, monkeypatch):
    from dralint.lint import LintOptions, lint
    from dralint.pipeline.sources import collect
    from dralint.report import ReportOptions, sarif

    # A fix, a file name to escape, a file outside the working directory (an absolute URI), a clean run.
    (project / "k8s" / "ä b.yaml").write_text(BAD.replace("resource.k8s.io/v1\nkind: ResourceClaim", "resource.k8s.io/v1beta1\nkind: ResourceClaim", 1))
    outside = tmp_path_factory.mktemp("outside") / "c.yaml"
    outside.write_text(BAD)
    monkeypatch.chdir(project)
    written = {}
    for paths in (("k8s", str(outside)), (str(project / "k8s" / "claims.yaml"),), ()):
        result = lint(collect(list(paths)), LintOptions(keep=frozenset({"fixes"})))
        log, rule_index, _ = sarif.sarif_log(result, str(project), None)
        log["runs"][0]["results"] = list(sarif._results(result.problems, rule_index, str(project)))
        assert sarif.render(result, ReportOptions()) == json.dumps(log, indent=2, ensure_ascii=False) + "\n"
        written[paths] = log["runs"][0]["results"]
    # A code no rule of the process declares (a --rules-dir rule's) gets a descriptor of its own: the
    # rules written for the runs above are not reused for this log.
    result = lint(collect([str(project / "k8s" / "claims.yaml")]), LintOptions())
    result.problems[0].rule = "XT777"
    log, rule_index, _ = sarif.sarif_log(result, str(project), None)
    log["runs"][0]["results"] = list(sarif._results(result.problems, rule_index, str(project)))
    assert "XT777" in rule_index
    assert sarif.render(result, ReportOptions()) == json.dumps(log, indent=2, ensure_ascii=False) + "\n"
    first = written[("k8s", str(outside))]
    assert any("fixes" in r for r in first) and written[()] == []
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in first}
    assert uris == {"k8s/%C3%A4%20b.yaml", "k8s/claims.yaml", "file://" + quote(str(outside))}


# ---------------------------------------------------------------- GitHub


def test_github_workflow_commands(project):
    run = _lint(project, "github")
    assert run.code == 1, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(
        "::error file=k8s/claims.yaml,line=11,col=9,endLine=11,endColumn=22,title=DRA101 unknown-field::unknown field 'deviceClasName'"
    )
    warning = next(line for line in lines if "DRA011" in line)
    assert warning.startswith("::warning file=k8s/claims.yaml,line=19,")
    pattern = re.compile(r"^::(error|warning|notice) file=[^,:]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[^,:]+::[^\r\n]+$")
    assert all(pattern.match(line) for line in lines), lines


def test_github_escaping():
    from dralint.report.github import escape_data, escape_property

    assert escape_property("a:b,c%d\r\ne") == "a%3Ab%2Cc%25d%0D%0Ae"
    assert escape_data("a:b,c%d\r\ne") == "a:b,c%25d%0D%0Ae"


def test_auto_format_is_github_inside_actions(project):
    run = run_dralint("--no-config", "k8s/claims.yaml", cwd=project, env={"GITHUB_ACTIONS": "true"})
    assert run.stdout.startswith("::error file=k8s/claims.yaml,")


# ---------------------------------------------------------------- JUnit


def _junit_schema():
    xmlschema = pytest.importorskip("xmlschema")
    return xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd"))


def test_junit_is_valid_one_testcase_per_document(project):
    import xml.etree.ElementTree as ET

    run = _lint(project, "junit")
    assert run.code == 1, run.stderr
    _junit_schema().validate(run.stdout)
    root = ET.fromstring(run.stdout)
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == [
        "k8s/claims.yaml#0 ResourceClaim/ml/gpu",
        "k8s/claims.yaml#1 DeviceClass/gpu.example.com",
        "k8s/claims.yaml#2 DeviceClass/beta.example.com",
    ]
    failures = cases[0].findall("failure")
    assert len(failures) == 1
    assert failures[0].get("type") == "DRA101 unknown-field"
    assert "k8s/claims.yaml:11:9:" in failures[0].text
    assert cases[1].find("failure") is None
    assert cases[2].find("failure") is None and "DRA011" in cases[2].find("system-out").text  # warnings are no failures
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("3", "1")


def test_junit_written_case_by_case_is_the_whole_tree_written(project, monkeypatch):
    import xml.etree.ElementTree as ET

    from dralint.lint import LintOptions, lint
    from dralint.pipeline.sources import collect
    from dralint.report import ReportOptions, junit

    def whole_tree(result):  # the report as one tree, indented and written at once
        cases = junit._assign(result, junit._documents(result))
        failed = [c for c in cases if junit._errors(c)]
        counts = {"tests": str(len(cases)), "failures": str(len(failed)), "errors": "0"}
        suites = ET.Element("testsuites", name="dralint", **counts, time="0")
        skipped = sum(1 for c in cases if c.passed_over and c not in failed)
        suite = ET.SubElement(suites, "testsuite", name="dralint", **counts, skipped=str(skipped), time="0")
        suite.extend(junit._element(c) for c in cases)
        ET.indent(suites)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"

    # Errors, warnings, a syntax error outside any document, a file passed over, special characters, nothing.
    (project / "k8s" / "broken <&>.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: [\n")
    (project / "k8s" / "workflow.yaml").write_text("on: push\njobs: {}\n")
    (project / "k8s" / "one.yaml").write_text(BAD.split("---\n")[1])
    monkeypatch.chdir(project)
    for paths in (["k8s"], ["k8s/one.yaml"], []):
        result = lint(collect(paths), LintOptions(keep=frozenset({"objects"})))
        written = junit.render(result, ReportOptions())
        assert written == whole_tree(result)
    assert written.endswith('<testsuite name="dralint" tests="0" failures="0" errors="0" skipped="0" time="0" />\n</testsuites>\n')
    whole = ET.fromstring(junit.render(lint(collect(["k8s"]), LintOptions(keep=frozenset({"objects"}))), ReportOptions()))
    assert [(c.get("name"), [e.tag for e in c]) for c in whole.iter("testcase")] == [
        ("k8s/broken <&>.yaml#0", ["failure"]),
        ("k8s/claims.yaml#0 ResourceClaim/ml/gpu", ["failure"]),
        ("k8s/claims.yaml#1 DeviceClass/gpu.example.com", []),
        ("k8s/claims.yaml#2 DeviceClass/beta.example.com", ["system-out"]),
        ("k8s/one.yaml#0 DeviceClass/gpu.example.com", []),
        ("k8s/workflow.yaml#0", ["skipped"]),
    ]


def test_junit_with_a_syntax_error_and_special_characters_is_valid(project):
    (project / "k8s" / "claims.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: 'a<&>\"b'\n")
    run = _lint(project, "junit")
    assert run.code == 1
    _junit_schema().validate(run.stdout)
    assert "DRA001" in run.stdout


def test_json_problem_lines_are_what_json_dumps_writes():
    from dralint.model import Edit, Fix, MapKey, Problem, Severity, Span, format_path
    from dralint.report.json_format import problem_line

    def problem_dict(p):  # the report's contract, field by field, in order
        out = {"file": p.source, "line": p.span.line, "column": p.span.column, "end_line": p.span.end_line,
               "end_column": p.span.end_column, "severity": str(p.severity), "rule": p.rule, "name": p.name,
               "message": p.message, "path": format_path(p.path), "document": p.document,
               "api_version": p.api_version, "kind": p.kind, "object": p.object}
        if p.fixes:
            out["fixes"] = [{"description": f.description,
                             "edits": [{"line": e.span.line, "column": e.span.column, "end_line": e.span.end_line,
                                        "end_column": e.span.end_column, "text": e.text} for e in f.edits]}
                            for f in p.fixes]
        return out

    plain = Problem("DRA101", "unknown-field", Severity.ERROR, 'a "quoted" \\ word, é, \x01 and \u2028', "dir/ä b.yaml", 3,
                    ("spec", "devices", "requests", 0, MapKey("gpu.example.com/model")), Span(4, 5, 4, 9),
                    "resource.k8s.io/v1", "ResourceClaim", "ns/claim-ü", "FieldValueInvalid")
    bare = Problem("DRA006", "unreadable", Severity.INFO, "cannot read", "-", 0)
    fixed = Problem("DRA304", "x", Severity.WARNING, "move it", "a.yaml", 1, ("spec",), Span(1, 1, 1, 2))
    fixed.fixes = [Fix("move \"it\"", (Edit(Span(1, 1, 1, 2), "x\n\ty"), Edit(Span(2, 1, 2, 1), ""))), Fix("other", ())]
    for problem in (plain, bare, fixed):
        assert problem_line(problem) == json.dumps(problem_dict(problem), ensure_ascii=False)


def test_sarif_of_a_file_whose_name_is_not_utf8(project):
    import os

    name = os.fsdecode(b"bad\xff\xfename.yaml")  # as the file system gives it: surrogate escapes
    (project / "k8s" / name).write_text(BAD)
    run = run_dralint("--no-config", "--format", "sarif", "k8s", cwd=project)
    assert run.code == 1, run.stderr
    log = json.loads(run.stdout)
    assert list(_sarif_validator().iter_errors(log)) == []
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"k8s/bad%FF%FEname.yaml", "k8s/claims.yaml"}


def test_sarif_indents_as_json_dumps_does_byte_for_byte():
    """The SARIF writer's own indenting (json's is pure Python) against json.dumps(indent=2) itself:
    nested data with escapes, astral and lone-surrogate characters, every number json writes its own
    way, empty containers, tuples, and what it hands back to json (non-string keys, int subclasses)."""
    import enum
    import random

    from dralint.report.sarif import _indented

    rng = random.Random(20261127)
    leaves = [None, True, False, 0, -1, 2**70, 1.5, -0.0, 1e300, float("nan"), float("inf"), float("-inf"),
              "", 'a"b\\c\n\t\x00\x1f\u2028é😀\ud800', "plain", 3.141592653589793]

    def value(depth: int):
        roll = rng.random()
        if depth > 4 or roll < 0.4:
            return rng.choice(leaves)
        if roll < 0.7:
            return {rng.choice(["a", "é", "\n", ""]) + str(i): value(depth + 1) for i in range(rng.randint(0, 4))}
        return (tuple if rng.random() < 0.2 else list)(value(depth + 1) for _ in range(rng.randint(0, 4)))

    class Level(enum.IntEnum):
        ERROR = 1

    values = [value(0) for _ in range(1000)] + [{1: "a"}, {None: 1, "b": [2]}, [Level.ERROR], {"k": Level.ERROR}]
    for v in values:
        indent = rng.choice(["", "  ", " " * 8])
        assert _indented(v, indent) == json.dumps(v, indent=2, ensure_ascii=False).replace("\n", "\n" + indent), v
