"""Load generator for `dralint serve`: loopback TLS, keep-alive, a realistic ResourceClaim review.

    .venv/bin/python bench/webhook/loadgen.py                      # start a server, run everything
    .venv/bin/python bench/webhook/loadgen.py --workers 1 --duration 5
    .venv/bin/python bench/webhook/loadgen.py --url https://127.0.0.1:8443 --cafile ca.crt   # an existing server

It reports, for closed-loop concurrency 1, 8 and 32 (each connection sends its
next request as soon as the previous answer arrives): requests per second and
p50/p95/p99 latency; then an open-loop run at a fixed rate (default 200 req/s,
requests sent on schedule whatever the answers do, latency counted from the
scheduled time so a stall is not hidden). Every answer is checked to be an
allowed AdmissionReview. Traffic goes to 127.0.0.1 only; every run is bounded
by --duration.

The client runs on the same machine as the server and takes CPU from it: the
figures are a floor for what the server does on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import ipaddress
import json
import os
import platform
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLAIM = ROOT / "tests" / "cases" / "webhook" / "claim.json"


# --------------------------------------------------------------------------- certificates and server


def make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dralint bench CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dralint-webhook")]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = folder / "ca.crt", folder / "tls.crt", folder / "tls.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return paths


def start_server(folder: Path, workers: int, log_level: str, extra: list[str] | None = None) -> tuple[subprocess.Popen, int, Path]:
    ca, cert, key = make_certificates(folder)
    log_path = folder / "server.log"
    log = open(log_path, "wb")
    exe = Path(sys.executable).parent / "dralint"
    proc = subprocess.Popen(
        [str(exe), "serve", "--tls-cert", str(cert), "--tls-key", str(key), "--host", "127.0.0.1", "--port", "0",
         "--workers", str(workers), "--no-config", "--log-level", log_level, *(extra or [])],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in log_path.read_text(errors="replace").splitlines():
            if '"listening"' in line:
                port = json.loads(line)["port"]
                return proc, port, ca
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"server did not start:\n{log_path.read_text(errors='replace')}")


# --------------------------------------------------------------------------- client


def review_bytes(uid: int, obj: dict) -> bytes:
    review = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": f"00000000-0000-4000-8000-{uid:012d}",
            "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
            "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceclaims"},
            "requestKind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
            "requestResource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceclaims"},
            "name": obj["metadata"]["name"],
            "namespace": obj["metadata"]["namespace"],
            "operation": "CREATE",
            "userInfo": {"username": "system:serviceaccount:ml-team:trainer", "uid": "a0b1c2", "groups": ["system:serviceaccounts", "system:authenticated"]},
            "object": obj,
            "oldObject": None,
            "dryRun": False,
            "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "kubectl-client-side-apply", "fieldValidation": "Strict"},
        },
    }
    body = json.dumps(review, separators=(",", ":")).encode()
    # What the API server sends (Go's net/http client, HTTP/1.1).
    head = (
        "POST /validate?timeout=5s HTTP/1.1\r\nHost: dralint-webhook.dralint-system.svc:443\r\n"
        f"User-Agent: kube-apiserver-admission\r\nContent-Type: application/json\r\nAccept: application/json, */*\r\n"
        f"Content-Length: {len(body)}\r\nAccept-Encoding: gzip\r\n\r\n"
    ).encode()
    return head + body


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int, ctx: ssl.SSLContext) -> "Connection":
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=ctx, server_hostname="127.0.0.1")
        return cls(reader, writer)

    async def send(self, request: bytes) -> None:
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"unexpected answer: {head[:200]!r}")
        length = 0
        for line in head.split(b"\r\n"):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        body = await self.reader.readexactly(length)
        if b'"allowed":true' not in body:
            raise RuntimeError(f"claim not allowed: {body[:300]!r}")

    def close(self) -> None:
        self.writer.close()


def heavy_claim(obj: dict) -> dict:
    """32 requests x 32 distinct 40-term CEL selectors: within the API's limits, seconds of checking."""
    salt = int(time.time() * 1000) % (1 << 30)  # no verdict cached from an earlier run helps
    requests = [{"name": f"r{r}", "exactly": {"deviceClassName": "gpu.example.com", "selectors": [
        {"cel": {"expression": " && ".join(f"device.attributes['gpu.example.com'].a{t} == 'v{salt}-{r}-{s}-{t}'" for t in range(40))}}
        for s in range(32)]}} for r in range(32)]
    heavy = json.loads(json.dumps(obj))
    heavy["metadata"]["name"] = "heavy"
    heavy["spec"] = {"devices": {"requests": requests}}
    return heavy


