"""What judging in a separate process costs a review, and what it saves the event loop.

    .venv/bin/python bench/webhook/judging.py [--reviews 2000] [--rounds 5]

No HTTP: the review of tests/cases/webhook/claim.json is judged (1) on the
event loop, as before judge processes, and (2) through a JudgePool of two
forked judges, one review at a time. Rounds alternate between the two, so a
busy machine slows both alike. Reported per review: wall time (p50, p99) and
the CPU time the event loop's process spent (what limits a worker's req/s).
Then the event loop's lag (a 5 ms timer, as a probe would wait) while a heavy
claim (32 requests x 32 distinct 40-term CEL selectors) is judged in a
thread, as a thread pool would, and in a judge process.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from dralint.lint import LintOptions  # noqa: E402
from dralint.webhook import judging  # noqa: E402
from dralint.webhook import review as rv  # noqa: E402

CLAIM = ROOT / "tests" / "cases" / "webhook" / "claim.json"


def review_body(obj: dict, uid: int) -> bytes:
    request = {"uid": f"00000000-0000-4000-8000-{uid:012d}", "operation": "CREATE", "name": obj["metadata"]["name"],
               "namespace": obj["metadata"].get("namespace", ""), "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
               "object": obj, "dryRun": False}
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def heavy_claim() -> dict:
    salt = random.randrange(1 << 30)
    requests = [{"name": f"r{r}", "exactly": {"deviceClassName": "gpu.example.com", "selectors": [
        {"cel": {"expression": " && ".join(f"device.attributes['gpu.example.com'].a{t} == 'v{salt}-{r}-{s}-{t}'" for t in range(40))}}
        for s in range(32)]}} for r in range(32)]
    obj = json.loads(CLAIM.read_text())
    obj["spec"] = {"devices": {"requests": requests}}
    return obj


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def judge_many(pool: judging.JudgePool | None, judge, bodies: list[bytes]) -> tuple[list[float], float]:
    walls = []
    cpu = time.process_time()
    for body in bodies:
        start = time.perf_counter()
        verdict = judge(body) if pool is None else await pool.judge(body, 10.0)
        walls.append(time.perf_counter() - start)
        assert verdict.outcome == "allowed", verdict
    return walls, (time.process_time() - cpu) / len(bodies)


async def lag_while(run_heavy) -> tuple[float, float, float]:
    task = asyncio.ensure_future(run_heavy())
    lags = []
    while not task.done():
        start = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append(time.perf_counter() - start - 0.005)
    await task
    return statistics.median(lags), percentile(lags, 0.99), max(lags)


async def main(args: argparse.Namespace) -> None:
    policy = rv.Policy(LintOptions())
    obj = json.loads(CLAIM.read_text())
    bodies = [review_body(obj, i) for i in range(args.reviews)]

    def judge(body: bytes) -> judging.Verdict:
        return judging.judge(body, policy, "deny")

    judge(bodies[0])  # load rules, schemas and the CEL environment before forking
    pool = judging.JudgePool(judge, 2)
    pool.start()
    results: dict[str, list] = {"event loop": [], "judge process": []}
    try:
        for _ in range(args.rounds):
            for name, which in (("event loop", None), ("judge process", pool)):
                results[name].append(await judge_many(which, judge, bodies))
        print(f"claim.json review, {args.reviews} reviews x {args.rounds} rounds, one at a time (median of rounds):")
        for name, rounds in results.items():
            p50 = statistics.median(percentile(w, 0.5) for w, _ in rounds) * 1e3
            p99 = statistics.median(percentile(w, 0.99) for w, _ in rounds) * 1e3
            cpu = statistics.median(c for _, c in rounds) * 1e3
            print(f"  {name:<14} wall p50 {p50:6.3f} ms  p99 {p99:6.3f} ms   event-loop process CPU {cpu:6.3f} ms/review")

        heavy = review_body(heavy_claim(), 1)
        loop = asyncio.get_running_loop()
        with concurrent.futures.ThreadPoolExecutor(1) as threads:
            lag = await lag_while(lambda: loop.run_in_executor(threads, judge, heavy))
        print(f"event-loop lag while a heavy claim is judged in a thread:       p50 {lag[0] * 1e3:5.1f} ms  p99 {lag[1] * 1e3:5.1f} ms  max {lag[2] * 1e3:5.1f} ms")
        heavy = review_body(heavy_claim(), 2)
        lag = await lag_while(lambda: pool.judge(heavy, 60.0))
        print(f"event-loop lag while a heavy claim is judged in a judge process: p50 {lag[0] * 1e3:5.1f} ms  p99 {lag[1] * 1e3:5.1f} ms  max {lag[2] * 1e3:5.1f} ms")
    finally:
        pool.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reviews", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(main(parser.parse_args()))
