"""The shared real-world corpus split into bench sets, for every script in bench/ that needs them.

    python bench/corpus_sets.py OUT [--set a|b|c] [--json]

Sets (issue 23), built from ../shared/corpus/real-world (its index.json gives each
file's release and feature gates; templated files, which are not YAML, and Lists, whose
items dralint counts as documents, are left out):

  (a) 10,000 documents, one a file;
  (b) 10,000 documents, 100 a file (documents of one release and gate set share a file);
  (c) 100,000 documents, one a file.

Documents are taken in the corpus's order and repeated until the count is reached. Each
file opens with the `# dralint: kubernetes-version=` (and `feature-gates=`) comment of
its documents, so dralint judges them as the corpus index says. --json writes each
document as JSON instead (no comment: JSON has none; the default release judges them), as
a stream of JSON values in (b).

`corpus_root()` is None when ../shared is absent: callers skip the real-world sets then.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

SETS = {"a": (10_000, 1), "b": (10_000, 100), "c": (100_000, 1)}
_SEPARATOR = re.compile(r"^---[ \t]*(?:#.*)?$", re.MULTILINE)
_LIST = re.compile(r"^kind:[ \t]*\w*List[ \t]*$", re.MULTILINE)


def corpus_root() -> Path | None:
    """../shared/corpus/real-world beside the checkout, or None when it is absent."""
    root = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "real-world"
    return root if (root / "index.json").is_file() else None


def documents(root: Path) -> list[tuple[str, str]]:
    """(header comment, document text) for every non-empty document of the corpus's untemplated files."""
    out: list[tuple[str, str]] = []
    for entry in json.loads((root / "index.json").read_text()):
        if entry.get("templated") or not entry.get("k8s_version"):
            continue
        header = f"# dralint: kubernetes-version={entry['k8s_version']}\n"
        gates = entry.get("feature_gates") or []
        if gates:
            header += "# dralint: feature-gates=" + ",".join(f"{g}=true" for g in gates) + "\n"
        text = (root / entry["file"]).read_text()
        for part in _SEPARATOR.split(text):
            body = "\n".join(line for line in part.splitlines() if not line.startswith("# dralint:"))
            if _LIST.search(body):
                continue  # dralint counts a List's items as documents, the bare parse counts one
            if any(line.strip() and not line.lstrip().startswith("#") for line in body.splitlines()):
                out.append((header, body.strip("\n") + "\n"))
    return out


def _as_json(text: str) -> str:
    """The document as dralint reads it (repeated keys: the last wins; timestamps stay text), as JSON."""
    from dralint.pipeline.load import load  # only --json needs a YAML loader here

    return json.dumps(load("document.yaml", text.encode()).documents[0].data, indent=2) + "\n"


def _write(path: Path, text: str) -> None:
    # os.write: 100,000 files in seconds, not a minute
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def build(folder: Path, count: int, per_file: int, as_json: bool = False, root: Path | None = None) -> Path:
    """Write the set into `folder` (reused when a previous build completed); returns `folder`."""
    done = folder / ".complete"
    if done.exists():
        return folder
    root = root or corpus_root()
    if root is None:
        raise FileNotFoundError("../shared/corpus/real-world is absent")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    docs = documents(root)
    if as_json:
        docs = [("", _as_json(body)) for _header, body in docs]
    suffix = ".json" if as_json else ".yaml"
    if per_file == 1:
        for n in range(count):
            header, body = docs[n % len(docs)]
            _write(folder / f"doc-{n:06d}{suffix}", header + body)
    else:
        groups: dict[str, list[str]] = {}
        for n in range(count):
            header, body = docs[n % len(docs)]
            groups.setdefault(header, []).append(body)
        index = 0
        for header, bodies in groups.items():
            for start in range(0, len(bodies), per_file):
                chunk = bodies[start:start + per_file]
                if as_json:
                    _write(folder / f"file-{index:05d}.json", "".join(chunk))  # a JSON stream: one document each
                else:
                    _write(folder / f"file-{index:05d}.yaml", header + "---\n".join(chunk))
                index += 1
    done.write_text("")
    return folder


def build_set(out: Path, name: str, as_json: bool = False) -> Path:
    """Set `name` ('a', 'b' or 'c') under `out`, e.g. out/real-a or out/real-a-json."""
    count, per_file = SETS[name]
    return build(out / (f"real-{name}" + ("-json" if as_json else "")), count, per_file, as_json)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--set", choices=sorted(SETS), action="append")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if corpus_root() is None:
        print("skipped: ../shared/corpus/real-world is absent", file=sys.stderr)
        return 0
    for name in args.set or ["a", "b"]:
        print(build_set(args.out, name, args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
