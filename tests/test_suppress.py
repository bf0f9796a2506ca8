"""Inline `# dralint:` suppressions and config `ignore-paths`, with unused ones reported (DRA900).

tests/cases/suppress/inline.yaml and whole-file.yaml carry their expected problems
(tests/test_cases.py); config files are the CLI's to find, so `ignore-paths` runs it.
"""

from __future__ import annotations

import json

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
    from dralint.pipeline.load import load
    from dralint.pipeline.suppress import parse_comments

    # (code, line, column, target line): the ones in quoted, block and key strings are text; the second
    # document has no `#` in a string (its position table is not needed to tell).
    expected = [("DRA701", 4, 13, 4), ("DRA706", 12, 1, 13), ("DRA707", 13, 12, 13), ("DRA708", 18, 12, 18)]
    for newline in ("\n", "\r\n", "\r"):
        text = COMMENTS_AND_STRINGS.replace("\n", newline)
        documents = load("c.yaml", text.encode()).documents
        assert [doc.data["metadata"]["name"] for doc in documents] == ["c", "d"]
        directives, bad = parse_comments("c.yaml", text, documents)
        assert bad == []
        if newline == "\r":  # no line break where positions are counted (dralint.lines): all on line 1
            expected = [(code, 1, text.index(f"# dralint: disable{'-next-line' if code == 'DRA706' else ''}={code}") + 1, 2 if code == "DRA706" else 1)
                        for code, *_ in expected]
        assert [(d.codes[0].text, d.line, d.column, d.target) for d in directives] == expected, repr(newline)


# Hostile files: each of these took minutes (a directive compared with every string, every later line
# or every problem of its file); a watchdog timeout far above the linear cost catches a regression.


