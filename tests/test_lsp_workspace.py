"""The language server judges a buffer's references against what the workspace folders define
(tests/cases/lsp/workspace), keeps that up to date on save and on file events, and says nothing
about what the workspace does not define (it lives in the cluster)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsp_helpers import SERVER_COMMAND, open_document, published, start, where  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from dralint.lint import lint  # noqa: E402
from dralint.pipeline.sources import Source  # noqa: E402

CASE = Path(__file__).parent / "cases" / "lsp" / "workspace"
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("workspace") / "w"
    shutil.copytree(CASE, target)
    return target


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND), scope="module")
async def vscode(lsp_client: LanguageClient, root: Path):
    await start(lsp_client, "visual-studio-code", root)
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path) -> str:
    open_document(client, path.as_uri(), path.read_text(encoding="utf-8"))
    return path.as_uri()


def _event(client: LanguageClient, path: Path, kind: types.FileChangeType) -> None:
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=path.as_uri(), type=kind)]))


SOLO = (CASE / "legacy" / "old.yaml").read_text(encoding="utf-8").replace("name: old", "name: solo")


async def test_a_claim_whose_class_another_file_defines_gets_no_diagnostic(vscode: LanguageClient, root: Path):
    claim = root / "claim.yaml"
    # Alone, the claim's class is "not defined in the linted files"; the workspace defines it.
    assert [(p.rule, p.span.line, p.span.column) for p in lint([Source(str(claim), claim.read_bytes())]).problems] == [("DRA713", 10, 26)]
    uri = _open(vscode, claim)
    assert list((await published(vscode, uri)).diagnostics) == []


async def test_a_class_the_workspace_does_not_define_is_not_reported(vscode: LanguageClient, root: Path):
    elsewhere = root / "elsewhere" / "claim.yaml"
    elsewhere.parent.mkdir()
    elsewhere.write_text((root / "claim.yaml").read_text(encoding="utf-8").replace("gpu.example.com", "fpga.example.com"), encoding="utf-8")
    uri = _open(vscode, elsewhere)
    assert list((await published(vscode, uri)).diagnostics) == []


async def test_the_index_follows_file_events_and_saves_and_respects_ignore_paths(vscode: LanguageClient, root: Path):
    [watch] = vscode.registrations
    assert [w["globPattern"] for w in watch.register_options["watchers"]] == ["**/.dralint.{yaml,yml}", "**/*.{yaml,yml,json}"]
    pod = _open(vscode, root / "pod.yaml")
    # `old` is defined (as a template) only in legacy/, which ignore-paths ignores; `solo` nowhere yet.
    assert list((await published(vscode, pod)).diagnostics) == []

    template = root / "templates" / "solo.yaml"
    template.parent.mkdir()
    template.write_text(SOLO, encoding="utf-8")
    _event(vscode, template, types.FileChangeType.Created)
    [d] = (await published(vscode, pod)).diagnostics
    assert where(d) == (17, 23, 17, 27, "DRA710")
    assert d.severity == types.DiagnosticSeverity.Warning
    assert d.message.startswith(f"resourceClaimName 'solo' names a ResourceClaimTemplate defined in {template}, not a ResourceClaim")

    template.unlink()
    _event(vscode, template, types.FileChangeType.Deleted)
    assert list((await published(vscode, pod)).diagnostics) == []

    saved = root / "saved.yaml"  # a new buffer, written by the editor and saved
    open_document(vscode, saved.as_uri(), SOLO)
    saved.write_text(SOLO, encoding="utf-8")
    vscode.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=saved.as_uri())))
    [d] = (await published(vscode, pod)).diagnostics
    assert where(d) == (17, 23, 17, 27, "DRA710") and f"defined in {saved}," in d.message


async def test_hover_on_a_field_shows_its_upstream_documentation_and_allowed_values(vscode: LanguageClient, root: Path):
    claim = root / "claim.yaml"
    uri = _open(vscode, claim)
    await published(vscode, uri)  # hover never waits for a lint: the config's release and docs come with one
    lines = claim.read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines) if "allocationMode" in text)
    params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=lines[line].index("allocationMode") + 2))
    text = (await vscode.text_document_hover_async(params)).contents.value
    title, facts, doc = text.split("\n\n", 2)
    assert title == "**spec.devices.requests[0].exactly.allocationMode** — resource.k8s.io/v1 ResourceClaim at Kubernetes 1.35"
    assert facts == "type: string · optional · one of `ExactCount`, `All`"
    # The Go comment of ExactDeviceRequest.AllocationMode, reflowed, its +markers dropped.
    assert doc.startswith("AllocationMode and its related fields define how devices are allocated to satisfy this request. Supported values are:\n\n"
                          "- ExactCount: This request is for a specific number of devices. This is the default.")
    assert doc.endswith("Clients must refuse to handle requests with unknown modes.") and "+optional" not in doc
