"""`dralint serve` under abuse: heavy claims, slow clients, hostile reviews, failing rules.

The real server in a subprocess over real TLS on 127.0.0.1 (the helpers of
test_webhook.py). Every wait is bounded. The one timing assertion is the
webhook's contract with the kubelet and the API server: probes answer within
100 ms while a heavy review is being judged.
"""

from __future__ import annotations

import copy
import json
import os
import random
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from conftest import CASES

pytest.importorskip("uvicorn", reason="the webhook extra is not installed")
pytest.importorskip("cryptography.x509", reason="cryptography is needed to make a test CA")

from test_webhook import PKI, WAIT, Webhook, claim, read_response, review_of, stop_together, wait_until  # noqa: E402

PROBE_LIMIT = 0.100  # seconds
RULES = CASES / "webhook_abuse" / "rules"


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> PKI:
    return PKI(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def running() -> list[Webhook]:
    return []


@pytest.fixture(scope="module")
def strict(pki, running, tmp_path_factory):
    """--on-error deny (the default), short timeouts: a slow client is cut off after --read-timeout (a
    test waits it out), yet every client here sends at once, so half a second leaves a wide margin."""
    hook = Webhook(pki, tmp_path_factory.mktemp("strict"), "--read-timeout", "0.5", "--review-timeout", "1", "--judges", "2")
    running.append(hook)
    yield hook
    assert stop_together(hook, running) == 0, hook.log_text()
    assert "Traceback" not in "".join(e.get("raw", "") for e in hook.logs()), hook.log_text()


@pytest.fixture(scope="module")
def lenient(pki, running, tmp_path_factory):
    """--on-error allow, and a local rule with a bug."""
    hook = Webhook(pki, tmp_path_factory.mktemp("lenient"), "--on-error", "allow", "--rules-dir", str(RULES))
    running.append(hook)
    yield hook
    assert stop_together(hook, running) == 0, hook.log_text()
    assert "Traceback" not in "".join(e.get("raw", "") for e in hook.logs()), hook.log_text()


def heavy_claim() -> dict:
    """32 requests x 32 distinct 40-term selectors: within every API limit, seconds of CEL checking."""
    salt = random.randrange(1 << 30)  # distinct from any earlier run: no cached verdict helps
    requests = []
    for r in range(32):
        selectors = [
            {"cel": {"expression": " && ".join(f"device.attributes['gpu.example.com'].a{t} == 'v{salt}-{r}-{s}-{t}'" for t in range(40))}}
            for s in range(32)
        ]
        requests.append({"name": f"r{r}", "exactly": {"deviceClassName": "gpu.example.com", "selectors": selectors}})
    obj = claim()
    obj["metadata"]["name"] = "heavy"
    obj["spec"] = {"devices": {"requests": requests}}
    return obj


def post(sock, body: bytes) -> None:
    sock.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body) + body)


def timed_get(conn, path: str) -> tuple[float, int, bytes]:
    start = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    data = response.read()
    return time.perf_counter() - start, response.status, data


def in_flight(metrics_text: bytes) -> float:
    for line in metrics_text.decode().splitlines():
        if line.startswith("dralint_webhook_in_flight_requests "):
            return float(line.split()[1])
    raise AssertionError("no in_flight gauge")


def nested(depth: int, leaf) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


# --------------------------------------------------------------------------- heavy claims


