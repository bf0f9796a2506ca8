"""docs/rules.md is generated from the rules' own metadata (tools/gen_rules_doc.py) and must be current."""

from __future__ import annotations

import re
import subprocess
import sys

from dralint.registry import BUILTIN_PACKAGE, all_rules

from conftest import ROOT, run_dralint

GENERATOR = ROOT / "tools" / "gen_rules_doc.py"
DOC = ROOT / "docs" / "rules.md"


def _generate(out) -> str:
    proc = subprocess.run([sys.executable, str(GENERATOR), "--output", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return out.read_text(encoding="utf-8")


def test_rules_doc_is_current(tmp_path):
    fresh = _generate(tmp_path / "rules.md")
    current = DOC.read_text(encoding="utf-8") if DOC.is_file() else ""
    assert current == fresh, "docs/rules.md is stale: run `python tools/gen_rules_doc.py`"


def test_rules_doc_covers_every_rule_and_is_reproducible(tmp_path):
    text = _generate(tmp_path / "a.md")
    assert _generate(tmp_path / "b.md") == text
    listed = run_dralint("rules", "--no-plugins", "--format", "json")
    assert listed.code == 0
    assert isinstance(listed.json, list) and listed.json
    for row in listed.json:
        assert f"\n## {row['code']} {row['slug']}\n" in text, row["code"]
    # The entry of a built-in rule: severity, applies-to and its docstring.
    entry = text.split("\n## DRA704 container-claim-reference\n", 1)[1].split("\n## ", 1)[0]
    assert "**error** — A container's `resources.claims[].name` must name one of the pod's `resourceClaims`." in entry
    assert "- kinds: CronJob, DaemonSet, Deployment, Job, Pod, PodTemplate, ReplicaSet, ReplicationController, StatefulSet" in entry
    assert "- Kubernetes: every release" in entry
    assert "- defined in: `rules/pod_references.py`" in entry
    assert "(NotFound)" in entry
    run_scope = text.split("\n## DRA712 claim-reference-unresolved\n", 1)[1].split("\n## ", 1)[0]
    assert "- scope: every document of a run at once (cross-document)" in run_scope
    assert "\n## DRA900 unused-suppression\n" in text


# Every built-in rule's docstring follows one template: the summary line; a paragraph on why;
# "Invalid: ..." and "Valid: ..." examples; "Upstream: `function` (file)." naming the
# kubernetes/kubernetes function it ports, or "Upstream: policy." for a rule of dralint's own.
TEMPLATE = {
    "why": lambda doc: len(doc.split("\n\n")) >= 2,
    "invalid example": re.compile(r"\bInvalid:").search,
    "valid example": re.compile(r"\bValid:").search,
    "upstream": re.compile(r"(?m)^Upstream: (policy\.|`\w+`)").search,
}

# The rules whose docstring still lacks a part of the template, and which parts: this list may only
# shrink (a new rule, or a rule that loses a part, fails below; so does one that gains it, until its
# line here goes).
LACKING = {
}


def test_every_rule_doc_follows_the_template():
    found = {}
    for rule in sorted(all_rules(plugins=False), key=lambda r: r.code):
        if rule.origin.startswith(BUILTIN_PACKAGE):
            missing = tuple(part for part, present in TEMPLATE.items() if not present(rule.doc))
            if missing:
                found[rule.code] = missing
    assert found == LACKING
