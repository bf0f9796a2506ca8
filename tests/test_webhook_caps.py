"""`dralint serve` holds a bounded amount per worker: reviews in flight, body bytes, what a timed-out review costs.

The real server in a subprocess over real TLS on 127.0.0.1 (the helpers of
test_webhook.py), with caps small enough to reach with a few connections. Every
wait is bounded; nothing here is timed.
"""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("uvicorn", reason="the webhook extra is not installed")
pytest.importorskip("cryptography.x509", reason="cryptography is needed to make a test CA")

from test_webhook import PKI, Webhook, claim, read_response, review_of, stop_together, wait_until  # noqa: E402

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> PKI:
    return PKI(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def running() -> list[Webhook]:
    return []


@pytest.fixture(scope="module")
def capped(pki, running, tmp_path_factory):
    """Three reviews in flight, 2 MiB of bodies, 1 MiB per body, 16 MiB per judge."""
    hook = Webhook(pki, tmp_path_factory.mktemp("capped"), "--max-in-flight", "3", "--max-buffered-bytes", str(2 * MiB),
                   "--max-body-bytes", str(MiB), "--read-timeout", "10", "--judge-memory-bytes", str(16 * MiB))
    running.append(hook)
    yield hook
    assert stop_together(hook, running) == 0, hook.log_text()
    assert "Traceback" not in hook.log_text()


def padded(size: int | None = None) -> tuple[dict, bytes]:
    """A valid review of the example claim, padded (in an annotation) to `size` bytes of body."""
    obj = claim()
    obj["metadata"]["annotations"] = {"example.com/padding": ""}
    review = review_of(obj)
    body = json.dumps(review).encode()
    if size is not None:
        body = body.replace(b'"example.com/padding": ""', b'"example.com/padding": "' + b"x" * (size - len(body)) + b'"')
        assert len(body) == size
    return review, body


def head(body: bytes) -> bytes:
    return b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)


def in_flight(server) -> float:
    return server.metrics()["dralint_webhook_in_flight_requests"]


def hold(server, sizes: list[int | None]) -> list[tuple]:
    """Connections that each sent a review but its last byte, once the server holds all of them."""
    held = []
    for size in sizes:
        review, body = padded(size)
        sock = server.raw_socket()
        sock.sendall(head(body) + body[:-1])
        held.append((sock, review, body))
    wait_until(lambda: in_flight(server) == len(sizes), f"{len(sizes)} reviews in flight")
    return held


def release(held: list[tuple]) -> None:
    for sock, review, body in held:
        sock.sendall(body[-1:])
        status, _, data = read_response(sock)
        sock.close()
        response = json.loads(data)["response"]
        assert status == 200 and response["uid"] == review["request"]["uid"], response
        # Judged: the padded ones carry more annotations than the API server allows (DRA207).
        assert response.get("status", {}).get("code", 422) == 422, response


def assert_refused(server, cap: str) -> None:
    review, body = padded()
    with server.raw_socket() as sock:
        sock.sendall(head(body) + body)
        status, headers, data = read_response(sock)
    assert status == 503 and headers["retry-after"] == "1" and headers["connection"] == "close", (status, headers, data)
    answer = json.loads(data)
    assert answer["kind"] == "Status" and answer["code"] == 503 and answer["reason"] == "ServiceUnavailable"
    assert cap in answer["message"] and answer["message"].startswith("the webhook is busy ("), answer["message"]


def test_reviews_past_max_in_flight_are_refused_with_retry_after(capped):
    before = capped.metrics()['dralint_webhook_bad_requests_total{reason="overloaded"}']
    held = hold(capped, [None, None, None])
    try:
        assert_refused(capped, "3 reviews in flight (--max-in-flight=3)")
        assert capped.get("/healthz", fresh=True) == (200, b"ok\n")  # probes are not reviews: never refused
        assert capped.get("/readyz", fresh=True) == (200, b"ok\n")
    finally:
        release(held)  # the held reviews are judged as usual
    status, answer = capped.review(review_of(claim()))
    assert status == 200 and answer["response"]["allowed"] is True
    assert capped.metrics()['dralint_webhook_bad_requests_total{reason="overloaded"}'] - before == 1
    entry = wait_until(lambda: next((e for e in reversed(capped.logs()) if e.get("status") == 503), None), "the refusal's log line")
    assert entry["level"] == "warning" and entry["cause"] == "3 reviews in flight (--max-in-flight=3)"


