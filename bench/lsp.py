"""`dralint lsp` latency and memory, driven by a real LSP client (pygls) over stdio.

    python bench/lsp.py                      # needs the lsp extra: pip install -e '.[lsp]'
    python bench/lsp.py --baseline ../base   # and step 3 against the checkout at ../base

1. End of typing -> published diagnostics: an edit is sent, the clock runs until
   the publish for that version arrives; the debounce pause is part of it and is
   subtracted to show the server's own cost. Baseline in the same run: the
   in-process `lint()` of the same text (the engine alone).
   On a typical manifest (tests/cases/lsp/typo.yaml) and on a ~220 KB file of
   400 objects.
2. Memory: 50 open documents, 10,000 edits (the pause set to 0 through
   DRALINT_LSP_DELAY_MS so each burst of 10 edits is linted), the RSS of the
   server and its lint process sampled along the way.
3. One-document edits in the 400-object buffer, end of typing -> publish beyond
   the pause: a character typed in the name of object 200 (nothing moves), and
   a line added to object 10 (the 390 objects after it move down a line).
   With --baseline DIR, a second server runs the dralint of DIR/src (a checkout
   of the baseline, e.g. `git worktree add --detach ../base main`); the two get
   the same edits in turn and the ratio is printed.

Code actions and hover on a 1 MB buffer: bench/lsp_codeaction.py.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from dralint.lint import lint
from dralint.pipeline.sources import Source

ROOT = Path(__file__).resolve().parent.parent
TYPICAL = (ROOT / "tests" / "cases" / "lsp" / "typo.yaml").read_text()
CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpu-{i}
  namespace: team-{team}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          allocationMode: ExactCount
          count: 2
          selectors:
          - cel:
              expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
      - name: nic
        exactly:
          deviceClassName: nic.example.com
      constraints:
      - requests: [gpu, nic]
        matchAttribute: gpu.example.com/numa
"""


CLASSES = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: nic.example.com
---
"""


def big_file(with_classes: bool = True) -> str:
    """400 objects, ~220 KB: the DeviceClasses they use, templates, and one typo near the end.

    Without the classes every template gets an info (DRA713: class not in the files),
    the worst case: each problem costs its document a position table.
    """
    objects = [CLAIM.format(i=i, team=i % 7) for i in range(400 - 2 * with_classes)]
    objects[-3] = objects[-3].replace("allocationMode", "alocationMode")
    return (CLASSES if with_classes else "") + "---\n".join(objects)


def rss_kib(pid: int) -> int:
    """The resident memory of `pid` and its children (the server lints in a child process)."""
    total = 0
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                total = int(line.split()[1])
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            total += rss_kib(int(child))
    return total


class Bench:
    def __init__(self, delay_ms: int, src: str | None = None):
        self.delay_ms = delay_ms
        self.src = src  # run the dralint of this folder (a baseline checkout's src/)
        self.client = LanguageClient("bench", "1")
        self.published: dict[str, asyncio.Queue] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.published.setdefault(params.uri, asyncio.Queue()).put_nowait((time.perf_counter(), params))

    async def start(self) -> None:
        env = {**os.environ, "DRALINT_LSP_DELAY_MS": str(self.delay_ms)}
        if self.src:
            env["PYTHONPATH"] = self.src
        await self.client.start_io(sys.executable, "-m", "dralint", "lsp", env=env, cwd=str(ROOT / "bench"))
        caps = types.ClientCapabilities(text_document=types.TextDocumentClientCapabilities(publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)))
        await self.client.initialize_async(types.InitializeParams(capabilities=caps, process_id=os.getpid()))
        self.client.initialized(types.InitializedParams())

    @property
    def pid(self) -> int:
        return self.client._server.pid  # type: ignore[union-attr]

    async def publish_for(self, uri: str, version: int) -> float:
        queue = self.published.setdefault(uri, asyncio.Queue())
        while True:
            when, params = await asyncio.wait_for(queue.get(), 30)
            if params.version == version:
                return when

    def open(self, uri: str, text: str) -> None:
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))

    def change(self, uri: str, version: int, text: str | types.TextDocumentContentChangePartial) -> None:
        """The whole new text, or one edit of the old."""
        change = types.TextDocumentContentChangeWholeDocument(text=text) if isinstance(text, str) else text
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change])
        )

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def latency(name: str, text: str, rounds: int) -> None:
    bench = Bench(delay_ms=120)
    await bench.start()
    uri = (ROOT / "bench" / f"{name}.yaml").as_uri()
    bench.open(uri, text)
    await bench.publish_for(uri, 1)
    samples = []
    for version in range(2, rounds + 2):
        edited = f"{text}# edit {version}\n"  # a keystroke at the end of the buffer
        sent = time.perf_counter()
        bench.change(uri, version, edited)
        samples.append((await bench.publish_for(uri, version) - sent) * 1000)
    await bench.stop()
    engine = []
    for _ in range(rounds):
        start = time.perf_counter()
        lint([Source(f"{name}.yaml", text.encode())])
        engine.append((time.perf_counter() - start) * 1000)
    median, lint_ms = statistics.median(samples), statistics.median(engine)
    print(f"{name:9} {len(text) / 1024:4.0f} KB {text.count('kind:'):3} objects  end of typing -> publish: median {median:6.1f} ms = pause 120 + {median - 120:5.1f} ms"
          f"  (p90 {sorted(samples)[int(len(samples) * 0.9)] - 120:5.1f});  engine alone (in-process lint): {lint_ms:5.1f} ms")


async def memory(documents: int = 50, edits: int = 10_000, burst: int = 10) -> None:
    bench = Bench(delay_ms=0)
    await bench.start()
    uris = [(ROOT / "bench" / f"doc{i}.yaml").as_uri() for i in range(documents)]
    for uri in uris:
        bench.open(uri, TYPICAL)
        await bench.publish_for(uri, 1)
    samples = [(0, rss_kib(bench.pid))]
    versions = dict.fromkeys(uris, 1)
    start = time.perf_counter()
    for n in range(edits // burst):
        uri = uris[n % documents]
        for _ in range(burst):
            versions[uri] += 1
            bench.change(uri, versions[uri], TYPICAL.replace("gpu2", f"gpu{versions[uri]}"))
        await bench.publish_for(uri, versions[uri])
        if (n + 1) * burst % 2000 == 0:
            samples.append(((n + 1) * burst, rss_kib(bench.pid)))
    took = time.perf_counter() - start
    await bench.stop()
    print(f"memory, {documents} open documents: " + ", ".join(f"{n} edits {kib / 1024:.1f} MiB" for n, kib in samples) + f"  ({edits} edits in {took:.1f} s)")


def _typed(text: str) -> tuple[int, str]:
    """A character more typed at the end of the name of object 200: where, and what."""
    return text.index("\n", text.index("name: gpu-200")), "x"


def _new_line(text: str) -> tuple[int, str]:
    """One line more added to object 10: every object after it moves."""
    return text.index("\n", text.index("name: gpu-10\n")) + 1, "  labels: {}\n"


def run_this_then_baseline(measure: Callable[[str | None], Awaitable[None]], description: str) -> None:
    """The command line of a bench that measures this tree's server, then (`--baseline DIR`) the server of a
    baseline checkout's src/, one after the other."""

    async def both() -> None:
        parser = argparse.ArgumentParser(description=description)
        parser.add_argument("--baseline", help="a checkout of the baseline dralint: measured after this tree, its server from its src/")
        args = parser.parse_args()
        await measure(None)
        if args.baseline:
            await measure(os.path.join(os.path.abspath(args.baseline), "src"))

    asyncio.run(both())


