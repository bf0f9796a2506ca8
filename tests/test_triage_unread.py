"""JSON that is plainly no manifest is passed over without the position-keeping reader (triage.passed_over_unread).

The shortcut must say exactly what loading and triage say, or nothing: every text here is judged both ways.
"""

from __future__ import annotations

import json
import re

import pytest

from dralint.pipeline.load import MAX_DEPTH, MAX_NODES, load
from dralint.pipeline.triage import passed_over_unread, triage

from conftest import CASES, SHARED, run_dralint


def _verdict(triaged) -> tuple:
    problems = [(p.rule, p.message, p.span.line, p.span.column) for p in triaged.problems]
    return [d.data for d in triaged.documents], problems, triaged.empty, triaged.passed_over


def _both(name: str, data: bytes) -> tuple[tuple | None, tuple]:
    quick = passed_over_unread(name, data)
    return (_verdict(quick) if quick is not None else None), _verdict(triage(name, data, load(name, data)))


LOCK = json.dumps({"name": "app", "lockfileVersion": 3, "packages": {
    f"node_modules/pkg-{i}": {"version": "1.0.0", "integrity": "sha512-x==", "dev": i % 2 == 0,
                              "dependencies": {"kind-of": "^6.0.3"}, "funding": [{"url": "https://x"}], "n": 1.5}
    for i in range(300)}}, indent=2)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


PASSED_OVER = {
    "package-lock.json": LOCK,
    "array.json": '[1, "two", {"three": [3.0, null, true, false]}]',
    "scalar.json": '"just a string"',
    "number.json": "-1234567890123456789",
    "bom.json": "\ufeff{\"a\": 1}",  # the loader drops a BOM too
    "tsconfig.json": '{"compilerOptions": {"strict": true, "paths": {"@/*": ["src/*"]}}}',
    "dup.json": '{"a": 1, "a": 2}',
    "surrogate.json": '{"s": "\\ud800 lone", "t": "\\ud83d\\ude00"}',
    "deep.json": _nested(MAX_DEPTH - 1),
    "wide.json": "[" + ",".join(["0"] * (MAX_NODES - 1)) + "]",
    "braces.yaml": '{"looks": "like JSON to the loader too"}',
    "braces-array.json": '["{{ anything }}"]',  # braces in a list are no template of a manifest
    "quoted-action.json": '{"annotation": "{{ $labels.instance }} is down"}',
}

LOADED = {  # only loading can tell: a manifest, a problem to report, a template, or not one JSON value
    "nan.json": '{"x": NaN}',
    "huge.json": '{"x": 1e999}',
    "long-int.json": '{"x": 123456789012345678901234567890}',
    "too-deep.json": _nested(MAX_DEPTH + 1),
    "too-wide.json": "[" + ",".join(["0"] * MAX_NODES) + "]",
    "metadata.json": '{"metadata": {"name": "x"}}',
    "kind.json": '{"kind": "Thing"}',
    "group.json": '{"note": "see resource.k8s.io"}',
    "stream.json": '{"a": 1}\n{"b": 2}',
    "comments.json": '{\n  // a comment\n  "a": 1\n}',
    "go-template.json": '{"image": "{{ .Values.image }}"}',
    "empty.json": "",
    "yaml.yaml": "a: 1\n",
}


@pytest.mark.parametrize("name", sorted(PASSED_OVER))
def test_plain_json_is_passed_over_as_loading_would(name):
    data = PASSED_OVER[name].encode()
    quick, full = _both(name, data)
    assert quick is not None
    assert quick == full == ([], [], 0, True)


@pytest.mark.parametrize("name", sorted(LOADED))
def test_what_only_loading_can_tell_is_loaded(name):
    quick, _ = _both(name, LOADED[name].encode())
    assert quick is None


def test_every_json_file_of_the_tests_and_the_corpus_gets_the_same_verdict_either_way():
    roots = [CASES, SHARED / "corpus" / "real-world"]
    files = sorted(p for root in roots if root.is_dir() for p in root.rglob("*.json"))
    assert files
    for path in files:
        data = path.read_bytes()
        quick, full = _both(path.name, data)
        assert quick is None or quick == full, path


def test_a_lock_file_is_passed_over_by_the_cli(tmp_path):
    (tmp_path / "package-lock.json").write_text(LOCK)
    run = run_dralint("--no-config", "--format", "json", str(tmp_path))
    assert run.code == 0
    assert json.loads(run.stdout)["summary"]["files_passed_over"] == 1


MARKS = ["kind: X", " kind: X", "{kind: X}", '{"kind": "X"}', "{'kind': x}", ',"apiVersion" :1', 'x"kind": 1',
         "akind: 1", "\"'kind\": 1", "kind-of: 1", '"kind-of": "^6"', "kind\t: 1", "kind :\n", "\tapiVersion:",
         "spec:\n  kind: A", "see resource.k8s.io", "apiVersion", "kind", "", "\fkind:", "\vkind:", "\"kind\"x:"]


# What triage._marked finds, as one pattern: the specification it is checked against.
MANIFEST_MARK = re.compile(rb"""(?m)(?:^|[\s{,])["']?(?:apiVersion|kind)["']?[ \t]*:|resource\.k8s\.io""")


def test_the_two_step_mark_matches_the_pattern():
    from dralint.pipeline.triage import _marked

    roots = [CASES, SHARED / "corpus" / "real-world"]
    texts = [m.encode() for m in MARKS] + [p.read_bytes() for root in roots if root.is_dir() for p in sorted(root.rglob("*")) if p.is_file()]
    assert len(texts) > len(MARKS)
    for data in texts:
        assert _marked(data) == bool(MANIFEST_MARK.search(data)), data[:80]


def test_json_with_more_values_than_the_loader_builds_is_never_decoded_whole(monkeypatch):
    from dralint.pipeline.load import plain_json

    def refuse(*args, **kwargs):
        raise AssertionError("decoded a text that may hold more than MAX_NODES values")

    monkeypatch.setattr(json, "loads", refuse)
    # A 16 MiB file of `{},` would be ~4 million dicts (~250 MB); the loader stops at MAX_NODES values.
    assert plain_json("objects.json", b"[" + b"{}," * MAX_NODES + b"{}]") == (False, None)
