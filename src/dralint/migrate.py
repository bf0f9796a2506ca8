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
that keeps comments, key order, quoting and the file's indentation); every
other byte of the file stays as it was. Each migrated object is linted at
Kubernetes 1.37 before it is accepted: an object that cannot be converted
without loss or guessing, or whose result would not lint clean, is reported
and left unchanged.

Exit codes: 0 nothing to do or everything migrated, 1 something could not be
migrated, 2 usage error (bad option, unreadable path).
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import os
import re
import stat
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .arguments import UsageError
from .k8s.resource import EXACT_FIELDS

TARGETS = ("resource.k8s.io/v1",)
SOURCES = ("resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2")
KINDS = ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice")
VERIFY_RELEASE = "1.37"  # the newest release (schemas.DEFAULT_RELEASE): where migrated objects must land
# v1beta1 DeviceRequest fields that v1 keeps in ExactDeviceRequest (upstream conversion order).
_MARKER = re.compile(r"^(---|\.\.\.)(?=[ \t]|$)(.*)$")


class MigrateUsageError(Exception):
    pass


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

    @property
    def changed(self) -> bool:
        return self.old != self.new


# ---------------------------------------------------------------- conversion on plain mappings


def _is_map(value: Any) -> bool:
    return isinstance(value, dict)


def _describe(obj: Any) -> str:
    meta = obj.get("metadata") if _is_map(obj) else None
    name = meta.get("name") or meta.get("generateName") if _is_map(meta) else None
    ns = meta.get("namespace") if _is_map(meta) else None
    ref = f"{ns}/{name}" if ns and name else (name or "<unnamed>")
    return f"{obj.get('kind')}/{ref} ({obj.get('apiVersion')})"


def _claim_spec(obj: Any) -> tuple[Any, str]:
    spec = obj.get("spec")
    if obj.get("kind") == "ResourceClaimTemplate":
        return (spec.get("spec") if _is_map(spec) else None), "spec.spec"
    return spec, "spec"


def needs_migration(obj: Any) -> bool:
    return _is_map(obj) and obj.get("apiVersion") in SOURCES and obj.get("kind") in KINDS


def check(obj: Any) -> list[str]:
    """Why `obj` cannot be converted without loss or guessing (empty: it can)."""
    reasons: list[str] = []
    if obj.get("apiVersion") != "resource.k8s.io/v1beta1":
        return reasons  # v1beta2 has the v1 shape
    kind = obj["kind"]
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


def _new_map(like: Any) -> Any:
    return type(like)() if hasattr(like, "ca") else {}


def _move(src: Any, dst: Any, key: str) -> None:
    dst[key] = src[key]
    ca = getattr(src, "ca", None)
    if ca is not None and key in ca.items:
        dst.ca.items[key] = ca.items.pop(key)
    del src[key]


def convert(obj: Any, target: str) -> None:
    """Convert `obj` (checked with `check`) to `target` in place."""
    if obj.get("apiVersion") == "resource.k8s.io/v1beta1":
        kind = obj["kind"]
        if kind in ("ResourceClaim", "ResourceClaimTemplate"):
            spec, _ = _claim_spec(obj)
            devices = spec.get("devices") if _is_map(spec) else None
            for req in (devices.get("requests") or []) if _is_map(devices) else []:
                flat = [k for k in req if k in EXACT_FIELDS]
                if not flat:
                    continue
                pos = list(req).index(flat[0])
                exactly = _new_map(req)
                for key in flat:
                    _move(req, exactly, key)
                _insert(req, pos, "exactly", exactly)
        elif kind == "ResourceSlice":
            spec = obj.get("spec")
            for dev in (spec.get("devices") or []) if _is_map(spec) else []:
                if "basic" not in dev:
                    continue
                pos = list(dev).index("basic")
                basic = dev["basic"] or {}
                basic_ca = getattr(basic, "ca", None)
                dev_ca = getattr(dev, "ca", None)
                if dev_ca is not None:
                    dev_ca.items.pop("basic", None)
                del dev["basic"]
                for offset, (key, value) in enumerate(list(basic.items())):
                    _insert(dev, pos + offset, key, value)
                    if basic_ca is not None and dev_ca is not None and key in basic_ca.items:
                        dev_ca.items[key] = basic_ca.items[key]
    obj["apiVersion"] = target


