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
import shutil
from pathlib import Path

# The hook_repo and pre_commit_home fixtures (conftest.py): the hook environment is built once per run,
# by `pre-commit install-hooks` in the background while other modules run (with workers), or by the
# first test here; every test that runs the real hook is in this module.
from conftest import CASES, run_dralint
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
ROOT_CASES = Path(__file__).parent / "kustomize"  # a kustomize base and overlay (test_kustomize.py)


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


def _cross_file_repository() -> dict[str, str]:
    """40 files whose verdicts depend on each other: classes, templates naming them, pods naming the
    templates (one by the wrong field, one naming nothing), and a kustomize overlay patching a base."""
    files: dict[str, str] = {}
    for i in range(12):
        files[f"classes/class-{i:02}.yaml"] = (
            f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu-{i:02}.example.com\n")
        files[f"templates/template-{i:02}.yaml"] = (
            f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: template-{i:02}\nspec:\n"
            f"  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n"
            f"          deviceClassName: gpu-{i:02}.example.com\n")
        pod_ref = ("resourceClaimName" if i == 3 else "resourceClaimTemplateName", f"template-{i:02}" if i != 7 else "template-77")
        files[f"workloads/pod-{i:02}.yaml"] = (
            f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-{i:02}\nspec:\n  resourceClaims:\n  - name: gpu\n"
            f"    {pod_ref[0]}: {pod_ref[1]}\n  containers:\n  - name: app\n    image: app:1\n"
            "    resources:\n      claims:\n      - name: gpu\n")
    files["base/kustomization.yaml"] = "resources: [deployment.yaml]\n"
    files["base/deployment.yaml"] = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n"
        "  template:\n    metadata: {labels: {app: web}}\n    spec:\n      resourceClaims:\n      - name: gpu\n"
        "        resourceClaimTemplateName: template-00\n      containers:\n      - name: web\n        image: web:1\n")
    files["overlay/kustomization.yaml"] = "resources: [../base]\npatches:\n- path: patch.yaml\n"
    files["overlay/patch.yaml"] = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: web\n        resources:\n          claims:\n          - name: gpu\n")
    files["workloads/broken.yaml"] = BAD
    return files


def _problem_lines(text: str) -> list[str]:
    return sorted(line for line in text.splitlines() if re.match(r"[\w./-]+:\d+:\d+: (error|warning|info): ", line))


def test_hook_judges_cross_file_references_as_dralint_dot(tmp_path, hook_repo, pre_commit_home):
    """The hook is require_serial: one dralint sees every file, as `dralint .` does, whatever the batches
    pre-commit would cut the list into otherwise (one per core)."""
    from pre_commit import xargs

    files = _cross_file_repository()
    project = _project(tmp_path, hook_repo, "dralint", files)
    names = sorted(files)
    assert len(xargs.partition(("dralint",), names, 2)) == 2  # what require_serial: false would have run
    assert len(xargs.partition(("dralint",), names, 1)) == 1

    proc = _run(project, pre_commit_home, "--all-files", "--verbose")
    hook = _problem_lines(proc.stdout + proc.stderr)
    direct = run_dralint(".", cwd=project)
    assert proc.returncode == 1 and direct.code == 1
    assert hook == _problem_lines(direct.stdout)
    # What the batches changed: a reference to a template defined in another batch, a class defined elsewhere.
    assert not [line for line in hook if "is not defined in the linted files" in line and "template-77" not in line]
    assert [line.split(": ", 1)[0] + ": " + line.split("[")[-1] for line in hook] == [
        "workloads/broken.yaml:10:9: DRA101 unknown-field]",
        "workloads/pod-03.yaml:8:24: DRA710 claim-reference-kind]",
        "workloads/pod-07.yaml:8:32: DRA712 claim-reference-unresolved]",
    ]


WORKFLOW = """\
name: ci
on: [push]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
    - uses: actions/checkout@v4
    - run: echo "${{ github.sha }}" && echo "${{ secrets.TOKEN }}"
      env:
        REF: ${{ github.ref }}
"""
PLAYBOOK = """\
- hosts: gpu_nodes
  vars:
    driver_version: "550"
  tasks:
  - name: install the driver
    ansible.builtin.package:
      name: "nvidia-driver-{{ driver_version }}"
  - name: label the node
    ansible.builtin.command: kubectl label node {{ inventory_hostname }} gpu=true
"""


