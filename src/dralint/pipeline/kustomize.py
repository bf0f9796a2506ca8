"""Kustomize: which files of a run are patches, and what they patch.

A file listed by a kustomization (`kustomization.yaml`, `kustomization.yml`
or `Kustomization`) under `patches` (`path:` entries), `patchesStrategicMerge`
or `patchesJson6902` is not an object of its own: kustomize merges it into an
object of the kustomization's resources. So it is checked as a partial object:

* a strategic-merge patch is a Document with `patch` set: the schema check and
  the rules judge everything it says, nothing it leaves out (dralint.pipeline.run drops
  a Required finding about a field the patch does not write), and the checks that
  follow references inside one object (a container's claim names a claim of its
  pod) see the patched objects of the kustomization as well;
* a JSON 6902 patch (a list of operations) becomes one Document per `add`,
  `replace` or `test` operation that lands in a known kind: its value, placed at
  the operation's path in an otherwise empty object of the target's kind, with
  the positions of the value in the patch file.

A patch is found through the kustomizations in its own folder and the folders
above it (up to the repository's root), read from disk whatever the run lists:
the answer is the same whether pre-commit passes the patch alone, with its
kustomization, or in a batch of its own. Kustomizations are read with the
project's loader and cached per folder; a broken one is ignored here (it is
linted as any file is).
"""

from __future__ import annotations

import os

from ..model import Document, Node, Path, value_at

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any, Iterator

NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
MAX_LEVELS = 16  # folders above a patch searched for its kustomization
MAX_BASE_DEPTH = 16  # kustomizations followed through resources (overlays of overlays)
MAX_BASE_FILE = 4 * 1024 * 1024
JSON_OPS_WITH_VALUE = ("add", "replace", "test")


class Patch:
    """One file a kustomization lists as a patch: how kustomize applies it, and to what."""

    __slots__ = ("kind", "kustomization", "target", "_index")

    def __init__(self, kind: str, kustomization: str, target: dict[str, Any] | None, index: "Kustomizations"):
        self.kind = kind  # "strategic", "json6902", or "patches" (either: a list of operations is JSON 6902)
        self.kustomization = kustomization  # the kustomization file that lists it
        self.target = target  # its `target:` (group, version, kind, name ...), when the entry has one
        self._index = index

    def base_objects(self, api_version: str | None, kind: str | None, name: str | None) -> tuple[Any, ...]:
        """The objects of the kustomization's resources (through bases and overlays) this patch applies to:
        of its `target:` when it has one, else of the patch's own kind and name."""
        target = self.target or {}
        want_kind = target.get("kind") or kind
        want_name = target.get("name") if "name" in target else name
        found = []
        for _source, data in self._index.resources(os.path.dirname(self.kustomization)):
            if want_kind is not None and data.get("kind") != want_kind:
                continue
            meta = data.get("metadata")
            if want_name is not None and not (isinstance(meta, dict) and meta.get("name") == want_name):
                continue
            found.append(data)
        return tuple(found)

    def objects(self) -> tuple[tuple[str, Any], ...]:
        """(file, object) of every object of the kustomization's resources: what the patched objects'
        references (a pod's claim template, a claim's class) may name besides the files of the run."""
        return self._index.resources(os.path.dirname(self.kustomization))

    def target_type(self) -> tuple[str | None, str | None]:
        """(apiVersion, kind) of the target a JSON 6902 patch names."""
        target = self.target or {}
        group, version, kind = target.get("group"), target.get("version"), target.get("kind")
        if not isinstance(version, str) or not isinstance(kind, str):
            return None, kind if isinstance(kind, str) else None
        return (f"{group}/{version}" if isinstance(group, str) and group else version), kind


