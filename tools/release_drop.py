#!/usr/bin/env python3
"""A new Kubernetes release as a reviewable data drop: regenerate, then show what changed.

    python tools/release_drop.py [--shared DIR] [--release 1.NN] [--against 1.MM] [--no-regenerate]

1. Regenerates `schemas/` (schemas, `index.json`, `feature_gates.json`) from the
   upstream folders in `--shared` with tools/extract_schemas.py.
2. Prints what changed from the previous release (or `--against`) to `--release`
   (default: the newest in the data): kinds served or no longer served per API
   version, fields added or removed per kind (as field paths), feature gates new,
   removed, or with another stage or default, and whether the release is a preview.
3. Lists the call sites of the release's handwritten validation
   (`k8s-validation/<release>/pkg/apis/resource/validation/validation.go`) that no
   rule covers, from the table the validation-coverage test reads
   (tests/validation_rules.py); a release without that file says so.

Exit status: 0 when every validation call site is covered (or there is no
validation.go to read), 1 when some are not — so the drop is not done until a
rule covers each new check. docs/releases.md walks through a drop.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))

import extract_schemas  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GROUP = "resource.k8s.io"


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


def field_paths(schema: dict[str, Any]) -> set[str]:
    """Every field path a kind's schema admits: `spec.devices[].name`, `spec.config{}` for map values.

    Walked with a stack and a set of definitions being expanded on the current path,
    so a recursive definition ends the walk there instead of looping.
    """
    defs = schema.get("$defs", {})
    out: set[str] = set()
    stack: list[tuple[str, Any, frozenset[str]]] = [("", schema, frozenset())]
    while stack:
        path, node, seen = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref[len("#/$defs/"):]
            if name in seen:
                continue
            stack.append((path, {k: v for k, v in node.items() if k != "$ref"}, seen))
            stack.append((path, defs.get(name, {}), seen | {name}))
            continue
        for name, sub in (node.get("properties") or {}).items():
            child = f"{path}.{name}" if path else name
            out.add(child)
            stack.append((child, sub, seen))
        if isinstance(node.get("items"), dict):
            stack.append((path + "[]", node["items"], seen))
        if isinstance(node.get("additionalProperties"), dict):
            stack.append((path + "{}", node["additionalProperties"], seen))
        for combinator in ("anyOf", "oneOf", "allOf"):
            for sub in node.get(combinator) or ():
                stack.append((path, sub, seen))
    return out


def _served(index: dict[str, Any], release: str) -> dict[str, set[str]]:
    return {gv: set(entry["kinds"]) for gv, entry in index["releases"].get(release, {}).items()}


def _schema(schemas: Path, index: dict[str, Any], release: str, gv: str, kind: str) -> dict[str, Any]:
    rel = index["releases"][release][gv]["kinds"][kind]["schema"]
    return json.loads((schemas / rel).read_text(encoding="utf-8"))


def diff_kinds(index: dict[str, Any], old: str, new: str) -> Iterator[str]:
    before, after = _served(index, old), _served(index, new)
    for gv in sorted(set(before) | set(after)):
        added = sorted(after.get(gv, set()) - before.get(gv, set()))
        gone = sorted(before.get(gv, set()) - after.get(gv, set()))
        if added:
            yield f"  + {gv}: {', '.join(added)}"
        if gone:
            yield f"  - {gv}: {', '.join(gone)} (no longer served)"


def diff_fields(schemas: Path, index: dict[str, Any], old: str, new: str) -> Iterator[str]:
    before, after = _served(index, old), _served(index, new)
    for gv in sorted(set(before) & set(after)):
        for kind in sorted(before[gv] & after[gv]):
            was = field_paths(_schema(schemas, index, old, gv, kind))
            now = field_paths(_schema(schemas, index, new, gv, kind))
            for path in sorted(now - was):
                yield f"  + {gv} {kind}: {path}"
            for path in sorted(was - now):
                yield f"  - {gv} {kind}: {path}"


def _gate_state(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "absent"
    return f"{entry['stage']}, default {'on' if entry['default'] else 'off'}"


def diff_gates(gates: dict[str, Any], old: str, new: str) -> Iterator[str]:
    for gate, per_release in sorted(gates["defaults"].items()):
        was, now = per_release.get(old), per_release.get(new)
        if was == now:
            continue
        mark = "+" if was is None else "-" if now is None or now.get("stage") == "removed" else "~"
        yield f"  {mark} {gate}: {_gate_state(was)} -> {_gate_state(now)}"
    old_fields = gates["fields"].get(old, {})
    new_fields = gates["fields"].get(new, {})
    for gv in sorted(set(old_fields) | set(new_fields)):
        for go_type in sorted(set(old_fields.get(gv, {})) | set(new_fields.get(gv, {}))):
            was = old_fields.get(gv, {}).get(go_type, {})
            now = new_fields.get(gv, {}).get(go_type, {})
            for name in sorted(set(was) | set(now)):
                if was.get(name) != now.get(name):
                    yield f"  ~ {gv} {go_type}.{name}: gated by {was.get(name) or 'nothing'} -> {now.get(name) or 'nothing'}"


def uncovered_sites(shared: Path, release: str) -> list[str] | None:
    """The validation call sites of `release` that no rule covers; None without a validation.go."""
    source = shared / "k8s-validation" / release / "pkg" / "apis" / "resource" / "validation" / "validation.go"
    if not source.is_file():
        return None
    # The validation-coverage test's own reader and table (tests/test_validation_coverage.py).
    sys.path.insert(0, str(REPO / "tests"))
    from go_validation import call_sites
    from validation_rules import COVERAGE

    out = []
    for site in call_sites(source.read_text(encoding="utf-8")):
        row = COVERAGE.get(site.key)
        if row is None:
            out.append(f"{site.render()}: no row in tests/validation_rules.py")
        elif row.gap:
            out.append(f"{site.render()}: a known gap ({row.gap})")
    return sorted(set(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=extract_schemas.DEFAULT_SHARED,
                        help="the upstream data: k8s-api/, k8s-validation/, openapi*/ (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=extract_schemas.DEFAULT_OUT, help="the schemas folder (default: %(default)s)")
    parser.add_argument("--release", help="the release to review (default: the newest in the data)")
    parser.add_argument("--against", help="the release to compare with (default: the one before --release)")
    parser.add_argument("--no-regenerate", action="store_true", help="review the committed schemas as they are")
    args = parser.parse_args(argv)
    if not args.shared.is_dir():
        print(f"release_drop: no upstream data directory at {args.shared}", file=sys.stderr)
        return 2
    if not args.no_regenerate:
        written = extract_schemas.extract(args.shared, args.out)
        print(f"regenerated {len(written)} files in {args.out}")
    index = json.loads((args.out / "index.json").read_text(encoding="utf-8"))
    gates = json.loads((args.out / "feature_gates.json").read_text(encoding="utf-8"))
    releases = sorted(index["releases"], key=_key)
    new = args.release or releases[-1]
    if new not in releases:
        print(f"release_drop: {new} is not in the data ({releases[0]}..{releases[-1]})", file=sys.stderr)
        return 2
    old = args.against or (releases[releases.index(new) - 1] if releases.index(new) else None)
    if old is None or old not in releases:
        print(f"release_drop: nothing to compare {new} with", file=sys.stderr)
        return 2
    preview = index.get("previews", {}).get(new)
    print(f"\n{new} against {old}" + (f" — a preview: {preview.get('note')}" if preview else " — released data"))
    default = max((r for r in releases if r not in index.get("previews", {})), key=_key)
    print(f"default release: {default}")
    for title, lines in (
        ("kinds", list(diff_kinds(index, old, new))),
        ("fields", list(diff_fields(args.out, index, old, new))),
        ("feature gates", list(diff_gates(gates, old, new))),
    ):
        print(f"\n{title}:")
        print("\n".join(lines) if lines else "  (no change)")
    sites = uncovered_sites(args.shared, new)
    print("\nvalidation call sites without a rule:")
    if sites is None:
        print(f"  (no validation.go for {new} under {args.shared / 'k8s-validation'}: fetch it, see docs/releases.md)")
        return 0
    print("\n".join(f"  {s}" for s in sites) if sites else "  (none: every call site has a rule)")
    return 1 if sites else 0


if __name__ == "__main__":
    sys.exit(main())
