"""The DRA005 that stands for the problems past a cap has their highest severity (after selection and
re-levelling): a valid claim with more than 100 infos or warnings fails no run and is not denied."""

from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from conftest import CASES, run_dralint

INFOS = CASES / "rules" / "cap-summary-infos.yaml"
WARNINGS = CASES / "rules" / "cap-summary-warnings.yaml"
SUMMARY = "4 more problems in this document were not listed (at most 100 are); this is where the first of them is [DRA005 resource-limit]"


def test_a_valid_claim_with_104_infos_passes_the_cli():
    run = run_dralint("--no-config", str(INFOS))
    assert run.stdout.splitlines()[-1] == f"{INFOS}:238:26: info: {SUMMARY}"
    assert run.stdout.count("[DRA713 ") == 100
    assert run.stderr.strip() == "1 file, 1 document: 0 errors, 0 warnings, 101 info"
    assert run.code == 0
    assert run_dralint("--no-config", "--fail-on", "info", str(INFOS)).code == 1


def test_104_warnings_are_summed_up_by_a_warning_and_relevelling_counts():
    run = run_dralint("--no-config", "--ignore", "DRA713", str(WARNINGS))
    assert run.stdout.splitlines()[-1] == f"{WARNINGS}:339:9: warning: {SUMMARY}"
    assert run.code == 0
    assert run_dralint("--no-config", "--ignore", "DRA713", "--fail-on", "warning", str(WARNINGS)).code == 1
    # Re-levelled to errors, what the summary stands for is errors: so is the summary.
    relevelled = run_dralint("--no-config", "--ignore", "DRA713", "--severity", "DRA801=error", str(WARNINGS))
    assert relevelled.stdout.splitlines()[-1] == f"{WARNINGS}:339:9: error: {SUMMARY}"
    assert relevelled.code == 1


def test_the_webhook_admits_the_valid_claim_with_104_infos():
    pytest.importorskip("uvicorn", reason="the webhook extra is not installed")
    from dralint.webhook import review as rv
    from dralint.webhook.cli import build_policy, serve_parser

    claim = YAML(typ="safe", pure=True).load(INFOS.read_text())
    policy = build_policy(serve_parser().parse_args(["--tls-cert", "c", "--tls-key", "k", "--no-config"]))
    request = {"uid": "u-1", "operation": "CREATE", "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
               "object": claim}
    decision = rv.decide(request, policy)
    assert [(p.rule, str(p.severity)) for p in decision.problems if p.rule != "DRA713"] == [("DRA005", "info")]
    assert len(decision.problems) == 101
    assert decision.denying == [] and decision.allowed
    assert decision.review["response"]["allowed"] is True


def test_the_webhook_never_counts_what_admission_does_not_report():
    """104 DRA801 warnings (a 1.35 claim whose gated fields a default cluster drops): admission never sends
    DRA801, so no DRA005 may stand for them either — not even under --fail-on warning."""
    pytest.importorskip("uvicorn", reason="the webhook extra is not installed")
    from dralint.webhook import review as rv
    from dralint.webhook.cli import build_policy, serve_parser

    claim = YAML(typ="safe", pure=True).load(WARNINGS.read_text())
    policy = build_policy(serve_parser().parse_args(
        ["--tls-cert", "c", "--tls-key", "k", "--no-config", "-k", "1.35", "--fail-on", "warning", "--ignore", "DRA713"]))
    request = {"uid": "u-2", "operation": "CREATE", "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
               "object": claim}
    decision = rv.decide(request, policy)
    assert [p.rule for p in decision.problems] == []
    assert decision.allowed and decision.review["response"]["allowed"] is True
