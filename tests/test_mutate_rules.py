"""tools/mutate_rules.py: the mutants it makes of the rule modules and how it classifies them.

Running the mutants is CI's job (.ci/run); here, that the careless edits issue 22
names are among them, that the limit comparisons are recognised, and that every
mutant is valid Python that differs from the original exactly where it says.
"""

from __future__ import annotations

import ast
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import mutate_rules  # noqa: E402

RULES = ROOT / "rules"


def _line_of(file: str, text: str) -> int:
    lines = (RULES / file).read_text().splitlines()
    found = [n for n, line in enumerate(lines, start=1) if text in line]
    assert len(found) == 1, (file, text, found)
    return found[0]


@pytest.mark.parametrize(
    "file, text, what, limit",
    [
        ("constraints.py", "if len(seq) > DEVICE_CONSTRAINTS_MAX:", "> -> >=", True),  # DRA501
        ("taints.py", "if len(seq) > TAINTS_MAX:", "> -> >=", True),  # DRA573
        ("constraints.py", "        if consumable:", "not inserted", False),  # DRA506's gate-on branch
        ("metadata.py", "if total > ANNOTATIONS_MAX_TOTAL:", "> -> >=", True),  # DRA207
        ("requests.py", "count <= 0", "<= -> <", True),  # a literal DRA314 documents
    ],
)
def test_the_careless_edits_are_mutants(file, text, what, limit):
    line = _line_of(file, text)
    mutants = [m for m in mutate_rules.mutants_of(RULES / file) if m.line == line and m.what == what]
    assert len(mutants) == 1
    assert mutants[0].limit is limit
    assert mutants[0].kind == ("condition" if what.startswith("not ") else "comparison")


def test_a_comparison_against_an_undocumented_value_is_no_limit():
    # DRA506 and DRA507: `doc.release_tuple >= (1, 34)` compares with a release, not a documented limit.
    flips = [m for m in mutate_rules.mutants_of(RULES / "constraints.py") if m.what == ">= -> >"]
    assert len(flips) == 2 and not any(m.limit for m in flips)


@pytest.mark.parametrize("name", ["constraints.py", "taints.py"])
def test_every_mutant_is_python_and_changes_only_its_span(name):
    for file in [RULES / name]:
        original = file.read_bytes()
        for mutant in mutate_rules.mutants_of(file):
            mutated = original[: mutant.start] + mutant.replacement + original[mutant.end :]
            assert mutated != original, mutant.label()
            ast.parse(mutated)  # raises on a mutant that is not Python


def test_the_known_equivalent_mutant_is_found_and_no_other():
    mutants = mutate_rules.mutants_of(RULES / "requests.py")
    line = _line_of("requests.py", "count <= 0")
    assert [m.what for m in mutants if mutate_rules.equivalent(m)] == ["<= -> <"]
    assert [m.line for m in mutants if mutate_rules.equivalent(m)] == [line]


def test_the_equivalent_mutant_of_the_opaque_size_hint_is_found_and_no_other():
    mutants = mutate_rules.mutants_of(RULES / "config.py")
    line = _line_of("config.py", "size <= OPAQUE_PARAMETERS_MAX * 1.01")
    assert [(m.line, m.what) for m in mutants if mutate_rules.equivalent(m)] == [(line, "<= -> <")]


def test_a_mutant_of_the_same_size_is_never_run_from_the_bytecode_of_the_code_before_it(tmp_path):
    """The conftest compiles the checkout, and bytecode is taken as current for a source of the same size and
    modification second: `_write` removes the module's, so the tests import the bytes just written."""
    import py_compile  # noqa: PLC0415
    import subprocess  # noqa: PLC0415

    module = tmp_path / "limits.py"
    module.write_text("LIMIT = 16\n")
    py_compile.compile(str(module), cfile=str(tmp_path / "__pycache__" / f"limits.{sys.implementation.cache_tag}.pyc"))
    mutate_rules._write(module, b"LIMIT = 17\n")
    stat = module.stat()
    # Even with the recorded second and size back on the new bytes, nothing stale is left to load.
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns // 10**9 * 10**9))
    assert not list((tmp_path / "__pycache__").glob("limits.*.pyc"))
    run = subprocess.run([sys.executable, "-c", "import limits; print(limits.LIMIT)"], cwd=tmp_path, capture_output=True, text=True)
    assert run.stdout.strip() == "17"