def _platform_repository() -> dict[str, str]:
    """A platform team's repository: a kustomize base and overlay (a Deployment patch adding a container
    claim the base declares; a template patch with a typo), a workflow, an Ansible playbook, and a claim
    with a mistake in a dot-folder."""
    def base(name: str) -> str:
        return (ROOT_CASES / "base" / name).read_text()

    return {
        "deploy/base/kustomization.yaml": "resources: [deployment.yaml, claim-template.yaml, deviceclass.yaml]\n",
        "deploy/base/deployment.yaml": base("deployment.yaml"),
        "deploy/base/claim-template.yaml": base("claim-template.yaml"),
        "deploy/base/deviceclass.yaml": base("deviceclass.yaml"),
        "deploy/overlays/prod/kustomization.yaml": "resources: [../../base]\npatches:\n- path: deployment-patch.yaml\n- path: template-patch.yaml\n",
        "deploy/overlays/prod/deployment-patch.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: inference\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: server\n        resources:\n          claims:\n          - name: gpu\n"),
        "deploy/overlays/prod/template-patch.yaml": (ROOT_CASES / "overlays" / "prod" / "template-patch.yaml").read_text(),
        ".github/workflows/ci.yaml": WORKFLOW,
        "ansible/site.yml": PLAYBOOK,
        ".k8s/claim.yaml": BAD,
    }


def test_a_platform_repository_gets_exactly_its_two_mistakes(tmp_path, hook_repo, pre_commit_home):
    """Issue 21's acceptance: `dralint .` and the real pre-commit hook report the template patch's typo and the
    dot-folder claim's typo, nothing about the valid patch, the workflow or the playbook."""
    project = _project(tmp_path, hook_repo, "dralint", _platform_repository())
    expected = [
        ".k8s/claim.yaml:10:9: error: unknown field 'deviceClasName'; did you mean 'deviceClassName'? "
        "(at spec.devices.requests[0].exactly.deviceClasName) [DRA101 unknown-field]",
        "deploy/overlays/prod/template-patch.yaml:11:11: error: unknown field 'cuont'; did you mean 'count'? "
        "(at spec.spec.devices.requests[0].exactly.cuont) [DRA101 unknown-field]",
    ]
    direct = run_dralint("--fail-on", "info", ".", cwd=project)
    assert direct.code == 1
    assert direct.stdout.splitlines() == expected, direct.stdout
    proc = _run(project, pre_commit_home, "--all-files", "--verbose")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert _problem_lines(out) == expected, out
    assert "ci.yaml" not in out and "site.yml" not in out


# A whole repository (tests/cases/repo, see test_repository.py) through the real hook: in this module, so
# that the hook environment the tests above built is reused (xdist runs one module in one worker).
def test_pre_commit_fails_only_on_the_dra_mistake(tmp_path, hook_repo, pre_commit_home):
    repo, rev = hook_repo
    project = tmp_path / "project"
    shutil.copytree(CASES / "repo", project)
    _git("init", "-q", ".", cwd=project)
    (project / ".pre-commit-config.yaml").write_text(f"repos:\n- repo: {repo}\n  rev: {rev}\n  hooks:\n  - id: dralint\n")
    _git("add", "-A", cwd=project)
    proc = _run(project, pre_commit_home, "--all-files")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    errors = re.findall(r"^(\S+):(\d+):(\d+): error: .*\[(DRA\d+) [\w-]+\]$", out, re.M)
    assert errors == [("k8s/claim-template.yaml", "12", "27", "DRA313")], out
    assert "'all' is not supported: use ExactCount or All" in out

    # With the mistake fixed, nothing else in the repository blocks the commit.
    claim = project / "k8s" / "claim-template.yaml"
    claim.write_text(claim.read_text().replace("allocationMode: all", "allocationMode: All"))
    _git("add", "-A", cwd=project)
    proc = _run(project, pre_commit_home, "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr
