"""No input makes a rule crash: every built-in rule survives values of every wrong shape.

Real documents (the fixtures and, when present, the real-world corpus) are
broken at random places — a field replaced by null, a number, a string, a
list, a map — under every API version and several releases, and linted. A
rule that raises shows as DRA901 internal-error; there must be none, and every
problem must still find its position.
"""

from __future__ import annotations

import copy
import json
import random
from collections import defaultdict

from dralint.model import Document
from dralint.pipeline.load import load

from conftest import CASES, ROOT, SHARED
from engine import lint_documents_in_process

WRONG_VALUES = [None, 0, -1, 1.5, True, "", "x", "Bad_Name", "a/b/c", "1Gi", 10**20, [], [1], [None], [{}], {}, {"a": 1}]
API_VERSIONS = [f"resource.k8s.io/{v}" for v in ("v1", "v1beta2", "v1beta1", "v1alpha3", "v1alpha2", "v1alpha1")] + ["v1"]
RELEASES = ["1.26", "1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37", "1.38"]


# Each document broken twice, each time at a release drawn from all of RELEASES: over the ~1,300
# documents of the fixtures and the corpus every release is drawn a few hundred times.
BREAKS_PER_DOCUMENT = 2


def _documents():
    files = sorted((ROOT / "examples").rglob("*.yaml")) + sorted(CASES.rglob("*.yaml"))
    index = SHARED / "corpus" / "real-world" / "index.json"
    if index.is_file():
        files += [index.parent / row["file"] for row in json.loads(index.read_text())]
    for path in files:
        for doc in load(str(path), path.read_bytes()).documents:
            if isinstance(doc.data, dict):
                yield doc


def _break(data: dict, rng: random.Random) -> dict:
    data = copy.deepcopy(data)
    places = []

    def walk(node):
        if isinstance(node, dict):
            for key in list(node):
                places.append((node, key))
                walk(node[key])
        elif isinstance(node, list):
            for i, item in enumerate(node):
                places.append((node, i))
                walk(item)

    walk(data)
    for _ in range(rng.randint(1, 4)):
        if places:
            parent, key = rng.choice(places)
            parent[key] = copy.deepcopy(rng.choice(WRONG_VALUES))
    if rng.random() < 0.5:
        data["apiVersion"] = rng.choice(API_VERSIONS)
    return data


def test_rules_never_crash_on_broken_documents():
    rng = random.Random(20261122)
    runs = 0
    by_release: dict[str, list[Document]] = defaultdict(list)
    for doc in _documents():
        for _ in range(BREAKS_PER_DOCUMENT):
            broken = Document(doc.source, doc.index, _break(doc.data, rng), doc.positions, doc.text)
            by_release[rng.choice(RELEASES)].append(broken)
            runs += 1
    # The broken documents of a release in one run, as the webhook lints the objects of a request: every
    # document-scope rule still sees each document alone, and the run-scope ones see them together.
    crashes = []
    for release, documents in by_release.items():
        for problem in lint_documents_in_process(documents, release):
            assert problem.span.line >= 1
            if problem.rule == "DRA901":
                crashes.append((problem.source, problem.document, release, problem.message))
    assert runs > 200
    assert set(by_release) == set(RELEASES)
    assert crashes == []