async def one_document(baseline: str | None, rounds: int = 21) -> None:
    """Each edit sent as editors send it: the range it replaces and the new text."""
    text = big_file()
    servers = {"this tree": Bench(delay_ms=120)}
    if baseline:
        servers["baseline"] = Bench(delay_ms=120, src=os.path.join(os.path.abspath(baseline), "src"))
    for bench in servers.values():
        await bench.start()
    for label, edit in (("typed in object 200", _typed), ("line added to object 10", _new_line)):
        uri = (ROOT / "bench" / f"one-{label.split()[0]}.yaml").as_uri()
        samples: dict[str, list[float]] = {name: [] for name in servers}
        for bench in servers.values():
            bench.open(uri, text)
            await bench.publish_for(uri, 1)
        current = text
        for version in range(2, rounds + 2):
            at, new = edit(current)
            where = types.Position(line=current.count("\n", 0, at), character=at - current.rfind("\n", 0, at) - 1)
            change = types.TextDocumentContentChangePartial(range=types.Range(start=where, end=where), text=new)
            current = current[:at] + new + current[at:]
            for name, bench in servers.items():  # in turn: the machine's load falls on both alike
                sent = time.perf_counter()
                bench.change(uri, version, change)
                samples[name].append((await bench.publish_for(uri, version) - sent) * 1000 - 120)
        medians = {name: statistics.median(found) for name, found in samples.items()}
        line = ", ".join(f"{name} {ms:5.1f} ms (p90 {sorted(samples[name])[int(rounds * 0.9)]:5.1f})" for name, ms in medians.items())
        ratio = f";  this tree / baseline {medians['this tree'] / medians['baseline']:.2f}" if baseline else ""
        print(f"one-document edit, 400 objects, {label}: beyond the pause, median {line}{ratio}")
    for bench in servers.values():
        await bench.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", help="a checkout of the baseline dralint: step 3 runs its server too, in turn")
    parser.add_argument("--only-edits", action="store_true", help="step 3 only")
    args = parser.parse_args()
    if not args.only_edits:
        await latency("typical", TYPICAL, rounds=40)
        await latency("big", big_file(), rounds=15)
        await latency("big-worst", big_file(with_classes=False), rounds=7)
        await memory()
    await one_document(args.baseline)


if __name__ == "__main__":
    asyncio.run(main())