class Kustomizations:
    """The kustomizations around a run's files, read from disk once per folder."""

    def __init__(self) -> None:
        self._folders: dict[str, dict[str, Any] | None] = {}  # folder -> its kustomization's data, or None
        self._patches: dict[str, dict[str, Patch]] = {}  # folder -> patch file (normalized) -> Patch
        self._around: dict[str, dict[str, Patch]] = {}  # a folder as the run names it -> the patches above it
        self._resources: dict[str, tuple[tuple[str, Any], ...]] = {}  # folder -> (file, object) of its resources

    def patch_of(self, name: str) -> Patch | None:
        """The Patch `name` (a file of the run) is, or None. One dict lookup for a file whose folder was
        seen: the folders of a run are few, its files many."""
        if name == "-" or name.startswith("<"):
            return None
        raw = os.path.dirname(name)
        around = self._around.get(raw)
        if around is None:
            around = self._around[raw] = self._patches_above(os.path.abspath(raw or "."))
        return around.get(os.path.normpath(os.path.abspath(name))) if around else None

    def _patches_above(self, folder: str) -> dict[str, Patch]:
        """The patches the kustomizations of `folder` and the folders above it list (the nearest wins)."""
        found: dict[str, Patch] = {}
        for _ in range(MAX_LEVELS):
            for path, patch in self._listed(folder).items():
                found.setdefault(path, patch)
            parent = os.path.dirname(folder)
            if parent == folder or os.path.isdir(os.path.join(folder, ".git")):
                break
            folder = parent
        return found

    def _kustomization(self, folder: str) -> dict[str, Any] | None:
        if folder in self._folders:
            return self._folders[folder]
        data = None
        for file in NAMES:
            loaded = _read_yaml(os.path.join(folder, file))
            if loaded is not None:
                data = loaded[0] if loaded and isinstance(loaded[0], dict) else None
                break
        self._folders[folder] = data
        return data

    def _listed(self, folder: str) -> dict[str, Patch]:
        patches = self._patches.get(folder)
        if patches is not None:
            return patches
        patches = self._patches[folder] = {}
        data = self._kustomization(folder)
        if data is None:
            return patches
        file = next(os.path.join(folder, n) for n in NAMES if os.path.isfile(os.path.join(folder, n)))
        for entry, kind, target in _patch_entries(data):
            patches[os.path.normpath(os.path.join(folder, entry))] = Patch(kind, file, target, self)
        return patches

    def resources(self, folder: str, depth: int = 0) -> tuple[tuple[str, Any], ...]:
        """Every object of the kustomization in `folder`: its resources, bases and components, recursively."""
        found = self._resources.get(folder)
        if found is not None:
            return found
        self._resources[folder] = ()  # a kustomization that includes itself ends here
        objects: list[tuple[str, Any]] = []
        data = self._kustomization(folder)
        if data is not None and depth < MAX_BASE_DEPTH:
            for entry in _strings(data, "resources", "bases", "components"):
                path = os.path.normpath(os.path.join(folder, entry))
                if os.path.isdir(path):
                    # By real path: folders that include each other through links end as a cycle does.
                    objects.extend(self.resources(os.path.realpath(path), depth + 1))
                else:
                    shown = os.path.relpath(path) if not os.path.isabs(entry) else path
                    objects.extend((shown, d) for d in _read_yaml(path) or () if isinstance(d, dict))
        found = self._resources[folder] = tuple(objects)
        return found


def _patch_entries(data: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any] | None]]:
    """(file, "strategic" or "json6902", target) of each patch file a kustomization lists; inline patches
    are not files. A `patches:` file is JSON 6902 when it holds a list (kustomize tells them apart so too):
    that is decided when the file is loaded, so "patches" is reported here."""
    for entry in _list(data, "patches"):
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            yield entry["path"], "patches", _target(entry)
    for entry in _list(data, "patchesStrategicMerge"):
        if isinstance(entry, str) and "\n" not in entry:
            yield entry, "strategic", None
        elif isinstance(entry, dict) and isinstance(entry.get("path"), str):
            yield entry["path"], "strategic", _target(entry)
    for entry in _list(data, "patchesJson6902"):
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            yield entry["path"], "json6902", _target(entry)


def _target(entry: dict[str, Any]) -> dict[str, Any] | None:
    target = entry.get("target")
    return target if isinstance(target, dict) else None


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _strings(data: dict[str, Any], *keys: str) -> Iterator[str]:
    for key in keys:
        for entry in _list(data, key):
            if isinstance(entry, str) and "://" not in entry and not entry.startswith(("github.com/", "git@")):
                yield entry


