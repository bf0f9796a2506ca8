"""A plugin rule that prints, or never returns, breaks neither a report nor the language server.

The rule comes from a rules dir (a real plugin, loaded as users load theirs): it prints at
import and on every document, once without a newline and once a fake LSP header, so that
anything of it reaching a JSON-RPC stream or a machine-readable report shows; for an object
named `spin` it loops forever.
"""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import run_dralint

NOISY = textwrap.dedent('''
    import sys
    import time

    from dralint.api import rule

    print("noisy rules loaded")


    @rule("LOCAL001", "noisy", severity="warning", kinds={"ResourceClaim"})
    def noisy(doc, report):
        """Prints while it checks, as a plugin being debugged does."""
        name = doc.get("metadata", "name")
        print("checking", name, end="")
        sys.stdout.write("Content-Length: 2\\r\\n\\r\\n{}")
        while name == "spin":  # never returns (asleep: the suite's CPU is not spent on it)
            time.sleep(1)
        report(("metadata", "name"), f"{name} was checked by a noisy rule")
''')

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: {name}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""


def _rules(root: Path) -> Path:
    rules = root / "rules"
    rules.mkdir()
    (rules / "noisy.py").write_text(NOISY, encoding="utf-8")
    return rules


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit"])
def test_a_printing_rule_leaves_the_report_intact(tmp_path: Path, fmt: str):
    rules = _rules(tmp_path)
    claim = tmp_path / "claim.yaml"
    claim.write_text(CLAIM.format(name="quiet"), encoding="utf-8")
    run = run_dralint("--no-config", "--rules-dir", str(rules), "--select", "LOCAL", "-f", fmt, str(claim))
    assert run.code == 0, run.stderr
    if fmt == "junit":
        [case] = [c for c in ET.fromstring(run.stdout).iter("testcase")]
        assert "quiet was checked by a noisy rule" in ET.tostring(case, encoding="unicode")
    elif fmt == "sarif":
        [result] = json.loads(run.stdout)["runs"][0]["results"]
        assert result["ruleId"] == "LOCAL001" and result["message"]["text"].startswith("quiet was checked by a noisy rule")
    else:
        [problem] = json.loads(run.stdout)["problems"]
        assert (problem["rule"], problem["line"], problem["column"]) == ("LOCAL001", 4, 9)
    assert run.stderr.startswith("noisy rules loaded\nchecking quietContent-Length: 2\r\n\r\n{}")


def test_a_printing_rule_in_forked_workers_leaves_the_report_intact(tmp_path: Path):
    rules = _rules(tmp_path)
    padding = "# " + "x" * 78 + "\n"
    for i in range(2):  # together over the bytes that make a run parallel (dralint.pipeline.parallel.MIN_BYTES)
        (tmp_path / f"claim{i}.yaml").write_text(CLAIM.format(name=f"quiet{i}") + padding * 3300, encoding="utf-8")
    run = run_dralint("--no-config", "--rules-dir", str(rules), "--select", "LOCAL", "-f", "json", "--jobs", "2", str(tmp_path / "claim0.yaml"), str(tmp_path / "claim1.yaml"))
    assert run.code == 0, run.stderr
    assert [p["message"] for p in json.loads(run.stdout)["problems"]] == ["quiet0 was checked by a noisy rule", "quiet1 was checked by a noisy rule"]
    # Both workers print (to standard error, where their writes may interleave).
    assert run.stderr.count("checking") == 2 and "quiet0" in run.stderr and "quiet1" in run.stderr


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    _rules(root)
    (root / ".dralint.yaml").write_text("rules-dirs: [rules]\nselect: [LOCAL]\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def server(workspace: Path):
    pytest.importorskip("pygls")
    from lsp_helpers import RawServer

    # A lint here takes a small fraction of the timeout (the config's rules are imported, and a
    # fresh lint process's start is not counted): only the rule that never returns reaches it.
    # No pause after typing: the test waits for the edit's lint.
    raw = RawServer(workspace, env={"DRALINT_LSP_TIMEOUT_S": "0.5", "DRALINT_LSP_DELAY_MS": "0"})
    raw.initialize(workspace)
    yield raw
    raw.kill()


class TestLanguageServer:
    """The same rule, configured for the editor's workspace (.dralint.yaml: rules-dirs), under `dralint lsp`.

    One server for both, as an editor keeps one: the rule that never returns is met first, and the
    server that outlived it is the one whose stream and exit are checked last."""

    @staticmethod
    def _open(server, uri: str, name: str, version: int = 1) -> None:
        item = {"uri": uri, "languageId": "yaml", "version": version, "text": CLAIM.format(name=name)}
        server.notify("textDocument/didOpen", {"textDocument": item})

    @staticmethod
    def _published(server, uri: str, version: int) -> list[dict]:
        wanted = lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"]["version"] == version  # noqa: E731
        return server.wait(wanted)["params"]["diagnostics"]

    def test_a_rule_that_never_returns_costs_one_lint_not_the_server(self, server, workspace: Path):
        uri = (workspace / "spin.yaml").as_uri()
        self._open(server, uri, "spin")
        [d] = self._published(server, uri, 1)
        assert d["code"] == "DRA901" and d["range"] == {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
        assert d["message"].startswith("dralint stopped linting this buffer after 0.5 s: a rule or plugin did not finish")
        change = {"range": {"start": {"line": 3, "character": 8}, "end": {"line": 3, "character": 12}}, "text": "calm"}
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]})
        [d] = self._published(server, uri, 2)
        assert d["message"] == "calm was checked by a noisy rule (at metadata.name)"

    def test_its_prints_stay_out_of_the_json_rpc_stream(self, server, workspace: Path):
        uri = (workspace / "claim.yaml").as_uri()
        self._open(server, uri, "quiet")
        [d] = self._published(server, uri, 1)
        assert (d["code"], d["range"]["start"], d["message"]) == ("LOCAL001", {"line": 3, "character": 8}, "quiet was checked by a noisy rule (at metadata.name)")
        asked = server.request("shutdown")
        assert server.answer(asked)["result"] is None
        server.notify("exit")
        code, stderr = server.finish()
        assert code == 0
        assert server.stray == []
        assert "checking quiet" in stderr
