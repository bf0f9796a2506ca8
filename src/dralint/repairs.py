"""Structured fixes: the text edits that repair a problem, where one is known.

Built from a Document's positions and its source text, on demand (a problem's
`fixes` is computed the first time someone asks: the editor's code actions,
`--fix`, or the JSON and SARIF reports). Every edit keeps the bytes around it
as they were: a renamed key keeps its quotes, a moved field its comments.
"""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_left
from functools import lru_cache

from .model import Document, Edit, Fix, Path, Span

TYPE_CHECKING = False  # typing's, without importing typing: a lint never imports it (CONTRIBUTING.md)
if TYPE_CHECKING:
    from typing import Any

# Plain YAML scalars that would not read back as the same string.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._/-]*\Z")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}
MAX_ALTERNATIVES = 5


def ranked(word: str, candidates: list[str], cutoff: float = 0.6) -> list[str]:
    """Candidates close to `word`, closest first (case-insensitive, as typos are)."""
    import difflib  # off a clean file's path (start-up, see bench/startup.py): only problems get here

    scored = []
    for candidate in candidates:
        ratio = difflib.SequenceMatcher(None, word.lower(), candidate.lower()).ratio()
        if ratio >= cutoff:
            scored.append((-ratio, candidate))
    return [c for _, c in sorted(scored)[:MAX_ALTERNATIVES]]


_CHUNK = 8192


@lru_cache(maxsize=4)
def _newlines_before_chunks(text: str) -> array:
    # Every document of a file shares its text and a file holds up to 1,000 fixes: one pass counts the
    # line breaks per chunk, so a fix costs a chunk, not the text (fixes x lines), and memory is a few
    # KB, not a start per line (tests/test_repairs_hostile.py).
    counts = array("q")
    total = 0
    for at in range(0, len(text), _CHUNK):
        counts.append(total)
        total += text.count("\n", at, at + _CHUNK)
    counts.append(total)
    return counts


