"""The ASGI application: five routes, a body limit, a read deadline, logs and metrics.

    POST /validate   AdmissionReview admission.k8s.io/v1
    GET  /healthz    200 while the process runs
    GET  /readyz     200 once the rules are loaded and the certificate is served; 503 while stopping
    GET  /metrics    Prometheus text format

The event loop only moves bytes: each review is judged (parsed, linted,
encoded) by a forked judge process (judging.py) within --review-timeout, so
probes and other reviews never wait behind a heavy one.

What a worker holds is bounded, so that slow or hostile clients cannot push it
past its memory limit (an OOM kill of a `failurePolicy: Fail` webhook blocks
every object it guards): at most --max-in-flight reviews at a time, and at
most --max-buffered-bytes of their bodies, counted from each one's
Content-Length before its body is read (a chunked body as it arrives). A
review past either cap is answered 503 with Retry-After at once, without
reading its body. Probes are not counted: they hold nothing.

It is a bare ASGI callable rather than a framework app: five fixed routes need
no router, and on the hot path every microsecond is the webhook's latency
budget, which the API server spends out of the user's request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from . import judging
from . import review as rv
from .judging import JudgeLost, JudgePool, JudgeTimeout, Verdict
from .metrics import Metrics

log = logging.getLogger("dralint.webhook")

MiB = 1024 * 1024
DEFAULT_MAX_BODY = 3 * MiB  # the API server's own limit for a request body
DEFAULT_MAX_IN_FLIGHT = 32  # reviews per worker; the API server waits at most 30 s for any of them
DEFAULT_MAX_BUFFERED = 8 * DEFAULT_MAX_BODY  # body bytes per worker: eight full-size reviews at once
RETRY_AFTER_SECONDS = 1
DEFAULT_JUDGE_MEMORY = 64 * MiB  # per judge: room for the heaviest claim within the API's limits, not for a body of a million empty objects

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

_JSON = [(b"content-type", b"application/json")]
_TEXT = [(b"content-type", b"text/plain; charset=utf-8")]
_PROM = [(b"content-type", b"text/plain; version=0.0.4; charset=utf-8")]
_CLOSE = [(b"connection", b"close")]
_RETRY = [(b"retry-after", str(RETRY_AFTER_SECONDS).encode("ascii"))]


@dataclass
class Settings:
    policy: rv.Policy
    metrics: Metrics
    on_error: str = "deny"  # allow | deny
    max_body: int = DEFAULT_MAX_BODY
    read_timeout: float = 10.0  # seconds for the whole body, counted from the end of the headers
    review_timeout: float = 3.0  # seconds to judge a review once its body is read, queueing included
    judges: int = 0  # judge processes; 0 judges on the event loop (tests, embedding)
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT  # reviews being read or judged at once
    max_buffered: int = DEFAULT_MAX_BUFFERED  # body bytes held (or promised by Content-Length) at once
    judge_memory: int | None = None  # each judge's memory beyond what it has when forked; None: no cap


class _BodyTooLarge(Exception):
    pass


class _Overloaded(Exception):
    pass


class _Budget:
    """Body bytes held by one review, out of the worker's --max-buffered-bytes."""

    __slots__ = ("app", "held")

    def __init__(self, app: WebhookApp):
        self.app = app
        self.held = 0

    def take(self, size: int) -> None:
        if size <= 0:
            return
        app = self.app
        if app.buffered + size > app.settings.max_buffered:
            raise _Overloaded
        app.buffered += size
        self.held += size

    def release(self) -> None:
        self.app.buffered -= self.held
        self.held = 0


