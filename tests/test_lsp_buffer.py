"""The language server's copy of a buffer stays the editor's: LSP lines end at "\\n", "\\r\\n" and "\\r"
only (not at NEL, LS, PS, VT, FF, which may sit inside a quoted string), and every position it
sends or reads is in those lines. Driven over stdio by a real LSP client (pytest-lsp) with VS
Code's capabilities (UTF-16 positions, push diagnostics, incremental sync)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsp_helpers import (  # noqa: E402
    SERVER_COMMAND,
    ClientText,
    buffer_text,
    change_partial,
    open_document,
    published,
    published_version,
    start,
    where,
)
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from dralint.lint import lint  # noqa: E402
from dralint.pipeline.sources import Source  # noqa: E402

SERVER = ClientServerConfig(server_command=SERVER_COMMAND)
pytestmark = pytest.mark.asyncio(loop_scope="module")

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, annotations: {note: "a\u2028b\u0085c\u2029d"}}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClasName: gpu.example.com
        count: 1
"""


@pytest_lsp.fixture(config=SERVER, scope="module")
async def vscode(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    await start(lsp_client, "visual-studio-code", tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


def _actions(client: LanguageClient, uri: str, line: int, character: int, only: list[str] | None = None):
    at = types.Position(line=line, character=character)
    context = types.CodeActionContext(diagnostics=[], only=only)
    return client.text_document_code_action_async(types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=at, end=at), context=context))


async def test_an_edit_below_a_line_separator_in_a_string_lands_on_its_line(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / "claim.yaml").as_uri()
    buffer = ClientText(CLAIM)
    open_document(vscode, uri, buffer.text)
    [typo] = (await published(vscode, uri)).diagnostics
    assert where(typo) == (8, 8, 8, 22, "DRA101")
    count = buffer.text.index("count: 1") + len("count: ")
    change_partial(vscode, uri, 2, buffer.edit(count, count + 1, "2"))  # `count: 1` -> `count: 2`, as typed
    assert await buffer_text(vscode, uri) == buffer.text
    [typo] = (await published_version(vscode, uri, 2)).diagnostics
    assert where(typo) == (8, 8, 8, 22, "DRA101") and "'deviceClasName'" in typo.message
    # The quick fix renames the key on its own line, and fix-all keeps `count: 2`.
    [fix] = [a for a in await _actions(vscode, uri, 8, 10) if a.is_preferred]
    fixed = buffer.apply(fix.edit.changes[uri])
    assert "        deviceClassName: gpu.example.com\n        count: 2\n" in fixed
    assert [p.rule for p in lint([Source("claim.yaml", fixed.encode())]).problems] == ["DRA713"]  # an info: the class is elsewhere
    [fix_all] = await _actions(vscode, uri, 0, 0, only=[types.CodeActionKind.SourceFixAll])
    assert buffer.apply(fix_all.edit.changes[uri]) == fixed


async def test_vertical_tab_form_feed_and_separators_do_not_break_lines(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / "controls.yaml").as_uri()
    buffer = ClientText(CLAIM.replace('d"}}', 'd\x0b\x0c\x1c\x1d\x1e"}}'))
    open_document(vscode, uri, buffer.text)
    await published(vscode, uri)
    version = 1
    for needle, new in (("count: 1", "count: 3"), ("name: gpu\n", "name: gpu-0\n"), ("deviceClasName", "deviceClassName")):
        at = buffer.text.index(needle)
        version += 1
        change_partial(vscode, uri, version, buffer.edit(at, at + len(needle), new))
        assert await buffer_text(vscode, uri) == buffer.text
    [d] = (await published_version(vscode, uri, version)).diagnostics
    assert str(d.code) == "DRA001" and "#x000b" in d.message  # YAML allows no VT: the server saw the same text
    assert buffer.text.endswith("    - name: gpu-0\n      exactly:\n        deviceClassName: gpu.example.com\n        count: 3\n")


async def test_a_cr_only_document_gets_its_diagnostics_on_their_lines(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / "cr.yaml").as_uri()
    text = CLAIM.replace("\n", "\r")
    open_document(vscode, uri, text)
    [typo] = (await published(vscode, uri)).diagnostics
    assert where(typo) == (8, 8, 8, 22, "DRA101")
    [fix] = [a for a in await _actions(vscode, uri, 8, 10) if a.is_preferred]
    [edit] = fix.edit.changes[uri]
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.line, edit.range.end.character, edit.new_text) == (8, 8, 8, 22, "deviceClassName")


async def test_a_crlf_document_with_an_emoji(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / "crlf.yaml").as_uri()
    buffer = ClientText(CLAIM.replace("\n", "\r\n").replace("- name: gpu", "- name: gpu # 😀😀"))
    open_document(vscode, uri, buffer.text)
    [typo] = (await published(vscode, uri)).diagnostics
    assert where(typo) == (8, 8, 8, 22, "DRA101")
    end = buffer.text.index("😀😀") + 2
    change_partial(vscode, uri, 2, buffer.edit(end, end, "😀"))  # after the second emoji: UTF-16 column 20
    assert await buffer_text(vscode, uri) == buffer.text


