"""The result cache (dralint.pipeline.result_cache, dralint.pipeline.result_store): the same report as a run without it,
byte for byte, in every format and with --jobs; invalidated by what a file's results depend on; a
damaged, foreign or forged pack ignored; safe under concurrent runs; bounded; --no-cache, --cache-dir, cache-dir:."""

from __future__ import annotations

import json
import marshal
import os
import pickle
import shutil
import subprocess
from pathlib import Path

import pytest

from dralint import cli
from dralint.cache import _secret
from dralint.config import Overrides, build_options
from dralint.pipeline import parallel, rerun, result_cache, result_store, sources
from dralint.pipeline.result_cache import open_pack
from dralint.pipeline.result_store import MAGIC, encode, read_pack
from dralint.pipeline.sources import Source
from dralint.report import FORMATS, ReportOptions, renderer

from conftest import CASES, ROOT, dralint_command, run_dralint

ALL_KEPT = frozenset(("texts", "objects", "fixes"))
CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: one
  namespace: default{labels}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""


def _lint(paths, folder, jobs=1, cache=True, **overrides):
    options, settings = build_options(Overrides(no_config="config" not in overrides, **overrides))
    options.keep = ALL_KEPT
    pack = open_pack(options, str(folder), overrides.get("config")) if cache else None
    return cli._cached_lint([str(p) for p in paths], options, jobs, pack)


def _reports(result) -> dict[str, str]:
    return {fmt: renderer(fmt)(result, ReportOptions(show_source=True)) for fmt in FORMATS}


def _pack_entries(folder: Path) -> dict:
    """The entries of the one pack in `folder`, as written (not verified: the index is read as it is on disk)."""
    [path] = folder.glob("results-*.pack")
    raw = path.read_bytes()
    length = int.from_bytes(raw[len(MAGIC) + result_store.SEAL_BYTES:result_store.HEAD_BYTES], "big")
    return marshal.loads(raw[result_store.HEAD_BYTES:result_store.HEAD_BYTES + length])[2]


def _read(path: Path, key: str, secret: bytes) -> tuple[dict, dict]:
    """The entries and chunks of the pack at `path` when it verifies, each chunk read and checked; ({}, {}) else."""
    opened = read_pack(str(path), key, secret)
    if opened is None:
        return {}, {}
    try:
        return dict(opened.entries), {c: opened.read(c, secret) for c in opened.table}
    finally:
        opened.close()


def test_cold_first_warm_and_changed_runs_give_the_same_reports_serial_and_with_jobs(cached, monkeypatch, tmp_path):
    """Fixtures with cross-file references (pods), suppressions (core, suppress), schema errors and fixes
    (core, fix), and a kustomize tree with rendered streams (never stored: they depend on other files)."""
    tree = tmp_path / "tree"
    for folder in ("pods", "core", "suppress", "fix", "load"):
        shutil.copytree(CASES / folder, tree / folder)
    shutil.copytree(ROOT / "tests" / "rendered", tree / "rendered")
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "RERUN_FRESH", 0)  # re-runs on workers too: hits and fresh files from them
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 4096)
    cold = _reports(_lint([tree], cached, cache=False))
    assert all(code in cold["text"] for code in ("DRA712", "DRA713", "DRA101", "DRA900", "DRA014"))
    for jobs in (1, 2):
        shutil.rmtree(cached, ignore_errors=True)
        assert _reports(_lint([tree], cached, jobs)) == cold
        assert len(_pack_entries(cached)) > 30
        assert _reports(_lint([tree], cached, jobs)) == cold
    # One file changed: re-judged, the others' partials (records, suppressions) absorbed from the cache.
    victim = next((tree / "pods").glob("*.yaml"))
    victim.write_bytes(victim.read_bytes() + b"\n# changed\n")
    changed = _reports(_lint([tree], cached, cache=False))
    for jobs in (1, 2):
        assert _reports(_lint([tree], cached, jobs)) == changed


def test_files_share_chunks_and_a_file_too_large_to_store_is_checked_each_time(cached, monkeypatch, tmp_path):
    """Partials are stored a few files to a chunk; one whose partial would pass MAX_BLOB is left out, the files
    before it in its chunk are stored, and the run is not stored whole."""
    monkeypatch.setattr(result_cache, "CHUNK_FILES", 3)
    monkeypatch.setattr(result_cache, "MAX_BLOB", 4000)
    unknown = "".join(f"\n  field{i}: {i}" for i in range(40))
    files = []
    for i in range(8):
        path = tmp_path / f"c{i}.yaml"
        path.write_text(CLAIM.format(labels=f"\n  labels: {{n: '{i}'}}") + (f"status:{unknown}\n" if i == 4 else ""))
        files.append(path)
    cold = _reports(_lint(files, cached, cache=False))
    assert cold["text"].count("DRA101") == 40
    for _ in range(2):
        assert _reports(_lint(files, cached)) == cold
        entries = _pack_entries(cached)
        assert set(entries) == {str(f) for f in files if f.name != "c4.yaml"}
        assert len({result_store.chunk_of(e) for e in entries.values()}) == 3  # c0-c2, c3, c5-c7
        assert sorted(int.from_bytes(e[-4:], "big") >> 1 for e in entries.values()) == [0, 0, 0, 1, 1, 2, 2]


