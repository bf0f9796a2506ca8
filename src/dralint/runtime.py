"""The one seam for process-wide tricks, off unless a front door turns it on.

Switched on (`enable()`), by the front doors that own their process (the CLI, its
``--jobs`` workers, the webhook, the language server):

* ruamel's C parser module gets one-frame event classes (dralint.pipeline.load.cheap_events);
* ruamel's parser modules are imported under a stand-in ``ruamel.yaml`` package, without
  running ``ruamel/yaml/__init__`` (the round-trip machinery a lint never uses);
* the cyclic garbage collector is off while the console script starts (`start_up_paused`) and paused
  while a file loads (`collector_paused`);
* what the process keeps is frozen out of the collector's sight (`freeze`).

Off (the default: `dralint.lint()` called from a host), dralint leaves the process as it
found it: ruamel is imported the ordinary way and used with its own classes, ``sys.modules``
gets nothing but what a plain import adds, and the collector is never switched or frozen.
The readers ask the parser module which event classes it uses each time they create a
parser (dralint.pipeline.load.backend), so a host that puts ruamel's classes back, or a seam
switched off, never makes them misread events.

This module imports nothing from dralint: every layer may consult it.
"""

from __future__ import annotations

import gc
import importlib
import sys
import types

# threading.Lock is _thread's: taken from there, a lint does not import threading (bench/startup.py).
from _thread import allocate_lock

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["enable", "disable", "enabled", "is_enabled", "on_disable", "start_up_paused", "start_up_over", "collector_paused", "freeze", "loads_frozen",
           "import_ruamel_parts", "find_spec"]

_state = {"on": False, "freeze_loads": False, "start_up": False}
_undo: list[Callable[[], None]] = []
_import_lock = allocate_lock()


def enable() -> None:
    """Turn the tricks on for the rest of the process (a front door that owns its process)."""
    _state["on"] = True


def disable() -> None:
    """Turn them off and undo what can be undone (the parser module's classes)."""
    _state["on"] = False
    while _undo:
        _undo.pop()()


def is_enabled() -> bool:
    return _state["on"]


class enabled:  # lower case: `with runtime.enabled():`, as the context manager function it was
    """The tricks on for a block: off again after it, unless they were on before.

    This and `loads_frozen` are classes, not @contextlib.contextmanager functions: a lint does not
    import contextlib (bench/startup.py)."""

    __slots__ = ("_was",)

    def __enter__(self) -> None:
        self._was = _state["on"]
        enable()

    def __exit__(self, *exc_info: object) -> None:
        if not self._was:
            disable()


def on_disable(undo: Callable[[], None]) -> None:
    """Run `undo` when the seam is switched off (what a trick changed in shared state)."""
    _undo.append(undo)


def start_up_paused(collecting: bool) -> None:
    """The console script (dralint.console) turned the collector off before its first import; `collecting`:
    whether it was on. Start-up builds what lives as long as the process (modules, classes, rules and
    their tables): collections then would free nothing. `start_up_over` turns it on again."""
    _state["start_up"] = collecting


def start_up_over() -> None:
    """The end of start-up, called before a front door's work (the first file of a lint, a subcommand, the
    workers): what start-up built frozen out of the collector's sight, the collector on again if start-up
    turned it off. Otherwise nothing, so that every path may call it, and more than once."""
    if _state["start_up"]:
        _state["start_up"] = False
        gc.freeze()
        gc.enable()


def collector_paused(run: Callable[..., Any], *args: Any) -> Any:
    """`run(*args)`, without cyclic garbage collection when the seam is on.

    A load builds thousands of new, acyclic containers and events, which would make the
    collector run over and over, each time over everything loaded before (bench/bench_load.py).
    The collector is in its previous state again when this returns; with the seam off it is
    never touched (a host's own threads may rely on it).
    """
    if not _state["on"]:
        return run(*args)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return run(*args)
    finally:
        if _state["freeze_loads"]:
            # What a load builds is acyclic (plain data, documents, their position tables) and freed by
            # reference counting when its file is done: the collector need not scan it even once.
            gc.freeze()
        if was_enabled:
            gc.enable()


class loads_frozen:
    """While it lasts, and the seam is on, what lives when a load ends is frozen (`freeze`) there and then.
    Only for a run that owns its process to the end (the CLI's), as `freeze` is: a cyclic leftover
    alive at that moment is never collected."""

    __slots__ = ("_was",)

    def __enter__(self) -> None:
        self._was = _state["freeze_loads"]
        _state["freeze_loads"] = True

    def __exit__(self, *exc_info: object) -> None:
        _state["freeze_loads"] = self._was


def freeze() -> None:
    """`gc.freeze()` when the seam is on: what lives so far is never scanned again."""
    if _state["on"]:
        gc.freeze()


