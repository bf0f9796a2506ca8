"""Running the webhook: uvicorn on a socket we bind, N forked workers, signals.

* The listening socket is bound once, before any worker exists, so `--port 0`
  has one answer and every worker accepts on the same socket.
* `--workers 1` serves in this process. `--workers N` forks N workers after
  the rules and schemas are loaded and warmed (they share those pages) and
  supervises them: a worker that dies is started again on the same metrics
  row; SIGTERM/SIGINT are passed on to every worker, and a worker still busy
  after the shutdown timeout is killed.
* Graceful shutdown is uvicorn's: on SIGTERM it stops accepting, closes idle
  keep-alive connections, lets the requests in flight finish (bounded by
  --shutdown-timeout), then exits 0.
* uvicorn has a keep-alive (idle) timeout but no deadline for a request's
  headers; `_guarded_protocol` adds one (and a header size cap), and the app
  bounds the body, so a slow client cannot hold a connection for long. The
  TLS handshake gets --read-timeout too (the event loop's default is 60 s):
  uvicorn does not pass a handshake timeout, so our event loop sets it.
* Each worker forks its judge processes (judging.py) before its event loop
  starts, and kills them when it stops.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import signal
import socket
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from .app import WebhookApp
from .tls import ReloadingContext

log = logging.getLogger("dralint.webhook")
lifecycle = logging.getLogger("dralint.webhook.lifecycle")

MAX_HEADER_BYTES = 64 * 1024
TOO_LARGE = "Request headers too large."


@dataclass
class ServerSettings:
    host: str
    port: int
    cert_file: str
    key_file: str
    workers: int = 1
    read_timeout: float = 10.0
    idle_timeout: float = 60.0
    shutdown_timeout: float = 25.0
    cert_reload_interval: float = 10.0
    backlog: int = 1024


def bind(host: str, port: int, backlog: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=backlog, reuse_port=False)
    sock.set_inheritable(True)
    return sock


def _guarded_protocol(read_timeout: float) -> type:
    """uvicorn's httptools protocol with a deadline (and a size cap) for each request's headers.

    The clock starts when a connection opens or a new request's first byte
    arrives, and stops when the headers are complete; the app then bounds the
    body. Between requests uvicorn's own keep-alive timeout applies.
    """
    # uvicorn loads when the server starts, not for `serve --help` or a configuration error.
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpToolsProtocol(HttpToolsProtocol):
        _header_timer: Any = None
        _header_bytes = 0
        _parsed_header_bytes = 0
        _oversized = False

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            # Headers still unfinished after this read: the bytes count against the cap, so a block that
            # never ends is refused as soon as it passes it (the parser callbacks count finished lines).
            if self._header_timer is not None and not self.transport.is_closing():
                self._header_bytes += len(data)
                if self._header_bytes > MAX_HEADER_BYTES:
                    self._disarm()
                    self.send_400_response(TOO_LARGE)

        def on_url(self, url: bytes) -> None:
            self._count_header(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count_header(len(name) + len(value) + 4)
            super().on_header(name, value)

        def _count_header(self, size: int) -> None:
            # A whole header block can arrive in one read and be parsed before data_received sees it.
            self._parsed_header_bytes += size
            if self._parsed_header_bytes > MAX_HEADER_BYTES:
                self._oversized = True
                raise ValueError(TOO_LARGE)  # stops the parser; uvicorn answers 400 and closes

        def send_400_response(self, msg: str) -> None:
            if self._oversized:
                msg = TOO_LARGE
                log.warning("refusing request headers over the cap", extra={"client": "%s:%d" % self.client if self.client else None, "limit": MAX_HEADER_BYTES})
            super().send_400_response(msg)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._parsed_header_bytes = 0
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_bytes = 0
                self._header_timer = self.loop.call_later(read_timeout, self._header_timeout)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _header_timeout(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                log.warning("closing a connection whose request headers did not arrive in time",
                            extra={"client": "%s:%d" % self.client if self.client else None, "timeout_seconds": read_timeout})
                self.transport.close()

    return GuardedHttpToolsProtocol


# How long a connection the server closes may take to answer its TLS close_notify. Every answer that
# closes carries its Content-Length, so nothing is lost by not waiting longer; meanwhile the connection
# is read (and decrypted) to find that close_notify: a client refused (413, 503) that goes on sending
# its body would otherwise be read, buffers and all, for the event loop's default of 30 s.
TLS_SHUTDOWN_SECONDS = 0.5


def _loop_factory(handshake_timeout: float = 60.0) -> Callable[[], asyncio.AbstractEventLoop]:
    """uvloop (else asyncio's loop) whose TLS servers drop a client that has not finished its handshake in
    time, and end a closing connection whose client does not answer the TLS shutdown in time."""
    # Optional (not on Windows), and loaded only when the server starts.
    try:
        import uvloop

        base: type = uvloop.Loop
    except ImportError:  # pragma: no cover - uvloop is optional (not on Windows)
        base = asyncio.SelectorEventLoop

    class Loop(base):  # type: ignore[misc, valid-type]
        async def create_server(self, *args: Any, **kwargs: Any) -> Any:
            if kwargs.get("ssl") is not None:
                kwargs.setdefault("ssl_handshake_timeout", handshake_timeout)
                kwargs.setdefault("ssl_shutdown_timeout", TLS_SHUTDOWN_SECONDS)
            return await super().create_server(*args, **kwargs)

    return Loop


_M_MMAP_THRESHOLD = -3
LARGE_BUFFER_BYTES = 128 * 1024


def _return_large_buffers() -> None:
    """Have glibc give every buffer over 128 KiB its own mapping, returned to the system when freed.

    Its default raises that threshold to the size of the largest buffer freed (up to 32 MiB): after
    the first 3 MiB body, bodies come from the heap, which fragments and keeps its peak for good.
    A worker (and its judges, forked from it) sees many such bodies come and go.
    """
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(_M_MMAP_THRESHOLD, LARGE_BUFFER_BYTES)  # also ends the dynamic threshold
    except (OSError, AttributeError):  # not glibc: its allocator's own policy applies
        pass


def run_worker(app: WebhookApp, sock: socket.socket, settings: ServerSettings, slot: int) -> int:
    """Serve on `sock` until SIGTERM/SIGINT; return the exit code."""
    # See GuardedHttpToolsProtocol: uvicorn loads in the serving process only.
    import uvicorn

    app.metrics.bind(slot)
    _return_large_buffers()
    tls = ReloadingContext(settings.cert_file, settings.key_file, on_reload=app.metrics.reload)
    config = uvicorn.Config(
        app,
        http=_guarded_protocol(settings.read_timeout),
        lifespan="off",
        access_log=False,
        log_config=None,
        timeout_keep_alive=int(max(1, settings.idle_timeout)),
        timeout_graceful_shutdown=int(max(1, settings.shutdown_timeout)),
        server_header=False,
        date_header=False,
        backlog=settings.backlog,
    )
    config.load()
    config.ssl = tls.listener  # our context (uvicorn's would be fixed for the process's life)

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            app.ready = self.started

        def handle_exit(self, sig: int, frame: Any) -> None:
            app.ready = False
            if not self.should_exit:
                lifecycle.info("stopping: finishing the requests in flight", extra={"signal": signal.Signals(sig).name})
            super().handle_exit(sig, frame)

    server = Server(config)

    async def main() -> None:
        watcher = asyncio.create_task(tls.watch(settings.cert_reload_interval))
        try:
            await server.serve(sockets=[sock])
        finally:
            watcher.cancel()

    # uvicorn re-raises the signal it stopped for once it has shut down; by then
    # there is nothing left to do, so the re-raised signal must not kill us.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: None)
    app.start_judges()
    try:
        with asyncio.Runner(loop_factory=_loop_factory(settings.read_timeout)) as runner:
            runner.run(main())
    finally:
        app.stop_judges()
    lifecycle.info("stopped", extra={"worker": slot})
    return 0


def supervise(app: WebhookApp, sock: socket.socket, settings: ServerSettings) -> int:
    """Fork `settings.workers` workers and keep them running until SIGTERM/SIGINT."""
    children: dict[int, int] = {}  # pid -> slot
    state = {"stopping": False, "failed": False}

    def spawn(slot: int) -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 1
            try:
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
                    signal.signal(sig, signal.SIG_DFL)
                code = run_worker(app, sock, settings, slot)
            except BaseException:
                log.error("worker failed", extra={"worker": slot, "traceback": traceback.format_exc()})
            finally:
                logging.shutdown()
                os._exit(code)
        children[pid] = slot

    def stop(sig: int, _frame: Any) -> None:
        if not state["stopping"]:
            lifecycle.info("stopping workers", extra={"signal": signal.Signals(sig).name, "workers": len(children)})
            state["stopping"] = True
            signal.alarm(int(settings.shutdown_timeout) + 5)
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def kill(_sig: int, _frame: Any) -> None:
        for pid in list(children):
            log.error("worker did not stop in time; killing it", extra={"worker_pid": pid})
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGALRM, kill)
    for slot in range(settings.workers):
        spawn(slot)
    restarts: list[float] = []
    while children:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        slot = children.pop(pid, None)
        if slot is None:
            continue
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            state["failed"] = True
        if state["stopping"]:
            continue
        now = time.monotonic()
        restarts = [t for t in restarts if now - t < 60] + [now]
        log.error("worker exited unexpectedly; starting it again", extra={"worker": slot, "exit_code": code})
        if len(restarts) > 10 * settings.workers:
            log.error("workers keep dying; giving up")
            stop(signal.SIGTERM, None)
            continue
        time.sleep(0.5)
        if not state["stopping"]:
            spawn(slot)
    signal.alarm(0)
    sock.close()
    return 1 if state["failed"] else 0


def serve(app: WebhookApp, settings: ServerSettings) -> int:
    # Import the HTTP stack before forking, so that the workers share it instead of each loading it.
    import uvicorn  # noqa: F401
    from uvicorn.protocols.http import httptools_impl  # noqa: F401

    _loop_factory()
    sock = bind(settings.host, settings.port, settings.backlog)
    port = sock.getsockname()[1]
    lifecycle.info("listening", extra={"host": settings.host, "port": port, "workers": settings.workers, "url": f"https://{settings.host}:{port}/validate"})
    sys.stderr.flush()
    if settings.workers <= 1:
        return run_worker(app, sock, settings, 0)
    return supervise(app, sock, settings)
