"""The real-world corpus: 353 manifests from public DRA drivers and docs (../shared/corpus/real-world).

Every file marked valid must lint with no error at its release, and every
file marked invalid with a release must get at least one error. One CLI run
per release, as users run it.
"""

from __future__ import annotations

import collections
import json
import os

import pytest

from conftest import run_dralint


def _rows(shared_dir):
    index = shared_dir / "corpus" / "real-world" / "index.json"
    if not index.is_file():
        pytest.skip("real-world corpus not present")
    rows = json.loads(index.read_text())
    # The six invalid files without a release are prototypes of APIs no release
    # served; judged at the newest release (1.37) they must still be flagged.
    for r in rows:
        if r["expected_valid"] is False and not r.get("k8s_version"):
            r["k8s_version"] = "1.37"
    return index.parent, [r for r in rows if r.get("k8s_version")]


def _errors_by_file(root, rows):
    groups = collections.defaultdict(list)
    for r in rows:
        groups[r["k8s_version"]].append(r)
    errors = collections.defaultdict(list)
    for release, rs in sorted(groups.items()):
        paths = [str(root / r["file"]) for r in rs]
        run = run_dralint("--format", "json", "--no-config", "-k", release, *paths, timeout=120)
        assert run.code in (0, 1), run.stderr
        for p in run.json["problems"]:
            if p["severity"] == "error":
                errors[os.path.realpath(p["file"])].append(f'{p["line"]}:{p["column"]} {p["rule"]} {p["path"]}: {p["message"]}')
    return errors


@pytest.fixture(scope="module")
def corpus(request):
    from conftest import SHARED

    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    root, rows = _rows(SHARED)
    return root, rows, _errors_by_file(root, rows)


def test_valid_files_have_no_error(corpus):
    root, rows, errors = corpus
    valid = [r for r in rows if r["expected_valid"] is True]
    assert len(valid) > 300
    false_positives = {r["file"]: errors[os.path.realpath(root / r["file"])] for r in valid if errors.get(os.path.realpath(root / r["file"]))}
    assert false_positives == {}


def test_invalid_files_are_caught(corpus):
    root, rows, errors = corpus
    # Go templates are passed over with a "render first" info (tests/test_repository.py).
    invalid = [r for r in rows if r["expected_valid"] is False and not r.get("templated")]
    assert len(invalid) >= 30
    missed = {r["file"]: r["notes"] for r in invalid if not errors.get(os.path.realpath(root / r["file"]))}
    assert missed == {}