class _Lines:
    """Indexing and slicing as on `text.split("\\n")`, cutting out only the lines asked for."""

    __slots__ = ("text", "counts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.counts = _newlines_before_chunks(text)

    def __len__(self) -> int:
        return self.counts[-1] + 1

    def start(self, i: int) -> int:
        """Offset where 0-based line i starts: just after the i-th line break."""
        if i == 0:
            return 0
        chunk = bisect_left(self.counts, i) - 1
        base = chunk * _CHUNK
        wanted = i - self.counts[chunk]
        parts = self.text[base : base + _CHUNK].split("\n", wanted)
        return base + sum(map(len, parts[:wanted])) + wanted

    def end(self, i: int) -> int:
        """Offset of the line break ending 0-based line i (or of the end of the text), found from the
        next line's start: a chunk's work, where searching from the line's start would cost the line
        (a fix near the end of a 15 MB one-line JSON file)."""
        return self.start(i + 1) - 1 if i + 1 < len(self) else len(self.text)

    def end_of(self, start: int) -> int:
        """Offset of the line break ending the line that starts at `start` (or of the end of the text)."""
        end = self.text.find("\n", start)
        return len(self.text) if end == -1 else end

    def __getitem__(self, i: Any) -> Any:
        n = len(self)
        if isinstance(i, slice):
            wanted = range(*i.indices(n))
            if wanted.step != 1 or not wanted:
                return [self[k] for k in wanted]
            out = []
            at = self.start(wanted.start)
            for _ in wanted:  # consecutive lines: one search each, not one lookup each
                end = self.end_of(at)
                out.append(self.text[at:end])
                at = end + 1
            return out
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("list index out of range")
        at = self.start(i)
        return self.text[at : self.end_of(at)]


def _source_text(doc: Document, span: Span) -> str:
    if doc.text is None:
        return ""
    first, last = span.column - 1, (span.end_column - 1 if span.end_line == span.line else None)
    if span.line < 1 or first < 0 or (last is not None and last < 0):
        # split's maxsplit and negative indexes mean something else here: keep their answer
        lines = doc.text.split("\n", span.line)
        line = lines[span.line - 1] if len(lines) >= span.line else ""
        return line[first:last]
    table = _Lines(doc.text)
    if len(table) < span.line:
        return ""
    # Slice the file, not a copy of the line: a one-line JSON file can hold all 1,000 fixes.
    at = table.start(span.line - 1)
    end = table.end(span.line - 1)
    return doc.text[min(at + first, end) : end if last is None else min(at + last, end)]


def rename_key(doc: Document, path: Path, names: list[str]) -> list[Fix]:
    """did-you-mean for an unknown field: one fix per candidate name, best first."""
    node = doc.positions.get(path)
    if node is None or node.key is None or not names:
        return []
    quote = _source_text(doc, node.key)[:1]
    quote = quote if quote in ("'", '"') else ""
    return [Fix(f"rename '{path[-1]}' to '{name}'", (Edit(node.key, f"{quote}{name}{quote}"),)) for name in names]


def scalar_text(value: Any, original: str) -> str:
    """`value` written the way the original scalar was (quoted or plain)."""
    if not isinstance(value, str):
        return json.dumps(value)
    if original.startswith('"'):
        return json.dumps(value, ensure_ascii=False)
    if original.startswith("'"):
        return "'" + value.replace("'", "''") + "'"
    if _PLAIN.match(value) and value.lower() not in _YAML_WORDS:
        return value
    return json.dumps(value, ensure_ascii=False)


def replace_value(doc: Document, path: Path, wrong: Any, allowed: list[Any]) -> list[Fix]:
    """An enum value: the allowed values closest to the wrong one, best first."""
    node = doc.positions.get(path)
    if node is None or doc.text is None:
        return []
    original = _source_text(doc, node.value)
    if wrong is None:
        wrong = original.strip("'\"")
    by_text = {str(a): a for a in allowed}
    order = ranked(str(wrong), list(by_text), cutoff=0.0) if len(allowed) > 1 else list(by_text)
    return [Fix(f"replace with {by_text[t]!r}", (Edit(node.value, scalar_text(by_text[t], original)),)) for t in order]


def move_under(doc: Document, path: Path, home: str) -> list[Fix]:
    """A field that lost a level of nesting (`deviceClassName` beside `exactly`): move it under `home`.

    Block-style YAML is rewritten where the field starts its own line (after an
    optional `- `), with the comment lines written just above it when it moves
    into an existing `home`; a flow mapping (JSON) as a flow mapping. Anything
    else gets no fix rather than a guess.
    """
    node = doc.positions.get(path)
    if node is None or node.key is None or doc.text is None:
        return []
    if _in_flow_mapping(doc, path[:-1]):
        return _flow_move(doc, [path], home)
    lines = _Lines(doc.text)
    key, value = node.key, node.value
    prefix = lines[key.line - 1][: key.column - 1]
    if prefix.strip() not in ("", "-"):
        return []
    last = value.end_line - 1 if value.end_column == 1 and value.end_line > key.line else value.end_line
    block = [lines[key.line - 1][key.column - 1 :], *lines[key.line : last]]
    target = doc.positions.get(path[:-1] + (home,))
    description = f"move '{path[-1]}' under '{home}'"
    if target is None:
        indent = " " * (key.column + 1)
        body = "\n".join([indent + block[0], *(("  " + line) if line.strip() else line for line in block[1:])])
        end = Span(key.line, key.column, last, len(lines[last - 1]) + 1)
        return [Fix(description, (Edit(end, f"{home}:\n{body}"),))]
    if prefix.strip() or target.key is None or target.value.line <= target.key.line:
        return []  # the field carries the list item's `- `, or `home` is a flow mapping
    first = _comments_above(doc, lines, path)  # the key's line starts with indentation only, as they do
    moved = [_shift(line, target.value.column - key.column) for line in lines[first - 1 : last]]
    insert = Span(target.value.line, 1, target.value.line, 1)
    remove = Span(first, 1, last + 1, 1)
    return [Fix(description, (Edit(remove, ""), Edit(insert, "\n".join(moved) + "\n")))]


def move_all_under(doc: Document, paths: list[Path], home: str) -> list[Fix]:
    """Fields that all lost the same missing level (a flat v1beta1 request in v1): one new `home` holds them.

    The first field (in source order) is replaced by `home:` with every field
    under it, the others are removed; block-style YAML only, as in `move_under`.
    """
    if len(paths) == 1:
        return move_under(doc, paths[0], home)
    if doc.text is None or any(doc.positions.get(p) is None or doc.positions[p].key is None for p in paths):
        return []
    if _in_flow_mapping(doc, paths[0][:-1]):
        return _flow_move(doc, paths, home)
    lines = _Lines(doc.text)
    names = ", ".join(f"'{p[-1]}'" for p in paths)
    paths = sorted(paths, key=lambda p: doc.positions[p].key.line)  # type: ignore[union-attr]
    fields = [doc.positions[p] for p in paths]
    blocks, spans = [], []
    for n, node in enumerate(fields):
        key, value = node.key, node.value
        assert key is not None
        prefix = lines[key.line - 1][: key.column - 1]
        if prefix.strip() not in (("", "-") if n == 0 else ("",)) or key.column != fields[0].key.column:  # type: ignore[union-attr]
            return []
        last = value.end_line - 1 if value.end_column == 1 and value.end_line > key.line else value.end_line
        # The comment lines just above a field move with it; the first field's stay above the new `home`.
        first = _comments_above(doc, lines, paths[n]) if n else key.line
        blocks.append([lines[first - 1][key.column - 1 :], *lines[first : last]])
        spans.append((Span(first, key.column, first, key.column), last))
    first_key, first_last = spans[0]
    indent = " " * (first_key.column + 1)
    body = "\n".join(indent + block[0] + "".join("\n" + (("  " + line) if line.strip() else line) for line in block[1:]) for block in blocks)
    edits = [Edit(Span(first_key.line, first_key.column, first_last, len(lines[first_last - 1]) + 1), f"{home}:\n{body}")]
    edits += [Edit(Span(key.line, 1, last + 1, 1), "") for key, last in spans[1:]]
    return [Fix(f"move {names} under '{home}'", tuple(edits))]


def _comments_above(doc: Document, lines: _Lines, path: Path) -> int:
    """The first line of the full-line comments written just above the key at `path`, at its column, below
    the field before it (its key's line if there are none)."""
    key = doc.positions[path].key
    assert key is not None
    before = [n.value for n in _members(doc, path[:-1]) if n.key.line < key.line]
    floor = max((v.end_line - (v.end_column == 1) for v in before), default=0)
    first = key.line
    while first - 1 > floor:
        line = lines[first - 2]
        if line[: key.column - 1].strip() or not line[key.column - 1 :].startswith("#"):
            break
        first -= 1
    return first


def _members(doc: Document, parent: Path) -> list[Any]:
    """The position nodes of the fields of the mapping at `parent`, in source order."""
    data: Any = doc.data
    for part in parent:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return []
    if not isinstance(data, dict):
        return []
    nodes = [doc.positions.get(parent + (k,)) for k in data]
    return sorted((n for n in nodes if n is not None and n.key is not None), key=lambda n: (n.key.line, n.key.column))


def _in_flow_mapping(doc: Document, parent: Path) -> bool:
    """Whether the mapping at `parent` is written in flow style (`{...}`: all of JSON)."""
    node = doc.positions.get(parent)
    return node is not None and _slice(doc, node.value.line, node.value.column, node.value.line, node.value.column + 1) == "{"


def _slice(doc: Document, line: int, column: int, end_line: int, end_column: int) -> str:
    assert doc.text is not None
    table = _Lines(doc.text)
    if end_line > len(table):
        return ""
    return doc.text[table.start(line - 1) + column - 1 : table.start(end_line - 1) + end_column - 1]


def _flow_move(doc: Document, paths: list[Path], home: str) -> list[Fix]:
    """`move_under` / `move_all_under` in a flow mapping: the members are cut out with the comma before them
    (after them, for the mapping's first) and written as members of `home`, a new one in place of the first."""
    members = _members(doc, paths[0][:-1])
    moved = sorted((doc.positions[p] for p in paths), key=lambda n: (n.key.line, n.key.column))  # type: ignore[union-attr]
    if any(n not in members for n in moved):
        return []
    texts = [_slice(doc, n.key.line, n.key.column, n.value.end_line, n.value.end_column) for n in moved]  # type: ignore[union-attr]
    target = doc.positions.get(paths[0][:-1] + (home,))
    first = moved[0]
    edits = []
    for node in moved if target is not None else moved[1:]:
        at = members.index(node)
        if at:
            start = members[at - 1].value
            edits.append(Edit(Span(start.end_line, start.end_column, node.value.end_line, node.value.end_column), ""))
        elif len(members) > 1:
            after = members[1].key
            edits.append(Edit(Span(node.key.line, node.key.column, after.line, after.column), ""))
        else:
            return []  # the only member: `home` cannot be beside it
    if target is not None:
        if not _in_flow_mapping(doc, paths[0][:-1] + (home,)):
            return []
        empty = _slice(doc, target.value.line, target.value.column, target.value.end_line, target.value.end_column)[1:-1].strip() == ""
        at = Span(target.value.line, target.value.column + 1, target.value.line, target.value.column + 1)
        edits.append(Edit(at, ", ".join(texts) + ("" if empty else ", ")))
    else:
        quote = texts[0][:1] if texts[0][:1] in ("'", '"') else ""
        indent = _slice(doc, first.key.line, 1, first.key.line, first.key.column)  # type: ignore[union-attr]
        if len({n.key.line for n in moved}) == len(moved) and not indent.strip():  # one member a line: so is each
            inner = ",\n".join(indent + "  " + text.replace("\n", "\n  ") for text in texts)
            body = f"{{\n{inner}\n{indent}}}"
        else:
            body = "{" + ", ".join(texts) + "}"
        replace = Span(first.key.line, first.key.column, first.value.end_line, first.value.end_column)  # type: ignore[union-attr]
        edits.append(Edit(replace, f"{quote}{home}{quote}: {body}"))
    names = ", ".join(f"'{p[-1]}'" for p in paths)
    return [Fix(f"move {names} under '{home}'", tuple(edits))]


def _shift(line: str, by: int) -> str:
    if not line.strip():
        return line
    if by >= 0:
        return " " * by + line
    strip = min(-by, len(line) - len(line.lstrip(" ")))
    return line[strip:]


def offsets(text: str) -> list[int]:
    """Start offset of every line of `text` (1-based line n starts at offsets[n - 1])."""
    starts = [0]
    find = text.find
    at = find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def apply(text: str, edits: list[Edit]) -> str:
    """`text` with non-overlapping `edits` applied (spans in code points, 1-based, end exclusive)."""
    starts = offsets(text)

    def index(line: int, column: int) -> int:
        if line > len(starts):
            return len(text)
        return min(starts[line - 1] + column - 1, len(text))

    out = []
    cursor = len(text)
    for edit in sorted(edits, key=lambda e: (e.span.line, e.span.column), reverse=True):
        start, end = index(edit.span.line, edit.span.column), index(edit.span.end_line, edit.span.end_column)
        if end > cursor:
            raise ValueError("overlapping edits")
        out.append(text[end:cursor])
        out.append(edit.text)
        cursor = start
    out.append(text[:cursor])
    return "".join(reversed(out))
