"""Inline `# dralint:` suppressions and config `ignore-paths`, with unused ones reported (DRA900).

tests/cases/suppress/inline.yaml and whole-file.yaml carry their expected problems
(tests/test_cases.py); config files are the CLI's to find, so `ignore-paths` runs it.
"""

from __future__ import annotations

from conftest import CASES, lint_json, run_dralint
from engine import brief, lint_fixture, lint_paths

SUPPRESS = CASES / "suppress"
PROJECT = SUPPRESS / "project"


def test_unused_bare_disable_file_is_reported(tmp_path):
    clean = tmp_path / "clean.yaml"
    clean.write_text("# dralint: disable-file\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    problems = lint_fixture(clean)
    assert brief(problems) == [("DRA900", "", 1, 1)]
    assert problems[0].message == "unused suppression: 'disable-file' suppressed no problem in this file"
    # A warning does not fail the run by default; --fail-on is the CLI's to apply.
    assert lint_json(str(clean)).code == 0
    assert lint_json(str(clean), "--fail-on", "warning").code == 1


def test_unused_reports_follow_select_ignore_and_severity(tmp_path):
    text = "apiVersion: v1  # dralint: disable=DRA701\nkind: ConfigMap\nmetadata:\n  name: c\n"
    f = tmp_path / "c.yaml"
    f.write_text(text)
    assert brief(lint_fixture(f)) == [("DRA900", "", 1, 36)]
    # DRA701 did not run: its suppression is not "unused".
    assert lint_fixture(f, select=["DRA1", "DRA900"]) == []
    assert lint_fixture(f, ignore=["DRA701"]) == []
    # DRA900 is a rule like the others.
    assert lint_fixture(f, ignore=["unused-suppression"]) == []
    assert [str(p.severity) for p in lint_paths([f], severities={"DRA900": "error"}).problems] == ["error"]
    # ... and only a comment that names it suppresses it.
    f.write_text(text + "# dralint: disable-file=DRA900\n")
    assert lint_fixture(f) == []


def test_config_ignore_paths():
    run = run_dralint("--format", "json", ".", cwd=PROJECT)
    assert run.code == 1, run.stderr
    assert [(p["rule"], p["file"], p["path"], p["line"], p["column"]) for p in run.problems] == [
        # legacy/** hides every problem of legacy/old.yaml; apps/*.yaml hides DRA712;
        # the initContainers field glob hides the init container's DRA704.
        # In scope (apps/never-used.yaml was linted) but suppressed nothing.
        ("DRA900", ".dralint.yaml", "", 8, 5),
        # A field glob that matched nothing.
        ("DRA900", ".dralint.yaml", "", 10, 5),
        ("DRA704", "apps/app.yaml", "spec.containers[0].resources.claims[0]", 14, 15),
        # nowhere/** matched no linted file: not reported (pre-commit lints a few files at a time).
    ]
    assert run.problems[0]["message"] == "unused config ignore: ignore-paths[3] (paths: apps/never-*.yaml) suppressed no problem"
    assert run.problems[1]["message"] == "unused config ignore: ignore-paths[5] (fields: status; rules: claim-reference-kind) suppressed no problem"


def test_config_ignore_paths_relative_to_the_config_file():
    # Run from the repository root with -c: globs still count from the config's folder.
    run = run_dralint("--format", "json", "-c", str(PROJECT / ".dralint.yaml"), str(PROJECT / "legacy"), str(PROJECT / "apps" / "app.yaml"))
    assert [(p["rule"], p["line"]) for p in run.problems] == [("DRA704", 14), ("DRA900", 10)]


def test_bad_ignore_paths_is_a_usage_error(tmp_path):
    manifest = tmp_path / "m.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    for body, expected in (
        ("ignore-paths: legacy\n", "'ignore-paths' must be a list"),
        ("ignore-paths:\n- {paths: [a], rule: [DRA701]}\n", "ignore-paths[0]: unknown key 'rule'"),
        ("ignore-paths:\n- {paths: [a], rules: [DRA7999]}\n", "unknown rule 'DRA7999'"),
        ("ignore-paths:\n- {rules: [DRA701]}\n", "use 'ignore'"),
    ):
        cfg = tmp_path / ".dralint.yaml"
        cfg.write_text(body)
        run = run_dralint(str(manifest), cwd=tmp_path)
        assert run.code == 2, body
        assert expected in run.stderr, run.stderr
