"""One convention for positions: lines end at ``\\n`` (``\\r\\n`` too), columns count characters.

That is how editors, LSP clients and CI annotations count. YAML parsers count
differently: libyaml and ruamel also break lines at a lone ``\\r``, NEL
(U+0085), LS (U+2028) and PS (U+2029), and put the end of a file without a
final newline on a line of its own. The readers compute positions from the
parser's marks ("parser coordinates"); for the rare text where the two
conventions differ, `LineTable.from_parser` converts, and `LineTable.inside`
keeps every position inside the file.
"""

from __future__ import annotations

from .lazy_re import LazyPattern
from .model import Span

__all__ = ["LineTable"]

_PARSER_BREAK = LazyPattern("\r\n|[\r\n\x85\u2028\u2029]")  # only for text with odd line breaks: compiled on first use


def _has_other_breaks(text: str) -> bool:
    """Whether the text has line breaks the YAML parsers honour and editors do not: a lone CR, NEL, LS, PS.

    String searches, not one regex: an alternation scans a large text many times slower (bench/bench_load.py).
    """
    return ("\x85" in text or "\u2028" in text or "\u2029" in text
            or ("\r" in text and text.count("\r") != text.count("\r\n")))


class LineTable:
    """Where each line of one text starts; built on first use, once per text."""

    __slots__ = ("text", "_starts", "_parser_starts", "odd")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None
        self._parser_starts: list[int] | None = None
        # True when the parser counts lines differently from editors in this text.
        self.odd = _has_other_breaks(text)

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            text = self.text
            starts = [0]
            i = text.find("\n")
            while i != -1:
                starts.append(i + 1)
                i = text.find("\n", i + 1)
            self._starts = starts
        return self._starts

    def line_count(self) -> int:
        """Lines an editor shows, not counting the empty one after a final newline."""
        n = len(self.starts)
        return n - 1 if n > 1 and self.starts[-1] == len(self.text) else n

    def position(self, index: int) -> tuple[int, int]:
        """1-based (line, column) of a character index."""
        import bisect  # noqa: PLC0415 - only once something is positioned, not on a clean file's start-up

        starts = self.starts
        ln = bisect.bisect_right(starts, index) - 1
        return ln + 1, index - starts[ln] + 1

    def index(self, line: int, column: int) -> int | None:
        """Character index of a 1-based (line, column), None when the line does not exist."""
        starts = self.starts
        if not 1 <= line <= len(starts):
            return None
        return starts[line - 1] + column - 1

    def parser_breaks(self, start: int, end: int) -> int:
        """How many line breaks the YAML parser counts in text[start:end]."""
        if not self.odd:
            return self.text.count("\n", start, end)
        return sum(1 for _ in _PARSER_BREAK.finditer(self.text, start, end))

    def from_parser(self, line: int, column: int) -> tuple[int, int]:
        """Convert a 1-based position counted as the parser does into this convention."""
        if not self.odd:
            return line, column
        if self._parser_starts is None:
            self._parser_starts = [0] + [m.end() for m in _PARSER_BREAK.finditer(self.text)]
        starts = self._parser_starts
        if line > len(starts):
            return self.position(len(self.text))
        return self.position(min(starts[line - 1] + column - 1, len(self.text)))

    def clamp(self, line: int, column: int) -> tuple[int, int]:
        """The nearest position inside the text: at most one past the last character of a line."""
        last = self.line_count()
        if line > last:
            return last, self._line_length(last) + 1
        if line < 1:
            return 1, 1
        return line, max(1, min(column, self._line_length(line) + 1))

    def _line_length(self, line: int) -> int:
        starts = self.starts
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        if end > start and self.text[end - 1] == "\r" and end < len(self.text):
            end -= 1  # the \r of a \r\n ends the line too
        return end - start

    def inside(self, span: Span, parser_coordinates: bool = True) -> Span:
        """`span` moved inside the text; converted first when it is counted as the YAML parser does."""
        if parser_coordinates:
            l1, c1 = self.clamp(*self.from_parser(span[0], span[1]))
            l2, c2 = self.clamp(*self.from_parser(span[2], span[3]))
        else:
            l1, c1 = self.clamp(span[0], span[1])
            l2, c2 = self.clamp(span[2], span[3])
        if (l2, c2) < (l1, c1):
            l2, c2 = l1, c1
        result = (l1, c1, l2, c2)
        return span if result == tuple(span) else Span(*result)
