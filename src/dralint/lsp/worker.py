"""The language server's linter, in a child process it can stop.

Everything that runs configured rules or imports plugins (lint, fix-all, the rule
docs of a buffer's config, sent with its lints) runs in such a child, one request at a time: a rule that never
returns costs that one lint (the child is killed after `lint_timeout()` seconds and a
fresh one started for the next request), not the server; a rule's print() goes
to standard error (file descriptor 1 is pointed there), never into the server's
JSON-RPC stream. The server waits for the answer in a thread, so it keeps
answering the editor meanwhile.

The server has two children: the lint process, and the fix process (fix-all), started at the first
fix-all, so that fixing on save never queues behind another buffer's lint, nor a lint behind a fix.

The child is started with `spawn`, not `fork`: the server has threads (its
reader), and a forked copy of a threaded process may hold their locks.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
from multiprocessing.connection import Connection

from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    import asyncio
    from typing import Any, Callable

logger = logging.getLogger(__name__)


def lint_timeout() -> float:
    """Seconds one request may take before its child is killed. DRALINT_LSP_TIMEOUT_S overrides it
    (a 16 MiB buffer with every rule on can need more than the default on a slow machine). Read when
    a server starts, never at import: importing the module must not depend on the environment."""
    return float(os.environ.get("DRALINT_LSP_TIMEOUT_S", "30"))


START_TIMEOUT = 120.0  # importing dralint in a fresh interpreter; not counted against a lint


class LintTimeout(Exception):
    """The request did not finish in time; its child was killed."""


class WorkerFailed(Exception):
    """The request failed (its message says why) or the child died."""


class Superseded(Exception):
    """By its turn, the request was no longer wanted (its buffer had changed again): not sent."""


class Reply(NamedRecord):
    """A lint's answer. `facts` (rule docs, ...) are sent with the first lint under each config that this
    process answers, and again after a `forget`: the server keeps them, so that hover never asks."""

    __slots__ = ()

    def __new__(
        _cls,
        problems: list,
        kubernetes: bool,
        config_error: str | None,
        config: tuple,  # which config judged it (dralint.lsp.engine.config_key)
        facts: Any,  # dralint.lsp.engine.ConfigFacts, or None: sent before
    ) -> "Reply":
        return tuple_new(_cls, (problems, kubernetes, config_error, config, facts))


_sent: set[tuple] = set()  # the configs whose facts this process has sent


def _lint(path: str, text: str, folders: tuple[str, ...] = ()) -> Reply:
    from . import engine

    outcome = engine.lint_buffer(path, text, folders)
    for problem in outcome.problems:  # built here: their lazy positions and fixes hold the documents
        problem.span = problem.span
        problem.fixes = problem.fixes
    config = engine.config_key(path)
    facts = None
    if config not in _sent:
        facts = engine.config_facts(path)
        _sent.add(config)
    return Reply(outcome.problems, outcome.kubernetes, engine.config_error(path), config, facts)


def _fix(path: str, text: str) -> str:
    from . import engine

    return engine.fix_buffer(path, text)


def _forget() -> None:
    from . import engine

    engine.forget_settings()
    _sent.clear()


def _changed(paths: list[str]) -> None:
    from . import incremental, workspace

    workspace.changed(paths)
    incremental.forget()  # a kustomization among them may make the buffer a patch


OPERATIONS: dict[str, Callable[..., Any]] = {"lint": _lint, "fix": _fix, "forget": _forget, "changed": _changed}


def serve(conn: Connection) -> None:
    """The child's loop: one (operation, arguments) in, one ("ok" | "error", value) out."""
    os.dup2(2, 1)  # print() from a rule or plugin: to standard error
    sys.stdout = sys.stderr
    from .. import runtime

    runtime.enable()  # this child is dralint's own process (dralint.runtime)
    from . import engine  # noqa: F401  (imported before "ready": not counted against the first lint)

    conn.send(("ready", None))
    while True:
        try:
            operation, args = conn.recv()
        except (EOFError, OSError):  # the server is gone
            return
        try:
            reply = ("ok", OPERATIONS[operation](*args))
        except BaseException as exc:  # noqa: BLE001  a rule's SystemExit too: this child serves the next request
            reply = ("error", f"{type(exc).__name__}: {exc}")
        conn.send(reply)


class Worker:
    """The server's handle on one child: `await call(operation, *args)`; requests are answered in order.
    The child is started by the first request (a server that never fixes never starts its fix process).

    asyncio and the thread pool are imported here, on the server's side only: the child imports this
    module for `serve` and lints without them."""

    def __init__(self, timeout: float | None = None, role: str = "lint"):
        from concurrent.futures import ThreadPoolExecutor

        self.timeout = timeout  # None: `lint_timeout()` when the first request is sent
        self.role = role  # what the process is for, in its name and in what a failure says
        self._process: Any = None
        self._conn: Connection | None = None
        self._lock: asyncio.Lock | None = None
        self._first: list[tuple[str, tuple]] = []  # operations sent before the next request (`before_next`)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"dralint-{role}")

    def before_next(self, operation: str, *args: Any) -> None:
        """Send `operation` ahead of the next request, unawaited: a process that is asked seldom (the fix
        process) is told of a config change without anyone waiting for it, and every request made after
        this call is served after it. A failure of it is logged; the request is sent all the same (a
        process that timed out was replaced by a fresh one, which knows nothing to forget)."""
        if (operation, args) not in self._first:
            self._first.append((operation, args))

    async def call(self, operation: str, *args: Any, wanted: Callable[[], bool] | None = None) -> Any:
        """The operation's result. `wanted` is asked when the request's turn comes: typing queues a lint
        per pause, and one of a version already edited again is skipped, not run."""
        import asyncio

        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if wanted is not None and not wanted():
                raise Superseded(operation)
            first, self._first = self._first, []  # taken here, in the event loop's thread, where they are added
            return await asyncio.get_running_loop().run_in_executor(self._thread, self._call, operation, args, first)

    def _call(self, operation: str, args: tuple, first: list[tuple[str, tuple]]) -> Any:
        for earlier, earlier_args in first:
            try:
                self._call_one(earlier, earlier_args)
            except (LintTimeout, WorkerFailed) as exc:
                logger.warning("the %s process could not %s: %s", self.role, earlier, exc)
        return self._call_one(operation, args)

    def _call_one(self, operation: str, args: tuple) -> Any:
        conn = self._ensure()
        try:
            conn.send((operation, args))
            limit = self.timeout if self.timeout is not None else lint_timeout()
            if not conn.poll(limit):
                self.stop()
                raise LintTimeout(f"no answer in {limit:g} s")
            status, value = conn.recv()
        except (EOFError, OSError) as exc:
            code = self._process.exitcode if self._process is not None else None
            self.stop()
            raise WorkerFailed(f"the {self.role} process ended (exit code {code})") from exc
        if status != "ok":
            raise WorkerFailed(value)
        return value

    def _ensure(self) -> Connection:
        if self._conn is not None and self._process is not None and self._process.is_alive():
            return self._conn
        self.stop()
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        process = context.Process(target=serve, args=(theirs,), name=f"dralint-{self.role}", daemon=True)
        process.start()
        theirs.close()
        self._process, self._conn = process, ours
        try:
            ready = ours.poll(START_TIMEOUT) and ours.recv()
        except (EOFError, OSError):
            ready = None
        if not ready:
            self.stop()
            raise WorkerFailed(f"the {self.role} process did not start")
        return ours

    def stop(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if process is not None and process.is_alive():
            process.kill()
        if process is not None:
            process.join(5)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        self.stop()
        self._thread.shutdown(wait=False, cancel_futures=True)
