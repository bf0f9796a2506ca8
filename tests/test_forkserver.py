"""The fork server that runs the command line for the tests (tests/forkserver.py) gives the run a
new process gives: same output, same exit status, same environment; it imports nothing that
would make a forked run differ; a run that hangs is killed at its timeout."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

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
    # The run never ends, so any timeout is one it runs past; a short one is a short wait.
    with pytest.raises(subprocess.TimeoutExpired):
        run_dralint("--no-config", "--rules-dir", str(rules), "claim.yaml", cwd=tmp_path, timeout=0.2)
    after = run_dralint("--version")
    assert after.code == 0 and after.stdout.startswith("dralint ")


def test_what_the_server_imports_reads_no_environment_or_working_directory():
    """Read at import, a variable or the folder would be the server's, not the run's. What the
    running server recorded while it imported (`traced_preload`), or a new process's where no run
    is forked."""
    server = conftest._fork_server(conftest._run_environment())
    if server is not None:
        found = server.preloaded
    else:
        probe = "import json, sys; sys.path.insert(0, sys.argv[1]); from forkserver import traced_preload; print(json.dumps(traced_preload()))"
        proc = subprocess.run([sys.executable, "-c", probe, str(ROOT / "tests")], capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert proc.returncode == 0, proc.stderr
        found = json.loads(proc.stdout)
    assert "dralint.cli" in found["names"] and "dralint.pipeline.run" in found["names"]
    assert not found["ruamel"]
    # protobuf asks which implementation to use and whether to check its version; no test sets either.
    # multiprocessing keeps the folder it was imported in (ORIGINAL_DIR): a forked run sets it to its own.
    assert set(found["read"]) <= {
        "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "TEMPORARILY_DISABLE_PROTOBUF_VERSION_CHECK", "<cwd of multiprocessing.process>"
    }, found["read"]


# --- the launcher of long-running runs (tests/forkshim.py) ----------------------------------------

def _launcher(*args: str, env: dict | None = None, cwd=ROOT) -> subprocess.Popen:
    if conftest._fork_server(conftest._run_environment()) is None:
        pytest.skip("DRALINT_TEST_FORK=0: no run is forked")
    return subprocess.Popen(conftest.dralint_command(*args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=env or dict(os.environ))


def _readers_of(stream, launcher: subprocess.Popen) -> set[int]:
    """The processes holding the reading end of the pipe `stream` writes to, once the launcher is done:
    it has handed the streams over (and let go of its copy) or it has exec'd the command."""
    pipe = f"pipe:[{os.fstat(stream.fileno()).st_ino}]"
    server = conftest._servers[0].proc.pid
    readers: set[int] = set()
    for _ in range(800):
        readers = set()
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:  # any descriptor: the language server moves its streams off 0 and 1
                if any(os.readlink(f"/proc/{pid}/fd/{fd}") == pipe for fd in os.listdir(f"/proc/{pid}/fd")):
                    readers.add(int(pid))
            except OSError:
                continue
        if server in readers:  # it closes its copies once the run, or the exec, has them
            pass
        elif launcher.poll() is not None or (readers and launcher.pid not in readers) or not _launching(launcher.pid):
            return readers
        time.sleep(0.025)
    return readers


def _launching(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"forkshim.py" in f.read()
    except OSError:
        return False


def test_a_launched_run_prints_and_exits_as_a_new_process(tmp_path):
    (tmp_path / ".dralint.yaml").write_text("ignore: [DRA713]\n")
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    launcher = _launcher("--format", "json", "-", env=env, cwd=tmp_path)
    out, err = launcher.communicate(CLAIM.encode(), timeout=60)
    new = subprocess.run([*conftest.dralint_exe(), "--format", "json", "-"], input=CLAIM.encode(), capture_output=True, cwd=tmp_path, env=env, timeout=60)
    assert (launcher.returncode, out, err) == (new.returncode, new.stdout, new.stderr)
    assert launcher.returncode == 1 and [p["rule"] for p in json.loads(out)["problems"]] == ["DRA301"]


def test_a_launched_language_server_is_forked_and_ends_by_the_launchers_signal():
    launcher = _launcher("lsp")
    (run,) = _readers_of(launcher.stdin, launcher)
    assert run != launcher.pid  # forked from the server: the launcher holds none of the streams
    launcher.send_signal(signal.SIGTERM)  # forwarded to the run, which dies of it
    assert launcher.wait(timeout=30) == -signal.SIGTERM
    assert launcher.stdout.read() == b""  # nothing holds the stream any more: the run has ended
    launcher.stdin.close()


def test_a_killed_launcher_takes_its_run_with_it():
    launcher = _launcher("lsp")
    (run,) = _readers_of(launcher.stdin, launcher)
    launcher.kill()
    assert launcher.wait(timeout=30) == -signal.SIGKILL
    assert launcher.stdout.read() == b""  # the supervisor saw the launcher go and killed the run
    launcher.stdin.close()


def test_a_launched_run_the_server_cannot_serve_is_a_new_process():
    launcher = _launcher("--no-config", "-", env={**os.environ, "PYTHONHASHSEED": "7"})
    assert _readers_of(launcher.stdin, launcher) == {launcher.pid}  # exec'd in place: the same process
    out, err = launcher.communicate(CLAIM.encode(), timeout=60)
    assert launcher.returncode == 1 and b"DRA301" in out, err