def test_probes_stay_fast_while_a_heavy_claim_is_judged(strict):
    before = strict.metrics()
    obj = heavy_claim()
    obj["spec"]["devices"]["config"] = [{"requests": ["r0"], "opaque": {"driver": "gpu.example.com", "parameters": {"deep": "DEEP"}}}]
    heavy = review_of(obj)
    # Deep as well: the uid of a review no judge answered is read again by the worker.
    body = json.dumps(heavy).replace('"DEEP"', "[" * 5000 + "]" * 5000).encode()
    assert len(body) < 3 * 1024 * 1024  # under the API server's own limit
    probes = strict.connection()
    probes.connect()  # TLS set up before the clock starts, as the kubelet's keep-alive probes are
    timings: list[tuple[str, float]] = []
    with strict.raw_socket() as heavy_sock:
        post(heavy_sock, body)
        deadline = time.monotonic() + WAIT
        busy = False
        while not busy:  # until the server holds the heavy review (its body read and judging)
            assert time.monotonic() < deadline, "the heavy review never got in flight"
            busy = in_flight(timed_get(probes, "/metrics")[2]) >= 1
        for _ in range(5):
            for path in ("/healthz", "/readyz", "/metrics"):
                seconds, status, data = timed_get(probes, path)
                assert status == 200
                timings.append((path, seconds))
        assert in_flight(data) >= 1  # the heavy review was still being judged during every probe
        # An ordinary review meanwhile goes to the other judge.
        status, answer = strict.review(review_of(claim()))
        assert status == 200 and answer["response"]["allowed"] is True
        status, _, data = read_response(heavy_sock)
    slow = [(path, round(s * 1000, 1)) for path, s in timings if s >= PROBE_LIMIT]
    assert not slow, f"probes over {PROBE_LIMIT * 1000:.0f} ms: {slow}"
    # Past --review-timeout the heavy review is answered per --on-error (deny), with its uid, and counted.
    assert status == 200
    response = json.loads(data)["response"]
    assert response["uid"] == heavy["request"]["uid"]
    assert response["allowed"] is False and response["status"]["code"] == 500
    assert "not judged within --review-timeout=1s" in response["status"]["message"]
    after = strict.metrics()
    assert after["dralint_webhook_review_timeouts_total"] - before["dralint_webhook_review_timeouts_total"] == 1
    assert after["dralint_webhook_internal_errors_total"] - before["dralint_webhook_internal_errors_total"] == 1
    key = 'dralint_webhook_admission_requests_total{kind="ResourceClaim",verdict="error"}'
    assert after[key] - before[key] == 1
    entry = next(e for e in strict.logs() if e.get("uid") == heavy["request"]["uid"])
    assert entry["level"] == "error" and entry["on_error"] == "deny"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the judge processes through /proc")
def test_a_judge_that_dies_is_replaced(strict):
    judges = [int(pid) for pid in Path(f"/proc/{strict.proc.pid}/task/{strict.proc.pid}/children").read_text().split()]
    assert len(judges) == 2
    os.kill(judges[0], signal.SIGKILL)
    for _ in range(3):  # whichever judge each one meets, every review is judged
        status, answer = strict.review(review_of(claim()))
        assert status == 200 and answer["response"]["allowed"] is True


def judge_pids(server) -> list[int]:
    return [int(pid) for pid in Path(f"/proc/{server.proc.pid}/task/{server.proc.pid}/children").read_text().split()]


def process_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return "gone"