def test_the_built_in_rules_are_keyed_by_their_files_unloaded(tmp_path, monkeypatch):
    """With only the built-in rules, the key holds their folder's files (a re-run the cache answers whole loads
    no rule): editing one changes it. None of them is a legacy run-scope rule, which the cache could not hold."""
    options, _ = build_options(Overrides(no_config=True, no_plugins=True))
    options.keep = ALL_KEPT
    assert options.builtin_rules_only()
    assert not [r.code for r in options.rules() if r.scope == "run" and r.collect is None]
    package = tmp_path / "fake_builtin_rules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "claims.py").write_text("# one\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(result_cache, "BUILTIN_PACKAGE", "fake_builtin_rules")
    before = result_cache.run_key(options, None)
    assert result_cache.run_key(options, None) == before
    (package / "claims.py").write_text("# two\n")
    assert result_cache.run_key(options, None) != before


def test_ignore_paths_and_unused_suppressions_are_the_same_from_the_cache(cached, tmp_path):
    tree = tmp_path / "cases"
    shutil.copytree(CASES / "pods", tree / "pods")
    shutil.copytree(CASES / "core", tree / "core")
    config = tmp_path / ".dralint.yaml"
    config.write_text("ignore-paths:\n- paths: ['cases/pods/**']\n  rules: [DRA712]\n- paths: ['cases/core/**']\n  fields: [nothing]\n")
    cold = _reports(_lint([tree], cached, cache=False, config=str(config)))
    assert "unused config ignore: ignore-paths[1]" in cold["text"]
    for _ in range(2):  # filled, then the whole run from the cache
        assert _reports(_lint([tree], cached, config=str(config))) == cold
    victim = next((tree / "pods").glob("*.yaml"))
    victim.write_bytes(victim.read_bytes() + b"\n# changed\n")
    assert _reports(_lint([tree], cached, config=str(config))) == _reports(_lint([tree], cached, cache=False, config=str(config)))


def _problems(result) -> list[tuple]:
    return [(p.rule, p.source, p.span.line, p.span.column) for p in result.problems]


