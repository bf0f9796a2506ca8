"""The fuzz test's language-server leg: seeded random incremental edits, as an editor sends them,
over buffers with CR, CRLF and LF endings, NEL/LS/PS inside quoted strings and astral characters.
After each edit the server's copy of the buffer (dralint/bufferText) equals the client's; after
each burst the diagnostics of the newest version all lie inside the document, in the client's
units. One client counts UTF-16 and is pushed diagnostics (VS Code, here), one counts UTF-8 and
pulls them (Neovim: test_lsp.py's pull client, whose server pauses as this one does). Bounded: a
few dozen edits per buffer, the same ones on every run."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsp_helpers import SERVER_COMMAND, ClientText, buffer_text, change_partial, open_document, published_version, start  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

# A short pause after typing: the edits of a burst still come inside it (each waits only for a
# bufferText answer), so most are linted once, at the burst's end; a pull sent then still waits
# out the pause (dralint.lsp.server.pull). The test waits for that pause once per burst.
FUZZ_DELAY_MS = "10"
SERVER = ClientServerConfig(server_command=SERVER_COMMAND, server_env={**os.environ, "DRALINT_LSP_DELAY_MS": FUZZ_DELAY_MS})
pytestmark = pytest.mark.asyncio(loop_scope="module")

SEED = 20261126
EDITS = 32
BURST = 8  # edits between two looks at the diagnostics

BASE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, annotations: {a: "x\u2028y", b: "\u0085", c: "p\u2029q 😀"}}
spec:
  devices:
    requests:
    - name: gpu  # 🎉 ünïcödé
      exactly:
        deviceClasName: gpu.example.com
        count: 1
        allocationMode: "ExactCount\u2028"
"""
DOCUMENTS = {
    "lf.yaml": BASE,
    "crlf.yaml": BASE.replace("\n", "\r\n"),
    "cr.yaml": BASE.replace("\n", "\r"),
    "mixed.yaml": BASE.replace("\n", "\r\n", 3).replace("spec:\n", "spec:\r"),
}
PIECES = ["a", "z", " ", ":", "-", '"', "\t", "\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029", "😀", "𝄞", "é", "count: 2", "\n  - name: x"]


@pytest_lsp.fixture(config=SERVER, scope="module")
async def vscode(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    await start(lsp_client, "visual-studio-code", tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


def _boundary(text: str, offset: int) -> int:
    """`offset`, moved off the middle of a "\\r\\n" (no LSP position lies there)."""
    return offset - 1 if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n" else offset


def _random_edit(rng: random.Random, buffer: ClientText) -> types.TextDocumentContentChangePartial:
    text = buffer.text
    begin = _boundary(text, rng.randint(0, len(text)))
    end = _boundary(text, min(len(text), begin + rng.choice([0, 0, 1, 2, 5, 12])))
    new = "".join(rng.choice(PIECES) for _ in range(rng.choice([0, 1, 1, 2, 4])))
    return buffer.edit(begin, max(begin, end), new)


def _outside(diagnostics: list[types.Diagnostic], buffer: ClientText) -> list[types.Diagnostic]:
    return [
        d for d in diagnostics
        if not (buffer.inside(d.range.start) and buffer.inside(d.range.end) and (d.range.start.line, d.range.start.character) <= (d.range.end.line, d.range.end.character))
    ]


async def _fuzz(client: LanguageClient, root: Path, encoding: str, seed: int, pull: bool) -> None:
    rng = random.Random(seed)
    for name, text in DOCUMENTS.items():
        uri = (root / name).as_uri()
        buffer = ClientText(text, encoding)
        open_document(client, uri, text)
        for version in range(2, EDITS + 2):
            change_partial(client, uri, version, _random_edit(rng, buffer))
            held = await buffer_text(client, uri)
            assert held == buffer.text, f"{name}, version {version}: the server's buffer is {held!r}, the client's {buffer.text!r}"
            if version % BURST == 0:
                if pull:
                    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)))
                    diagnostics = report.items
                else:
                    diagnostics = (await published_version(client, uri, version)).diagnostics
                assert _outside(diagnostics, buffer) == [], f"{name}, version {version}: {buffer.text!r}"


async def test_random_edits_utf16_push(vscode: LanguageClient, tmp_path: Path):
    await _fuzz(vscode, tmp_path, "utf-16", SEED, pull=False)
