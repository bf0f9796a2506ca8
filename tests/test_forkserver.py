"""The fork server that runs the command line for the tests (tests/forkserver.py) gives the run a
new process gives: same output, same exit status, same environment; it imports nothing that
would make a forked run differ; a run that hangs is killed at its timeout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from forkserver import startup_environment

import conftest
from conftest import CASES, ROOT, run_dralint


def _both(monkeypatch, *args: str, **kw) -> tuple[conftest.Run, conftest.Run]:
    forked = run_dralint(*args, **kw)
    monkeypatch.setenv("DRALINT_TEST_FORK", "0")
    try:
        spawned = run_dralint(*args, **kw)
    finally:
        monkeypatch.delenv("DRALINT_TEST_FORK")
    return forked, spawned


CLAIM = textwrap.dedent("""\
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata: {name: gpu}
    spec:
      devices:
        requests:
        - name: Bad_Name
          exactly: {deviceClassName: gpu.example.com}
""")


@pytest.mark.parametrize("args", [
    ("--no-config", "examples/"),
    ("--no-config", "--format", "json", "examples/"),
    ("--no-config", "--jobs", "2", "--format", "junit", str(CASES / "slices")),
    ("--no-config", "--no-such-option"),
    ("--no-config", "no/such/file.yaml"),
], ids=["text", "json", "jobs-junit", "usage-error", "missing-file"])
def test_a_forked_run_prints_and_exits_as_a_new_process(monkeypatch, args):
    forked, spawned = _both(monkeypatch, *args)
    assert (forked.code, forked.stdout, forked.stderr) == (spawned.code, spawned.stdout, spawned.stderr)


def test_standard_input_working_directory_and_environment_reach_the_forked_run(monkeypatch, tmp_path):
    (tmp_path / ".dralint.yaml").write_text("ignore: [DRA713]\n")
    forked, spawned = _both(monkeypatch, "--format", "json", "-", input=CLAIM, cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})
    assert forked.code == spawned.code == 1
    assert forked.stdout == spawned.stdout
    problems = json.loads(forked.stdout)["problems"]
    assert [(p["rule"], p["line"], p["column"], p["path"]) for p in problems] == [
        (p["rule"], p["line"], p["column"], p["path"]) for p in json.loads(spawned.stdout)["problems"]]
    # DRA713 is ignored by the working directory's config.
    assert [(p["rule"], p["line"], p["column"], p["path"]) for p in problems] == [("DRA301", 7, 13, "spec.devices.requests[0].name")]


def test_a_run_asking_the_interpreter_for_another_start_is_not_forked():
    if os.environ.get("DRALINT_TEST_FORK") == "0":
        pytest.skip("DRALINT_TEST_FORK=0: no run is forked")
    server = conftest._fork_server(dict(os.environ))
    assert server is not None
    assert startup_environment({"PYTHONIOENCODING": "latin-1", "HOME": "/x"}) == {"PYTHONIOENCODING": "latin-1"}
    assert conftest._fork_server({**os.environ, "PYTHONIOENCODING": "latin-1"}) is None
    assert conftest._fork_server({**os.environ, "LC_ALL": "C"}) is None
    assert conftest._fork_server({**os.environ, "DRALINT_DEBUG": "1"}) is server


def test_a_run_past_its_timeout_is_killed_and_the_server_goes_on(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "forever.py").write_text(textwrap.dedent("""\
        import time

        from dralint.api import rule

        @rule("X001", "never-returns", kinds=["ResourceClaim"])
        def never_returns(doc, report):
            "Never returns."
            while True:
                time.sleep(1)
    """))
    (tmp_path / "claim.yaml").write_text(CLAIM)
    with pytest.raises(subprocess.TimeoutExpired):
        run_dralint("--no-config", "--rules-dir", str(rules), "claim.yaml", cwd=tmp_path, timeout=1.5)
    after = run_dralint("--version")
    assert after.code == 0 and after.stdout.startswith("dralint ")


def test_what_the_server_imports_reads_no_environment_or_working_directory():
    """Read at import, a variable or the folder would be the server's, not the run's."""
    probe = textwrap.dedent("""\
        import json, os, sys
        read = []
        class Tracing(type(os.environ)):
            def __getitem__(self, key):
                read.append(key)
                return super().__getitem__(key)
            def __contains__(self, key):
                read.append(key)
                return super().__contains__(key)
        os.environ.__class__ = Tracing
        real_getcwd = os.getcwd
        def getcwd():
            read.append("<cwd>")
            return real_getcwd()
        os.getcwd = getcwd
        sys.path.insert(0, sys.argv[1])
        from forkserver import preload
        names = preload()
        print(json.dumps({"read": read, "names": names, "ruamel": "ruamel.yaml" in sys.modules}))
    """)
    proc = subprocess.run([sys.executable, "-c", probe, str(ROOT / "tests")], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert "dralint.cli" in found["names"] and "dralint.pipeline.run" in found["names"]
    assert not found["ruamel"]
    # protobuf asks which implementation to use and whether to check its version; no test sets either.
    assert set(found["read"]) <= {"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "TEMPORARILY_DISABLE_PROTOBUF_VERSION_CHECK"}, found["read"]
