"""`dralint serve`: the real server in a subprocess, over real TLS, with a CA made here.

Every wait is bounded (a deadline, a socket timeout); no assertion is about
how long something took. Problems asserted are schema-level (DRA1xx) and API
lifecycle (DRA011), not semantic rules.
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import http.client
import ipaddress
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from conftest import CASES, ROOT, dralint_exe

pytest.importorskip("uvicorn", reason="the webhook extra is not installed")
x509 = pytest.importorskip("cryptography.x509", reason="cryptography is needed to make a test CA")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: E402

WEBHOOK_CASES = CASES / "webhook"
WAIT = 20.0  # the bound of every wait on the server


# --------------------------------------------------------------------------- a CA and its certificates


class PKI:
    def __init__(self, folder: Path):
        self.folder = folder
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dralint test CA")])
        now = datetime.datetime.now(datetime.timezone.utc)
        ski = x509.SubjectKeyIdentifier.from_public_key(self.ca_key.public_key())
        self.ca_cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self.ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .add_extension(ski, critical=False)
            .sign(self.ca_key, hashes.SHA256())
        )
        self.ca_file = folder / "ca.crt"
        self.ca_file.write_bytes(self.ca_cert.public_bytes(serialization.Encoding.PEM))

    def issue(self, cert_file: Path, key_file: Path) -> int:
        """A serving certificate for localhost / 127.0.0.1, written atomically (key first); its serial."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        serial = x509.random_serial_number()
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dralint-webhook")]))
            .issuer_name(self.ca_cert.subject)
            .public_key(key.public_key())
            .serial_number(serial)
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.ca_key.public_key()), critical=False)
            .sign(self.ca_key, hashes.SHA256())
        )
        key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        for path, data in ((key_file, key_pem), (cert_file, cert.public_bytes(serialization.Encoding.PEM))):
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        return serial

    def client_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(self.ca_file))  # verifies chain and host name
        return ctx


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> PKI:
    return PKI(tmp_path_factory.mktemp("pki"))


# --------------------------------------------------------------------------- the server