# The modules the C parser module (`_ruamel_yaml`) imports only for an error class: its emitter's and
# composer's, which a lint never runs, and the reader's, scanner's and parser's, which libyaml's reader,
# scanner and parser raise in their stead (ruamel's Python reader, scanner and parser never run with the C
# one). Under the stand-in package they are stand-ins too, each with just that class, so that neither they
# nor what they import (ruamel's constructors, scalar types, representers, comments, `datetime`) load.
_STAND_IN_ERRORS = {
    "ruamel.yaml.scanner": ("ScannerError", "MarkedYAMLError"),
    "ruamel.yaml.parser": ("ParserError", "MarkedYAMLError"),
    "ruamel.yaml.composer": ("ComposerError", "MarkedYAMLError"),
    "ruamel.yaml.constructor": ("ConstructorError", "MarkedYAMLError"),
    "ruamel.yaml.emitter": ("EmitterError", "YAMLError"),
    "ruamel.yaml.serializer": ("SerializerError", "YAMLError"),
    "ruamel.yaml.representer": ("RepresenterError", "YAMLError"),
}


def _stand_ins() -> None:
    error = importlib.import_module("ruamel.yaml.error")
    for name, (cls, base) in _STAND_IN_ERRORS.items():
        module = types.ModuleType(name)
        setattr(module, cls, type(cls, (getattr(error, base),), {"__module__": name}))
        sys.modules[name] = module
    reader = sys.modules["ruamel.yaml.reader"] = types.ModuleType("ruamel.yaml.reader")
    reader.ReaderError = _reader_error(error.YAMLError)


def _reader_error(base: type) -> type:
    """ruamel.yaml.reader.ReaderError (ruamel.yaml 0.18), on the YAMLError of the error module the C parser
    module imports: its constructor, which the C module calls, and its message, which a DRA001 quotes."""

    class ReaderError(base):  # type: ignore[misc, valid-type]
        __module__ = "ruamel.yaml.reader"

        def __init__(self, name: Any, position: Any, character: Any, encoding: Any, reason: Any) -> None:
            self.name = name
            self.character = character
            self.position = position
            self.encoding = encoding
            self.reason = reason

        def __str__(self) -> str:
            if isinstance(self.character, bytes):
                return (f"'{self.encoding!s}' codec can't decode byte #x{ord(self.character):02x}: {self.reason!s}\n"
                        f'  in "{self.name!s}", position {self.position:d}')
            return f'unacceptable character #x{self.character:04x}: {self.reason!s}\n  in "{self.name!s}", position {self.position:d}'

    return ReaderError


def find_spec(name: str) -> Any:
    """`importlib.util.find_spec(name)` of a module not imported yet: its package imported, if it has one, then
    each finder of `sys.meta_path` asked in turn, as that function does. Not importlib.util itself, which
    imports contextlib: 4.5 M instructions of a start-up (bench/startup.py)."""
    parent = name.rpartition(".")[0]
    path = None
    if parent:
        package = importlib.import_module(parent)
        path = getattr(package, "__path__", None)
        if path is None:
            raise ModuleNotFoundError(f"__path__ attribute not found on {parent!r} while trying to find {name!r}", name=name)
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, path, None) if find is not None else None
        if spec is not None:
            return spec
    return None


def import_ruamel_parts(names: list[str]) -> list[Any]:
    """The modules `names` (ruamel.yaml submodules, or the C parser module).

    With the seam on and ruamel.yaml not imported yet, a bare package module stands in for
    ``ruamel.yaml`` while the submodules load, then is removed with them, so that a later
    ``import ruamel.yaml`` gets the real package and its own submodules; the returned modules
    stay valid (the C parser module's, with stand-ins for its writer-side error classes:
    `_STAND_IN_ERRORS`). Off, they are imported the ordinary way (the whole ruamel.yaml
    package), which is safe in a threaded host.
    """
    if not _state["on"]:
        return [importlib.import_module(n) for n in names]
    with _import_lock:
        if "ruamel.yaml" in sys.modules:
            return [importlib.import_module(n) for n in names]
        try:
            spec = find_spec("ruamel.yaml")
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            return [importlib.import_module(n) for n in names]
        stub = types.ModuleType("ruamel.yaml")
        stub.__path__ = list(spec.submodule_search_locations)
        stub.__package__ = "ruamel.yaml"
        before = set(sys.modules)
        sys.modules["ruamel.yaml"] = stub
        try:
            if "_ruamel_yaml" in names:
                _stand_ins()
            return [importlib.import_module(n) for n in names]
        finally:
            if sys.modules.get("ruamel.yaml") is stub:
                del sys.modules["ruamel.yaml"]
                for name in set(sys.modules) - before:
                    if name.startswith("ruamel.yaml."):
                        del sys.modules[name]
