"""Serial reports of tests/cases, each computed once per test process: the reference that the runs on
worker processes (test_parallel.py) and the file partials merged back (test_partial.py) must give, byte
for byte, in every format. Several tests compare against the same serial run; it is the same run, so
it is linted once."""

from __future__ import annotations

import functools
import gc
import os
from pathlib import Path

from dralint import cli
from dralint.config import Overrides, build_options
from dralint.lint import LintResult
from dralint.report import FORMATS, ReportOptions, renderer

from conftest import CASES

# What a report in every format reads besides the problems (LintOptions.keep), as the CLI keeps it.
ALL_KEPT = frozenset(("texts", "objects", "fixes"))
# The folders the ignore-paths tests lint: the first entry of IGNORE_PATHS hides a run-scope rule's problems in
# one, the second is in scope in the other and hides nothing.
IGNORE_FOLDERS = (str(CASES / "pods"), str(CASES / "core"))


def options(config: str | None = None, release: str | None = None):
    built, _ = build_options(Overrides(no_config=config is None, config=config, kubernetes_version=release))
    built.keep = ALL_KEPT
    return built


def reports(result: LintResult) -> dict[str, str]:
    shown = ReportOptions(show_source=True)
    return {fmt: renderer(fmt)(result, shown) for fmt in FORMATS}


@functools.cache
def serial(paths: tuple[str, ...], config: str | None = None, release: str | None = None) -> tuple[LintResult, dict[str, str]]:
    """The result of `dralint --jobs 1 PATHS` (cli._lint) and its report in every format. Callers only read them."""
    try:
        result = cli._lint(list(paths), options(config, release), 1)
    finally:
        gc.unfreeze()  # the serial CLI path freezes what it keeps; give the test process's heap back
    return result, reports(result)


@functools.cache
def ignore_config(base: Path) -> str:
    """A config (in a folder of `base`, the session's temporary folder) whose ignore-paths are judged over the
    files of IGNORE_FOLDERS: one entry used by a run-scope rule's problems (pods), one in scope but unused
    (core), one matching no file (not reported), and one used by a document rule's problem (core): that one
    is used where the file is checked, in a worker's chunk or a file's partial, and the run must learn it
    there. Its globs count from its own folder."""
    folder = base / "ignore-paths"
    folder.mkdir()
    cases = os.path.relpath(CASES, folder)
    config = folder / ".dralint.yaml"
    config.write_text(f"ignore-paths:\n- paths: ['{cases}/pods/**']\n  rules: [DRA712]\n- paths: ['{cases}/core/**']\n  fields: [nothing]\n"
                      f"- paths: ['none/**']\n- paths: ['{cases}/core/**']\n  rules: [DRA313]\n")
    return str(config)
