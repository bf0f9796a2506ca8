"""The language server's workspace index: what the files of the workspace folders define.

A buffer is judged with the run-scope records (dralint.pipeline.run.records_of) of every
other manifest of the workspace, read from disk, so a claim whose DeviceClass
is defined in another file is as fine as in `dralint .`. Each file is read with
the options of its own `.dralint.yaml`; a file that config's `ignore-paths`
ignores whole (every rule, every field) defines nothing. The index lives in the
lint process: built on the first lint that names the folders, a file re-read
when the server says it changed (saved, or a file event), dropped with the
settings when a config changes. Files are found as `dralint FOLDER` finds them.
"""

from __future__ import annotations

import os

from ..pipeline.run import records_of
from ..pipeline.sources import files, read_all

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

# Files looked at per workspace at most: each that names the group is linted once to index it, in the
# lint process, within the first lint's time limit.
MAX_FILES = 2000
GROUP = b"resource.k8s.io"  # what the index is for: DeviceClasses, ResourceClaims, ResourceClaimTemplates

Records = dict[str, dict[str, list]]  # release -> collector key -> records


class WorkspaceIndex:
    def __init__(self, folders: tuple[str, ...], settings: Any):
        self.folders = folders
        self._settings = settings  # path -> BufferConfig (dralint.lsp.engine.settings_for)
        self.files: dict[str, Records] = {}
        for seen, (name, error) in enumerate(files(list(folders))):
            if seen >= MAX_FILES:
                break
            if error is None:
                self._read(os.path.abspath(name))

    def _read(self, path: str) -> None:
        self.files.pop(path, None)
        if not os.path.isfile(path):
            return
        options = self._settings(path).options
        if _ignored_whole(path, options.ignore_paths):
            return
        source = next(read_all([(path, None)]))
        if source.data is None or GROUP not in source.data:  # defines no DRA object: not linted to find out
            return
        try:
            records = records_of(source, options)
        except Exception:  # noqa: BLE001  a file that cannot be indexed defines nothing; its own lint says why
            return
        if any(records.values()):
            self.files[path] = records

    def update(self, paths: list[str]) -> None:
        """Re-read `paths` (changed, created or deleted) that lie in the workspace folders."""
        for path in paths:
            path = os.path.abspath(path)
            if any(_inside(path, folder) for folder in self.folders) and path.endswith((".yaml", ".yml", ".json")):
                self._read(path)

    def known(self, exclude: str) -> Records:
        """Every file's records but `exclude`'s (the buffer: its text in the editor wins over the disk's)."""
        exclude = os.path.abspath(exclude)
        merged: Records = {}
        for path, records in self.files.items():
            if path == exclude:
                continue
            for release, by_key in records.items():
                target = merged.setdefault(release, {})
                for key, found in by_key.items():
                    target.setdefault(key, []).extend(found)
        return merged


def _inside(path: str, folder: str) -> bool:
    folder = os.path.abspath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _ignored_whole(path: str, ignore: Any) -> bool:
    """Whether an `ignore-paths` entry with neither rules nor fields matches the file."""
    if ignore is None:
        return False
    try:
        relative = os.path.relpath(path, ignore.base).replace(os.sep, "/")
    except ValueError:
        return False
    return any(not entry.rules and not entry.fields and entry.files and entry.matches_file(relative) for entry in ignore.entries)


_index: WorkspaceIndex | None = None


def index_for(folders: tuple[str, ...], settings: Any) -> WorkspaceIndex | None:
    global _index
    if not folders:
        return None
    if _index is None or _index.folders != folders:
        _index = WorkspaceIndex(folders, settings)
    return _index


def changed(paths: list[str]) -> None:
    if _index is not None:
        _index.update(paths)


def forget() -> None:
    global _index
    _index = None
