"""Helpers of the language-server tests: a pytest-lsp client's set-up, its publishes, the client's
own model of a buffer (LSP lines and code units, written independently of dralint's), and a raw
stdio client for what no well-behaved client sends (bad framing, a stream to check byte by byte)."""

from __future__ import annotations

import asyncio
import collections
import json
import os
import queue
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from conftest import dralint_command

PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
# The server process: forked from the fork server with what it imports loaded (conftest.dralint_command);
# test_lsp_neovim starts it as an editor's configuration does, `python -m dralint lsp`.
SERVER_COMMAND = dralint_command("lsp")


async def start(client: LanguageClient, spec: str, root: Path) -> None:
    client.registrations = []
    record_publishes(client)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:  # what an editor does: accept it
        client.registrations.extend(params.registrations)

    params = types.InitializeParams(capabilities=client_capabilities(spec), root_uri=root.as_uri(), workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")])
    await client.initialize_session(params)


def record_publishes(client: LanguageClient) -> None:
    """Keep every publish, per URI, in order. pytest-lsp's wait_for_notification has one waiter per method:
    of publishes that arrive in one read (a config change re-lints every open buffer), it sees the first
    only, and a test waiting for a later one's URI waited in vain."""
    client.published = collections.defaultdict(list)
    features = client.protocol.fm.features
    keep_diagnostics = features[PUBLISH]  # pytest-lsp's own: client.diagnostics[uri]

    def recording(params: types.PublishDiagnosticsParams) -> None:
        client.published[params.uri].append(params)
        keep_diagnostics(params)

    features[PUBLISH] = recording


async def published(client: LanguageClient, uri: str, seconds: float = 60) -> types.PublishDiagnosticsParams:
    """The next publish for `uri` from now. Generous: the shared server re-lints every open buffer (a
    400-object one too) on a config change."""
    seen = len(client.published[uri])
    return await published_after(client, uri, seen, seconds)


async def published_after(client: LanguageClient, uri: str, seen: int, seconds: float = 60) -> types.PublishDiagnosticsParams:
    """The first publish for `uri` after the first `seen` ones."""
    records = client.published[uri]
    deadline = asyncio.get_running_loop().time() + seconds
    while len(records) <= seen:
        if asyncio.get_running_loop().time() > deadline:
            said = [m.message for m in (*client.log_messages, *client.messages)]
            raise AssertionError(f"no diagnostics published for {uri} in {seconds} s; the server said: {said}")
        await asyncio.sleep(0.005)
    return records[seen]


async def published_version(client: LanguageClient, uri: str, version: int, seconds: float = 60) -> types.PublishDiagnosticsParams:
    """The publish for `version` of `uri` (earlier ones, if any arrive, are passed over)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        for params in client.published[uri]:
            if params.version == version:
                return params
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no diagnostics published for version {version} of {uri} in {seconds} s")
        await asyncio.sleep(0.005)


def open_document(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=version, text=text)))


def change_whole(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def where(d: types.Diagnostic) -> tuple[int, int, int, int, str]:
    r = d.range
    return (r.start.line, r.start.character, r.end.line, r.end.character, str(d.code))


async def buffer_text(client: LanguageClient, uri: str) -> str | None:
    """The buffer as the server holds it (its dralint/bufferText request)."""
    return await client.protocol.send_request_async("dralint/bufferText", {"uri": uri})


# -- the client's model of a buffer ------------------------------------------------------------
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class ClientText:
    """A buffer as an editor sees it: lines end at "\\n", "\\r\\n" or "\\r" only; columns in `encoding` units."""

    def __init__(self, text: str, encoding: str = "utf-16"):
        self.text = text
        self.encoding = encoding

    def starts(self) -> list[int]:
        return [0, *(m.end() for m in _LINE_BREAK.finditer(self.text))]

    def lines(self) -> list[str]:
        """Each line's content, without its break (a final break opens an empty last line)."""
        return _LINE_BREAK.split(self.text)

    def units(self, s: str) -> int:
        if self.encoding == "utf-32":
            return len(s)
        data = s.encode("utf-16-le" if self.encoding == "utf-16" else "utf-8", "surrogatepass")
        return len(data) // 2 if self.encoding == "utf-16" else len(data)

    def position(self, offset: int) -> types.Position:
        starts = self.starts()
        line = max(i for i, s in enumerate(starts) if s <= offset)
        return types.Position(line=line, character=self.units(self.text[starts[line] : offset]))

    def offset(self, position: types.Position) -> int:
        start = self.starts()[position.line]
        content = self.lines()[position.line]
        counted = 0
        for i, ch in enumerate(content):
            if counted >= position.character:
                return start + i
            counted += self.units(ch)
        return start + len(content)

    def inside(self, position: types.Position) -> bool:
        lines = self.lines()
        return 0 <= position.line < len(lines) and 0 <= position.character <= self.units(lines[position.line])

    def edit(self, start: int, end: int, new: str) -> types.TextDocumentContentChangePartial:
        """Replace [start, end) with `new`; the change event that says so, in positions of the text before."""
        change = types.TextDocumentContentChangePartial(range=types.Range(start=self.position(start), end=self.position(end)), text=new)
        self.text = self.text[:start] + new + self.text[end:]
        return change

    def apply(self, edits: list[types.TextEdit]) -> str:
        """A server's TextEdits applied, last first (they do not overlap)."""
        spans = sorted(((self.offset(e.range.start), self.offset(e.range.end), e.new_text) for e in edits), reverse=True)
        text = self.text
        for start, end, new in spans:
            text = text[:start] + new + text[end:]
        return text


def change_partial(client: LanguageClient, uri: str, version: int, *changes: types.TextDocumentContentChangePartial) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=list(changes))
    )


