"""Judging reviews away from the event loop: forked judge processes, one review each at a time.

    verdict = judge(body, policy, on_error)          # pure: bytes in, the answer and what to log out
    pool = JudgePool(lambda body: judge(...), size)   # `size` forked processes
    pool.start()                                      # before the event loop runs
    verdict = await pool.judge(body, timeout)         # JudgeTimeout / JudgeLost when it cannot answer

Why processes and not threads: CEL checking is C++ that holds the GIL for the
whole of each compile, and the rules are Python.
In a thread, a heavy claim (32 requests x 32 such selectors: seconds of work)
leaves the event loop the GIL only between those calls, so probes and every
other review wait behind it. A process shares nothing with the loop, can use
the other core, and can be killed when its review runs past its time, which
a thread cannot.

A judge is forked from the worker after the rules and schemas are loaded, so
it starts warm and shares those pages. It reads a length-prefixed body from
its socket, answers with a pickled Verdict, and exits when the socket closes
(its worker stopped) or, through PR_SET_PDEATHSIG, when its worker dies. A
judge that runs past the review's time is killed and replaced.

A judge can also die or be stopped (SIGSTOP, a debugger) while it waits for
work. Each one is looked at (waitpid, which reports a death or a stop without
blocking) before it is handed a review, and while it judges one every
WATCH_SECONDS: a dead or stopped judge is replaced at once and the review goes
to the fresh one, so it costs neither a verdict nor a full --review-timeout.

A judge's memory is capped (RLIMIT_DATA at what it has when forked, plus its
thread's stack, plus --judge-memory-bytes): a body of 3 MiB can hold a million
empty objects, many times its size once parsed and checked, and a pod's
judges at that at once would pass its memory limit. A review that needs more is
answered per --on-error, and that judge then exits (what the review left
allocated or scattered goes with it) to be replaced by a fresh fork.

Judging runs in a thread with a large stack and a recursion limit above the
10,000 levels of nesting that the API server's JSON decoder accepts, so any
object the API server can send is parsed and checked, never refused for
depth.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import pickle
import signal
import socket
import struct
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, Callable

from ..records import NamedRecord, tuple_new
from . import review as rv

log = logging.getLogger("dralint.webhook")

MAX_NESTING = 10_000  # Go's encoding/json (and so the API server) decodes no deeper
JUDGE_RECURSION_LIMIT = MAX_NESTING + 2_000  # the review's own levels and the checking code's frames
JUDGE_STACK_BYTES = 256 * 1024 * 1024  # address space only: pages are used as the stack grows
OUT_OF_MEMORY = "it needs more memory than --judge-memory-bytes allows"
WATCH_SECONDS = 0.1  # how often a busy judge is looked at for having died or been stopped
_LENGTH = struct.Struct("!Q")
_PR_SET_PDEATHSIG = 1


class Verdict(NamedRecord):
    """The answer to one request, and what the worker counts and logs about it."""

    __slots__ = ()

    def __new__(
        _cls,
        status: int,  # 200: `body` is an AdmissionReview; 400: a metav1.Status (not a review)
        body: bytes,
        outcome: str,  # allowed | denied | error | malformed
        uid: str | None,
        kind: str,
        log: dict[str, Any],  # fields of the log line
        codes: tuple[str, ...] = (),  # rule codes of every problem reported
        warnings: int = 0,
    ) -> "Verdict":
        return tuple_new(_cls, (status, body, outcome, uid, kind, log, codes, warnings))


class JudgeTimeout(Exception):
    """The review was not judged within its time (queued behind others, or judged too long)."""


class JudgeLost(Exception):
    """The judge process died while judging (killed by the kernel, a crash in C code)."""


# --------------------------------------------------------------------------- one review, start to end


def judge(body: bytes, policy: rv.Policy, on_error: str, decide: Callable[[dict[str, Any], rv.Policy], rv.Decision] = rv.decide) -> Verdict:
    """Parse, decide and encode one review; never raises (a failure is answered as `on_error` says)."""
    try:
        request = rv.parse_review(body)
    except MemoryError:
        return failed(rv.peek_head(body), on_error, "MemoryError while reading the review", OUT_OF_MEMORY)
    except rv.ReviewError as exc:
        message = f"malformed AdmissionReview: {exc}"
        return Verdict(400, rv.encode(rv.bad_request_status(message)), "malformed", rv.peek_uid(body), "", {"error": str(exc)})
    try:
        decision = decide(request, policy)
        if decision.failures:
            failure = decision.failures[0]
            return failed(request_info(request), on_error, failure.message, "a rule failed (DRA901)")
        answer = rv.encode(decision.review)
    except MemoryError:
        return failed(request_info(request), on_error, "MemoryError while checking the review", OUT_OF_MEMORY)
    except Exception as exc:  # noqa: BLE001 - dralint failed: answered per --on-error, never a stack trace to the caller
        return failed(request_info(request), on_error, f"{type(exc).__name__}: {exc}", type(exc).__name__, traceback.format_exc(limit=20))
    verdict = "allowed" if decision.allowed else "denied"
    fields = {
        "uid": decision.uid,
        "operation": decision.operation,
        "kind": decision.kind,
        "object": f"{decision.namespace}/{decision.name}" if decision.namespace else decision.name,
        "dry_run": decision.dry_run,
        "verdict": verdict,
        "problems": [f"{p.rule}@{rv.format_path(p.path)}" for p in decision.denying][:20],
        "warnings": len(decision.warnings),
    }
    # Counted as sent: what denies and what warns; infos never reach the client, so neither the metric.
    sent = tuple(p.rule for p in decision.problems if p.severity >= rv.Severity.WARNING)
    return Verdict(200, answer, verdict, decision.uid, decision.kind, fields, sent, len(decision.warnings))


def peek(body: bytes) -> dict[str, Any]:
    """uid, kind, operation and object of a review no judge answered, read on the event loop: from the
    head of the body only (review.peek_head), never by parsing the whole of it there."""
    return rv.peek_head(body)


def request_info(request: dict[str, Any]) -> dict[str, Any]:
    """uid, kind, operation and object of a request, for answering and logging a failure."""
    gvk = request.get("kind")
    kind = gvk.get("kind") if isinstance(gvk, dict) else None
    return {
        "uid": request.get("uid"),
        "kind": kind if isinstance(kind, str) else "",
        "operation": request.get("operation"),
        "namespace": request.get("namespace"),
        "name": request.get("name"),
    }


def failed(info: dict[str, Any], on_error: str, error: str, what: str, trace: str | None = None) -> Verdict:
    """The answer when dralint could not judge a review: allowed or denied as --on-error says."""
    allowed = on_error == "allow"
    outcome = "allowed" if allowed else "denied"
    uid, kind = info.get("uid"), info.get("kind") or ""
    fields = {
        "reason": what,
        "uid": uid,
        "kind": kind,
        "object": "/".join(x for x in (info.get("namespace"), info.get("name")) if isinstance(x, str) and x),
        "operation": info.get("operation"),
        "on_error": on_error,
        "verdict": outcome,
        "error": error,
    }
    if trace:
        fields["traceback"] = trace
    if not isinstance(uid, str) or not uid:
        # Only when the body could not even be read again for its uid: there is no review to answer.
        status = rv.bad_request_status(f"dralint could not check this request ({what}) nor read its uid", 500, "InternalError")
        return Verdict(500, rv.encode(status), "error", None, kind, fields)
    message = f"dralint could not check this object ({what}); {outcome} by --on-error={on_error}"
    return Verdict(200, rv.encode(rv.error_review(uid, allowed, message)), "error", uid, kind, fields)


# --------------------------------------------------------------------------- the pool


class _Judge:
    __slots__ = ("pid", "sock", "reaped")

    def __init__(self, pid: int, sock: socket.socket):
        self.pid = pid
        self.sock = sock
        self.reaped = False  # waited for: its pid may already belong to another process

    def trouble(self) -> str | None:
        """Whether this judge can no longer judge: "died", "stopped", or None (alive; it may be busy)."""
        if self.reaped:
            return "died"
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            self.reaped = True
            return "died"
        if pid == 0:
            return None
        if os.WIFSTOPPED(status):
            return "stopped"  # reported once: the judge is replaced now
        self.reaped = True
        return "died"


class JudgePool:
    def __init__(self, work: Callable[[bytes], Verdict], size: int, memory_bytes: int | None = None):
        self.work = work
        self.size = size
        self.memory_bytes = memory_bytes  # each judge's memory beyond what it has when forked; None: no cap
        self._idle: asyncio.Queue[_Judge] | None = None
        self._spare: list[_Judge] = []  # started before the loop; queued on first use
        self._all: dict[int, _Judge] = {}  # pid -> judge, idle or busy

    def start(self) -> None:
        """Fork the judges (call it before the event loop starts: nothing else is running to be copied)."""
        self._spare = [self._spawn() for _ in range(self.size)]

    def _queue(self) -> asyncio.Queue[_Judge]:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for judge_ in self._spare:
                self._idle.put_nowait(judge_)
            self._spare = []
        return self._idle

    async def judge(self, body: bytes, timeout: float) -> Verdict:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            return await self._attempt(body, deadline, timeout)
        except JudgeLost:
            # Once more on another judge: the first may have died before it got the review (killed
            # while idle); a review that kills its judge kills the second too, and is answered then.
            return await self._attempt(body, deadline, timeout)

    async def _attempt(self, body: bytes, deadline: float, timeout: float) -> Verdict:
        idle = self._queue()
        try:
            async with asyncio.timeout_at(deadline):
                judge_ = await idle.get()
        except TimeoutError:
            raise JudgeTimeout(f"no judge free within {timeout:g} s") from None
        trouble = judge_.trouble()
        if trouble is not None:  # died or stopped while idle: this review goes to a fresh judge
            judge_ = self._fresh(judge_, trouble)
        try:
            async with asyncio.timeout_at(deadline):
                verdict = await self._watched(judge_, body)
        except BaseException as exc:
            # Timed out, died, or the request was cancelled: the judge is in an unknown state.
            self._replace(judge_)
            if isinstance(exc, TimeoutError):
                raise JudgeTimeout(f"not judged within {timeout:g} s") from None
            if isinstance(exc, _Stopped):
                log.warning("a judge process stopped while judging; started another", extra={"judge_pid": judge_.pid})
                raise JudgeLost("the judge process was stopped") from None
            if isinstance(exc, (OSError, EOFError, pickle.UnpicklingError)):
                log.warning("a judge process died; started another", extra={"judge_pid": judge_.pid, "error": f"{type(exc).__name__}: {exc}"})
                raise JudgeLost(f"the judge process died ({type(exc).__name__}: {exc})") from None
            raise
        idle.put_nowait(judge_)
        return verdict

    async def _watched(self, judge_: _Judge, body: bytes) -> Verdict:
        """The judge's verdict on `body`; _Stopped as soon as the judge is seen stopped (a death ends the exchange itself).

        A timer looks at the judge every WATCH_SECONDS and cancels this task when it finds it stopped:
        no task or wait is added to a review that is answered in time, which is nearly all of them."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        seen_stopped = False

        def look() -> None:
            nonlocal timer, seen_stopped
            if judge_.trouble() == "stopped":
                seen_stopped = True
                task.cancel()
            else:
                timer = loop.call_later(WATCH_SECONDS, look)

        timer = loop.call_later(WATCH_SECONDS, look)
        try:
            return await _exchange(loop, judge_.sock, body)
        except asyncio.CancelledError:
            if seen_stopped and task.uncancel() == 0:  # our cancellation, not the request's or a timeout's
                raise _Stopped from None
            raise
        finally:
            timer.cancel()

    def _fresh(self, judge_: _Judge, trouble: str) -> _Judge:
        """A new judge in place of one found dead or stopped before it was handed a review."""
        log.warning(f"a judge process {trouble} while idle; started another", extra={"judge_pid": judge_.pid})
        self._all.pop(judge_.pid, None)
        _end(judge_)
        try:
            return self._spawn()
        except OSError as exc:  # fork refused (memory, process limit): serve with one judge fewer
            log.error("could not start a judge process", extra={"error": str(exc), "judges": self._queue().qsize()})
            raise JudgeLost(f"the judge process {trouble} and no other could be started ({exc})") from None

    def _replace(self, judge_: _Judge) -> None:
        self._all.pop(judge_.pid, None)
        _end(judge_)
        try:
            self._queue().put_nowait(self._spawn())
        except OSError as exc:  # fork refused (memory, process limit): serve with one judge fewer
            log.error("could not start a judge process", extra={"error": str(exc), "judges": self._queue().qsize()})

    def close(self) -> None:
        """End every judge: the server has answered all it will, so what a judge still does is dropped."""
        for judge_ in self._all.values():
            _end(judge_)
        self._all.clear()
        self._spare = []
        self._idle = None

    def _spawn(self) -> _Judge:
        ours, theirs = socket.socketpair()
        worker = os.getpid()
        pid = os.fork()
        if pid == 0:  # the judge
            code = 1
            try:
                ours.close()
                code = _judge_main(theirs, self.work, worker, self.memory_bytes)
            finally:
                os._exit(code)
        theirs.close()
        ours.setblocking(False)
        judge_ = self._all[pid] = _Judge(pid, ours)
        return judge_


