"""The real-world corpus: 353 manifests from public DRA drivers and docs (../shared/corpus/real-world).

Every file marked valid must lint with no error at its release, and every
file marked invalid must get at least one error (the six without a release
at the newest one). The corpus is linted once per session (conftest `corpus`).
"""

from __future__ import annotations


def _errors(problems) -> list[str]:
    return [f"{p.span.line}:{p.span.column} {p.rule} {p.path}: {p.message}" for p in problems if str(p.severity) == "error"]


def test_valid_files_have_no_error(corpus):
    valid = [r for r in corpus.rows if r["expected_valid"] is True and r.get("k8s_version")]
    assert len(valid) > 300
    false_positives = {r["file"]: _errors(corpus.of(r)) for r in valid if _errors(corpus.of(r))}
    assert false_positives == {}


def test_invalid_files_are_caught(corpus):
    # Go templates are passed over with a "render first" info (tests/test_repository.py).
    invalid = [r for r in corpus.rows if r["expected_valid"] is False and not r.get("templated")]
    assert len(invalid) >= 30
    missed = {r["file"]: r["notes"] for r in invalid if not _errors(corpus.of(r))}
    assert missed == {}
