"""The dralint command line in processes forked from one that has imported it already.

`run_dralint` (conftest.py) runs the console script's `main` in a real process of its own: its
own pid and process group, its own stdin, stdout and stderr (files the test reads back), its
own working directory, environment and exit status, and `sys.exit`, atexit handlers and
thread shutdown as the interpreter does them. What it does not pay for again is the
interpreter's start and the imports, which are the same for every run: a server process
imports the command line and the modules runs import when they need them (`PRELOADED`), once,
and forks one child per run. It never lints: no cache, memo or registry holds anything a
fresh process would not.

What must stay true for a forked run to be the run a user gets:
- nothing the server imports reads the environment or the working directory at import time,
  and it does not import ruamel.yaml, which dralint's loader imports its own way
  (tests/test_forkserver.py);
- a run whose environment differs from the server's in what the interpreter reads at its own
  start (`PYTHON*`, the locale) is not forked: it is started as a new process, as before;
- the child's `__main__` and `sys.argv[0]` are the console script's, and its `sys.path[0]`
  the script's folder, so worker processes see what they would see;
- `DRALINT_TEST_FORK=0` turns forking off: every run is then a new process.

Long-running commands (the language server, whose clients start it themselves) are started with
`ForkServer.command(args)`: a small launcher (tests/forkshim.py, a Python without site or user
packages) hands its own standard streams, working directory and environment to the server over a
Unix socket, and the server forks the run from a supervisor process. The launcher is the process the
test holds: it forwards SIGTERM and SIGINT to the run, ends with the run's exit status (a run killed
by a signal kills it with that signal), and if the launcher itself is killed the run is killed with
it. A run whose environment the server cannot serve is started by the launcher as a new process
(exec, same pid).
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import types
from pathlib import Path

# What the interpreter reads at its own start: a run that sets these otherwise than the server
# had them is started as a new process.
_STARTUP_KEYS = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE")


def startup_environment(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("PYTHON") or k in _STARTUP_KEYS}


class ForkServer:
    """One server process per test process, started on first use."""

    def __init__(self, script: Path, env: dict[str, str]):
        self.script = script
        self.startup = startup_environment(env)
        self.folder = tempfile.mkdtemp(prefix="dralint-fork-")
        self.address = os.path.join(self.folder, "spawn")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, str(script), self.address],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=script.parent,
        )
        ready = _read(self.proc.stdout)
        if not (isinstance(ready, tuple) and ready[0] == "ready"):
            raise RuntimeError("the fork server did not start")
        # What the server imported, and what of the environment and working directory it read meanwhile.
        self.preloaded: dict = ready[1]

    def command(self, args: list[str]) -> list[str]:
        """A command line whose process runs `dralint ARGS` forked from this server (tests/forkshim.py)."""
        return [sys.executable, "-I", "-S", str(Path(__file__).with_name("forkshim.py")), self.address, str(self.script), *args]

    def serves(self, env: dict[str, str]) -> bool:
        return self.proc.poll() is None and startup_environment(env) == self.startup

    def run(self, args: list[str], stdin: bytes, cwd: str, env: dict[str, str], timeout: float) -> tuple[int, bytes, bytes]:
        _write(self.proc.stdin, (args, stdin, cwd, env, timeout))
        reply = _read(self.proc.stdout)
        if reply is None:
            raise RuntimeError(f"the fork server ended during `dralint {' '.join(args)}` (exit {self.proc.wait()})")
        if reply == "timeout":
            raise subprocess.TimeoutExpired([str(self.script), *args], timeout)
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        for name in os.listdir(self.folder):
            os.unlink(os.path.join(self.folder, name))
        os.rmdir(self.folder)


def _write(stream, value) -> None:
    data = pickle.dumps(value)
    stream.write(struct.pack("!Q", len(data)) + data)
    stream.flush()


def _read(stream):
    head = stream.read(8)
    if len(head) < 8:
        return None
    (size,) = struct.unpack("!Q", head)
    return pickle.loads(stream.read(size))


# --- the server --------------------------------------------------------------------------------

# Imported by the server besides the command line: dralint's modules but the webhook (its modules
# read the environment when imported), the test harness, and migrate (it imports ruamel.yaml); and
# the libraries a run imports lazily.
_NOT_PRELOADED = frozenset({"webhook", "testing", "__main__", "migrate"})
_LIBRARIES = ("jsonschema", "cel_expr_python", "google.protobuf.descriptor_pb2")


def preload() -> list[str]:
    """Import what the server keeps imported for its children; the names imported."""
    import importlib
    import pkgutil

    import dralint

    names = [m.name for m in pkgutil.walk_packages(dralint.__path__, "dralint.") if m.name.split(".")[1] not in _NOT_PRELOADED]
    for name in (*names, *_LIBRARIES):
        importlib.import_module(name)
    if "ruamel.yaml" in sys.modules:
        raise RuntimeError("a preloaded module imported ruamel.yaml: add it to _NOT_PRELOADED")
    return [*names, *_LIBRARIES]


def traced_preload() -> dict:
    """`preload()`, and what it read meanwhile: the environment's keys, and the working directory
    (by the module that asked). Read at import, a variable or the folder would be the server's,
    not the run's (tests/test_forkserver.py)."""
    read: list[str] = []
    environ_class, getcwd = type(os.environ), os.getcwd

    class Tracing(environ_class):  # type: ignore[misc, valid-type]
        def __getitem__(self, key):
            read.append(key)
            return super().__getitem__(key)

        def __contains__(self, key):
            read.append(key)
            return super().__contains__(key)

    def traced_getcwd() -> str:
        read.append("<cwd of %s>" % sys._getframe(1).f_globals.get("__name__"))
        return getcwd()

    os.environ.__class__, os.getcwd = Tracing, traced_getcwd
    try:
        names = preload()
    finally:
        os.environ.__class__, os.getcwd = environ_class, getcwd
    return {"read": read, "names": names, "ruamel": "ruamel.yaml" in sys.modules}