# ---------------------------------------------------------------- documents in a file


@dataclass
class _Chunk:
    header: str  # the `---` line (with its newline), or "" for the part before the first marker
    body: str
    line: int  # 1-based line of the body's first line in the file

    @property
    def text(self) -> str:
        return self.header + self.body


def split_documents(text: str) -> list[_Chunk]:
    """Split a YAML stream at its `---` / `...` lines, keeping every character."""
    chunks: list[_Chunk] = []
    header, body, start = "", [], 1
    lineno = 0
    for line in text.splitlines(keepends=True):
        lineno += 1
        if _MARKER.match(line.rstrip("\r\n")):
            chunks.append(_Chunk(header, "".join(body), start))
            header, body, start = line, [], lineno + 1
        else:
            body.append(line)
    chunks.append(_Chunk(header, "".join(body), start))
    return chunks


def guess_indent(text: str) -> tuple[int, int, int]:
    """(mapping, sequence, offset) indentation for ruamel.yaml, read from the text's block collections."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    maps: Counter[int] = Counter()
    offsets: Counter[int] = Counter()
    seqs: Counter[int] = Counter()
    key_line = re.compile(r"((?:- +)*)([^\s#'\"-][^:#]*|'[^']*'|\"[^\"]*\"):[ \t]*(#.*)?$")
    for a, b in zip(lines, lines[1:]):
        sa = a.lstrip(" ")
        m = key_line.match(sa)
        if not m:
            continue
        kcol = len(a) - len(sa) + len(m.group(1))
        sb = b.lstrip(" ")
        cb = len(b) - len(sb)
        if cb < kcol:
            continue
        if sb.startswith("- ") or sb == "-":
            offsets[cb - kcol] += 1
            dm = re.match(r"-( +)", sb)
            if dm:
                seqs[cb - kcol + 1 + len(dm.group(1))] += 1
        elif cb > kcol:
            maps[cb - kcol] += 1
    mapping = maps.most_common(1)[0][0] if maps else 2
    offset = offsets.most_common(1)[0][0] if offsets else 0
    sequence = seqs.most_common(1)[0][0] if seqs else offset + 2
    return mapping, max(sequence, offset + 2), offset


def _yaml(indent: tuple[int, int, int]) -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1 << 16  # never re-wrap long lines
    yaml.indent(mapping=indent[0], sequence=indent[1], offset=indent[2])
    return yaml


def _objects(root: Any) -> list[Any]:
    """The objects of a document: itself, or the items of a `kind: List`."""
    if _is_map(root) and root.get("kind") == "List" and isinstance(root.get("items"), list):
        return [item for item in root["items"] if needs_migration(item)]
    return [root] if needs_migration(root) else []


def _line_of(obj: Any, base: int) -> int:
    lc = getattr(obj, "lc", None)
    return base + (lc.line if lc is not None and lc.line is not None else 0)


def _verify(name: str, text: str, base: int) -> list[tuple[int, str]]:
    """Lint `text` (one migrated document) at VERIFY_RELEASE: (file line, message) of every error."""
    from .lint import LintOptions, lint
    from .model import Severity
    from .sources import Source

    # A YAML document may carry its own `# dralint: kubernetes-version=` comment: ours comes first.
    # JSON has no comments (and none can pin its release).
    is_json = name.lower().endswith(".json")
    pinned = "" if is_json else f"# dralint: kubernetes-version={VERIFY_RELEASE}\n"
    result = lint([Source(name, (pinned + text).encode("utf-8"))], LintOptions(release=VERIFY_RELEASE, plugins=False))
    out = []
    for p in result.problems:
        if p.severity >= Severity.ERROR:
            path = p.path_text
            out.append((base + p.span.line - (1 if is_json else 2), f"{p.message}{f' (at {path})' if path else ''} [{p.rule} {p.name}]"))
    return out


def _restore_untouched_lines(old: str, new: str) -> str:
    """Undo what the YAML emitter normalised on lines the migration did not mean to touch.

    ruamel.yaml writes `kind:  X` as `kind: X`; a line that differs from its
    original only in the spacing after the indentation is put back as it was.
    The result must load to the same data as the emitter's output, else the
    emitter's output is kept.
    """
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)

    def norm(line: str) -> tuple[str, str]:
        body = line.rstrip("\r\n")
        stripped = body.lstrip(" ")
        return body[: len(body) - len(stripped)], re.sub(r"[ \t]+", " ", stripped).rstrip()

    out: list[str] = []
    changed = False
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "replace" and i2 - i1 == j2 - j1:
            for o, n in zip(old_lines[i1:i2], new_lines[j1:j2]):
                if o != n and norm(o) == norm(n) and o.endswith("\n") == n.endswith("\n"):
                    out.append(o)
                    changed = True
                else:
                    out.append(n)
        else:
            out.extend(new_lines[j1:j2])
    if not changed:
        return new
    restored = "".join(out)
    from ruamel.yaml import YAML

    safe = YAML(typ="safe", pure=True)
    try:
        if safe.load(restored) == safe.load(new):
            return restored
    except Exception:
        pass
    return new


def _migrate_yaml_chunk(name: str, chunk: _Chunk, target: str, result: FileResult) -> str:
    if "resource.k8s.io/v1beta" not in chunk.body:
        return chunk.body
    marker = _MARKER.match(chunk.header.rstrip("\r\n")) if chunk.header else None
    if marker and marker.group(2).strip() and not marker.group(2).strip().startswith("#"):
        result.failed.append(Note(name, chunk.line - 1, "document", "the document starts on its '---' line; move its content to the next line to migrate it"))
        return chunk.body
    yaml = _yaml(guess_indent(chunk.body))
    try:
        root = yaml.load(chunk.body)
    except Exception as exc:  # a template or a broken file: leave it to `dralint lint` to explain
        if re.search(r"^apiVersion:\s*['\"]?resource\.k8s\.io/v1beta[12]\b", chunk.body, re.M):
            result.failed.append(Note(name, chunk.line, "document", f"not parsable as YAML ({type(exc).__name__}); not migrated"))
        return chunk.body
    objects = _objects(root)
    if not objects:
        return chunk.body
    blocked = False
    for obj in objects:
        reasons = check(obj)
        for reason in reasons:
            result.failed.append(Note(name, _line_of(obj, chunk.line), _describe(obj), reason))
        blocked = blocked or bool(reasons)
    if blocked:
        return chunk.body
    descriptions = [(_describe(obj), _line_of(obj, chunk.line)) for obj in objects]
    for obj in objects:
        convert(obj, target)
    out = io.StringIO()
    yaml.dump(root, out)
    new = out.getvalue()
    # Keep the body's own trailing blank lines (ruamel ends with exactly one newline).
    stripped = chunk.body.rstrip("\n")
    trailing = chunk.body[len(stripped):]
    new = new.rstrip("\n") + (trailing if trailing else "")
    if not chunk.body.endswith("\n"):
        new = new.rstrip("\n")
    new = _restore_untouched_lines(chunk.body, new)
    errors = _verify(name, new, chunk.line)
    if errors:
        for line, message in errors:
            what = descriptions[0][0] if len(descriptions) == 1 else "document"
            result.failed.append(Note(name, line, what, f"the {target} result would not lint clean at Kubernetes {VERIFY_RELEASE}: {message}; left unchanged"))
        return chunk.body
    for what, line in descriptions:
        result.migrated.append(Note(name, line, what, f"-> {target}"))
    return new


def _migrate_json(name: str, text: str, target: str, result: FileResult) -> str | None:
    """A JSON file: None when it is not JSON (then it is treated as YAML)."""
    try:
        root = json.loads(text)
    except ValueError:
        return None
    objects = _objects(root)
    if not objects:
        return text
    blocked = False
    for obj in objects:
        for reason in check(obj):
            result.failed.append(Note(name, 1, _describe(obj), reason))
            blocked = True
    if blocked:
        return text
    descriptions = [_describe(obj) for obj in objects]
    for obj in objects:
        convert(obj, target)
    m = re.search(r"\n([ \t]+)\S", text)
    indent: int | str | None = (len(m.group(1)) if m.group(1).strip(" ") == "" else m.group(1)) if m else None
    new = json.dumps(root, indent=indent, ensure_ascii=False)
    if text.endswith("\n"):
        new += "\n"
    errors = _verify(name, new, 1)
    if errors:
        for line, message in errors:
            result.failed.append(Note(name, line, descriptions[0] if len(descriptions) == 1 else "document",
                                      f"the {target} result would not lint clean at Kubernetes {VERIFY_RELEASE}: {message}; left unchanged"))
        return text
    for what in descriptions:
        result.migrated.append(Note(name, 1, what, f"-> {target}"))
    return new


def migrate_text(name: str, text: str, target: str = TARGETS[0]) -> FileResult:
    """Migrate every beta DRA object of one file's text. Line endings and a BOM are kept."""
    result = FileResult(name, text, text)
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom):]
    crlf = "\r\n" in body
    if crlf:
        body = body.replace("\r\n", "\n")
    new: str | None = None
    if name.lower().endswith(".json") or body.lstrip().startswith(("{", "[")):
        new = _migrate_json(name, body, target, result)
    if new is None:
        new = "".join(chunk.header + _migrate_yaml_chunk(name, chunk, target, result) for chunk in split_documents(body))
    if new == body:
        return result
    if crlf:
        new = new.replace("\n", "\r\n")
    result.new = bom + new
    return result


