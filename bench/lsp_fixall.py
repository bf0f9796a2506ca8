"""`dralint lsp`: fix-all (`source.fixAll`, as fix on save asks for it) latency, driven by a real LSP client over stdio.

    python bench/lsp_fixall.py                      # needs dralint[lsp]
    python bench/lsp_fixall.py --baseline ../base   # then the same with the server of ../base/src

On a typical manifest (tests/cases/lsp/typo.yaml), linted:
1. The first fix-all of the session (a server that runs fix-all in a process of its own starts it here),
   and the resident memory of the server and its child processes before and after it.
2. The next ones, each of the text as it stands (nothing changes between them).
3. A fix-all sent right after an edit of another buffer, ~1 MB (bench/lsp_codeaction.py's), whose
   lint is then under way: a server that fixes in the lint process answers after that lint.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp import ROOT, TYPICAL, Bench, rss_kib, run_this_then_baseline  # noqa: E402
from lsp_codeaction import _summary, megabyte_buffer  # noqa: E402


async def measure(src: str | None) -> None:
    bench = Bench(delay_ms=0, src=src)
    await bench.start()
    uri = (ROOT / "bench" / "typo.yaml").as_uri()
    big = (ROOT / "bench" / "megabyte.yaml").as_uri()
    text = megabyte_buffer()
    bench.open(uri, TYPICAL)
    bench.open(big, text)
    await bench.publish_for(uri, 1)
    await bench.publish_for(big, 1)
    at = types.Position(line=0, character=0)
    params = types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=at, end=at),
                                    context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]))

    async def fix_all() -> float:
        start = time.perf_counter()
        [action] = await bench.client.text_document_code_action_async(params)
        assert action.edit is not None
        return (time.perf_counter() - start) * 1000

    before = rss_kib(bench.pid)
    first = await fix_all()
    after = rss_kib(bench.pid)
    again = [await fix_all() for _ in range(20)]
    behind = []
    end = types.Position(line=text.count("\n"), character=0)
    for version in range(2, 12):
        bench.change(big, version, types.TextDocumentContentChangePartial(range=types.Range(start=end, end=end), text=f"# edit {version}\n"))
        end = types.Position(line=end.line + 1, character=0)
        await asyncio.sleep(0)
        behind.append(await fix_all())
        await bench.publish_for(big, version)
    await bench.stop()
    print(f"{'baseline' if src else 'this tree'}:")
    print(f"  first fix-all:                         {first:6.1f} ms; server and children {before / 1024:.1f} MiB before it, {after / 1024:.1f} MiB after")
    print(f"  fix-all again:                         {_summary(again)}")
    print(f"  fix-all while a 1 MB buffer is linted: {_summary(behind)}")


if __name__ == "__main__":
    run_this_then_baseline(measure, __doc__.split("\n")[0])
