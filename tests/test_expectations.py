"""The `# expect:` machinery itself: a wrong expectation must fail, and say how."""

from __future__ import annotations

import importlib.util

import pytest

from conftest import ROOT
from engine import lint_fixture
from expectations import ExpectationError, compare, covered, read_fixture

# tools/ is no package: load the script the way `python tools/update_expectations.py` runs it.
_spec = importlib.util.spec_from_file_location("update_expectations", ROOT / "tools" / "update_expectations.py")
_update = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_update)
rewrite = _update.rewrite

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: Bad_Name{inline}
  namespace: default
spec: {{}}
"""


def _differences(path):
    fixture = read_fixture(path)
    [block] = fixture.blocks
    return compare(block.expectations, covered(fixture, lint_fixture(path, release=block.release, select=fixture.select)))


def test_an_expectation_beside_its_problem_names_its_line(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM.format(inline='  # expect: DRA202 :9 metadata.name Invalid "lowercase"') + "# expect-select: DRA2\n")
    assert _differences(path) == []


def test_a_wrong_position_fails_with_both_sides(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM.format(inline="") + "# expect-select: DRA2\n# expect-release: 1.35\n# expect: DRA202 4:8 metadata.name Invalid\n")
    assert _differences(path) == [
        "- DRA202 4:8 metadata.name Invalid   (expected, not reported)",
        "+ DRA202 4:9 metadata.name Invalid   (reported, not expected)",
    ]


def test_a_wrong_message_or_end_fails(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM.format(inline="") + '# expect-select: DRA2\n# expect: DRA202 4:9-4:10 metadata.name Invalid "no such text"\n')
    [difference] = _differences(path)
    assert difference.startswith('~ DRA202 4:9-4:10 metadata.name Invalid "no such text"   (reported as 4:17 ')


def test_an_empty_block_expects_nothing(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM.format(inline="") + "# expect-release: 1.35\n# expect: none\n")
    assert any(line.startswith("+ DRA202 4:9") for line in _differences(path))


def test_update_writes_what_the_run_reports_and_keeps_content_and_details(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM.format(inline='  # expect: DRA202 :9 metadata.name Invalid "lowercase"') + "# expect-codes: DRA2\n")
    assert rewrite(path, ["1.34", "1.35"])
    text = path.read_text()
    assert text.startswith(CLAIM.format(inline=""))
    assert text.endswith(
        '# expect-codes: DRA2\n# expect-release: 1.34\n# expect: DRA202 4:9 metadata.name Invalid "lowercase"\n'
        '# expect-release: 1.35\n# expect: DRA202 4:9 metadata.name Invalid "lowercase"\n'
    )
    fixture = read_fixture(path)
    for block in fixture.blocks:
        assert compare(block.expectations, covered(fixture, lint_fixture(path, release=block.release))) == []
    assert not rewrite(path, [])  # a second run changes nothing


@pytest.mark.parametrize(
    "comment",
    ["# expect: DRA202 metadata.name", "# expect: DRA202 x:y metadata.name", '# expect: DRA202 4:9 a "unclosed', "# expectation: DRA202"],
)
def test_a_malformed_expectation_is_refused(tmp_path, comment):
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM.format(inline="") + comment + "\n")
    with pytest.raises(ExpectationError):
        read_fixture(path)


def test_a_release_comment_and_an_expect_release_conflict(tmp_path):
    path = tmp_path / "claim.yaml"
    path.write_text("# dralint: kubernetes-version=1.33\n" + CLAIM.format(inline="") + "# expect-release: 1.35\n# expect: none\n")
    with pytest.raises(ExpectationError):
        read_fixture(path)


@pytest.mark.parametrize("body", [
    'DRA202 :9 metadata.name Invalid "must be lowercase"',
    "DRA202 3:1 - Required 'a b'",
    "DRA202 3:1 spec.x\\ y Invalid",
    "DRA202 3:1 spec.x\u00a0y Invalid",  # a no-break space is no shell separator
    "DRA202 3:1 spec.x\u2003y warning =text",
    "DRA202\t3:1  spec.devices.requests[0]\r\nInvalid   error",
])
def test_an_expectation_is_read_as_shell_words(body):
    """The quick reading of plain expectations gives shlex's words, and only shlex reads the rest."""
    import shlex

    from dralint.testing import parse_expect

    code, position, path, *rest = shlex.split(body)
    expectation = parse_expect(body, 3)
    assert (expectation.key.code, expectation.key.path or "-") == (code, path)
    assert [*expectation.contains, *([f"={expectation.equals}"] if expectation.equals else [])] == [
        w for w in rest if w not in ("Invalid", "Required", "warning", "error")]