def _serve(script: str, address: str) -> None:
    # The console script's folder first on the path, as when the script itself runs.
    sys.path[0] = os.path.dirname(script)
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen()
    preloaded = traced_preload()
    startup = startup_environment(dict(os.environ))
    _write(replies, ("ready", preloaded))
    keep = (requests.fileno(), replies.fileno(), listener.fileno())
    while True:
        # A run request is answered before the next is sent, so the reader's buffer is empty here.
        ready, _, _ = select.select([requests, listener], [], [])
        if listener in ready:
            _start(script, listener, startup, keep)
        if requests in ready:
            request = _read(requests)
            if request is None:
                return
            _write(replies, _one_run(script, *request, keep=keep))


# --- long-running commands (tests/forkshim.py) ---------------------------------------------------

def _start(script: str, listener: socket.socket, startup: dict[str, str], keep: tuple[int, ...]) -> None:
    """One launcher's request: its standard streams come with it; the run is forked from a supervisor
    that is no child of the server (the server never waits for a run that outlives the request)."""
    conn, _ = listener.accept()
    fds: list[int] = []
    try:
        try:
            _, fds, _, _ = socket.recv_fds(conn, 1, 3)
            args, cwd, env = _read(conn.makefile("rb"))
        except (OSError, TypeError, ValueError, EOFError, pickle.UnpicklingError):
            return  # a launcher gone mid-request: nothing to start, the server serves on
        if len(fds) != 3 or startup_environment(env) != startup:
            for fd in fds:
                os.close(fd)
            fds = []
            with contextlib.suppress(OSError):  # (a launcher gone meanwhile has nothing to start)
                conn.sendall(b"N")  # the launcher starts the command as a new process
            return
        middle = os.fork()
        if middle == 0:
            try:
                for fd in keep:
                    os.close(fd)
                if os.fork() == 0:
                    _supervise(conn, fds, script, args, cwd, env)
            finally:
                os._exit(0)
        os.waitpid(middle, 0)
    finally:
        conn.close()
        for fd in fds:
            os.close(fd)


def _supervise(conn: socket.socket, fds: list[int], script: str, args: list[str], cwd: str, env: dict[str, str]) -> None:
    pid = os.fork()
    if pid == 0:
        conn.close()
        os.setpgid(0, 0)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        os._exit(_child(script, args, cwd, env))
    try:  # here too: a launcher killed before the child has run this far still finds the group
        os.setpgid(pid, pid)
    except OSError:  # the child has ended already
        pass
    for fd in fds:
        os.close(fd)
    conn.sendall(b"Y" + struct.pack("!Q", pid))
    pidfd = os.pidfd_open(pid)
    while True:
        ready, _, _ = select.select([conn, pidfd], [], [])
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
            conn.sendall(struct.pack("!i", status))
            return
        if not conn.recv(64):  # the launcher is gone: so is the process the test held
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return


def _one_run(script: str, args: list[str], stdin: bytes, cwd: str, env: dict[str, str], timeout: float, keep: tuple[int, int]):
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        fin.write(stdin)
        fin.seek(0)
        pid = os.fork()
        if pid == 0:
            for fd in keep:
                os.close(fd)
            os.setpgid(0, 0)
            os.dup2(fin.fileno(), 0)
            os.dup2(fout.fileno(), 1)
            os.dup2(ferr.fileno(), 2)
            os._exit(_child(script, args, cwd, env))
        pidfd = os.pidfd_open(pid)
        try:
            ready, _, _ = select.select([pidfd], [], [], timeout)
        finally:
            os.close(pidfd)
        if not ready:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout"
        _, status = os.waitpid(pid, 0)
        fout.seek(0)
        ferr.seek(0)
        return os.waitstatus_to_exitcode(status), fout.read(), ferr.read()


def _child(script: str, args: list[str], cwd: str, env: dict[str, str]) -> int:
    """The console script's `sys.exit(main())`, and what the interpreter does after it."""
    import atexit
    import threading
    import traceback

    try:
        os.chdir(cwd)
        if "multiprocessing.process" in sys.modules:  # the folder it records at import, for its spawned children
            sys.modules["multiprocessing.process"].ORIGINAL_DIR = os.path.abspath(cwd)
        os.environ.clear()
        os.environ.update(env)
        main_module = types.ModuleType("__main__")
        main_module.__file__ = script
        main_module.__builtins__ = __builtins__
        sys.modules["__main__"] = main_module
        sys.argv = [script, *args]
        _fresh_stdio()
        from dralint.console import main  # the console script's entry (pyproject.toml)

        code = _exit_code(main)
    except BaseException:  # what the interpreter does with an exception nothing caught
        traceback.print_exc()
        code = 1
    try:
        threading._shutdown()  # non-daemon threads are waited for, as at the interpreter's exit
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        traceback.print_exc()
        return 120
    return code


def _exit_code(main) -> int:
    try:
        code = main()
    except SystemExit as exit:
        code = exit.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _fresh_stdio() -> None:
    """Standard streams over the new descriptors, made as the interpreter makes them for files."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        old = getattr(sys, name)
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        buffered = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(buffered, encoding=old.encoding, errors=old.errors, line_buffering=fd == 2)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


if __name__ == "__main__":
    _serve(sys.argv[1], sys.argv[2])
    # The test process closed its end: nothing is left to flush or to run at exit, and tearing down
    # what the server imported would keep that test process waiting at its session's end.
    os._exit(0)
