"""Formatters: a LintResult in, text out. A formatter never validates anything."""


import importlib
from typing import Any, Callable, NamedTuple, TextIO

# name -> module in this package; imported only when chosen, to keep start-up fast.
FORMATS = {
    "text": "text",
    "json": "json_format",
    "sarif": "sarif",
    "github": "github",
    "junit": "junit",
}


class ReportOptions(NamedTuple):
    color: bool = False
    show_source: bool = False  # quote the offending line with a caret (text, on a TTY)
    quiet: bool = False


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
