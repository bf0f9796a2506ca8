"""`--jobs N` (dralint.pipeline.parallel): the same report, byte for byte, as `--jobs 1`; a dead worker is exit 2.

The in-process runs lower MIN_FILES (and the fixtures are small) so that the fixtures of tests/cases and
generated sets are split into several chunks; the console script's runs use generated sets above it.
"""

from __future__ import annotations

import gc
import io
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from dralint import cli
from dralint.config import Overrides, build_options
from dralint.pipeline import parallel
from dralint.report import FORMATS, ReportOptions, renderer

import cases_reference as reference
from conftest import CASES, corpus_clusters, run_dralint

ALL_KEPT = ("texts", "objects", "fixes")


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()  # the serial CLI path freezes what it keeps; give this test process's heap back


def _run(paths: list[str], jobs: int, release: str | None = None, config: str | None = None):
    options, _ = build_options(Overrides(no_config=config is None, config=config, kubernetes_version=release))
    options.keep = ALL_KEPT
    return cli._lint(paths, options, jobs)


def _reports(result) -> dict[str, str]:
    shown = ReportOptions(show_source=True)
    return {fmt: renderer(fmt)(result, shown) for fmt in FORMATS}


def _parallel_taken(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = parallel.lint_parallel

    def counting(entries, options, jobs):
        entries = list(entries)
        calls.append(len(entries))
        return real(entries, options, jobs)

    monkeypatch.setattr(parallel, "lint_parallel", counting)
    return calls


def test_tests_cases_give_the_same_report_in_every_format(monkeypatch, unfrozen):
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 4096)  # tests/cases: ~50 chunks
    calls = _parallel_taken(monkeypatch)
    serial_result, serial = reference.serial((str(CASES),))
    assert calls == []
    split = _reports(_run([str(CASES)], 2))
    assert calls == [serial_result.files] and serial_result.files > 100
    for fmt in FORMATS:
        assert split[fmt] == serial[fmt], fmt
    assert "DRA712" in serial["text"] and "DRA101" in serial["text"] and "| " in serial["text"]


def _chunks_cut(monkeypatch) -> list[list[str]]:
    """The names in each chunk the runs cut, in order."""
    cut: list[list[str]] = []
    real = parallel._chunks

    def recording(entries, jobs):
        for chunk in real(entries, jobs):
            cut.append([name for name, _ in chunk])
            yield chunk

    monkeypatch.setattr(parallel, "_chunks", recording)
    return cut


def test_ignore_paths_and_unused_suppressions_are_judged_over_every_chunk(monkeypatch, unfrozen, tmp_path_factory):
    config = reference.ignore_config(tmp_path_factory.getbasetemp())
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(parallel, "TAIL_BYTES", 1024)
    chunks = _chunks_cut(monkeypatch)
    _, serial = reference.serial(reference.IGNORE_FOLDERS, config)
    assert chunks == []
    split = _reports(_run(list(reference.IGNORE_FOLDERS), 2, config=config))
    assert split == serial
    # Each folder's files in chunks of their own, several each: the entry used in pods and the one in scope in
    # core are judged over chunks that never held the other's files, and the pods' references cross chunks.
    folders = [{Path(name).parent.name for name in chunk} for chunk in chunks]
    assert folders.count({"pods"}) > 1 and folders.count({"core"}) > 1
    assert sum(len(chunk) for chunk in chunks) == 14
    cases = os.path.relpath(CASES, Path(config).parent)
    unused = [line for line in serial["text"].splitlines() if "unused config ignore" in line]
    assert unused == [f"{os.path.relpath(config)}:4:3: warning: unused config ignore: ignore-paths[1] (paths: {cases}/core/**; "
                      "fields: nothing) suppressed no problem [DRA900 unused-suppression]"]
    pods = [line for line in serial["text"].splitlines() if "/pods/" in line.split(":")[0]]
    assert pods and "DRA712" not in "\n".join(pods)