def _read_yaml(path: str) -> list[Any] | None:
    """The documents of a file on disk, or None when it cannot be read."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_BASE_FILE:
            return None
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    from .load import load  # noqa: PLC0415 - not for what only needs the names (the result cache's digests)

    return [doc.data for doc in load(path, data).documents]


# ---------------------------------------------------------------------------
# JSON 6902 operations as partial documents.


def json6902_documents(ops: Document, api_version: str | None, kind: str | None) -> Iterator[tuple[Document, Path, Path]]:
    """(partial document, its path in the target, the same path as the document writes it) for each
    operation of `ops` (a loaded JSON 6902 patch) that sets a value inside the target's kind.

    The document holds the operation's value at the operation's path (list indexes as 0: one item),
    with the positions of the value in the patch file; the operation's `path` string stands for the
    levels above the value. The caller maps reported paths back with `real_path`.
    """
    if not isinstance(ops.data, list) or kind is None:
        return
    for i, op in enumerate(ops.data):
        if not isinstance(op, dict) or op.get("op") not in JSON_OPS_WITH_VALUE or "value" not in op:
            continue
        pointer = op.get("path")
        if not isinstance(pointer, str) or not pointer.startswith("/"):
            continue
        real = tuple(_pointer_parts(pointer))
        if not real or real[0] in ("apiVersion", "kind"):
            continue
        placed = tuple(0 if isinstance(p, int) else p for p in real)
        data: Any = op["value"]
        for part in reversed(placed):
            data = [data] if isinstance(part, int) else {part: data}
        data = {"apiVersion": api_version, "kind": kind, **data} if api_version else {"kind": kind, **data}
        positions: dict[Path, Node] = {}
        value_prefix = (i, "value")
        anchor = ops.positions.get((i, "path")) or ops.positions.get((i,)) or ops.positions[()]
        for j in range(len(placed)):
            positions[placed[:j]] = Node(anchor.key if j else None, anchor.value)
        for path, node in ops.positions.items():
            if path == value_prefix:  # the value's key is the operation's path: an unknown field is written there
                positions[placed] = Node(anchor.value, node.value)
            elif path[:2] == value_prefix:
                positions[placed + path[2:]] = node
        styles = {placed + p[2:]: s for p, s in ops.scalar_styles.items() if p[:2] == value_prefix}
        doc = Document(ops.source, ops.index, data, positions, ops.text, styles, ops.list_item)
        yield doc, real, placed


def real_path(path: Path, placed: Path, real: Path) -> Path:
    """A path reported in a JSON 6902 document, as the operation's path writes it."""
    return real + path[len(placed):] if path[: len(placed)] == placed else path


def _pointer_parts(pointer: str) -> Iterator[str | int]:
    for part in pointer[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if part == "-":
            yield 0
        elif part.isdigit():
            yield int(part)
        else:
            yield part


class Operation:
    """The `patch` of a document made of one JSON 6902 operation: the patch, and how its paths map back."""

    __slots__ = ("patch", "placed", "real")

    def __init__(self, patch: Patch, placed: Path, real: Path):
        self.patch = patch
        self.placed = placed
        self.real = real

    def base_objects(self, api_version: str | None, kind: str | None, name: str | None) -> tuple[Any, ...]:
        return self.patch.base_objects(api_version, kind, name)  # by the patch's target


def as_patches(patch: Patch, documents: list[Document]) -> list[Document]:
    """The documents of a patch file, marked as partial: a strategic-merge patch's objects as they are,
    a JSON 6902 patch's operations as one document each (`json6902_documents`)."""
    out: list[Document] = []
    for doc in documents:
        if isinstance(doc.data, list) and patch.kind in ("patches", "json6902"):
            api_version, kind = patch.target_type()
            if api_version is None:
                continue  # no version to check against: kustomize itself needs group, version and kind
            for op_doc, real, placed in json6902_documents(doc, api_version, kind):
                op_doc.patch = Operation(patch, placed, real)
                out.append(op_doc)
        elif isinstance(doc.data, dict):
            doc.patch = patch
            out.append(doc)
    return out


def partial_problems(doc: Document, problems: list[Any]) -> list[Any]:
    """A patch's problems: none about a field it leaves out (a Required error at a path it does not
    write), and those of a JSON 6902 operation at the path the operation names."""
    kept = []
    for p in problems:
        if p.error_type == "Required" and not _written(doc.data, p.path):
            continue
        if _deleted(doc.data, p.path):
            continue  # `$patch: delete` names an item to remove: it is no object of its own
        if isinstance(doc.patch, Operation):
            p.path = real_path(p.path, doc.patch.placed, doc.patch.real)
        kept.append(p)
    return kept


def _deleted(data: Any, path: Path) -> bool:
    """Whether `path` lies in a part of a strategic-merge patch marked `$patch: delete`."""
    for depth in range(len(path) + 1):
        node = value_at(data, path[:depth], _MISSING)
        if node is _MISSING:
            return False
        if isinstance(node, dict) and node.get("$patch") == "delete":
            return True
    return False


_MISSING = object()


def _written(data: Any, path: Path) -> bool:
    return value_at(data, path, _MISSING) is not _MISSING