def test_reviews_past_max_buffered_bytes_are_refused_before_their_body_is_read(capped):
    # Two bodies of 1 MiB, announced by Content-Length and each short of its last byte, take the 2 MiB.
    held = hold(capped, [MiB, MiB])
    try:
        assert_refused(capped, f"{2 * MiB} bytes of request bodies held (--max-buffered-bytes={2 * MiB})")
    finally:
        release(held)
    status, answer = capped.review(review_of(claim()))
    assert status == 200 and answer["response"]["allowed"] is True


def test_a_chunked_body_is_counted_as_it_arrives(capped):
    held = hold(capped, [MiB, MiB // 2])  # 1.5 MiB of the 2 MiB announced
    try:
        review, body = padded(3 * MiB // 4)
        with capped.raw_socket() as sock:
            sock.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            for start in range(0, len(body), 64 * 1024):  # past the 0.5 MiB left halfway
                chunk = body[start:start + 64 * 1024]
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sock.sendall(b"0\r\n\r\n")
            status, headers, data = read_response(sock)
        assert status == 503 and headers["retry-after"] == "1", data
        assert "--max-buffered-bytes" in json.loads(data)["message"]
    finally:
        release(held)


def test_max_buffered_bytes_below_max_body_bytes_is_a_usage_error(tmp_path):
    from conftest import run_dralint

    run = run_dralint("serve", "--tls-cert", str(tmp_path / "c"), "--tls-key", str(tmp_path / "k"), "--max-body-bytes", "2000", "--max-buffered-bytes", "1000")
    assert run.code == 2
    assert "--max-buffered-bytes (1000) must be at least --max-body-bytes (2000)" in run.stderr


@pytest.fixture(scope="module")
def hurried(pki, running, tmp_path_factory):
    """A review time no review meets: every review is answered as not judged in time."""
    hook = Webhook(pki, tmp_path_factory.mktemp("hurried"), "--review-timeout", "0.001")
    running.append(hook)
    yield hook
    assert stop_together(hook, running) == 0, hook.log_text()


def test_a_review_not_judged_in_time_is_answered_from_the_head_of_its_body(hurried):
    # ~2.9 MB whose end is cut off: reading it whole (on the event loop) would find no review and no uid;
    # its head, as the API server writes it (uid, kind, name, namespace, operation first), names the review.
    review = review_of(claim())
    request = review["request"]
    obj = request.pop("object")
    request.pop("oldObject")
    text = json.dumps(review)[:-2] + ', "object": ' + json.dumps(obj)[:-1] + ', "padding": [' + "0," * 1_400_000 + "0"
    status, data = hurried.request("POST", "/validate", text.encode(), {"Content-Type": "application/json"})
    assert status == 200, data
    response = json.loads(data)["response"]
    assert response["uid"] == request["uid"] and response["allowed"] is False
    assert response["status"]["code"] == 500
    assert "not judged within --review-timeout=0.001s" in response["status"]["message"]
    entry = wait_until(lambda: next((e for e in hurried.logs() if e.get("uid") == request["uid"]), None), "the review's log line")
    assert entry["level"] == "error" and entry["object"] == "ml-team/gpu-claim" and entry["operation"] == "CREATE"
    assert entry["kind"] == "ResourceClaim"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="judges' memory is capped on Linux (RLIMIT_DATA, /proc)")
def test_a_review_that_needs_more_memory_than_a_judge_has_is_answered_per_on_error(capped):
    # Within the 1 MiB body limit, a third of a million empty objects: ~80 MiB once parsed and checked.
    before = capped.metrics()
    review = review_of(claim())
    text = json.dumps(review).replace('"count": 2', '"count": 2, "extra": [' + "{}," * 330_000 + "{}]")
    assert len(text) < MiB
    status, data = capped.request("POST", "/validate", text.encode(), {"Content-Type": "application/json"})
    assert status == 200, data
    response = json.loads(data)["response"]
    assert response["uid"] == review["request"]["uid"] and response["allowed"] is False
    assert response["status"] == {
        "status": "Failure", "code": 500, "reason": "InternalError",
        "message": "dralint could not check this object (it needs more memory than --judge-memory-bytes allows); denied by --on-error=deny",
    }
    after = capped.metrics()
    assert after["dralint_webhook_internal_errors_total"] - before["dralint_webhook_internal_errors_total"] == 1
    # The judges go on judging.
    for _ in range(3):
        status, answer = capped.review(review_of(claim()))
        assert status == 200 and answer["response"]["allowed"] is True
