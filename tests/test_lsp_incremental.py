"""The language server judges only the documents of a buffer that changed (dralint.lsp.incremental), and
what it publishes is what a fresh lint of the whole buffer finds. The seeded edits here (documents edited,
lines added and removed so that later documents move, `---` added and removed, whole documents inserted,
the objects other documents reference renamed or moved to another namespace, syntax broken and mended)
are also sent by a real client, as an editor sends them, in test_lsp_buffer.py, on that module's server.
In process: a one-document edit checks that document alone again, problems and fixes land where the
whole buffer's lint puts them, and buffers a piece cannot stand for are linted whole."""

from __future__ import annotations

import random
from itertools import pairwise
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from dralint.lint import Source, lint  # noqa: E402
from dralint.lsp import carry, engine, incremental  # noqa: E402
from dralint.lsp.encode import lintable  # noqa: E402
from dralint.lsp.text import Text  # noqa: E402
from dralint.pipeline import run as run_module  # noqa: E402

CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu-{i}.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
"""
CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim-{i}
  namespace: team-a
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu-{c}.example.com
        allocationMode: ExactCount
        count: 2
"""
TEMPLATE = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: claim-{i}
  namespace: team-a
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu-{c}.example.com
          selectors:
          - cel:
              expression: device.attributes["gpu.example.com"].model == "a100"
"""
POD = """apiVersion: v1
kind: Pod
metadata:
  name: pod-{i}
  namespace: team-a
spec:
  containers:
  - name: c
    image: busybox
    resources:
      claims:
      - name: gpu
  resourceClaims:
  - name: gpu
    resourceClaimName: claim-{c}
  - name: other
    resourceClaimTemplateName: claim-{c}
"""
# (old, new): field edits, both ways. The namespace and kind of a claim change what the pods that
# name it are told (DRA710, DRA711); the others change one document's own problems or its lines.
REPLACEMENTS = [
    ("namespace: team-a", "namespace: team-b"),
    ("kind: ResourceClaim\n", "kind: ResourceClaimTemplate\n"),
    ("allocationMode: ExactCount", "alocationMode: ExactCount"),
    ("count: 2", "count: -1"),
    ("count: 2", "count: 2\n        count: 3"),
    ("- name: gpu\n", "- name: GPU_bad\n"),
    ("deviceClassName", "deviceClasName"),
    ("  name: claim-", "  name: claim-x"),
    ('== "a100"', "== "),
    ("metadata:\n", "metadata:\n  # a comment\n\n"),
    ("spec:\n", "spec:\n  unknownField: 1\n"),
    ("image: busybox\n", ""),
    ("  namespace: team-a\n", "  namespace: [team-a\n"),  # a syntax error, mended by the way back
]
PIECES = ["a", ":", " ", "-", "[", "'", "\n", "  ", "#", "key: ", "---\n"]


def _buffer(rng: random.Random, count: int) -> str:
    templates = [CLASS, CLAIM, CLAIM, TEMPLATE, POD]
    return "---\n".join(rng.choice(templates).format(i=i % 5, c=rng.randrange(5)) for i in range(count))


def _edit(rng: random.Random, text: str) -> tuple[int, int, str]:
    """(start, end, new text): one edit an editor could send."""
    roll = rng.random()
    lines = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    markers = [s for s in lines if text.startswith("---\n", s)]
    if roll < 0.12 and markers:  # remove a `---`: two documents become one
        at = rng.choice(markers)
        return at, at + 4, ""
    if roll < 0.22:  # add a `---` before a document's first line: one becomes two, or an empty one appears
        at = rng.choice([s for s in lines if text.startswith("apiVersion", s)] or [0])
        return at, at, "---\n"
    if roll < 0.3 and markers:  # a whole new document
        at = rng.choice(markers)
        return at, at, "---\n" + rng.choice([CLAIM, POD, CLASS]).format(i=rng.randrange(9), c=rng.randrange(5))
    if roll < 0.36 and len(lines) > 2:  # a line deleted
        k = rng.randrange(len(lines) - 1)
        return lines[k], lines[k + 1], ""
    if roll < 0.44:  # characters typed
        at = rng.randrange(len(text) + 1)
        return at, min(len(text), at + rng.choice([0, 0, 1])), "".join(rng.choice(PIECES) for _ in range(rng.choice([1, 2])))
    for _ in range(20):
        old, new = rng.choice(REPLACEMENTS + [(new, old) for old, new in REPLACEMENTS if new])
        found = [i for i in range(len(text)) if text.startswith(old, i)]
        if found:
            at = rng.choice(found)
            return at, at + len(old), new
    return len(text), len(text), "# the end\n"


def _whole(path: str, text: str) -> list:
    """The buffer's problems as a fresh lint of it finds them, filtered as the server filters them."""
    result = lint([Source(path, lintable(text))], engine.settings_for(path).options.at_the_stream())
    return [p for p in result.problems if p.source == path and p.rule not in engine.OUTSIDE_THE_WORKSPACE]


