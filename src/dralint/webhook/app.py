"""The ASGI application: five routes, a body limit, a read deadline, logs and metrics.

    POST /validate   AdmissionReview admission.k8s.io/v1
    GET  /healthz    200 while the process runs
    GET  /readyz     200 once the rules are loaded and the certificate is served; 503 while stopping
    GET  /metrics    Prometheus text format

It is a bare ASGI callable rather than a framework app: five fixed routes need
no router, and on the hot path every microsecond is the webhook's latency
budget, which the API server spends out of the user's request.
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from ..model import format_path
from . import review as rv
from .metrics import Metrics

log = logging.getLogger("dralint.webhook")

MiB = 1024 * 1024
DEFAULT_MAX_BODY = 3 * MiB  # the API server's own limit for a request body

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

_JSON = [(b"content-type", b"application/json")]
_TEXT = [(b"content-type", b"text/plain; charset=utf-8")]
_PROM = [(b"content-type", b"text/plain; version=0.0.4; charset=utf-8")]
_CLOSE = [(b"connection", b"close")]


@dataclass
class Settings:
    policy: rv.Policy
    metrics: Metrics
    on_error: str = "deny"  # allow | deny
    max_body: int = DEFAULT_MAX_BODY
    read_timeout: float = 10.0  # seconds for the whole body, counted from the end of the headers


class _BodyTooLarge(Exception):
    pass


class WebhookApp:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.metrics = settings.metrics
        self.ready = False
        self.decide: Callable[[dict[str, Any], rv.Policy], rv.Decision] = rv.decide  # replaceable in tests

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
        metrics.enter()
        try:
            await self._review(scope, receive, send, started)
        finally:
            metrics.leave()

    async def _review(self, scope: Scope, receive: Receive, send: Send, started: float) -> None:
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
            body = await self._read_body(receive, started + settings.read_timeout)
        except _BodyTooLarge:
            await self._too_large(scope, send, None)
            return
        except asyncio.TimeoutError:
            metrics.bad_request("read_timeout")
            _log_http(scope, 408, "request body not received in time", timeout_seconds=settings.read_timeout)
            await _status(send, 408, f"request body not received within {settings.read_timeout:g} s", "Timeout", close=True)
            return
        if body is None:  # the client went away
            return
        try:
            request = rv.parse_review(body)
        except rv.ReviewError as exc:
            metrics.bad_request("malformed")
            _log_http(scope, 400, "malformed AdmissionReview", error=str(exc), uid=rv.peek_uid(body))
            await _status(send, 400, f"malformed AdmissionReview: {exc}", "BadRequest")
            return
        uid = request["uid"]
        try:
            decision = self.decide(request, settings.policy)
        except Exception as exc:  # dralint failed: never a stack trace to the caller
            await self._internal_error(send, request, exc, started)
            return
        await _respond(send, 200, rv.encode(decision.review), _JSON)
        try:
            self._account(decision, started)
        except Exception:  # bookkeeping must never cost an answer
            log.exception("metrics or logging failed", extra={"uid": uid})

    def _account(self, decision: rv.Decision, started: float) -> None:
        metrics = self.metrics
        seconds = time.perf_counter() - started
        verdict = "allowed" if decision.allowed else "denied"
        metrics.request(decision.kind, verdict, seconds)
        for p in decision.problems:
            metrics.problem(p.rule)
        if decision.warnings:
            metrics.warnings(len(decision.warnings))
        if log.isEnabledFor(logging.INFO):
            log.info(
                "admission",
                extra={
                    "uid": decision.uid,
                    "operation": decision.operation,
                    "kind": decision.kind,
                    "object": f"{decision.namespace}/{decision.name}" if decision.namespace else decision.name,
                    "dry_run": decision.dry_run,
                    "verdict": verdict,
                    "problems": [f"{p.rule}@{format_path(p.path)}" for p in decision.denying][:20],
                    "warnings": len(decision.warnings),
                    "duration_ms": round(seconds * 1000, 3),
                },
            )

    async def _read_body(self, receive: Receive, deadline: float) -> bytes | None:
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
                    chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)

    async def _too_large(self, scope: Scope, send: Send, length: int | None) -> None:
        self.metrics.bad_request("too_large")
        limit = self.settings.max_body
        _log_http(scope, 413, "request body too large", content_length=length, limit=limit)
        await _status(send, 413, f"request body exceeds the limit of {limit} bytes", "RequestEntityTooLarge", close=True)

    async def _internal_error(self, send: Send, request: dict[str, Any], exc: Exception, started: float) -> None:
        settings, metrics = self.settings, self.metrics
        allowed = settings.on_error == "allow"
        uid = request["uid"]
        kind = (request.get("kind") or {}).get("kind") or ""
        metrics.internal_error()
        metrics.request(kind if isinstance(kind, str) else "", "error", time.perf_counter() - started)
        log.error(
            "internal error while judging a review",
            extra={
                "uid": uid,
                "kind": kind,
                "object": "/".join(x for x in (request.get("namespace"), request.get("name")) if isinstance(x, str) and x),
                "operation": request.get("operation"),
                "on_error": settings.on_error,
                "verdict": "allowed" if allowed else "denied",
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(limit=20),
            },
        )
        outcome = "allowed" if allowed else "denied"
        message = f"dralint could not check this object ({type(exc).__name__}); {outcome} by --on-error={settings.on_error}"
        await _respond(send, 200, rv.encode(rv.error_review(uid, allowed, message)), _JSON)


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
