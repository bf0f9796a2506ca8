"""`dralint lsp`: dralint's diagnostics, fixes and hover in any editor that speaks LSP (stdio).

Needs the `lsp` extra (`pip install 'dralint[lsp]'`): pygls and lsprotocol.
"""

from __future__ import annotations

import argparse

from .. import runtime
from ..arguments import UsageError


def lsp_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dralint lsp", description="Run the dralint language server on standard input/output.")
    # Editors' launchers (vscode-languageclient, some Neovim set-ups) pass --stdio: accepted, it is the only transport.
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default and only transport)")
    try:
        parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code:
            raise UsageError("invalid arguments for 'dralint lsp'") from None
        return 0
    try:
        # Deferred: an optional dependency; the rest of dralint must work without it.
        from . import framing
        from .server import server
    except ImportError as exc:
        raise UsageError(f"'dralint lsp' needs the lsp extra: pip install 'dralint[lsp]' ({exc})") from None
    runtime.enable()  # the process is the language server's (dralint.runtime)
    try:
        return framing.serve(server, *framing.claim_stdio())
    finally:
        server.worker.close()
        server.fixer.close()