def assert_judged_without_failure(server, count: int) -> None:
    before = server.metrics()
    for _ in range(count):
        status, answer = server.review(review_of(claim()))
        assert status == 200 and answer["response"]["allowed"] is True, answer
        assert "warnings" not in answer["response"], answer
    after = server.metrics()
    for name in ("dralint_webhook_internal_errors_total", "dralint_webhook_review_timeouts_total"):
        assert after[name] == before[name], name


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the judge processes through /proc")
def test_both_idle_judges_killed_the_next_claim_is_judged(strict):
    judges = judge_pids(strict)
    assert len(judges) == 2
    for pid in judges:
        os.kill(pid, signal.SIGKILL)
    wait_until(lambda: all(process_state(pid) in ("Z", "gone") for pid in judges), "the judges to die")
    assert_judged_without_failure(strict, 3)  # not denied per --on-error: judged by fresh judges
    assert not set(judges) & set(judge_pids(strict))
    wait_until(lambda: len(judge_pids(strict)) == 2, "two judges again")  # a judge's replacement is forked just after it is reaped


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the judge processes through /proc")
@pytest.mark.parametrize("stopped", [1, 2])
def test_stopped_judges_are_replaced_not_waited_for(strict, stopped):
    judges = wait_until(lambda: pids if len(pids := judge_pids(strict)) == 2 else None, "two idle judges")
    for pid in judges[:stopped]:
        os.kill(pid, signal.SIGSTOP)
    wait_until(lambda: all(process_state(pid) == "T" for pid in judges[:stopped]), "the judges to stop")
    # Each review would meet a stopped judge within two; none runs out of --review-timeout.
    assert_judged_without_failure(strict, 4)
    wait_until(lambda: all(process_state(pid) == "gone" for pid in judges[:stopped]), "the stopped judges to be ended")
    wait_until(lambda: len(judge_pids(strict)) == 2, "two judges again")  # a judge's replacement is forked just after it is reaped
    entries = [e for e in strict.logs() if e.get("msg") == "a judge process stopped while idle; started another"]
    assert {e["judge_pid"] for e in entries} >= set(judges[:stopped])


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads process states through /proc")
def test_a_judge_stopped_while_judging_is_replaced_and_the_review_judged_again(lenient, tmp_path):
    before = lenient.metrics()
    pid_file = tmp_path / "pids"
    obj = claim()
    obj["metadata"]["name"] = "slow-judge"  # the local rule LOCAL902 says which judge has it; the first one takes 10 s
    obj["metadata"]["annotations"] = {"test.dralint.dev/pid-file": str(pid_file)}
    review = review_of(obj)
    with lenient.raw_socket() as sock:
        post(sock, json.dumps(review).encode())
        first = int(wait_until(lambda: pid_file.exists() and pid_file.read_text().split(), "a judge to take the review")[0])
        os.kill(first, signal.SIGSTOP)
        status, _, data = read_response(sock)
    response = json.loads(data)["response"]
    # Judged again by a fresh judge: not answered per --on-error (allowed with a warning) after --review-timeout.
    assert status == 200 and response == {"uid": review["request"]["uid"], "allowed": True}, response
    pids = [int(pid) for pid in pid_file.read_text().split()]
    assert len(pids) == 2 and pids[0] == first and pids[1] != first
    after = lenient.metrics()
    for name in ("dralint_webhook_internal_errors_total", "dralint_webhook_review_timeouts_total"):
        assert after[name] == before[name], name
    wait_until(lambda: process_state(first) == "gone", "the stopped judge to be ended")


# --------------------------------------------------------------------------- slow and broken clients


def test_slow_clients_are_cut_off_after_the_read_timeout(strict):
    no_tls = [socket.create_connection(("127.0.0.1", strict.port), timeout=WAIT) for _ in range(5)]
    half_tls = []
    for _ in range(5):
        sock = socket.create_connection(("127.0.0.1", strict.port), timeout=WAIT)
        sock.sendall(b"\x16\x03\x01\x00\xc8\x01")  # the start of a ClientHello, never finished
        half_tls.append(sock)
    slow_headers = [strict.raw_socket() for _ in range(5)]
    for sock in slow_headers:
        sock.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Ty")
    slow_body = strict.raw_socket()
    slow_body.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 1000\r\n\r\n{\"apiVersion\":")
    started = time.monotonic()
    try:
        probes = strict.connection()
        for _ in range(5):
            seconds, status, _ = timed_get(probes, "/healthz")
            assert status == 200 and seconds < PROBE_LIMIT
        for _ in range(3):  # and reviews are judged
            status, answer = strict.review(review_of(claim()))
            assert status == 200 and answer["response"]["allowed"] is True
        for sock in [*no_tls, *half_tls, *slow_headers]:
            try:
                assert sock.recv(1024) == b""  # closed by the server, without an answer
            except ConnectionResetError:
                pass
        status, headers, _ = read_response(slow_body)  # a body that never finishes is answered
        assert status == 408 and headers.get("connection") == "close"
        # --read-timeout 0.5, not the 60 s the event loop allows a TLS handshake by default.
        assert time.monotonic() - started < 10
    finally:
        for sock in [*no_tls, *half_tls, *slow_headers, slow_body]:
            sock.close()


