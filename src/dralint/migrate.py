"""`dralint migrate --to resource.k8s.io/v1 PATH...`: rewrite beta DRA objects to resource.k8s.io/v1.

    dralint migrate --to resource.k8s.io/v1 k8s/            # print a unified diff
    dralint migrate --to resource.k8s.io/v1 --write k8s/    # rewrite the files in place
    cat claim.yaml | dralint migrate --to resource.k8s.io/v1 -   # migrated stream on stdout

What changes, as the API server's own conversion does it (checked against the
1.35 OpenAPI documents, where v1beta2 and v1 have the same shape):

* v1beta1 ResourceClaim / ResourceClaimTemplate: the flat request fields
  (deviceClassName, selectors, allocationMode, count, adminAccess,
  tolerations, capacity) move under `exactly`, in their order, with their
  comments; `firstAvailable` subrequests keep their shape.
* v1beta1 ResourceSlice: each device's `basic:` wrapper is flattened into the
  device.
* v1beta1 DeviceClass and every v1beta2 kind: only `apiVersion` changes.

Only the documents that are migrated are re-emitted (a ruamel.yaml round trip
that keeps comments, key order, quoting and the file's indentation), and in
them every line the migration did not change is put back byte for byte, line
ending included (`textlines.restore_untouched_lines`); every other byte of the
file stays as it was. Each migrated object is linted before it is accepted (at
Kubernetes 1.37, the newest release, or at the release the file pins, moved to one that serves the
target): an object that cannot be converted without loss or guessing, or whose
result would not lint clean, is reported and left unchanged.

A file is written only when it was read whole and is still what was read,
atomically and not through a hard link (`rewrite.rewrite`); a file that cannot
be written is a problem of that file, and the run goes on.

Exit codes: 0 nothing to do or everything migrated, 1 something could not be
migrated or written, 2 usage error (bad option, unreadable path).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from dataclasses import dataclass, field
from itertools import accumulate

from ruamel.yaml import YAML, YAMLError
from ruamel.yaml.comments import TaggedScalar

from . import linediff, schemas
from .arguments import UsageError
from .k8s.resource import EXACT_FIELDS, GROUP, MIGRATION_KINDS, MIGRATION_SOURCES
from .model import Severity
from .moved_comments import keep_above_first, move_comments_between, move_keys
from .pipeline.releases import declared_release
from .pipeline.run import LintOptions, lint
from .pipeline.selection import Selection
from .pipeline.sources import MAX_BYTES, Source, collect
from .rewrite import RewriteError, rewrite, write_atomic
from .textlines import (
    Chunk,
    collapse_comment_runs,
    guess_indent,
    plain_endings,
    restore_untouched_lines,
    split_documents,
    split_lines,
    starts_content,
)

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["check", "convert", "migrate_command", "migrate_text", "restore_untouched_lines", "split_documents", "write_atomic"]

V1BETA1 = f"{GROUP}/v1beta1"
TARGETS = (f"{GROUP}/v1",)
SOURCES = tuple(MIGRATION_SOURCES)
KINDS = MIGRATION_KINDS


@dataclass
class Note:
    """Something to tell the user about one object."""

    source: str
    line: int
    what: str  # "Kind/name (apiVersion)"
    message: str


@dataclass
class FileResult:
    name: str
    old: str
    new: str
    migrated: list[Note] = field(default_factory=list)
    failed: list[Note] = field(default_factory=list)
    changes: list[Note] = field(default_factory=list)  # what else the user should know: a moved pin, a broken hard link

    @property
    def changed(self) -> bool:
        return self.old != self.new


# ---------------------------------------------------------------- conversion on plain mappings


def _is_map(value: Any) -> bool:
    return isinstance(value, dict)


# What ruamel keeps as a TaggedScalar is a string to the API server (`!!str`, a local tag) unless tagged so.
_CONVERTING_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null"))


def _type_field(obj: Any, key: str) -> Any:
    """`apiVersion` or `kind` of `obj` as the API server reads it."""
    value = obj.get(key)
    text = isinstance(value, TaggedScalar) and isinstance(value.value, str) and str(getattr(value.tag, "value", value.tag)) not in _CONVERTING_TAGS
    return value.value if text else value


def _describe(obj: Any) -> str:
    meta = obj.get("metadata") if _is_map(obj) else None
    name = meta.get("name") or meta.get("generateName") if _is_map(meta) else None
    ns = meta.get("namespace") if _is_map(meta) else None
    ref = f"{ns}/{name}" if ns and name else (name or "<unnamed>")
    return f"{_type_field(obj, 'kind')}/{ref} ({_type_field(obj, 'apiVersion')})"


def _claim_spec(obj: Any) -> tuple[Any, str]:
    spec = obj.get("spec")
    if _type_field(obj, "kind") == "ResourceClaimTemplate":
        return (spec.get("spec") if _is_map(spec) else None), "spec.spec"
    return spec, "spec"


def needs_migration(obj: Any) -> bool:
    return _is_map(obj) and _type_field(obj, "apiVersion") in SOURCES and _type_field(obj, "kind") in KINDS


def check(obj: Any) -> list[str]:
    """Why `obj` cannot be converted without loss or guessing (empty: it can)."""
    reasons: list[str] = []
    if _type_field(obj, "apiVersion") != V1BETA1:
        return reasons  # v1beta2 has the v1 shape
    kind = _type_field(obj, "kind")
    if kind in ("ResourceClaim", "ResourceClaimTemplate"):
        spec, where = _claim_spec(obj)
        devices = spec.get("devices") if _is_map(spec) else None
        requests = devices.get("requests") if _is_map(devices) else None
        if requests is None:
            return reasons
        if not isinstance(requests, list):
            return [f"{where}.devices.requests is not a list"]
        allowed = {"name", "firstAvailable", *EXACT_FIELDS}
        for i, req in enumerate(requests):
            at = f"{where}.devices.requests[{i}]"
            if not _is_map(req):
                reasons.append(f"{at} is not a mapping")
                continue
            if "exactly" in req:
                reasons.append(f"{at} already has 'exactly', which v1beta1 does not know; fix the apiVersion or the request by hand")
                continue
            unknown = [str(k) for k in req if k not in allowed]
            if unknown:
                reasons.append(f"{at} has field(s) {', '.join(repr(k) for k in unknown)} that v1beta1 does not define; where they belong in v1 cannot be told")
            flat = [k for k in req if k in EXACT_FIELDS]
            if flat and "firstAvailable" in req:
                reasons.append(f"{at} has both firstAvailable and {', '.join(flat)}; v1 allows exactly one of 'exactly' and 'firstAvailable'")
    elif kind == "ResourceSlice":
        spec = obj.get("spec")
        devices = spec.get("devices") if _is_map(spec) else None
        if devices is None:
            return reasons
        if not isinstance(devices, list):
            return ["spec.devices is not a list"]
        for i, dev in enumerate(devices):
            at = f"spec.devices[{i}]"
            if not _is_map(dev):
                reasons.append(f"{at} is not a mapping")
                continue
            extra = [str(k) for k in dev if k not in ("name", "basic")]
            if extra:
                reasons.append(f"{at} has field(s) {', '.join(repr(k) for k in extra)} beside 'basic'; v1beta1 devices carry everything under 'basic'")
            basic = dev.get("basic")
            if basic is not None and not _is_map(basic):
                reasons.append(f"{at}.basic is not a mapping")
            elif _is_map(basic) and "name" in basic:
                reasons.append(f"{at}.basic has a 'name', which would collide with the device's name")
    return reasons


def _insert(mapping: Any, pos: int, key: str, value: Any) -> Any:
    """Insert key at position `pos` (CommentedMap keeps comments; a dict is rebuilt in place)."""
    if hasattr(mapping, "insert"):
        mapping.insert(pos, key, value)
        return mapping
    items = list(mapping.items())
    items.insert(pos, (key, value))
    mapping.clear()
    mapping.update(items)
    return mapping


def convert(obj: Any, target: str, indent: int = 2) -> None:
    """Convert `obj` (checked with `check`) to `target` in place (`indent`: the file's mapping indentation)."""
    if _type_field(obj, "apiVersion") == V1BETA1:
        kind = _type_field(obj, "kind")
        if kind in ("ResourceClaim", "ResourceClaimTemplate"):
            spec, _ = _claim_spec(obj)
            devices = spec.get("devices") if _is_map(spec) else None
            for req in (devices.get("requests") or []) if _is_map(devices) else []:
                flat = [k for k in req if k in EXACT_FIELDS]
                if not flat:
                    continue
                order = list(req)
                exactly = move_keys(req, flat, order, indent)
                _insert(req, order.index(flat[0]), "exactly", exactly)
        elif kind == "ResourceSlice":
            spec = obj.get("spec")
            for dev in (spec.get("devices") or []) if _is_map(spec) else []:
                if "basic" not in dev:
                    continue
                pos = list(dev).index("basic")
                basic = dev["basic"] or {}
                basic_ca = getattr(basic, "ca", None)
                dev_ca = getattr(dev, "ca", None)
                above = dev_ca.items.pop("basic", None) if dev_ca is not None else None  # [3]: above its first key
                del dev["basic"]
                for offset, (key, value) in enumerate(list(basic.items())):
                    _insert(dev, pos + offset, key, value)
                    if basic_ca is not None and dev_ca is not None and key in basic_ca.items:
                        dev_ca.items[key] = basic_ca.items[key]
                keep_above_first(dev, list(basic), above[3] if above is not None and len(above) > 3 else None, -indent)
                move_comments_between(dev, list(basic), list(basic), -indent)
    if isinstance(obj.get("apiVersion"), TaggedScalar):
        obj["apiVersion"].value = target  # `apiVersion: !!str ...` keeps its tag
    else:
        obj["apiVersion"] = target


# ---------------------------------------------------------------- documents in a file

def _yaml(indent: tuple[int, int, int]) -> Any:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1 << 16  # never re-wrap long lines
    yaml.indent(mapping=indent[0], sequence=indent[1], offset=indent[2])
    return yaml


def _objects(root: Any) -> list[Any]:
    """The objects of a document: itself, or the items of a `kind: List`."""
    if _is_map(root) and _type_field(root, "kind") == "List" and isinstance(root.get("items"), list):
        return [item for item in root["items"] if needs_migration(item)]
    return [root] if needs_migration(root) else []


def _index_of(obj: Any) -> int:
    """0-based line of `obj` in the text ruamel.yaml read."""
    lc = getattr(obj, "lc", None)
    return lc.line if lc is not None and lc.line is not None else 0


def _verify(name: str, text: str, release: str) -> list[tuple[int, str]]:
    """Lint `text` (one migrated document, "\\n" line ends) at `release`: (0-based line, message) of every error."""
    # A YAML document may carry its own `# dralint: kubernetes-version=` comment: ours comes first
    # (the pin is moved after the check), so DRA009 about a second comment is not the migration's.
    # JSON has no comments (and none can pin its release).
    is_json = name.lower().endswith(".json")
    pinned = "" if is_json else f"# dralint: kubernetes-version={release}\n"
    options = LintOptions(release, plugins=False, selection=Selection(ignore=["DRA009"]))
    result = lint([Source(name, (pinned + text).encode("utf-8"))], options)
    out = []
    for p in result.problems:
        if p.severity >= Severity.ERROR:
            path = p.path_text
            out.append((p.span.line - (1 if is_json else 2), f"{p.message}{f' (at {path})' if path else ''} [{p.rule} {p.name}]"))
    return out


@dataclass
class _Job:
    name: str
    target: str
    release: str  # the release a migrated object must lint clean at
    result: FileResult


def _yaml_same_data(a: str, b: str) -> bool:
    safe = YAML(typ="safe", pure=True)
    try:
        return bool(safe.load(a) == safe.load(b))
    except (YAMLError, RecursionError, ValueError):
        return False


def _json_same_data(a: str, b: str) -> bool:
    try:
        return bool(json.loads(a) == json.loads(b))
    except (ValueError, RecursionError):
        return False


def _file_lines(chunk: Chunk) -> list[int]:
    """File line (counting "\\n" only) of each line of the chunk's body, by 0-based index."""
    return list(accumulate((line.count("\n") for line in split_lines(chunk.body)), initial=chunk.line))


def _load(job: _Job, chunk: Chunk, yaml: Any, text: str) -> Any:
    try:
        return yaml.load(text)
    except Exception as exc:  # any failure of the parser on hostile text: leave it to `dralint lint` to explain
        if re.search(rf"^apiVersion:\s*(?:!\S*\s+)?['\"]?{re.escape(GROUP)}/v1beta[12]\b", text, re.MULTILINE):
            job.result.failed.append(Note(job.name, chunk.line, "document", f"not parsable as YAML ({type(exc).__name__}); not migrated"))
        return None


def _dump(yaml: Any, root: Any) -> str:
    out = io.StringIO()
    yaml.dump(root, out)
    return out.getvalue()


def _convert_document(job: _Job, chunk: Chunk, plain: str) -> tuple[str, list[tuple[str, int]], list[int]] | None:
    """The emitter's text of the converted document, what was converted (and its line), the chunk's file lines.

    None when there is nothing to convert or it cannot be done (then it is reported).
    """
    indent = guess_indent(plain)
    yaml = _yaml(indent)
    collapsed = collapse_comment_runs(plain)
    root = _load(job, chunk, yaml, collapsed.text)
    objects = _objects(root) if root is not None else []
    if not objects:
        return None
    file_line = _file_lines(chunk)

    def line_of(obj: Any) -> int:
        return file_line[collapsed.origin[min(_index_of(obj), len(collapsed.origin) - 1)]]

    blocked = False
    for obj in objects:
        reasons = check(obj)
        for reason in reasons:
            job.result.failed.append(Note(job.name, line_of(obj), _describe(obj), reason))
        blocked = blocked or bool(reasons)
    if blocked:
        return None
    descriptions = [(_describe(obj), line_of(obj)) for obj in objects]
    for obj in objects:
        convert(obj, job.target, indent[0])
    emitted = collapsed.expand(_dump(yaml, root))
    if emitted is None:
        # A placeholder ended up inside a scalar the emitter re-flowed: convert the text as it is (slower on long comment runs).
        root = _load(job, chunk, yaml, plain)
        if root is None:
            return None
        for obj in _objects(root):
            convert(obj, job.target, indent[0])
        emitted = _dump(yaml, root)
    return emitted, descriptions, file_line


def _migrate_yaml_chunk(job: _Job, chunk: Chunk) -> str:
    if f"{GROUP}/v1beta" not in chunk.body:
        return chunk.body
    if starts_content(chunk.header):
        job.result.failed.append(Note(job.name, chunk.line - 1, "document", "the document starts on its '---' line; move its content to the next line to migrate it"))
        return chunk.body
    plain = plain_endings(chunk.body)
    converted = _convert_document(job, chunk, plain)
    if converted is None:
        return chunk.body
    emitted, descriptions, file_line = converted
    # Keep the body's own trailing blank lines (ruamel ends with exactly one newline) or its missing last one.
    trailing = plain[len(plain.rstrip("\n")):]
    new = restore_untouched_lines(chunk.body, emitted.rstrip("\n") + trailing, _yaml_same_data)
    errors = _verify(job.name, plain_endings(new), job.release)
    if errors:
        what = descriptions[0][0] if len(descriptions) == 1 else "document"
        for index, message in errors:
            line = file_line[min(max(index, 0), len(file_line) - 1)]
            job.result.failed.append(Note(job.name, line, what, f"the {job.target} result would not lint clean at Kubernetes {job.release}: {message}; left unchanged"))
        return chunk.body
    for what, line in descriptions:
        job.result.migrated.append(Note(job.name, line, what, f"-> {job.target}"))
    return new


def _migrate_json(job: _Job, text: str) -> str | None:
    """A JSON file: None when it is not JSON (then it is treated as YAML).

    The file is re-serialised with its own indentation; then every line whose
    text did not change gets its original bytes back (see
    `restore_untouched_lines`). Lines that `json.dumps` writes differently from
    the original (other escapes or spacing) are rewritten.
    """
    plain = plain_endings(text)
    try:
        root = json.loads(plain)
    except (ValueError, RecursionError):
        return None
    objects = _objects(root)
    if not objects:
        return text
    name, result = job.name, job.result
    blocked = False
    for obj in objects:
        for reason in check(obj):
            result.failed.append(Note(name, 1, _describe(obj), reason))
            blocked = True
    if blocked:
        return text
    descriptions = [_describe(obj) for obj in objects]
    for obj in objects:
        convert(obj, job.target)
    m = re.search(r"\n([ \t]+)\S", plain)
    indent: int | str | None = (len(m.group(1)) if m.group(1).strip(" ") == "" else m.group(1)) if m else None
    new = json.dumps(root, indent=indent, ensure_ascii=False) + plain[len(plain.rstrip("\n")):]
    new = restore_untouched_lines(text, new, _json_same_data)
    errors = _verify(name, plain_endings(new), job.release)
    if errors:
        what = descriptions[0] if len(descriptions) == 1 else "document"
        for line, message in errors:
            result.failed.append(Note(name, line + 1, what, f"the {job.target} result would not lint clean at Kubernetes {job.release}: {message}; left unchanged"))
        return text
    for what in descriptions:
        result.migrated.append(Note(name, 1, what, f"-> {job.target}"))
    return new


# ---------------------------------------------------------------- the file's release comment


def serving_release(pinned: str, target: str) -> str:
    """`pinned` if it serves `target` by default, else the first later release that does (`pinned` if none)."""
    for release in schemas.RELEASES:
        if schemas.release_key(release) >= schemas.release_key(pinned) and schemas.Catalog(release).default_enabled(target):
            return release
    return pinned


def _move_pin(text: str, line: int, old: str, new: str) -> str:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    pin = re.compile(r"(kubernetes-version=[ \t]*[\"']?)" + re.escape(old) + r"(?![\w.])")
    return text[:start] + pin.sub(lambda m: m.group(1) + new, text[start:end], count=1) + text[end:]


def migrate_text(name: str, text: str, target: str = TARGETS[0]) -> FileResult:
    """Migrate every beta DRA object of one file's text. Line endings, a BOM and untouched lines are kept.

    A file pinned by `# dralint: kubernetes-version=` to a release that does not
    serve `target` by default has its pin moved to the first release that does:
    the migrated objects are checked there, and linting the file afterwards must
    not ask to undo the migration.
    """
    result = FileResult(name, text, text)
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom):]
    is_json = name.lower().endswith(".json") or body.lstrip().startswith(("{", "["))
    pin = None if is_json else declared_release(body.encode("utf-8", "surrogatepass"))
    release = serving_release(pin[0], target) if pin and pin[0] in schemas.RELEASES else schemas.DEFAULT_RELEASE
    job = _Job(name, target, release, result)
    new = _migrate_json(job, body) if is_json else None
    if new is None:
        new = "".join(chunk.header + _migrate_yaml_chunk(job, chunk) for chunk in split_documents(body))
    if result.migrated and pin and pin[0] in schemas.RELEASES and release != pin[0]:
        new = _move_pin(new, pin[1], pin[0], release)
        result.changes.append(Note(name, pin[1], "file", f"kubernetes-version {pin[0]} -> {release}: the first release that serves {target} by default"))
    if new != body:
        result.new = bom + new
    return result


