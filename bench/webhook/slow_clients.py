"""Memory of `dralint serve` under slow clients: N TLS clients each send a full-size review but the last byte.

    .venv/bin/python bench/webhook/slow_clients.py                     # 200 clients, 3 MiB each, --workers 2
    .venv/bin/python bench/webhook/slow_clients.py --clients 50 --workers 1 --json out.json

Starts the server as deploy/deployment.yaml runs it (--workers 2, --review-timeout 3)
on 127.0.0.1, opens the clients at once, and has each send its request
headers (Content-Length: the body's size) and all of a valid AdmissionReview
padded to --body-bytes (default 3 MiB, the API server's own limit) except
the last byte. While they hold, the resident memory of the server and of every
process under it (workers, judges) is sampled every 50 ms, and /healthz is
timed from a process of its own. Then each client sends its last byte and reads its answer.

Reported: the peak RSS of the largest single process, the peak of the sum
over the tree (what a container's memory limit sees, counting pages shared
by fork once per process: an overestimate), the peak sum of PSS (shared
pages divided among their sharers: closest to what the cgroup charges), the
answers by HTTP status, and the /healthz latencies measured from another
process while the clients connect and send. Traffic goes to
127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadgen import CLAIM, review_bytes, server_cpu_seconds, start_server  # noqa: E402

MiB = 1024 * 1024


def tree(pid: int) -> list[int]:
    out, pending = [], [pid]
    while pending:
        p = pending.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                pending.extend(int(c) for c in Path(f"/proc/{p}/task/{task}/children").read_text().split())
        except OSError:
            continue
    return out


def memory(pid: int, each: dict[int, int] | None = None) -> tuple[int, int, int]:
    """(largest RSS of one process, sum of RSS, sum of PSS) over the server's process tree, in bytes;
    `each` keeps the peak PSS of every process seen."""
    largest = total_rss = total_pss = 0
    for p in tree(pid):
        try:
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
        except OSError:
            continue
        fields = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in rollup.splitlines()[1:] if line.split()[-1] == "kB"}
        rss, pss = fields.get("Rss", 0), fields.get("Pss", 0)
        largest = max(largest, rss)
        total_rss += rss
        total_pss += pss
        if each is not None:
            each[p] = max(each.get(p, 0), pss)
    return largest, total_rss, total_pss


def padded_review(size: int, shape: str = "string") -> bytes:
    """A valid review of the example claim padded to exactly `size` bytes of body: with one long annotation
    (`string`), or with an unknown field holding as many empty objects as fit (`objects`: costly to parse)."""
    obj = json.loads(CLAIM.read_text())
    obj["metadata"]["annotations"] = {"example.com/padding": ""}
    request = review_bytes(1, obj)
    head, _, body = request.partition(b"\r\n\r\n")
    pad = size - len(body)
    if pad < 0:
        raise SystemExit(f"--body-bytes must be at least {len(body)}")
    if shape == "objects":
        # "annotations":{"example.com/padding":""}  ->  "annotations":{},"extra":[{},{},...]  (metadata.extra: DRA101)
        old = b'"annotations":{"example.com/padding":""}'
        room = len(old) + pad - len(b'"annotations":{},"extra":[]')
        count, spare = (room + 1) // 3, (room + 1) % 3
        filler = b",".join([b"{}"] * count) + b" " * spare
        body = body.replace(old, b'"annotations":{},"extra":[' + filler + b"]")
    else:
        body = body.replace(b'"example.com/padding":""', b'"example.com/padding":"' + b"x" * pad + b'"')
    assert len(body) == size
    head = head.replace(b"Content-Length: %d" % (len(request) - len(head) - 4), b"Content-Length: %d" % size)
    return head + b"\r\n\r\n" + body


async def read_status(reader: asyncio.StreamReader) -> str:
    line = await reader.readline()
    if not line:
        return "closed"
    status = line.split()[1].decode()
    await reader.readuntil(b"\r\n\r\n")
    return status


async def client(port: int, ctx: ssl.SSLContext, request: bytes, sent: asyncio.Event, release: asyncio.Event, count: list[int], total: int) -> str:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port, ssl=ctx), 30)
    except (OSError, asyncio.TimeoutError) as exc:
        return f"connect: {type(exc).__name__}"
    answer = asyncio.ensure_future(read_status(reader))  # an early answer (503, 413) arrives while we send
    try:
        writer.write(request[:-1])
        await asyncio.wait_for(asyncio.wait([asyncio.ensure_future(writer.drain()), answer], return_when=asyncio.FIRST_COMPLETED), 30)
    except (OSError, asyncio.TimeoutError):
        pass
    count[0] += 1
    if count[0] == total:
        sent.set()
    try:
        if not answer.done():
            await asyncio.wait([answer, asyncio.ensure_future(release.wait())], return_when=asyncio.FIRST_COMPLETED)
        if not answer.done():
            writer.write(request[-1:])
        return await asyncio.wait_for(answer, 30)
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as exc:
        return f"{type(exc).__name__}"
    finally:
        writer.close()


# Probes from a process of their own, so that the load generator's busy event loop is not in their times:
# one keep-alive TLS connection set up first (as the kubelet's), then GET /healthz every 100 ms.
PROBE = """
import http.client, ssl, sys, time
port, cafile, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
conn = http.client.HTTPSConnection("127.0.0.1", port, context=ssl.create_default_context(cafile=cafile), timeout=30)
conn.connect()
for _ in range(count):
    start = time.perf_counter()
    conn.request("GET", "/healthz")
    response = conn.getresponse()
    response.read()
    print(response.status, round((time.perf_counter() - start) * 1000, 1), flush=True)
    time.sleep(0.1)
