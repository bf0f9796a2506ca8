"""Every install route the docs give works from what the repository holds (issue 10, "Install routes").

The sdist and the wheel are built in process with hatchling, the project's
build backend, into a temporary folder.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile

import pytest

from conftest import ROOT

hatchling_sdist = pytest.importorskip("hatchling.builders.sdist")
hatchling_wheel = pytest.importorskip("hatchling.builders.wheel")


@pytest.fixture(scope="module")
def sdist_members(tmp_path_factory) -> set[str]:
    out = tmp_path_factory.mktemp("sdist")
    (built,) = hatchling_sdist.SdistBuilder(str(ROOT)).build(directory=str(out), versions=["standard"])
    with tarfile.open(built) as archive:
        return {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("wheel")
    (built,) = hatchling_wheel.WheelBuilder(str(ROOT)).build(directory=str(out), versions=["standard"])
    return built


@pytest.fixture(scope="module")
def wheel_members(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_licence_is_the_apache_license_pyproject_names():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text()


def test_the_sdist_carries_the_hooks_the_deploy_folder_and_the_licence(sdist_members):
    assert {".pre-commit-hooks.yaml", "LICENSE", "pyproject.toml", "README.md", ".dockerignore"} <= sdist_members
    deploy = {p.name for p in (ROOT / "deploy").iterdir()}
    assert {"Dockerfile", "kustomization.yaml", "deployment.yaml"} <= deploy
    assert {f"deploy/{name}" for name in deploy} <= sdist_members
    assert "src/dralint/pipeline/triage.py" in sdist_members


def test_the_wheel_has_the_rules_the_schemas_and_the_licence(wheel_members):
    rules = {p.name for p in (ROOT / "rules").glob("*.py")}
    assert len(rules) >= 10
    assert {f"dralint/rules/{name}" for name in rules} <= wheel_members
    assert any(m.startswith("dralint/_data/schemas/") for m in wheel_members)
    assert any(re.fullmatch(r"dralint-[^/]+\.dist-info/licenses/LICENSE", m) for m in wheel_members), sorted(
        m for m in wheel_members if "dist-info" in m
    )


def test_the_dockerfile_builds_from_what_the_repository_holds():
    """No container engine here: check that what the Dockerfile copies and runs is in the build context."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "docker build -f deploy/Dockerfile -t dralint:0.1.0 ." in dockerfile
    assert re.search(r"^COPY \. \.$", dockerfile, re.M)
    assert re.search(r"pip install .*'\.\[webhook\]'", dockerfile)
    assert "webhook = [" in (ROOT / "pyproject.toml").read_text()
    ignored = (ROOT / ".dockerignore").read_text().split()
    for needed in ("pyproject.toml", "src", "rules", "schemas", "README.md"):
        assert (ROOT / needed).exists() and needed not in ignored
    # The compile step names the site-packages of the base image's Python.
    (base,) = set(re.findall(r"^FROM python:(\d+\.\d+)-slim", dockerfile, re.M))
    assert f"/usr/local/lib/python{base}/site-packages/dralint" in dockerfile


def test_the_documented_pre_commit_rev_is_no_tag_that_does_not_exist():
    try:
        tags = subprocess.run(["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for doc in (ROOT / "README.md", ROOT / "docs" / "ci.md"):
        for rev in re.findall(r"^\s*rev:\s*(\S+)", doc.read_text(), re.M):
            assert re.fullmatch(r"[0-9a-f]{40}", rev) or rev in tags, f"{doc.name}: rev {rev!r} is neither a commit SHA nor a tag"


def _without(module: str, argv: list[str]) -> subprocess.CompletedProcess:
    code = f"import sys; sys.modules[{module!r}] = None; from dralint.cli import main; sys.exit(main({argv!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "module, argv, extra",
    [
        ("uvicorn", ["serve", "--tls-cert", "c", "--tls-key", "k"], "webhook"),
        ("pygls", ["lsp"], "lsp"),
        ("lsprotocol", ["lsp"], "lsp"),
    ],
)
def test_a_missing_extra_is_installed_as_the_message_says_while_unpublished(module, argv, extra):
    run = _without(module, argv)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(
        f"dralint: error: 'dralint {argv[0]}' needs the {extra} extra: from a checkout of dralint, "
        f"pip install -e '.[{extra}]' (or pip install 'dralint[{extra}] @ git+URL@COMMIT'"
    ), run.stderr
    # The extra the message names is one pyproject declares.
    assert extra in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def test_the_docs_install_the_extras_from_a_checkout_or_a_git_url():
    # `pip install 'dralint[lsp]'` finds nothing on PyPI: every such command names a checkout or a URL.
    docs = ["README.md", "docs/editors.md", "docs/webhook.md", "editors/vscode/README.md", "editors/vscode/package.json"]
    for name in docs:
        text = (ROOT / name).read_text()
        commands = re.findall(r"pip install [^`\n)]*?dralint\[\w+\][^`\n]*", text)
        # ... or is said to work once the package is published.
        assert all(" @ " in c or "once" in text[max(0, text.find(c) - 80):text.find(c)].lower() for c in commands), (name, commands)
    assert "pip install -e '.[lsp]'" in (ROOT / "docs/editors.md").read_text()
    assert "pip install -e '.[webhook]'" in (ROOT / "docs/webhook.md").read_text()


def test_a_checkout_and_an_editable_install_import_the_top_level_rules_folder(tmp_path):
    """No link: src/dralint/rules/__init__.py points the package at rules/, which is what the editable
    install's path entry (src/) reaches; the wheel leaves that file out and carries rules/ itself."""
    assert not (ROOT / "src" / "dralint" / "rules").is_symlink()
    (built,) = hatchling_wheel.WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["editable"])
    with zipfile.ZipFile(built) as archive:
        (pth,) = [name for name in archive.namelist() if name.endswith(".pth")]
        entries = archive.read(pth).decode().split()
    assert entries == [str(ROOT / "src")]
    shown = "import sys; sys.path[:0] = sys.argv[1:]; import dralint.rules as r, dralint.rules.taints as t; print(r.__path__, t.__file__)"
    out = subprocess.run([sys.executable, "-c", shown, *entries], capture_output=True, text=True, check=True).stdout
    assert out == f"{[str(ROOT / 'rules')]} {ROOT / 'rules' / 'taints.py'}\n"


def test_the_wheel_carries_the_rules_folder_not_the_checkout_pointer(wheel):
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("dralint/rules/__init__.py") == (ROOT / "rules" / "__init__.py").read_bytes()
        assert archive.read("dralint/rules/taints.py") == (ROOT / "rules" / "taints.py").read_bytes()
