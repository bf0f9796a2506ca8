"""The language server's copy of a buffer stays the editor's: LSP lines end at "\\n", "\\r\\n" and "\\r"
only (not at NEL, LS, PS, VT, FF, which may sit inside a quoted string), and every position it
sends or reads is in those lines. And code actions and hover never wait for a lint: a rule of the
test holds a lint in the lint process until the test releases it, and the answers come meanwhile.
And after each of test_lsp_incremental's seeded edits, what the server publishes and offers is what a
fresh lint of the whole buffer finds. Driven over stdio by a real LSP client (pytest-lsp) with VS Code's
capabilities (UTF-16 positions, push diagnostics, incremental sync), one server for the module."""

from __future__ import annotations

import asyncio
import os
import random
import textwrap
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
from test_lsp_incremental import _buffer, _edit, _whole  # noqa: E402

from dralint.lint import lint  # noqa: E402
from dralint.lsp import convert, engine  # noqa: E402
from dralint.lsp.encode import lintable  # noqa: E402
from dralint.lsp.text import Text  # noqa: E402
from dralint.pipeline.sources import Source  # noqa: E402

# No pause after typing: every test here waits for its edit's lint (and the held lint is held in the
# rule, not in the pause).
SERVER = ClientServerConfig(server_command=SERVER_COMMAND, server_env={**os.environ, "DRALINT_LSP_DELAY_MS": "0"})
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
    lsp_client.root = tmp_path_factory.mktemp("workspace")
    await start(lsp_client, "visual-studio-code", lsp_client.root)
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
    await published(vscode, opened.as_uri())  # hover answers from the buffer's lint, never waiting for it
    ask.text_document.uri = opened.as_uri()
    assert (await vscode.text_document_hover_async(ask)).contents.value.startswith("**DRA101** `unknown-field` (error)")


