"""Every fixture under tests/cases/ that carries `# expect:` comments, linted in process.

The problems of each release block must be exactly the expected ones (for the
codes the fixture covers): none missing, none unexpected. Grammar:
tests/cases/README.md; `python tools/update_expectations.py FILE` rewrites
the expectations from a real run for review in `git diff`.
"""

from __future__ import annotations

import pytest

from conftest import CASES, ROOT
from engine import lint_fixture
from expectations import compare, covered, read_fixture

FIXTURE_SUFFIXES = (".yaml", ".yml")


def _blocks():
    for path in sorted(p for p in CASES.rglob("*") if p.suffix in FIXTURE_SUFFIXES):
        fixture = read_fixture(path)
        for block in fixture.blocks:
            name = path.relative_to(CASES).as_posix()
            yield pytest.param(fixture, block, id=f"{name}@{block.release or fixture.file_release or 'default'}")


BLOCKS = list(_blocks())


@pytest.mark.parametrize("fixture, block", BLOCKS)
def test_case(fixture, block):
    problems = lint_fixture(fixture.path, release=block.release, select=fixture.select, ignore=fixture.ignore)
    differences = compare(block.expectations, covered(fixture, problems))
    where = fixture.path.relative_to(ROOT)
    assert not differences, (
        f"{where} at {block.release or fixture.file_release or 'the default release'}:\n  "
        + "\n  ".join(differences)
        + f"\n(review, then: python tools/update_expectations.py {where})"
    )


def test_cases_are_found():
    # A grammar change that made every fixture look expectation-free would pass silently otherwise.
    assert len(BLOCKS) >= 40
