"""`dralint gates [-k 1.NN]`: each DRA feature gate of a release, its stage and default, and the fields it governs.

What dralint assumes of a cluster that sets no `--feature-gates` (the release's
defaults), read from the generated gate data (dralint.gates), so that a user
can see which of a manifest's fields a default cluster drops.
"""

from __future__ import annotations

import json
import sys

from . import gates, schemas
from .arguments import Parser
from .pipeline.releases import supported_release


def gate_rows(release: str) -> list[dict]:
    """One row per gate that exists in `release`: name, stage, default, fields per API version."""
    rows = []
    for gate in gates.release_gates(release):
        fields: dict[str, list[str]] = {}
        for api_version in gates.api_versions(release):
            governed = gates.gate_type_fields(release, api_version, gate)
            if governed:
                fields[api_version] = governed
        rows.append({"gate": gate, "stage": gates.gate_stage(release, gate), "default": gates.gate_default(release, gate), "fields": fields})
    return rows


def gates_command(argv: list[str]) -> int:
    parser = Parser(prog="dralint gates", description="List the DRA feature gates of a release: stage, default, and the fields each governs.")
    parser.add_argument("-k", "--kubernetes-version", metavar="1.NN", default=schemas.DEFAULT_RELEASE,
                        help=f"Kubernetes release (default {schemas.DEFAULT_RELEASE})")
    parser.add_argument("-f", "--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    try:
        release = supported_release(args.kubernetes_version)
    except ValueError as exc:
        parser.error(f"--kubernetes-version: {exc}")
    rows = gate_rows(release)
    if args.format == "json":
        json.dump({"release": release, "gates": rows}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"DRA feature gates of Kubernetes {release} (what dralint assumes unless told otherwise with --feature-gates):")
    width = max((len(r["gate"]) for r in rows), default=0)
    for r in rows:
        state = "cannot be set" if r["stage"] == "removed" else ("on" if r["default"] else "off") + " by default"
        print(f"\n{r['gate']:<{width}}  {r['stage']:<9}  {state}")
        if not r["fields"]:
            print("    (no field: it changes behaviour, or serves a kind)")
        for api_version, fields in r["fields"].items():
            print(f"    {api_version}: {', '.join(fields)}")
    return 0