# -- code actions and hover never wait for a lint ---------------------------------------------------
HOLD = textwrap.dedent('''
    import os
    import time

    from dralint.api import rule


    @rule("LOCAL001", "hold", severity="info")
    def hold(doc, report):
        """Holds the lint of a document annotated with a file name until that file exists."""
        until = doc.get("metadata", "annotations", "test.example.com/hold-until")
        if until:
            open(until + ".started", "w").close()
            while not os.path.exists(until):
                time.sleep(0.01)
''')
TYPO = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim-{i}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        alocationMode: ExactCount
"""


class Hold:
    """A lint that provably runs until the test releases it: the folder's config loads a rule that, in the
    lint process, waits for a file named by the document being checked."""

    def __init__(self, folder: Path):
        (folder / "rules").mkdir()
        (folder / "rules" / "hold.py").write_text(HOLD, encoding="utf-8")
        (folder / ".dralint.yaml").write_text("rules-dirs: [rules]\n", encoding="utf-8")
        self.gate = folder / "go"
        self.annotation = f"  annotations:\n    test.example.com/hold-until: {self.gate}\n"  # under `metadata:`

    async def started(self) -> None:
        """Once the lint process is inside the held rule."""
        started = Path(f"{self.gate}.started")
        deadline = asyncio.get_running_loop().time() + 60
        while not started.exists():
            assert asyncio.get_running_loop().time() < deadline, "the held lint never started"
            await asyncio.sleep(0.01)


@pytest.fixture
def hold(tmp_path: Path):
    held = Hold(tmp_path)
    yield held
    held.gate.touch()  # released whatever happened, so that the module's server goes on


def _in_range(client: LanguageClient, uri: str, start: tuple[int, int], end: tuple[int, int]):
    where = types.Range(start=types.Position(line=start[0], character=start[1]), end=types.Position(line=end[0], character=end[1]))
    params = types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=where, context=types.CodeActionContext(diagnostics=[]))
    return client.text_document_code_action_async(params)


def _hover(client: LanguageClient, uri: str, line: int, character: int):
    return client.text_document_hover_async(types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character)))


def _shown(action: types.CodeAction, uri: str) -> tuple:
    edits = [(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text) for e in action.edit.changes[uri]]
    return (action.title, action.kind, action.is_preferred, [where(d) for d in action.diagnostics], [d.message for d in action.diagnostics], edits)


def _fresh(path: Path, text: str, uri: str) -> list[tuple]:
    """The quick fixes a fresh lint of the whole `text` offers, as the server sends them."""
    result = lint([Source(str(path), lintable(text))], engine.settings_for(str(path)).options.at_the_stream())
    problems = [p for p in result.problems if p.rule not in engine.OUTSIDE_THE_WORKSPACE]
    current = Text(text)
    return [_shown(convert.code_action(uri, fix, rank == 0, convert.diagnostic(p, current), current), uri) for p in problems for rank, fix in enumerate(p.fixes)]


async def test_a_code_action_right_after_an_edit_offers_the_unchanged_documents_fixes_while_the_edit_is_linted(vscode: LanguageClient, tmp_path: Path, hold: Hold):
    """Sent at once after an edit of document 1, a code action over the whole buffer is answered while the
    lint of that version provably runs (held in document 1's rule): the quick fixes of documents 0, 2 and 3,
    which the edit did not touch, at their new lines, exactly as a fresh lint of the edited text offers them,
    and none of document 1. Applied to the client's text, they give what `--fix` gives in those documents and
    leave document 1 as it is. So does hover answer meanwhile, from the current text."""
    path = tmp_path / "claims.yaml"
    uri = path.as_uri()
    buffer = ClientText("---\n".join(TYPO.format(i=i) for i in range(4)))
    open_document(vscode, uri, buffer.text)
    assert [where(d) for d in (await published(vscode, uri)).diagnostics] == [(10 + 12 * i, 8, 10 + 12 * i, 21, "DRA101") for i in range(4)]
    at = buffer.text.index("  name: claim-1\n") + len("  name: claim-1\n")
    change_partial(vscode, uri, 2, buffer.edit(at, at, hold.annotation))  # two lines more in document 1
    await hold.started()
    offered = await _in_range(vscode, uri, (0, 0), (52, 0))
    field = await _hover(vscode, uri, 47, 10)  # document 3's deviceClassName, two lines further down than in version 1
    assert not hold.gate.exists() and [p.version for p in vscode.published[uri]] == [1]  # answered while version 2 is being linted
    hold.gate.touch()
    await published_version(vscode, uri, 2)
    assert field.contents.value.startswith("**spec.devices.requests[0].exactly.deviceClassName** — resource.k8s.io/v1 ResourceClaim at Kubernetes ")
    fresh = _fresh(path, buffer.text, uri)
    assert [edits[0][0] for *_, edits in fresh] == [10, 24, 36, 48]
    *offered, menu = offered
    assert menu.kind == "source.fixAll.dralint" and menu.edit is None  # computed when picked (codeAction/resolve)
    assert [_shown(a, uri) for a in offered] == [fresh[0], fresh[2], fresh[3]]
    fixed = buffer.apply([e for a in offered for e in a.edit.changes[uri]]).split("---\n")
    by_fix = engine.fix_buffer(str(path), buffer.text).split("---\n")
    assert [fixed[0], fixed[2], fixed[3]] == [by_fix[0], by_fix[2], by_fix[3]] and "alocationMode" not in by_fix[1]
    assert fixed[1] == buffer.text.split("---\n")[1]
    assert [_shown(a, uri) for a in (await _in_range(vscode, uri, (0, 0), (52, 0)))[:-1]] == fresh  # linted: document 1's too


async def test_requests_on_one_buffer_are_answered_while_another_buffers_lint_is_held(vscode: LanguageClient, tmp_path: Path, hold: Hold):
    """The lint process judges one buffer at a time: while buffer A's lint runs (held), a code action and
    hovers on buffer B, linted before, are answered from B's lint; on A, never linted yet, a code action is
    answered at once with nothing, and a hover from A's text, with the docs and release of the folder's
    config that B's lint brought."""
    b = (tmp_path / "b.yaml").as_uri()
    open_document(vscode, b, "# DRA101 below\n" + TYPO.format(i=0))
    assert [where(d) for d in (await published(vscode, b)).diagnostics] == [(11, 8, 11, 21, "DRA101")]
    a = (tmp_path / "a.yaml").as_uri()
    open_document(vscode, a, TYPO.format(i=1).replace("  name: claim-1\n", "  name: claim-1\n" + hold.annotation))
    await hold.started()
    [fix, _menu] = await _in_range(vscode, b, (11, 10), (11, 10))
    field = await _hover(vscode, b, 10, 10)
    code = await _hover(vscode, b, 0, 4)
    nothing = list(await _in_range(vscode, a, (0, 0), (14, 0)))
    on_a = await _hover(vscode, a, 11, 10)
    assert not hold.gate.exists() and vscode.published[a] == []  # all answered while A's lint is held
    hold.gate.touch()
    assert [where(d) for d in (await published(vscode, a)).diagnostics] == [(12, 8, 12, 21, "DRA101")]
    assert _shown(fix, b) == ("rename 'alocationMode' to 'allocationMode'", "quickfix", True, [(11, 8, 11, 21, "DRA101")],
                              ["unknown field 'alocationMode'; did you mean 'allocationMode'? (at spec.devices.requests[0].exactly.alocationMode)"],
                              [(11, 8, 11, 21, "allocationMode")])
    assert field.contents.value.startswith("**spec.devices.requests[0].exactly.deviceClassName** — resource.k8s.io/v1 ResourceClaim at Kubernetes ")
    assert code.contents.value.startswith("**DRA101** `unknown-field` (error)")
    assert nothing == []
    assert on_a.contents.value.startswith("**spec.devices.requests[0].exactly.deviceClassName** — resource.k8s.io/v1 ResourceClaim at Kubernetes ")


async def test_fix_all_on_one_buffer_is_answered_while_another_buffers_lint_is_held(vscode: LanguageClient, tmp_path: Path, hold: Hold):
    """Fix-all runs in the fix process, not the lint process: while buffer A's lint provably runs (held in
    the lint process), buffer B's fix on save (`only: source.fixAll`) and its menu entry resolved
    (codeAction/resolve) are answered, with what `--fix` makes of B."""
    path = tmp_path / "b.yaml"
    b, text = path.as_uri(), TYPO.format(i=0)
    open_document(vscode, b, text)
    assert [where(d) for d in (await published(vscode, b)).diagnostics] == [(10, 8, 10, 21, "DRA101")]
    a = (tmp_path / "a.yaml").as_uri()
    open_document(vscode, a, TYPO.format(i=1).replace("  name: claim-1\n", "  name: claim-1\n" + hold.annotation))
    await hold.started()
    [on_save] = await _actions(vscode, b, 0, 0, only=[types.CodeActionKind.SourceFixAll])
    [menu] = await _actions(vscode, b, 0, 0)  # no problem on line 0: the menu entry alone, its edit not computed
    resolved = await vscode.code_action_resolve_async(menu)
    assert not hold.gate.exists() and vscode.published[a] == []  # all answered while A's lint is held
    hold.gate.touch()
    assert [where(d) for d in (await published(vscode, a)).diagnostics] == [(12, 8, 12, 21, "DRA101")]
    fixed = engine.fix_buffer(str(path), text)
    assert fixed == text.replace("alocationMode", "allocationMode")
    whole = ((0, 0, 11, 0, fixed),)
    for action in (on_save, resolved):
        assert (action.title, action.kind) == ("Fix all dralint problems", "source.fixAll.dralint")
        assert tuple((e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text) for e in action.edit.changes[b]) == whole

async def test_the_fix_process_forgets_a_config_as_the_lint_process_does(vscode: LanguageClient, tmp_path: Path):
    """After `workspace/didChangeConfiguration`, fix-all is of the config as it now reads: the file is
    rewritten with its modification time kept, so that only forgetting what was read makes either
    process read it again (the fix process is told ahead of its next fix)."""
    config = tmp_path / ".dralint.yaml"
    config.write_text("ignore: [DRA313]\n", encoding="utf-8")
    path = tmp_path / "two.yaml"
    uri, text = path.as_uri(), TYPO.format(i=0).replace("alocationMode: ExactCount", "allocationMode: exactcount\n        cout: 1")
    open_document(vscode, uri, text)
    assert [where(d) for d in (await published(vscode, uri)).diagnostics] == [(11, 8, 11, 12, "DRA101")]
    [fix] = await _actions(vscode, uri, 0, 0, only=[types.CodeActionKind.SourceFixAll])
    assert fix.edit.changes[uri][0].new_text == text.replace("cout", "count")
    stamp = config.stat()
    config.write_text("ignore: [DRA101]\n", encoding="utf-8")
    os.utime(config, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    vscode.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert [where(d) for d in (await published(vscode, uri)).diagnostics] == [(10, 24, 10, 34, "DRA313")]
    [fix] = await _actions(vscode, uri, 0, 0, only=[types.CodeActionKind.SourceFixAll])
    assert fix.edit.changes[uri][0].new_text == text.replace("exactcount", "ExactCount")

# -- the incremental lint through the client (its edits and oracle: test_lsp_incremental.py) --------------


def _diagnostics_shown(diagnostics) -> list[tuple]:
    r = lambda d: (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)  # noqa: E731
    return [(r(d), str(d.code), d.severity, d.message) for d in diagnostics]


@pytest.mark.parametrize(("seed", "header"), [(1, ""), (2, "# dralint: kubernetes-version=1.34\n")])
async def test_published_diagnostics_equal_a_fresh_lint_of_the_whole_buffer_after_each_edit(vscode: LanguageClient, seed: int, header: str):
    rng = random.Random(seed)
    path = str(vscode.root / f"buffer{seed}.yaml")
    uri = Path(path).as_uri()
    buffer = ClientText(header + _buffer(rng, 14))
    open_document(vscode, uri, buffer.text)
    assert _diagnostics_shown((await published_version(vscode, uri, 1)).diagnostics) == _diagnostics_shown(convert.diagnostic(p, Text(buffer.text)) for p in _whole(path, buffer.text))
    for version in range(2, 30):
        start, end, new = _edit(rng, buffer.text)
        change_partial(vscode, uri, version, buffer.edit(start, end, new))
        offered = await _quick_fixes(vscode, uri, buffer)  # at once: from this version's lint or the last one's
        published = await published_version(vscode, uri, version)
        whole, text = _whole(path, buffer.text), Text(buffer.text)
        expected = [convert.diagnostic(p, text) for p in whole]
        assert _diagnostics_shown(published.diagnostics) == _diagnostics_shown(expected), f"after edit {version - 1} ({start}, {end}, {new!r}):\n{buffer.text}"
        fresh = [_action(convert.code_action(uri, fix, rank == 0, convert.diagnostic(p, text), text), uri) for p in whole for rank, fix in enumerate(p.fixes)]
        # Never a fix that a fresh lint of the client's text does not offer at that very place, with those edits.
        assert [_action(a, uri) for a in offered] == [f for f in fresh if f in [_action(a, uri) for a in offered]]


async def _quick_fixes(client: LanguageClient, uri: str, buffer: ClientText) -> list[types.CodeAction]:
    everywhere = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(buffer.lines()), character=0))
    params = types.CodeActionParams(text_document=types.TextDocumentIdentifier(uri=uri), range=everywhere, context=types.CodeActionContext(diagnostics=[]))
    return [a for a in await client.text_document_code_action_async(params) if a.kind == types.CodeActionKind.QuickFix]


def _action(action: types.CodeAction, uri: str) -> tuple:
    r = lambda x: (x.start.line, x.start.character, x.end.line, x.end.character)  # noqa: E731
    return (action.title, action.is_preferred, [(r(d.range), d.code, d.message) for d in action.diagnostics], [(r(e.range), e.new_text) for e in action.edit.changes[uri]])
