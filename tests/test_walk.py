"""The directory walk (dralint.pipeline.sources.files): which files a run reads, in which order, each once."""

import os
import sys

from dralint.pipeline import sources


def names(paths):
    return [(name, error) for name, error in sources.files([str(p) for p in paths])]


def touch(path, text="a: 1\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_order_is_the_sorted_order_of_the_paths(tmp_path):
    # "a-b.yaml" and "a.yaml" sort before "a/..." ('-' and '.' come before '/'), "a0.yaml" after it.
    for rel in ("a/z.yaml", "a/b/c.yml", "a.yaml", "a-b.yaml", "a0.yaml", "A.json", "b.YAML", "a/b.json"):
        touch(tmp_path / rel)
    (tmp_path / "notes.txt").write_text("x")
    touch(tmp_path / ".git" / "config.yaml")
    touch(tmp_path / "a" / ".hidden.yaml")
    found = [name for name, _ in names([tmp_path])]
    expected = sorted(str(tmp_path / rel) for rel in ("a/z.yaml", "a/b/c.yml", "a.yaml", "a-b.yaml", "a0.yaml", "A.json", "b.YAML", "a/b.json"))
    assert found == expected


def test_current_folder_gives_relative_names(tmp_path, monkeypatch):
    touch(tmp_path / "deploy" / "claim.yaml")
    monkeypatch.chdir(tmp_path)
    assert names(["."]) == [(os.path.join("deploy", "claim.yaml"), None)]


def test_a_file_reached_twice_is_read_once(tmp_path):
    touch(tmp_path / "a.yaml")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "a.yaml")
    os.link(tmp_path / "a.yaml", tmp_path / "z-hard.yaml")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    touch(outside)
    (tmp_path / "out.yaml").symlink_to(outside)
    try:
        found = names([tmp_path / "a.yaml", tmp_path, tmp_path / "out.yaml", outside])
    finally:
        outside.unlink()
    assert found == [(str(tmp_path / "a.yaml"), None), (str(tmp_path / "out.yaml"), None)]


def test_symlinked_folders_are_followed_once_and_loops_end(tmp_path):
    touch(tmp_path / "real" / "claim.yaml")
    (tmp_path / "real" / "loop").symlink_to(tmp_path)
    (tmp_path / "zlink").symlink_to(tmp_path / "real")
    assert names([tmp_path]) == [(str(tmp_path / "real" / "claim.yaml"), None)]


def test_a_deep_tree_does_not_exhaust_the_stack(tmp_path):
    depth = sys.getrecursionlimit() + 200
    deep = str(tmp_path) + "/d" * depth
    for level in range(1, depth + 1):
        os.mkdir(str(tmp_path) + "/d" * level)  # os.makedirs recurses too
    with open(deep + "/deep.yaml", "w") as handle:
        handle.write("a: 1\n")
    try:
        assert names([tmp_path]) == [(deep + "/deep.yaml", None)]
    finally:
        # pytest's clean-up of old temporary folders (shutil.rmtree) recurses: leave it a shallow tree.
        os.unlink(deep + "/deep.yaml")
        for level in range(depth, 0, -1):
            os.rmdir(str(tmp_path) + "/d" * level)


def test_a_missing_file_named_twice_is_reported_once(tmp_path):
    assert names([tmp_path / "nope.yaml", tmp_path / "x" / ".." / "nope.yaml"]) == [(str(tmp_path / "nope.yaml"), None)]


def test_folder_links_out_of_the_linted_tree_are_not_followed(tmp_path):
    from conftest import run_dralint

    claim = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: {}\nspec:\n  colour: red\n"
    project = tmp_path / "project"
    touch(project / "real" / "a.yaml", claim.format("a"))
    touch(tmp_path / "elsewhere" / "b.yaml", claim.format("b"))
    (project / "real" / "root").symlink_to("/")  # the whole file system
    (project / "real" / "proc").symlink_to("/proc/self")  # loops through /proc/self/root, cwd ...
    (project / "up").symlink_to(tmp_path)  # an ancestor: everything around the project
    (project / "elsewhere").symlink_to(tmp_path / "elsewhere")
    (project / "same").symlink_to(project / "real")  # inside: followed (once: it is real/)
    (project / "real" / "loop").symlink_to("..")
    run = run_dralint("--format", "json", "--no-config", "--jobs", "1", ".", cwd=project, timeout=30)
    assert [(p["file"], p["rule"], p["line"], p["column"]) for p in run.problems] == [("real/a.yaml", "DRA101", 6, 3)], run.stderr
    assert run.json["summary"]["files"] == 1
    # Named on the command line, the same folder is walked: it is the linted tree.
    run = run_dralint("--format", "json", "--no-config", "elsewhere", cwd=project, timeout=30)
    assert [(p["file"], p["rule"]) for p in run.problems] == [("elsewhere/b.yaml", "DRA101")]


BAD_CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: c\nspec:\n  colour: red\n"
WORKFLOW = """name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: echo "${{ github.sha }}"
        env:
          TOKEN: ${{ secrets.TOKEN }}
"""


def _repository(root):
    (root / ".git").mkdir(parents=True)
    touch(root / ".git" / "config.yaml", BAD_CLASS)
    for rel in (".k8s/claim.yaml", "deploy/keep.local.yaml", "deploy/build/ok.yaml", "deploy/generated/b/c.yaml", "apps/a.yaml"):
        touch(root / rel, BAD_CLASS)
    touch(root / ".github" / "workflows" / "ci.yml", WORKFLOW)
    touch(root / ".github" / "dependabot.yml", "version: 2\nupdates:\n  - package-ecosystem: pip\n    directory: /\n")
    # Never walked: tool folders, hidden files, what .gitignore excludes.
    for rel in (".venv/lib/x.yaml", "node_modules/pkg/package.json", ".tox/py/a.yaml", "__pycache__/a.json", "apps/.hidden.yaml",
                "generated/a.yaml", "deploy/generated/a.yaml", "deploy/x.local.yaml", "build/a.yaml", "apps/secret-1.yaml", "apps/sub/secret-2.yaml"):
        touch(root / rel, BAD_CLASS)
    (root / ".gitignore").write_text("# generated output\ngenerated/\n*.local.yaml\n!keep.local.yaml\n/build\n")
    (root / "apps" / ".gitignore").write_text("secret-*.yaml\n")
    # A deeper .gitignore overrides a shallower one.
    (root / "deploy" / "generated" / "b").mkdir(exist_ok=True)
    (root / "deploy" / ".gitignore").write_text("!generated/\ngenerated/*\n!generated/b/\n")


def test_dot_folders_are_linted_but_tool_folders_and_gitignored_paths_are_not(tmp_path):
    from conftest import run_dralint

    _repository(tmp_path)
    run = run_dralint("--format", "json", "--no-config", "--jobs", "1", ".", cwd=tmp_path)
    assert run.code == 1, run.stderr
    assert [(p["file"], p["rule"], p["line"], p["column"]) for p in run.problems] == [
        (".k8s/claim.yaml", "DRA101", 6, 3),
        ("apps/a.yaml", "DRA101", 6, 3),
        ("deploy/build/ok.yaml", "DRA101", 6, 3),  # /build is anchored to the top
        ("deploy/generated/b/c.yaml", "DRA101", 6, 3),
        ("deploy/keep.local.yaml", "DRA101", 6, 3),
    ]
    # The workflow and dependabot's config were read and passed over: not Kubernetes, never an error or warning.
    assert run.json["summary"] == {"files": 7, "files_passed_over": 2, "documents": 5, "errors": 5, "warnings": 0, "infos": 0}
    # The .gitignore files above a folder named on the command line apply (up to the top of the work tree) ...
    run = run_dralint("--format", "json", "--no-config", "deploy", cwd=tmp_path)
    assert [p["file"] for p in run.problems] == ["deploy/build/ok.yaml", "deploy/generated/b/c.yaml", "deploy/keep.local.yaml"]
    # ... and a file named on the command line is read whatever they say.
    run = run_dralint("--format", "json", "--no-config", "deploy/x.local.yaml", "generated", cwd=tmp_path)
    assert [p["file"] for p in run.problems] == ["deploy/x.local.yaml", "generated/a.yaml"]


def test_a_workflow_in_a_dot_folder_never_fails_the_run(tmp_path):
    from conftest import run_dralint

    touch(tmp_path / ".github" / "workflows" / "ci.yml", WORKFLOW)
    for fail_on in ("error", "warning", "info"):
        run = run_dralint("--format", "json", "--no-config", "--fail-on", fail_on, ".", cwd=tmp_path)
        assert run.code == 0 and run.json["summary"]["files"] == 1 and run.json["summary"]["files_passed_over"] == 1, run.stdout