class _Stopped(Exception):
    """The judge was seen stopped (SIGSTOP, a debugger) while judging."""


def _end(judge_: _Judge) -> None:
    judge_.sock.close()
    if judge_.reaped:
        return
    try:
        os.kill(judge_.pid, signal.SIGKILL)  # a stopped process dies of it too
    except ProcessLookupError:
        pass
    try:
        os.waitpid(judge_.pid, 0)  # SIGKILL is not refused: this returns at once
    except ChildProcessError:
        pass


async def _exchange(loop: asyncio.AbstractEventLoop, sock: socket.socket, body: bytes) -> Verdict:
    header = _LENGTH.pack(len(body))
    if len(body) < 65536:
        await loop.sock_sendall(sock, header + body)
    else:  # no copy of a large body
        await loop.sock_sendall(sock, header)
        await loop.sock_sendall(sock, body)
    (length,) = _LENGTH.unpack(await _receive(loop, sock, _LENGTH.size))
    return pickle.loads(await _receive(loop, sock, length))


async def _receive(loop: asyncio.AbstractEventLoop, sock: socket.socket, size: int) -> bytearray:
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        n = await loop.sock_recv_into(sock, view[got:])
        if n == 0:
            raise EOFError("the judge closed its socket")
        got += n
    return data


# --------------------------------------------------------------------------- inside a judge


