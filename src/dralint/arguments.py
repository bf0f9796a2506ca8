"""Command-line pieces every subcommand shares: the usage error, the parser, the rule options.

Below `cli`, `commands`, `migrate` and `webhook.cli`, so that none of them
imports another to get these.
"""

from __future__ import annotations

import argparse
import os

from .config import Overrides

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any


class UsageError(Exception):
    """Wrong words on the command line or in the configuration: exit 2 with a message, no traceback."""


def _width() -> int:
    # Given a width, argparse does not import shutil to ask the terminal for one
    # (on every add_argument call): a few milliseconds of every pre-commit run.
    try:
        width = int(os.environ.get("COLUMNS", "")) or os.get_terminal_size().columns
    except (ValueError, OSError):
        width = 80
    return max(width - 2, 40)


def _help_formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=_width())


def epilog_as_written(prog: str) -> argparse.HelpFormatter:
    """A help formatter that keeps the description and epilog's lines (a table of subcommands) as written."""
    return argparse.RawDescriptionHelpFormatter(prog, width=_width())


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _help_formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]  # argparse exits 2 too, but prints usage noise first
        raise UsageError(message)


def install_extra(extra: str) -> str:
    """How to install an optional extra while dralint is not on PyPI (`pip install 'dralint[lsp]'` finds no
    package): from the checkout dralint was installed from, or from a git URL of the user's copy."""
    return (
        f"from a checkout of dralint, pip install -e '.[{extra}]' (or pip install "
        f"'dralint[{extra}] @ git+URL@COMMIT', URL being your copy of the repository)"
    )


def add_rule_arguments(parser: argparse._ActionsContainer) -> None:
    """Which rules run and how, from the command line: shared by `dralint lint` and `dralint serve`."""
    parser.add_argument("--select", action="append", default=[], metavar="CODES", help="only these rule codes, slugs or code prefixes (comma-separated, repeatable)")
    parser.add_argument("--ignore", action="append", default=[], metavar="CODES", help="skip these rule codes, slugs or code prefixes")
    parser.add_argument("--severity", action="append", default=[], metavar="CODE=LEVEL", help="re-level a rule, e.g. DRA011=error")
    parser.add_argument("--rules-dir", action="append", default=[], metavar="DIR", help="load extra rules from the *.py files in DIR")
    parser.add_argument("--policy", action="append", default=[], metavar="FILE", help="CEL policy file(s) to enforce")
    parser.add_argument("--no-plugins", action="store_true", help="do not load rules from installed plugins (entry points)")
    parser.add_argument("--feature-gates", action="append", default=[], metavar="GATE=BOOL,...",
                        help="the cluster's feature gates, as kube-apiserver takes them (default: the release's defaults), e.g. DRAListTypeAttributes=true")
    parser.add_argument("-c", "--config", metavar="FILE", help="configuration file (default: .dralint.yaml found upward from the working directory)")
    parser.add_argument("--no-config", action="store_true", help="ignore configuration files")


def overrides_from(args: argparse.Namespace) -> Overrides:
    """The typed overrides of parsed arguments (absent options of a subcommand stay unset)."""
    return Overrides(
        kubernetes_version=getattr(args, "kubernetes_version", None),
        target_version=getattr(args, "target_version", None),
        format=getattr(args, "format", None),
        fail_on=getattr(args, "fail_on", None),
        select=tuple(args.select),
        ignore=tuple(args.ignore),
        severity=tuple(args.severity),
        rules_dirs=tuple(args.rules_dir),
        policies=tuple(args.policy),
        no_plugins=args.no_plugins,
        config=args.config,
        no_config=args.no_config,
        jobs=getattr(args, "jobs", None),
        feature_gates=tuple(getattr(args, "feature_gates", ())),
        cache_dir=getattr(args, "cache_dir", None),
        no_cache=getattr(args, "no_cache", False),
    )
