"""Schema check: a document against the JSON Schema of its kind at the selected release.

Two validators work together. A compiled fast path decides whether a document
is valid at all; only documents it rejects go through `jsonschema`, which
produces every error with its instance path. Most documents are valid, so a
clean run never imports jsonschema (the largest import a pre-commit hook would
pay, bench/startup.py; tests/test_architecture.py checks it) and costs a fraction
of its per-document time. A test checks that both validators agree on the
documents of the corpora.
"""

from __future__ import annotations

from functools import partial

from ..catalog import engine_problem as _problem
from ..k8s import formats
from ..k8s.suggest import close_matches
from ..model import Document, Fix, Path, Problem

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator
    Validator = Callable[[Any], bool]

# The one-type tests are the classes' own C-level isinstance: no Python frame per value checked.
_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "object": dict.__instancecheck__,
    "array": list.__instancecheck__,
    "string": str.__instancecheck__,
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": bool.__instancecheck__,
    "null": lambda v: v is None,
}


class FastValidator:
    """Compiles the subset of JSON Schema the extractor emits into closures returning valid/invalid."""

    def __init__(self, root: dict[str, Any]):
        self._defs: dict[str, Any] = root.get("$defs", {})
        self._compiled: dict[str, Validator] = {}
        self.validate = self._compile(root)

    def _ref(self, ref: str) -> Validator:
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"unsupported $ref {ref!r}")
        name = ref[len("#/$defs/") :]
        if name not in self._compiled:
            # Placeholder first: definitions may be recursive (JSONSchemaProps-like types).
            cell: list[Validator] = []
            self._compiled[name] = lambda v: cell[0](v)
            cell.append(self._compile(self._defs[name]))
            self._compiled[name] = cell[0]
        return self._compiled[name]

    def _compile(self, schema: Any) -> Validator:
        if schema is True or schema == {}:
            return lambda v: True
        if schema is False:
            return lambda v: False
        checks: list[Validator] = []
        if "$ref" in schema:
            checks.append(self._ref(schema["$ref"]))
        props = schema.get("properties")
        additional = schema.get("additionalProperties", True)
        required = schema.get("required")
        is_object = props is not None or additional is not True or bool(required)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            tests = [_TYPE_TESTS[t] for t in types]
            if is_object and types == ["object"]:  # the object check tests the type too, in the type's place
                checks.append(self._object(props or {}, additional, tuple(required or ()), objects_only=True))
                is_object = False
            else:
                checks.append(tests[0] if len(tests) == 1 else (lambda v, tests=tests: any(t(v) for t in tests)))
        if "enum" in schema:
            allowed = schema["enum"]
            if allowed and all(type(a) is str for a in allowed):
                # `v == a and type(v) is type(a)` for text: a str equal to one of them
                names = frozenset(allowed)
                checks.append(lambda v, names=names: type(v) is str and v in names)
            else:
                checks.append(lambda v, allowed=allowed: any(v == a and type(v) is type(a) for a in allowed))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda v, const=const: v == const)
        fmt = schema.get("format")
        if fmt in formats.CHECKS:
            checks.append(formats.CHECKS[fmt])
        for key in ("allOf", "anyOf", "oneOf"):
            if key in schema:
                subs = [self._compile(s) for s in schema[key]]
                if key == "allOf":
                    checks.append(lambda v, subs=subs: all(s(v) for s in subs))
                elif key == "anyOf":
                    checks.append(lambda v, subs=subs: any(s(v) for s in subs))
                else:
                    checks.append(lambda v, subs=subs: sum(1 for s in subs if s(v)) == 1)
        if is_object:
            checks.append(self._object(props or {}, additional, tuple(required or ()), objects_only=False))
        if "items" in schema:
            checks.append(_items(self._compile(schema["items"])))
        return _all(checks)

    def _object(self, props: dict[str, Any], additional: Any, required: tuple[str, ...], objects_only: bool) -> Validator:
        """`objects_only`: the schema's type is object, so a value that is no mapping fails here."""
        compiled = {name: self._compile(s) for name, s in props.items()}
        extra: Validator | None = None if additional is True else (None if additional is False else self._compile(additional))
        closed = additional is False

        def check(v: Any) -> bool:
            # `null` counts as absent, as in the API server (see without_nulls).
            if not isinstance(v, dict):
                return not objects_only
            for name in required:
                if v.get(name) is None:
                    return False
            for key, value in v.items():
                if value is None:
                    continue
                sub = compiled.get(key)
                if sub is not None:
                    if not sub(value):
                        return False
                elif closed:
                    return False
                elif extra is not None and not extra(value):
                    return False
            return True

        return check


