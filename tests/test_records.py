"""dralint's named tuples are `dralint.records.NamedRecord` classes (cheap to create at start-up), and each
behaves as the `collections.namedtuple` of the same name, fields and defaults: rules, plugins, the result
cache and `--jobs` workers see and pickle them as before."""

from __future__ import annotations

import ast
import collections
import copy
import importlib
import inspect
import pickle

import pytest

from dralint.records import NamedRecord

from conftest import ROOT

# Every record class and its fields, in order: what `typing.NamedTuple` made of them before (a field added,
# dropped or moved in a conversion is a change rules and plugins would see).
FIELDS = {
    "dralint.api.Place": "source document list_item path at api_version kind object",
    "dralint.api.Rule": "code slug severity check summary doc kinds api_versions min_release max_release scope origin collect positioned needs",
    "dralint.catalog.Check": "code slug severity summary",
    "dralint.cel.CelIssue": "kind message offset length suggestions",
    "dralint.cel.DerivedVerdict": "issues cost",
    "dralint.cel.Policy": "expression program",
    "dralint.cel._quantity.Misuse": "offset operator message",
    "dralint.config.ConfigFile": "path document",
    "dralint.config.Overrides": "kubernetes_version target_version format fail_on select ignore severity rules_dirs policies no_plugins config no_config jobs feature_gates cache_dir no_cache",
    "dralint.config.Settings": "format fail_on config_path jobs cache cache_dir",
    "dralint.k8s.claims.Exact": "api src data defaulted",
    "dralint.k8s.claims.Request": "index path data exact first_available state first_available_raw",
    "dralint.k8s.claims.SubRequest": "index path data",
    "dralint.k8s.slices.DeviceShape": "index device fields api src",
    "dralint.lsp.engine.BufferConfig": "options config_path error",
    "dralint.lsp.engine.ConfigFacts": "docs reads_others release",
    "dralint.lsp.engine.Outcome": "problems kubernetes",
    "dralint.lsp.field_docs.FieldDoc": "text values",
    "dralint.lsp.framing.Refused": "reason",
    "dralint.lsp.worker.Reply": "problems kubernetes config_error config facts",
    "dralint.model.Edit": "span text",
    "dralint.model.Fix": "description edits",
    "dralint.model.Node": "key value",
    "dralint.model.Origin": "file found stream span",
    "dralint.model.Span": "line column end_line end_column",
    "dralint.pipeline.drop.Dropped": "path field gates",
    "dralint.pipeline.gitignore.Ignores": "levels",
    "dralint.pipeline.gitignore.Level": "patterns prefix",
    "dralint.pipeline.gitignore.Patterns": "glob negated",
    "dralint.pipeline.globs.Chars": "only but",
    "dralint.pipeline.globs.Maybe": "elements",
    "dralint.pipeline.globs.Ranges": "ranges negated",
    "dralint.pipeline.globs.Star": "chars",
    "dralint.pipeline.ignore_paths.IgnorePaths": "entries config_path base",
    "dralint.pipeline.lifecycle._Lifecycles": "kind version",
    "dralint.pipeline.origins.Named": "tool path nth",
    "dralint.pipeline.origins._Read": "name text documents",
    "dralint.pipeline.partial.DocumentSummary": "source index list_item kind object",
    "dralint.pipeline.resolve.Resolution": "info problems is_dra is_object",
    "dralint.pipeline.sources.Source": "name data error size",
    "dralint.report.ReportOptions": "color show_source quiet",
    "dralint.rules.pod_references._Object": "kind name namespace source pod_refs class_refs context",
    "dralint.schemas.KindInfo": "group version kind scope plural default_enabled schema_path",
    "dralint.schemas.VersionLifecycle": "api_version stability introduced deprecated removed replacement served_in note",
    "dralint.webhook.judging.Verdict": "status body outcome uid kind log codes warnings",
}


def _class(dotted: str) -> type:
    module, name = dotted.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def _twin(cls: type) -> type:
    """The `collections.namedtuple` the record class must behave as."""
    return collections.namedtuple(cls.__name__, FIELDS[f"{cls.__module__}.{cls.__qualname__}"], defaults=tuple(cls._field_defaults.values()), module=cls.__module__)


def _values(cls: type) -> list[int]:
    return [index * 7 + 1 for index in range(len(cls._fields))]


def test_every_record_class_of_the_source_is_listed_and_none_is_a_typing_named_tuple():
    found, named_tuples = set(), []
    for folder, package in ((ROOT / "src" / "dralint", "dralint"), (ROOT / "rules", "dralint.rules")):
        for file in sorted(folder.rglob("*.py")):
            parts = file.relative_to(folder).with_suffix("").parts
            module = ".".join((package, *parts[:-1]) if parts[-1] == "__init__" else (package, *parts))
            for node in ast.walk(ast.parse(file.read_text())):
                if isinstance(node, ast.ClassDef):
                    bases = {ast.unparse(base) for base in node.bases}
                    if "NamedRecord" in bases:
                        found.add(f"{module}.{node.name}")
                    if bases & {"NamedTuple", "typing.NamedTuple"}:
                        named_tuples.append(f"{module}.{node.name}")
                elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("namedtuple", "collections.namedtuple", "NamedTuple", "typing.NamedTuple"):
                    named_tuples.append(f"{module}:{node.lineno}")
    assert named_tuples == []
    assert found == set(FIELDS)