# ---------------------------------------------------------------- files


def write_atomic(path: str, data: bytes) -> None:
    """Replace `path` with `data`: a temporary file in the same folder, fsync, rename; mode kept."""
    real = os.path.realpath(path)  # a symlink stays a symlink; its target is rewritten
    folder = os.path.dirname(real) or "."
    st = os.stat(real)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.", suffix=".dralint-tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except (AttributeError, PermissionError, OSError):
            pass
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dralint migrate",
        description="Rewrite v1beta1/v1beta2 ResourceClaim, ResourceClaimTemplate, DeviceClass and ResourceSlice objects to resource.k8s.io/v1. "
        "Prints a unified diff unless --write is given; other documents and comments are kept.",
        epilog="Exit codes: 0 nothing to do or all migrated, 1 something could not be migrated, 2 usage error.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, folders (searched for *.yaml, *.yml, *.json) or - for standard input")
    parser.add_argument("--to", required=True, metavar="API_VERSION", help=f"the apiVersion to migrate to: {', '.join(TARGETS)}")
    parser.add_argument("-w", "--write", action="store_true", help="rewrite the files in place (atomically) instead of printing a diff")
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

    from .sources import collect

    results: list[FileResult] = []
    unreadable = False
    for source in collect(args.paths):
        if source.data is None:
            print(f"dralint migrate: cannot read {source.name}: {source.error}", file=sys.stderr)
            unreadable = True
            continue
        try:
            text = source.data.decode("utf-8")
        except UnicodeDecodeError:
            print(f"{source.name}: not UTF-8 text; not migrated", file=sys.stderr)
            results.append(FileResult(source.name, "", "", failed=[Note(source.name, 1, "file", "not UTF-8")]))
            continue
        result = migrate_text(source.name, text, args.to)
        results.append(result)
        if source.name == "-":
            sys.stdout.write(result.new)
        elif result.changed:
            if args.write:
                write_atomic(source.name, result.new.encode("utf-8"))
            else:
                sys.stdout.writelines(
                    difflib.unified_diff(result.old.splitlines(keepends=True), result.new.splitlines(keepends=True),
                                         fromfile=f"a/{source.name.lstrip('/')}", tofile=f"b/{source.name.lstrip('/')}")
                )
                if not result.new.endswith("\n"):
                    sys.stdout.write("\n\\ No newline at end of file\n")
    sys.stdout.flush()

    migrated = sum(len(r.migrated) for r in results)
    failed = sum(len(r.failed) for r in results)
    for r in results:
        if not args.quiet:
            for note in r.migrated:
                print(f"{note.source}:{note.line}: {'migrated' if args.write else 'would migrate'} {note.what} {note.message}", file=sys.stderr)
        for note in r.failed:
            print(f"{note.source}:{note.line}: cannot migrate {note.what}: {note.message}", file=sys.stderr)
    files = sum(1 for r in results if r.changed)
    verb = "migrated" if args.write else "to migrate"
    print(f"{migrated} object{'s' if migrated != 1 else ''} {verb} in {files} file{'s' if files != 1 else ''}"
          f"{f', {failed} problem(s) left unchanged' if failed else ''}", file=sys.stderr)
    if unreadable:
        return 2
    return 1 if failed else 0