class WebhookApp:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.metrics = settings.metrics
        self.ready = False
        self.decide: Callable[[dict[str, Any], rv.Policy], rv.Decision] = rv.decide  # replaceable in tests
        self.pool: JudgePool | None = None
        self.in_flight = 0  # reviews being read or judged by this worker
        self.buffered = 0  # body bytes they hold or were promised

    def start_judges(self) -> None:
        """Fork the judge processes (before the event loop starts; they inherit `decide` as it is now)."""
        if self.settings.judges > 0 and self.pool is None:
            self.pool = JudgePool(self.judge_body, self.settings.judges, self.settings.judge_memory)
            self.pool.start()

    def stop_judges(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def judge_body(self, body: bytes) -> Verdict:
        return judging.judge(body, self.settings.policy, self.settings.on_error, self.decide)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            path = scope["path"]
            if path == "/validate":
                await self._validate(scope, receive, send)
            elif path in ("/healthz", "/livez"):
                await _respond(send, 200, b"ok\n", _TEXT)
            elif path == "/readyz":
                ready = self.ready
                await _respond(send, 200 if ready else 503, b"ok\n" if ready else b"not ready\n", _TEXT)
            elif path == "/metrics":
                await _respond(send, 200, self.metrics.render(), _PROM)
            else:
                self.metrics.bad_request("not_found")
                await _status(send, 404, f"no route {path}; the webhook answers POST /validate", "NotFound")
        elif kind == "lifespan":  # pragma: no cover - the server runs with lifespan off
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return

    async def _validate(self, scope: Scope, receive: Receive, send: Send) -> None:
        metrics = self.metrics
        started = time.perf_counter()
        if scope["method"] != "POST":
            metrics.bad_request("method_not_allowed")
            await _status(send, 405, "use POST with an AdmissionReview body", "MethodNotAllowed", extra=[(b"allow", b"POST")])
            return
        if self.in_flight >= self.settings.max_in_flight:
            await self._overloaded(scope, send, f"{self.in_flight} reviews in flight (--max-in-flight={self.settings.max_in_flight})")
            return
        self.in_flight += 1
        metrics.enter()
        budget = _Budget(self)
        try:
            await self._review(scope, receive, send, started, budget)
        finally:
            budget.release()
            metrics.leave()
            self.in_flight -= 1

    async def _review(self, scope: Scope, receive: Receive, send: Send, started: float, budget: _Budget) -> None:
        settings, metrics = self.settings, self.metrics
        content_type = b""
        length: int | None = None
        for name, value in scope["headers"]:
            if name == b"content-type":
                content_type = value
            elif name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    length = None
        if content_type and not content_type.split(b";", 1)[0].strip().lower().endswith(b"json"):
            metrics.bad_request("unsupported_media_type")
            _log_http(scope, 415, "unsupported media type", content_type=content_type.decode("latin-1"))
            await _status(send, 415, f"content type must be application/json, got {content_type.decode('latin-1')!r}", "UnsupportedMediaType", close=True)
            return
        if length is not None and length > settings.max_body:
            await self._too_large(scope, send, length)
            return
        try:
            budget.take(length or 0)
            body = await self._read_body(receive, started + settings.read_timeout, None if length is not None else budget)
        except _BodyTooLarge:
            await self._too_large(scope, send, None)
            return
        except _Overloaded:
            await self._overloaded(scope, send, f"{self.buffered} bytes of request bodies held (--max-buffered-bytes={settings.max_buffered})")
            return
        except asyncio.TimeoutError:
            metrics.bad_request("read_timeout")
            _log_http(scope, 408, "request body not received in time", timeout_seconds=settings.read_timeout)
            await _status(send, 408, f"request body not received within {settings.read_timeout:g} s", "Timeout", close=True)
            return
        if body is None:  # the client went away
            return
        verdict = await self._judge(body)
        await _respond(send, verdict.status, verdict.body, _JSON)
        try:
            self._account(scope, verdict, started)
        except Exception:  # bookkeeping must never cost an answer
            log.exception("metrics or logging failed", extra={"uid": verdict.uid})

    async def _judge(self, body: bytes) -> Verdict:
        settings = self.settings
        if self.pool is None:
            return self.judge_body(body)
        try:
            return await self.pool.judge(body, settings.review_timeout)
        except JudgeTimeout as exc:
            self.metrics.review_timeout()
            return judging.failed(judging.peek(body), settings.on_error, str(exc), f"not judged within --review-timeout={settings.review_timeout:g}s")
        except JudgeLost as exc:
            return judging.failed(judging.peek(body), settings.on_error, str(exc), "the judge process died")

    def _account(self, scope: Scope, verdict: Verdict, started: float) -> None:
        metrics = self.metrics
        if verdict.outcome == "malformed":
            metrics.bad_request("malformed")
            _log_http(scope, 400, "malformed AdmissionReview", uid=verdict.uid, **verdict.log)
            return
        seconds = time.perf_counter() - started
        metrics.request(verdict.kind, "error" if verdict.outcome == "error" else verdict.outcome, seconds)
        if verdict.outcome == "error":
            metrics.internal_error()
            log.error("internal error while judging a review", extra=verdict.log)
            return
        for code in verdict.codes:
            metrics.problem(code)
        if verdict.warnings:
            metrics.warnings(verdict.warnings)
        if log.isEnabledFor(logging.INFO):
            log.info("admission", extra={**verdict.log, "duration_ms": round(seconds * 1000, 3)})

    async def _read_body(self, receive: Receive, deadline: float, budget: _Budget | None) -> bytes | None:
        """The whole body; bytes beyond a Content-Length already taken from the budget are taken as they arrive."""
        limit = self.settings.max_body
        chunks: list[bytes] = []
        size = 0
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise asyncio.TimeoutError
        async with asyncio.timeout(remaining):  # one deadline for the whole body, not per chunk
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None
                chunk = message.get("body", b"")
                if chunk:
                    size += len(chunk)
                    if size > limit:
                        raise _BodyTooLarge
                    if budget is not None:
                        budget.take(len(chunk))
                    chunks.append(chunk)
                if not message.get("more_body", False):
                    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
                    chunks.clear()
                    return body

    async def _too_large(self, scope: Scope, send: Send, length: int | None) -> None:
        self.metrics.bad_request("too_large")
        limit = self.settings.max_body
        _log_http(scope, 413, "request body too large", content_length=length, limit=limit)
        await _status(send, 413, f"request body exceeds the limit of {limit} bytes", "RequestEntityTooLarge", close=True)

    async def _overloaded(self, scope: Scope, send: Send, why: str) -> None:
        self.metrics.bad_request("overloaded")
        _log_http(scope, 503, "refusing a review: the worker is at its cap", cause=why)
        await _status(send, 503, f"the webhook is busy ({why}); retry after {RETRY_AFTER_SECONDS} s", "ServiceUnavailable",
                      close=True, extra=_RETRY)


def _log_http(scope: Scope, status: int, message: str, **fields: Any) -> None:
    client = scope.get("client")
    log.warning(message, extra={"status": status, "path": scope.get("path"), "client": f"{client[0]}:{client[1]}" if client else None, **fields})


async def _respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]], close: bool = False) -> None:
    all_headers = [*headers, (b"content-length", str(len(body)).encode("ascii"))]
    if close:
        all_headers += _CLOSE
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": body})


async def _status(send: Send, code: int, message: str, reason: str, *, close: bool = False, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = rv.encode(rv.bad_request_status(message, code, reason))
    await _respond(send, code, body, [*_JSON, *(extra or [])], close=close)
