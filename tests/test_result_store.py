"""The result cache's pack on disk (dralint.pipeline.result_store): only its index is read when it is opened, a
chunk is read by offset and checked against its digest before it is unpickled, what a run adds goes to disk as
it is made, and a pack changed in place while a run reads it is never trusted (the run is made without it)."""

from __future__ import annotations

import os
import pickle
import sys

from test_result_cache import ALL_KEPT, CLAIM, _lint, _reports

from dralint.config import Overrides, build_options
from dralint.pipeline import result_cache, result_store
from dralint.pipeline.result_cache import open_pack


def _claims(folder, count: int) -> list:
    files = []
    for i in range(count):
        path = folder / f"c{i:02}.yaml"
        path.write_text(CLAIM.format(labels=f"\n  labels: {{n: '{i}'}}").replace("gpu.example.com", f"Not_{i}"))
        files.append(path)
    return files


def _opened(folder):
    options, _ = build_options(Overrides(no_config=True))
    options.keep = ALL_KEPT
    return open_pack(options, str(folder), None)


class _Payload:
    def __reduce__(self):
        return (os.mkdir, (os.environ["DRALINT_TEST_MARKER"],))


def test_a_chunk_changed_in_place_after_the_index_was_read_is_never_unpickled(cached, tmp_path, monkeypatch, capsys):
    """Changed in place (the same file, not a pack put in its place): the index still verifies, the chunk does not.
    The run is made again without the cache, says so, and the pack goes."""
    marker = tmp_path / "pwned"
    monkeypatch.setenv("DRALINT_TEST_MARKER", str(marker))
    files = _claims(tmp_path, 3)
    cold = _reports(_lint(files, cached, cache=False))
    assert cold["text"].count("DRA") >= 3
    _lint(files, cached)
    _lint(files[:2], cached)  # stored whole: a run of these two reads no file's chunk
    pack = _opened(cached)
    name = str(files[1])
    chunk_id = pack.get(name, result_cache.Digests().of(name, files[1].read_bytes()))[1]
    offset, length, _, _ = pack._file.table[chunk_id]
    payload = pickle.dumps(_Payload())
    with open(pack.path, "r+b") as handle:  # in place: the run's open pack sees it
        handle.seek(pack._file.start + offset)
        handle.write(payload + b"." * (length - len(payload)))
    capsys.readouterr()
    from dralint import cli

    options, _ = build_options(Overrides(no_config=True))
    options.keep = ALL_KEPT
    result = cli._cached_lint([str(f) for f in files], options, 1, pack)  # not stored whole: reads each chunk
    assert _reports(result) == cold
    assert not marker.exists()
    assert f"dralint: note: the result cache {pack.path} changed while it was read; checked without it\n" in capsys.readouterr().err
    assert not os.path.exists(pack.path)
    again = pickle.loads(pickle.dumps(result_store.PackChanged(pack.path)))  # as a worker's reaches the parent
    assert str(again) == f"the result cache {pack.path} changed while it was read"
    assert _reports(_lint(files, cached)) == cold and os.path.exists(pack.path)  # made again by the next run


def test_opening_a_pack_reads_its_index_and_a_hit_reads_its_own_chunk(cached, tmp_path, monkeypatch):
    monkeypatch.setattr(result_cache, "CHUNK_FILES", 4)
    files = _claims(tmp_path, 24)
    _lint(files, cached)
    size = os.path.getsize(next(cached.glob("results-*.pack")))
    read: list[int] = []
    real = result_store._pread

    def counted(fd, length, offset):
        blob = real(fd, length, offset)
        read.append(len(blob))
        return blob

    monkeypatch.setattr(result_store, "_pread", counted)
    pack = _opened(cached)
    opened = pack._file
    assert sum(read) == opened.start < size // 2  # the head and the index only
    checked: list[bytes] = []
    real_read = result_store._Opened.read

    def read_chunk(self, chunk_id, secret):
        checked.append(chunk_id)
        return real_read(self, chunk_id, secret)

    monkeypatch.setattr(result_store._Opened, "read", read_chunk)
    one = files[9]
    expected = _reports(_lint([one], cached, cache=False))
    assert _reports(result_cache.lint_serial(iter([_source(one)]), _options(), pack)) == expected
    name = str(one)
    assert checked == [pack.get(name, result_cache.Digests().of(name, one.read_bytes()))[1]]  # that file's chunk alone


def _options():
    options, _ = build_options(Overrides(no_config=True))
    options.keep = ALL_KEPT
    return options


def _source(path):
    from dralint.pipeline.sources import Source

    return Source(str(path), path.read_bytes())


def test_a_runs_chunks_are_written_to_the_cache_folder_as_they_are_made_not_held(cached, tmp_path):
    pack = _opened(cached)
    blob = os.urandom(5000)
    before = sys.getrefcount(blob)
    first = pack.put_chunk(blob)
    second = pack.put_chunk(b"second")
    assert sys.getrefcount(blob) == before  # nothing of the run holds it
    assert os.fstat(pack._spill.fd).st_size == 5006
    assert sorted(os.listdir(cached)) == [".gitignore"]  # no name reaches the spill
    assert pack.chunk(first) == blob and pack.chunk(second) == b"second"
    pack.put("a.yaml", b"d" * 16, True, first, 3)
    pack.put("b.yaml", b"e" * 16, False, second, 0)
    assert pack.save()
    pack.close()
    again = _opened(cached)
    assert again.get("a.yaml", b"d" * 16) == (True, first, 3)
    assert again.get("b.yaml", b"e" * 16) == (False, second, 0)
    assert again.get("a.yaml", b"x" * 16) is None
    assert again.chunk(first) == blob and again.chunk(second) == b"second"
    again.close()


def test_a_cache_folder_that_cannot_be_made_costs_speed_only(cached, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    files = _claims(tmp_path, 3)
    cold = _reports(_lint(files, cached, cache=False))
    assert _reports(_lint(files, blocker / "cache")) == cold
    pack = _opened(blocker / "cache")
    chunk_id = pack.put_chunk(b"kept in memory")
    assert pack.chunk(chunk_id) == b"kept in memory"
    pack.put("a.yaml", b"d" * 16, False, chunk_id, 0)
    assert not pack.save()


def test_a_run_keeps_reading_the_pack_it_opened_when_another_run_replaces_it(cached, tmp_path, capsys):
    files = _claims(tmp_path, 6)
    cold = _reports(_lint(files[:3], cached, cache=False))
    _lint(files[:3], cached)
    _lint(files[:1], cached)  # stored whole: the next run of all three is not, and reads each one's chunk
    pack = _opened(cached)
    _lint(files[3:], cached)  # another run's pack put in its place
    assert os.stat(pack.path).st_ino != pack._file.identity[1]
    capsys.readouterr()
    from dralint import cli

    assert _reports(cli._cached_lint([str(f) for f in files[:3]], _options(), 1, pack)) == cold
    assert "result cache" not in capsys.readouterr().err
    entries = _opened(cached).entries
    assert set(entries) >= {str(f) for f in files}  # both runs' entries, and the whole run stored