# -- in process ---------------------------------------------------------------------------------
def _problems(problems) -> list[tuple]:
    return [(p.rule, p.severity, p.message, p.document, tuple(p.span), p.path, [(f.description, f.edits) for f in p.fixes]) for p in problems]


def _pieces_of(path: str, text: str) -> list | None:
    result = incremental.lint_pieces(path, text, engine.settings_for(path).options, None)
    if result is None:
        return None
    return [p for p in result.problems if p.source == path and p.rule not in engine.OUTSIDE_THE_WORKSPACE]


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The sources checked apart, in order, from now on."""
    seen: list[bytes] = []
    original = run_module.Alone.check

    def check(self, source):
        seen.append(source.data)
        return original(self, source)

    monkeypatch.setattr(run_module.Alone, "check", check)
    incremental.forget()
    return seen


def test_a_one_document_edit_checks_that_document_alone_again(tmp_path: Path, checked: list[bytes]):
    path = str(tmp_path / "many.yaml")
    documents = [CLAIM.format(i=i, c=i) for i in range(6)] + [POD.format(i=0, c=3)]
    documents[5] = documents[5].replace("allocationMode", "alocationMode")  # a problem with a fix, after the edit
    text = "---\n".join(documents)
    assert _problems(_pieces_of(path, text)) == _problems(_whole(path, text))
    assert len(checked) == 7
    # A line more in the third document: the documents after it move down, the pod's references too.
    edited = text.replace("name: claim-2\n", "name: claim-2\n  labels: {a: b}\n")
    checked.clear()
    moved = _pieces_of(path, edited)
    assert checked == [("---\n" + documents[2].replace("name: claim-2\n", "name: claim-2\n  labels: {a: b}\n")).encode()]
    assert _problems(moved) == _problems(_whole(path, edited))
    typo = next(p for p in moved if p.rule == "DRA101")
    # Document 5 starts at line 71 (13 lines, then 14 with their `---` each), its typo 11 lines on, and one line
    # was added above it.
    assert (typo.document, typo.span.line, typo.fixes[0].edits[0].span.line) == (5, 83, 83)
    # The claim the pod names moves to another namespace: only that document is checked, the pod is told.
    checked.clear()
    elsewhere = edited.replace("name: claim-3\n  namespace: team-a", "name: claim-3\n  namespace: team-b")
    told = _pieces_of(path, elsewhere)
    assert len(checked) == 1 and b"claim-3" in checked[0]
    assert [(p.rule, p.document) for p in told if p.rule == "DRA711"] == [("DRA711", 6)]
    assert _problems(told) == _problems(_whole(path, elsewhere))


def test_a_new_separator_and_a_removed_one_renumber_the_documents_after_them(tmp_path: Path, checked: list[bytes]):
    path = str(tmp_path / "split.yaml")
    text = "---\n".join(CLAIM.format(i=i, c=i).replace("count: 2", "count: -1") for i in range(4))
    split = text.replace("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: claim-1", "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: claim-1", 1)
    for version in (text, split, text, text.replace("---\n", "", 1)):
        assert _problems(_pieces_of(path, version)) == _problems(_whole(path, version))
    assert [p.document for p in _pieces_of(path, split) if p.rule == "DRA314"] == [0, 2, 3, 4]  # count -1


def test_a_syntax_error_in_one_document_leaves_the_others_judged(tmp_path: Path, checked: list[bytes]):
    path = str(tmp_path / "broken.yaml")
    text = "---\n".join(CLAIM.format(i=i, c=i) for i in range(3))
    # Met before the piece's last line, or in the last piece: the piece stands for itself.
    for broken in (text.replace("  namespace: team-a\nspec:", "  namespace: team-a\n spec:", 1), text + "x: [\n"):
        found = _pieces_of(path, broken)
        assert found is not None and any(p.rule == "DRA001" for p in found)
        assert _problems(found) == _problems(_whole(path, broken))
    # Met at the `---` that follows (the unclosed `[`): only the whole buffer tells.
    unclosed = text.replace("count: 2", "count: [2", 1)
    assert _pieces_of(path, unclosed) is None
    assert [(p.rule, p.span.line) for p in engine.lint_buffer(path, unclosed).problems] == [("DRA001", 14)]


@pytest.mark.parametrize(
    "text",
    [
        CLAIM.format(i=0, c=0) + "---\n# dralint: disable-next-line=DRA101\n" + CLAIM.format(i=1, c=1).replace("count", "cont"),
        "# dralint: disable-file=DRA101\n" + CLAIM.format(i=0, c=0) + "---\n" + CLAIM.format(i=1, c=1).replace("count", "cont"),
        CLAIM.format(i=0, c=0) + "---\n" + CLAIM.format(i=1, c=1).replace("claim-1", '"{{ .Values.name }}"'),
        CLAIM.format(i=0, c=0) + "...\n---\n" + CLAIM.format(i=1, c=1),
        CLAIM.format(i=0, c=0).replace("\n", "\r\n") + "---\r\n" + CLAIM.format(i=1, c=1).replace("\n", "\r\n"),
        CLAIM.format(i=0, c=0) + "---\nfoo: bar\n",
        # The boolean key is reported as read, before the syntax error ends the document: kept in a whole manifest.
        CLAIM.format(i=0, c=0) + "---\n" + CLAIM.format(i=1, c=1).replace("  namespace: team-a\n", "  n: x\n  namespace: team-a\n").replace("count: 2", "count: [2\n    x") + "---\n" + CLAIM.format(i=2, c=2),
    ],
    ids=["suppression", "file-suppression", "template", "document-end", "crlf", "not-an-object", "key-before-syntax-error"],
)
def test_what_a_piece_alone_cannot_stand_for_is_linted_whole(tmp_path: Path, text: str):
    path = str(tmp_path / "whole.yaml")
    assert _pieces_of(path, text) is None
    assert _problems(engine.lint_buffer(path, text).problems) == _problems(_whole(path, text))


def test_random_edits_in_process(tmp_path: Path):
    """Many more edits than through the client: every problem, position and fix as the whole buffer's lint."""
    path = str(tmp_path / "random.yaml")
    incremental.forget()
    served = edits = 0
    for seed in range(3):
        rng = random.Random(100 + seed)
        text = _buffer(rng, 10)
        for _ in range(40):
            start, end, new = _edit(rng, text)
            text = text[:start] + new + text[end:]
            pieces = _pieces_of(path, text)
            edits += 1
            if pieces is not None:
                served += 1
                assert _problems(pieces) == _problems(_whole(path, text)), text
    assert served > edits // 2  # mostly served from their pieces: broken ones stay broken until mended