def test_the_corpus_gives_the_same_report(monkeypatch, unfrozen, corpus):
    """Each cluster of the real-world corpus (its release and feature gates), on two workers, against the
    session's serial run of it (conftest.corpus)."""
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 16384)  # 353 files: ~60 chunks
    calls = _parallel_taken(monkeypatch)
    for cluster, files in corpus_clusters(corpus.rows):
        release, gates = cluster
        options, _ = build_options(Overrides(no_config=True, kubernetes_version=release,
                                             feature_gates=tuple(f"{gate}={str(on).lower()}" for gate, on in gates)))
        options.keep = ALL_KEPT
        split, serial = cli._lint([str(f) for f in files], options, 2), corpus.results[cluster]
        assert _reports(split) == _reports(serial), cluster
        assert split.files == serial.files == len(files) and split.documents == serial.documents
    assert sum(calls) > 300 and len(calls) > 5  # every cluster of two files or more, on workers


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: pod-{i}
  namespace: {ns}
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: tmpl-{ref}
  containers:
  - name: c
    image: busybox
    resources:
      claims:
      - name: gpu
"""

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: tmpl-{i}
  namespace: {ns}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: {cls}
"""


def _cross_references(root: Path, count: int) -> None:
    """Pods whose templates stand in other files, far away (other chunks): found, in another namespace,
    misspelt (did you mean), missing; classes defined once, at the end."""
    for i in range(count):
        ref = (i * 37 + 11) % count
        if i % 2:
            text = POD.format(i=i, ns=f"ns{i % 3}", ref=ref if i % 7 else f"{ref}x")
        else:
            text = TEMPLATE.format(i=i, ns=f"ns{i % 3}", cls="gpu" if i % 5 else "gpu-typo")
        (root / f"f{i:04}.yaml").write_text(text)
    (root / "zz-class.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\n")


def test_cross_file_references_across_chunks_on_the_command_line(monkeypatch, tmp_path, unfrozen, capsys):
    """The command line's whole run (cli.main: walk, workers, report, exit status), in this process with
    MIN_FILES lowered: a_worker_that_dies runs the console script above it."""
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 2048)  # ~8 files a chunk: most references cross chunks
    monkeypatch.setattr(parallel, "TAIL_BYTES", 512)
    calls = _parallel_taken(monkeypatch)
    count = 100  # not a multiple of 3: a template is in the pod's namespace for some pods only
    _cross_references(tmp_path, count)
    runs = {}
    for jobs in ("1", "2"):
        code = cli.main(["--no-config", "--format", "json", "--jobs", jobs, str(tmp_path)])
        out, err = capsys.readouterr()
        runs[jobs] = (code, out, err)
    assert calls == [count + 1]
    assert runs["2"] == runs["1"] and runs["1"][0] == 0, runs["2"][2]  # warnings and infos only
    problems = json.loads(runs["1"][1])["problems"]
    rules = {p["rule"] for p in problems}
    assert {"DRA711", "DRA712", "DRA713"} <= rules
    assert any("did you mean 'tmpl-" in p["message"] for p in problems)
    # Every other file found its template across files: not all pods are reported.
    assert sum(p["rule"] in ("DRA711", "DRA712") for p in problems) < count // 2


