"""`dralint lsp`: the language server (pygls) and its scheduling.

Push or pull, never both: a client that can pull diagnostics
(`textDocument/diagnostic`) pulls them; every other client gets
`publishDiagnostics`, tagged with the document version they were computed for.
Typing re-lints after a short pause (`pause()`); open and save re-lint at once. A
result is published only if the buffer still has the version it was computed
from, so a slow lint never overwrites a newer one.

Lints run in a child process (worker.py), fix-all in another (so that a fix on save never
queues behind another buffer's lint), awaited, so the server answers other requests meanwhile; each version of a buffer is linted once, and diagnostics are
published from that lint (`Linted`). Code actions and hover never wait for a lint:
they answer from the buffer's last lint, for its current text (dralint.lsp.carry
for quick fixes), with what a lint process reply brought before (rule docs).
"""

from __future__ import annotations

import asyncio
import logging
import os

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from .. import __version__
from . import carry, convert, engine, hover
from .text import Buffer, BufferWorkspace, Text
from .worker import LintTimeout, Superseded, Worker, WorkerFailed, lint_timeout

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

logger = logging.getLogger(__name__)


def pause() -> float:
    """Seconds of quiet after the last keystroke before re-linting (DRALINT_LSP_DELAY_MS; bench/lsp.py
    sets 0 to drive thousands of edits through the linter). Read at `initialize`, never at import:
    importing the server must not depend on the environment."""
    return float(os.environ.get("DRALINT_LSP_DELAY_MS", "120")) / 1000

CONFIG_GLOB = "**/.dralint.{yaml,yml}"
MANIFEST_GLOB = "**/*.{yaml,yml,json}"  # the workspace index's files (dralint.lsp.workspace)
CONFIG_NAMES = (".dralint.yaml", ".dralint.yml")
BUFFER_TEXT = "dralint/bufferText"


class Linted:
    """The lint of one version of a buffer: what diagnostics and code actions answer from.

    `key` is (document version, config generation); `judged` gives its quick fixes, for
    its text or a later one (dralint.lsp.carry).
    """

    __slots__ = ("key", "problems", "diagnostics", "text", "judged")

    def __init__(self, key: tuple[int | None, int], problems: list, diagnostics: list[types.Diagnostic], text: Text, judged: carry.Judged | None = None):
        self.key = key
        self.problems = problems
        self.diagnostics = diagnostics
        self.text = text
        self.judged = judged or carry.Judged("", text, problems, None)

    @property
    def version(self) -> int | None:
        return self.key[0]


class _Protocol(LanguageServerProtocol):
    """pygls' protocol with three corrections kept on dralint's side.

    - pygls 2.1 files the future of every notification its generator handlers run (didOpen,
      didChange ...) under a made-up id that no response ever removes: one Future, lock and
      condition per keystroke, for the life of the server. Dropped once the handler is done.
    - After `shutdown` pygls drops every request unanswered; the LSP asks for an InvalidRequest error.
    - The workspace holds `text.Buffer`s (LSP line breaks, no reading from disk).
    """

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if callback == self._check_handler_result:  # a notification: nothing will answer it
            future = self._request_futures.get(msg_id)
            if future is not None:
                future.add_done_callback(lambda _done: self._request_futures.pop(msg_id, None))

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if self._shutdown and method is not None and method != types.EXIT and getattr(message, "id", None) is not None:
            self._send_response(message.id, error=types.ResponseError(code=types.ErrorCodes.InvalidRequest, message=f"{method}: the server is shut down"))
            return
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        result = yield from super().lsp_initialize(params)
        self._workspace = BufferWorkspace(self.workspace)
        return result


class DralintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("dralint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental, protocol_cls=_Protocol)
        self.linted: dict[str, Linted] = {}
        self.running: dict[str, tuple[tuple[int | None, int], asyncio.Future]] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Future] = set()
        self.pull = False  # decided at initialize from the client's capabilities
        self.told: set[str] = set()  # config and internal errors already shown to the user
        self.generation = 0  # bumped when the config changes: a pull's result id is generation + version
        self.worker = Worker()
        # Fix-all in a process of its own, started at the first: a fix on save never waits behind
        # another buffer's lint in the lint process, which takes one request at a time.
        self.fixer = Worker(role="fix")
        self.delay = 0.0  # `pause()`, read with the worker's timeout at initialize
        self.folders: tuple[str, ...] = ()  # the workspace folders, whose manifests the lints know of
        # For hover, which never queues behind a lint: what the lint process told of each config
        # (engine.config_key -> rule docs, release ...), kept until it tells again; and each buffer's
        # current text with its release and documents (loaded here, without rules): once per text and
        # facts, however many hovers, saves and file events come meanwhile.
        self.facts: dict[tuple, engine.ConfigFacts] = {}
        self.loaded: dict[str, tuple[Text, engine.ConfigFacts, str, list]] = {}

    def in_workspace(self, path: str) -> bool:
        path = os.path.abspath(path) if path else ""
        return bool(path) and any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in self.folders)

    def buffer(self, uri: str) -> Buffer | None:
        return self.workspace.get_text_document(uri)  # type: ignore[return-value]

    # -- linting ---------------------------------------------------------------------------
    async def lint(self, uri: str) -> Linted | None:
        """The lint of the buffer's current version: the last one if it is current, else a new one
        (shared with whoever else asks for the same version meanwhile)."""
        buffer = self.buffer(uri)
        if buffer is None:
            return None
        key = (buffer.version, self.generation)
        known = self.linted.get(uri)
        if known is not None and known.key == key and known.text is buffer.text and buffer.version is not None:
            return known
        running = self.running.get(uri)
        if running is None or running[0] != key:
            running = self.running[uri] = (key, asyncio.ensure_future(self._lint(uri, buffer.text, key)))
        return await asyncio.shield(running[1])

    async def _lint(self, uri: str, text: Text, key: tuple[int | None, int]) -> Linted:
        path = to_fs_path(uri) or uri
        problems: list = []
        notices: list[types.Diagnostic] = []
        facts = None
        try:
            reply = await self.worker.call("lint", path, text.text, self.folders, wanted=lambda: self._current(uri, key))
            problems = reply.problems
            if not reply.kubernetes:  # Files without a Kubernetes object (dralint.pipeline.triage): other YAML servers run beside this one.
                problems = []
            if reply.config_error:
                self.tell(f"dralint: {reply.config_error}; using the defaults")
            if reply.facts is not None:
                self.facts[reply.config] = reply.facts
            facts = self.facts.get(reply.config)
        except LintTimeout:
            notices.append(_timed_out(self.worker.timeout))
        except WorkerFailed as exc:  # a broken plugin or rule: say so once, keep serving the other buffers
            self.tell(f"dralint could not lint {path}: {exc}")
        except Superseded:  # nobody is left to show it to: neither kept nor published
            return Linted(key, [], [], text)
        finally:
            running = self.running.get(uri)
            if running is not None and running[1] is asyncio.current_task():
                del self.running[uri]
        diagnostics = [convert.diagnostic(p, text) for p in problems] + notices
        linted = Linted(key, problems, diagnostics, text, carry.Judged(path, text, problems, facts.reads_others if facts else None))
        buffer = self.buffer(uri)
        known = self.linted.get(uri)
        # Still this text (not closed, edited or reopened), and not a lint of an older config finishing late.
        if buffer is not None and buffer.text is text and (known is None or known.key[1] <= key[1]):
            self.linted[uri] = linted
        return linted

    def forget(self, uri: str) -> None:
        """Drop what is known or under way for `uri` (a lint under way finishes unseen)."""
        self._cancel_pending(uri)
        self.linted.pop(uri, None)
        self.running.pop(uri, None)
        self.loaded.pop(uri, None)

    def _current(self, uri: str, key: tuple[int | None, int]) -> bool:
        buffer = self.buffer(uri)
        return buffer is not None and (buffer.version, self.generation) == key

    def tell(self, message: str) -> None:
        if message not in self.told:
            self.told.add(message)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows every failure of a notification handler in a popup: one per keystroke if it
        repeats. Logged to standard error, and shown once per kind of failure."""
        logger.error("%s: %s", type(error).__name__, error)
        if source is not FeatureRequestError:  # a request's failure is in its answer
            self.tell(f"dralint: internal error in the language server: {type(error).__name__} (details on its standard error)")

    async def publish(self, uri: str) -> None:
        self._cancel_pending(uri)
        linted = await self.lint(uri)
        buffer = self.buffer(uri)
        if linted is None or buffer is None or linted.key != (buffer.version, self.generation) or linted.text is not buffer.text:
            return  # closed, changed or reopened meanwhile: a newer lint is scheduled
        if self.pull:
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=linted.version, diagnostics=linted.diagnostics)
        )

    def spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def schedule(self, uri: str) -> None:
        self._cancel_pending(uri)
        self.pending[uri] = asyncio.get_running_loop().call_later(self.delay, self._fire, uri)

    def _cancel_pending(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()

    def _fire(self, uri: str) -> None:
        self.pending.pop(uri, None)
        self.spawn(self.publish(uri))

    async def relint_all(self, operation: str = "forget", *args: Any) -> None:
        """Every open buffer again, after `operation` in the lint process: "forget" (a config changed:
        its settings and the workspace index go) or "changed" (files of the workspace changed)."""
        # The new generation first: a request that comes meanwhile must not be served from the old
        # verdicts; its lint queues behind the "forget" (the lint process takes requests in order).
        self.generation += 1
        self.linted.clear()
        self.running.clear()
        # `loaded` stays: hover's documents depend on the text and the config's facts alone, and it checks
        # both (a save, or a file event, changes neither; a new config's facts come with its next lint).
        if operation == "forget":  # a new config: its problems are news again (a save is not)
            self.told.clear()
            self.fixer.before_next("forget")  # a fix asked for from now on is of the new config
        try:
            await self.worker.call(operation, *args)
        except (LintTimeout, WorkerFailed) as exc:  # the next lint starts a fresh child, with nothing cached
            logger.warning("could not update the lint process (%s): %s", operation, exc)
        if self.pull and _refresh_supported(self):
            self.workspace_diagnostic_refresh(None)
        # Pushed, or (pull) ready for the client's next pull, and for code actions that answer from the last lint.
        for buffer in list(self.workspace.text_documents.values()):
            self.spawn(self.publish(buffer.uri))  # as the client spelled it (pygls keys them unquoted)


def _timed_out(seconds: float) -> types.Diagnostic:
    check = "DRA901"
    return types.Diagnostic(
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        severity=types.DiagnosticSeverity.Error,
        code=check,
        code_description=types.CodeDescription(href=convert.rule_url(check, "internal-error")),
        source="dralint",
        message=f"dralint stopped linting this buffer after {seconds:g} s: a rule or plugin did not finish "
        "(DRALINT_LSP_TIMEOUT_S sets the limit); its problems are not shown",
    )


def _refresh_supported(server: LanguageServer) -> bool:
    workspace = server.client_capabilities.workspace
    return bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)


server = DralintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: DralintServer, params: types.InitializeParams) -> None:
    ls.delay, ls.worker.timeout = pause(), lint_timeout()
    ls.fixer.timeout = ls.worker.timeout
    text = params.capabilities.text_document
    ls.pull = bool(text and text.diagnostic is not None) and not os.environ.get("DRALINT_LSP_PUSH")
    uris = [folder.uri for folder in params.workspace_folders or ()] or ([params.root_uri] if params.root_uri else [])
    if not uris and params.root_path:
        ls.folders = (os.path.abspath(params.root_path),)
    else:
        ls.folders = tuple(os.path.abspath(p) for p in (to_fs_path(uri) for uri in uris) if p)


@server.feature(types.INITIALIZED)
def initialized(ls: DralintServer, params: types.InitializedParams) -> None:
    workspace = ls.client_capabilities.workspace
    watched = workspace and workspace.did_change_watched_files
    if watched and watched.dynamic_registration:
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=CONFIG_GLOB), types.FileSystemWatcher(glob_pattern=MANIFEST_GLOB)]
        )
        registration = types.Registration(id="dralint-config", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)
        ls.client_register_capability(types.RegistrationParams(registrations=[registration]))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DralintServer, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.forget(uri)  # reopened: its version numbers may start again
    ls.spawn(ls.publish(uri))


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: DralintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DralintServer, params: types.DidSaveTextDocumentParams) -> None:
    path = to_fs_path(params.text_document.uri) or ""
    if os.path.basename(path) in CONFIG_NAMES:
        ls.spawn(ls.relint_all())
    elif ls.in_workspace(path):  # what it defines is on disk now: every open buffer is judged against it
        ls.spawn(ls.relint_all("changed", [path]))
    else:
        ls.spawn(ls.publish(params.text_document.uri))


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DralintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.forget(uri)
    if not ls.pull:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def watched_files(ls: DralintServer, params: types.DidChangeWatchedFilesParams) -> None:
    paths = [p for p in (to_fs_path(change.uri) for change in params.changes) if p]
    if any(os.path.basename(p) in CONFIG_NAMES for p in paths) or len(paths) < len(params.changes):
        ls.spawn(ls.relint_all())
    else:
        ls.spawn(ls.relint_all("changed", paths))


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def configuration(ls: DralintServer, params: types.DidChangeConfigurationParams) -> None:
    ls.spawn(ls.relint_all())


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(identifier="dralint", inter_file_dependencies=False, workspace_diagnostics=False),
)
async def pull(ls: DralintServer, params: types.DocumentDiagnosticParams) -> Any:
    uri = params.text_document.uri
    handle = ls.pending.get(uri)
    if handle is not None:  # typing: answer after the pause, for the newest text
        await asyncio.sleep(max(0.0, handle.when() - asyncio.get_running_loop().time()))
    linted = await ls.lint(uri)
    while linted is not None and not ls._current(uri, linted.key):  # edited meanwhile: the newest text's
        linted = await ls.lint(uri)
    if linted is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    result_id = f"{linted.key[1]}.{linted.version}"
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=linted.diagnostics, result_id=result_id)


FIX_ALL = "source.fixAll.dralint"


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL], resolve_provider=True),
)
async def code_actions(ls: DralintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Quick fixes from the buffer's last lint under the current config, never waiting for one: of the
    documents unchanged since, moved to where they stand (dralint.lsp.carry); none before its first lint.
    Fix-all asked for by name (fix on save) is computed now, in the fix process (not behind a lint)."""
    uri = params.text_document.uri
    buffer = ls.buffer(uri)
    if buffer is None:
        return []
    text = buffer.text
    linted = ls.linted.get(uri)
    if linted is not None and linted.key[1] != ls.generation:  # judged under an older config: its fixes may not hold
        linted = None
    actions = []
    if linted is not None:
        first = convert.from_position(params.range.start, text)
        last = convert.from_position(params.range.end, text)
        for problem in linted.judged.at(text, first, last):
            fixes = problem.fixes
            if fixes:
                diag = convert.diagnostic(problem, text)
                actions.extend(convert.code_action(uri, fix, rank == 0, diag, text) for rank, fix in enumerate(fixes))
    wanted = params.context.only or []
    fixable = linted is not None and any(p.fixes for p in linted.problems)
    if any(FIX_ALL.startswith(kind) for kind in wanted):  # asked for by name (fix on save): computed now
        if fixable or linted is None or linted.text is not text:  # unless this very text has nothing to fix
            fixed = await _fix_all(ls, uri, text)
            if fixed is not None:
                actions.append(fixed)
    elif not wanted and fixable and _resolves_edits(ls):  # offered in the menu, computed only if picked
        actions.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, data={"uri": uri}))
    return actions