def test_more_problems_than_a_documents_cap_are_served_from_the_pieces(tmp_path: Path):
    path = str(tmp_path / "many-problems.yaml")
    text = "---\n".join(CLAIM.format(i=i, c=i).replace("count: 2", "count: -1") for i in range(120))
    found = _pieces_of(path, text)
    assert found is not None and len(found) == 120
    assert _problems(found) == _problems(_whole(path, text))


def test_the_same_document_twice_is_told_at_both_places(tmp_path: Path):
    """Two pods of the same text name a claim that is a template: each is told where it stands, also
    after a line above them moved both."""
    path = str(tmp_path / "twice.yaml")
    pod = POD.format(i=0, c=1).replace("  - name: other\n    resourceClaimTemplateName: claim-1\n", "")
    text = "---\n".join([TEMPLATE.format(i=1, c=1), pod, pod])
    for version in (text, text.replace("  name: claim-1\n", "  name: claim-1\n  labels: {a: b}\n")):
        found = _pieces_of(path, version)
        assert [(p.rule, p.document) for p in found] == [("DRA710", 1), ("DRA710", 2)]
        assert _problems(found) == _problems(_whole(path, version))


def _fixable(problems) -> list[tuple]:
    return [(p.rule, p.message, tuple(p.span), [(f.description, f.edits) for f in p.fixes]) for p in problems if p.fixes]


