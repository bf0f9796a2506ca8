"""API-server parity rules (rules/metadata.py, classic.py, requests.py, constraints.py, config.py,
deviceclass.py, status.py, feature_gates.py).

The cases are the fixtures under tests/cases/rules/ with their `# expect:`
comments, run by tests/test_cases.py. What differs between releases, pinned there:
TooLong (1.31) vs TooMany (1.32+) for too many requests; a duplicate request
name at `R.name` up to 1.34 and at `R` from 1.35; the entries of an over-long
list validated in every release, without the declaratively covered checks
(duplicates, formats) from 1.37 (too-many-requests-items.yaml); a flat request's field
at its real path up to 1.32 and under `exactly` from 1.33; a matchAttribute
without a domain (Required at `.domain` in 1.31, Invalid from 1.32); an empty
identifier (Required up to 1.34, Invalid in 1.35); the admin-access label key
(1.33 vs 1.34+); the opaque parameters size limit (from 1.32).
This module keeps what needs a configuration file, which the CLI reads.
"""

from __future__ import annotations

import json

from conftest import CASES, run_dralint
from engine import brief, lint_text

RULES = CASES / "rules"


def test_feature_gate_configured_off():
    """With DRAPrioritizedList explicitly off, a firstAvailable-only request has no device left."""
    run = run_dralint("--format", "json", "--config", str(RULES / "gates-off.dralint"), "-k", "1.33", str(RULES / "gates.yaml"))
    assert run.code == 1, run.stderr
    got = [(p["rule"], p["path"], p["line"], p["column"]) for p in json.loads(run.stdout)["problems"] if p["rule"] == "DRA304"]
    assert got == [("DRA304", "spec.devices.requests[0]", 9, 7)]


def _device_class_with_annotation(value_length: int) -> str:
    return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n  annotations:\n    big: " + "x" * value_length + "\n"


def test_annotations_together_at_most_256_kib():
    """Keys plus values: 3 + 262141 bytes is the limit; one byte more is TooLong (too big for a fixture file)."""
    assert [p for p in lint_text(_device_class_with_annotation(256 * 1024 - 3)) if p.rule == "DRA207"] == []
    over = [p for p in lint_text(_device_class_with_annotation(256 * 1024 - 2)) if p.rule == "DRA207"]
    assert brief(over) == [("DRA207", "metadata.annotations", 5, 3)]
    assert over[0].message.startswith("annotations total 262145 bytes") and over[0].message.endswith("(TooLong)")
