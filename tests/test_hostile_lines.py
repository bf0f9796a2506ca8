"""Long lines and many repeated comments: linear, whatever they hold (found by a hostile-input hunt).

Each input here took minutes with code that looked at every match from the start of its line or of
the file; the real CLI runs under a watchdog timeout far above the linear cost, and the exact
problems are asserted.
"""

from __future__ import annotations

import json

from conftest import lint_json


def test_a_comment_line_full_of_template_actions_is_read_once(tmp_path):
    # 3.6 MB of `{{.` on one comment line (640k of them took 20 s, these ~70 s; 16 MB would have taken ~20 minutes).
    comment = "# " + "{{." * 1200000 + "\n"
    (tmp_path / "comment.yaml").write_text(comment)
    run = lint_json(str(tmp_path / "comment.yaml"), timeout=30)
    assert json.loads(run.stdout) == {"problems": [], "summary": {
        "files": 1, "files_passed_over": 0, "documents": 0, "errors": 0, "warnings": 0, "infos": 0}}
    # A template action after such lines is still found, where it stands.
    (tmp_path / "comment.yaml").write_text("# {{ .a }}\n" * 1000 + "data:\n  x: {{ .Values.x }}\n")
    problems = json.loads(lint_json(str(tmp_path / "comment.yaml"), timeout=30).stdout)["problems"]
    assert [(p["rule"], p["line"], p["column"]) for p in problems] == [("DRA014", 1002, 6)]


def test_many_release_comments_after_the_first_document(tmp_path):
    # 100,000 misplaced release comments: each one's line was counted from the top of the file.
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n" + "# dralint: kubernetes-version=1.30\n" * 100000
    (tmp_path / "many.yaml").write_text(text)
    problems = json.loads(lint_json(str(tmp_path / "many.yaml"), timeout=30).stdout)["problems"]
    assert [(p["rule"], p["line"], p["column"]) for p in problems[:3]] == [("DRA009", 5, 1), ("DRA009", 6, 1), ("DRA009", 7, 1)]
    assert problems[0]["message"] == ("a dralint kubernetes-version comment applies only before the first document; "
                                      "move it to the top of the file")
    assert problems[-1]["rule"] == "DRA005"
