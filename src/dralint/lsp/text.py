"""An editor buffer as the language server keeps it: LSP lines, dralint lines, positions in both.

LSP lines end only at "\\n", "\\r\\n" and "\\r"; `str.splitlines` (which pygls
uses) also splits at NEL, LS, PS, VT, FF and FS..RS, characters that are valid
inside a quoted YAML or JSON string, and so put every later edit one line off.
dralint's own positions count "\\n" only (a CR-only file is one long line to
them, as to the CLI). Both are mapped through absolute offsets (code points
into the text), so neither line convention leaks into the other.

`Buffer` replaces pygls' TextDocument in the workspace: it applies incremental
edits by offset and never reads a file from disk (a request naming a document
the client never opened gets nothing, not the contents of that path).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, pairwise
from urllib.parse import unquote

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

_BREAK = re.compile(r"\r\n|\r|\n")
UTF8, UTF16, UTF32 = types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf32


def units(text: str, encoding: str) -> int:
    """Length of `text` in the client's code units."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _width(char: str, encoding: str) -> int:
    point = ord(char)
    if encoding == UTF8:
        return 1 if point < 0x80 else 2 if point < 0x800 else 3 if point < 0x10000 else 4
    return 2 if point > 0xFFFF else 1


def _newline_starts(text: str) -> list[int]:
    """Offset of the first character of each line, lines ending at "\\n" (a C split, not a regex: a
    large buffer's table is built for every version)."""
    starts = [0, *accumulate(len(line) + 1 for line in text.split("\n"))]
    starts.pop()
    return starts


class Text:
    """One version of a buffer's text with its line tables, built on first use. Immutable."""

    __slots__ = ("text", "encoding", "_lsp", "_nl")

    def __init__(self, text: str, encoding: str = UTF16):
        self.text = text
        self.encoding = encoding if encoding in (UTF8, UTF16, UTF32) else UTF16
        self._lsp: list[int] | None = None
        self._nl: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        """Offset of the first character of each LSP line (a final line break opens an empty last line)."""
        if self._lsp is None:
            # Without a CR the LSP's lines are dralint's.
            self._lsp = self._nl_starts() if "\r" not in self.text else [0, *(m.end() for m in _BREAK.finditer(self.text))]
        return self._lsp

    def _nl_starts(self) -> list[int]:
        if self._nl is None:
            self._nl = _newline_starts(self.text)
        return self._nl

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_end(self, line: int) -> int:
        """Offset just past the content of LSP line `line` (before its line break)."""
        starts = self.starts
        if line + 1 >= len(starts):
            return len(self.text)
        end = starts[line + 1]
        return end - 2 if self.text.startswith("\r\n", end - 2) else end - 1

    def line_text(self, line: int) -> str:
        """LSP line `line` without its break ("" past the end)."""
        if not 0 <= line < self.line_count:
            return ""
        return self.text[self.starts[line] : self.line_end(line)]

    # -- LSP positions ------------------------------------------------------------------
    def offset(self, position: types.Position) -> int:
        """The offset of a client position; a line or character past its end means that end (LSP says so)."""
        if position.line >= self.line_count:
            return len(self.text)
        start, end = self.starts[position.line], self.line_end(position.line)
        wanted = position.character
        if self.encoding == UTF32 or self.text[start:end].isascii():
            return min(start + wanted, end)
        at, counted = start, 0
        while at < end and counted < wanted:
            counted += _width(self.text[at], self.encoding)
            at += 1
        return at

    def position(self, offset: int) -> types.Position:
        """The client position of an offset, inside the document: never past a line's content."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        offset = min(offset, self.line_end(line))  # between "\r" and "\n": the end of that line
        return types.Position(line=line, character=units(self.text[start:offset], self.encoding))

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(max(start, end)))

    # -- dralint positions (1-based, lines at "\n" only, columns in code points) ---------
    def from_dralint(self, line: int, column: int) -> int:
        nl = self._nl_starts()
        if line < 1:
            return 0
        if line > len(nl):
            return len(self.text)
        start = nl[line - 1]
        end = nl[line] - 1 if line < len(nl) else len(self.text)
        return min(start + max(column, 1) - 1, end)

    def to_dralint(self, offset: int) -> tuple[int, int]:
        nl = self._nl_starts()
        line = bisect_right(nl, offset) - 1
        return line + 1, offset - nl[line] + 1

    def span_range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        """A dralint span (end exclusive) as a client range."""
        start = self.from_dralint(line, column)
        end = self.from_dralint(max(end_line, line), end_column)
        return self.range(start, end)

    def dralint_at(self, position: types.Position) -> tuple[int, int]:
        """A client position as dralint's (line, column)."""
        return self.to_dralint(self.offset(position))

    def edited(self, change: types.TextDocumentContentChangeEvent) -> "Text":
        """The text after one didChange content change; its line table carried over from this one's
        where no CR is involved (only the lines after the edit move)."""
        if not isinstance(change, types.TextDocumentContentChangePartial):
            return Text(change.text, self.encoding)
        start, end = self.offset(change.range.start), self.offset(change.range.end)
        start, end = min(start, end), max(start, end)
        edited = Text(self.text[:start] + change.text + self.text[end:], self.encoding)
        old = self._nl
        if old is not None and self._lsp is old and "\r" not in change.text and "\r" not in edited.text:
            delta = len(change.text) - (end - start)
            added = [start + at + 1 for at, char in enumerate(change.text) if char == "\n"] if "\n" in change.text else []
            after = old[bisect_right(old, end) :]
            edited._nl = edited._lsp = [*old[: bisect_right(old, start)], *added, *([s + delta for s in after] if delta else after)]
        return edited