"""


async def healthz(port: int, cafile: Path, count: int) -> list[str]:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", PROBE, str(port), str(cafile), str(count), stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    return out.decode().split("\n")[:-1]


async def run(args: argparse.Namespace, port: int, cafile: Path, pid: int) -> dict:
    ctx = ssl.create_default_context(cafile=str(cafile))
    request = padded_review(args.body_bytes, args.shape)
    peak = [0, 0, 0]
    each: dict[int, int] = {}
    stop_sampling = asyncio.Event()

    async def sample() -> None:
        while not stop_sampling.is_set():
            for i, value in enumerate(memory(pid, each)):
                peak[i] = max(peak[i], value)
            await asyncio.sleep(0.05)

    sampler = asyncio.ensure_future(sample())
    idle = memory(pid)
    cpu_before = server_cpu_seconds(pid)
    sent, release = asyncio.Event(), asyncio.Event()
    count = [0]
    tasks = [asyncio.ensure_future(client(port, ctx, request, sent, release, count, args.clients)) for _ in range(args.clients)]
    probing = asyncio.ensure_future(healthz(port, cafile, 20))  # while the clients connect and send
    try:
        await asyncio.wait_for(sent.wait(), args.hold)
    except asyncio.TimeoutError:
        pass
    probes = await probing
    release.set()
    results = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    stop_sampling.set()
    await sampler
    cpu = server_cpu_seconds(pid) - cpu_before
    by_status: dict[str, int] = {}
    for r in results:
        by_status[r] = by_status.get(r, 0) + 1
    return {
        "clients": args.clients, "body_bytes": args.body_bytes, "shape": args.shape, "workers": args.workers, "extra": args.extra,
        "idle_mib": {"largest_rss": idle[0] / MiB, "sum_rss": idle[1] / MiB, "sum_pss": idle[2] / MiB},
        "peak_mib": {"largest_rss": peak[0] / MiB, "sum_rss": peak[1] / MiB, "sum_pss": peak[2] / MiB},
        "peak_pss_mib_by_process": sorted((round(v / MiB, 1) for v in each.values()), reverse=True)[:8],
        "server_cpu_seconds": round(cpu, 2),
        "answers": by_status, "clients_done_sending": count[0],
        "healthz": probes,  # status and milliseconds of each probe
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--body-bytes", type=int, default=3 * MiB)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shape", choices=("string", "objects"), default="string", help="how the body is padded: one long annotation, or empty objects (costly to parse)")
    parser.add_argument("--hold", type=float, default=8.0, help="longest wait for every client to have sent all but its last byte (below --read-timeout)")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("extra", nargs="*", help="more `dralint serve` flags (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, ca = start_server(Path(tmp), args.workers, "warning", ["--review-timeout", "3", *args.extra])
        try:
            time.sleep(1.0)  # workers and judges forked and serving
            result = asyncio.run(run(args, port, ca, proc.pid))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=40)
            except Exception:
                proc.kill()
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