async def under_heavy(port: int, ctx: ssl.SSLContext, requests: list[bytes], heavy: int, duration: float) -> list[dict]:
    """`heavy` heavy claims at once; meanwhile GET /healthz and ordinary reviews, each every 50 ms."""
    obj = json.loads(CLAIM.read_text())
    heavy_requests = [review_bytes(10_000 + i, heavy_claim(obj)) for i in range(heavy)]
    probe_conn, review_conn = await Connection.open(port, ctx), await Connection.open(port, ctx)
    heavy_conns = [await Connection.open(port, ctx) for _ in heavy_requests]
    outcomes: list[str] = []

    async def one_heavy(conn: Connection, request: bytes) -> None:
        conn.writer.write(request)
        head = await conn.reader.readuntil(b"\r\n\r\n")
        length = int(next(line[15:] for line in head.split(b"\r\n") if line[:15].lower() == b"content-length:"))
        body = await conn.reader.readexactly(length)
        outcomes.append("allowed" if b'"allowed":true' in body else "denied")

    async def probe(conn: Connection) -> None:
        conn.writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        head = await conn.reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        await conn.reader.readexactly(3)

    heavy_tasks = [asyncio.create_task(one_heavy(c, r)) for c, r in zip(heavy_conns, heavy_requests, strict=True)]
    probes: list[float] = []
    reviews: list[float] = []
    began = time.perf_counter()
    n = 0
    while time.perf_counter() - began < duration:
        start = time.perf_counter()
        await probe(probe_conn)
        probes.append(time.perf_counter() - start)
        start = time.perf_counter()
        await review_conn.send(requests[n % len(requests)])
        reviews.append(time.perf_counter() - start)
        n += 1
        await asyncio.sleep(max(0.0, 0.05 - (time.perf_counter() - start)))
    await asyncio.wait_for(asyncio.gather(*heavy_tasks), timeout=120)
    elapsed = time.perf_counter() - began
    for c in (probe_conn, review_conn, *heavy_conns):
        c.close()
    label = f"{heavy} heavy claims ({', '.join(sorted(outcomes))})"
    return [summary(f"{label}: /healthz", probes, elapsed, 0), summary(f"{label}: reviews", reviews, elapsed, 0)]


