"""Event constructors of one Python frame for ruamel's C parser (ruamel.yaml.clib).

The C parser builds each event by calling the event class that its module
(`_ruamel_yaml`) names: ``ScalarEvent(anchor, tag, implicit, value, start_mark,
end_mark, style)``. ruamel's classes chain three ``__init__`` frames for that
(ScalarEvent -> NodeEvent -> Event), which is most of the cost of an event:
on bench/scale.py's 10,000 documents, a bare event parse takes 0.70x the time
with one-frame constructors, and both the load and the position replay read
every event. So the frequent events (scalars, collection starts and ends) are
built by subclasses whose ``__init__`` sets the very same slots in one frame.

This replaces names in `_ruamel_yaml`'s module, so it is done only when the
runtime seam is on (dralint.runtime) and undone (`uninstall`) when it is
switched off. Meanwhile every user of ruamel's C parser gets these subclasses, which are the same events
to any ``isinstance`` test, attribute or ``repr``. It is only done when the
event classes have exactly the slots this module sets and a probe parse gives
the same events as before; otherwise the C parser is left as it is.
"""

from __future__ import annotations

import types

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["cheap_events", "uninstall"]

_PROBE = "m: &a {x: 1}\ns: [1, *a, !!str 2]\n'q': !t |\n  x\n"
_SLOTS = {  # class name -> the slots its ruamel __init__ chain sets
    "ScalarEvent": {"start_mark", "end_mark", "comment", "anchor", "ctag", "implicit", "value", "style"},
    "MappingStartEvent": {"start_mark", "end_mark", "comment", "anchor", "ctag", "implicit", "flow_style",
                          "nr_items"},
    "SequenceStartEvent": {"start_mark", "end_mark", "comment", "anchor", "ctag", "implicit", "flow_style",
                           "nr_items"},
    "MappingEndEvent": {"start_mark", "end_mark", "comment"},
    "SequenceEndEvent": {"start_mark", "end_mark", "comment"},
}


def _classes(events: Any) -> types.SimpleNamespace:
    class ScalarEvent(events.ScalarEvent):
        __slots__ = ()

        def __init__(self, anchor: Any, tag: Any, implicit: Any, value: Any, start_mark: Any = None,
                     end_mark: Any = None, style: Any = None, comment: Any = None) -> None:
            self.start_mark = start_mark
            self.end_mark = end_mark
            self.comment = comment
            self.anchor = anchor
            self.ctag = tag
            self.implicit = implicit
            self.value = value
            self.style = style

    class MappingStartEvent(events.MappingStartEvent):
        __slots__ = ()

        def __init__(self, anchor: Any, tag: Any, implicit: Any, start_mark: Any = None, end_mark: Any = None,
                     flow_style: Any = None, comment: Any = None, nr_items: Any = None) -> None:
            self.start_mark = start_mark
            self.end_mark = end_mark
            self.comment = comment
            self.anchor = anchor
            self.ctag = tag
            self.implicit = implicit
            self.flow_style = flow_style
            self.nr_items = nr_items

    class SequenceStartEvent(events.SequenceStartEvent):
        __slots__ = ()
        __init__ = MappingStartEvent.__init__

    class MappingEndEvent(events.MappingEndEvent):
        __slots__ = ()

        def __init__(self, start_mark: Any = None, end_mark: Any = None, comment: Any = None) -> None:
            self.start_mark = start_mark
            self.end_mark = end_mark
            # ruamel's Event.__init__ turns its default (a marker function) into None
            self.comment = None if comment is events.CommentCheck else comment

    class SequenceEndEvent(events.SequenceEndEvent):
        __slots__ = ()
        __init__ = MappingEndEvent.__init__

    return types.SimpleNamespace(ScalarEvent=ScalarEvent, MappingStartEvent=MappingStartEvent,
                                 SequenceStartEvent=SequenceStartEvent, MappingEndEvent=MappingEndEvent,
                                 SequenceEndEvent=SequenceEndEvent)


def _slots(cls: type) -> list[str]:
    """Every slot of `cls` and its bases (a `__slots__` may be one string)."""
    out: list[str] = []
    for c in cls.__mro__:
        slots = getattr(c, "__slots__", ())
        out.extend((slots,) if isinstance(slots, str) else slots)
    return out


def _fields(ev: Any) -> tuple:
    """What an event says, marks included; its class up to these subclasses."""
    cls = ev.__class__
    base = cls.__name__
    values = []
    for slot in _slots(cls):
        v = getattr(ev, slot, None)
        if slot in ("start_mark", "end_mark") and v is not None:
            v = (v.index, v.line, v.column)
        elif slot == "ctag" and v is not None:
            v = str(v)
        values.append((slot, v))
    return base, tuple(values)


def _probe(cmod: Any) -> list[tuple]:
    get = cmod.CParser(_PROBE).get_event
    out = []
    while True:
        ev = get()
        out.append(_fields(ev))
        if ev.__class__.__name__ == "StreamEndEvent":
            return out


def cheap_events(cmod: Any, events: Any) -> types.SimpleNamespace | None:
    """Install the one-frame event classes in the C parser's module `cmod`; them, or None when unsafe."""
    installed = getattr(cmod, "_dralint_cheap_events", None)
    if installed is not None:
        return installed
    for name, slots in _SLOTS.items():
        cls = getattr(events, name, None)
        if cls is None or getattr(cmod, name, None) is not cls or \
                set(_slots(cls)) != slots:
            return None
    cheap = _classes(events)
    try:
        before = _probe(cmod)
        for name in _SLOTS:
            setattr(cmod, name, getattr(cheap, name))
        if _probe(cmod) == before:
            cmod._dralint_cheap_events = cheap
            return cheap
    except Exception:  # noqa: BLE001, S110 - any surprise: leave the parser as it was
        pass
    for name in _SLOTS:
        setattr(cmod, name, getattr(events, name))
    return None


def uninstall(cmod: Any, events: Any) -> None:
    """Put ruamel's classes back in `cmod`, where these subclasses are still installed."""
    cheap = getattr(cmod, "_dralint_cheap_events", None)
    if cheap is None:
        return
    for name in _SLOTS:
        if getattr(cmod, name, None) is getattr(cheap, name):
            setattr(cmod, name, getattr(events, name))
    del cmod._dralint_cheap_events
