"""A YAML or JSON file's text as lines that keep their endings, split into documents.

What `dralint migrate` needs to rewrite a file while keeping every byte it does
not mean to change: YAML breaks lines at "\r\n", "\r" and "\n", and each line
keeps its own ending, so a file with mixed or CR-only endings is rewritten only
where it is migrated; documents are split at their `---` / `...` lines; and
what the YAML emitter normalised on untouched lines is put back.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from . import linediff

_MARKER = re.compile(r"^(---|\.\.\.)(?=[ \t]|$)(.*)$")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_EOL = re.compile(r"\r\n?")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its own ending ("\r\n", "\r", "\n" or none for an unterminated last line)."""
    return _LINE.findall(text)


def plain_endings(text: str) -> str:
    """`text` with every line ending "\n": line for line the same lines, as a YAML parser sees them."""
    return _EOL.sub("\n", text)


def starts_content(header: str) -> bool:
    """True when a `---` line carries content of its own (`--- !tag` or `--- {a: 1}`), not only a comment."""
    marker = _MARKER.match(header.rstrip("\r\n")) if header else None
    rest = marker.group(2).strip() if marker else ""
    return bool(rest) and not rest.startswith("#")


@dataclass
class Chunk:
    header: str  # the `---` line (with its line ending), or "" for the part before the first marker
    body: str
    line: int  # 1-based line of the body's first line in the file (lines end at "\n")

    @property
    def text(self) -> str:
        return self.header + self.body


def split_documents(text: str) -> list[Chunk]:
    """Split a YAML stream at its `---` / `...` lines, keeping every character."""
    chunks: list[Chunk] = []
    header, body, start = "", [], 1
    lineno = 1  # of the next line, counting "\n" only, as positions do everywhere
    for line in split_lines(text):
        if line.startswith(("---", "...")) and _MARKER.match(line.rstrip("\r\n")):
            chunks.append(Chunk(header, "".join(body), start))
            header, body, start = line, [], lineno + line.count("\n")
        else:
            body.append(line)
        lineno += line.count("\n")
    chunks.append(Chunk(header, "".join(body), start))
    return chunks