FIX_ALL_TITLE = "Fix all dralint problems"


def _resolves_edits(ls: DralintServer) -> bool:
    text = ls.client_capabilities.text_document
    support = text and text.code_action and text.code_action.resolve_support
    return bool(support and "edit" in support.properties)


async def _fix_all(ls: DralintServer, uri: str, text: Text) -> types.CodeAction | None:
    """Every best fix at once, in passes as `dralint --fix` applies them: one edit of the whole buffer.

    It lints the buffer once per pass, too slow to compute for every cursor move, so
    the menu entry is resolved (codeAction/resolve) only when chosen.
    """
    try:
        fixed = await ls.fixer.call("fix", to_fs_path(uri) or uri, text.text)
    except (LintTimeout, WorkerFailed) as exc:
        ls.tell(f"dralint could not fix {uri}: {exc}")
        return None
    if fixed == text.text:  # nothing to fix
        return None
    whole = text.range(0, len(text.text))
    edit = types.WorkspaceEdit(changes={uri: [types.TextEdit(range=whole, new_text=fixed)]})
    return types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, edit=edit)


@server.feature(types.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: DralintServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    buffer = ls.buffer(data["uri"]) if action.kind == FIX_ALL and isinstance(data.get("uri"), str) else None
    if buffer is not None:
        return await _fix_all(ls, data["uri"], buffer.text) or action
    return action


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: DralintServer, params: types.HoverParams) -> types.Hover | None:
    """A rule code's docs, or a field's schema, from the buffer as the client opened it (a URI it
    did not open is not read from disk). Never waits for a lint: the field is found in the current
    text, at the release its header comment or its config gives, and the docs are those of its config,
    as the lint process sent them with a lint under that config (before the first, there is no hover)."""
    uri = params.text_document.uri
    buffer = ls.buffer(uri)
    if buffer is None or params.position.line >= buffer.text.line_count:
        return None
    text = buffer.text
    path = to_fs_path(uri) or uri
    facts = ls.facts.get(engine.config_key(path))
    if facts is None:
        return None
    offset = text.offset(params.position)
    code = hover.code_at(text.line_text(params.position.line), offset - text.starts[params.position.line] + 1)
    if code is not None:
        row = facts.docs.get(code)
        value = hover.rule_markdown(code, row) if row else None
    else:
        loaded = ls.loaded.get(uri)
        if loaded is None or loaded[0] is not text or loaded[1] is not facts:  # once per text (and config)
            loaded = ls.loaded[uri] = (text, facts, engine.release_for(path, text.text, facts.release), engine.documents(path, text.text))
        value = _field_hover(loaded[2], loaded[3], *text.to_dralint(offset))
    if value is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))


def _field_hover(release: str, documents: list, line: int, column: int) -> str | None:
    found = hover.field_at(documents, line, column)
    if found is None:
        return None
    doc, field = found
    schema = engine.schema_for(release, doc.api_version, doc.kind)
    if schema is None:
        return None
    return hover.describe_field(schema, field, release, doc.api_version, doc.kind)


@server.feature(BUFFER_TEXT)
def buffer_text(ls: DralintServer, params: Any) -> str | None:
    """The text of an open buffer as the server holds it (`{"uri": ...}`; null if not open): what an
    editor extension, or a test, compares with the editor's own to find edits applied out of step."""
    uri = getattr(params, "uri", None)
    buffer = ls.buffer(uri) if isinstance(uri, str) else None
    return buffer.source if buffer is not None else None
