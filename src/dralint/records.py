"""Named tuples whose classes cost little to create: `NamedRecord`.

`collections.namedtuple` writes the source of each class's `__new__` and evaluates it, and
`typing.NamedTuple` adds its own checks on top: 0.5-0.7 M instructions a class, paid at every start-up
for the two dozen records a lint imports (docs/performance.md, "Start-up"). A `NamedRecord` subclass
writes its `__new__` as ordinary source, compiled once into the module's bytecode, and the fields are
read from it when the class is made:

    class Span(NamedRecord):
        __slots__ = ()

        def __new__(_cls, line: int, column: int, end_line: int = 0) -> "Span":
            return tuple_new(_cls, (line, column, end_line))

What must stay true: an instance is what `collections.namedtuple` of the same name, fields and defaults
makes, a tuple subclass without a `__dict__` — `_fields`, `_field_defaults`, `__match_args__`, the
field properties, `_make`, `_replace`, `_asdict`, the repr, equality, hashing, copying and pickling
(class and `__getnewargs__`, as namedtuple's), and the fields' `__annotations__` as typing.NamedTuple has
them (tests/test_records.py compares each record class of dralint with its namedtuple twin). `__new__`
takes its fields as positional-or-keyword parameters, in order, the first one `_cls` as namedtuple's,
and builds the tuple of exactly those parameters; each class that writes one declares `__slots__ = ()`.
A subclass without its own `__new__` (a plugin's) inherits everything, as a subclass of a namedtuple does.
"""

try:
    from _collections import _tuplegetter  # namedtuple's own field descriptor
except ImportError:  # an interpreter without it: what namedtuple does then
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> property:
        return property(itemgetter(index), doc=doc)

tuple_new = tuple.__new__  # what each `__new__` calls (a global: one lookup, as namedtuple's)


class NamedRecord(tuple):
    """The methods every named tuple shares; a subclass brings its `__new__` and `__slots__ = ()`."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _field_defaults: dict = {}

    def __init_subclass__(cls) -> None:
        if "__new__" not in cls.__dict__:
            return  # a subclass of a record class (a plugin's, say): everything inherited, as of a namedtuple
        if cls.__dict__.get("__slots__") != ():
            raise TypeError(f"{cls.__name__} must declare __slots__ = () (an instance holds nothing but its fields)")
        code = cls.__new__.__code__
        fields = code.co_varnames[1 : code.co_argcount]
        defaults = cls.__new__.__defaults__ or ()
        cls._fields = cls.__match_args__ = fields
        cls._field_defaults = dict(zip(fields[len(fields) - len(defaults):], defaults, strict=True))
        annotations = dict(cls.__new__.__annotations__)
        annotations.pop("return", None)
        cls.__annotations__ = annotations
        for index, name in enumerate(fields):
            setattr(cls, name, _tuplegetter(index, f"Alias for field number {index}"))
        if cls.__doc__ is None:
            cls.__doc__ = cls.__name__ + "(" + repr(fields).replace("'", "")[1:-1] + ")"  # namedtuple's

    @classmethod
    def _make(cls, iterable):  # noqa: ANN001, ANN206 - namedtuple's
        """Make a new record from a sequence or iterable."""
        result = tuple_new(cls, iterable)
        if len(result) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
        return result

    def _replace(self, /, **kwds):  # noqa: ANN003, ANN202
        """A new record with the given fields replaced."""
        result = self._make(map(kwds.pop, self._fields, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    def __repr__(self) -> str:
        return self.__class__.__name__ + "(" + ", ".join([f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True)]) + ")"

    def _asdict(self) -> dict:
        """A new dict which maps field names to their values."""
        return dict(zip(self._fields, self, strict=True))

    def __getnewargs__(self) -> tuple:
        """The record as a plain tuple, for copy and pickle."""
        return tuple(self)