def _judge_main(sock: socket.socket, work: Callable[[bytes], Verdict], worker: int, memory_bytes: int | None) -> int:
    # The worker's listening socket and client connections were copied by fork: a judge holding
    # them would keep connections open that the worker closed. Keep only our socket and stdio.
    fd = sock.fileno()
    os.closerange(3, fd)
    os.closerange(fd + 1, 1 << 20)
    # Stopping is the worker's business: on SIGTERM it lets reviews in flight finish, which needs us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.set_wakeup_fd(-1)  # the event loop's wake-up pipe was closed above
    _die_with_parent(worker)
    sock.setblocking(True)
    sys.setrecursionlimit(JUDGE_RECURSION_LIMIT)
    threading.stack_size(JUDGE_STACK_BYTES)
    if memory_bytes is not None:
        _cap_memory(JUDGE_STACK_BYTES + memory_bytes)  # the stack is a private writable mapping: counted
    serving = threading.Thread(target=_serve, args=(sock, work), name="judge")
    serving.start()
    serving.join()
    return 0


def _cap_memory(extra: int) -> None:
    """RLIMIT_DATA (private writable memory: heap, anonymous mappings) at what this process has plus `extra`."""
    try:
        import resource  # not on Windows

        status = Path("/proc/self/status").read_text()
        used = next(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmData:"))
        _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = used + extra if hard == resource.RLIM_INFINITY else min(hard, used + extra)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, OSError, StopIteration, ValueError) as exc:  # not Linux: judges run uncapped
        log.warning("could not cap a judge's memory", extra={"error": f"{type(exc).__name__}: {exc}"})


def _die_with_parent(worker: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the judge still exits when its socket closes
        pass
    if os.getppid() != worker:  # the worker died before prctl took effect
        os._exit(0)


def _serve(sock: socket.socket, work: Callable[[bytes], Verdict]) -> None:
    while True:
        header = _receive_blocking(sock, _LENGTH.size)
        if header is None:
            return
        body = _receive_blocking(sock, _LENGTH.unpack(header)[0])
        if body is None:
            return
        verdict = work(bytes(body))
        del body
        data = pickle.dumps(verdict, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            sock.sendall(_LENGTH.pack(len(data)) + data)
        except OSError:  # the worker gave up on this review (and will kill us) or stopped
            return
        if verdict.log.get("reason") == OUT_OF_MEMORY:
            # What the failed review left allocated (or scattered) stays ours: end, and the worker forks
            # a fresh judge in our place when it next looks.
            return


def _receive_blocking(sock: socket.socket, size: int) -> bytearray | None:
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return data
