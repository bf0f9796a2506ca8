"""The CEL verdict cache trusts nothing it did not seal: a tampered entry is judged again (issue 9 item 14)."""

from __future__ import annotations

import json
import stat

import pytest

from dralint.cache import VerdictCache

from conftest import lint_json

SELECTORS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: good.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "good.example.com"
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: bad.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == 1
"""
BAD = ("DRA403", "spec.selectors[0].cel.expression", 17, 33)


def _cel_problems(target, cache) -> list[tuple]:
    run = lint_json("--no-cache", str(target), env={"DRALINT_CACHE_DIR": str(cache), "DRALINT_NO_CACHE": None})
    return [(p["rule"], p["path"], p["line"], p["column"]) for p in json.loads(run.stdout)["problems"] if p["rule"].startswith("DRA40")]


def _entries(cache) -> tuple:
    (path,) = cache.glob("cel-selectors-*.json")
    data = json.loads(path.read_text())
    # The good expression has no issues; the bad one has one.
    good = next(k for k, v in data.items() if "overload" not in json.dumps(v))
    bad = next(k for k, v in data.items() if "overload" in json.dumps(v))
    return path, data, good, bad


@pytest.fixture
def primed(tmp_path):
    target = tmp_path / "classes.yaml"
    target.write_text(SELECTORS)
    cache = tmp_path / "cache"
    assert _cel_problems(target, cache) == [BAD]
    return target, cache


def test_entry_copied_from_a_passing_expression_is_ignored(primed):
    target, cache = primed
    path, data, good, bad = _entries(cache)
    data[bad] = data[good]  # the bad expression's verdict replaced by "no issues"
    path.write_text(json.dumps(data))
    assert _cel_problems(target, cache) == [BAD]


def test_verdict_edited_in_place_is_ignored(primed):
    target, cache = primed
    path, data, _, bad = _entries(cache)
    entry = data[bad]
    data[bad] = [[], entry[1]] if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], str) else []
    path.write_text(json.dumps(data))
    assert _cel_problems(target, cache) == [BAD]


def test_cache_file_from_elsewhere_without_its_key_verifies_nothing(primed):
    target, cache = primed
    path, data, good, bad = _entries(cache)
    data[bad] = data[good]
    path.write_text(json.dumps(data))
    (cache / "key").unlink()  # as when only the cache file was copied in
    assert _cel_problems(target, cache) == [BAD]
    assert stat.S_IMODE((cache / "key").stat().st_mode) == 0o600


def test_sealed_entries_are_used_and_foreign_ones_are_not(tmp_path, monkeypatch):
    monkeypatch.setenv("DRALINT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DRALINT_NO_CACHE", raising=False)
    first = VerdictCache("t", "fingerprint-1")
    key = first.key("1.35", "False", "device.driver == 1")
    first.put(key, [["type", "bad", 0, 1]])
    first.save()
    assert VerdictCache("t", "fingerprint-1").get(key) == [["type", "bad", 0, 1]]
    # Same file, sealed for other checking code: not valid here.
    (path,) = tmp_path.glob("t-*.json")
    other = VerdictCache("t", "fingerprint-2")
    other._path = str(path)
    assert other.get(key) is None
    # Garbage in the file is no entry at all.
    path.write_text(json.dumps({key: "[]", "x": [None, None]}))
    assert VerdictCache("t", "fingerprint-1").get(key) is None
