"""`dralint lsp`: the language server (pygls) and its scheduling.

Push or pull, never both: a client that can pull diagnostics
(`textDocument/diagnostic`) pulls them; every other client gets
`publishDiagnostics`, tagged with the document version they were computed for.
Typing re-lints after a short pause (DELAY); open and save re-lint at once. A
result is published only if the buffer still has the version it was computed
from, so a slow lint never overwrites a newer one.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, Sequence

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from .. import __version__
from . import convert, engine, hover

# Seconds of quiet after the last keystroke before re-linting; bench/lsp.py sets it to 0 to
# drive thousands of edits through the linter.
DELAY = float(os.environ.get("DRALINT_LSP_DELAY_MS", "120")) / 1000
CONFIG_GLOB = "**/.dralint.{yaml,yml}"


class Linted:
    """The latest lint of one buffer: what code actions and pulls answer from."""

    __slots__ = ("version", "problems", "diagnostics", "lines")

    def __init__(self, version: int | None, problems: list, diagnostics: list[types.Diagnostic], lines: Sequence[str]):
        self.version = version
        self.problems = problems
        self.diagnostics = diagnostics
        self.lines = lines


class _Protocol(LanguageServerProtocol):
    """pygls 2.1 files the future of every notification its generator handlers run (didOpen,
    didChange ...) under a made-up id that no response ever removes: one Future, lock and
    condition per keystroke, ~2 KB, for the life of the server (bench/lsp.py showed RSS
    growing by ~23 MiB over 10,000 edits). Drop it once the handler is done."""

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if callback == self._check_handler_result:  # a notification: nothing will answer it
            future = self._request_futures.get(msg_id)
            if future is not None:
                future.add_done_callback(lambda _done: self._request_futures.pop(msg_id, None))


class DralintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("dralint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental, protocol_cls=_Protocol)
        self.linted: dict[str, Linted] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.pull = False  # decided at initialize from the client's capabilities
        self.told: set[str] = set()  # config and internal errors already shown to the user
        self.generation = 0  # bumped when the config changes: a pull's result id is generation + version

    # -- linting ---------------------------------------------------------------------------
    def lint_now(self, uri: str) -> Linted | None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return None
        known = self.linted.get(uri)
        if known is not None and known.version == document.version and document.version is not None:
            return known
        text = document.source
        path = to_fs_path(uri) or uri
        try:
            outcome = engine.lint_buffer(path, text)
        except Exception as exc:  # a broken plugin or rule: say so once, keep serving the other buffers
            self.tell(f"dralint could not lint {path}: {type(exc).__name__}: {exc}")
            outcome = engine.Outcome([], False)
        config_error = engine.config_error(path)
        if config_error:
            self.tell(f"dralint: {config_error}; using the defaults")
        lines = text.splitlines(True)
        problems = outcome.problems if outcome.kubernetes else []
        codec = self.workspace.position_codec
        diagnostics = [convert.diagnostic(p, lines, codec) for p in problems]
        linted = self.linted[uri] = Linted(document.version, problems, diagnostics, lines)
        return linted

    def tell(self, message: str) -> None:
        if message not in self.told:
            self.told.add(message)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def publish(self, uri: str) -> None:
        document = self.workspace.text_documents.get(uri)
        linted = self.lint_now(uri)
        if linted is None or document is None or linted.version != document.version:
            return  # closed or changed meanwhile: a newer lint is scheduled
        if self.pull:
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=linted.version, diagnostics=linted.diagnostics)
        )

    def schedule(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.pending[uri] = asyncio.get_running_loop().call_later(DELAY, self._fire, uri)

    def _fire(self, uri: str) -> None:
        self.pending.pop(uri, None)
        self.publish(uri)

    def relint_all(self) -> None:
        engine.forget_settings()
        self.generation += 1
        self.linted.clear()
        self.told.clear()
        if self.pull:
            if _refresh_supported(self):
                self.workspace_diagnostic_refresh(None)
            return
        for uri in list(self.workspace.text_documents):
            self.publish(uri)


def _refresh_supported(server: LanguageServer) -> bool:
    workspace = server.client_capabilities.workspace
    return bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)


server = DralintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: DralintServer, params: types.InitializeParams) -> None:
    text = params.capabilities.text_document
    ls.pull = bool(text and text.diagnostic is not None) and not os.environ.get("DRALINT_LSP_PUSH")


@server.feature(types.INITIALIZED)
def initialized(ls: DralintServer, params: types.InitializedParams) -> None:
    workspace = ls.client_capabilities.workspace
    watched = workspace and workspace.did_change_watched_files
    if watched and watched.dynamic_registration:
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=[types.FileSystemWatcher(glob_pattern=CONFIG_GLOB)])
        registration = types.Registration(id="dralint-config", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)
        ls.client_register_capability(types.RegistrationParams(registrations=[registration]))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DralintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: DralintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DralintServer, params: types.DidSaveTextDocumentParams) -> None:
    if os.path.basename(to_fs_path(params.text_document.uri) or "") in (".dralint.yaml", ".dralint.yml"):
        ls.relint_all()
        return
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DralintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    handle = ls.pending.pop(uri, None)
    if handle is not None:
        handle.cancel()
    ls.linted.pop(uri, None)
    if not ls.pull:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def watched_files(ls: DralintServer, params: types.DidChangeWatchedFilesParams) -> None:
    ls.relint_all()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def configuration(ls: DralintServer, params: types.DidChangeConfigurationParams) -> None:
    ls.relint_all()


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(identifier="dralint", inter_file_dependencies=False, workspace_diagnostics=False),
)
async def pull(ls: DralintServer, params: types.DocumentDiagnosticParams) -> Any:
    uri = params.text_document.uri
    handle = ls.pending.get(uri)
    if handle is not None:  # typing: answer after the pause, for the newest text
        await asyncio.sleep(max(0.0, handle.when() - asyncio.get_running_loop().time()))
    linted = ls.lint_now(uri)
    if linted is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    result_id = f"{ls.generation}.{linted.version}"
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=linted.diagnostics, result_id=result_id)


FIX_ALL = "source.fixAll.dralint"


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL], resolve_provider=True),
)
def code_actions(ls: DralintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    linted = ls.lint_now(uri)
    if linted is None:
        return []
    codec = ls.workspace.position_codec
    first = convert.from_position(params.range.start, linted.lines, codec)
    last = convert.from_position(params.range.end, linted.lines, codec)
    actions = []
    for problem, diag in zip(linted.problems, linted.diagnostics, strict=True):
        if not convert.overlaps(problem.span, first, last):
            continue
        for rank, fix in enumerate(problem.fixes):
            actions.append(convert.code_action(uri, fix, rank == 0, diag, linted.lines, codec))
    if any(p.fixes for p in linted.problems):
        wanted = params.context.only or []
        if any(FIX_ALL.startswith(kind) for kind in wanted):  # asked for by name (fix on save): compute now
            actions.append(_fix_all(ls, uri))
        elif not wanted and _resolves_edits(ls):  # offered in the menu, computed only if picked
            actions.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, data={"uri": uri}))
    return actions


FIX_ALL_TITLE = "Fix all dralint problems"


def _resolves_edits(ls: DralintServer) -> bool:
    text = ls.client_capabilities.text_document
    support = text and text.code_action and text.code_action.resolve_support
    return bool(support and "edit" in support.properties)


def _fix_all(ls: DralintServer, uri: str) -> types.CodeAction:
    """Every best fix at once, in passes as `dralint --fix` applies them: one edit of the whole buffer.

    It lints the buffer once per pass, too slow to compute for every cursor move, so
    the menu entry is resolved (codeAction/resolve) only when chosen.
    """
    document = ls.workspace.get_text_document(uri)
    fixed = engine.fix_buffer(document.path or uri, document.source)
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(document.lines), character=0))
    edit = types.WorkspaceEdit(changes={uri: [types.TextEdit(range=whole, new_text=fixed)]})
    return types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, edit=edit)


@server.feature(types.CODE_ACTION_RESOLVE)
def resolve_code_action(ls: DralintServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    if action.kind == FIX_ALL and data.get("uri") in ls.workspace.text_documents:
        return _fix_all(ls, data["uri"])
    return action


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: DralintServer, params: types.HoverParams) -> types.Hover | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    lines = document.lines
    if params.position.line >= len(lines):
        return None
    line, column = convert.from_position(params.position, lines, ls.workspace.position_codec)
    path = document.path or params.text_document.uri
    code = hover.code_at(lines[line - 1], column)
    if code is not None:
        row = engine.rule_docs(path).get(code)
        text = hover.rule_markdown(code, row) if row else None
    else:
        text = _field_hover(path, document.source, line, column)
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def _field_hover(path: str, source: str, line: int, column: int) -> str | None:
    found = hover.field_at(engine.documents(path, source), line, column)
    if found is None:
        return None
    doc, field = found
    release = engine.release_for(path, source)
    schema = engine.schema_for(release, doc.api_version, doc.kind)
    if schema is None:
        return None
    return hover.describe_field(schema, field, release, doc.api_version, doc.kind)
