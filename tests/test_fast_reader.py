"""The fast reader (load/fast_reader.py, rapidyaml) reads every document exactly as yaml_reader does:
the same data, problems, empty documents, positions and scalar styles, document by document, over every
fixture under tests/cases, the shared real-world corpus and the hard cases below."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SHARED

from dralint import runtime
from dralint.load import fast_reader, load

ryml = pytest.importorskip("ryml")

ROOT = Path(__file__).resolve().parent
CORPUS = SHARED / "corpus" / "real-world"

HARD = {
    "yaml 1.1 scalars": "a: yes\nb: 0755\nc: 1_000\nd: ~\ne: Null\nf: 0x1F\ng: .inf\nh: 1:20\ni: 2.0\nj: +5\nk: .5\nl: NaN\nm: 1e400\n"
                        "n: 123456789012345678901234\no: -0\np: On\nq: y\n",
    "quoted look-alikes": "a: 'yes'\nb: \"0755\"\nc: \"\"\nd: ''\ne: '1'\nf: \"true\"\n",
    "keys": "1: a\ntrue: b\n'2': c\n? x\n: d\n\"\": e\n",
    "anchors and merges": "base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\nt: !!str 3\nu: !!int '4'\n",
    "repeated keys": "apiVersion: v1\nkind: A\nkind: B\nmetadata: {name: a, name: b}\n",
    "documents": "# c\n---\na: 1\n---\n---\n# only a comment\n---\nb: 2\n...\n---\nc: 3\n",
    "marker values": "--- {a: 1}\n--- |\n  text\n---\n- 1\n--- ~\n",
    "syntax error between plain": "a: 1\n---\nb: [1, 2\n---\nc: 3\n---\nd: \"x\n---\ne: 5\n",
    "error at the end": "a: 1\n---\nb: c: d\n",
    "tabs": "a:\n\tb: 1\n---\nc: 'x\ty'\n",
    "deep": "a: " + "[" * 70 + "]" * 70 + "\n---\nb: " + "[" * 120 + "]" * 120 + "\n",
    "long key": "k" * 1100 + ": 1\n---\nv: " + "x" * 2000 + "\n",
    "block scalars": "a: |\n  one\n  two\n\nb: >-\n  folded\n  text\n\nc: |+\n  kept\n\n\nd: plain\n  continued\n",
    "escapes": "a: \"\\x01\"\nb: \"\\u00e9\\t\\\"q\\\" \\\\ \\n\"\nc: 'it''s'\nd: \"\\u2028\"\n",
    "crlf": "a: 1\r\nb: [x, y]\r\n",
    "kind List": "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p}}\n- 3\n",
    "not a mapping": "- a\n---\nplain text\n---\n\"q\"\n",
    "directive": "%YAML 1.1\n---\na: 1\n",
    "comments and blanks": "\n\n# a\n\na: 1 # c\n\n# tail\n",
    "flow and quotes": "a: {b: [1, 'two', \"three\"], c: {d: e}}\nf: [yes, no]\n",
    "colon and hash in text": "a: http://x:80/#f\nb: 'a: b'\nc: x #not-a-comment? no\n",
}


def _snapshot(source: str, data: bytes, fast: bool) -> list:
    """Everything a load gives, with every position table read whole (so the replays run too)."""
    fast_reader._STATE["read"] = fast_reader.WARM_BYTES if fast else 0
    saved = fast_reader.WARM_BYTES
    fast_reader.WARM_BYTES = 0 if fast else 1 << 62
    try:
        with runtime.enabled():
            result = load(source, data, positioned=frozenset({"deviceClassName", "resourceClaimName"}))
    finally:
        fast_reader.WARM_BYTES = saved
    docs = [(d.index, d.list_item, repr(d.data), sorted(d.positions.items(), key=repr), sorted(d.scalar_styles.items(), key=repr))
            for d in result.documents]
    problems = [(p.rule, p.message, p.document, p.path, tuple(p.span)) for p in [*result.problems, *result.late_problems]]
    return [docs, problems, result.empty]


def _same(source: str, data: bytes) -> None:
    assert _snapshot(source, data, True) == _snapshot(source, data, False), source


def _files() -> list[Path]:
    files = sorted(p for p in (ROOT / "cases").rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    if CORPUS.is_dir():
        files += sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    return files


@pytest.mark.parametrize("name", sorted(HARD))
def test_hard_cases_read_alike(name: str) -> None:
    _same(f"{name}.yaml", HARD[name].encode())


def test_fixtures_and_corpus_read_alike() -> None:
    files = _files()
    assert len(files) > 150
    for path in files:
        _same(str(path), path.read_bytes())


def test_corpus_read_alike() -> None:
    if not CORPUS.is_dir():
        pytest.skip("the real-world corpus (../shared/corpus/real-world) is not present")
    # each corpus document alone, as the bench sets cut them, and 50 of them in one file
    import sys

    sys.path.insert(0, str(ROOT.parent / "bench"))
    from corpus_sets import documents

    docs = [header + body for header, body in documents(CORPUS)]
    for i, text in enumerate(docs):
        _same(f"doc-{i}.yaml", text.encode())
    for start in range(0, len(docs), 50):
        _same(f"file-{start}.yaml", "---\n".join(docs[start:start + 50]).encode())


def test_plain_documents_take_the_fast_path() -> None:
    """The comparison above compares two readers: plain documents are read by rapidyaml, the others are not."""
    assert fast_reader.available()
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: 'v'\n  m: \"x1\"\n  c: 3\n"
    assert fast_reader._plain(text, 0, len(text), frozenset()) == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v", "m": "x1", "c": 3}}
    for other in ("a: yes\n", "a: &x 1\nb: *x\n", "a: 1\na: 2\n", "a: !!str 1\n", "a: '1'\nb: 0755\n", "a: [1, 2\n"):
        assert fast_reader._plain(other, 0, len(other), frozenset()) is None, other
    assert fast_reader._plain(text, 0, len(text), frozenset({"kind"})) is None