def guess_indent(text: str) -> tuple[int, int, int]:
    """(mapping, sequence, offset) indentation for ruamel.yaml, read from the text's block collections."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    maps: Counter[int] = Counter()
    offsets: Counter[int] = Counter()
    seqs: Counter[int] = Counter()
    for a, b in pairwise(lines):
        sa = a.lstrip(" ")
        m = _KEY_LINE.match(sa)
        if not m:
            continue
        kcol = len(a) - len(sa) + len(m.group(1))
        sb = b.lstrip(" ")
        cb = len(b) - len(sb)
        if cb < kcol:
            continue
        if sb.startswith("- ") or sb == "-":
            offsets[cb - kcol] += 1
            dm = re.match(r"-( +)", sb)
            if dm:
                seqs[cb - kcol + 1 + len(dm.group(1))] += 1
        elif cb > kcol:
            maps[cb - kcol] += 1
    mapping = maps.most_common(1)[0][0] if maps else 2
    offset = offsets.most_common(1)[0][0] if offsets else 0
    sequence = seqs.most_common(1)[0][0] if seqs else offset + 2
    return mapping, max(sequence, offset + 2), offset


_KEY_LINE = re.compile(r"((?:- +)*)([^\s#'\"-][^:#]*|'[^']*'|\"[^\"]*\"):[ \t]*(#.*)?$")


def _spacing(line: str) -> tuple[str, str]:
    body = line.rstrip("\r\n")
    stripped = body.lstrip(" ")
    return body[: len(body) - len(stripped)], re.sub(r"[ \t]+", " ", stripped).rstrip()


def restore_untouched_lines(old: str, new: str, same_data: Callable[[str, str], bool]) -> str:
    """`new` (the emitter's output, "\\n" line ends) with every line the migration did not mean to touch as it was in `old`.

    A line equal to its original but for its line ending, or but for the spacing
    the emitter normalises after the indentation (`kind:  X` -> `kind: X`), is
    put back byte for byte; a new or changed line takes the line ending of the
    original line it replaces or follows. The result must mean the same data as
    `new` (`same_data`), else `new` is kept with the file's first line ending.
    """
    old_lines = split_lines(old)
    old_plain = [line.rstrip("\r\n") for line in old_lines]
    new_lines = split_lines(new)
    new_plain = [line.rstrip("\n") for line in new_lines]
    first_ending = next((line[len(plain):] for line, plain in zip(old_lines, old_plain, strict=True) if line != plain), "\n")

    def ending(i: int, new_line: str) -> str:
        if not new_line.endswith("\n"):
            return ""  # the emitter's last line without one: the original's last line had none either
        near = old_lines[i] if i < len(old_lines) else (old_lines[-1] if old_lines else "")
        return near[len(near.rstrip("\r\n")):] or first_ending

    out: list[str] = []
    for tag, i1, i2, j1, j2 in linediff.opcodes(old_plain, new_plain):
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=False):  # a replaced block pairs its common length
                # Only the original's last line can lack an ending; if the emitter's has one, it is no longer last.
                out.append(old_lines[i] + (first_ending if old_lines[i] == old_plain[i] and new_lines[j].endswith("\n") else ""))
            continue
        paired = tag == "replace" and i2 - i1 == j2 - j1
        # A line the migration moved (re-indented under `exactly:`) keeps its own ending.
        moved = {} if paired else {old_plain[i].strip(): i for i in range(i1, i2)}
        for k, j in enumerate(range(j1, j2)):
            i = i1 + k if paired else moved.get(new_plain[j].strip(), max(i1 - 1, 0))
            if paired and _spacing(old_lines[i]) == _spacing(new_lines[j]) and old_lines[i].endswith(("\n", "\r")) == new_lines[j].endswith("\n"):
                out.append(old_lines[i])
            else:
                out.append(new_plain[j] + ending(i, new_lines[j]))
    restored = "".join(out)
    if restored == new or same_data(restored, new):
        return restored
    return new if first_ending == "\n" else new.replace("\n", first_ending)


# ruamel.yaml joins consecutive comment lines by string concatenation on an
# attribute, which is quadratic (80,000 comment lines: minutes). Long runs of
# comment and blank lines are therefore handed to it as one placeholder
# comment each and put back, byte for byte, after it wrote the document.
COMMENT_RUN_MIN = 16


@dataclass
class CollapsedComments:
    text: str  # what the YAML library reads
    origin: list[int]  # 0-based line in the original text of each line of `text`
    runs: dict[str, str]  # placeholder comment -> the original lines it stands for

    def expand(self, emitted: str) -> str | None:
        """`emitted` with each placeholder line replaced by its run; None when a placeholder did not come back alone on its line."""
        if not self.runs:
            return emitted
        out, seen = [], 0
        for line in split_lines(emitted):
            run = self.runs.get(line.strip())
            if run is None:
                out.append(line)
            else:
                out.append(run)
                seen += 1
        return "".join(out) if seen == len(self.runs) else None


def collapse_comment_runs(plain: str) -> CollapsedComments:
    """Runs of COMMENT_RUN_MIN or more full-line comments and blank lines ("\\n" endings) as one placeholder comment each."""
    lines = split_lines(plain)
    nonce = 0
    while f"dralint-comments-{nonce}-" in plain:
        nonce += 1
    out: list[str] = []
    origin: list[int] = []
    runs: dict[str, str] = {}
    i = 0
    while i < len(lines):
        end = i
        while end < len(lines) and lines[end].endswith("\n") and lines[end].lstrip(" \t")[:1] in ("#", "\n"):
            end += 1
        if end - i < COMMENT_RUN_MIN or not any(line.lstrip(" \t").startswith("#") for line in lines[i:end]):
            end = max(end, i + 1)
            out.extend(lines[i:end])
            origin.extend(range(i, end))
            i = end
            continue
        first = next(line for line in lines[i:end] if line.lstrip(" \t").startswith("#"))
        placeholder = f"# dralint-comments-{nonce}-{len(runs)}"
        runs[placeholder] = "".join(lines[i:end])
        out.append(first[: len(first) - len(first.lstrip(" \t"))] + placeholder + "\n")
        origin.append(i)
        i = end
    return CollapsedComments("".join(out), origin, runs)
