"""Shared test helpers. The tests run this checkout: `pip install -e '.[test]'`."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dralint.model import Problem
from engine import lint_paths

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
# Every lint, in process or not, judges afresh unless a test asks for the verdict cache.
os.environ["DRALINT_NO_CACHE"] = "1"

# Subprocesses are what makes the suite slow: count every one the test process starts, by test module.
_spawned: collections.Counter = collections.Counter()
_current_module = ["(collection)"]
_popen_init = subprocess.Popen.__init__


def _counting_popen_init(self, *args, **kwargs):
    _spawned[_current_module[0]] += 1
    _popen_init(self, *args, **kwargs)


subprocess.Popen.__init__ = _counting_popen_init


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _current_module[0] = item.module.__name__ if item.module else item.nodeid


def pytest_terminal_summary(terminalreporter):
    if _spawned:
        detail = ", ".join(f"{name} {count}" for name, count in _spawned.most_common())
        terminalreporter.write_line(f"subprocesses started by the tests: {sum(_spawned.values())} ({detail})")


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


@dataclass
class Corpus:
    """The real-world corpus (../shared/corpus/real-world), each file linted at its release."""

    root: Path
    rows: list[dict]  # index.json entries, each with a "release"
    problems: dict[str, list[Problem]] = field(default_factory=dict)  # real path -> its problems

    def of(self, row: dict) -> list[Problem]:
        return self.problems.get(os.path.realpath(self.root / row["file"]), [])


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    """Linted once per session, in process, one run per release (as a user runs it)."""
    index = SHARED / "corpus" / "real-world" / "index.json"
    if not index.is_file():
        pytest.skip("the real-world corpus (../shared/corpus/real-world) is not present")
    rows = json.loads(index.read_text())
    for row in rows:
        # Files without a release are prototypes of APIs no release served: judged at the newest.
        row["release"] = row.get("k8s_version") or "1.35"
    result = Corpus(index.parent, rows)
    by_release = collections.defaultdict(list)
    for row in rows:
        by_release[row["release"]].append(index.parent / row["file"])
    for release, files in sorted(by_release.items()):
        for problem in lint_paths(files, release=release).problems:
            result.problems.setdefault(os.path.realpath(problem.source), []).append(problem)
    return result
