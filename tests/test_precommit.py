"""The pre-commit hooks (.pre-commit-hooks.yaml) run by the real `pre-commit` against this checkout.

The checkout may have uncommitted or untracked changes (and `pre-commit
try-repo` only sees tracked ones), so the working tree is copied into a
throw-away git repository and committed there; a project repository's
`.pre-commit-config.yaml` then points at that copy with `rev:` = its commit.
pre-commit builds the hook's virtualenv with pip from that copy (PyPI must be
reachable for the build backend and dependencies the first time).
"""

from __future__ import annotations

import re
from pathlib import Path

# The hook_repo and pre_commit_home fixtures (conftest.py) are shared with test_repository.py:
# one hook environment per test session.
from conftest import git as _git
from conftest import run_pre_commit as _run

GOOD = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""
BAD = GOOD.replace("deviceClassName", "deviceClasName")


def _project(tmp_path: Path, hook_repo: tuple[Path, str], hook: str, files: dict[str, str]) -> Path:
    repo, rev = hook_repo
    project = tmp_path / "project"
    project.mkdir()
    _git("init", "-q", ".", cwd=project)
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {repo}\n  rev: {rev}\n  hooks:\n  - id: {hook}\n"
    )
    for name, text in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git("add", "-A", cwd=project)
    return project


def test_hook_fails_on_a_bad_manifest_with_the_position(tmp_path, hook_repo, pre_commit_home):
    project = _project(tmp_path, hook_repo, "dralint", {"k8s/claim.yaml": BAD, "k8s/other.yaml": GOOD})
    proc = _run(project, pre_commit_home, "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "k8s/claim.yaml:10:9: error: unknown field 'deviceClasName'; did you mean 'deviceClassName'?" in out
    assert "[DRA101 unknown-field]" in out
    assert not re.search(r"k8s/other\.yaml:\d+:\d+: error", out)


def test_hook_passes_on_a_good_manifest(tmp_path, hook_repo, pre_commit_home):
    project = _project(tmp_path, hook_repo, "dralint", {"k8s/claim.yaml": GOOD, "README.md": "not yaml\n"})
    proc = _run(project, pre_commit_home, "--files", "k8s/claim.yaml", "README.md")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_config_hook_uses_the_project_config(tmp_path, hook_repo, pre_commit_home):
    files = {".dralint.yaml": "ignore: [DRA101]\n", "k8s/claim.yaml": BAD}
    project = _project(tmp_path, hook_repo, "dralint-config", files)
    proc = _run(project, pre_commit_home, "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the config ignores the typo

    (project / ".dralint.yaml").write_text("ignroe: [DRA101]\n")
    proc = _run(project, pre_commit_home, "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "unknown setting 'ignroe'" in out and "did you mean 'ignore'" in out
