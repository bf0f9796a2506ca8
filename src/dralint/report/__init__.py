"""Formatters: a LintResult in, text out. A formatter never validates anything."""

from __future__ import annotations

import importlib

from ..records import NamedRecord, tuple_new

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable, TextIO

# name -> module in this package; imported only when chosen, to keep start-up fast.
FORMATS = {
    "text": "text",
    "json": "json_format",
    "sarif": "sarif",
    "github": "github",
    "junit": "junit",
}


class ReportOptions(NamedRecord):
    __slots__ = ()

    def __new__(
        _cls,
        color: bool = False,
        show_source: bool = False,  # quote the offending line with a caret (text, on a TTY)
        quiet: bool = False,
    ) -> "ReportOptions":
        return tuple_new(_cls, (color, show_source, quiet))


def printable(text: str) -> str:
    """`text` with every character that is not printable written as an escape (`\\x1b`, `\\n`, `\\u202e`), for
    the formats a terminal or a log shows: a name in a manifest must not clear the screen, set the window
    title or start a line that looks like a problem of its own. A byte of a file name that is not UTF-8
    (held as a surrogate escape) is shown as the byte, `\\xff`."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else escape(ch) for ch in text)


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape(ch: str) -> str:
    """One character as an escape: its name (`\\n`), its byte (a surrogate escape) or its code point."""
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def reads(name: str, options: ReportOptions) -> frozenset[str]:
    """What format `name` reads of a LintResult besides its problems (LintOptions.keep): the lint run
    lets the rest go file by file. Text quotes source lines (texts) when it shows them; JUnit lists
    every object (objects); JSON and SARIF carry fixes."""
    if name == "text":
        return frozenset({"texts"}) if options.show_source else frozenset()
    if name == "junit":
        return frozenset({"objects"})
    if name in ("json", "sarif"):
        return frozenset({"fixes"})
    return frozenset()


def renderer(name: str) -> Callable[..., str]:
    module = importlib.import_module(f"{__name__}.{FORMATS[name]}")
    return module.render


def write(name: str, result: Any, options: ReportOptions, out: TextIO) -> None:
    """Write the report to `out` piece by piece where the format allows (json, github, text): a run with
    160,000 problems would otherwise hold the whole report twice, as lines and as one string."""
    module = importlib.import_module(f"{__name__}.{FORMATS[name]}")
    pieces = getattr(module, "pieces", None)
    if pieces is None:
        out.write(module.render(result, options))
        return
    for piece in pieces(result, options):
        out.write(piece)
