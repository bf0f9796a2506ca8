"""`.dralint.yaml` files as the loader read them, remembered by their bytes.

Every run in a project with a config file reads it before any file. Loading it is a YAML load: the
loader package and ruamel's C parser, a large part of a pre-commit hook's start-up
(bench/startup.py, the rows with a config). What dralint.config uses of the loaded document is small
and plain: the data, the text, and where each top-level key and value stands (`ConfigFile.where`,
`ConfigFile.source_text`). So a config that loaded without a problem is remembered, and the next run
that finds the same bytes at the same path rebuilds that document without the loader.

One file per config path, `config-<hash of the path>.memo` in the user's cache folder
(dralint.cache: `DRALINT_CACHE_DIR`; `DRALINT_NO_CACHE=1` turns it off), replaced when the config's
bytes change. It is not trusted, with the verdict cache's care: it holds a seal, a keyed BLAKE2b with
the caches' own key over the rest of the file, and that rest names dralint's version and the loader's
and model's code (sizes and modification times) and a digest of the config's bytes. A memo whose seal,
code or bytes do not match, or that is not the shape this module writes, is not used: the config is
loaded. A config that does not load cleanly is never remembered, so its errors are the loader's, told
from the file itself, every time. The hit is read and checked without importing `json`
(dralint.jsondata), as a clean lint imports none.
"""

from __future__ import annotations

import os

from . import jsondata
from .cache import KEY_FILE, _read_key, _secret, blake2b, cache_dir, code_fingerprint, compare_digest, read_regular, write_private
from .model import Document, Node, Span

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["recall", "remember"]

MAX_BYTES = 16 * 1024  # a config larger than this is loaded each time (one is a few hundred bytes)
MAX_MEMO_BYTES = 16 * MAX_BYTES  # its memo: the text and the data, six bytes a character where JSON escapes it
_PERSON = b"dralint-config"


def _fingerprint() -> str:
    """dralint's version and the code whose answer the memo keeps: the loader's, the model's, this module's."""
    here = os.path.dirname(os.path.abspath(__file__))
    load = os.path.join(here, "pipeline", "load")
    try:
        names = sorted(n for n in os.listdir(load) if n.endswith(".py"))
    except OSError:
        names = []
    code = [os.path.join(here, "model.py"), os.path.join(here, "config_memo.py")]
    return code_fingerprint(*code, *(os.path.join(load, n) for n in names))


def _place(path: str, data: bytes) -> tuple[str, str] | None:
    """(the memo file of the config at `path`, its folder), or None: no cache folder, or too large a config."""
    folder = cache_dir()
    if folder is None or len(data) > MAX_BYTES:
        return None
    name = blake2b(os.path.abspath(path).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
    return os.path.join(folder, f"config-{name}.memo"), folder


def _seal(secret: bytes, payload: bytes) -> bytes:
    return blake2b(payload, key=secret, digest_size=32, person=_PERSON).hexdigest().encode()


def recall(path: str, data: bytes) -> Document | None:
    """The document `data` loaded to when a run read these bytes at `path` before; None when not known."""
    place = _place(path, data)
    raw = read_regular(place[0], MAX_MEMO_BYTES, "config memo") if place is not None else None
    secret = _read_key(os.path.join(place[1], KEY_FILE)) if raw else b""
    if not secret:
        return None
    seal, _, payload = raw.partition(b"\n")
    if not compare_digest(seal, _seal(secret, payload)):
        return None
    try:
        entry = jsondata.loads(payload.decode("utf-8", "surrogatepass"))
        if entry["fingerprint"] != _fingerprint() or entry["bytes"] != blake2b(data, digest_size=32).hexdigest():
            return None
        positions: dict[tuple, Node] = {}
        for key, key_span, value_span in entry["nodes"]:
            if key is not None and not isinstance(key, str):
                return None
            positions[() if key is None else (key,)] = Node(None if key_span is None else _span(key_span), _span(value_span))
        text, value = entry["text"], entry["data"]
        if not isinstance(text, str) or not isinstance(value, dict) or () not in positions:
            return None
    except (KeyError, TypeError, ValueError, RecursionError):
        return None
    return Document(str(path), 0, value, positions, text)


def remember(path: str, data: bytes, document: Document) -> None:
    """Keep what dralint.config uses of `document`, the clean load of `data` at `path`."""
    place = _place(path, data)
    if place is None or not isinstance(document.data, dict) or document.text is None:
        return
    nodes: list[list[Any]] = []
    for key in [None, *document.data]:
        node = document.positions.get(() if key is None else (key,))
        if node is not None:
            nodes.append([key, None if node.key is None else list(node.key), list(node.value)])
    entry = {"fingerprint": _fingerprint(), "bytes": blake2b(data, digest_size=32).hexdigest(),
             "data": document.data, "text": document.text, "nodes": nodes}
    import json  # noqa: PLC0415 - only a config met for the first time

    try:
        payload = json.dumps(entry, separators=(",", ":")).encode("utf-8", "surrogatepass")
        # Only what JSON gives back as it was (a NaN, say, does not compare equal to itself: loaded each time).
        if json.loads(payload) != entry or len(payload) + 65 > MAX_MEMO_BYTES:
            return
    except (TypeError, ValueError, RecursionError):
        return
    secret = _secret(place[1])
    if not secret:
        return
    try:
        write_private(place[0], _seal(secret, payload) + b"\n" + payload)
    except OSError:
        pass  # a read-only home or a full disk only costs speed


def _span(value: Any) -> Span:
    line, column, end_line, end_column = value
    if not all(type(n) is int for n in value):
        raise ValueError(value)
    return Span(line, column, end_line, end_column)