def test_jobs_in_the_config_must_be_a_positive_number(tmp_path, monkeypatch, capsys):
    """Usage errors of the command line (cli.main, in this process: a traceback would fail the test)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
    for value in ("0", "-2", "two", "true"):
        (tmp_path / ".dralint.yaml").write_text(f"fail-on: error\njobs: {value}\n")
        assert cli.main(["a.yaml"]) == 2, value
        out, err = capsys.readouterr()
        assert out == "" and ".dralint.yaml:2:7: 'jobs' must be a whole number of worker processes, at least 1" in err, err
    assert cli.main(["--no-config", "--jobs", "0", "a.yaml"]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err


def test_jobs_past_a_few_per_core_are_capped_with_a_warning(tmp_path, monkeypatch, capsys, unfrozen):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: a\nspec:\n  colour: red\n")
    (tmp_path / ".dralint.yaml").write_text("jobs: 300\n")
    cap = parallel.JOBS_PER_CORE * parallel.usable_cores()
    assert cli.main(["--format", "json", "a.yaml"]) == 1
    out, err = capsys.readouterr()
    assert [(p["rule"], p["line"], p["column"]) for p in json.loads(out)["problems"]] == [("DRA101", 6, 3)]
    assert err == f"dralint: warning: 300 worker processes asked for, {cap} used (2 per usable core, {parallel.usable_cores()} usable)\n"
    assert cli.main(["--format", "json", "--jobs", str(cap), "a.yaml"]) == 1
    assert capsys.readouterr().err == ""


def test_the_capped_number_of_workers_is_what_the_pool_gets(monkeypatch, tmp_path, unfrozen, capsys):
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 3)
    jobs: list[int] = []
    real = parallel.lint_parallel
    monkeypatch.setattr(parallel, "lint_parallel", lambda entries, options, n: jobs.append(n) or real(entries, options, n))
    for i in range(3):
        (tmp_path / f"f{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f{i}\n")
    assert cli.main(["--no-config", "--jobs", "300", "-f", "json", str(tmp_path)]) == 0
    assert cli.main(["--no-config", "--jobs", "5", "-f", "json", str(tmp_path)]) == 0
    assert jobs == [6, 5]
    assert capsys.readouterr().err == "dralint: warning: 300 worker processes asked for, 6 used (2 per usable core, 3 usable)\n"


def test_a_worker_that_dies_is_exit_2_without_a_traceback(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "crash.py").write_text(textwrap.dedent('''\
        import os

        from dralint.api import rule

        PARENT = os.getpid()


        @rule("XX001", "crash", kinds={"ConfigMap"})
        def crash(doc, report):
            """Kills a worker process (not the parent) at the file named boom."""
            if doc.name == "boom" and os.getpid() != PARENT:
                os._exit(9)
    '''))
    files = tmp_path / "files"
    files.mkdir()
    for i in range(parallel.MIN_FILES):
        name = "boom" if i == 120 else f"cm{i}"
        (files / f"f{i:04}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n")
    run = run_dralint("--no-config", "--rules-dir", str(rules), "--jobs", "2", str(files), timeout=60)
    assert run.code == 2
    assert "a worker process ended unexpectedly" in run.stderr and "rerun with --jobs 1" in run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""
    serial = run_dralint("--no-config", "--rules-dir", str(rules), "--jobs", "1", str(files))
    assert serial.code == 0, serial.stderr


def test_small_runs_stdin_and_legacy_run_rules_stay_serial():
    options, _ = build_options(Overrides(no_config=True))
    options.keep = ()
    many = [(f"f{i}.yaml", None) for i in range(parallel.MIN_FILES)]
    assert parallel.serial_reason(many, options, 2) is None
    assert parallel.serial_reason(many[:-1], options, 2) == "few files"
    assert parallel.serial_reason(many, options, 1) == "--jobs 1"
    assert parallel.usable_cores() >= 1


def test_standard_input_keeps_a_run_serial(monkeypatch, tmp_path, unfrozen):
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    calls = _parallel_taken(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")))
    for i in range(3):
        (tmp_path / f"f{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f{i}\n")
    result = _run([str(tmp_path), "-"], 2)
    assert calls == [] and result.files == 4 and result.documents == 4
    _run([str(tmp_path)], 2)
    assert calls == [3]


def test_chunks_are_cut_by_bytes_in_order_and_shrink_once_the_walk_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 100)
    monkeypatch.setattr(parallel, "TAIL_BYTES", 10)
    names = []
    for i in range(10):
        names.append(str(tmp_path / f"f{i}.yaml"))
        Path(names[-1]).write_text("#" * 50)
    entries = [(name, None) for name in names] + [(str(tmp_path / "locked"), "the folder cannot be listed")]
    # Once each of the two workers has a chunk, 200 bytes are held back while the walk goes on; then a
    # quarter of what is left a chunk, at least 10 bytes.
    assert [[Path(n).name for n, _ in chunk] for chunk in parallel._chunks(iter(entries), 2)] == [
        ["f0.yaml", "f1.yaml"], ["f2.yaml", "f3.yaml"], ["f4.yaml", "f5.yaml"],
        ["f6.yaml"], ["f7.yaml"], ["f8.yaml"], ["f9.yaml"], ["locked"]]


def test_chunks_hold_at_most_max_chunk_files(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MAX_CHUNK", 3)
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    chunks = list(parallel._chunks(iter([(str(empty), None)] * 20), 2))
    assert [len(chunk) for chunk in chunks] == [3, 3, 3, 3, 3, 3, 2]


def test_a_few_large_files_are_split(tmp_path):
    options, _ = build_options(Overrides(no_config=True))
    options.keep = ()
    large = [tmp_path / f"big{i}.yaml" for i in range(4)]
    for path in large:
        path.write_text("#" * (parallel.MIN_BYTES // 4) + "\n")  # a quarter of MIN_BYTES each, and a byte
    entries = [(str(path), None) for path in large]
    assert parallel.serial_reason(entries, options, 2) is None
    assert parallel.serial_reason(entries[:3], options, 2) == "few files"
    assert parallel.serial_reason(entries[:1], options, 2) == "few files"