def test_header_block_over_the_cap_is_refused_even_in_one_read(strict):
    padding = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"a" * 1000) for i in range(100))  # ~100 KiB
    with strict.raw_socket() as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + padding + b"\r\n")
        status, headers, data = read_response(sock)
    assert status == 400 and data == b"Request headers too large." and headers.get("connection") == "close"
    # Under the cap is fine.
    padding = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"a" * 1000) for i in range(60))
    with strict.raw_socket() as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n" + padding + b"\r\n")
        assert read_response(sock)[0] == 200


# --------------------------------------------------------------------------- hostile reviews


def raw_review(server, text: str) -> tuple[int, bytes]:
    return server.request("POST", "/validate", text.encode(), {"Content-Type": "application/json"})


def test_lone_surrogates_in_uid_and_name_get_a_review_with_that_uid(strict):
    review = review_of(claim())
    text = json.dumps(review).replace(review["request"]["uid"], "\\ud800-uid").replace('"gpu-claim"', '"gpu-\\udfff"')
    status, data = raw_review(strict, text)
    assert status == 200
    answer = json.loads(data)
    assert answer["response"]["uid"] == "\ud800-uid"
    assert answer["response"]["allowed"] is False  # the name is not a DNS subdomain
    assert "Logging error" not in strict.log_text()


def test_huge_integers_are_a_problem_at_their_path(strict):
    before = strict.metrics()
    review = review_of(claim())
    digits = "9" * 5000
    text = json.dumps(review).replace('"count": 2', f'"count": {digits}').replace('"TimeSlicing"}', f'"TimeSlicing", "n": -{digits}}}')
    status, data = raw_review(strict, text)
    assert status == 200
    response = json.loads(data)["response"]
    assert response["uid"] == review["request"]["uid"] and response["allowed"] is False
    causes = {(c["field"], c["message"].rsplit(" [", 1)[1]) for c in response["status"]["details"]["causes"]}
    assert causes == {
        ("spec.devices.requests[0].exactly.count", "DRA005]"),
        ("spec.devices.config[0].opaque.parameters.sharing.n", "DRA005]"),
    }
    assert "a number of 5000 digits is out of range" in response["status"]["message"]
    assert strict.metrics()["dralint_webhook_internal_errors_total"] == before["dralint_webhook_internal_errors_total"]


def test_deep_data_is_checked_not_admitted_unchecked(lenient):
    # --on-error=allow: a crash on deep data would admit count -1. It must be checked instead.
    old = claim()
    new = copy.deepcopy(old)
    new["spec"]["devices"]["requests"][0]["exactly"]["count"] = -1
    new["spec"]["devices"]["config"][0]["opaque"]["parameters"]["deep"] = nested(900, 1)
    status, answer = lenient.review(review_of(new, "UPDATE", old))
    response = answer["response"]
    assert status == 200 and response["allowed"] is False
    fields = {c["field"] for c in response["status"]["details"]["causes"]}
    assert "spec.devices.requests[0].exactly.count" in fields and "spec" in fields  # DRA314, DRA022


@pytest.mark.parametrize("depth", [500, 5000])
def test_deep_parameters_are_checked_by_every_rule(lenient, depth):
    # 5000 levels of arrays fit the 10 KiB parameters limit; the API server decodes up to 10,000.
    before = lenient.metrics()["dralint_webhook_internal_errors_total"]
    obj = claim()
    obj["spec"]["devices"]["config"][0]["opaque"]["parameters"]["deep"] = "DEEP"
    text = json.dumps(review_of(obj)).replace('"DEEP"', "[" * depth + "1" + "]" * depth)  # json.dumps stops at ~1000
    status, data = raw_review(lenient, text)
    assert status == 200
    response = json.loads(data)["response"]
    assert response == {"uid": response["uid"], "allowed": True}
    assert lenient.metrics()["dralint_webhook_internal_errors_total"] == before


