"""Formatters: a LintResult in, text out. A formatter never validates anything."""


import importlib
from typing import Callable, NamedTuple

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


def renderer(name: str) -> Callable[..., str]:
    module = importlib.import_module(f"{__name__}.{FORMATS[name]}")
    return module.render
