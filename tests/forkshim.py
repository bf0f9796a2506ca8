"""Launcher of one long-running `dralint` command forked from the tests' fork server (forkserver.py).

Run as `python -I -S forkshim.py ADDRESS SCRIPT ARGS...` by a client that starts its server itself
(pytest-lsp, the raw stdio client): this process is the one the client holds. It hands the fork
server its standard streams, working directory and environment, then keeps none of the streams,
so they end when the run ends; it forwards SIGTERM, SIGINT and SIGHUP to the run, and ends with
the run's exit status, or by the signal that killed the run. Killed itself, its socket closes
and the supervisor kills the run. Where the server cannot serve the run (no server, or an
environment that asks the interpreter for another start), it becomes `SCRIPT ARGS...` by exec:
a new process, as without the fork server.

Only the standard library, no site packages: it must start in a few milliseconds.
"""

import os
import pickle
import signal
import socket
import struct
import sys

_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _hand_over(address: str, args: list[str]) -> tuple[socket.socket, int] | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(address)
        socket.send_fds(sock, [b"R"], [0, 1, 2])
        data = pickle.dumps((args, os.getcwd(), dict(os.environ)))
        sock.sendall(struct.pack("!Q", len(data)) + data)
        if _exactly(sock, 1) != b"Y":
            sock.close()
            return None
        (pid,) = struct.unpack("!Q", _exactly(sock, 8))
        return sock, pid
    except (OSError, EOFError):
        sock.close()
        return None


def main() -> None:
    address, script, *args = sys.argv[1:]
    handed = _hand_over(address, args)
    if handed is None:
        os.execv(script, [script, *args])
    sock, pid = handed
    for sig in _FORWARDED:
        signal.signal(sig, lambda number, _frame: os.kill(pid, number))
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    try:
        (status,) = struct.unpack("!i", _exactly(sock, 4))
    except (OSError, EOFError):
        os._exit(125)  # the supervisor vanished: the run's status is unknown
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


if __name__ == "__main__":
    main()