@pytest.mark.parametrize("dotted", sorted(FIELDS))
def test_a_record_class_is_its_named_tuple_twin(dotted):
    cls = _class(dotted)
    twin = _twin(cls)
    assert issubclass(cls, tuple) and cls._fields == twin._fields == tuple(FIELDS[dotted].split())
    assert cls.__match_args__ == twin.__match_args__ and cls._field_defaults == twin._field_defaults
    assert [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()] == [
        (p.name, p.kind, p.default) for p in inspect.signature(twin).parameters.values()]
    assert list(cls.__annotations__) == list(cls._fields)
    values = _values(cls)
    record, expected = cls(*values), twin(*values)
    assert type(record) is cls and tuple(record) == tuple(expected)
    assert record == expected and hash(record) == hash(expected) and repr(record) == repr(expected)
    assert [getattr(record, name) for name in cls._fields] == values
    assert cls(**dict(zip(cls._fields, values, strict=True))) == record
    assert record._asdict() == expected._asdict() and type(record._asdict()) is dict
    assert cls._make(iter(values)) == record and type(cls._make(values)) is cls
    last = cls._fields[-1]
    replaced = record._replace(**{last: "new"})
    assert type(replaced) is cls and replaced == expected._replace(**{last: "new"})
    assert record.__getnewargs__() == expected.__getnewargs__()
    # What namedtuple refuses, refused alike.
    refused = [lambda c: c(*values, 0), lambda c: c(*values, **{c._fields[0]: 0}), lambda c: c._make(values[:-1]), lambda c: c(*values)._replace(nonfield=1)]
    required = len(cls._fields) - len(cls._field_defaults)
    if required:
        refused.append(lambda c: c(*values[: required - 1]))
    for call in refused:
        with pytest.raises((TypeError, ValueError)) as mine:
            call(cls)
        with pytest.raises(type(mine.value)) as theirs:
            call(twin)
        assert str(mine.value) == str(theirs.value)
    with pytest.raises(AttributeError):
        record.__dict__  # noqa: B018 - slotted, as namedtuple's
    with pytest.raises(AttributeError):
        setattr(record, cls._fields[0], 0)
    with pytest.raises(AttributeError):
        record.other = 0
    # Copied and pickled: the same class and fields back, by namedtuple's reduction unless the class has its own.
    assert copy.copy(record) == record and copy.deepcopy(record) == record and type(copy.deepcopy(record)) is cls
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(record, protocol))
        assert type(back) is cls and back == record
        if "__reduce__" not in vars(cls) and protocol >= 2:
            reduced, twin_reduced = record.__reduce_ex__(protocol), expected.__reduce_ex__(protocol)
            assert reduced[0] is twin_reduced[0] and reduced[1][0] is cls and reduced[1][1:] == twin_reduced[1][1:] and reduced[2:] == twin_reduced[2:]
    match record:
        case cls(first):  # noqa: F841 - positional patterns through __match_args__
            pass
        case _:
            pytest.fail("the first field is not matched by position")


def test_a_record_class_must_have_no_instance_dict():
    with pytest.raises(TypeError, match="__slots__"):
        class Loose(NamedRecord):
            def __new__(_cls, a: int) -> Loose:
                return tuple.__new__(_cls, (a,))


def test_the_docstring_is_namedtuple_s_when_the_class_has_none():
    class Pair(NamedRecord):
        __slots__ = ()

        def __new__(_cls, left: int, right: int = 2) -> Pair:
            return tuple.__new__(_cls, (left, right))

    class One(NamedRecord):
        __slots__ = ()

        def __new__(_cls, only: int) -> One:
            return tuple.__new__(_cls, (only,))

    assert Pair.__doc__ == collections.namedtuple("Pair", "left right").__doc__ == "Pair(left, right)"
    assert One.__doc__ == collections.namedtuple("One", "only").__doc__ == "One(only,)"
    assert Pair(1) == (1, 2) and Pair._field_defaults == {"right": 2} and Pair.right.__doc__ == "Alias for field number 1"


def test_a_subclass_of_a_record_class_is_as_a_subclass_of_its_twin():
    """A plugin may subclass a record class without `__new__` or `__slots__`, as it may a named tuple."""
    from dralint.model import Span  # noqa: PLC0415

    class Mine(Span):
        def width(self) -> int:
            return self.end_column - self.column

    class Theirs(_twin(Span)):
        def width(self) -> int:
            return self.end_column - self.column

    mine, theirs = Mine(1, 2, 1, 5), Theirs(1, 2, 1, 5)
    assert mine == theirs and repr(mine) == repr(theirs).replace("Theirs", "Mine") and mine.width() == theirs.width() == 3
    assert Mine._fields == Theirs._fields and type(mine._replace(line=3)) is Mine and mine._replace(line=3).line == 3
    mine.note = theirs.note = "a dict, as any subclass without __slots__ has"
    assert vars(mine) == vars(theirs)
