"""Third-party rules: an installed plugin package (entry points `dralint.rules`) and `--rules-dir`.

The plugin package in tests/plugin_pkg is installed once per session with
`pip install --target` into a temporary folder that only the dralint runs of
these tests see (PYTHONPATH), so the venv and every other test stay as they
are. No step in .ci/run is needed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, brief, lint_json, run_dralint

PLUGIN_PKG = ROOT / "tests" / "plugin_pkg"

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: big
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: 8
"""


@pytest.fixture(scope="session")
def plugin_path(tmp_path_factory) -> str:
    target = tmp_path_factory.mktemp("plugin-site")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check", "--target", str(target)]
    if importlib.util.find_spec("hatchling") is not None:
        cmd.append("--no-build-isolation")  # offline when the build backend is at hand
    proc = subprocess.run([*cmd, str(PLUGIN_PKG)], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"cannot install the test plugin:\n{proc.stdout}\n{proc.stderr}")
    return str(target)


def _env(*paths: str) -> dict:
    return {"PYTHONPATH": os.pathsep.join(paths)}


def test_installed_plugin_rules_fire(plugin_path):
    run = lint_json("-", "--select", "ACME", input=CLAIM, env=_env(plugin_path))
    assert run.code == 1
    assert [(p["rule"], p["name"], p["severity"], p["path"], p["line"], p["column"]) for p in run.problems] == [
        # From the callable entry point (dralint_acme_plugin.extra:rules).
        ("ACME002", "acme-team-label", "warning", "metadata", 3, 1),
        # From the module entry point.
        ("ACME001", "acme-gpu-limit", "error", "spec.devices.requests[0].exactly.count", 12, 16),
    ]
    assert run.problems[1]["message"] == "Acme nodes hold 4 GPUs; count 8 can never be allocated"


def test_plugin_rules_are_listed_and_can_be_switched_off(plugin_path):
    run = run_dralint("rules", env=_env(plugin_path))
    assert run.code == 0
    assert "ACME001  acme-gpu-limit" in run.stdout
    # Declared releases are honoured: ACME001 applies from 1.34 on.
    assert lint_json("-", "-k", "1.33", "--select", "ACME001", input=CLAIM.replace("/v1\n", "/v1beta2\n", 1), env=_env(plugin_path)).problems == []
    # --no-plugins: not loaded, and selecting its code is an unknown rule (exit 2).
    assert not [p for p in lint_json("-", "--no-plugins", input=CLAIM, env=_env(plugin_path)).problems if p["rule"].startswith("ACME")]
    run = run_dralint("--no-config", "--no-plugins", "--select", "ACME001", "-", input=CLAIM, env=_env(plugin_path))
    assert run.code == 2
    assert "unknown rule 'ACME001'" in run.stderr


def _fake_distribution(site: Path, name: str, entry_points: str, modules: dict[str, str]) -> None:
    """A minimal installed distribution (dist-info with entry points), as pip would leave it."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    for module, text in modules.items():
        (site / f"{module}.py").write_text(textwrap.dedent(text))


@pytest.mark.parametrize(
    "module, expected",
    [
        ("raise ImportError('no module named acme_gpu_sdk')\n",
         "cannot load plugin 'broken' (dralint_broken_plugin): ImportError: no module named acme_gpu_sdk"),
        ("def rules():\n    return ['not a rule']\n", "plugin 'broken' returned 'not a rule', which is not a rule"),
    ],
)
def test_broken_plugin_is_a_usage_error(tmp_path, module, expected):
    entry = "[dralint.rules]\nbroken = dralint_broken_plugin" + (":rules" if "def rules" in module else "") + "\n"
    _fake_distribution(tmp_path, "dralint_broken_plugin", entry, {"dralint_broken_plugin": module})
    run = run_dralint("--no-config", "-", input=CLAIM, env=_env(str(tmp_path)))
    assert run.code == 2
    assert run.stdout == ""
    assert expected.split(" (")[0] in run.stderr and expected.split("): ")[-1] in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    # --no-plugins is the way out.
    assert run_dralint("--no-config", "--no-plugins", "-", input=CLAIM, env=_env(str(tmp_path))).code in (0, 1)


def test_plugin_code_clash_is_a_usage_error(tmp_path, plugin_path):
    _fake_distribution(
        tmp_path,
        "dralint_clash_plugin",
        "[dralint.rules]\nclash = dralint_clash_plugin\n",
        {"dralint_clash_plugin": """
            from dralint.api import rule

            @rule("ACME001", "other-rule")
            def other(doc, report):
                '''Another rule that wants the same code.'''
        """},
    )
    run = run_dralint("--no-config", "-", input=CLAIM, env=_env(plugin_path, str(tmp_path)))
    assert run.code == 2
    assert "rule code ACME001 is declared twice" in run.stderr


def test_rules_dir(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "_helpers.py").write_text("LIMIT = 2\n")
    (rules / "limits.py").write_text(textwrap.dedent("""
        from dralint.api import rule
        from ._helpers import LIMIT

        @rule("LOCAL001", "local-count-limit", severity="warning", kinds={"ResourceClaim"})
        def count_limit(doc, report):
            '''Local limit on device counts.'''
            for i, _ in doc.items("spec", "devices", "requests"):
                count = doc.get("spec", "devices", "requests", i, "exactly", "count", type=int)
                if count is not None and count > LIMIT:
                    report(("spec", "devices", "requests", i, "exactly", "count"), f"more than {LIMIT} devices")
    """))
    run = lint_json("--rules-dir", str(rules), "--select", "LOCAL", "-", input=CLAIM)
    assert brief(run.problems) == [("LOCAL001", "spec.devices.requests[0].exactly.count", 12, 16)]
    assert run.problems[0]["severity"] == "warning"
    listed = run_dralint("rules", "--rules-dir", str(rules), "--no-plugins")
    assert "LOCAL001" in listed.stdout


def test_broken_rules_dir_is_a_usage_error(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "bad.py").write_text("def oops(:\n")
    run = run_dralint("--no-config", "--rules-dir", str(rules), "-", input=CLAIM)
    assert run.code == 2
    assert f"cannot load rules from {rules / 'bad.py'}: SyntaxError" in run.stderr
    run = run_dralint("--no-config", "--rules-dir", str(tmp_path / "nope"), "-", input=CLAIM)
    assert run.code == 2
    assert "does not exist" in run.stderr
