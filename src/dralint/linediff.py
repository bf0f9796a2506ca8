"""Line alignment in near-linear time, and unified diffs built on it.

`difflib.SequenceMatcher` is quadratic when many lines are alike (20,000
`# pad` comment lines took 40 s), and `difflib.unified_diff` uses it too.
Here two line lists are aligned as patience diff does it: common head and
tail first, then lines that occur once on each side as anchors (longest
increasing run, O(n log n)), recursively between anchors. Only small gaps
without anchors are handed to SequenceMatcher. A work budget proportional to
the input bounds the whole alignment; past it, what is left is reported as
replaced: the diff is then longer than it needs to be, never wrong.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from collections.abc import Iterator, Sequence

# Gaps with no unique anchor line are aligned by SequenceMatcher up to this
# many line pairs (quadratic there, so kept small); larger ones stay replaced.
SMALL_GAP_PAIRS = 40_000
WORK_PER_LINE = 64

Opcode = tuple[str, int, int, int, int]


def matching_blocks(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int]]:
    """(i, j, n) triples with a[i:i+n] == b[j:j+n], increasing in i and j, ending with (len(a), len(b), 0)."""
    pairs: list[tuple[int, int]] = []
    budget = [WORK_PER_LINE * (len(a) + len(b) + 1)]
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            pairs.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            pairs.append((ahi, bhi))
        if alo == ahi or blo == bhi:
            continue
        budget[0] -= (ahi - alo) + (bhi - blo)
        if budget[0] < 0:
            continue
        anchors = _unique_anchors(a, b, alo, ahi, blo, bhi)
        if not anchors:
            pairs.extend(_small_gap(a, b, alo, ahi, blo, bhi))
            continue
        prev_a, prev_b = alo, blo
        for i, j in anchors:
            pairs.append((i, j))
            stack.append((prev_a, i, prev_b, j))
            prev_a, prev_b = i + 1, j + 1
        stack.append((prev_a, ahi, prev_b, bhi))
    pairs.sort()
    blocks: list[tuple[int, int, int]] = []
    for i, j in pairs:
        if blocks and blocks[-1][0] + blocks[-1][2] == i and blocks[-1][1] + blocks[-1][2] == j:
            blocks[-1] = (blocks[-1][0], blocks[-1][1], blocks[-1][2] + 1)
        else:
            blocks.append((i, j, 1))
    blocks.append((len(a), len(b), 0))
    return blocks


def _unique_anchors(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Lines that occur exactly once in a[alo:ahi] and in b[blo:bhi], as the longest run increasing on both sides."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if count_b[b[j]] == 1 and count_a[b[j]] == 1}
    candidates = [(i, where_b[a[i]]) for i in range(alo, ahi) if a[i] in where_b]
    # Longest increasing subsequence of the b positions (patience sorting).
    tails: list[int] = []  # b position ending the best run of each length
    tail_index: list[int] = []
    back: list[int] = []
    for k, (_, j) in enumerate(candidates):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_index.append(k)
        else:
            tails[pos] = j
            tail_index[pos] = k
        back.append(tail_index[pos - 1] if pos else -1)
    run: list[tuple[int, int]] = []
    k = tail_index[-1] if tail_index else -1
    while k >= 0:
        run.append(candidates[k])
        k = back[k]
    run.reverse()
    return run


def _small_gap(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    if (ahi - alo) * (bhi - blo) > SMALL_GAP_PAIRS:
        return []
    matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
    return [(alo + i + k, blo + j + k) for i, j, n in matcher.get_matching_blocks() for k in range(n)]


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """What `SequenceMatcher.get_opcodes` answers, from `matching_blocks`."""
    out: list[Opcode] = []
    i = j = 0
    for ai, bj, size in matching_blocks(a, b):
        tag = "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else ""
        if tag:
            out.append((tag, i, ai, j, bj))
        if size:
            out.append(("equal", ai, ai + size, bj, bj + size))
        i, j = ai + size, bj + size
    return out


def _grouped(codes: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """Hunks with `context` equal lines around each change (SequenceMatcher.get_grouped_opcodes)."""
    if not codes:
        codes = [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str, context: int = 3) -> Iterator[str]:
    """`difflib.unified_diff` for lines that keep their endings, in near-linear time."""
    started = False
    for group in _grouped(opcodes(a, b), context):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])
