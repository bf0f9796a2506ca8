"""Bytes -> text: UTF-8 (a BOM is dropped), UTF-16/32 with a BOM; binary or invalid data is a DRA004.

kubectl accepts UTF-16 and UTF-32 with a byte order mark too. NUL bytes without
such a BOM mean a binary file. Positions of these problems follow the editors'
convention (lines end at ``\\n``, columns in characters).
"""

from __future__ import annotations

from ...model import Problem, Span
from .result import problem

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Callable

__all__ = ["decode"]

_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_BOM_STARTS = frozenset(bom[:1] for bom, _codec in _BOMS)  # most files start with none of these bytes


def decode(source: str, data: bytes, problems: list[Problem], max_bytes: int, size: int | None = None) -> str | None:
    """The text of `data`, or None with a problem recorded. `size`: the file's own size, when `data` may
    stop at the cap (a reader keeps at most `max_bytes` + 1 bytes, enough to tell the file is too big)."""
    def bad(message: str, line: int = 1, column: int = 1) -> None:
        problems.append(problem("DRA004", message, source, 0, Span.point(line, column)))

    if len(data) > max_bytes:
        if size is None and len(data) == max_bytes + 1:
            what = "the input is"  # a stream cut at the cap: its size is not known
        else:
            what = f"the file is {max(size or 0, len(data))} bytes,"  # one that grew after it was opened: what was read
        problems.append(problem(
            "DRA005", f"{what} more than the {max_bytes // (1024 * 1024)} MiB limit; it was not checked", source, 0, Span.point()))
        return None
    for bom, codec in _BOMS if data[:1] in _BOM_STARTS else ():
        if data.startswith(bom):
            try:
                text = data[len(bom):].decode(codec)
            except UnicodeDecodeError as e:
                bad(f"invalid {codec.upper()} data at byte {e.start + len(bom)} (the file starts with a "
                    f"{codec.upper()} byte order mark)")
                return None
            return _check_text(text, bad)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\0")
    if nul != -1:
        bad("binary file: it contains NUL bytes (first at this position); save it as UTF-8 text",
            *_byte_position(data, nul))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad(f"invalid UTF-8 byte 0x{data[e.start]:02x}; the file must be UTF-8 text", *_byte_position(data, e.start))
        return None
    return _check_text(text, bad)


def _byte_position(data: bytes, index: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, index) + 1
    return data.count(b"\n", 0, index) + 1, len(data[line_start:index].decode("utf-8", "replace")) + 1


def _check_text(text: str, bad: Callable[..., None]) -> str | None:
    if text.startswith("\ufeff"):
        text = text[1:]
    nul = text.find("\0")
    if nul != -1:
        line = text.count("\n", 0, nul) + 1
        col = nul - (text.rfind("\n", 0, nul) + 1) + 1
        bad("binary file: it contains NUL characters (first at this position)", line, col)
        return None
    return text
