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


COMMENTS_AND_STRINGS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: c   # dralint: disable=DRA701
data:
  quoted: "x # dralint: disable=DRA702"
  single: 'y # dralint: disable=DRA703'
  block: |
    z
    # dralint: disable=DRA704
  "k # dralint: disable=DRA705": v
# dralint: disable-next-line=DRA706
  plain: w # dralint: disable=DRA707
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: d  # dralint: disable=DRA708
"""


def test_directives_are_read_from_comments_not_strings_whatever_the_line_breaks():
    from dralint.load import load
    from dralint.suppress import parse_comments

    # (code, line, column, target line): the ones in quoted, block and key strings are text; the second
    # document has no `#` in a string (its position table is not needed to tell).
    expected = [("DRA701", 4, 13, 4), ("DRA706", 12, 1, 13), ("DRA707", 13, 12, 13), ("DRA708", 18, 12, 18)]
    for newline in ("\n", "\r\n", "\r"):
        text = COMMENTS_AND_STRINGS.replace("\n", newline)
        documents = load("c.yaml", text.encode()).documents
        assert [doc.data["metadata"]["name"] for doc in documents] == ["c", "d"]
        directives, bad = parse_comments("c.yaml", text, documents)
        assert bad == []
        if newline == "\r":  # no line break where positions are counted (dralint.load.lines): all on line 1
            expected = [(code, 1, text.index(f"# dralint: disable{'-next-line' if code == 'DRA706' else ''}={code}") + 1, 2 if code == "DRA706" else 1)
                        for code, *_ in expected]
        assert [(d.codes[0].text, d.line, d.column, d.target) for d in directives] == expected, repr(newline)
