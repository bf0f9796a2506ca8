"""What the user says the cluster's feature gates are, written as kube-apiserver is told them.

    dralint --feature-gates=DRAListTypeAttributes=true,DRADeviceTaints=false ...
    feature-gates: {DRAListTypeAttributes: true}        # .dralint.yaml (or under rule-options:)
    # dralint: feature-gates=DRAListTypeAttributes=true  # a file's own, before its first document

A gate dralint does not know is a usage error with a did-you-mean (the API server
refuses to start on one too); so is a gate that does not exist in the release, a
locked gate set against its locked value and a gate that its release has removed. Gates not named keep the release's
default (dralint.gates). A file's comment wins over the command line and the
configuration for the gates it names.
"""

from __future__ import annotations

import re

from .. import gates
from ..catalog import ENGINE_CHECKS
from ..lazy_re import LazyPattern
from ..model import Problem, Span

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["parse_gate_list", "check_gates", "file_gates", "GATE_DIRECTIVE"]

_VALUES = {"true": True, "false": False}
# What a feature-gates comment starts with, spelt right or not: the suppression parser leaves these to this module.
# For files (and suppression comments) that say "dralint": compiled on first use.
GATE_DIRECTIVE = LazyPattern(r"feature.?gates", re.IGNORECASE)
_EXACT = LazyPattern(r"#[ \t]*dralint:[ \t]*feature-gates=[ \t]*(\S*)")
_LOOSE = LazyPattern(r"#[ \t]*dralint[ \t]*:?[ \t]*" + GATE_DIRECTIVE.pattern, re.IGNORECASE)


def parse_gate_list(text: str) -> dict[str, bool]:
    """`A=true,B=false` -> {"A": True, "B": False}; ValueError for anything else."""
    settings: dict[str, bool] = {}
    for item in str(text).split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or value.strip().lower() not in _VALUES or not name.strip():
            raise ValueError(f"{item!r} is not GATE=true or GATE=false")
        settings[name.strip()] = _VALUES[value.strip().lower()]
    return settings


def gate_mapping(value: Any, where: str) -> dict[str, bool]:
    """The `feature-gates:` mapping of a configuration file, each value true or false."""
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, bool) for k, v in value.items()):
        raise ValueError(f"{where}: 'feature-gates' must map gate names to true or false, e.g. {{DRAListTypeAttributes: true}}")
    return dict(value)


def check_gates(settings: dict[str, bool], release: str) -> None:
    """ValueError naming the first setting kube-apiserver of `release` would refuse."""
    known = gates.all_gates()
    for name, value in settings.items():
        if name not in known:
            from ..k8s.suggest import close_matches  # only on this error path

            close = close_matches(name, sorted(known), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"unknown feature gate {name!r}{hint} (see 'dralint gates')")
        stage = gates.gate_stage(release, name)
        if stage is None:
            raise ValueError(f"feature gate {name} does not exist in Kubernetes {release} ({gates.gate_releases(name)})")
        if stage == "removed":
            raise ValueError(f"feature gate {name} was removed in Kubernetes {release} and cannot be set")
        if stage == "ga-locked" and value != gates.gate_default(release, name):
            locked = "true" if gates.gate_default(release, name) else "false"
            raise ValueError(f"feature gate {name} is locked to {locked} in Kubernetes {release} and cannot be set to {str(value).lower()}")


def file_gates(source: str, data: bytes, release: str) -> tuple[dict[str, bool], list[Problem]]:
    """The gates a file's `# dralint: feature-gates=` comment sets (before its first document), and
    DRA009 problems for one that is misspelt, misplaced or names a gate the release would refuse."""
    if b"dralint" not in data or b"eature" not in data:
        return {}, []
    settings: dict[str, bool] = {}
    problems: list[Problem] = []
    # The header (the lines before the first document's content) is read line by line, whatever case
    # `dralint` is written in; after it only the lines that say `dralint` are found (by bytes.find:
    # decoding every line of a large file was most of this), their numbers counted on from the last.
    start, number, size = 0, 1, len(data)
    while start < size:
        end = data.find(b"\n", start)
        end = size if end == -1 else end
        line = data[start:end].decode("utf-8", "replace").removesuffix("\r")
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and stripped != "---":
            break
        _gate_line(source, line, number, True, release, settings, problems)
        start, number = end + 1, number + 1
    counted = start
    found = data.find(b"dralint", start)
    while found != -1:
        line_start = data.rfind(b"\n", 0, found) + 1
        end = data.find(b"\n", found)
        end = size if end == -1 else end
        number += data.count(b"\n", counted, line_start)
        counted = line_start
        _gate_line(source, data[line_start:end].decode("utf-8", "replace").removesuffix("\r"), number, False,
                   release, settings, problems)
        found = data.find(b"dralint", end)
    return settings, problems


def _gate_line(source: str, line: str, number: int, in_header: bool, release: str, settings: dict[str, bool],
               problems: list[Problem]) -> None:
    """What one line says of the file's gates: into `settings`, or a DRA009 into `problems`."""
    loose = _LOOSE.search(line)
    if loose is None:
        return
    column = loose.start() + 1
    exact = _EXACT.search(line)
    if not in_header:
        problems.append(_problem(source, number, column, "a dralint feature-gates comment applies only before the first document; move it to the top of the file"))
        return
    if exact is None or not exact.group(1):
        problems.append(_problem(source, number, column, "malformed feature-gates comment; write it as '# dralint: feature-gates=GATE=true,GATE=false'"))
        return
    try:
        found = parse_gate_list(exact.group(1))
        check_gates(found, release)
    except ValueError as exc:
        problems.append(_problem(source, number, column + exact.start(1) - exact.start(), f"{exc} (in the file's dralint comment)"))
        return
    settings.update(found)


def _problem(source: str, line: int, column: int, message: str) -> Problem:
    check = ENGINE_CHECKS["DRA009"]
    return Problem(
        rule=check.code, name=check.slug, severity=check.severity, message=message, source=source, document=0, span=Span.point(line, column)
    )
