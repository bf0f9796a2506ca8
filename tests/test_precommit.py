"""The pre-commit hooks (.pre-commit-hooks.yaml) run by the real `pre-commit` against this checkout.

The checkout may have uncommitted or untracked changes (and `pre-commit
try-repo` only sees tracked ones), so the working tree is copied into a
throw-away git repository and committed there; a project repository's
`.pre-commit-config.yaml` then points at that copy with `rev:` = its commit.
pre-commit builds the hook's virtualenv with pip from that copy (PyPI must be
reachable for the build backend and dependencies the first time).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"

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


def _git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("GIT_DIR", None)
    env.pop("GIT_INDEX_FILE", None)
    out = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _working_tree_files() -> list[str]:
    try:
        listed = _git("ls-files", "-co", "--exclude-standard", "-z", cwd=ROOT)
        return [f for f in listed.split("\0") if f and (ROOT / f).is_file()]
    except (subprocess.CalledProcessError, FileNotFoundError):
        skip = {".git", ".venv", "__pycache__", ".pytest_cache", "build", "dist"}
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    if shutil.which("git") is None or not PRE_COMMIT.exists():
        pytest.skip("git or pre-commit is not available")
    copy = tmp_path_factory.mktemp("dralint-hooks")
    for rel in _working_tree_files():
        dst = copy / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dst)
    assert (copy / ".pre-commit-hooks.yaml").is_file()
    _git("init", "-q", ".", cwd=copy)
    _git("add", "-A", cwd=copy)
    _git("commit", "-q", "--no-verify", "-m", "snapshot of the checkout under test", cwd=copy)
    return copy, _git("rev-parse", "HEAD", cwd=copy)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


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


def _run(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "VIRTUAL_ENV", "PYTHONPATH")}
    env["PRE_COMMIT_HOME"] = str(home)
    env["PRE_COMMIT_COLOR"] = "never"
    env["NO_COLOR"] = "1"
    return subprocess.run([str(PRE_COMMIT), "run", *args], cwd=project, env=env, capture_output=True, text=True, timeout=900)


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