# ---------------------------------------------------------------- the command


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dralint migrate",
        description="Rewrite v1beta1/v1beta2 ResourceClaim, ResourceClaimTemplate, DeviceClass and ResourceSlice objects to resource.k8s.io/v1. "
        "Prints a unified diff unless --write is given; other documents and comments are kept.",
        epilog="Exit codes: 0 nothing to do or all migrated, 1 something could not be migrated or written, 2 usage error or unreadable path.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, folders (searched for *.yaml, *.yml, *.json) or - for standard input")
    parser.add_argument("--to", required=True, metavar="API_VERSION", help=f"the apiVersion to migrate to: {', '.join(TARGETS)}")
    parser.add_argument("-w", "--write", action="store_true", help="rewrite the files in place (atomically) instead of printing a diff")
    parser.add_argument("--break-hard-links", action="store_true",
                        help="rewrite a file that has other hard links too (its other names keep the old content); refused by default")
    parser.add_argument("-q", "--quiet", action="store_true", help="print no per-object lines, only problems")
    return parser


def migrate_command(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help exits 0, errors 2 (argparse printed the message)
        return 0 if not exc.code else 2
    if args.to not in TARGETS:
        raise UsageError(f"cannot migrate to {args.to!r}; supported: {', '.join(TARGETS)}")
    if not args.paths:
        raise UsageError("dralint migrate: no PATH given (use - to read standard input)")
    if args.write and "-" in args.paths:
        raise UsageError("dralint migrate: --write cannot rewrite standard input")

    results: list[FileResult] = []
    unreadable = False
    for source in collect(args.paths):
        if source.data is None:
            print(f"dralint migrate: cannot read {source.name}: {source.error}", file=sys.stderr)
            unreadable = True
            continue
        results.append(_migrate_source(source, args))
    sys.stdout.flush()
    failed = _report(results, args)
    if unreadable:
        return 2
    return 1 if failed else 0


def _migrate_source(source: Source, args: argparse.Namespace) -> FileResult:
    name, data = source.name, source.data or b""
    if len(data) > MAX_BYTES:
        # `collect` stops reading there: what it holds is not the whole file, so nothing may be written or shown.
        message = f"the file is larger than {MAX_BYTES // (1024 * 1024)} MiB, the most dralint reads of a file; a file not read whole is never rewritten"
        return FileResult(name, "", "", failed=[Note(name, 1, "", message)])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return FileResult(name, "", "", failed=[Note(name, line, "", "not UTF-8 text")])
    result = migrate_text(name, text, args.to)
    if name == "-":
        sys.stdout.write(result.new)
    elif result.changed and args.write:
        _write(source, result, args.break_hard_links)
    elif result.changed:
        label = name.lstrip("/")
        sys.stdout.writelines(linediff.unified_diff(split_lines(result.old), split_lines(result.new), f"a/{label}", f"b/{label}"))
        if not result.new.endswith(("\n", "\r")):
            sys.stdout.write("\n\\ No newline at end of file\n")
        links = _hard_links(name)
        if links > 1 and not args.break_hard_links:
            result.changes.append(Note(name, 1, "file", f"has {links} hard links: --write will refuse it unless --break-hard-links is given"))
    return result


def _hard_links(path: str) -> int:
    try:
        return os.stat(path).st_nlink
    except OSError:
        return 1


def _write(source: Source, result: FileResult, break_hard_links: bool) -> None:
    try:
        notes = rewrite(source.name, source.data or b"", result.new.encode("utf-8"), break_hard_links=break_hard_links)
    except RewriteError as exc:
        result.failed.append(Note(source.name, 1, "", str(exc)))
        result.migrated.clear()
        result.changes.clear()
        result.new = result.old
        return
    result.changes.extend(Note(source.name, 1, "file", note) for note in notes)


def _report(results: list[FileResult], args: argparse.Namespace) -> int:
    """Per-object lines and the summary on stderr; returns the number of problems."""
    migrated = sum(len(r.migrated) for r in results)
    failed = sum(len(r.failed) for r in results)
    for r in results:
        if not args.quiet:
            for note in r.migrated:
                print(f"{note.source}:{note.line}: {'migrated' if args.write else 'would migrate'} {note.what} {note.message}", file=sys.stderr)
            for note in r.changes:
                print(f"{note.source}:{note.line}: {note.message}", file=sys.stderr)
        for note in r.failed:
            print(f"{note.source}:{note.line}: {f'cannot migrate {note.what}' if note.what else 'not migrated'}: {note.message}", file=sys.stderr)
    files = sum(1 for r in results if r.changed)
    verb = "migrated" if args.write else "to migrate"
    print(f"{migrated} object{'s' if migrated != 1 else ''} {verb} in {files} file{'s' if files != 1 else ''}"
          f"{f', {failed} problem(s) left unchanged' if failed else ''}", file=sys.stderr)
    return failed