# -- a raw stdio client ------------------------------------------------------------------------
class RawServer:
    """`dralint lsp` on pipes, its output parsed strictly: every byte must belong to a well-formed
    message (`Content-Length` and optional `Content-Type` headers, a blank line, a JSON body)."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None):
        self.process = subprocess.Popen(SERVER_COMMAND, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stray: list[bytes] = []  # bytes that were no part of a well-formed message
        self.received: list[dict[str, Any]] = []
        self._next_id = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            line = out.readline()
            if not line:
                return
            length = None
            while line not in (b"\r\n", b""):
                match = re.fullmatch(rb"Content-Length: (\d+)\r\n", line)
                if match:
                    length = int(match.group(1))
                elif not re.fullmatch(rb"Content-Type: [^\r\n]*\r\n", line):
                    self.stray.append(line)
                line = out.readline()
            if length is None:
                self.stray.append(b"<a message without Content-Length>")
                continue
            body = out.read(length)
            try:
                self.messages.put(json.loads(body))
            except ValueError:
                self.stray.append(body)

    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any], header: str = "Content-Length") -> None:
        body = json.dumps(message).encode()
        self.send_bytes(f"{header}: {len(body)}\r\n\r\n".encode() + body)

    def request(self, method: str, params: Any = None, header: str = "Content-Length") -> int:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}, header)
        return self._next_id

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, match: Any, seconds: float = 60) -> dict[str, Any]:
        """The first message (already received or arriving within `seconds`) for which `match(message)` is true."""
        for message in self.received:
            if match(message):
                return message
        while True:
            try:
                message = self.messages.get(timeout=seconds)
            except queue.Empty:
                raise AssertionError(f"no such message in {seconds} s; received {self.received}") from None
            self.received.append(message)
            if match(message):
                return message

    def wait_for(self, condition: Any, seconds: float = 60) -> None:
        """Until `condition()` holds (something the server's processes do outside the stream)."""
        deadline = time.monotonic() + seconds
        while not condition():
            assert time.monotonic() < deadline, f"not so in {seconds} s; received {self.received}"
            time.sleep(0.01)

    def answer(self, msg_id: Any, seconds: float = 60) -> dict[str, Any]:
        return self.wait(lambda m: "method" not in m and m.get("id") == msg_id, seconds)

    def initialize(self, root: Path) -> None:
        ask = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        assert "result" in self.answer(ask)
        self.notify("initialized", {})

    def finish(self, seconds: float = 60) -> tuple[int, str]:
        """Close standard input; the exit code and standard error."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(seconds)
        self._reader.join(seconds)
        assert self.process.stderr is not None
        return code, self.process.stderr.read().decode("utf-8", "replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
