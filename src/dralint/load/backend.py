"""The YAML event parser: libyaml's (ruamel.yaml.clib), or ruamel's pure-Python one.

Both produce the same events, and the readers use nothing else of ruamel.
Importing this module imports nothing from ruamel: the parser is imported on
first use, and without running ``ruamel/yaml/__init__`` (which imports the
round-trip machinery in ``ruamel.yaml.main``, ~10 ms of a hook's start-up).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types
from typing import Any

from .cheap_events import cheap_events

__all__ = ["Backend", "backend", "c_parser_available", "want_pure"]


class Backend:
    """The parser factory and the event classes of one implementation."""

    __slots__ = ("make_parser", "Scalar", "Alias", "MapStart", "MapEnd", "SeqStart", "SeqEnd", "DocStart",
                 "DocEnd", "StreamEnd", "YAMLError", "pure")


_BACKENDS: dict[bool, Backend] = {}


def _import_ruamel_parts(names: list[str]) -> list[Any]:
    """Import ruamel.yaml submodules without running ruamel/yaml/__init__.py.

    When ruamel.yaml is not imported yet, a bare package module stands in for
    it while the submodules load, then is removed again so that a later
    `import ruamel.yaml` gets the real package.
    """
    if "ruamel.yaml" in sys.modules:
        return [importlib.import_module(n) for n in names]
    try:
        spec = importlib.util.find_spec("ruamel.yaml")
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
        return [importlib.import_module(n) for n in names]
    finally:
        if sys.modules.get("ruamel.yaml") is stub:
            del sys.modules["ruamel.yaml"]
            # The submodules loaded under the stub are attributes of the stub, not
            # of the real package; a later `import ruamel.yaml` (migrate, plugins)
            # must load its own copies or `ruamel.yaml.emitter` would be missing.
            # This parser keeps the references it already holds.
            for name in set(sys.modules) - before:
                if name.startswith("ruamel.yaml."):
                    del sys.modules[name]


def c_parser_available() -> bool:
    """True when the C event parser (ruamel.yaml.clib) is used by default."""
    return not backend(False).pure


def want_pure(pure_python: bool | None) -> bool:
    """Whether to use the pure-Python parser: asked for, or DRALINT_PURE_PYTHON=1."""
    if pure_python is not None:
        return pure_python
    return os.environ.get("DRALINT_PURE_PYTHON", "").strip().lower() in ("1", "true", "yes", "on")


def _pure_parser_factory() -> tuple[Any, Any, Any]:
    loader, events, error = _import_ruamel_parts(["ruamel.yaml.loader", "ruamel.yaml.events", "ruamel.yaml.error"])
    base = loader.BaseLoader

    def make_parser(text: str) -> Any:
        # YAML 1.1, as libyaml and go-yaml v2 read it.
        p = base(text, version=(1, 1))
        # what ruamel.yaml.main would set up: where %YAML / %TAG directives are recorded
        p.doc_infos = [types.SimpleNamespace(doc_version=None, tags=[], requested_version=None)]
        return p

    return make_parser, events, error


def backend(pure: bool) -> Backend:
    """The parser to use (the C one unless `pure` or it cannot be imported), built once."""
    b = _BACKENDS.get(pure)
    if b is not None:
        return b
    b = Backend()
    b.pure = True
    cheap = None
    if not pure:
        try:
            cmod, events, error = _import_ruamel_parts(["_ruamel_yaml", "ruamel.yaml.events", "ruamel.yaml.error"])
            b.make_parser = cmod.CParser
            b.pure = False
            cheap = cheap_events(cmod, events)
        except ImportError:
            pass
    if b.pure:
        b.make_parser, events, error = _pure_parser_factory()
    b.Scalar = cheap.ScalarEvent if cheap else events.ScalarEvent
    b.Alias = events.AliasEvent
    b.MapStart = cheap.MappingStartEvent if cheap else events.MappingStartEvent
    b.MapEnd = cheap.MappingEndEvent if cheap else events.MappingEndEvent
    b.SeqStart = cheap.SequenceStartEvent if cheap else events.SequenceStartEvent
    b.SeqEnd = cheap.SequenceEndEvent if cheap else events.SequenceEndEvent
    b.DocStart = events.DocumentStartEvent
    b.DocEnd = events.DocumentEndEvent
    b.StreamEnd = events.StreamEndEvent
    b.YAMLError = error.YAMLError
    _BACKENDS[pure] = b
    if not pure and b.pure:
        _BACKENDS[True] = b
    return b
