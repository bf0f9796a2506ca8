"""Kubernetes release names, and the release a file names for itself.

A release is written `1.30`; `v1.30` and `1.30.2` (what `kubectl version`
prints) mean the same. A file may name the release it is written for in a
comment before its first document, which wins over `-k` for that file, so one
run can check manifests for clusters of different releases:

    # dralint: kubernetes-version=1.30

A comment that means to do so but is misspelt, or stands after the first
document (where it would silently not apply), is reported (DRA009).
"""

import re

from .. import schemas
from ..catalog import ENGINE_CHECKS
from ..lazy_re import LazyPattern
from ..model import Problem, Span

_RELEASE = LazyPattern(r"v?(1)\.(\d+)(?:\.\d+)?")  # a release given with -k, in a config or a comment
# Only lines that mention both words are looked at; linear in the file, no backtracking. These are for files
# (and suppression comments) that say "dralint": compiled on first use.
_EXACT = LazyPattern(r"#[ \t]*dralint:[ \t]*kubernetes-version=[ \t]*(\S+)")
# What a release comment starts with, spelt right or not: the suppression parser leaves these to this module.
RELEASE_DIRECTIVE = LazyPattern(r"kubernetes.?version", re.IGNORECASE)
_LOOSE = LazyPattern(r"#[ \t]*dralint[ \t]*:?[ \t]*" + RELEASE_DIRECTIVE.pattern, re.IGNORECASE)
_VALUE = LazyPattern(r"kubernetes.?version[ \t]*[=:]?[ \t]*[\"']?([^\s\"']*)", re.IGNORECASE)


def parse_release(text: str) -> str:
    """`1.30`, `v1.30` or `1.30.2` -> "1.30"; ValueError for anything else (any minor, also beyond the data)."""
    match = _RELEASE.fullmatch(str(text).strip())
    if match is None:
        raise ValueError(f"not a Kubernetes release: {text!r} (expected 1.NN, e.g. {schemas.DEFAULT_RELEASE})")
    return f"{match.group(1)}.{int(match.group(2))}"


def supported_release(text: str) -> str:
    """A release dralint has schemas for; ValueError that names the supported ones otherwise."""
    try:
        release = parse_release(text)
    except ValueError:
        raise ValueError(schemas.unsupported_release(str(text).strip())) from None
    if release not in schemas.RELEASES:
        raise ValueError(schemas.unsupported_release(release))
    return release


def declared_release(data: bytes) -> tuple[str, int] | None:
    """The release a well-formed comment before the first document names, as written, and its line."""
    for number, line in _leading_lines(data):
        exact = _EXACT.search(line)
        if exact is not None:
            return exact.group(1).strip("\"'"), number
    return None


def _leading_lines(data: bytes):
    """(number, text) of the lines before the first document's content."""
    # Lines end at \n (a \r before it belongs to the break), as everywhere in dralint.
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.decode("utf-8", "replace").removesuffix("\r")
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and stripped != "---":
            return
        yield number, line


def file_release(source: str, data: bytes, default: str) -> tuple[str, list[Problem]]:
    """The release `source` is judged at, and DRA009 problems for a release comment that is wrong."""
    if b"dralint" not in data or b"ersion" not in data:
        return default, []
    release, problems = default, []
    # Where the first document's content starts, found no further than asked: a comment on the file's
    # first lines needs only the lines above it read, not the whole file.
    content = _ContentStart(data)
    # Only the lines that say "dralint" are read (found by bytes.find, not by decoding every line); their
    # numbers are counted on from the previous one (from the top each time was quadratic in the comments).
    found = data.find(b"dralint")
    number, counted = 1, 0
    while found != -1:
        start = data.rfind(b"\n", 0, found) + 1
        end = data.find(b"\n", found)
        end = len(data) if end == -1 else end
        found = data.find(b"dralint", end)
        line = data[start:end].decode("utf-8", "replace").removesuffix("\r")
        if _LOOSE.search(line) is None:
            continue
        number += data.count(b"\n", counted, start)
        counted = start
        exact = _EXACT.search(line)
        column = line.index("#") + 1
        if content.at_or_before(start):
            problems.append(_problem(source, number, column, "a dralint kubernetes-version comment applies only before the first document; move it to the top of the file"))
        elif exact is None:
            value = _VALUE.search(line)
            written = f"kubernetes-version={value.group(1)}" if value and value.group(1) else "kubernetes-version=1.NN"
            problems.append(_problem(source, number, column, f"malformed release comment; write it as '# dralint: {written}'"))
        elif release is default:
            try:
                release = _supported(exact.group(1).strip("\"'"))
            except ValueError as exc:
                problems.append(_problem(source, number, column + exact.start(1) - exact.start(), f"{exc} (in the file's dralint comment)"))
        else:
            problems.append(_problem(source, number, column, "a second dralint kubernetes-version comment; the first one applies"))
    return release, problems


_KNOWN: dict[str, str] = {}  # release comment value -> the release it names; most files of a run repeat a few


def _supported(value: str) -> str:
    """`supported_release(value)`, kept for the values that name one (a few per run)."""
    release = _KNOWN.get(value)
    if release is None:
        release = supported_release(value)
        if len(_KNOWN) < 256:
            _KNOWN[value] = release
    return release


class _ContentStart:
    """Whether the first line that is not blank, a comment or `---` starts at or before an offset.

    Lines are read in order and only as far as the largest offset asked about; the answer is the
    same as reading the whole file first (the first such line is where it is, whatever is asked).
    """

    __slots__ = ("data", "scanned", "found")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.scanned = 0  # the lines before this offset are blank, comments or `---`
        self.found: int | None = None  # where the first content line starts, once read

    def at_or_before(self, offset: int) -> bool:
        data = self.data
        start = self.scanned
        while self.found is None and start <= offset and start < len(data):
            end = data.find(b"\n", start)
            end = len(data) if end == -1 else end
            # Lines end at \n (a \r before it belongs to the break), as everywhere in dralint.
            stripped = data[start:end].decode("utf-8", "replace").removesuffix("\r").strip()
            if stripped and not stripped.startswith("#") and stripped != "---":
                self.found = start
            start = end + 1
        self.scanned = start
        return self.found is not None and self.found <= offset


def _problem(source: str, line: int, column: int, message: str) -> Problem:
    check = ENGINE_CHECKS["DRA009"]
    return Problem(
        rule=check.code, name=check.slug, severity=check.severity, message=message, source=source, document=0, span=Span.point(line, column)
    )