class Webhook:
    def __init__(self, pki: PKI, folder: Path, *args: str):
        self.pki = pki
        self.cert, self.key = folder / "tls.crt", folder / "tls.key"
        self.serial = pki.issue(self.cert, self.key)
        self.log_file = folder / "server.log"
        self._log = open(self.log_file, "wb")
        env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS",)}
        self.proc = subprocess.Popen(
            [*dralint_exe(), "serve", "--tls-cert", str(self.cert), "--tls-key", str(self.key),
             "--host", "127.0.0.1", "--port", "0", "--no-config", *args],
            stdout=self._log, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
        )
        self.port = self._wait_for_port()
        self.ctx = pki.client_context()
        self._wait_ready()
        self._conn: http.client.HTTPSConnection | None = None
        self.terminated = False

    def _wait_for_port(self) -> int:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for entry in self.logs():
                if entry.get("msg") == "listening":
                    return int(entry["port"])
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited with {self.proc.returncode}:\n{self.log_text()}")
            time.sleep(0.01)  # a read of a short file
        raise AssertionError(f"server did not report its port:\n{self.log_text()}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + WAIT
        last: object = None
        while time.monotonic() < deadline:
            try:
                status, _ = self.get("/readyz", fresh=True)
                if status == 200:
                    return
                last = status
            except OSError as exc:
                last = exc
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"server not ready ({last!r}):\n{self.log_text()}")

    def log_text(self) -> str:
        return self.log_file.read_text(errors="replace")

    def logs(self) -> list[dict]:
        out = []
        for line in self.log_text().splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"raw": line})
        return out

    def connection(self) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=WAIT)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None, fresh: bool = False) -> tuple[int, bytes]:
        if fresh:
            conn = self.connection()
            try:
                conn.request(method, path, body=body, headers=headers or {})
                resp = conn.getresponse()
                return resp.status, resp.read()
            finally:
                conn.close()
        if self._conn is None:
            self._conn = self.connection()  # keep-alive, as the API server does
        try:
            self._conn.request(method, path, body=body, headers=headers or {})
            resp = self._conn.getresponse()
            data = resp.read()
            if resp.getheader("connection", "").lower() == "close":
                self._conn.close()
                self._conn = None
            return resp.status, data
        except (http.client.HTTPException, OSError):
            self._conn.close()
            self._conn = None
            raise

    def get(self, path: str, fresh: bool = False) -> tuple[int, bytes]:
        return self.request("GET", path, fresh=fresh)

    def review(self, review: dict | bytes, **headers: str) -> tuple[int, dict]:
        body = review if isinstance(review, bytes) else json.dumps(review).encode()
        status, data = self.request("POST", "/validate", body, {"Content-Type": "application/json", **headers})
        return status, json.loads(data)

    def metrics(self) -> dict[str, float]:
        status, data = self.get("/metrics", fresh=True)
        assert status == 200
        return parse_metrics(data.decode())

    def raw_socket(self) -> ssl.SSLSocket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=WAIT)
        return self.ctx.wrap_socket(sock, server_hostname="127.0.0.1")

    def terminate(self) -> None:
        """Our keep-alive connection closed first (else the server, closing it, waits for its answer
        to the TLS shutdown), then SIGTERM, once: a second would have uvicorn drop the requests in flight."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self.proc.poll() is None and not self.terminated:
            self.proc.send_signal(signal.SIGTERM)
            self.terminated = True

    def stop(self) -> int:
        self.terminate()
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=WAIT)
        self._log.close()
        return self.proc.returncode


def stop_together(hook: Webhook, running: list[Webhook]) -> int:
    """Stop `hook` once every server of `running` is told to stop: at a module's end its servers
    stop together, as a graceful stop is mostly waiting. Returns the exit status of `hook`."""
    for other in running:
        other.terminate()
    return hook.stop()


def parse_metrics(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def read_response(sock: ssl.SSLSocket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response from a raw socket (bounded by the socket's timeout)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a response: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def wait_until(predicate, what: str, timeout: float = WAIT):
    deadline = time.monotonic() + timeout
    pause = 0.005
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(pause)
        pause = min(2 * pause, 0.05)  # soon for what is nearly there; then not so often as to load the server
    raise AssertionError(f"gave up waiting for {what}")


@pytest.fixture(scope="module")
def started() -> Iterator[list[Webhook]]:
    """The module's servers: one, unless a test stops it (the SIGTERM test, the last to use it)."""
    hooks: list[Webhook] = []
    yield hooks
    for hook in hooks:
        assert hook.stop() == 0, hook.log_text()
        assert "Traceback" not in "".join(e.get("raw", "") for e in hook.logs())


@pytest.fixture
def server(pki, tmp_path_factory, started) -> Webhook:
    """The module's server, started again if a test stopped it."""
    if not started or started[-1].terminated or started[-1].proc.poll() is not None:
        # The certificate files are looked at often, so that a rotation is seen within a test.
        started.append(Webhook(pki, tmp_path_factory.mktemp("server"), "--kubernetes-version", "1.35", "--cert-reload-interval", "0.1"))
    return started[-1]


# --------------------------------------------------------------------------- reviews


def load_case(name: str) -> dict:
    return json.loads((WEBHOOK_CASES / name).read_text())


def claim() -> dict:
    return load_case("claim.json")


_uid = 0


def review_of(obj: dict | None, operation: str = "CREATE", old: dict | None = None, **extra) -> dict:
    global _uid
    _uid += 1
    source = obj or old or {}
    group, _, version = source.get("apiVersion", "resource.k8s.io/v1").rpartition("/")
    kind = source.get("kind", "ResourceClaim")
    meta = source.get("metadata", {})
    request = {
        "uid": f"7f0c1a52-0000-4000-8000-{_uid:012d}",
        "kind": {"group": group, "version": version, "kind": kind},
        "resource": {"group": group, "version": version, "resource": kind.lower() + "s"},
        "requestKind": {"group": group, "version": version, "kind": kind},
        "operation": operation,
        "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
        "object": obj,
        "oldObject": old,
        "dryRun": False,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"} if operation == "CREATE" else None,
        **extra,
    }
    if meta.get("namespace"):
        request["namespace"] = meta["namespace"]
    if meta.get("name"):
        request["name"] = meta["name"]
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


