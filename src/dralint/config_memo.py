"""`.dralint.yaml` files as the loader read them, remembered by their bytes.

Every run in a project with a config file reads it before any file. Loading it is a YAML load: the
loader package and ruamel's C parser with the Python modules it imports, about a quarter of the
instructions of a pre-commit hook's re-run the result cache answers whole (bench/startup.py). What
dralint.config uses of the loaded document is small and plain: the data, the text, and where each
top-level key and value stands (`ConfigFile.where`, `ConfigFile.source_text`). So a config that
loaded without a problem is remembered under its path and bytes, and the next run with the same
bytes rebuilds that document without the loader.

The memo is one more verdict cache of dralint.cache, with its care: it lives in the user's cache
folder (`DRALINT_CACHE_DIR`; `DRALINT_NO_CACHE=1` turns it off), its file is keyed by dralint's
version and the loader's and model's code (sizes and modification times), and each entry is sealed
with the cache's own key. An entry that does not verify, or that is not the shape this module
writes, is not used: the config is loaded. A config that does not load cleanly is never
remembered, so its errors are the loader's, told from the file itself, every time.
"""

from __future__ import annotations

import os

from .cache import VerdictCache, code_fingerprint
from .model import Document, Node, Span

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["recall", "remember"]

MAX_BYTES = 16 * 1024  # a config larger than this is loaded each time (one is a few hundred bytes)
MAX_CONFIGS = 32  # entries kept before the memo starts again (each edit of a config adds one); at most
# 32 x 2 x 16 KiB, six bytes a character where JSON escapes it: within dralint.cache.MAX_BYTES

_memo: list[VerdictCache | None] = []  # built on first use in a process


def _cache() -> VerdictCache | None:
    if not _memo:
        here = os.path.dirname(os.path.abspath(__file__))
        load = os.path.join(here, "pipeline", "load")
        try:
            names = sorted(n for n in os.listdir(load) if n.endswith(".py"))
        except OSError:
            names = []
        code = [os.path.join(here, "model.py"), os.path.join(here, "config_memo.py")]
        cache = VerdictCache("config", code_fingerprint(*code, *(os.path.join(load, n) for n in names)),
                             max_entries=MAX_CONFIGS)
        _memo.append(cache if cache.enabled else None)
    return _memo[0]


def _key(path: str, data: bytes) -> str:
    # latin-1 maps each byte to one character: the key is of the exact bytes, whatever their encoding.
    return VerdictCache.key(os.path.abspath(path), data.decode("latin-1"))


def recall(path: str, data: bytes) -> Document | None:
    """The document `data` loaded to when a run read these bytes at `path` before; None when not known."""
    cache = _cache() if len(data) <= MAX_BYTES else None
    entry = cache.get(_key(path, data)) if cache is not None else None
    if not isinstance(entry, dict):
        return None
    try:
        positions: dict[tuple, Node] = {}
        for key, key_span, value_span in entry["nodes"]:
            if key is not None and not isinstance(key, str):
                return None
            positions[() if key is None else (key,)] = Node(None if key_span is None else _span(key_span), _span(value_span))
        text, value = entry["text"], entry["data"]
        if not isinstance(text, str) or not isinstance(value, dict) or () not in positions:
            return None
    except (KeyError, TypeError, ValueError):
        return None
    return Document(str(path), 0, value, positions, text)


def remember(path: str, data: bytes, document: Document) -> None:
    """Keep what dralint.config uses of `document`, the clean load of `data` at `path`."""
    cache = _cache() if len(data) <= MAX_BYTES else None
    if cache is None or not isinstance(document.data, dict) or document.text is None:
        return
    nodes: list[list[Any]] = []
    for key in [None, *document.data]:
        node = document.positions.get(() if key is None else (key,))
        if node is not None:
            nodes.append([key, None if node.key is None else list(node.key), list(node.value)])
    entry = {"data": document.data, "text": document.text, "nodes": nodes}
    import json  # noqa: PLC0415 - only a config met for the first time: the cache's seal imports it anyway

    try:
        # Only what JSON gives back as it was (a NaN, say, does not compare equal to itself: loaded each time).
        if json.loads(json.dumps(entry)) != entry:
            return
    except (TypeError, ValueError, RecursionError):
        return
    cache.put(_key(path, data), entry)


def _span(value: Any) -> Span:
    line, column, end_line, end_column = value
    if not all(type(n) is int for n in value):
        raise ValueError(value)
    return Span(line, column, end_line, end_column)
