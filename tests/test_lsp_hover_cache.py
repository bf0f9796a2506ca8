"""The language server's hover, driven in this process through its handlers (a real lint process behind
them), so that the work it does per request can be counted: a field's hover loads the buffer's documents
once per version of the buffer and config, not once per hover."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from lsprotocol import types  # noqa: E402
from pygls.workspace import Workspace  # noqa: E402

from dralint.lsp import engine, server  # noqa: E402
from dralint.lsp.text import BufferWorkspace  # noqa: E402

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the server loaded documents of (dralint.lsp.engine.documents), in order."""
    loaded: list[str] = []
    real = engine.documents

    def counting(path: str, text: str) -> list:
        loaded.append(text)
        return real(path, text)

    monkeypatch.setattr(engine, "documents", counting)
    return loaded


def _server(root: Path) -> server.DralintServer:
    """A server as `initialize` leaves it for a pull client (nothing is pushed: there is no stream)."""
    ls = server.DralintServer()
    ls.protocol._workspace = BufferWorkspace(Workspace(root.as_uri()))
    ls.protocol.client_capabilities = types.ClientCapabilities()
    ls.folders, ls.pull = (str(root),), True
    return ls


async def _settled(ls: server.DralintServer) -> None:
    """Until the work the handlers spawned (lints, re-lints) is done."""
    while ls.tasks:
        await asyncio.gather(*ls.tasks)


def _field(ls: server.DralintServer, uri: str) -> str:
    found = server.on_hover(ls, types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=9, character=10)))
    return found.contents.value


def test_a_field_hover_loads_each_version_of_a_buffer_once(tmp_path: Path, loads: list[str]):
    """Three hovers on a version load its documents once; a save of the buffer and the file event that
    follows it (which re-lint every open buffer, and change neither its text nor its config) do not load
    them again; the next version is loaded once more."""
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM, encoding="utf-8")
    uri = path.as_uri()
    ls = _server(tmp_path)
    document = types.VersionedTextDocumentIdentifier(uri=uri, version=2)

    async def drive() -> list[str]:
        opened = types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=CLAIM)
        ls.workspace.put_text_document(opened)  # what pygls does before the server's own handler
        server.did_open(ls, types.DidOpenTextDocumentParams(text_document=opened))
        await _settled(ls)  # linted: the config's docs and release are known, hover answers
        said = [_field(ls, uri) for _ in range(3)]
        server.did_save(ls, types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        server.watched_files(ls, types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)]))
        await _settled(ls)
        said.append(_field(ls, uri))
        assert loads == [CLAIM]
        ls.workspace.update_text_document(document, types.TextDocumentContentChangeWholeDocument(text=CLAIM.replace("gpu.example.com", "tpu.example.com")))
        said += [_field(ls, uri) for _ in range(2)]
        return said

    try:
        said = asyncio.run(drive())
    finally:
        ls.worker.close()
    assert len(said) == 6 and len(set(said)) == 1
    assert said[0].startswith("**spec.devices.requests[0].exactly.deviceClassName** — resource.k8s.io/v1 ResourceClaim at Kubernetes ")
    assert loads == [CLAIM, CLAIM.replace("gpu.example.com", "tpu.example.com")]