def _items(item: Validator) -> Validator:
    def check(v: Any) -> bool:
        if isinstance(v, list):
            for x in v:
                if not item(x):
                    return False
        return True

    return check


def _all(checks: list[Validator]) -> Validator:
    """Whether a value passes every check, in order; no generator per value for the common counts."""
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda v: bool(a(v) and b(v))
    if len(checks) == 3:
        a, b, c = checks
        return lambda v: bool(a(v) and b(v) and c(v))
    return lambda v, checks=tuple(checks): all(c(v) for c in checks)


_fast_cache: dict[int, FastValidator] = {}
_full_cache: dict[int, Any] = {}


def fast_validator(schema: dict[str, Any]) -> FastValidator:
    key = id(schema)
    found = _fast_cache.get(key)
    if found is None:
        found = _fast_cache[key] = FastValidator(schema)
    return found


def _full_validator(schema: dict[str, Any]) -> Any:
    key = id(schema)
    found = _full_cache.get(key)
    if found is None:
        import jsonschema  # deferred: only documents with schema errors pay for it

        checker = jsonschema.FormatChecker(formats=())
        for name, test in formats.CHECKS.items():
            checker.checks(name)(test)
        found = _full_cache[key] = jsonschema.Draft202012Validator(schema, format_checker=checker)
    return found


def without_nulls(value: Any) -> Any:
    """The object as the API server decodes it: a `null` field is the same as an absent one.

    Copied without recursion: an object may be nested as deep as the API server decodes (10,000 levels)."""
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    pending = [(value, root)]
    while pending:
        source, copy = pending.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if item is None and isinstance(source, dict):
                continue
            if isinstance(item, (dict, list)):
                child: Any = {} if isinstance(item, dict) else []
                pending.append((item, child))
                item = child
            if isinstance(copy, dict):
                copy[key] = item
            else:
                copy.append(item)
    return root


_decoding_cache: dict[int, dict[str, Any]] = {}


