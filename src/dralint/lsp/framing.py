"""The server's end of standard input/output: LSP base-protocol framing, read by dralint, not pygls.

pygls' reader (pygls.io_.run_async) knows only the header spelled
"Content-Length: N" (a lowercase one desynchronises the stream), reads a body of
any announced size into memory (Content-Length: 10**12 ends the server with a
MemoryError), and drops without an answer a request it cannot structure (a
position with line -1), leaving the client waiting. Here:

- header names are matched case-insensitively and header lines are bounded;
- a body over MAX_BODY is answered with an InvalidRequest error (id null, the
  request's own id is in the unread body) and skipped in chunks as it arrives,
  so the stream stays in step and memory stays bounded;
- a body that is not JSON gets a ParseError; a request that does not fit its
  LSP types an InvalidParams error with its own id;
- the stream is moved off file descriptors 0 and 1, which then point at
  /dev/null and standard error: nothing else in the process (a rule's print(),
  a child process) can read from the stream or write into it;
- the exit code is the one the LSP asks for: 0 after `shutdown` then `exit`,
  1 for `exit` without `shutdown` or for the end of input without `exit`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading

from lsprotocol import types
from pygls.io_ import StdoutWriter

from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Iterator

logger = logging.getLogger(__name__)

MAX_BODY = 64 * 1024 * 1024  # a 16 MiB manifest (the CLI's cap) even if every character is escaped
MAX_HEADER_LINE = 8192
_CHUNK = 1024 * 1024


class Refused(NamedRecord):
    """A message not read: why (the client is told, with id null)."""

    __slots__ = ()

    def __new__(_cls, reason: str) -> "Refused":
        return tuple_new(_cls, (reason,))


def frames(stream: BinaryIO) -> Iterator[bytes | Refused]:
    """Message bodies from `stream`, or Refused for a message that could not be taken; stops at the end of input."""
    while True:
        length: int | None = None
        reason = None
        seen = False
        while True:
            line = stream.readline(MAX_HEADER_LINE)
            if not line:
                return
            if not line.endswith(b"\n"):  # a header line over the limit: skip the rest of it
                reason = reason or f"a header line longer than {MAX_HEADER_LINE} bytes"
                while line and not line.endswith(b"\n"):
                    line = stream.readline(MAX_HEADER_LINE)
                seen = True
                continue
            if not line.strip():
                if seen:
                    break
                continue  # blank lines between messages
            seen = True
            name, colon, value = line.partition(b":")
            if colon and name.strip().lower() == b"content-length":
                digits = value.strip()
                if digits.isdigit() and len(digits) <= 20:
                    length = int(digits)
                else:
                    reason = reason or f"Content-Length {digits[:40].decode('ascii', 'replace')!r} is not a number"
        if reason is None and length is None:
            reason = "a message without a Content-Length header"
        if reason is not None:
            yield Refused(reason)
            continue
        assert length is not None
        if length > MAX_BODY:
            yield Refused(f"a message of {length} bytes, over the limit of {MAX_BODY}; it is skipped")
            if not _skip(stream, length):
                return
            continue
        body = stream.read(length)
        if len(body) < length:
            return
        yield body


def _skip(stream: BinaryIO, length: int) -> bool:
    while length > 0:
        chunk = stream.read(min(length, _CHUNK))
        if not chunk:
            return False
        length -= len(chunk)
    return True


def answer_error(protocol: Any, msg_id: Any, code: int, message: str) -> None:
    if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
        msg_id = None
    # A plain dict: pygls' converter would leave out an id of None, which JSON-RPC requires as null.
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": int(code), "message": message}})


def dispatch(protocol: Any, body: bytes) -> None:
    """One message body: parsed, structured into its LSP type, and handed to pygls; an error answered otherwise."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        answer_error(protocol, None, types.ErrorCodes.ParseError, f"not JSON: {type(exc).__name__}: {exc}")
        return
    if not isinstance(data, dict) or "jsonrpc" not in data:
        answer_error(protocol, data.get("id") if isinstance(data, dict) else None, types.ErrorCodes.InvalidRequest, "not a JSON-RPC 2.0 message")
        return
    try:
        message = protocol.structure_message(data)
    except Exception as exc:  # noqa: BLE001  pygls raises its own errors wrapping cattrs'
        cause = exc.__cause__ or exc
        if "id" in data and "method" in data:
            answer_error(protocol, data["id"], types.ErrorCodes.InvalidParams, f"invalid params for {data['method']}: {cause}")
        else:
            logger.warning("dropped a message that does not fit its LSP type: %s", cause)
        return
    protocol.handle_message(message)


def claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The LSP stream, moved to private file descriptors; 0 becomes /dev/null and 1 standard error."""
    sys.stdout.flush()
    stream_in, stream_out = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return os.fdopen(stream_in, "rb"), os.fdopen(stream_out, "wb")


def serve(server: Any, stream_in: BinaryIO, stream_out: BinaryIO) -> int:
    """Run `server` (a pygls LanguageServer) on the stream until `exit` or the end of input; the exit code."""
    server.protocol.set_writer(StdoutWriter(stream_out))
    return asyncio.run(_run(server.protocol, stream_in))


async def _run(protocol: Any, stream: BinaryIO) -> int:
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[int] = loop.create_future()

    def finish(code: int) -> None:
        if not finished.done():
            finished.set_result(code)

    async def handle(item: bytes | Refused) -> None:
        try:
            if isinstance(item, Refused):
                answer_error(protocol, None, types.ErrorCodes.InvalidRequest, item.reason)
            else:
                dispatch(protocol, item)
        except SystemExit as exc:  # pygls' `exit` handler: 0 after shutdown, else 1
            finish(exc.code if isinstance(exc.code, int) else 1)
        except Exception:  # noqa: BLE001  one message must not end the server
            logger.exception("could not handle a message")

    def read() -> None:
        try:
            for item in frames(stream):
                if finished.done():
                    return
                # One message at a time, as it is handed over: a request's effects (didChange) are in
                # place before the next message is read.
                asyncio.run_coroutine_threadsafe(handle(item), loop).result()
        except Exception:  # noqa: BLE001  a closed loop or stream: the server is ending anyway
            logger.debug("reader stopped", exc_info=True)
        finally:
            try:
                loop.call_soon_threadsafe(finish, 0 if protocol._shutdown else 1)
            except RuntimeError:  # the loop is already closed
                pass

    threading.Thread(target=read, name="dralint-lsp-reader", daemon=True).start()
    return await finished
