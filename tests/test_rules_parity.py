"""API-server parity rules (rules/metadata.py, classic.py, requests.py, constraints.py, config.py,
deviceclass.py, status.py, feature_gates.py).

The cases are the fixtures under tests/cases/rules/ with their `# expect:`
comments, run by tests/test_cases.py. What differs between releases, pinned there:
TooLong (1.31) vs TooMany (1.32+) for too many requests; a duplicate request
name at `R.name` up to 1.34 and at `R` in 1.35, which also short-circuits an
over-long list (no duplicate errors for its entries); a flat request's field
at its real path up to 1.32 and under `exactly` from 1.33; a matchAttribute
without a domain (Required at `.domain` in 1.31, Invalid from 1.32); an empty
identifier (Required up to 1.34, Invalid in 1.35); the admin-access label key
(1.33 vs 1.34+); the opaque parameters size limit (from 1.32).
This module keeps what needs a configuration file, which the CLI reads.
"""

from __future__ import annotations

import json

from conftest import CASES, run_dralint

RULES = CASES / "rules"


def test_feature_gate_configured_off():
    """With DRAPrioritizedList explicitly off, a firstAvailable-only request has no device left."""
    run = run_dralint("--format", "json", "--config", str(RULES / "gates-off.dralint"), "-k", "1.33", str(RULES / "gates.yaml"))
    assert run.code == 1, run.stderr
    got = [(p["rule"], p["path"], p["line"], p["column"]) for p in json.loads(run.stdout)["problems"] if p["rule"] == "DRA304"]
    assert got == [("DRA304", "spec.devices.requests[0]", 9, 7)]
