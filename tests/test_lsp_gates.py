"""The language server judges with the feature gates of the buffer's `.dralint.yaml`, as the CLI does."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsp_helpers import SERVER_COMMAND  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402
from test_lsp import _open, _published, _start  # noqa: E402

CASE = Path(__file__).parent / "cases" / "gates" / "list-attribute-default.yaml"
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), scope="module")
async def editor(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    await _start(lsp_client, "visual-studio-code", tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


async def test_the_configs_feature_gates_apply_to_open_buffers(editor: LanguageClient, tmp_path: Path):
    config = tmp_path / ".dralint.yaml"
    config.write_text('kubernetes-version: "1.37"\n', encoding="utf-8")
    target = tmp_path / "slice.yaml"
    target.write_text(CASE.read_text(encoding="utf-8"), encoding="utf-8")
    _open(editor, target.as_uri(), target.read_text(encoding="utf-8"))
    default = (await _published(editor, target.as_uri())).diagnostics
    assert [(d.range.start.line, d.range.start.character, str(d.code)) for d in default] == [(16, 6, "DRA566"), (16, 30, "DRA801")]
    config.write_text('kubernetes-version: "1.37"\nfeature-gates: {DRAListTypeAttributes: true}\n', encoding="utf-8")
    editor.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)])
    )
    assert list((await _published(editor, target.as_uri())).diagnostics) == []