def test_a_changed_file_is_judged_against_the_cached_records_of_the_others(cached, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("class.yaml").write_text(CLASS)
    Path("claim.yaml").write_text(CLAIM.format(labels=""))
    assert _problems(_lint(["class.yaml", "claim.yaml"], cached)) == []
    assert "\0run" in _pack_entries(cached)  # every file stored: the finished run too
    assert _problems(_lint(["class.yaml", "claim.yaml"], cached)) == []
    Path("claim.yaml").write_text(CLAIM.format(labels="\n  labels: {team: a}"))
    assert _problems(_lint(["class.yaml", "claim.yaml"], cached)) == []  # the class, from the cache
    Path("class.yaml").unlink()
    assert _problems(_lint(["claim.yaml"], cached)) == [("DRA713", "claim.yaml", 12, 26)]
    Path("class.yaml").write_text(CLASS)
    assert _problems(_lint(["class.yaml", "claim.yaml"], cached)) == []


RULE = '''\
from dralint.api import rule


@rule("X901", "every-claim", severity="info", kinds=["ResourceClaim"])
def every_claim(doc, report):
    """Every claim, reported."""
    report(("metadata",), "{message}")
'''


def _key(**overrides) -> str:
    options, _ = build_options(Overrides(no_config=True, **overrides))
    options.keep = ALL_KEPT
    return open_pack(options, "unused", None).key


@pytest.mark.parametrize("change", ["severity", "release", "gate", "select", "target version"])
def test_what_a_result_depends_on_invalidates_it(cached, tmp_path, change):
    target = tmp_path / "claim.yaml"
    target.write_text(CLAIM.format(labels="").replace("gpu.example.com", "Bad_Name"))
    before = _reports(_lint([target], cached))
    overrides: dict = {
        "severity": {"severity": ("DRA713=error",)},
        "release": {"kubernetes_version": "1.31"},
        "gate": {"feature_gates": ("DRAConsumableCapacity=false",)},
        "select": {"select": ("DRA1",)},
        "target version": {"target_version": "1.38"},
    }[change]
    assert _key(**overrides) != _key()
    after = _reports(_lint([target], cached, **overrides))
    assert after == _reports(_lint([target], cached, cache=False, **overrides))
    if change in ("severity", "release", "select"):  # the claim uses no field of the gate, no API the target drops
        assert after != before


def test_an_edited_rule_module_invalidates_the_results(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    target = tmp_path / "claim.yaml"
    target.write_text(CLAIM.format(labels=""))
    user = {"DRALINT_CACHE_DIR": str(tmp_path / "user")}
    seen = []
    for message in ("first", "second", "second"):
        (rules / "claims.py").write_text(RULE.format(message=message))
        out = _run("--no-config", "--rules-dir", "rules", "claim.yaml", cwd=tmp_path, env_extra=user).stdout
        seen.append([p["message"] for p in json.loads(out)["problems"] if p["rule"] == "X901"])
    assert seen == [["first"], ["second"], ["second"]]
    assert len(list((tmp_path / ".dralint_cache").glob("results-*.pack"))) == 2  # one per rule module's content


def _damage_cases(pack: Path, secret: bytes, key: str, foreign_secret: bytes) -> dict:
    good = pack.read_bytes()
    entries, chunks = _read(pack, key, secret)
    forged_chunks = {b"f" * 16: pickle.dumps(None)}
    forged = {name: result_store.entry(stored[:16], False, b"f" * 16, 0) for name, stored in entries.items()}
    return {
        "truncated": good[: len(good) // 2],
        "its last byte cut off": good[:-1],  # the index whole and sealed: the file shorter than it says
        "bit flipped": good[:-5] + bytes([good[-5] ^ 1]) + good[-4:],
        "not a pack": b"hello",
        "empty": b"",
        "sealed with another secret": b"".join(encode(forged, forged_chunks, key, foreign_secret)),
        "another format": b"".join(encode(entries, chunks, key, secret, version=99)),
        # Sealed and keyed as this run's, by the version before (its chunks' pickles are not this version's).
        "the previous format": b"".join(encode(entries, chunks, key, secret, version=result_store.FORMAT - 1)),
        "the first format": MAGIC + result_store.seal(secret, p := marshal.dumps((3, key, entries, chunks))) + p,
        "another key": b"".join(encode(entries, chunks, "another configuration", secret)),
        "an entry without its chunk": b"".join(encode({**entries, **forged}, chunks, key, secret)),
    }


def test_damaged_foreign_and_forged_packs_are_ignored(cached, tmp_path):
    target = tmp_path / "claim.yaml"
    target.write_text(CLAIM.format(labels="").replace("gpu.example.com", "Not_A_Name"))
    expected = _reports(_lint([target], cached, cache=False))
    assert "DRA" in expected["text"]
    _lint([target], cached)
    [pack] = cached.glob("results-*.pack")
    options, _ = build_options(Overrides(no_config=True))
    options.keep = ALL_KEPT
    opened = open_pack(options, str(cached), None)
    secret = _secret(str(tmp_path / "user"))
    for why, data in _damage_cases(pack, secret, opened.key, b"x" * 32).items():
        pack.write_bytes(data)
        assert _reports(_lint([target], cached)) == expected, why
        if why in ("truncated", "its last byte cut off"):  # ignored whole, so the run wrote a good one again
            assert _read(pack, opened.key, secret)[0], why


class _Payload:
    def __reduce__(self):
        return (os.mkdir, (os.environ["DRALINT_TEST_MARKER"],))


def test_a_hostile_pack_committed_to_a_repository_is_never_unpickled(cached, tmp_path, monkeypatch):
    """A pack sealed with the repository's own `key` file (the seal's key is per user, outside the project)."""
    marker = tmp_path / "pwned"
    monkeypatch.setenv("DRALINT_TEST_MARKER", str(marker))
    target = tmp_path / "claim.yaml"
    target.write_text(CLAIM.format(labels=""))
    _lint([target], cached)
    [pack] = cached.glob("results-*.pack")
    options, _ = build_options(Overrides(no_config=True))
    options.keep = ALL_KEPT
    key = open_pack(options, str(cached), None).key
    attacker = b"a" * 32
    (cached / "key").write_bytes(attacker)
    chunks = {b"p" * 16: pickle.dumps(_Payload())}
    entries = {str(target): result_store.entry(b"\0" * 16, False, b"p" * 16, 0)}
    stored, _ = _read(pack, key, _secret(str(tmp_path / "user")))
    entries.update({name: result_store.entry(d[:16], False, b"p" * 16, 0) for name, d in stored.items()})
    pack.write_bytes(b"".join(encode(entries, chunks, key, attacker)))
    result = _lint([target], cached)
    assert not marker.exists()
    assert _problems(result) == [("DRA713", str(target), 11, 26)]


def _cli(*args, cwd):
    """`dralint --format json -j 1 ARGS` started, with the cache on: for runs at once."""
    env = {k: v for k, v in os.environ.items() if k not in ("DRALINT_NO_CACHE", "GITHUB_ACTIONS")}
    return subprocess.Popen(dralint_command("--format", "json", "-j", "1", *args), cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _run(*args, cwd, env_extra=None):
    """`dralint --format json -j 1 ARGS` run to its end (conftest.run_dralint), with the cache on."""
    env = {"DRALINT_NO_CACHE": None, "DRALINT_CACHE_DIR": os.environ.get("DRALINT_CACHE_DIR"), **(env_extra or {})}
    run = run_dralint("--format", "json", "-j", "1", *args, cwd=cwd, env=env)
    assert run.code in (0, 1) and "Traceback" not in run.stderr, run.stderr
    return run


def test_two_runs_at_once_are_both_right_and_keep_each_others_entries(cached, tmp_path):
    for side in ("left", "right"):
        (tmp_path / side).mkdir()
        for i in range(30):
            (tmp_path / side / f"c{i}.yaml").write_text(CLAIM.format(labels=f"\n  labels: {{n: '{i}'}}"))
    (tmp_path / ".dralint.yaml").write_text("cache-dir: shared-cache\n")
    expected = {side: _run("--no-cache", side, cwd=tmp_path) for side in ("left", "right")}
    for _ in range(2):
        running = {side: _cli(side, cwd=tmp_path) for side in ("left", "right")}
        for side, proc in running.items():
            out, err = proc.communicate(timeout=60)
            assert (out.decode(), err.decode()) == (expected[side].stdout, expected[side].stderr)
    names = set(_pack_entries(tmp_path / "shared-cache"))
    assert {f"{side}/c{i}.yaml" for side in ("left", "right") for i in range(30)} <= names
    assert (tmp_path / "shared-cache" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_the_default_folder_is_at_the_project_root_and_no_cache_writes_nothing(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "claim.yaml").write_text(CLAIM.format(labels=""))
    user = {"DRALINT_CACHE_DIR": str(tmp_path / "user")}
    out = _run("--no-cache", "--no-config", "claim.yaml", cwd=tmp_path / "deploy", env_extra=user).stdout
    assert not (tmp_path / ".dralint_cache").exists() and not (tmp_path / "deploy" / ".dralint_cache").exists()
    again = _run("--no-config", "claim.yaml", cwd=tmp_path / "deploy", env_extra=user).stdout
    assert again == out and list((tmp_path / ".dralint_cache").glob("results-*.pack"))
    moved = _run("--no-config", "--cache-dir", str(tmp_path / "elsewhere"), "claim.yaml", cwd=tmp_path / "deploy", env_extra=user).stdout
    assert moved == out and list((tmp_path / "elsewhere").glob("results-*.pack"))
    off = _run("--no-config", "claim.yaml", cwd=tmp_path / "deploy", env_extra={**user, "DRALINT_NO_CACHE": "1",
                                                                              "DRALINT_CACHE_DIR": str(tmp_path / "u2")}).stdout
    assert off == out and not (tmp_path / "u2").exists()


def test_a_link_in_the_cache_folders_place_is_not_followed(cached, tmp_path):
    target = tmp_path / "claim.yaml"
    target.write_text(CLAIM.format(labels=""))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cached.symlink_to(elsewhere)
    assert _reports(_lint([target], cached)) == _reports(_lint([target], cached, cache=False))
    assert list(elsewhere.iterdir()) == []


def test_fix_runs_bypass_the_cache(cached, tmp_path, monkeypatch):
    """--fix neither reads nor writes the cache: the files it lints are the ones it has just rewritten."""
    target = tmp_path / "claim.yaml"
    target.write_text(CLAIM.format(labels="").replace("exactly:", "exactyl:"))
    monkeypatch.chdir(tmp_path)
    code = cli.main(["--no-config", "--fix", "--cache-dir", str(cached), "claim.yaml"])
    assert "exactly:" in target.read_text() and not cached.exists()
    assert code == 0  # what is left is an info (DRA713: the class is not defined in the run)


def test_the_pack_is_bounded(cached, tmp_path, monkeypatch):
    monkeypatch.setattr(result_store, "MAX_ENTRIES", 8)
    for i in range(20):
        (tmp_path / f"c{i}.yaml").write_text(CLAIM.format(labels=f"\n  labels: {{n: '{i}'}}"))
    files = sorted(tmp_path.glob("c*.yaml"))
    assert _reports(_lint(files, cached)) == _reports(_lint(files, cached, cache=False))
    assert len(_pack_entries(cached)) <= 8
    monkeypatch.setattr(result_store, "MAX_PACKS", 2)
    for release in ("1.33", "1.34", "1.35"):
        _lint(files[:1], cached, kubernetes_version=release)
    assert len(list(cached.glob("results-*.pack"))) == 2


def test_a_files_partial_holds_only_that_file_after_others_were_checked(tmp_path):
    """One file run serves every file (result_cache.FileChecker): nothing of the files before is left in the next one's."""
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("# dralint: disable-next-line=DRA999\n" + CLAIM.format(labels="\n  labels: {Bad Key: x}"))
    second.write_text(CLASS + "---\n" + CLAIM.format(labels=""))
    options, _ = build_options(Overrides(no_config=True))
    options.keep = ALL_KEPT
    alone = result_cache.FileChecker(options).partial(Source(str(second), second.read_bytes()))
    checker = result_cache.FileChecker(options)
    before = checker.partial(Source(str(first), first.read_bytes()))
    after = checker.partial(Source(str(second), second.read_bytes()))
    assert before[0].result.problems and before[0].suppressor is not None and before[0].records
    assert after[1] is alone[1] is True
    assert repr(result_cache.plain_of(str(second), after[0])) == repr(result_cache.plain_of(str(second), alone[0]))


def test_a_files_digest_is_keyed_by_its_own_folders_kustomizations_however_its_name_is_spelled(tmp_path, monkeypatch):
    kustomized, plain = tmp_path / "k", tmp_path / "p"
    kustomized.mkdir()
    plain.mkdir()
    (kustomized / "kustomization.yaml").write_text("resources: [x.yaml]\n")
    monkeypatch.chdir(kustomized)
    data = CLASS.encode()
    digests = result_cache.Digests()
    root = digests.of("/x.yaml", data)  # first: its folder, "/", must not stand for the working folder's ""
    kustomized_names = ["x.yaml", str(kustomized / "x.yaml"), f"{kustomized}//x.yaml"]
    plain_names = [str(plain / "x.yaml"), f"{plain}//y.yaml", "../p/x.yaml"]
    assert [digests.of(name, data) for name in kustomized_names] == [result_cache.Digests().of(str(kustomized / "z.yaml"), data)] * 3
    assert [digests.of(name, data) for name in plain_names] == [result_cache.Digests().of(str(plain / "z.yaml"), data)] * 3
    assert root == digests.of(str(plain / "x.yaml"), data) != digests.of("x.yaml", data)  # no kustomization above either
    assert digests.of("x.yaml", b"other") != digests.of("x.yaml", data)


def test_a_suppressor_is_stored_as_its_file_left_it_when_later_files_join_the_run(cached, tmp_path, monkeypatch):
    """The next files' comments join the run's suppressor, never the first file's, which waits in the writer's
    chunk to be pickled (result_cache._InRun._join), or a run that decodes both would report the second's bad
    comment twice."""
    monkeypatch.chdir(tmp_path)
    Path("a.yaml").write_text("# dralint: disable-file=DRA712\n" + CLASS)
    Path("b.yaml").write_text("# dralint: frobnicate\n" + CLAIM.format(labels=""))
    Path("c.yaml").write_text(CLAIM.format(labels="").replace("name: one", "name: two"))
    names = ["a.yaml", "b.yaml", "c.yaml"]
    cold = _reports(_lint(names, cached, cache=False))
    assert cold["text"].count("DRA900") == 2  # the unused disable-file and the comment that is no directive
    assert _reports(_lint(names, cached)) == cold
    Path("c.yaml").write_text(CLAIM.format(labels="\n  labels: {team: a}").replace("name: one", "name: two"))
    changed = _reports(_lint(names, cached, cache=False))
    assert _reports(_lint(names, cached)) == changed  # a and b decoded from their chunk


def test_files_whose_comments_suppress_nothing_and_files_whose_comments_do_give_the_same_reports(cached, tmp_path, monkeypatch):
    """A file whose `# dralint:` comments only give its release stores no suppressor (`_InRun.check`), and its
    empty one begins the next file's check: the next files' directives (one suppressing a run-scope problem,
    judged at the end, one suppressing nothing) and malformed comments are their own, kept and reported once, as
    a run without the cache does."""
    monkeypatch.chdir(tmp_path)
    claim = CLAIM.format(labels="").replace("gpu.example.com", "missing.example.com")
    Path("a.yaml").write_text("# dralint: kubernetes-version=1.34\n" + claim.replace("name: one", "name: a"))
    Path("b.yaml").write_text("# dralint: kubernetes-version=1.34\n# dralint: frobnicate\n" + claim.replace("name: one", "name: b").replace(
        "deviceClassName: missing.example.com", "deviceClassName: missing.example.com  # dralint: disable=DRA713"))
    Path("c.yaml").write_text("# dralint: disable-next-line=DRA201\n" + claim.replace("name: one", "name: c"))
    Path("d.yaml").write_text(claim.replace("name: one", "name: d"))
    names = ["a.yaml", "b.yaml", "c.yaml", "d.yaml"]
    cold = _reports(_lint(names, cached, cache=False))
    assert cold["text"].count("DRA713") == 3 and cold["text"].count("DRA900") == 2  # b's is suppressed; c's unused
    # Serially (result_cache._InRun), then on a worker (FileChecker), which keeps a spare suppressor alike.
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "RERUN_FRESH", 0)
    for jobs in (1, 2):
        shutil.rmtree(cached, ignore_errors=True)
        assert _reports(_lint(names, cached, jobs)) == cold  # first
        assert _reports(_lint(names, cached, jobs)) == cold  # warm
    Path("d.yaml").write_text(claim.replace("name: one", "name: e"))
    changed = _reports(_lint(names, cached, cache=False))
    assert _reports(_lint(names, cached)) == changed  # a, b and c decoded from their chunk


def test_a_jobs_re_run_with_few_files_modified_since_the_pack_checks_those_on_one_worker(cached, monkeypatch, tmp_path):
    """With `--jobs`, a re-run whose files the pack holds: serial with none modified since it was written (answered
    with the run the parallel first run stored whole, result_cache.store_run); fewer than RERUN_FRESH modified,
    one worker checks those while the parent takes the others from the pack (rerun.lint_shared), which stores
    the run whole too; more, the workers check it: every file a hit after a touch, hits and the workers' merged
    fresh partials alternating after a change. The reports are the cold run's each time."""
    tree = tmp_path / "tree"
    for folder in ("pods", "core", "suppress"):
        shutil.copytree(CASES / folder, tree / folder)
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "RERUN_FRESH", 2)
    monkeypatch.setattr(parallel, "CHUNK_BYTES", 2048)
    ways: list[str] = []
    real_parallel, real_serial, real_shared = parallel.lint_parallel, result_cache.lint_serial, rerun.lint_shared
    monkeypatch.setattr(parallel, "lint_parallel", lambda *a, **k: ways.append("workers") or real_parallel(*a, **k))
    monkeypatch.setattr(result_cache, "lint_serial", lambda *a, **k: ways.append("serial") or real_serial(*a, **k))
    monkeypatch.setattr(rerun, "lint_shared", lambda *a, **k: ways.append("shared") or real_shared(*a, **k))
    monkeypatch.setattr(result_cache, "_stored_run", lambda *a, real=result_cache._stored_run: ways.append("whole") or real(*a))
    cold = _reports(_lint([tree], cached, cache=False))
    assert _reports(_lint([tree], cached, 2)) == cold and ways == ["workers"]
    assert _reports(_lint([tree], cached, 2)) == cold and ways[1:] == ["shared", "whole"]
    assert _reports(_lint([tree], cached, 1)) == cold and ways[3:] == ["serial", "whole"]
    files = sorted(tree.rglob("*.yaml"))

    def touch(*paths):
        later = os.stat(next(cached.glob("results-*.pack"))).st_mtime + 5
        for path in paths:
            os.utime(path, (later, later))

    touch(files[3])  # one modified since, the same bytes: a hit on the worker, the run stored whole again
    assert _reports(_lint([tree], cached, 2)) == cold and ways[5:] == ["shared"]
    for path in files:
        os.utime(path, (1_000_000_000, 1_000_000_000))
    assert _reports(_lint([tree], cached, 2)) == cold and ways[6:] == ["shared", "whole"]
    touch(files[3], files[4])  # two: the workers, every file a hit
    assert _reports(_lint([tree], cached, 2)) == cold and ways[8:] == ["workers"]
    files[5].write_bytes(files[5].read_bytes() + b"\n# changed\n")
    changed = _reports(_lint([tree], cached, cache=False))
    touch(files[6])  # one changed and one touched: the workers, hits and fresh partials in turn
    assert _reports(_lint([tree], cached, 2)) == changed and ways[9:] == ["workers"]
    for path in files:  # the touches above undone: older than the pack
        os.utime(path, (1_000_000_000, 1_000_000_000))
    files[5].write_bytes(files[5].read_bytes() + b"# changed again\n")
    changed = _reports(_lint([tree], cached, cache=False))
    assert _reports(_lint([tree], cached, 2)) == changed and ways[10:] == ["shared"]  # one changed: on the worker


def _shared_tree(tmp_path: Path) -> tuple[Path, list[Path]]:
    """Files with cross-file references (pods), suppressions, schema errors and fixes, the run's files sorted."""
    tree = tmp_path / "tree"
    for folder in ("pods", "core", "suppress", "fix"):
        shutil.copytree(CASES / folder, tree / folder)
    return tree, sorted(tree.rglob("*.yaml"))


def test_a_shared_re_run_checks_a_file_whose_bytes_changed_under_an_old_time_itself(cached, monkeypatch, tmp_path):
    """rerun.lint_shared: the worker gets the files modified since the pack (one edited, one touched with the same
    bytes, a dangling link), the parent the others; one of those whose bytes changed while its time says it
    was not (racily clean: edited within the granularity of the pack's time; or set back) is a miss by its
    bytes and checked by the parent in its place, not answered by the stale part. Every format's report is the
    cold run's, and the next run, nothing changed, is answered with the run the shared one stored whole."""
    tree, files = _shared_tree(tmp_path)
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    old = 1_000_000_000
    for path in files:
        os.utime(path, (old, old))
    ways: list[str] = []
    parent = os.getpid()
    real_items, real_shared = result_cache.FileChecker.items, rerun.lint_shared
    # What each process checks: the parent's calls recorded here, the worker's (a fork) left unrecorded.
    here: list[list[str]] = []
    monkeypatch.setattr(result_cache.FileChecker, "items", lambda self, sources, pack: real_items(
        self, [s for s in sources if os.getpid() != parent or not here.append(s.name)], pack))
    monkeypatch.setattr(rerun, "lint_shared", lambda *a, **k: ways.append("shared") or real_shared(*a, **k))
    monkeypatch.setattr(result_cache, "_stored_run", lambda *a, real=result_cache._stored_run: ways.append("whole") or real(*a))
    assert _reports(_lint([tree], cached, 2, cache=False)) == _reports(_lint([tree], cached, 1, cache=False))
    before = _reports(_lint([tree], cached, 2))
    later = os.stat(next(cached.glob("results-*.pack"))).st_mtime + 5
    edited, touched, racy = files[2], files[5], files[9]
    edited.write_bytes(edited.read_bytes() + b"\n# edited\n")
    os.utime(edited, (later, later))
    os.utime(touched, (later, later))
    # Same length, other bytes (a problem moves), its time left before the pack's.
    racy.write_bytes(racy.read_bytes().replace(b"name:", b"nam3:", 1))
    os.utime(racy, (old, old))
    (tree / "core" / "dangling.yaml").symlink_to(tree / "missing.yaml")
    cold = _reports(_lint([tree], cached, cache=False))
    assert "dangling.yaml" in cold["text"]
    assert [line for line in cold["text"].splitlines() if racy.name in line] != [line for line in before["text"].splitlines() if racy.name in line]
    assert _reports(_lint([tree], cached, 2)) == cold and ways == ["shared"]
    assert here == [str(racy)]
    assert _reports(_lint([tree], cached, 2)) == cold and ways[1:] == ["shared"]  # the dangling link: never stored
    (tree / "core" / "dangling.yaml").unlink()
    cold = _reports(_lint([tree], cached, cache=False))
    for path in (edited, touched):
        os.utime(path, (old, old))
    _lint([tree], cached, 2)  # the touches older than the pack: none suspect, every file a hit
    assert _reports(_lint([tree], cached, 2)) == cold and ways[2:] == ["shared", "shared", "whole"]
    # None suspect, the files read by both processes: a file in either share whose bytes changed under an old time
    # is no hit (not answered whole), and the parent takes every file, checking that one itself.
    for victim in (files[1], files[-2]):
        victim.write_bytes(victim.read_bytes().replace(b"name:", b"nam3:", 1))
        os.utime(victim, (old, old))
        cold = _reports(_lint([tree], cached, cache=False))
        here.clear()
        assert _reports(_lint([tree], cached, 2)) == cold and ways[-1] == "shared"
        assert here == [str(victim)]


def test_the_stamped_walk_is_the_walk_with_each_files_time(tmp_path):
    """sources.stamped_files: the entries of sources.files, in order (a hard link, a symlink and a file named twice
    read once; a folder that cannot be listed; a dangling link), each with the time of the stat that told it apart
    (None without one)."""
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    for i, name in enumerate(("a.yaml", "sub/b.yaml", "sub/c.json")):
        (tree / name).write_text(CLASS)
        os.utime(tree / name, (1_000_000_000 + i, 1_000_000_000 + i))
    os.link(tree / "a.yaml", tree / "hard.yaml")
    (tree / "soft.yaml").symlink_to(tree / "sub" / "b.yaml")
    (tree / "dangling.yaml").symlink_to(tree / "missing.yaml")
    (tree / "shut").mkdir()
    os.chmod(tree / "shut", 0)
    try:
        paths = [str(tree), str(tree / "a.yaml"), "-"]
        stamped = list(sources.stamped_files(paths))
        assert [(name, error) for name, error, _, _ in stamped] == list(sources.files(paths))
        times = {os.path.relpath(name, tree): stamp for name, error, stamp, _ in stamped if error is None and name != "-"}
        sizes = {os.path.relpath(name, tree): size for name, error, _, size in stamped if error is None and name != "-"}
        assert sizes == {"a.yaml": len(CLASS), "soft.yaml": len(CLASS), "sub/c.json": len(CLASS), "dangling.yaml": None}
        assert times == {"a.yaml": 1_000_000_000 * 10**9, "soft.yaml": (1_000_000_000 + 1) * 10**9,  # before sub/
                         "sub/c.json": (1_000_000_000 + 2) * 10**9, "dangling.yaml": None}
        assert stamped[-1] == ("-", None, None, None)
    finally:
        os.chmod(tree / "shut", 0o755)


def test_a_file_read_with_its_walked_size_is_what_read_gives_or_other_bytes(tmp_path):
    """sources.read_sized (a shared re-run's reading, without an fstat): the file's bytes when its size is the walk's,
    and when it grew or shrank since; a folder or a missing file as `read` says; a FIFO put in its place reads
    as no bytes, whose digest is no stored one (it is checked, and read again, then)."""
    path = tmp_path / "a.yaml"
    path.write_text(CLASS)
    size = len(CLASS)
    assert sources.read_sized(str(path), size) == sources.read(str(path))
    path.write_text(CLASS + "# more\n")
    assert sources.read_sized(str(path), size).data == (CLASS + "# more\n").encode()
    path.write_text(CLASS[:10])
    assert sources.read_sized(str(path), size).data == CLASS[:10].encode()
    assert sources.read_sized(str(path), None) == sources.read(str(path))
    path.unlink()
    path.mkdir()
    assert sources.read_sized(str(path), size) == sources.read(str(path)) == Source(str(path), None, "is a directory")
    assert sources.read_sized(str(tmp_path / "missing.yaml"), size) == sources.read(str(tmp_path / "missing.yaml"))
    os.mkfifo(tmp_path / "fifo.yaml")
    assert sources.read_sized(str(tmp_path / "fifo.yaml"), size).data == b""


def test_a_re_run_of_a_few_files_named_one_by_one_forks_no_worker(cached, monkeypatch, tmp_path):
    """Files named one by one, fewer than parallel.MIN_FILES (the pre-commit hook's way): serial, no worker forked.
    A folder: the worker forked at the first suspect of the walk (and stopped when the walk ends short of
    MIN_FILES), or after it when there is none; as many files named as MIN_FILES: likewise."""
    tree, files = _shared_tree(tmp_path)
    forked: list[bool] = []
    real = rerun.start_worker
    monkeypatch.setattr(rerun, "start_worker", lambda *a: forked.append(a[-1]) or real(*a))
    _lint(files, cached, 2)
    for victim, paths in ((files[4], files), (files[5], [tree])):
        before = _reports(_lint(paths, cached, cache=False))
        victim.write_bytes(victim.read_bytes().replace(b"name:", b"nam3:", 1))
        cold = _reports(_lint(paths, cached, cache=False))
        assert cold != before and _reports(_lint(paths, cached, 2)) == cold
    assert forked == [True]
    monkeypatch.setattr(parallel, "MIN_FILES", 3)
    assert _reports(_lint([tree], cached, 2)) == cold and forked[1:] == [False]
    assert _reports(_lint(files, cached, 2)) == _reports(_lint(files, cached, cache=False)) and forked[2:] == [False]


def test_a_shared_re_run_raises_what_its_worker_raised_and_a_dead_worker_is_an_error(cached, monkeypatch, tmp_path):
    """The worker's exception is raised in the parent; a worker that dies without an answer is a WorkerError."""
    tree, files = _shared_tree(tmp_path)
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    _lint([tree], cached, 2)
    later = os.stat(next(cached.glob("results-*.pack"))).st_mtime + 5
    os.utime(files[3], (later, later))

    def fails(*_):
        raise LookupError("from the worker")

    monkeypatch.setattr(rerun, "_check_groups", fails)
    with pytest.raises(LookupError, match="from the worker"):
        _lint([tree], cached, 2)
    monkeypatch.setattr(rerun, "_check_groups", lambda *_: os._exit(3))
    with pytest.raises(parallel.WorkerError, match="status"):
        _lint([tree], cached, 2)


def test_the_command_line_re_run_with_jobs_and_a_few_files_changed_gives_the_cold_report(cached, tmp_path):
    """The console script, `--jobs 2`, on enough files for workers (parallel.MIN_FILES): a first run, then a re-run
    with a file edited and one whose bytes changed under a time older than the pack's (rerun.lint_shared)."""
    tree = tmp_path / "tree"
    sources = sorted([*(CASES / "pods").glob("*.yaml"), *(CASES / "core").glob("*.yaml"), *(CASES / "suppress").glob("*.yaml")])
    for i in range(parallel.MIN_FILES + 20):
        (tree / f"d{i // 100}").mkdir(parents=True, exist_ok=True)
        shutil.copy(sources[i % len(sources)], tree / f"d{i // 100}" / f"f{i:04}.yaml")
    old = 1_000_000_000
    for path in tree.rglob("*.yaml"):
        os.utime(path, (old, old))

    def run(*args):
        done = run_dralint("--format", "json", "--no-config", "--jobs", "2", "--cache-dir", str(cached), *args, "tree", cwd=tmp_path,
                           env={"DRALINT_NO_CACHE": None, "DRALINT_CACHE_DIR": os.environ["DRALINT_CACHE_DIR"]})
        assert done.code in (0, 1) and "Traceback" not in done.stderr, done.stderr
        return done.stdout

    first = run()
    edited, racy = tree / "d1" / "f0150.yaml", tree / "d3" / "f0333.yaml"
    edited.write_bytes(edited.read_bytes() + b"\n# edited\n")
    racy.write_bytes(racy.read_bytes().replace(b"name:", b"nam3:", 1))
    os.utime(racy, (old, old))
    cold = run("--no-cache")
    assert [p for p in json.loads(cold)["problems"] if p["file"] == "tree/d3/f0333.yaml"] != [p for p in json.loads(first)["problems"] if p["file"] == "tree/d3/f0333.yaml"]
    assert run() == cold
