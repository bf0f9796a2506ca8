"""`dralint rules`: every check the engine and the loaded rules can report."""

from __future__ import annotations

import argparse
import json
import sys

from .arguments import UsageError
from .catalog import ENGINE_CHECKS
from .registry import all_rules


def all_checks(rules_dirs: list[str] | None = None, plugins: bool = True) -> list[dict]:
    rows = [
        {"code": c.code, "slug": c.slug, "severity": str(c.severity), "summary": c.summary, "origin": "engine", "doc": c.summary}
        for c in ENGINE_CHECKS.values()
    ]
    for r in all_rules(rules_dirs or [], plugins=plugins):
        rows.append({"code": r.code, "slug": r.slug, "severity": str(r.severity), "summary": r.summary, "origin": r.origin, "doc": r.doc})
    return sorted(rows, key=lambda row: row["code"])


def rules_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dralint rules", description="List every rule with code, slug, severity and summary.")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--rules-dir", action="append", default=[])
    parser.add_argument("--no-plugins", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code:
            raise UsageError("invalid arguments for 'dralint rules'") from None
        return 0
    rows = all_checks(args.rules_dir, plugins=not args.no_plugins)
    if args.format == "json":
        json.dump([{k: v for k, v in row.items() if k != "doc"} for row in rows], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    width = max(len(r["slug"]) for r in rows)
    for r in rows:
        print(f"{r['code']:<8} {r['slug']:<{width}}  {r['severity']:<7}  {r['summary']}")
    return 0
