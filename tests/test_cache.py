"""The CEL verdict cache: a second run over the same selectors gives the same problems without loading CEL."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, lint_json


def _imports(args, env):
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dralint", "--no-config", "--format", "json", *args],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=60,
    )
    return proc.stdout, proc.stderr


def test_second_run_reuses_verdicts_without_importing_cel(tmp_path):
    import os

    target = str(ROOT / "examples" / "mistakes.yaml")
    env = {**os.environ, "DRALINT_CACHE_DIR": str(tmp_path)}
    env.pop("DRALINT_NO_CACHE", None)
    first_out, first_imports = _imports([target], env)
    assert "cel_expr_python" in first_imports
    assert list(tmp_path.glob("cel-selectors-*.json"))
    second_out, second_imports = _imports([target], env)
    assert "cel_expr_python" not in second_imports
    assert second_out == first_out
    assert '"DRA401"' in second_out


def test_no_cache_leaves_nothing_behind(tmp_path):
    run = lint_json(str(ROOT / "examples" / "deviceclass.yaml"), env={"DRALINT_CACHE_DIR": str(tmp_path)})
    assert run.code == 0
    assert list(tmp_path.iterdir()) == []
