"""The compiled fast validator must agree with jsonschema on every document, valid or not.

The fast path decides whether jsonschema runs at all; if it called an invalid
document valid, problems would silently vanish. Checked on every DRA object
of the real-world corpus and the test fixtures, and on mutations of each
that break it in the ways users do (unknown key, wrong type, missing field).
"""

from __future__ import annotations

import json
import random

import jsonschema
import pytest

from dralint import schemas
from dralint.k8s import formats
from dralint.pipeline.load import load
from dralint.pipeline.schema_check import as_decoded, fast_validator, without_nulls

from conftest import CASES, ROOT, SHARED


def _reference(schema):
    checker = jsonschema.FormatChecker(formats=())
    for name, test in formats.CHECKS.items():
        checker.checks(name)(test)
    return jsonschema.Draft202012Validator(schema, format_checker=checker)


def _documents():
    files = sorted(ROOT.joinpath("examples").rglob("*.yaml")) + sorted(CASES.rglob("*.yaml"))
    index = SHARED / "corpus" / "real-world" / "index.json"
    releases = {}
    if index.is_file():
        for row in json.loads(index.read_text()):
            if row.get("k8s_version"):
                path = index.parent / row["file"]
                files.append(path)
                releases[path] = row["k8s_version"]
    for path in files:
        for doc in load(str(path), path.read_bytes()).documents:
            release = releases.get(path, "1.35")
            info = schemas.catalog(release).served(doc.api_version, doc.kind)
            if info is not None:
                yield path, release, doc


def _mutations(data, rng, fresh):
    """A few broken copies of `data`: an unknown key, a wrong type, a dropped key, deep in the tree.

    Only the breaks `fresh(path, how)` accepts are made: the same break at the same place of the
    same schema, already compared in another document, walks the same branches of both validators."""
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                paths.append(path + (k,))
                walk(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + (i,))

    walk(data, ())
    for path in rng.sample(paths, min(6, len(paths))):
        for how in ("unknown", "type", "drop"):
            if how == "unknown" and not isinstance(_at(data, path), dict):
                continue  # only a mapping takes an unknown key: the copy would be `data` itself, compared already
            if not fresh(path, how):
                continue
            copy = json.loads(json.dumps(data))
            parent = copy
            for part in path[:-1]:
                parent = parent[part]
            key = path[-1]
            if how == "unknown" and isinstance(parent[key], dict):
                parent[key]["notAField"] = 1
            elif how == "type":
                parent[key] = [] if not isinstance(parent[key], list) else {"x": 1}
            elif how == "drop":
                del parent[key]
            yield copy


def _at(data, path):
    for part in path:
        data = data[part]
    return data


def _with_a_null(data, rng, fresh):
    """Copies with one field set to null (an empty `key:` in YAML), which must count as absent:
    one, or none when `fresh(path, "null")` refuses the field picked (or it is in an empty mapping,
    so the copy would be `data` itself)."""
    maps = []

    def walk(node, path):
        if isinstance(node, dict):
            maps.append((path, node))
            for k, v in node.items():
                walk(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + (i,))

    walk(data, ())
    path, target = rng.choice(maps)
    if not target:
        return []
    path += (rng.choice(sorted(target)),)
    if not fresh(path, "null"):
        return []
    copy = json.loads(json.dumps(data))
    _at(copy, path[:-1])[path[-1]] = None
    return [copy]


def _shape(node, path=()):
    """The paths of `node` (list entries as one), each with its value's type: what the validators walk."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield path + (k,), type(v).__name__
            yield from _shape(v, path + (k,))
    elif isinstance(node, list):
        for v in node:
            yield from _shape(v, path + ("*",))


def _distinct(documents):
    """One document of each shape and release: the corpus repeats a few shapes many times, and a
    repeat walks the same branches of both validators (about half of the documents)."""
    seen = set()
    for path, release, doc in documents:
        key = (release, doc.api_version, doc.kind, frozenset(_shape(doc.data)))
        if key not in seen:
            seen.add(key)
            yield path, release, doc


def test_fast_validator_agrees_with_jsonschema():
    rng = random.Random(20261122)
    compared = disagreements = 0
    seen = []
    broken = set()  # (release, apiVersion, kind, path with list indices as "*", value type, how) compared
    for path, release, doc in _distinct(_documents()):
        schema = as_decoded(schemas.catalog(release).schema(doc.api_version, doc.kind))
        fast, ref = fast_validator(schema), _reference(schema)
        data = doc.data

        def fresh(at, how, doc=doc, release=release, data=data):
            place = tuple("*" if isinstance(p, int) else p for p in at)
            key = (release, doc.api_version, doc.kind, place, type(_at(data, at)).__name__, how)
            if key in broken:
                return False
            broken.add(key)
            return True

        for candidate in [data, *_mutations(data, rng, fresh), *_with_a_null(data, rng, fresh)]:
            compared += 1
            # The fast path reads nulls as absent itself; jsonschema sees them removed.
            if fast.validate(candidate) != ref.is_valid(without_nulls(candidate)):
                disagreements += 1
                seen.append((str(path), doc.index))
    assert compared > 200
    assert disagreements == 0, seen[:10]


@pytest.mark.parametrize(
    "value, ok",
    [("8Gi", True), ("500m", True), ("1.5", True), ("1e3", True), (".5", True), ("+2Ki", True), (4, True), (1.5, True),
     ("8GiB", False), ("", False), ("Gi", False), ("1 Gi", False), (True, False)],
)
def test_quantity_format(value, ok):
    assert formats.is_quantity(value) is ok
