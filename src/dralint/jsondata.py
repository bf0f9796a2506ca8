"""The JSON files dralint ships (schemas/, rules/kinds.json), read without importing `json`.

`json` compiles five regular expressions in Python when imported (json.decoder, json.scanner,
json.encoder): about 5 M instructions of every start-up, for files a lint only reads
(bench/startup.py). The C scanner under `json.loads` (`_json.make_scanner`) reads them as well on its
own. What must stay true: `load(path)` is `json.load` of the file, value for value; a file that is not
a single JSON value goes through `json.loads`, which raises what it always raised.
"""

from __future__ import annotations

try:
    from _json import make_scanner
except ImportError:  # an interpreter without json's C accelerator: json.loads, which is as slow then
    make_scanner = None

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

_SPACE = " \t\n\r"  # json.decoder's WHITESPACE


class _Options:
    """What `json.JSONDecoder()` gives its scanner: strict strings, plain dicts, floats and ints."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan = make_scanner(_Options()) if make_scanner is not None else None


def loads(text: str) -> Any:
    """`json.loads(text)` for a str."""
    if _scan is None:
        import json  # noqa: PLC0415

        return json.loads(text)
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        end = -1
    if end < 0 or text[end:].strip(_SPACE):
        import json  # noqa: PLC0415 - only for a file that is no JSON value, to raise json's own error

        return json.loads(text)
    return value


def load(path: str) -> Any:
    """`json.load` of the file at `path` (UTF-8)."""
    with open(path, encoding="utf-8") as f:
        return loads(f.read())
