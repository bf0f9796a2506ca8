"""`dralint.testing`: plugin authors check their rules against `# expect:` fixtures as dralint does."""

from __future__ import annotations

import sys

import pytest

from dralint.testing import check_fixture

from conftest import ROOT

PLUGIN_PKG = ROOT / "tests" / "plugin_pkg"
FIXTURE = PLUGIN_PKG / "cases" / "gpu-limit.yaml"


@pytest.fixture(scope="module")
def acme():
    sys.path.insert(0, str(PLUGIN_PKG))
    try:
        import dralint_acme_plugin

        yield dralint_acme_plugin
    finally:
        sys.path.remove(str(PLUGIN_PKG))


def test_the_plugin_fixture_agrees_with_its_rules(acme):
    assert check_fixture(FIXTURE, rules=acme) == []


def test_a_wrong_expectation_is_a_difference(acme, tmp_path):
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(FIXTURE.read_text().replace("19:16", "18:16").replace("# expect: none", "# expect: ACME001 19:16 spec Invalid"))
    assert check_fixture(wrong, rules=acme) == [
        f"{wrong} at 1.34: - ACME001 18:16 spec.devices.requests[1].exactly.count   (expected, not reported)",
        f"{wrong} at 1.34: + ACME001 19:16 spec.devices.requests[1].exactly.count   (reported, not expected)",
        f"{wrong} at 1.33: - ACME001 19:16 spec Invalid   (expected, not reported)",
    ]


def test_without_the_plugin_its_problems_are_missing(tmp_path):
    assert check_fixture(FIXTURE) == [f"{FIXTURE} at 1.34: - ACME001 19:16 spec.devices.requests[1].exactly.count   (expected, not reported)"]