class Buffer(TextDocument):
    """pygls' TextDocument with LSP line breaks and no reading from disk (see the module docstring)."""

    def __init__(self, uri: str, source: str | None = None, version: int | None = None, language_id: str | None = None, encoding: str = UTF16, **_: Any):
        super().__init__(uri, source=source or "", version=version, language_id=language_id)
        self.encoding = encoding
        self._text: Text | None = None

    @property
    def source(self) -> str:
        return self._source or ""

    @property
    def text(self) -> Text:
        """The current version's text and line tables (kept until the next change)."""
        if self._text is None or self._text.text is not self.source:
            self._text = Text(self.source, self.encoding)
        return self._text

    @property
    def lines(self) -> tuple[str, ...]:  # pygls' interface: LSP lines, each with its break
        text = self.text
        bounds = [*text.starts, len(text.text)]
        return tuple(text.text[a:b] for a, b in pairwise(bounds) if a < b)

    def apply_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        self._text = self.text.edited(change)
        self._source = self._text.text


class BufferWorkspace(Workspace):
    """pygls' Workspace holding Buffers; a URI the client has not opened is no document at all."""

    def __init__(self, workspace: Workspace):
        super().__init__(workspace.root_uri, workspace._sync_kind, list(workspace.folders.values()), workspace.position_encoding)

    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None, language_id: str | None = None) -> Buffer:
        return Buffer(doc_uri, source=source, version=version, language_id=language_id, encoding=self.position_encoding or UTF16)

    def get_text_document(self, doc_uri: str) -> Buffer | None:  # type: ignore[override]
        # Keyed as pygls keys them: by the unquoted URI ("a%20b.yaml" is stored as "a b.yaml").
        return self.text_documents.get(unquote(doc_uri))  # type: ignore[return-value]

    def update_text_document(self, text_doc: types.VersionedTextDocumentIdentifier, change: types.TextDocumentContentChangeEvent) -> None:
        buffer = self.get_text_document(text_doc.uri)
        if buffer is None:  # a change to a document never opened: nothing to apply it to
            return
        buffer.apply_change(change)
        buffer.version = text_doc.version