@pytest.mark.parametrize("depth", [6000, 10000])
@pytest.mark.parametrize(("opening", "closing"), [('{"a":', "}"), ("[", "]")])
def test_deeply_nested_unknown_fields_are_checked_not_failed(lenient, depth, opening, closing):
    # Up to the 10,000 levels the API server decodes: one DRA101 at the unknown field, never a
    # RecursionError (which --on-error=allow would turn into an unchecked admission).
    before = lenient.metrics()["dralint_webhook_internal_errors_total"]
    obj = claim()
    obj["spec"]["devices"]["requests"][0]["exactly"]["extra"] = "DEEP"
    text = json.dumps(review_of(obj)).replace('"DEEP"', opening * depth + "1" + closing * depth)
    status, data = raw_review(lenient, text)
    assert status == 200
    response = json.loads(data)["response"]
    assert response["allowed"] is False, response
    causes = [(c["field"], c["reason"], c["message"].rsplit(" [", 1)[1]) for c in response["status"]["details"]["causes"]]
    assert causes == [("spec.devices.requests[0].exactly.extra", "FieldValueInvalid", "DRA101]")]
    assert lenient.metrics()["dralint_webhook_internal_errors_total"] == before


def test_a_failing_rule_follows_on_error_and_is_counted(lenient):
    before = lenient.metrics()
    obj = claim()
    obj["metadata"]["name"] = "crash-me"
    review = review_of(obj)
    status, answer = lenient.review(review)
    response = answer["response"]
    assert status == 200 and response["uid"] == review["request"]["uid"]
    assert response["allowed"] is True
    assert response["warnings"] == ["dralint could not check this object (a rule failed (DRA901)); allowed by --on-error=allow"]
    after = lenient.metrics()
    assert after["dralint_webhook_internal_errors_total"] - before["dralint_webhook_internal_errors_total"] == 1
    key = 'dralint_webhook_admission_requests_total{kind="ResourceClaim",verdict="error"}'
    assert after[key] - before[key] == 1
    entry = next(e for e in lenient.logs() if e.get("uid") == review["request"]["uid"])
    assert entry["level"] == "error" and "LOCAL901" in entry["error"] and "KeyError" in entry["error"]
    # The next claim is judged normally.
    status, answer = lenient.review(review_of(claim()))
    assert answer["response"]["allowed"] is True and "warnings" not in answer["response"]


def test_malformed_reviews_get_a_clear_400_and_are_counted(strict):
    before = strict.metrics()['dralint_webhook_bad_requests_total{reason="malformed"}']
    bodies = [
        "[" * 20000 + "]" * 20000,  # deeper than the API server ever sends
        '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": 1' + "0" * 5000 + "}}",
        '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u", "operation": "CREATE", "object": []}}',
        "\udcff",
    ]
    for text in bodies:
        status, data = strict.request("POST", "/validate", text.encode("utf-8", "surrogateescape"), {"Content-Type": "application/json"})
        assert status == 400, data
        answer = json.loads(data)
        assert answer["kind"] == "Status" and answer["message"].startswith("malformed AdmissionReview: ")
    assert strict.metrics()['dralint_webhook_bad_requests_total{reason="malformed"}'] - before == len(bodies)


def test_many_clients_at_once_are_all_answered(strict):
    answers: list[int] = []

    def client() -> None:
        for _ in range(5):
            status, data = strict.request("POST", "/validate", json.dumps(review_of(claim())).encode(), {"Content-Type": "application/json"}, fresh=True)
            answers.append(json.loads(data)["response"]["allowed"] is True and status == 200)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert answers == [True] * 40
