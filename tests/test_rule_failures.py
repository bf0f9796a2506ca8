"""A rule that fails in any way is a DRA901 of its document and the run reports on (serial and with --jobs)."""

from __future__ import annotations

import pytest

from dralint.pipeline import parallel

from conftest import run_dralint

RULE = '''\
import sys

from dralint.api import rule


@rule("XX001", "exits", kinds={"ConfigMap"})
def exits(doc, report):
    """Ends the interpreter at the ConfigMap named boom, as a careless plugin might."""
    if doc.name == "boom":
        RAISE
'''


@pytest.mark.parametrize("raised, shown", [("sys.exit(0)", "SystemExit: 0"), ("raise SystemExit(3)", "SystemExit: 3"),
                                           ("raise GeneratorExit('late')", "GeneratorExit: late")])
def test_a_rule_ending_the_interpreter_is_a_rule_failure(tmp_path, raised, shown):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "exits.py").write_text(RULE.replace("RAISE", raised))
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: boom\n")
    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nspec: {}\n")
    run = run_dralint("--no-config", "--rules-dir", str(rules), "a.yaml", "b.yaml", cwd=tmp_path)
    assert run.stdout == f"a.yaml:1:1: error: rule XX001 (exits) failed: {shown} [DRA901 internal-error]\n"
    assert run.stderr.strip() == "2 files, 2 documents: 1 error, 0 warnings, 0 info"
    assert run.code == 1


def test_a_rule_ending_a_worker_is_a_rule_failure_with_jobs(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "exits.py").write_text(RULE.replace("RAISE", "sys.exit(0)"))
    files = tmp_path / "files"
    files.mkdir()
    for i in range(parallel.MIN_FILES):
        name = "boom" if i == 120 else f"cm{i}"
        (files / f"f{i:04}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n")
    run = run_dralint("--no-config", "--rules-dir", str(rules), "--jobs", "2", "files", cwd=tmp_path)
    assert run.stdout == "files/f0120.yaml:1:1: error: rule XX001 (exits) failed: SystemExit: 0 [DRA901 internal-error]\n"
    assert run.stderr.strip() == f"{parallel.MIN_FILES} files, {parallel.MIN_FILES} documents: 1 error, 0 warnings, 0 info"
    assert run.code == 1


def test_ctrl_c_in_a_rule_still_stops_the_run(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "exits.py").write_text(RULE.replace("RAISE", "raise KeyboardInterrupt"))
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: boom\n")
    run = run_dralint("--no-config", "--rules-dir", str(rules), "a.yaml", cwd=tmp_path)
    assert (run.code, run.stdout) == (130, "")