def broken_claim() -> dict:
    """A claim with schema problems only: an unknown field (DRA101) and a missing request name (DRA102)."""
    obj = claim()
    obj["spec"]["devices"].pop("constraints")
    obj["spec"]["devices"].pop("config")
    request = obj["spec"]["devices"]["requests"][0]
    del request["name"]
    request["exactly"]["colour"] = "red"
    return obj


LINE = re.compile(r"^(?P<path>[\w.\[\]/-]+): (?P<message>.+) \[(?P<code>[A-Z]+[0-9]+)\]$")


def test_allowed_claim_echoes_uid(server):
    review = review_of(claim())
    status, answer = server.review(review)
    assert status == 200
    assert answer["apiVersion"] == "admission.k8s.io/v1" and answer["kind"] == "AdmissionReview"
    response = answer["response"]
    assert response["uid"] == review["request"]["uid"]
    assert response["allowed"] is True
    assert "status" not in response and "warnings" not in response


def test_denied_claim_lists_each_problem_with_path_and_code(server):
    review = review_of(broken_claim())
    status, answer = server.review(review)
    assert status == 200
    response = answer["response"]
    assert response["uid"] == review["request"]["uid"]
    assert response["allowed"] is False
    st = response["status"]
    assert 400 <= st["code"] < 500
    assert st["status"] == "Failure" and st["reason"] == "Invalid"
    header, *lines = st["message"].splitlines()
    assert "ResourceClaim ml-team/gpu-claim" in header
    parsed = [LINE.match(line) for line in lines]
    assert all(parsed), lines
    found = {(m["code"], m["path"]) for m in parsed}
    assert ("DRA101", "spec.devices.requests[0].exactly.colour") in found
    assert ("DRA102", "spec.devices.requests[0].name") in found
    assert "unknown field 'colour'" in st["message"]
    causes = {(c["field"], c["reason"]) for c in st["details"]["causes"]}
    assert ("spec.devices.requests[0].exactly.colour", "FieldValueInvalid") in causes
    # A missing request name is validated as "", which is not a DNS-1123 label: Invalid, not Required.
    assert ("spec.devices.requests[0].name", "FieldValueInvalid") in causes
    assert not any(line.startswith("Traceback") for line in lines)


def test_dry_run_is_judged_the_same(server):
    _, wet = server.review(review_of(broken_claim()))
    _, dry = server.review(review_of(broken_claim(), dryRun=True))
    assert dry["response"]["allowed"] is False
    assert dry["response"]["status"]["message"] == wet["response"]["status"]["message"]


def test_warning_severity_problems_become_warnings_whole(server):
    obj = claim()
    obj["status"] = {"reservedFor": [{"resource": "pods", "name": "trainer-0", "uid": "0b1c"}]}  # DRA600, DRA601: warnings
    status, answer = server.review(review_of(obj))
    assert status == 200
    response = answer["response"]
    assert response["allowed"] is True, response
    assert response["warnings"] == [
        "status: status is ignored when the claim is created; remove it from the manifest [DRA600]",
        "status.reservedFor: reservedFor may not be set while status.allocation is not set (Forbidden) [DRA601]",
    ]


def test_served_but_disabled_is_no_admission_warning(server):
    # DRA011 is about a file: an object the API server sent is of a version this cluster enables.
    obj = claim()
    obj["apiVersion"] = "resource.k8s.io/v1beta1"
    request = obj["spec"]["devices"]["requests"][0]
    request.update(request.pop("exactly"))  # v1beta1 has the flat request shape
    status, answer = server.review(review_of(obj))
    assert status == 200
    assert answer["response"] == {"uid": answer["response"]["uid"], "allowed": True}


def test_delete_and_connect_are_allowed(server):
    old = broken_claim()  # even an invalid object may be deleted
    for operation in ("DELETE", "CONNECT"):
        review = review_of(None, operation, old=old)
        status, answer = server.review(review)
        assert status == 200
        assert answer["response"] == {"uid": review["request"]["uid"], "allowed": True}


