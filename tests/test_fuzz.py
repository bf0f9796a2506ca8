"""Seeded fuzzing of the whole pipeline, in process (issue 9, "keep it so").

Mutants of real manifests (the test cases, the examples and ../shared/corpus
when present) are linted with every rule and rendered in every output format:
no exception, no DRA901, valid JSON and SARIF, every position inside its file,
and no input slower than a few seconds. tools/fuzz.py is the same check for
longer runs (see its docstring). The language server's leg (random incremental
edits, the server's buffer compared with the client's) is tests/test_lsp_fuzz.py.
"""

from __future__ import annotations

import importlib.util
import time

from conftest import ROOT

_spec = importlib.util.spec_from_file_location("dralint_fuzz", ROOT / "tools" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

SEED = 20261123
MUTANTS = 200
BUDGET_SECONDS = 30  # a cap for a loaded machine: MUTANTS bound the suite's share (~3 s idle); tools/fuzz.py runs as long as asked
MAX_SECONDS_PER_INPUT = 3  # the C parser; the pure-Python one reads ~0.5 MB/s, and a mutant can be 2 MB
MAX_SECONDS_PER_INPUT_PURE = 12
# The pure-Python parser's leg mutates the manifests up to this size: they hold every shape of YAML
# the parsers read; the few larger ones are long lists at a limit, whose mutants the C leg reads.
PURE_MAX_BYTES = 16 * 1024


def _run(seed: int, count: int, budget: float, max_seconds: float = MAX_SECONDS_PER_INPUT,
         max_bytes: int | None = None) -> tuple[int, list[str]]:
    deadline = time.monotonic() + budget
    failures: list[str] = []
    done = 0
    files = [p for p in fuzz.corpus_files() if max_bytes is None or p.stat().st_size <= max_bytes]
    for n, name, data in fuzz.mutants(seed, files):
        if n >= count or time.monotonic() > deadline:
            break
        failures += [f"mutant {n} of {name}: {f}" for f in fuzz.check(name, data, max_seconds)]
        done += 1
    return done, failures


def test_fuzzed_manifests_through_every_format():
    done, failures = _run(SEED, MUTANTS, BUDGET_SECONDS * 0.8)
    assert done >= 100, f"only {done} mutants in the time budget"
    assert failures == []


def test_fuzzed_manifests_with_the_pure_python_parser(monkeypatch):
    monkeypatch.setenv("DRALINT_PURE_PYTHON", "1")
    done, failures = _run(SEED + 1, MUTANTS // 4, BUDGET_SECONDS * 0.3, MAX_SECONDS_PER_INPUT_PURE, PURE_MAX_BYTES)
    assert done >= 20, f"only {done} mutants in the time budget"
    assert failures == []