async def test_a_lone_surrogate_still_gets_diagnostics_and_no_popup(vscode: LanguageClient, tmp_path: Path):
    uri = (tmp_path / "surrogate.yaml").as_uri()
    buffer = ClientText(CLAIM.replace("a\u2028b", "a\ud800b"))
    told = len(vscode.messages)
    open_document(vscode, uri, buffer.text)
    [typo] = (await published(vscode, uri)).diagnostics
    assert where(typo) == (8, 8, 8, 22, "DRA101")
    for version in range(2, 6):  # keystrokes on the surrogate's line
        at = buffer.text.index("\ud800") + 1
        change_partial(vscode, uri, version, buffer.edit(at, at, "x"))
    [typo] = (await published_version(vscode, uri, 5)).diagnostics
    assert where(typo) == (8, 8, 8, 22, "DRA101")
    assert await buffer_text(vscode, uri) == buffer.text
    assert vscode.messages[told:] == []


async def test_a_file_name_with_a_space_gets_diagnostics_under_its_own_uri(vscode: LanguageClient, tmp_path: Path):
    folder = tmp_path / "my manifests"
    folder.mkdir()
    uri = (folder / "claim ü.yaml").as_uri()  # file:///.../my%20manifests/claim%20%C3%BC.yaml
    open_document(vscode, uri, CLAIM)
    [typo] = (await published(vscode, uri)).diagnostics
    assert where(typo) == (8, 8, 8, 22, "DRA101")
    (folder / ".dralint.yaml").write_text("ignore: [DRA101]\n", encoding="utf-8")
    changed = types.FileEvent(uri=(folder / ".dralint.yaml").as_uri(), type=types.FileChangeType.Created)
    vscode.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[changed]))
    assert list((await published(vscode, uri)).diagnostics) == []  # re-published under the URI the client opened


async def test_a_document_never_opened_is_not_read_from_disk(vscode: LanguageClient, tmp_path: Path):
    on_disk = tmp_path / "closed.yaml"
    on_disk.write_text("# dralint: disable=DRA101\n" + CLAIM, encoding="utf-8")
    ask = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=on_disk.as_uri()), position=types.Position(line=0, character=22))
    assert await vscode.text_document_hover_async(ask) is None
    assert await buffer_text(vscode, on_disk.as_uri()) is None
    opened = tmp_path / "opened.yaml"
    opened.write_text(on_disk.read_text(encoding="utf-8"), encoding="utf-8")
    open_document(vscode, opened.as_uri(), opened.read_text(encoding="utf-8"))
    ask.text_document.uri = opened.as_uri()
    assert (await vscode.text_document_hover_async(ask)).contents.value.startswith("**DRA101** `unknown-field` (error)")


async def test_a_code_action_waiting_for_a_lint_holds_up_no_other_request(vscode: LanguageClient, tmp_path: Path):
    """A code action on a buffer just edited waits for its lint, in the lint process: a hover on
    another buffer, asked after it, is answered first (it is served from that buffer's last lint)."""
    small = (tmp_path / "small.yaml").as_uri()
    open_document(vscode, small, CLAIM)
    await published(vscode, small)
    big = (tmp_path / "big.yaml").as_uri()
    text = "---\n".join(CLAIM.replace("name: gpu,", f"name: gpu-{i},") for i in range(300))
    open_document(vscode, big, text)
    await published(vscode, big)
    change_partial(vscode, big, 2, ClientText(text).edit(0, 0, "# edited\n"))
    order: list[str] = []

    async def code_action() -> None:
        await _actions(vscode, big, 9, 10)
        order.append("codeAction")

    async def hover() -> None:
        ask = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=small), position=types.Position(line=9, character=10))
        answer = await vscode.text_document_hover_async(ask)
        assert "spec.devices.requests[0].exactly.count" in answer.contents.value
        order.append("hover")

    first = asyncio.ensure_future(code_action())
    await asyncio.sleep(0)  # the code action is sent first
    await asyncio.gather(first, hover())
    assert order == ["hover", "codeAction"]


async def test_a_hover_on_a_buffer_just_edited_answers_from_its_current_text_without_its_lint(vscode: LanguageClient, tmp_path: Path):
    """The buffer's lint is under way (a code action waits for it): a hover on a field of that very
    buffer is answered first, found in the edited text (its lines moved down by one), at the release
    of the buffer's last lint; so is a hover on a rule code, whose docs that buffer already asked for."""
    big = (tmp_path / "edited.yaml").as_uri()
    text = "# dralint: disable=DRA101\n---\n" + "---\n".join(CLAIM.replace("name: gpu,", f"name: gpu-{i},") for i in range(300))
    open_document(vscode, big, text)
    await published(vscode, big)
    code = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=big), position=types.Position(line=0, character=22))
    assert (await vscode.text_document_hover_async(code)).contents.value.startswith("**DRA101** `unknown-field` (error)")
    change_partial(vscode, big, 2, ClientText(text).edit(0, 0, "# edited\n"))
    order: list[str] = []

    async def code_action() -> None:
        await _actions(vscode, big, 11, 10)
        order.append("codeAction")

    async def hover() -> None:
        field = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=big), position=types.Position(line=12, character=10))
        answer = await vscode.text_document_hover_async(field)
        assert answer.contents.value.startswith("**spec.devices.requests[0].exactly.count** — resource.k8s.io/v1 ResourceClaim at Kubernetes ")
        code.position = types.Position(line=1, character=22)
        assert (await vscode.text_document_hover_async(code)).contents.value.startswith("**DRA101** `unknown-field` (error)")
        order.append("hover")

    first = asyncio.ensure_future(code_action())
    await asyncio.sleep(0)  # the code action is sent first
    await asyncio.gather(first, hover())
    assert order == ["hover", "codeAction"]
