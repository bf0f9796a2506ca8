"""dralint.jsondata reads the JSON files dralint ships as `json` does, without importing it at start-up."""

from __future__ import annotations

import json

import pytest

from dralint import jsondata

from conftest import ROOT


def test_every_shipped_json_file_reads_as_json_reads_it():
    files = sorted((ROOT / "schemas").rglob("*.json")) + [ROOT / "rules" / "kinds.json"]
    assert len(files) > 50
    for file in files:
        with open(file, encoding="utf-8") as f:
            expected = json.load(f)
        assert jsondata.load(str(file)) == expected, file


@pytest.mark.parametrize("text", [
    '{"a": [1, 2.5, -3e2, true, false, null, "x\\u00e9\\n"], "b": {}}', " \n\t[1]\r\n", '"s"', "12", "-0.0", "1e400", "[NaN, Infinity, -Infinity]",
    '{"a": 1, "a": 2}', '["\\ud800"]',
])
def test_a_json_value_reads_the_same(text):
    mine, theirs = jsondata.loads(text), json.loads(text)
    assert repr(mine) == repr(theirs) and type(mine) is type(theirs)


@pytest.mark.parametrize("text", ["", "   ", "[1] [2]", "[1,]", "{'a': 1}", "\ufeff[1]", '["a\nb"]', "[1", "tru", "[1] x", '"\\x"'])
def test_what_is_no_json_value_fails_with_json_s_own_error(text):
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as mine:
        jsondata.loads(text)
    assert (mine.value.msg, mine.value.pos) == (theirs.value.msg, theirs.value.pos)


def test_without_jsons_c_scanner_it_is_json_loads(monkeypatch):
    """An interpreter without `_json` (json's C accelerator) reads through json.loads, errors included."""
    monkeypatch.setattr(jsondata, "_scan", None)
    assert jsondata.loads(' {"a": [1, 2.5, null, "x"]} ') == {"a": [1, 2.5, None, "x"]}
    with pytest.raises(json.JSONDecodeError, match="Extra data: line 1 column 4"):
        jsondata.loads("[] []")
