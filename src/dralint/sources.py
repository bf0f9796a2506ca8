"""Sources: turn the command line's paths into named byte strings.

Files named explicitly are always read; directories are walked for
`*.yaml`, `*.yml` and `*.json`, in a stable order, skipping hidden folders
(`.git`, `.venv`) so a repository root can be linted as it is.
"""


import os
import sys
from typing import BinaryIO, Iterator, NamedTuple

EXTENSIONS = (".yaml", ".yml", ".json")
MAX_BYTES = 16 * 1024 * 1024


class Source(NamedTuple):
    name: str
    data: bytes | None  # None when it could not be read; `error` says why
    error: str | None = None


def collect(paths: list[str], stdin: BinaryIO | None = None) -> Iterator[Source]:
    seen: set[str] = set()
    for path in paths:
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            yield Source("-", _read_stream(stream))
            continue
        if os.path.isdir(path):
            for file in _walk(path):
                real = os.path.realpath(file)
                if real not in seen:
                    seen.add(real)
                    yield _read(file)
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        yield _read(path)


def _walk(root: str) -> Iterator[str]:
    found: list[str] = []
    visited: set[tuple[int, int]] = set()
    for folder, dirs, files in os.walk(root, followlinks=True):
        try:
            st = os.stat(folder)
        except OSError:
            continue
        # Symlinked folders can loop back on themselves.
        if (st.st_dev, st.st_ino) in visited:
            dirs[:] = []
            continue
        visited.add((st.st_dev, st.st_ino))
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if name.lower().endswith(EXTENSIONS) and not name.startswith("."):
                # normpath: `dralint .` reports tests/a.yaml, as editors and CI annotations expect.
                found.append(os.path.normpath(os.path.join(folder, name)))
    yield from sorted(found)


def _read(path: str) -> Source:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return Source(path, None, "no such file or directory")
    except IsADirectoryError:
        return Source(path, None, "is a directory")
    except OSError as exc:
        return Source(path, None, exc.strerror or str(exc))
    return Source(path, data)


def _read_stream(stream: BinaryIO) -> bytes:
    return stream.read(MAX_BYTES + 1)