def test_update_of_an_immutable_spec_is_one_error_at_spec(server):
    old = claim()
    new = copy.deepcopy(old)
    new["spec"]["devices"]["requests"][0]["exactly"]["count"] = 4
    _, answer = server.review(review_of(new, "UPDATE", old=old))
    response = answer["response"]
    assert response["allowed"] is False
    causes = response["status"]["details"]["causes"]
    assert [(c["field"], c["reason"]) for c in causes] == [("spec", "FieldValueInvalid")]
    assert "immutable" in causes[0]["message"]

    # Metadata changes (a finalizer, a label) are fine.
    relabelled = copy.deepcopy(old)
    relabelled["metadata"]["labels"]["tier"] = "gold"
    relabelled["metadata"]["finalizers"] = ["resource.kubernetes.io/delete-protection"]
    _, answer = server.review(review_of(relabelled, "UPDATE", old=old))
    assert answer["response"]["allowed"] is True

    # A DeviceClass spec is mutable.
    device_class = load_case("deviceclass.json")
    changed = copy.deepcopy(device_class)
    changed["spec"]["selectors"][0]["cel"]["expression"] = "device.driver == 'other.example.com'"
    _, answer = server.review(review_of(changed, "UPDATE", old=device_class))
    assert answer["response"]["allowed"] is True, answer


def test_update_does_not_deny_problems_the_object_already_had(server):
    old = broken_claim()
    new = copy.deepcopy(old)
    new["metadata"]["finalizers"] = ["resource.kubernetes.io/delete-protection"]
    _, answer = server.review(review_of(new, "UPDATE", old=old))
    response = answer["response"]
    assert response["allowed"] is True, response
    assert any("[DRA101]" in w for w in response["warnings"])


@pytest.mark.parametrize(("before", "after", "changed"), [
    (True, 1, True), (1, True, True), (False, 0, True), (0, False, True), (1, 1.0, True), ("1", 1, True),
    ([True], [1], True), ({"n": False}, {"n": 0}, True),
    (True, True, False), (1, 1, False), (1.5, 1.5, False), ([0, False], [0, False], False),
])
def test_update_compares_spec_values_as_json_type_and_all(server, before, after, changed):
    # Opaque parameters are kept as the JSON sent: `true` -> `1` is a changed spec, whatever Python's `True == 1` says.
    old = claim()
    old["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sharing"]["value"] = before
    new = copy.deepcopy(old)
    new["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sharing"]["value"] = after
    new["metadata"]["labels"]["tier"] = "gold"
    _, answer = server.review(review_of(new, "UPDATE", old=old))
    response = answer["response"]
    if changed:
        assert response["allowed"] is False, response
        causes = response["status"]["details"]["causes"]
        assert [(c["field"], c["reason"], c["message"].rsplit(" [", 1)[1]) for c in causes] == [("spec", "FieldValueInvalid", "DRA022]")]
    else:
        assert response == {"uid": response["uid"], "allowed": True}


# --------------------------------------------------------------------------- bad requests


