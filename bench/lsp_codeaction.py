"""`dralint lsp`: code action and hover latency on a ~1 MB buffer, driven by a real LSP client over stdio.

    python bench/lsp_codeaction.py                      # needs dralint[lsp]
    python bench/lsp_codeaction.py --baseline ../base   # then the same with the server of ../base/src

The buffer holds 1,700 ResourceClaimTemplates, every fifth with a fixable typo
(`alocationMode`), so code actions have fixes to offer all along the buffer.

1. Current: the buffer's last lint is of its current version. Code actions at
   cursors spread over the buffer, and hovers on fields, are timed from request
   to answer (goal for code actions: < 50 ms).
2. Just edited: a code action sent right after an edit at the end of the buffer
   (a line typed, sent as an incremental change, as editors send it),
   at a typo far from it, is answered from the last lint (the quick fixes of the
   documents the edit did not touch; a server that waits for the new version's
   lint shows that lint's time instead); a hover on another, already linted
   buffer, sent after it, is timed too: it must not wait for that lint.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp import CLAIM, ROOT, Bench, run_this_then_baseline  # noqa: E402

OBJECTS = 1700


def megabyte_buffer() -> str:
    objects = [CLAIM.format(i=i, team=i % 7) for i in range(OBJECTS)]
    for i in range(0, OBJECTS, 5):
        objects[i] = objects[i].replace("allocationMode", "alocationMode")
    return "---\n".join(objects)


def _where(text: str, needle: str, every: int) -> list[types.Position]:
    lines = text.split("\n")
    found = [types.Position(line=n, character=line.index(needle) + 2) for n, line in enumerate(lines) if needle in line]
    return found[::every]


async def _timed(request) -> float:
    start = time.perf_counter()
    await request
    return (time.perf_counter() - start) * 1000


def _summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    return f"median {statistics.median(ordered):6.1f} ms, p90 {ordered[int(len(ordered) * 0.9)]:6.1f} ms, max {ordered[-1]:6.1f} ms ({len(ordered)} requests)"


async def measure(src: str | None) -> None:
    text = megabyte_buffer()
    bench = Bench(delay_ms=120, src=src)
    await bench.start()
    client = bench.client
    uri = (ROOT / "bench" / "megabyte.yaml").as_uri()
    other = (ROOT / "bench" / "other.yaml").as_uri()
    bench.open(uri, text)
    bench.open(other, CLAIM.format(i=0, team=0))
    await bench.publish_for(uri, 1)
    await bench.publish_for(other, 1)
    doc = types.TextDocumentIdentifier(uri=uri)

    def action(at: types.Position):
        context = types.CodeActionContext(diagnostics=[])
        return client.text_document_code_action_async(types.CodeActionParams(text_document=doc, range=types.Range(start=at, end=at), context=context))

    def hover(target: types.TextDocumentIdentifier, at: types.Position):
        return client.text_document_hover_async(types.HoverParams(text_document=target, position=at))

    on_typos = _where(text, "alocationMode", 7)
    elsewhere = _where(text, "deviceClassName", 29)
    actions = [await _timed(action(at)) for at in on_typos + elsewhere]
    offered = await action(on_typos[0])
    hovers = [await _timed(hover(doc, at)) for at in elsewhere]
    print(f"{'baseline' if src else 'this tree'}: {len(text) / 1e6:.2f} MB, {OBJECTS} objects, its last lint current")
    print(f"  codeAction: {_summary(actions)}; {len(offered)} actions at a typo")
    print(f"  hover:      {_summary(hovers)}")

    waited, meanwhile, found = [], [], []
    end = types.Position(line=text.count("\n"), character=0)  # the buffer ends with a line break
    for version in range(2, 12):
        bench.change(uri, version, types.TextDocumentContentChangePartial(range=types.Range(start=end, end=end), text=f"# edit {version}\n"))
        end = types.Position(line=end.line + 1, character=0)
        at = on_typos[version]
        start = time.perf_counter()
        pending = asyncio.ensure_future(action(at))
        await asyncio.sleep(0)
        meanwhile.append(await _timed(hover(types.TextDocumentIdentifier(uri=other), types.Position(line=11, character=12))))
        found.append(len(await pending))
        waited.append((time.perf_counter() - start) * 1000)
        await bench.publish_for(uri, version)  # the next edit starts from a linted buffer, as typing does
    print("just edited:")
    print(f"  codeAction at once:                 {_summary(waited)}; {min(found)}-{max(found)} actions at a typo")
    print(f"  hover on another buffer meanwhile:  {_summary(meanwhile)}")
    await bench.stop()


if __name__ == "__main__":
    run_this_then_baseline(measure, __doc__.split("\n")[0])