def test_quick_fixes_carried_to_an_edited_text_are_a_fresh_lints_in_every_unchanged_document(tmp_path: Path):
    """dralint.lsp.carry, after each of a series of random edits: the quick fixes the last lint offers for the
    edited text, at its new places, are exactly those a fresh lint of the edited text offers in the documents
    that stand unchanged before or after the edit, and none in a changed one (none at all where the buffer
    cannot be cut)."""
    path = str(tmp_path / "carried.yaml")
    reads_others = engine.config_facts(path).reads_others
    carried_somewhere = 0
    for seed in range(2):
        rng = random.Random(300 + seed)
        text = _buffer(rng, 8).replace("allocationMode", "alocationMode")  # a fixable typo in every claim
        linted = _whole(path, text)
        for _ in range(20):
            judged = carry.Judged(path, Text(text), linted, reads_others)
            start, end, new = _edit(rng, text)
            edited = text[:start] + new + text[end:]
            carried = list(judged.at(Text(edited), (1, 1), (10**9, 1)))
            linted = _whole(path, edited)  # the fresh lint, and the next edit's last lint
            old_cuts, new_cuts = incremental.cuts(path, text), incremental.cuts(path, edited)
            if old_cuts is None or new_cuts is None:
                assert carried == []
            else:
                old_pieces = set(pairwise(old_cuts))
                shift = len(text) - len(edited)  # a piece after the edit stands as far from the end as before
                kept = [(a, b) for a, b in pairwise(new_cuts) if any((a + d, b + d) in old_pieces and text[a + d : b + d] == edited[a:b] for d in (0, shift))]
                at = Text(edited).from_dralint
                fresh = [p for p in linted if p.rule not in reads_others and any(a <= at(p.span.line, p.span.column) < b for a, b in kept)]
                assert _fixable(carried) == _fixable(fresh), (start, end, new)
                carried_somewhere += bool(carried)
            text = edited
    assert carried_somewhere > 30  # of 40 edits: most leave fixes to carry


def test_no_quick_fix_is_carried_past_a_changed_dralint_comment_or_into_a_buffer_that_cannot_be_cut(tmp_path: Path):
    path = str(tmp_path / "settings.yaml")
    text = "---\n".join(CLAIM.format(i=i, c=i).replace("allocationMode", "alocationMode") for i in range(3))
    judged = carry.Judged(path, Text(text), _whole(path, text), engine.config_facts(path).reads_others)
    everywhere = ((1, 1), (10**9, 1))
    edited = text.replace("name: claim-0\n", "name: claim-0\n  labels: {a: b}\n")
    assert [(p.rule, p.span.line) for p in judged.at(Text(edited), *everywhere)] == [("DRA101", 27), ("DRA101", 41)]  # documents 1 and 2
    renamed = text.replace("name: claim-0\n", "name: claim-9\n")  # the same length, where document 0 stood: changed all the same
    assert [(p.rule, p.span.line) for p in judged.at(Text(renamed), *everywhere)] == [("DRA101", 26), ("DRA101", 40)]
    # A file-wide suppression typed into document 0 silences documents 1 and 2 as well: nothing is carried.
    suppressed = text.replace("name: claim-0\n", "name: claim-0\n# dralint: disable-file=DRA101\n")
    assert [p.rule for p in _whole(path, suppressed)] == [] and list(judged.at(Text(suppressed), *everywhere)) == []
    # CRLF line breaks (a buffer the incremental lint does not cut): nothing is carried either.
    assert list(judged.at(Text(edited.replace("\n", "\r\n")), *everywhere)) == []