def server_cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system) of the server and every process under it, reaped ones included (Linux)."""
    if pid is None:
        return float("nan")
    total = 0.0
    pending = [pid]
    while pending:
        p = pending.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
            for task in os.listdir(f"/proc/{p}/task"):
                pending.extend(int(c) for c in Path(f"/proc/{p}/task/{task}/children").read_text().split())
        except (OSError, ValueError):
            continue
    return total


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[index]


def summary(name: str, latencies: list[float], elapsed: float, errors: int) -> dict:
    values = sorted(latencies)
    return {
        "run": name,
        "requests": len(values),
        "errors": errors,
        "seconds": round(elapsed, 2),
        "req_per_s": round(len(values) / elapsed, 1) if elapsed else 0.0,
        "p50_ms": round(percentile(values, 0.50) * 1000, 2),
        "p95_ms": round(percentile(values, 0.95) * 1000, 2),
        "p99_ms": round(percentile(values, 0.99) * 1000, 2),
        "max_ms": round(values[-1] * 1000, 2) if values else float("nan"),
    }


async def closed_loop(port: int, ctx: ssl.SSLContext, requests: list[bytes], concurrency: int, duration: float, warmup: float) -> dict:
    connections = [await Connection.open(port, ctx) for _ in range(concurrency)]
    latencies: list[float] = []
    errors = 0
    answered = 0  # warm-up included
    measuring = False
    stop_at = time.perf_counter() + warmup + duration

    async def worker(i: int, conn: Connection) -> None:
        nonlocal errors, answered
        n = i
        while True:
            start = time.perf_counter()
            if start >= stop_at:
                return
            try:
                await conn.send(requests[n % len(requests)])
            except (RuntimeError, OSError, asyncio.IncompleteReadError):
                errors += 1
                return
            answered += 1
            if measuring:
                latencies.append(time.perf_counter() - start)
            n += concurrency

    tasks = [asyncio.create_task(worker(i, c)) for i, c in enumerate(connections)]
    await asyncio.sleep(warmup)
    measuring = True
    began = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=duration + 30)
    elapsed = time.perf_counter() - began
    for c in connections:
        c.close()
    return {**summary(f"closed loop, concurrency {concurrency}", latencies, elapsed, errors), "answered": answered}


async def open_loop(port: int, ctx: ssl.SSLContext, requests: list[bytes], rate: float, duration: float, pool: int) -> dict:
    """Requests on a fixed schedule; latency from the scheduled time (no coordinated omission)."""
    connections = asyncio.Queue()
    for _ in range(pool):
        connections.put_nowait(await Connection.open(port, ctx))
    latencies: list[float] = []
    errors = 0
    total = int(rate * duration)
    began = time.perf_counter()

    async def one(n: int, scheduled: float) -> None:
        nonlocal errors
        conn = await connections.get()
        try:
            await conn.send(requests[n % len(requests)])
            latencies.append(time.perf_counter() - scheduled)
            connections.put_nowait(conn)
        except (RuntimeError, OSError, asyncio.IncompleteReadError):
            errors += 1
            connections.put_nowait(await Connection.open(port, ctx))

    tasks = []
    for n in range(total):
        scheduled = began + n / rate
        delay = scheduled - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(n, scheduled)))
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=30)
    elapsed = time.perf_counter() - began
    while not connections.empty():
        connections.get_nowait().close()
    return summary(f"open loop, {rate:g} req/s", latencies, elapsed, errors)


async def run(args: argparse.Namespace, port: int, cafile: str, server_pid: int | None) -> list[dict]:
    ctx = ssl.create_default_context(cafile=cafile)
    obj = json.loads(CLAIM.read_text())
    requests = [review_bytes(i, obj) for i in range(256)]
    results = []
    for concurrency in args.concurrency:
        cpu = server_cpu_seconds(server_pid)
        results.append(await closed_loop(port, ctx, requests, concurrency, args.duration, args.warmup))
        # Per review answered, warm-up included: unlike req/s, hardly moved by other load on the machine.
        results[-1]["server_cpu_ms_per_review"] = round((server_cpu_seconds(server_pid) - cpu) * 1000 / max(1, results[-1]["answered"]), 3)
        print_row(results[-1])
    if args.rate:
        results.append(await open_loop(port, ctx, requests, args.rate, args.duration, pool=8))
        print_row(results[-1])
    if args.heavy:
        for row in await under_heavy(port, ctx, requests, args.heavy, args.duration):
            results.append(row)
            print_row(row)
    return results


def print_row(r: dict) -> None:
    cpu = f"  server CPU {r['server_cpu_ms_per_review']:.3f} ms/review" if "server_cpu_ms_per_review" in r else ""
    print(f"{r['run']:<34} {r['req_per_s']:>9.1f} req/s  p50 {r['p50_ms']:>6.2f} ms  p95 {r['p95_ms']:>6.2f} ms  "
          f"p99 {r['p99_ms']:>6.2f} ms  max {r['max_ms']:>7.2f} ms  ({r['requests']} requests, {r['errors']} errors){cpu}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="server workers when this script starts the server (default 2)")
    parser.add_argument("--duration", type=float, default=8.0, help="seconds measured per run (default 8)")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds before measuring each closed-loop run (default 1)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--rate", type=float, default=200.0, help="open-loop rate in req/s; 0 to skip (default 200)")
    parser.add_argument("--judges", type=int, default=0, help="server --judges per worker (default: the server's default)")
    parser.add_argument("--heavy", type=int, default=0, metavar="N", help="then send N heavy claims at once and measure /healthz and ordinary reviews meanwhile (default 0: skip)")
    parser.add_argument("--log-level", default="info", help="server --log-level (default info: one JSON line per review, as deployed)")
    parser.add_argument("--url", help="an already running server, https://127.0.0.1:PORT (loopback only)")
    parser.add_argument("--cafile", help="CA of --url's certificate")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()

    try:
        import uvloop

        loop_factory = uvloop.new_event_loop
    except ImportError:  # pragma: no cover
        loop_factory = asyncio.new_event_loop

    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.url:
            host, _, port_text = args.url.removeprefix("https://").rstrip("/").rpartition(":")
            if host not in ("127.0.0.1", "localhost"):
                raise SystemExit("--url must be a loopback address")
            port, cafile = int(port_text), args.cafile
        else:
            proc, port, ca = start_server(Path(tmp), args.workers, args.log_level, ["--judges", str(args.judges)] if args.judges else [])
            cafile = str(ca)
        print(f"dralint webhook bench: {platform.python_implementation()} {platform.python_version()}, "
              f"{os.cpu_count()} CPUs, server workers {args.workers if proc else '?'}, claim {CLAIM.relative_to(ROOT)}", flush=True)
        try:
            with asyncio.Runner(loop_factory=loop_factory) as runner:
                # Wait for readiness with real requests (bounded).
                deadline = time.monotonic() + 30
                while True:
                    try:
                        runner.run(closed_loop(port, ssl.create_default_context(cafile=cafile), [review_bytes(0, json.loads(CLAIM.read_text()))], 1, 0.2, 0.0))
                        break
                    except OSError:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.1)
                results = runner.run(run(args, port, cafile, proc.pid if proc else None))
        finally:
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
