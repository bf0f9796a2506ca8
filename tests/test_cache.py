"""The CEL verdict cache: a second run over the same selectors gives the same problems without loading CEL."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, lint_json


def _imports(args, env):
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dralint", "--no-config", "--no-cache", "--format", "json", *args],
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


def test_a_cache_that_is_not_a_small_regular_file_is_ignored_with_a_note(tmp_path):
    """A FIFO (blocked every run), a link to /dev/zero (filled memory), a huge file (slow to parse), in
    the cache's place or the key's: the run judges afresh, says so, and replaces them when it saves."""
    import os

    target = str(ROOT / "examples" / "mistakes.yaml")
    env = {"DRALINT_CACHE_DIR": str(tmp_path), "DRALINT_NO_CACHE": None}
    expected = lint_json("--no-cache", target, env=env)  # the CEL verdict cache, not the result cache
    assert '"DRA401"' in expected.stdout and expected.stderr == ""
    [cache] = tmp_path.glob("cel-selectors-*.json")
    key = tmp_path / "key"
    for victim in (cache, key):
        for make, why in (
            (os.mkfifo, "not a regular file"),
            (lambda p: os.symlink("/dev/zero", p), "not a regular file"),
            (lambda p: os.truncate(open(p, "wb").name, 64 * 1024 * 1024), "larger than"),
        ):
            victim.unlink()
            make(str(victim))
            run = lint_json("--no-cache", target, env=env, timeout=30)
            assert run.stdout == expected.stdout
            assert run.stderr.startswith(f"dralint: note: verdict cache {victim} ignored: {why}"), run.stderr
            assert victim.is_file() and not victim.is_symlink() and victim.stat().st_size < 1024 * 1024
    again = lint_json("--no-cache", target, env=env)
    assert again.stdout == expected.stdout and again.stderr == ""
