"""`dralint lsp` against what no well-behaved client sends: a raw client on the server's pipes
(lsp_helpers.RawServer) writes the framing by hand and reads every byte the server writes."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from lsp_helpers import RawServer  # noqa: E402

from dralint.lsp.framing import MAX_BODY  # noqa: E402

INVALID_REQUEST, INVALID_PARAMS = -32600, -32602


@pytest.fixture
def server(tmp_path: Path):
    raw = RawServer(tmp_path)
    yield raw
    raw.kill()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory):
    """One server for the tests after which it goes on serving, initialized with a lowercase header."""
    root = tmp_path_factory.mktemp("workspace")
    raw = RawServer(root)
    asked = raw.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}, header="content-length")
    raw.initialized = raw.answer(asked)
    raw.notify("initialized", {})
    yield raw
    raw.kill()


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "MemoryError" not in stderr, stderr


def test_a_huge_content_length_is_refused_and_the_server_lives(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    server.send_bytes(b"Content-Length: 1000000000000\r\n\r\n{")
    refused = server.wait(lambda m: "error" in m)
    assert refused["id"] is None and refused["error"]["code"] == INVALID_REQUEST
    assert refused["error"]["message"] == f"a message of 1000000000000 bytes, over the limit of {MAX_BODY}; it is skipped"
    assert server.process.poll() is None
    code, stderr = server.finish()
    assert code == 1  # the end of input, without shutdown and exit
    _no_traceback(stderr)
    assert server.stray == []


def test_a_body_over_the_limit_is_skipped_and_the_next_request_answered(shared: RawServer):
    server = shared
    errors = len([m for m in server.received if "error" in m])
    server.send_bytes(f"Content-Length: {MAX_BODY + 1}\r\n\r\n".encode())
    chunk = b" " * (1 << 20)
    for _ in range(MAX_BODY // len(chunk)):
        server.send_bytes(chunk)
    server.send_bytes(b" ")
    asked = server.request("workspace/symbol", {"query": ""})
    assert server.answer(asked)["error"]["code"] == -32601  # method not found: the stream is in step again
    assert [m["error"]["code"] for m in server.received if "error" in m][errors:] == [INVALID_REQUEST, -32601]


def test_a_lowercase_content_length_header_is_read(shared: RawServer):
    assert shared.initialized["result"]["serverInfo"]["name"] == "dralint"
    asked = shared.request("workspace/symbol", {"query": ""}, header="CONTENT-LENGTH")
    assert shared.answer(asked)["error"]["code"] == -32601


def test_a_negative_line_gets_an_invalid_params_answer(shared: RawServer, tmp_path: Path):
    server = shared
    uri = (tmp_path / "a.yaml").as_uri()
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": "kind: ResourceClaim\n"}})
    asked = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": -1, "character": 0}})
    answer = server.answer(asked)
    assert answer["error"]["code"] == INVALID_PARAMS and answer["error"]["message"].startswith("invalid params for textDocument/hover")
    asked = server.request("dralint/bufferText", {"uri": uri})
    assert server.answer(asked)["result"] == "kind: ResourceClaim\n"  # and the server goes on


def test_a_body_that_is_not_json_gets_a_parse_error(shared: RawServer):
    server = shared
    seen = len(server.received)
    server.send_bytes(b"Content-Length: 9\r\n\r\n{\"id\": 1,")
    refused = server.wait(lambda m: "error" in m and m not in server.received[:seen])
    assert refused["id"] is None and refused["error"]["code"] == -32700


def test_exit_without_shutdown_exits_1(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    server.notify("exit")
    assert server.process.wait(60) == 1


def test_shutdown_then_exit_exits_0_and_requests_between_get_an_error(server: RawServer, tmp_path: Path):
    server.initialize(tmp_path)
    uri = (tmp_path / "a.yaml").as_uri()
    asked = server.request("shutdown")
    assert "result" in server.answer(asked)
    asked = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    answer = server.answer(asked)
    assert answer["error"] == {"code": INVALID_REQUEST, "message": "textDocument/hover: the server is shut down"}
    server.notify("exit")
    assert server.process.wait(60) == 0
    assert server.stray == []


STUCK = textwrap.dedent('''
    import os
    import time

    from dralint.api import rule


    @rule("LOCAL002", "stuck", severity="info")
    def stuck(doc, report):
        """In a document annotated with a folder: leaves its process's id there, then waits for `go` in it."""
        folder = doc.get("metadata", "annotations", "test.example.com/pids")
        if folder:
            open(os.path.join(folder, str(os.getpid())), "w").close()
            while not os.path.exists(os.path.join(folder, "go")):
                time.sleep(0.01)
''')


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_exit_ends_the_lint_and_fix_processes_in_the_middle_of_their_requests(tmp_path: Path):
    """A lint and a fix-all that never finish (held in a rule) do not outlive the server, nor hold up its
    exit: its lint process and its fix process, each inside the rule (each left its id), are gone once
    `exit` has ended the server, long before their requests' time limit would have stopped them."""
    server = RawServer(tmp_path, env={"DRALINT_LSP_TIMEOUT_S": "3600"})
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "stuck.py").write_text(STUCK, encoding="utf-8")
    (tmp_path / ".dralint.yaml").write_text("rules-dirs: [rules]\n", encoding="utf-8")
    pids = tmp_path / "pids"
    pids.mkdir()
    text = f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: a\n  annotations:\n    test.example.com/pids: {pids}\n"
    uri = (tmp_path / "a.yaml").as_uri()
    try:
        server.initialize(tmp_path)
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
        server.wait_for(lambda: len(os.listdir(pids)) == 1)  # the lint process, held
        at = {"line": 0, "character": 0}
        server.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": at, "end": at}, "context": {"diagnostics": [], "only": ["source.fixAll"]}})
        server.wait_for(lambda: len(os.listdir(pids)) == 2)  # and the fix process, held
        held = [int(name) for name in os.listdir(pids)]
        assert "result" in server.answer(server.request("shutdown"))
        server.notify("exit")
        assert server.process.wait(60) == 0
        assert [pid for pid in held if _running(pid)] == []
    finally:
        (pids / "go").touch()  # a process left behind would end now
        server.kill()