def test_malformed_json_is_a_clear_400(server):
    status, answer = server.review(b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {')
    assert status == 400
    assert answer["kind"] == "Status" and answer["code"] == 400
    assert "not valid JSON" in answer["message"]
    assert "Traceback" not in answer["message"]


def test_wrong_review_version_is_a_400_naming_the_version_spoken(server):
    review = review_of(claim())
    review["apiVersion"] = "admission.k8s.io/v1beta1"
    status, answer = server.review(review)
    assert status == 400
    assert "admission.k8s.io/v1beta1" in answer["message"] and "admission.k8s.io/v1 only" in answer["message"]

    review = review_of(claim())
    del review["request"]["uid"]
    status, answer = server.review(review)
    assert status == 400 and "uid" in answer["message"]


def test_other_routes_and_methods(server):
    assert server.get("/healthz") == (200, b"ok\n")
    assert server.get("/readyz") == (200, b"ok\n")
    assert server.get("/nope")[0] == 404
    assert server.get("/validate")[0] == 405
    status, _ = server.request("POST", "/validate", b"<xml/>", {"Content-Type": "application/xml"})
    assert status == 415


def test_body_over_the_limit_is_refused_without_reading_it(server):
    with server.raw_socket() as sock:
        # Announce 4 MiB and send none of it: the answer must come anyway, and at once.
        sock.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 4194304\r\n\r\n")
        status, headers, body = read_response(sock)
    assert status == 413
    assert headers.get("connection") == "close"
    assert "3145728" in json.loads(body)["message"]

    # Without a Content-Length (chunked), the limit applies while reading.
    with server.raw_socket() as sock:
        sock.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * (1024 * 1024)
        status = None
        try:
            for _ in range(4):
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:
            pass  # the server may close while we are still sending
        status, _, _ = read_response(sock)
    assert status == 413


# --------------------------------------------------------------------------- metrics


def test_metrics_count_requests_problems_and_bad_requests(server):
    before = server.metrics()
    server.review(review_of(claim()))
    server.review(review_of(claim()))
    server.review(review_of(broken_claim()))
    server.review(b"not json")
    after = server.metrics()

    def delta(name: str) -> float:
        return after.get(name, 0.0) - before.get(name, 0.0)

    assert delta('dralint_webhook_admission_requests_total{kind="ResourceClaim",verdict="allowed"}') == 2
    assert delta('dralint_webhook_admission_requests_total{kind="ResourceClaim",verdict="denied"}') == 1
    assert delta('dralint_webhook_problems_total{code="DRA101"}') == 1
    assert delta('dralint_webhook_problems_total{code="DRA102"}') == 1
    # The claims' class is not among the linted objects (an info, DRA713): never sent, never counted.
    assert delta('dralint_webhook_problems_total{code="DRA713"}') == 0
    assert delta('dralint_webhook_bad_requests_total{reason="malformed"}') == 1
    assert delta("dralint_webhook_admission_duration_seconds_count") == 3
    assert delta('dralint_webhook_admission_duration_seconds_bucket{le="+Inf"}') == 3
    assert after["dralint_webhook_in_flight_requests"] == 0
    assert after['dralint_webhook_info{kubernetes_version="1.35",version="0.1.0",workers="1"}'] == 1


def test_each_review_is_logged_as_json_with_its_uid(server):
    review = review_of(broken_claim())
    server.review(review)
    uid = review["request"]["uid"]
    entry = wait_until(lambda: next((e for e in server.logs() if e.get("uid") == uid), None), "the log line")
    assert entry["msg"] == "admission" and entry["verdict"] == "denied" and entry["kind"] == "ResourceClaim"
    assert entry["level"] == "info" and "time" in entry


# --------------------------------------------------------------------------- lifecycle


def test_certificate_is_reloaded_when_its_files_change(server):
    def served_serial() -> int:
        with server.raw_socket() as sock:
            return x509.load_der_x509_certificate(sock.getpeercert(binary_form=True)).serial_number

    reloads = 'dralint_webhook_certificate_reloads_total{result="success"}'
    before = server.metrics()[reloads]
    assert served_serial() == server.serial
    status, _ = server.review(review_of(claim()))  # a keep-alive connection made before the rotation
    assert status == 200
    server.serial = server.pki.issue(server.cert, server.key)
    wait_until(lambda: served_serial() == server.serial, "the new certificate to be served")
    assert server.review(review_of(claim()))[1]["response"]["allowed"] is True  # the old connection still works
    assert server.metrics()[reloads] - before >= 1


def test_sigterm_lets_the_request_in_flight_finish(server):
    # It stops the module's server: the last test of the module to use it.
    body = json.dumps(review_of(claim())).encode()
    sock = server.raw_socket()
    sock.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
    # The server has the request once it counts it in flight.
    wait_until(lambda: server.metrics()["dralint_webhook_in_flight_requests"] == 1, "the request to be in flight")
    server.terminate()
    wait_until(lambda: any(e.get("msg", "").startswith("stopping") for e in server.logs()), "the server to start stopping")
    sock.sendall(body[10:])
    status, _, data = read_response(sock)
    sock.close()
    assert status == 200
    assert json.loads(data)["response"]["allowed"] is True
    assert server.proc.wait(timeout=WAIT) == 0


def test_several_workers_share_the_port_and_the_metrics(pki, tmp_path):
    hook = Webhook(pki, tmp_path, "--workers", "2")
    try:
        before = hook.metrics()['dralint_webhook_admission_requests_total{kind="ResourceClaim",verdict="allowed"}']
        for _ in range(6):
            status, _ = hook.request("POST", "/validate", json.dumps(review_of(claim())).encode(),
                                     {"Content-Type": "application/json"}, fresh=True)
            assert status == 200
        after = hook.metrics()
        assert after['dralint_webhook_admission_requests_total{kind="ResourceClaim",verdict="allowed"}'] - before == 6
        assert len({e["pid"] for e in hook.logs() if e.get("msg") == "admission"}) >= 1
    finally:
        assert hook.stop() == 0


def test_bad_certificate_is_a_usage_error(tmp_path):
    from conftest import run_dralint

    (tmp_path / "bad.crt").write_text("not a certificate")
    (tmp_path / "bad.key").write_text("not a key")
    run = run_dralint("serve", "--tls-cert", str(tmp_path / "bad.crt"), "--tls-key", str(tmp_path / "bad.key"), "--no-config")
    assert run.code == 2
    assert "cannot use --tls-cert/--tls-key" in run.stderr and "Traceback" not in run.stderr


# --------------------------------------------------------------------------- internal errors (in process)


def _asgi_call(app, body: bytes) -> tuple[int, dict]:
    sent: list[dict] = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/validate", "headers": [(b"content-type", b"application/json")], "client": ("127.0.0.1", 1)}
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], json.loads(b"".join(m.get("body", b"") for m in sent[1:]))


@pytest.mark.parametrize("on_error", ["deny", "allow"])
def test_internal_error_follows_on_error_and_is_counted(on_error, caplog):
    from dralint import schemas
    from dralint.lint import LintOptions
    from dralint.webhook.app import Settings, WebhookApp
    from dralint.webhook.metrics import Metrics
    from dralint.webhook.review import Policy

    metrics = Metrics(kinds=schemas.ALL_DRA_KINDS, codes=["DRA101"])
    app = WebhookApp(Settings(policy=Policy(LintOptions()), metrics=metrics, on_error=on_error))

    def broken(request, policy):
        raise RuntimeError("boom")

    app.decide = broken
    review = review_of(claim())
    with caplog.at_level("ERROR", logger="dralint.webhook"):
        status, answer = _asgi_call(app, json.dumps(review).encode())
    assert status == 200
    response = answer["response"]
    assert response["uid"] == review["request"]["uid"]
    assert response["allowed"] is (on_error == "allow")
    text = json.dumps(response)
    assert "Traceback" not in text and "boom" not in text
    if on_error == "deny":
        assert response["status"]["code"] == 500
    counted = parse_metrics(metrics.render().decode())
    assert counted["dralint_webhook_internal_errors_total"] == 1
    assert counted['dralint_webhook_admission_requests_total{kind="ResourceClaim",verdict="error"}'] == 1
    record = next(r for r in caplog.records if r.getMessage().startswith("internal error"))
    assert record.uid == review["request"]["uid"] and "boom" in record.error


# --------------------------------------------------------------------------- the lint path stays light


def test_lint_path_imports_nothing_of_the_webhook():
    code = (
        "import sys\n"
        "from dralint.cli import main\n"
        "main(['--no-config', '--format', 'json', 'tests/cases/webhook/deviceclass.yaml'])\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('dralint.webhook', 'uvicorn', 'uvloop', 'httptools')))\n"
        "assert not bad, bad\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0, run.stderr


# --------------------------------------------------------------------------- deploy/


DEPLOY = ROOT / "deploy"


def _yaml_documents(path: Path) -> list:
    from dralint.pipeline.load import load  # dralint's own loader (plain data), as for any manifest

    loaded = load(str(path), path.read_bytes())
    assert not loaded.problems, loaded.problems
    return [d.data for d in loaded.documents if d.data]


def _manifests() -> list[Path]:
    return sorted(p for p in DEPLOY.glob("*.yaml") if p.name != "kustomization.yaml")


def test_deploy_manifests_pass_an_independent_strict_validator():
    exe = Path(sys.executable).parent / "kubernetes-validate"
    if not exe.exists():
        pytest.skip("kubernetes-validate is not installed (it is in the test extra)")
    files = _manifests()
    assert len(files) >= 5
    run = subprocess.run([str(exe), "--strict", "--kubernetes-version", "1.35.0", *map(str, files)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert not [line for line in lines if line.startswith("ERROR")], run.stdout
    # Only cert-manager's kinds are unknown to it (custom resources); everything else was validated.
    skipped = [line for line in lines if line.startswith("WARN")]
    assert all("cert-manager.io/v1" in line for line in skipped), skipped
    assert sum(line.startswith("INFO") and "passed" in line for line in lines) >= 8
    assert any(line.startswith("INFO") and "passed" in line and "networkpolicy/dralint-webhook" in line for line in lines), run.stdout


def test_deploy_network_policy_admits_the_https_port_only_and_no_egress():
    docs = [d for p in _manifests() for d in _yaml_documents(p)]
    (policy,) = [d for d in docs if d["kind"] == "NetworkPolicy"]
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    template = deployment["spec"]["template"]
    assert policy["metadata"]["namespace"] == deployment["metadata"]["namespace"]
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= template["metadata"]["labels"].items()
    assert sorted(policy["spec"]["policyTypes"]) == ["Egress", "Ingress"]
    assert policy["spec"]["egress"] == []  # the webhook calls nothing
    (container,) = template["spec"]["containers"]
    ports = [p["containerPort"] for p in container["ports"]]
    assert [rule["ports"] for rule in policy["spec"]["ingress"]] == [[{"protocol": "TCP", "port": port} for port in ports]]
    # `kubectl apply -k deploy/` applies every manifest of the folder.
    (kustomization,) = _yaml_documents(DEPLOY / "kustomization.yaml")
    assert sorted(kustomization["resources"]) == [p.name for p in _manifests()]


def test_deploy_manifests_are_clean_for_dralint():
    from conftest import lint_json

    run = lint_json("--fail-on", "info", str(DEPLOY))
    assert run.code == 0 and run.problems == [], run.stdout


def test_deploy_configmap_is_a_working_configuration(tmp_path):
    from conftest import run_dralint

    (configmap,) = _yaml_documents(DEPLOY / "configmap.yaml")
    for name, text in configmap["data"].items():
        (tmp_path / name).write_text(text)
    run = run_dralint("--config", str(tmp_path / ".dralint.yaml"), "--format", "json", str(WEBHOOK_CASES / "deviceclass.yaml"))
    assert run.code == 0, run.stdout + run.stderr
    greedy = claim()
    greedy["spec"]["devices"]["requests"][0]["exactly"]["count"] = 16
    (tmp_path / "greedy.json").write_text(json.dumps(greedy))
    run = run_dralint("--config", str(tmp_path / ".dralint.yaml"), "--format", "json", str(tmp_path / "greedy.json"))
    assert run.code == 1 and [p["rule"] for p in run.problems if p["severity"] == "error"] == ["ORG001"], run.stdout + run.stderr


def test_deploy_webhook_configuration_is_scoped_as_documented():
    docs = [d for p in _manifests() for d in _yaml_documents(p)]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    (config,) = by_kind["ValidatingWebhookConfiguration"]
    (hook,) = config["webhooks"]
    assert hook["sideEffects"] == "None" and hook["admissionReviewVersions"] == ["v1"]
    assert hook["failurePolicy"] in ("Fail", "Ignore") and 1 <= hook["timeoutSeconds"] <= 30
    (rule,) = hook["rules"]
    assert rule["apiGroups"] == ["resource.k8s.io"] and rule["apiVersions"] == ["*"]
    assert sorted(rule["resources"]) == ["deviceclasses", "resourceclaims", "resourceclaimtemplates"]
    assert any(
        e["key"] == "kubernetes.io/metadata.name" and e["operator"] == "NotIn" and "kube-system" in e["values"]
        for e in hook["namespaceSelector"]["matchExpressions"]
    )
    assert "cert-manager.io/inject-ca-from" in config["metadata"]["annotations"]
    (deployment,) = by_kind["Deployment"]
    assert deployment["spec"]["replicas"] == 2
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True and security["allowPrivilegeEscalation"] is False
    assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["resources"]["requests"] and container["resources"]["limits"]
    assert {"Namespace", "ServiceAccount", "Service", "ConfigMap", "Issuer", "Certificate"} <= set(by_kind)
