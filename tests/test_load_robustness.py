"""Hostile input to the loader and the sources (issue 9): each reproducer ends in bounded time and
memory with positioned problems, and the run goes on.

Hang-type defects run under a watchdog (`bounded`): before their fixes these inputs took minutes
(or gigabytes); the limits are ten times what the fixed code needs on a loaded 2-core machine.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import dralint.pipeline.load.backend as backend_mod
from dralint.lint import LintOptions, lint
from dralint.model import Span
from dralint.pipeline import sources
from dralint.pipeline.load import MAX_PROBLEMS_PER_DOCUMENT, MAX_PROBLEMS_PER_FILE, load, position_table
from dralint.pipeline.releases import declared_release
from dralint.pipeline.sources import Source

from conftest import CASES

HERE = CASES / "load_robustness"


@contextlib.contextmanager
def bounded(seconds: float):
    """Fail (instead of hanging the suite) when the block takes longer than `seconds`."""
    def expired(signum, frame):
        raise TimeoutError(f"did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def where(result) -> list[tuple[str, int, int, int]]:
    return [(p.rule, p.document, p.span.line, p.span.column) for p in result.problems]


def lint_bytes(*named: tuple[str, bytes]):
    return lint([Source(name, data) for name, data in named], LintOptions(plugins=False))


# --------------------------------------------------------------------------- item 3: CRLF release comment


def test_release_comment_after_many_crlf_comment_lines_is_found_quickly():
    # The regex matched each CRLF comment line two ways: 2^40 tries here. It runs in C, where no
    # signal interrupts it, so a child process with a timeout is the watchdog.
    code = ("import sys; from dralint.pipeline.releases import declared_release; "
            "print(declared_release(open(sys.argv[1], 'rb').read()), declared_release(open(sys.argv[2], 'rb').read()))")
    proc = subprocess.run([sys.executable, "-c", code, str(HERE / "crlf_release.yaml"),
                           str(HERE / "crlf_no_release.yaml")], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "('1.30', 41) None"


def test_crlf_file_with_release_comment_is_judged_at_that_release():
    result = lint_bytes(("r.yaml", (HERE / "crlf_release.yaml").read_bytes()))
    # v1alpha2 ResourceClass is served (disabled by default) by 1.30, the release the comment names
    assert [(p.rule, p.span.line, p.span.column) for p in result.problems] == [("DRA011", 42, 13)]
    assert result.checked == 1
    assert declared_release(b"# dralint: kubernetes-version=1.31\r\n") == ("1.31", 1)


# --------------------------------------------------------------------------- item 4: JSON streams


def test_json_stream_of_many_documents_is_linear():
    data = b'{"a":1}\n' * 12000  # 48 s and 2.5 GB for 8,000 before: a line table per document
    with bounded(20):
        result = load("j.json", data)
    assert len(result.documents) == 12000 and result.problems == []
    last = result.documents[-1]
    assert last.index == 11999
    assert last.positions[("a",)].value == Span(12000, 6, 12000, 7)


# --------------------------------------------------------------------------- item 5: resuming after errors


def _count_parser_input(monkeypatch) -> list[int]:
    """Count the characters the YAML parser is given, as a string or through reads."""
    given = [0]
    b = backend_mod.backend(False)  # the parser load() uses by default
    make = b.make_parser

    class Counting:
        def __init__(self, stream):
            self.stream = stream
            self.name = "<counted>"

        def read(self, size=-1):
            out = self.stream.read(size)
            given[0] += len(out)
            return out

    def counted(source):
        if isinstance(source, str):
            given[0] += len(source)
            return make(source)
        return make(Counting(source))

    monkeypatch.setattr(b, "make_parser", counted)
    return given


def test_resuming_after_syntax_errors_reads_the_text_about_once(monkeypatch):
    given = _count_parser_input(monkeypatch)
    data = "a: [\n---\n" * 3000  # 1.8 MB of this took 176 s: each resume re-read the rest of the file
    result = load("s.yaml", data.encode(), pure_python=False)
    assert result.documents == []
    assert len(result.problems) == MAX_PROBLEMS_PER_FILE + 1
    assert where(result)[:2] == [("DRA001", 0, 2, 1), ("DRA001", 1, 4, 1)]
    # once for the first parse, and a few lines of look-ahead per resume
    assert given[0] < 3 * len(data), given[0]


def test_resumed_positions_count_lines_as_editors_do():
    result = load("crlf_resync.yaml", (HERE / "crlf_resync.yaml").read_bytes())
    assert [d.data for d in result.documents] == [{"k": "v"}]
    assert where(result) == [("DRA001", 1, 4, 1), ("DRA001", 2, 6, 5)]


# --------------------------------------------------------------------------- item 6: huge integers


def test_huge_integer_in_json_is_a_positioned_problem_and_the_run_goes_on():
    good = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n"
    result = lint_bytes(("huge.json", (HERE / "huge_number.json").read_bytes()), ("ok.yaml", good))
    assert result.files == 2 and result.documents == 2
    (problem,) = [p for p in result.problems if p.source == "huge.json"]
    assert (problem.rule, problem.span.line, problem.span.column) == ("DRA001", 4, 17)
    assert problem.span.end_column == 17 + 5000
    assert "beyond the range of a 64-bit float" in problem.message


@pytest.mark.parametrize("pure", [False, True])
def test_huge_integer_in_yaml_stays_text_as_go_yaml_keeps_it(pure):
    result = load("huge.yaml", (HERE / "huge_number.yaml").read_bytes(), pure_python=pure)
    (doc,) = result.documents
    assert doc.data["count"] == "9" * 5000  # strconv.ParseFloat fails, go-yaml keeps the string
    assert where(result) == [("DRA001", 0, 4, 9)]
    assert "is tagged !!int but is not an integer" in result.problems[0].message
    assert doc.positions[("count",)].value == Span(3, 8, 3, 5008)


# --------------------------------------------------------------------------- items 9, 10: sources


def test_fifo_is_never_opened_for_reading(tmp_path):
    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    folder = tmp_path / "dir"
    folder.mkdir()
    os.mkfifo(folder / "q.yaml")
    (folder / "r.yaml").write_bytes(b"a: 1\n")
    with bounded(10):
        found = list(sources.collect([str(fifo), str(folder)]))
    assert [(Path(s.name).name, s.data, s.error) for s in found] == [
        ("p.yaml", None, "not a regular file (a FIFO); only files are read"),
        ("q.yaml", None, "not a regular file (a FIFO); only files are read"),
        ("r.yaml", b"a: 1\n", None),
    ]
    result = lint(found, LintOptions(plugins=False))
    assert [(p.rule, Path(p.source).name, p.span.line, p.span.column) for p in result.problems] == [
        ("DRA006", "q.yaml", 1, 1), ("DRA006", "p.yaml", 1, 1)]  # dir/q.yaml sorts before p.yaml


def test_unlistable_folder_is_a_problem(tmp_path, monkeypatch):
    (tmp_path / "a.yaml").write_bytes(b"a: 1\n")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "b.yaml").write_bytes(b"b: 1\n")
    real_scandir = os.scandir

    def scandir(path="."):
        # what listing a folder without read permission does (the suite may run as root, which may list it)
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = list(sources.collect([str(tmp_path)]))
    assert [(Path(s.name).name, s.error) for s in found] == [
        ("a.yaml", None), ("locked", "the folder cannot be listed (Permission denied)")]
    result = lint(found, LintOptions(plugins=False))
    assert [(p.rule, p.message) for p in result.problems] == [
        ("DRA006", f"cannot read {locked}: the folder cannot be listed (Permission denied)")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists any folder")
def test_unreadable_folder_for_real(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "b.yaml").write_bytes(b"b: 1\n")
    locked.chmod(0)
    try:
        found = list(sources.collect([str(tmp_path)]))
    finally:
        locked.chmod(0o755)
    assert [(Path(s.name).name, s.data) for s in found] == [("locked", None)]


def test_files_are_read_whole_with_their_own_size(tmp_path, monkeypatch):
    small = tmp_path / "s.yaml"
    small.write_bytes(b"x" * 1000)
    assert sources._read(str(small)).data == b"x" * 1000
    # files that report no size (/proc) are still read whole
    proc = sources._read("/proc/self/status")
    assert proc.error is None and b"Name:" in proc.data
    # the cap: one byte more than allowed, so that the loader can tell
    monkeypatch.setattr(sources, "MAX_BYTES", 100)
    assert sources._read(str(small)).data == b"x" * 101


def test_short_reads_are_read_on_to_the_end_or_the_cap(tmp_path, monkeypatch):
    # A read may return less than asked (a FUSE or network file system): the file is still read whole.
    data = bytes(range(256)) * 4
    (tmp_path / "f.yaml").write_bytes(data)
    real_read = os.read
    asked: list[int] = []

    def short_read(fd, n):
        asked.append(n)
        return real_read(fd, min(n, 7))

    monkeypatch.setattr(sources.os, "read", short_read)
    monkeypatch.setattr(sources, "READ_CHUNK", 16)
    assert sources._read(str(tmp_path / "f.yaml")).data == data
    assert asked[0] == len(data) + 1 and max(asked[1:]) == 16
    monkeypatch.setattr(sources, "MAX_BYTES", 100)
    assert sources._read(str(tmp_path / "f.yaml")).data == data[:101]


# --------------------------------------------------------------------------- item 11: problem caps


def test_problems_are_capped_per_document_with_a_count_of_the_rest():
    data = "m:\n" + "  k: 1\n" * 5000
    result = load("dups.yaml", data.encode())
    assert len(result.problems) == MAX_PROBLEMS_PER_DOCUMENT + 1
    assert result.problems[0].message == "duplicate key 'k' (first defined at line 2)"
    assert (result.problems[0].span.line, result.problems[-2].span.line) == (3, 102)
    last = result.problems[-1]
    assert (last.rule, last.document, last.span.line, last.span.column) == ("DRA005", 0, 103, 3)
    assert last.message.startswith(f"{5000 - 1 - MAX_PROBLEMS_PER_DOCUMENT} more problems in this document")


def test_problems_are_capped_per_file():
    data = "a: [\n---\n" * 1500
    result = load("many.yaml", data.encode())
    assert len(result.problems) == MAX_PROBLEMS_PER_FILE + 1
    last = result.problems[-1]
    assert (last.rule, last.document, last.span.line) == ("DRA005", MAX_PROBLEMS_PER_FILE, 2 * MAX_PROBLEMS_PER_FILE + 2)
    assert last.message.startswith("500 more problems in this file were not listed")


# --------------------------------------------------------------------------- item 13: positions


@pytest.mark.parametrize(("name", "expected"), [
    ("eof_in_key.yaml", [("DRA001", 0, 2, 8)]),  # was 3:1, a line the file does not have
    ("cr_only.yaml", [("DRA001", 0, 1, 36)]),  # a lone CR does not end a line
    ("line_separator.yaml", [("DRA001", 0, 2, 5)]),  # nor does U+2028
])
def test_positions_are_in_the_editors_convention_and_inside_the_file(name, expected):
    data = (HERE / name).read_bytes()
    result = load(name, data, pure_python=False)
    assert where(result) == expected
    lines = data.decode().split("\n")
    for p in result.problems:
        assert 1 <= p.span.line <= len(lines) and 1 <= p.span.column <= len(lines[p.span.line - 1]) + 1


def test_lone_cr_positions_of_fields():
    result = load("cr.yaml", b"apiVersion: v1\rkind: X\rmetadata:\r  name: a\r")
    (doc,) = result.documents
    assert doc.positions[("kind",)].value == Span(1, 22, 1, 23)
    assert doc.positions[("metadata", "name")].value == Span(1, 42, 1, 43)


# --------------------------------------------------------------------------- issue 8 item 5


def test_a_position_table_that_cannot_be_built_is_reported(monkeypatch):
    def broken(self):
        raise RuntimeError("replay bug")

    monkeypatch.setattr(position_table.Replay, "_run", broken)
    data = b"apiVersion: v1\nkind: X\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\nspec: 1\n"
    result = lint_bytes(("broken.yaml", data))
    assert [(p.rule, p.document, p.span.line, p.span.column) for p in result.problems] == [
        ("DRA103", 1, 3, 1), ("DRA901", 1, 3, 1)]  # at the document's start: its `---`
    assert "RuntimeError: replay bug" in result.problems[1].message


def test_garbage_collector_is_only_off_during_a_load():
    assert gc.isenabled()
    load("x.yaml", b"a: 1\n")
    assert gc.isenabled()
    gc.disable()
    try:
        load("x.yaml", b"a: 1\n")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_load_result_is_freed_without_the_cyclic_collector():
    # A lazy position table lives as long as its document: nothing in it may point back at the
    # result, or every load would be garbage that only a full collection frees.
    data = (CASES / "load" / "claim.yaml").read_bytes() + b"---\nkind: List\napiVersion: v1\nitems: [{a: 1}]\n"
    # What exists already (garbage of earlier tests too) is frozen: the collection below looks at what
    # the load made, not at the whole heap of the process.
    gc.disable()
    gc.freeze()
    try:
        result = load("claim.yaml", data)
        assert len(result.documents) == 2
        for doc in result.documents:
            doc.positions.get(())
        del result, doc
        assert gc.collect() == 0
    finally:
        gc.unfreeze()
        gc.enable()


def test_json_positions_with_lone_cr_are_not_converted_twice():
    # JSON lets \r be whitespace; its positions are counted in the editors' convention from the start
    result = load("x.json", b'{"a": 1,\r"a": 2,\r"b": [\r 1,\r x]}')
    assert where(result) == [("DRA002", 0, 1, 10), ("DRA001", 0, 1, 30)]


def test_list_item_problem_in_a_lone_cr_file_is_converted_once():
    result = load("l.yaml", b"apiVersion: v1\rkind: List\ritems:\r- 1\r- {a: 1}\n")
    assert where(result) == [("DRA003", 0, 1, 36)]
    assert [d.list_item for d in result.documents] == [1]


def test_a_json_stream_holds_no_position_table_it_was_not_asked_for():
    # Each document's table was built while reading and held until the file was done: 180-550 bytes per
    # byte of JSON (2.3 GB for a 12.7 MB stream). Now a document is parsed again when its positions are asked.
    import tracemalloc

    doc = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": ' + "[" * 40 + ",".join(["0"] * 10000) + "]" * 40 + "}\n"
    text = (doc * 4).encode()  # 80 KB
    tracemalloc.start()
    try:
        loaded = load("stream.json", text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [d.index for d in loaded.documents] == list(range(4)) and loaded.problems == []
    assert peak < 40 * len(text), peak  # the tables of 4 documents held at once took ~320 times the text
    # Asked for, a document's positions are those of its own text.
    last = loaded.documents[3]
    assert last.positions[("data",)].value == Span(4, doc.index("[") + 1, 4, doc.rindex("]") + 2)
    assert last.positions[("metadata", "name")].key == Span(4, doc.index('"name"') + 1, 4, doc.index('"name"') + 7)
    assert last.scalar_styles[("kind",)] == '"'