def test_thousands_of_next_line_comments_above_one_line(tmp_path):
    comments = "# dralint: disable-next-line=DRA713\n" * 30000
    (tmp_path / "next.yaml").write_text(comments + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    run = lint_json(str(tmp_path / "next.yaml"), timeout=30)
    problems = json.loads(run.stdout)["problems"]
    assert [(p["rule"], p["line"], p["column"]) for p in problems[:2]] == [("DRA900", 1, 30), ("DRA900", 2, 30)]
    assert problems[0]["message"] == "unused suppression: no DRA713 problem on line 30001"
    assert problems[-1]["rule"] == "DRA005" and problems[-1]["message"].startswith("29900 more problems in this document")


def test_thousands_of_comments_beside_strings_that_hold_a_hash(tmp_path):
    body = "".join(f'  k{i}: "v # dralint: disable=DRA701"  # dralint: disable=DRA713\n' for i in range(20000))
    (tmp_path / "strings.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n" + body)
    run = lint_json(str(tmp_path / "strings.yaml"), timeout=30)
    problems = json.loads(run.stdout)["problems"]
    # The comment after each string is a directive (at its code, column 57); the text inside the string is not.
    assert [(p["rule"], p["line"], p["column"]) for p in problems[:2]] == [("DRA900", 6, 57), ("DRA900", 7, 57)]
    assert {p["message"] for p in problems[:-1]} == {"unused suppression: no DRA713 problem on this line"}
    assert problems[-1]["message"].startswith("19900 more problems in this document")


def test_directives_are_weighed_once_per_line_and_kind_of_problem(monkeypatch):
    from dralint.model import Problem, Severity, Span
    from dralint.pipeline.selection import Selection
    from dralint.pipeline.suppress import Directive, Suppressor, _Code

    calls = []
    matches = Directive.matches
    monkeypatch.setattr(Directive, "matches", lambda self, p: calls.append(1) or matches(self, p))
    n = 3000
    directives = [Directive("f.yaml", line, 20, 50, "disable", line, [_Code("DRA202", 30)]) for line in range(1, n + 1)]
    directives += [Directive("f.yaml", n + i, 1, 30, "disable-file", None, [_Code("DRA713", 20)]) for i in range(1, n + 1)]
    suppressor = Suppressor(Selection(), {"DRA202": "name-format", "DRA713": "device-class-unresolved", "DRA900": "unused-suppression"})
    suppressor._directives["f.yaml"] = directives
    on_each_line = [Problem("DRA202", "name-format", Severity.ERROR, "bad", "f.yaml", 0, (), Span(line, 9, line, 12)) for line in range(1, n + 1)]
    everywhere = [Problem("DRA713", "device-class-unresolved", Severity.INFO, "no class", "f.yaml", 0, (), Span(line, 9, line, 12)) for line in range(1, n + 1)]
    other = [Problem("DRA101", "unknown-field", Severity.ERROR, "x", "f.yaml", 0, (), Span(line, 1, line, 2)) for line in range(1, n + 1)]
    assert suppressor.keep(on_each_line + everywhere + other) == other
    # Each problem weighs its line's directive, and the whole-file ones are weighed once per rule.
    assert len(calls) == 6 * n  # per rule: a line directive per line, the whole-file ones once (n x n before)
    assert all(d.codes[0].used for d in directives)
    assert suppressor.unused() == []


def test_a_long_string_full_of_comment_like_text_then_a_comment(tmp_path):
    text = " # dralint: x" * 100000
    (tmp_path / "long.yaml").write_text(f'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: "{text}"  # dralint: disable=DRA713\n')
    run = lint_json(str(tmp_path / "long.yaml"), timeout=30)
    problems = json.loads(run.stdout)["problems"]
    column = len('  k: "') + len(text) + len('"  # dralint: disable=') + 1
    assert [(p["rule"], p["line"], p["column"], p["message"]) for p in problems] == [
        ("DRA900", 6, column, "unused suppression: no DRA713 problem on this line")]


def test_one_comment_listing_a_great_many_codes(tmp_path):
    # 50,000 copies of one code, then 50,000 unknown ones: each DRA900 was weighed against every code of
    # the comment (hours), and each unknown code against every rule by difflib (minutes).
    for codes, message in ((["DRA301"] * 50000, "unused suppression: no DRA301 problem in this file"),
                           ([f"x{i}" for i in range(50000)], "unknown rule 'x0' in a dralint suppression (see 'dralint rules')")):
        (tmp_path / "codes.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n# dralint: disable-file=" + ",".join(codes) + "\n")
        problems = json.loads(lint_json(str(tmp_path / "codes.yaml"), timeout=30).stdout)["problems"]
        assert [(p["rule"], p["line"], p["column"], p["message"]) for p in problems[:1]] == [("DRA900", 5, 25, message)]
        assert problems[-1]["message"].startswith("49900 more problems in this document")


def test_ignore_paths_globs_that_would_backtrack_are_matched_in_linear_time(tmp_path):
    # A regex translation backtracks exponentially on these (hours for these lengths): the run must end
    # (run_dralint's timeout) with the verdicts of any glob matcher.
    hostile = "**a" * 14 + "**b"
    long_name = "a" * 60
    (tmp_path / ".dralint.yaml").write_text(
        f'ignore-paths:\n  - "{hostile}"\n  - fields: ["{hostile}"]\n  - fields: ["spec.**a*a**"]\n    paths: ["**/{"a" * 30}**"]\n'
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / f"{long_name}.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\nspec:\n  devices:\n    requests:\n"
        f"    - name: gpu\n      exactly:\n        deviceClassName: gpu.example.com\n        {long_name}: 1\n"
    )
    run = run_dralint("--format", "json", "--jobs", "1", ".", cwd=tmp_path)
    # The third entry (a field glob and a path glob that both match) hides the unknown field; the hostile
    # ones match nothing: the field glob is an unused ignore, the file glob is not in scope (no file matched).
    assert [(p["rule"], p["file"], p["line"], p["column"]) for p in run.problems] == [("DRA900", ".dralint.yaml", 3, 5)], run.stderr
    assert run.problems[0]["message"] == f"unused config ignore: ignore-paths[1] (fields: {hostile}) suppressed no problem"
