"""`DocumentView.memo` keys belong to a rule's module: a plugin caching under a built-in's key changes nothing."""

from __future__ import annotations

import textwrap

import pytest

from dralint.lint import LintOptions, lint
from dralint.pipeline.selection import Selection
from dralint.pipeline.sources import Source

from conftest import ROOT

FIXTURE = ROOT / "tests" / "cases" / "rules" / "constraints-invalid.yaml"

PLUGIN = textwrap.dedent('''
    from dralint.api import rule

    @rule("ACME050", "request-names-cache", severity="info", kinds={"ResourceClaim", "ResourceClaimTemplate"})
    def caches(doc, report):
        """Caches a set under the key the built-in request rules use."""
        names = doc.memo("request-names", set)
        if not isinstance(names, set):
            report(("spec",), "the memo held another module's value")
''')


def _brief(problems):
    return [(p.rule, p.span.line, p.span.column, p.path, p.error_type, p.message) for p in problems]


@pytest.mark.parametrize("select", [(), ("DRA5", "ACME")])
def test_a_plugin_memo_key_does_not_meet_the_builtins(tmp_path, select):
    (tmp_path / "acme.py").write_text(PLUGIN)
    source = [Source(str(FIXTURE), FIXTURE.read_bytes())]
    alone = lint(source, LintOptions("1.35", selection=Selection(select=select))).problems
    with_plugin = lint(source, LintOptions("1.35", rules_dirs=[str(tmp_path)], selection=Selection(select=select))).problems
    assert any(p.rule in ("DRA504", "DRA505") for p in alone)
    assert _brief(with_plugin) == _brief(alone)  # the plugin reports nothing: its set is its own; no DRA901
