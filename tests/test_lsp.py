"""`dralint lsp` driven over stdio by a real LSP client (pytest-lsp), as editors drive it."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsp_helpers import SERVER_COMMAND  # noqa: E402
from lsp_helpers import change_whole as _change  # noqa: E402
from lsp_helpers import open_document as _open  # noqa: E402
from lsp_helpers import published as _published  # noqa: E402
from lsp_helpers import start as _start  # noqa: E402
from lsp_helpers import where as _where  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402
from test_lsp_fuzz import FUZZ_DELAY_MS, SEED, _fuzz  # noqa: E402

from dralint.lint import lint  # noqa: E402
from dralint.pipeline.sources import Source  # noqa: E402

CASES = Path(__file__).parent / "cases" / "lsp"
GATES_CASE = Path(__file__).parent / "cases" / "gates" / "list-attribute-default.yaml"
SERVER = ClientServerConfig(server_command=SERVER_COMMAND)
pytestmark = pytest.mark.asyncio(loop_scope="module")  # one server for the module (xdist: --dist loadfile)


@pytest_lsp.fixture(config=SERVER, scope="module")
async def vscode(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    """Push diagnostics, UTF-16 positions, dynamic file watching (VS Code 1.65's capabilities).

    One server for the module, as an editor keeps one: every test opens its own files.
    """
    await _start(lsp_client, "visual-studio-code", tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER, scope="module")
async def emacs(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    """Eglot offers UTF-32 first."""
    await _start(lsp_client, "emacs", tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


# The pull client's server pauses briefly after typing, as test_lsp_fuzz's servers do: its random edits
# run here too (test_random_edits_utf8_pull); the other tests on it do not type.
PULL_SERVER = ClientServerConfig(server_command=SERVER_COMMAND, server_env={**os.environ, "DRALINT_LSP_DELAY_MS": FUZZ_DELAY_MS})


@pytest_lsp.fixture(config=PULL_SERVER, scope="module")
async def neovim(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    """Neovim 0.11 pulls diagnostics (textDocument/diagnostic) and offers UTF-8 first."""
    await _start(lsp_client, "neovim@v0.11.0", tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


def _copy(tmp_path: Path, name: str) -> tuple[str, str]:
    target = tmp_path / name
    shutil.copy(CASES / name, target)
    return target.as_uri(), target.read_text(encoding="utf-8")


async def test_open_publishes_exact_utf16_ranges_with_version_code_and_docs_link(vscode: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "unicode.yaml")
    _open(vscode, uri, text, version=7)
    published = await _published(vscode, uri)
    assert published.version == 7
    [d] = published.diagnostics
    # dralint says 5:34 (code points); two emoji before it are two UTF-16 units each.
    assert _where(d) == (4, 35, 4, 36, "DRA103")
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.source == "dralint"
    assert d.code_description.href.endswith("docs/rules.md#dra103-wrong-type")
    assert d.message.endswith("(at metadata.annotations.bad)")


async def test_utf32_client_gets_code_point_columns(emacs: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "unicode.yaml")
    _open(emacs, uri, text)
    [d] = (await _published(emacs, uri)).diagnostics
    assert _where(d) == (4, 33, 4, 34, "DRA103")


async def test_beta_api_version_is_tagged_deprecated(vscode: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "beta.yaml")
    _open(vscode, uri, text)
    [d] = (await _published(vscode, uri)).diagnostics
    assert _where(d) == (0, 12, 0, 35, "DRA011")
    assert list(d.tags) == [types.DiagnosticTag.Deprecated]


async def test_edit_burst_publishes_once_for_the_newest_version(vscode: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "unicode.yaml")
    _open(vscode, uri, text)
    await _published(vscode, uri)
    fixed = text.replace("bad: 1", 'bad: "1"')
    for version in range(2, 8):  # keystrokes, each well inside the pause
        _change(vscode, uri, fixed if version == 7 else text.replace("bad: 1", f"bad: {version}"), version)
        await asyncio.sleep(0.01)
    published = await _published(vscode, uri)
    assert published.version == 7 and list(published.diagnostics) == []
    # No late publish of an older version, nor of this one again. A keystroke's pause that was not cut
    # short ends within the burst's own length (six keystrokes 10 ms apart) of this publish.
    with pytest.raises(AssertionError, match="no diagnostics published"):
        await _published(vscode, uri, seconds=0.2)


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """LSP edits on an ASCII-only buffer (UTF-16 units = characters)."""
    lines = text.splitlines(True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: types.Position) -> int:
        return starts[p.line] + p.character if p.line < len(lines) else len(text)

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


async def test_code_actions_applied_to_the_buffer_give_a_clean_lint(vscode: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "typo.yaml")
    text = text.replace("  # ünïcödé 😀 comment", "")
    _open(vscode, uri, text)
    diagnostics = (await _published(vscode, uri)).diagnostics
    assert [_where(d) for d in diagnostics] == [(19, 8, 19, 21, "DRA101"), (20, 6, 21, 38, "DRA304")]
    version = 1
    for line in (19, 21):  # the did-you-mean, then the move under `exactly`
        where = types.Range(start=types.Position(line=line, character=8), end=types.Position(line=line, character=8))
        actions = await vscode.text_document_code_action_async(
            types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=where, context=types.CodeActionContext(diagnostics=[]))
        )
        preferred = [a for a in actions if a.is_preferred]
        assert len(preferred) == 1, actions
        text = _apply(text, preferred[0].edit.changes[uri])
        version += 1
        _change(vscode, uri, text, version)
        await _published(vscode, uri)
    assert "allocationMode: ExactCount" in text and "      exactly:\n        deviceClassName: gpu.example.com\n" in text
    assert list(vscode.diagnostics[uri]) == []
    assert lint([Source("typo.yaml", text.encode())]).problems == []


async def test_hover_on_a_rule_code_and_on_a_field(vscode: LanguageClient, tmp_path: Path):
    path = tmp_path / "claim.yaml"
    text = (CASES / "typo.yaml").read_text(encoding="utf-8").replace("metadata:\n  name: gpu ", "metadata:\n  # dralint: disable=DRA101\n  name: gpu ")
    path.write_text(text, encoding="utf-8")
    _open(vscode, path.as_uri(), text)
    await _published(vscode, path.as_uri())
    lines = text.splitlines()
    code_line = next(i for i, line in enumerate(lines) if "DRA101" in line)

    async def hover(line: int, character: int) -> str:
        params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=line, character=character))
        answer = await vscode.text_document_hover_async(params)
        return answer.contents.value if answer else ""

    rule = await hover(code_line, lines[code_line].index("DRA101") + 2)
    assert rule.startswith("**DRA101** `unknown-field` (error)") and "strict decoding rejects it" in rule
    class_line = next(i for i, line in enumerate(lines) if "deviceClassName" in line)
    field = await hover(class_line, lines[class_line].index("deviceClassName") + 3)
    assert "spec.devices.requests[0].exactly.deviceClassName" in field and "type: string" in field and "resource.k8s.io/v1 ResourceClaim at Kubernetes 1.37" in field


async def test_config_change_relints_open_documents(vscode: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "beta.yaml")
    _open(vscode, uri, text)
    assert [d.code for d in (await _published(vscode, uri)).diagnostics] == ["DRA011"]
    [watch] = vscode.registrations  # the server asked to be told about config files
    assert watch.register_options["watchers"][0]["globPattern"] == "**/.dralint.{yaml,yml}"
    config = tmp_path / ".dralint.yaml"
    config.write_text("ignore: [DRA011]\n", encoding="utf-8")
    vscode.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Created)])
    )
    assert list((await _published(vscode, uri)).diagnostics) == []


async def test_yaml_that_is_no_kubernetes_object_gets_no_diagnostics(vscode: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "workflow.yaml")
    _open(vscode, uri, text)
    assert list((await _published(vscode, uri)).diagnostics) == []
    broken = tmp_path / "values.yaml"
    broken.write_text("image: {{ .Values.image }}\nreplicas: [1\n", encoding="utf-8")
    _open(vscode, broken.as_uri(), broken.read_text())
    assert list((await _published(vscode, broken.as_uri())).diagnostics) == []


async def test_a_400_object_file(vscode: LanguageClient, tmp_path: Path):
    one = (CASES / "unicode.yaml").read_text(encoding="utf-8")
    text = "---\n".join(one.replace("gpu.example.com", f"gpu{i}.example.com") for i in range(400))
    path = tmp_path / "big.yaml"
    path.write_text(text, encoding="utf-8")
    _open(vscode, path.as_uri(), text)
    diagnostics = (await _published(vscode, path.as_uri())).diagnostics
    assert len(diagnostics) == 400
    assert _where(diagnostics[-1]) == (399 * 6 + 4, 35, 399 * 6 + 4, 36, "DRA103")
    vscode.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri())))
    assert list((await _published(vscode, path.as_uri())).diagnostics) == []  # closing clears them


async def test_pull_client_gets_diagnostics_by_request_and_no_push(neovim: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "unicode.yaml")
    _open(neovim, uri, text)
    report = await neovim.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    [d] = report.items
    # UTF-8, which Neovim offers first: each emoji is four bytes.
    assert _where(d) == (4, 39, 4, 40, "DRA103")
    again = await neovim.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id)
    )
    assert again.kind == "unchanged"
    assert uri not in neovim.diagnostics  # never both


async def test_fix_all_on_request_and_through_resolve(vscode: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "typo.yaml")
    text = text.replace("  # ünïcödé 😀 comment", "")
    _open(vscode, uri, text)
    await _published(vscode, uri)
    everywhere = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))

    async def actions(only: list[str] | None) -> list[types.CodeAction]:
        context = types.CodeActionContext(diagnostics=[], only=only)
        return await vscode.text_document_code_action_async(types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=everywhere, context=context))

    [fix_on_save] = await actions([types.CodeActionKind.SourceFixAll])
    [edit] = fix_on_save.edit.changes[uri]
    assert lint([Source("typo.yaml", edit.new_text.encode())]).problems == []
    [menu] = await actions(None)  # no problem under the cursor: only the fix-all entry, without its edit yet
    assert menu.edit is None and menu.kind == "source.fixAll.dralint"
    resolved = await vscode.code_action_resolve_async(menu)
    assert resolved.edit.changes[uri][0].new_text == edit.new_text


async def test_a_broken_config_is_reported_once_and_the_defaults_apply(vscode: LanguageClient, tmp_path: Path):
    (tmp_path / ".dralint.yaml").write_text("ignor: [DRA011]\n", encoding="utf-8")
    uri, text = _copy(tmp_path, "beta.yaml")
    _open(vscode, uri, text)
    assert [d.code for d in (await _published(vscode, uri)).diagnostics] == ["DRA011"]
    told = [m.message for m in vscode.messages if "ignor" in m.message]
    assert told == [f"dralint: {tmp_path / '.dralint.yaml'}:1:1: unknown setting 'ignor' (did you mean 'ignore'?); known: cache-dir, fail-on, feature-gates, format, ignore, ignore-paths, jobs, kubernetes-version, plugins, policies, rule-options, rules-dirs, select, severity, target-version; using the defaults"]


async def test_hover_names_the_feature_gate_and_stage_of_a_field(vscode: LanguageClient, tmp_path: Path):
    path = tmp_path / "tolerations.yaml"
    shutil.copy(CASES.parent / "fix" / "tolerations.yaml", path)
    _open(vscode, path.as_uri(), path.read_text())
    await _published(vscode, path.as_uri())
    params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=10, character=10))
    text = (await vscode.text_document_hover_async(params)).contents.value
    title, facts = text.split("\n\n")[:2]
    assert title == "**spec.devices.requests[0].exactly.tolerations** — resource.k8s.io/v1 ResourceClaim at Kubernetes 1.37"
    assert facts == "type: array of object · optional · feature gate: DRADeviceTaints (ga, on by default in 1.37)"


async def test_pull_client_gets_the_new_config_on_its_next_pull(neovim: LanguageClient, tmp_path: Path):
    uri, text = _copy(tmp_path, "beta.yaml")
    _open(neovim, uri, text)
    ask = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    first = await neovim.text_document_diagnostic_async(ask)
    assert [d.code for d in first.items] == ["DRA011"]
    config = tmp_path / ".dralint.yaml"
    config.write_text("ignore: [DRA011]\n", encoding="utf-8")
    neovim.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Created)]))
    ask.previous_result_id = first.result_id  # same buffer version, but the verdict changed: a full report
    again = await neovim.text_document_diagnostic_async(ask)
    assert again.kind == "full" and list(again.items) == []
    # Neovim 0.11 does not announce workspace/diagnostic/refresh support: it is not sent one, nor a push.
    assert neovim.diagnostic_refresh_count == 0 and uri not in neovim.diagnostics


async def test_the_configs_feature_gates_apply_to_open_buffers(vscode: LanguageClient, tmp_path: Path):
    """The language server judges with the feature gates of the buffer's `.dralint.yaml`, as the CLI does."""
    config = tmp_path / ".dralint.yaml"
    config.write_text('kubernetes-version: "1.37"\n', encoding="utf-8")
    target = tmp_path / "slice.yaml"
    target.write_text(GATES_CASE.read_text(encoding="utf-8"), encoding="utf-8")
    _open(vscode, target.as_uri(), target.read_text(encoding="utf-8"))
    default = (await _published(vscode, target.as_uri())).diagnostics
    assert [(d.range.start.line, d.range.start.character, str(d.code)) for d in default] == [(16, 6, "DRA566"), (16, 30, "DRA801")]
    config.write_text('kubernetes-version: "1.37"\nfeature-gates: {DRAListTypeAttributes: true}\n', encoding="utf-8")
    vscode.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)])
    )
    assert list((await _published(vscode, target.as_uri())).diagnostics) == []


async def test_random_edits_utf8_pull(neovim: LanguageClient, tmp_path: Path):
    """test_lsp_fuzz's leg for a client that counts UTF-8 and pulls diagnostics (Neovim)."""
    await _fuzz(neovim, tmp_path, "utf-8", SEED + 1, pull=True)
