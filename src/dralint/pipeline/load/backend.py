"""The YAML event parser: libyaml's (ruamel.yaml.clib), or ruamel's pure-Python one.

Both produce the same events, and the readers use nothing else of ruamel.
Importing this module imports nothing from ruamel: the parser is imported on
first use, the way dralint.runtime says (with the seam on, without running
``ruamel/yaml/__init__`` and its round-trip machinery; bench/startup.py).
"""

from __future__ import annotations

import os
import types

from ... import runtime
from .cheap_events import cheap_events, uninstall

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Backend", "backend", "current", "c_parser_available", "want_pure"]


class Backend:
    """The parser factory and the event classes of one implementation."""

    __slots__ = ("make_parser", "Scalar", "Alias", "MapStart", "MapEnd", "SeqStart", "SeqEnd", "DocStart",
                 "DocEnd", "StreamEnd", "YAMLError", "pure", "cmod")


_PURE: list[Backend] = []  # the pure-Python backend, built once
_C_PARTS: list[tuple[Any, Any, Any] | None] = []  # (C module, events, error), or None: not importable
_C_BACKENDS: dict[tuple, Backend] = {}  # by the event classes the C module names
_LAST_C: list[Backend | None] = [None]  # the C backend `backend` gave last
_PATCHED = ("ScalarEvent", "MappingStartEvent", "MappingEndEvent", "SequenceStartEvent", "SequenceEndEvent")


def c_parser_available() -> bool:
    """True when the C event parser (ruamel.yaml.clib) is used by default."""
    return not backend(False).pure


def want_pure(pure_python: bool | None) -> bool:
    """Whether to use the pure-Python parser: asked for, or DRALINT_PURE_PYTHON=1."""
    if pure_python is not None:
        return pure_python
    return os.environ.get("DRALINT_PURE_PYTHON", "").strip().lower() in ("1", "true", "yes", "on")


def _pure_parser_factory() -> tuple[Any, Any, Any]:
    loader, events, error = runtime.import_ruamel_parts(["ruamel.yaml.loader", "ruamel.yaml.events", "ruamel.yaml.error"])
    base = loader.BaseLoader

    def make_parser(text: str) -> Any:
        # YAML 1.1, as libyaml and go-yaml v2 read it.
        p = base(text, version=(1, 1))
        # what ruamel.yaml.main would set up: where %YAML / %TAG directives are recorded
        p.doc_infos = [types.SimpleNamespace(doc_version=None, tags=[], requested_version=None)]
        return p

    return make_parser, events, error


def backend(pure: bool) -> Backend:
    """The parser to use now: the C one unless `pure` or it cannot be imported.

    Asked at each load, and by `current` at each later parser creation: the readers test
    event classes by identity, so the C backend is the one for the classes the C module
    names at this moment (dralint's one-frame classes when the runtime seam is on and they
    are still installed; ruamel's own, or whatever a host put back, otherwise).
    """
    if not pure:
        last = _LAST_C[0]
        # What the lines below would answer, in one test: the backend given last still has the classes its
        # module names now, and with the seam on they are the one-frame ones (installed, nothing to do).
        if last is not None and _unchanged(last) and (
                getattr(last.cmod, "_dralint_cheap_events", None) is not None or not runtime.is_enabled()):
            return last
        parts = _c_parts()
        if parts is not None:
            cmod, events, error = parts
            if runtime.is_enabled():
                _install_cheap(cmod, events)
            last = _LAST_C[0] = _c_backend(cmod, events, error)
            return last
    return _pure_backend()


def current(b: Backend) -> Backend:
    """`b`, or the backend for the event classes its C module names now if they changed since."""
    return b if b.cmod is None or _unchanged(b) else backend(False)


def _unchanged(b: Backend) -> bool:
    """Whether the C module of `b` still names the event classes `b` tests for."""
    cmod = b.cmod
    return (cmod.ScalarEvent is b.Scalar and cmod.MappingStartEvent is b.MapStart and cmod.MappingEndEvent is b.MapEnd
            and cmod.SequenceStartEvent is b.SeqStart and cmod.SequenceEndEvent is b.SeqEnd)


def _c_parts() -> tuple[Any, Any, Any] | None:
    if not _C_PARTS:
        try:
            parts = runtime.import_ruamel_parts(["_ruamel_yaml", "ruamel.yaml.events", "ruamel.yaml.error"])
        except ImportError:
            parts = None
        if parts is not None:
            parts = _as_the_c_module_sees_them(*parts)
        _C_PARTS.append(parts)
    return _C_PARTS[0]


def _as_the_c_module_sees_them(cmod: Any, events: Any, error: Any) -> tuple[Any, Any, Any]:
    """The C module with the event and error classes it makes and raises itself.

    They are the ones of the ``ruamel.yaml.events``/``.error`` modules the C module was first
    imported against. Those are not the ones just imported when it was imported earlier, through
    the seam, and the seam's stand-in package was removed with its submodules since (a host
    calling `runtime.import_ruamel_parts`): then the readers, which test classes by identity,
    would never see the stream's end. So the classes are taken from the C module's own events
    module, found through its classes, whenever they differ.
    """
    if cmod.DocumentStartEvent is not events.DocumentStartEvent:
        # DocumentStartEvent is never replaced (cheap_events replaces other events), and its
        # __init__ is defined in the events module the C module imported.
        events = types.SimpleNamespace(**cmod.DocumentStartEvent.__init__.__globals__)
    if cmod.YAMLError is not error.YAMLError:
        error = types.SimpleNamespace(YAMLError=cmod.YAMLError)
    return cmod, events, error


def _install_cheap(cmod: Any, events: Any) -> None:
    """Install the one-frame event classes once per time the seam is on; undone when it is switched off."""
    if getattr(cmod, "_dralint_cheap_events", None) is None and cheap_events(cmod, events) is not None:
        runtime.on_disable(lambda: uninstall(cmod, events))


def _c_backend(cmod: Any, events: Any, error: Any) -> Backend:
    key = tuple(getattr(cmod, name) for name in _PATCHED)
    b = _C_BACKENDS.get(key)
    if b is None:
        b = _common(Backend(), events, error)
        b.make_parser, b.pure, b.cmod = cmod.CParser, False, cmod
        b.Scalar, b.MapStart, b.MapEnd, b.SeqStart, b.SeqEnd = key
        _C_BACKENDS[key] = b
    return b


def _pure_backend() -> Backend:
    if not _PURE:
        b = Backend()
        b.make_parser, events, error = _pure_parser_factory()
        b.pure, b.cmod = True, None
        _common(b, events, error)
        b.Scalar, b.MapStart, b.MapEnd = events.ScalarEvent, events.MappingStartEvent, events.MappingEndEvent
        b.SeqStart, b.SeqEnd = events.SequenceStartEvent, events.SequenceEndEvent
        _PURE.append(b)
    return _PURE[0]


def _common(b: Backend, events: Any, error: Any) -> Backend:
    b.Alias = events.AliasEvent
    b.DocStart = events.DocumentStartEvent
    b.DocEnd = events.DocumentEndEvent
    b.StreamEnd = events.StreamEndEvent
    b.YAMLError = error.YAMLError
    return b
