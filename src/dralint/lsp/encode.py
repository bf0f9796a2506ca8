"""A buffer's text as the bytes the linter reads.

Kept apart from dralint.lsp.text, which needs lsprotocol and pygls: the lint process
(dralint.lsp.worker) starts with every server and again after every timeout, and imports no
LSP library, only this and the engine.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def lintable(text: str) -> bytes:
    """The buffer as UTF-8 for the linter. A lone surrogate (a client may send one, JSON can carry it)
    cannot be encoded: it becomes U+FFFD, one code point for one, so every position stays where it was."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode("utf-8")
