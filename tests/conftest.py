"""Shared test helpers. The tests run this checkout: `pip install -e '.[test]'`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
SHARED = ROOT.parent / "shared"


def _fail_unless_this_checkout() -> None:
    """A copy of dralint installed from elsewhere would make every test test that copy instead."""
    import dralint

    here = Path(dralint.__file__).resolve()
    if not here.is_relative_to(ROOT / "src"):
        pytest.exit(
            f"dralint is imported from {here}, not from this checkout ({ROOT}); install it in editable mode: pip install -e '.[test]'",
            returncode=2,
        )


_fail_unless_this_checkout()


def dralint_exe() -> list[str]:
    # The console script installed next to this interpreter is what users run; with the
    # editable install it runs this checkout, which the check above makes sure of.
    script = Path(sys.executable).parent / "dralint"
    return [str(script)] if script.exists() else [sys.executable, "-m", "dralint"]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict:
        return json.loads(self.stdout)

    @property
    def problems(self) -> list[dict]:
        return self.json["problems"]


def run_dralint(*args: str, input: str | bytes | None = None, cwd: str | Path | None = None, env: dict | None = None, timeout: float = 60) -> Run:
    full_env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "DRALINT_CACHE_DIR")}
    # Each run judges afresh unless a test asks for the verdict cache.
    full_env["DRALINT_NO_CACHE"] = "1"
    full_env.update(env or {})
    full_env = {k: v for k, v in full_env.items() if v is not None}
    proc = subprocess.run(
        [*dralint_exe(), *args],
        input=input.encode() if isinstance(input, str) else input,
        capture_output=True,
        cwd=cwd or ROOT,
        env=full_env,
        timeout=timeout,
    )
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def lint_json(*args: str, **kw) -> Run:
    """`dralint --format json --no-config ARGS`; asserts the run produced a JSON report."""
    run = run_dralint("--format", "json", "--no-config", *args, **kw)
    assert run.code in (0, 1), f"exit {run.code}: {run.stderr}"
    return run


def brief(problems: list[dict]) -> list[tuple]:
    """(rule, path, line, column) of each problem: the shape most assertions compare."""
    return [(p["rule"], p["path"], p["line"], p["column"]) for p in problems]


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED
