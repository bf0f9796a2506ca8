"""The README's example output is what `dralint examples/` prints (issue 10, item 13)."""

from __future__ import annotations

import re

from conftest import ROOT, run_dralint


def _readme_block(command: str) -> tuple[str, str]:
    readme = (ROOT / "README.md").read_text()
    match = re.search(rf"```console\n\$ {re.escape(command)}\n(.*?)```\n", readme, re.S)
    assert match, f"README.md has no console block for `{command}`"
    return match.group(1), readme


def test_the_readme_shows_what_dralint_examples_prints():
    shown, _ = _readme_block("dralint examples/")
    # As in a pipe or a CI log: no colours, no source excerpts; the summary comes last, on stderr.
    run = run_dralint("examples/", env={"NO_COLOR": "1"})
    assert run.code == 1
    printed = run.stdout + run.stderr + ("" if (run.stdout + run.stderr).endswith("\n") else "\n")
    assert shown == printed, "README.md is stale: replace its `$ dralint examples/` block with:\n" + printed


def test_help_lists_every_subcommand_and_documents_color_and_no_color():
    from dralint.cli import SUBCOMMANDS

    run = run_dralint("--help", env={"COLUMNS": "100"})
    assert run.code == 0
    help_text = " ".join(run.stdout.split())
    for command in SUBCOMMANDS[1:]:  # `lint` is the command this help is for
        assert f"dralint {command} " in help_text, command
    assert "--color {auto,always,never} colour the text report: auto (default) on a terminal unless NO_COLOR is set" in help_text
    assert "NO_COLOR (set and not empty) turns colour off unless --color always" in help_text
    usage = (ROOT / "README.md").read_text().split("## Usage", 1)[1].split("```")[1]
    assert "--color auto|always|never" in usage and "NO_COLOR" in usage
    assert all(f"dralint {command}" in usage for command in SUBCOMMANDS[1:])
