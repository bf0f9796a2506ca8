"""Structured fixes: `dralint --fix` (the CLI contract), and the `fixes` of the JSON and SARIF reports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from dralint.lint import LintOptions, lint
from dralint.migration_fixes import attach_migration_fixes
from dralint.model import Edit, Span
from dralint.pipeline.sources import Source
from dralint.repairs import apply

from conftest import dralint_command, run_dralint

CASES = Path(__file__).parent / "cases" / "fix"


def _dralint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    run = run_dralint(*args, cwd=cwd)
    return subprocess.CompletedProcess(args, run.code, run.stdout, run.stderr)


def test_fix_rewrites_only_what_the_fixes_say_and_reports_what_is_left(tmp_path: Path):
    target = tmp_path / "mixed.yaml"
    shutil.copy(CASES / "mixed.yaml", target)
    clean = tmp_path / "clean.yaml"
    clean.write_bytes((CASES / "mixed.fixed.yaml").read_bytes())
    before = os.stat(clean)
    run = _dralint("--fix", "--ignore", "DRA713", "mixed.yaml", "clean.yaml", cwd=tmp_path)
    # Migrated (comments kept), typo renamed, fields moved under `exactly`, enum value replaced in its quotes.
    assert target.read_text() == (CASES / "mixed.fixed.yaml").read_text()
    assert run.stderr.splitlines()[0] == "dralint: fixed mixed.yaml"
    assert run.returncode == 0, run.stdout + run.stderr
    after = os.stat(clean)  # nothing to fix: not rewritten at all
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_fix_leaves_a_file_without_fixes_alone_and_still_fails(tmp_path: Path):
    target = tmp_path / "claim.yaml"
    text = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: x}\nspec:\n  devices:\n    requests:\n    - name: 'Bad Name'\n      exactly: {deviceClassName: gpu.example.com}\n"
    target.write_text(text)
    run = _dralint("--fix", "claim.yaml", cwd=tmp_path)
    assert target.read_text() == text
    assert run.returncode == 1 and "claim.yaml:7:13" in run.stdout


def test_json_report_carries_ranked_fixes(tmp_path: Path):
    shutil.copy(CASES / "tolerations.yaml", tmp_path / "t.yaml")
    report = json.loads(_dralint("-f", "json", "t.yaml", cwd=tmp_path).stdout)
    effect = next(p for p in report["problems"] if p["rule"] == "DRA318")
    assert [f["description"] for f in effect["fixes"]] == ["replace with 'NoSchedule'", "replace with 'None'", "replace with 'NoExecute'"]
    assert effect["fixes"][0]["edits"] == [{"line": 14, "column": 19, "end_line": 14, "end_column": 30, "text": '"NoSchedule"'}]


def test_sarif_fixes_are_artifact_changes(tmp_path: Path):
    shutil.copy(CASES / "tolerations.yaml", tmp_path / "t.yaml")
    log = json.loads(_dralint("-f", "sarif", "t.yaml", cwd=tmp_path).stdout)
    result = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "DRA316")
    [best, other] = result["fixes"]
    assert best["description"]["text"] == "replace with 'Equal'" and other["description"]["text"] == "replace with 'Exists'"
    [change] = best["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "t.yaml", "uriBaseId": "%SRCROOT%"}
    assert change["replacements"] == [
        {"deletedRegion": {"startLine": 13, "startColumn": 21, "endLine": 13, "endColumn": 27}, "insertedContent": {"text": "Equal"}}
    ]


def test_migrate_fix_edits_only_its_own_document():
    text = (CASES / "mixed.yaml").read_text()
    problems = lint([Source("mixed.yaml", text.encode())], LintOptions(fixers=[attach_migration_fixes])).problems
    [beta] = [p for p in problems if p.rule == "DRA011"]
    [fix] = beta.fixes
    assert all(e.span.line < 13 for e in fix.edits)  # the second document (line 13 on) is v1 already
    migrated = apply(text, list(fix.edits))
    assert migrated.splitlines()[:4] == ["# leading comment", "apiVersion: resource.k8s.io/v1", "kind: ResourceClaim", "metadata:"]
    assert migrated.split("---")[1] == text.split("---")[1]


def test_apply_keeps_untouched_text_and_refuses_overlaps():
    text = "a: 1\nb: 2\n"
    assert apply(text, [Edit(Span(2, 4, 2, 5), "3"), Edit(Span(1, 1, 1, 2), "c")]) == "c: 1\nb: 3\n"
    try:
        apply(text, [Edit(Span(1, 1, 1, 3), "x"), Edit(Span(1, 2, 1, 4), "y")])
    except ValueError:
        pass
    else:
        raise AssertionError("overlapping edits were applied")


def test_cel_function_typo_gets_the_declared_name_inside_the_expression(tmp_path: Path):
    target = tmp_path / "cel.yaml"
    shutil.copy(CASES / "cel.yaml", target)
    problems = lint([Source(str(target), target.read_bytes())]).problems
    assert [(p.rule, p.span.line, p.span.column, p.span.end_column) for p in problems] == [("DRA402", 8, 33, 43), ("DRA402", 8, 68, 75)]
    assert problems[0].message == "undeclared reference to 'startswith': no such function; did you mean 'startsWith'?"
    run = _dralint("--fix", "cel.yaml", cwd=tmp_path)
    assert run.returncode == 0, run.stdout
    assert target.read_text().splitlines()[-1] == '      expression: device.driver.startsWith("gpu") && device.driver.endsWith("com")'


def test_fix_of_standard_input_writes_the_fixed_manifest_to_standard_output(tmp_path: Path):
    broken = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: x\nspec:\n  devices:\n    requests:\n"
              "    - name: {}\n      exactly:\n        deviceClasName: gpu.example.com\n        allocationMode: all\n")
    fixed = broken.replace("deviceClasName", "deviceClassName").replace(": all", ": All")

    def run(*args: str, data: bytes) -> subprocess.CompletedProcess:  # bytes in and out: a UTF-16 manifest below
        return subprocess.run(dralint_command("--no-config", *args), input=data, cwd=tmp_path,
                              capture_output=True, timeout=60, env={**os.environ, "DRALINT_NO_CACHE": "1"})

    # As `ruff --fix -`: the fixed text on standard output, what is left on standard error, exit 1 while errors remain.
    left = run("--fix", "-", data=broken.format("Bad_Name").encode())
    assert left.stdout.decode() == fixed.format("Bad_Name")
    assert left.returncode == 1
    assert left.stderr.decode().splitlines()[0].startswith("-:8:13: error: request name 'Bad_Name' is invalid")
    assert left.stderr.decode().splitlines()[-1] == "1 file, 1 document: 1 error, 0 warnings, 1 info"

    clean = run("--fix", "-", "-f", "json", data=broken.format("gpu").encode())
    assert clean.stdout.decode() == fixed.format("gpu") and clean.returncode == 0
    assert [(p["rule"], p["line"], p["column"]) for p in json.loads(clean.stderr)["problems"]] == [("DRA713", 10, 26)]

    # Nothing to fix, or not UTF-8: the bytes as they came, every one.
    for data in (fixed.format("gpu").encode(), b"\xff\xfe" + broken.encode("utf-16-le"), b""):
        same = run("--fix", "-", data=data)
        assert same.stdout == data and same.returncode in (0, 1) and b"Traceback" not in same.stderr

    from dralint.pipeline.sources import MAX_BYTES

    # Past what is linted: passed through whole, and reported.
    big = b"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n" + b"# padding\n" * (MAX_BYTES // 10 + 1000)
    passed = run("--fix", "-", data=big)
    assert passed.stdout == big and passed.returncode == 1 and b"DRA005" in passed.stderr

    mixed = run("--fix", "-", "a.yaml", data=b"")
    assert mixed.returncode == 2 and b"standard input is fixed alone" in mixed.stderr


FLAT_JSON = """\
{
  "apiVersion": "resource.k8s.io/v1",
  "kind": "ResourceClaim",
  "metadata": {"name": "gpu"},
  "spec": {
    "devices": {
      "requests": [
        {
          "name": "gpu",
          "deviceClassName": "gpu.example.com",
          "selectors": [
            {"cel": {"expression": "device.driver == \\"gpu.example.com\\""}}
          ],
          "count": 2
        },
        {"deviceClassName": "gpu.example.com", "name": "one", "exactly": {"count": 1}}
      ]
    }
  }
}
"""

FLAT_JSON_FIXED = """\
{
  "apiVersion": "resource.k8s.io/v1",
  "kind": "ResourceClaim",
  "metadata": {"name": "gpu"},
  "spec": {
    "devices": {
      "requests": [
        {
          "name": "gpu",
          "exactly": {
            "deviceClassName": "gpu.example.com",
            "selectors": [
              {"cel": {"expression": "device.driver == \\"gpu.example.com\\""}}
            ],
            "count": 2
          }
        },
        {"name": "one", "exactly": {"deviceClassName": "gpu.example.com", "count": 1}}
      ]
    }
  }
}
"""


def test_fix_moves_flat_fields_under_exactly_in_json_too(tmp_path: Path):
    # The move was written as YAML block text into the JSON (a DRA001 file); it is JSON's own edit now.
    target = tmp_path / "claim.json"
    target.write_text(FLAT_JSON)
    report = json.loads(_dralint("--no-config", "--format", "json", "claim.json", cwd=tmp_path).stdout)
    assert [(p["rule"], p["line"], p["fixes"][0]["description"]) for p in report["problems"] if p.get("fixes")] == [
        ("DRA304", 8, "move 'deviceClassName', 'selectors', 'count' under 'exactly'"),
        ("DRA101", 16, "move 'deviceClassName' under 'exactly'"),
    ]
    run = _dralint("--no-config", "--fix", "--ignore", "DRA713", "claim.json", cwd=tmp_path)
    assert (run.returncode, run.stdout) == (0, ""), run.stderr
    assert target.read_text() == FLAT_JSON_FIXED


MOVED_COMMENTS = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      # the class
      deviceClassName: gpu.example.com
      selectors:
      - cel:
          expression: device.driver == "gpu.example.com"
      # two of them,
      # at most
      count: 2
      # the next request
    - name: one
      exactly:
        deviceClassName: gpu.example.com
      # just one
      count: 1
"""

MOVED_COMMENTS_FIXED = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      # the class
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.driver == "gpu.example.com"
        # two of them,
        # at most
        count: 2
      # the next request
    - name: one
      exactly:
        # just one
        count: 1
        deviceClassName: gpu.example.com
"""


def test_fix_moves_the_comments_above_moved_fields_with_them(tmp_path: Path):
    # The comments above the first field stay above the new `exactly`, the one after the last above the next
    # request; those above the other fields were left behind, at their old indentation.
    target = tmp_path / "claim.yaml"
    target.write_text(MOVED_COMMENTS)
    run = _dralint("--no-config", "--fix", "--ignore", "DRA713", "claim.yaml", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert target.read_text() == MOVED_COMMENTS_FIXED