def test_no_quick_fix_is_carried_that_the_files_cap_of_problems_hides_in_a_fresh_lint(tmp_path: Path):
    """A file lists at most MAX_PROBLEMS_PER_FILE problems, in document order, then one DRA005 for the rest.
    A class, nine claims of it with many unknown fields, then forty with a fixable typo: 922 problems. Five
    more unknown fields typed into the first claim keep the buffer below the cap: every typo's fix is carried
    (the first claim's 90 problems are gone, and the most it can have now is 100). A claim with 99 unknown
    fields pasted after it brings the file past its cap: a fresh lint lists the typos of the first nineteen
    of the forty, and its DRA005 stands where the twentieth's would. No quick fix is carried that it does
    not offer."""
    path = str(tmp_path / "capped.yaml")
    reads_others = engine.config_facts(path).reads_others

    def claim(i: int, unknown: int, typo: bool = False) -> str:
        text = CLAIM.format(i=i, c=0) + "".join(f"        x{k}: 1\n" for k in range(unknown))
        return text.replace("allocationMode", "alocationMode") if typo else text

    def buffer(*first: str) -> str:
        return "---\n".join([CLASS.format(i=0), *first, *(claim(i, 99) for i in range(1, 9)), *(claim(i, 0, typo=True) for i in range(10, 50))])

    text = buffer(claim(0, 90))
    linted = _whole(path, text)
    assert len(linted) == 922 and {p.rule for p in linted} == {"DRA101"}
    judged = carry.Judged(path, Text(text), linted, reads_others)
    everywhere = ((1, 1), (10**9, 1))
    below = buffer(claim(0, 95))
    typos = [p for p in _whole(path, below) if p.fixes]
    assert len(typos) == 40 and _fixable(judged.at(Text(below), *everywhere)) == _fixable(typos)
    past = buffer(claim(0, 90), claim(9, 99))
    fresh = _whole(path, past)
    [rest] = [p for p in fresh if p.rule == "DRA005"]
    assert (rest.document, rest.message) == (30, "21 more problems in this file were not listed (at most 1000 are); this is where the first of them is")
    typos = _fixable(p for p in fresh if p.fixes)
    assert len(typos) == 19
    assert [f for f in _fixable(judged.at(Text(past), *everywhere)) if f not in typos] == []


def test_the_common_ends_of_two_texts_are_found_by_halving():
    rng = random.Random(7)
    for _ in range(300):
        old = "".join(rng.choice("ab\n-") for _ in range(rng.randrange(12)))
        new = "".join(rng.choice("ab\n-") for _ in range(rng.randrange(12))) if rng.random() < 0.3 else old[: rng.randrange(len(old) + 1)] + rng.choice(["", "a", "--\n"]) + old[rng.randrange(len(old) + 1) :]
        prefix = next((n for n in range(min(len(old), len(new))) if old[n] != new[n]), min(len(old), len(new)))
        room = min(len(old), len(new)) - prefix
        suffix = next((n for n in range(room) if old[len(old) - 1 - n] != new[len(new) - 1 - n]), room)
        assert carry._common_ends(old, new) == (prefix, suffix), (old, new)


def test_no_quick_fix_is_carried_from_a_document_at_its_cap_that_a_moved_once_per_file_problem_overflows(tmp_path: Path):
    """A document lists at most MAX_PROBLEMS_PER_DOCUMENT problems. DRA011 is reported once per file, on the
    first document of its apiVersion: when that document changes to another apiVersion, DRA011 moves onto
    the next one of it, unchanged, which had exactly its cap of problems (99 unknown fields and a fixable
    typo): in a fresh lint the typo is no longer listed (a DRA005 stands for it), and its fix is not carried.
    The other unchanged document's fix is."""
    path = str(tmp_path / "once.yaml")

    def device_class(n: int, version: str, unknown: int, typo: bool) -> str:
        return (f"apiVersion: resource.k8s.io/{version}\nkind: DeviceClass\nmetadata:\n  name: c{n}.example.com\nspec:\n"
                + "".join(f"  x{k}: 1\n" for k in range(unknown)) + ("  selectrs: []\n" if typo else ""))

    text = "---\n".join([device_class(0, "v1beta1", 0, False), device_class(1, "v1", 0, True), device_class(2, "v1beta1", 99, True)])
    edited = text.replace("v1beta1", "v1", 1)
    linted, fresh = _whole(path, text), _whole(path, edited)
    assert [(p.rule, p.document, p.span.line) for p in linted if p.rule != "DRA101" or p.fixes] == [("DRA011", 0, 1), ("DRA101", 1, 12), ("DRA101", 2, 118)]
    assert [(p.rule, p.document, p.span.line) for p in fresh if p.rule != "DRA101" or p.fixes] == [("DRA101", 1, 12), ("DRA011", 2, 14), ("DRA005", 2, 118)]
    judged = carry.Judged(path, Text(text), linted, engine.config_facts(path).reads_others)
    assert _fixable(judged.at(Text(edited), (1, 1), (10**9, 1))) == _fixable(p for p in fresh if p.fixes)