def as_decoded(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as the API server applies it: `required` struct fields dropped.

    OpenAPI `required` mirrors `+required` markers, but decoding turns an
    omitted struct into its zero value and only the validation code decides
    whether that is acceptable (a DeviceClass without `spec` is accepted). A
    missing scalar is still reported: validation requires those too.
    """
    key = id(schema)
    found = _decoding_cache.get(key)
    if found is not None:
        return found
    # Copy only the nodes whose `required` changes; the rest is shared, read-only
    # (a deep copy of a kind's schema was a visible part of a hook's start-up).
    def relax(node: dict[str, Any]) -> dict[str, Any]:
        required = node.get("required")
        if not required:
            return node
        props = node.get("properties", {})
        kept = [name for name in required if not _is_struct(props.get(name), schema)]
        if len(kept) == len(required):
            return node
        node = dict(node)
        if kept:
            node["required"] = kept
        else:
            del node["required"]
        return node

    relaxed = relax(schema)
    if "$defs" in schema:
        relaxed = dict(relaxed)
        relaxed["$defs"] = {name: relax(node) for name, node in schema["$defs"].items()}
    _decoding_cache[key] = relaxed
    return relaxed


def _is_struct(prop: Any, root: dict[str, Any]) -> bool:
    target = _resolve(prop, root)
    return target is not None and bool(target.get("properties"))


def check_schema(doc: Document, schema: dict[str, Any]) -> list[Problem]:
    schema = as_decoded(schema)
    data = doc.data
    if doc.patch is not None:
        # A kustomize patch writes part of an object: what it writes is checked, not what it leaves out.
        schema = as_partial(schema)
        data = without_directives(data)
    if fast_validator(schema).validate(data):
        return []
    errors = list(_full_validator(schema).iter_errors(without_nulls(data)))
    return list(_problems(doc, schema, errors))


_partial_cache: dict[int, dict[str, Any]] = {}


def as_partial(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without any `required`: for a patch, which says only what it changes."""
    key = id(schema)
    found = _partial_cache.get(key)
    if found is None:
        found = _partial_cache[key] = _without_required(schema)
    return found


def _without_required(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_required(v) for k, v in node.items() if k != "required" or not isinstance(v, list)}
    if isinstance(node, list):
        return [_without_required(v) for v in node]
    return node


def without_directives(value: Any) -> Any:
    """A strategic-merge patch without its directives (`$patch`, `$retainKeys`, `$setElementOrder/...`):
    they tell kustomize how to merge and are no fields of the object."""
    if isinstance(value, dict):
        return {k: without_directives(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("$"))}
    if isinstance(value, list):
        return [without_directives(v) for v in value]
    return value


def _leaf_errors(error: Any) -> Iterator[Any]:
    """Flatten anyOf/oneOf/$ref wrappers so each error names the keyword that failed."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        # int-or-string and quantity: only type alternatives; report as one type error.
        if all(sub.validator == "type" for sub in error.context):
            yield error
            return
        best = min(error.context, key=lambda e: (len(e.absolute_path) * -1, e.validator == "type"))
        yield from _leaf_errors(best)
        return
    yield error


def _problems(doc: Document, root: dict[str, Any], errors: list[Any]) -> Iterator[Problem]:
    seen: set[tuple[str, Path]] = set()
    for problem in _all_problems(doc, root, errors):
        # jsonschema raises one `required` error per missing field, each carrying the whole list.
        key = (problem.rule, problem.path)
        if key not in seen:
            seen.add(key)
            yield problem


def _all_problems(doc: Document, root: dict[str, Any], errors: list[Any]) -> Iterator[Problem]:
    leaves = [leaf for e in errors for leaf in _leaf_errors(e)]
    # A typo shows as an unknown key plus the missing field it was meant to be:
    # report it once, as the unknown key with the suggestion.
    unknown: dict[Path, list[tuple[str, list[str]]]] = {}
    for e in leaves:
        if e.validator == "additionalProperties" and e.validator_value is False:
            path = tuple(e.absolute_path)
            allowed = list(e.schema.get("properties", {}))
            for key in _extra_keys(e):
                unknown.setdefault(path, []).append((key, allowed))
    consumed: set[tuple[Path, str]] = set()  # (object path, missing field) merged into a typo or a misplaced field
    for path, keys in unknown.items():
        # `deviceClassName` beside `exactly` instead of in it: the missing
        # exactly.deviceClassName is the same mistake, reported at the misplaced key.
        schema = next((e.schema for e in leaves if e.validator == "additionalProperties" and tuple(e.absolute_path) == path), {})
        for key, allowed in keys:
            if not close_matches(key, allowed, n=1, cutoff=0.75):
                home = _nested_home(key, schema, root)
                if home is not None:
                    consumed.add((path + (home,), key))
    typo_of: dict[tuple[Path, str], str] = {}
    for e in leaves:
        if e.validator == "required":
            path = tuple(e.absolute_path)
            present = e.instance if isinstance(e.instance, dict) else {}
            for field in e.validator_value:
                if field in present:
                    continue
                candidates = [k for k, _ in unknown.get(path, [])]
                match = close_matches(field, candidates, n=1, cutoff=0.75)
                if match and (path, match[0]) not in typo_of:
                    consumed.add((path, field))
                    typo_of[(path, match[0])] = field

    for e in leaves:
        path: Path = tuple(e.absolute_path)
        v = e.validator
        if v == "additionalProperties" and e.validator_value is False:
            yield from _unknown_problems(doc, e, path, typo_of, root)
        elif v == "required":
            present = e.instance if isinstance(e.instance, dict) else {}
            for field in e.validator_value:
                if field in present or (path, field) in consumed:
                    continue
                answer = _missing_field_answer(doc, path, field)
                if answer is None:
                    continue
                etype, why = answer
                message = f"missing required field '{field}'" if why is None else f"missing field '{field}': {why} ({etype})"
                yield _problem(doc, "DRA102", path + (field,), message, error_type=etype)
        elif v in ("type", "anyOf", "oneOf"):
            yield _problem(doc, "DRA103", path, _type_message(e), error_type="Invalid")
        elif v in ("enum", "const"):
            allowed = e.validator_value if v == "enum" else [e.validator_value]
            shown = ", ".join(repr(a) for a in allowed)
            problem = _problem(doc, "DRA104", path, f"unsupported value {e.instance!r}: supported values are {shown}", error_type="NotSupported")
            problem.fixes = partial(_enum_fixes, doc, path, e.instance, list(allowed))
            yield problem
        elif v == "format":
            what = formats.EXPLAIN.get(e.validator_value, f"format {e.validator_value}")
            yield _problem(doc, "DRA105", path, f"invalid value {e.instance!r}: must be {what}", error_type="Invalid")
        else:
            yield _problem(doc, "DRA106", path, e.message, error_type="Invalid")


def _missing_field_answer(doc: Document, path: Path, field: str) -> tuple[str, str | None] | None:
    """What the API server answers for a `required` scalar that is missing: (error type, why), or None.

    Decoding does not enforce OpenAPI `required`: a missing scalar becomes its
    zero value and the validation code decides (dra-api-rules.md §3). Mostly
    that is a Required error at the field; these fields get another answer:

    * anything under `status`: the status is discarded on create (§3 step 4;
      `/status` writes are modelled by DRA6xx);
    * request, subrequest and ResourceSlice device names: "" is not a
      DNS-1123 label (Invalid, §5.3);
    * CEL `expression`: "" does not compile (Invalid, §7);
    * classic `resourceClassName`: "" fails the subdomain check, no Required (§5.2);
    * node selector requirement `key` / `operator`: "" is not a label key /
      operator (Invalid); a missing `nodeSelectorTerms` of a 1.31 DeviceClass
      is reported by DRA551 at `suitableNodes…` (the server's path has no `spec.`);
    * ResourceSlice pool: `generation` 0 is valid, `resourceSliceCount` 0 is Invalid (§12);
      taint `key` "" is not a label key (Invalid).
    """
    kind = doc.kind
    if path and path[0] == "status":
        return None
    parent = path[-1] if path else None
    grand = path[-2] if len(path) >= 2 else None
    if field == "name" and isinstance(parent, int) and (
        (grand in ("requests", "firstAvailable") and "devices" in path) or (grand == "devices" and kind == "ResourceSlice")
    ):
        return "Invalid", "the API server reads it as an empty name, which is not a DNS-1123 label"
    if field == "expression" and parent == "cel":
        return "Invalid", "the API server reads it as an empty expression, which does not compile"
    if field == "resourceClassName":
        return "Invalid", "the API server reads it as an empty name, which is not a DNS-1123 subdomain"
    if field in ("key", "operator") and isinstance(parent, int) and grand in ("matchExpressions", "matchFields"):
        return "Invalid", f"the API server reads it as an empty {field}, which is not valid"
    if field == "nodeSelectorTerms" and kind == "DeviceClass" and path == ("spec", "suitableNodes"):
        return None
    if kind == "ResourceSlice" and parent == "pool":
        if field == "generation":
            return None
        if field == "resourceSliceCount":
            return "Invalid", "the API server reads it as 0, and it must be greater than zero"
    if field == "key" and (grand == "taints" or parent == "taint"):
        return "Invalid", "the API server reads it as an empty key, which is not a label key"
    return "Required", None


def unknown_for(error: Any) -> list[tuple[str, list[str]]]:
    allowed = list(error.schema.get("properties", {}))
    return [(key, allowed) for key in _extra_keys(error)]


def _extra_keys(error: Any) -> list[str]:
    props = error.schema.get("properties", {})
    instance = error.instance if isinstance(error.instance, dict) else {}
    return [k for k in instance if k not in props]


def _unknown_problems(doc: Document, error: Any, path: Path, typo_of: dict[tuple[Path, str], str], root: dict[str, Any]) -> Iterator[Problem]:
    """One DRA101 per unknown key; keys that lost the level of an absent child field are one problem.

    A v1beta1-style flat request in a v1 claim (`deviceClassName` and `count`
    beside `name`, no `exactly`) is one mistake: it is reported once, at the
    object, as a Required error, so that a rule's more precise Required finding
    at the same path (DRA304) replaces it (lint._merge_overlaps).
    """
    instance = error.instance if isinstance(error.instance, dict) else {}
    homeless: dict[str, list[str]] = {}
    for key, allowed in unknown_for(error):
        meant = typo_of.get((path, key))
        if meant is None and not close_matches(key, allowed, n=1, cutoff=0.75):
            home = _nested_home(key, error.schema, root)
            if home is not None and home not in instance:
                homeless.setdefault(home, []).append(key)
                continue
        problem = _problem(doc, "DRA101", path + (key,), _unknown_message(key, allowed, meant, error.schema, root), at_key=True, error_type="Invalid")
        problem.fixes = partial(_unknown_field_fixes, doc, path + (key,), meant, allowed, error.schema, root)
        yield problem
    for home, keys in homeless.items():
        names = " and ".join(", ".join(f"'{k}'" for k in keys).rsplit(", ", 1))
        moved = ", ".join(f"{home}.{k}" for k in keys)
        what = f"unknown fields {names} here: they belong" if len(keys) > 1 else f"unknown field {names} here: it belongs"
        problem = _problem(doc, "DRA101", path, f"{what} under '{home}', which is missing ({moved})", error_type="Required")
        problem.fixes = partial(_move_fixes, doc, [path + (k,) for k in keys], home)
        yield problem


def _unknown_message(key: str, allowed: list[str], meant: str | None, schema: dict[str, Any], root: dict[str, Any]) -> str:
    message = f"unknown field '{key}'"
    if meant is None:
        close = close_matches(key, allowed, n=1, cutoff=0.75)
        meant = close[0] if close else None
    if meant is not None:
        return f"{message}; did you mean '{meant}'?"
    nested = _nested_home(key, schema, root)
    if nested is not None:
        return f"{message} here; it belongs under '{nested}' ({nested}.{key})"
    if allowed:
        return f"{message}; allowed fields here: {', '.join(sorted(allowed))}"
    return message


def _enum_fixes(doc: Document, path: Path, wrong: Any, allowed: list[Any]) -> list[Fix]:
    from .. import repairs  # as in _unknown_field_fixes

    return repairs.replace_value(doc, path, wrong, allowed)


def _unknown_field_fixes(doc: Document, path: Path, meant: str | None, allowed: list[str], schema: dict[str, Any], root: dict[str, Any]) -> list[Fix]:
    """The repairs the message suggests: the did-you-mean names (ranked), else the move under the nesting field."""
    # Deferred: only fixes that are read get built, and a clean file's start-up does not import repairs.
    from .. import repairs

    key = str(path[-1])
    names = repairs.ranked(key, allowed, cutoff=0.75)
    if meant is not None:
        names = [meant, *(n for n in names if n != meant)]
    if names:
        return repairs.rename_key(doc, path, names)
    home = _nested_home(key, schema, root)
    return repairs.move_under(doc, path, home) if home is not None else []


def _move_fixes(doc: Document, paths: list[Path], home: str) -> list[Fix]:
    from .. import repairs  # as in _unknown_field_fixes

    return repairs.move_all_under(doc, paths, home)


def _nested_home(key: str, schema: dict[str, Any], root: dict[str, Any]) -> str | None:
    """The child field whose object would accept `key`: catches fields that lost a level of nesting."""
    for name, sub in schema.get("properties", {}).items():
        target = _resolve(sub, root)
        if target is not None and key in target.get("properties", {}):
            return name
    return None


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any] | None:
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 8:
        ref = schema["$ref"]
        schema = root.get("$defs", {}).get(ref.rpartition("/")[2])
        seen += 1
    return schema if isinstance(schema, dict) else None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _type_message(error: Any) -> str:
    if error.validator == "type":
        wanted = error.validator_value
    else:
        wanted = [sub.validator_value for sub in error.context if sub.validator == "type"]
    if isinstance(wanted, list):
        flat = [w for item in wanted for w in (item if isinstance(item, list) else [item])]
        wanted_text = " or ".join(dict.fromkeys(flat))
    else:
        wanted_text = wanted
    message = f"wrong type: expected {wanted_text}, got {_json_type(error.instance)}"
    if "string" in wanted_text and isinstance(error.instance, (bool, int, float)):
        # The usual cause: an unquoted value that YAML reads as something else.
        what = "a boolean (YAML reads yes/no/on/off/y/n as booleans)" if isinstance(error.instance, bool) else "a number"
        message += f"; the unquoted value is read as {what}: quote it"
    return message
