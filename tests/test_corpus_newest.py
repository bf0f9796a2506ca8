"""The real-world corpus at the newest release: a file marked valid at its own release
stays free of errors at 1.37 when 1.37 still serves its API version.

The files whose API version 1.37 no longer serves (DRA010) are left out: their errors
there are the point, not a false positive.
"""

from __future__ import annotations

import json
import os

import pytest

from conftest import SHARED
from engine import lint_paths

NEWEST = "1.37"
NOT_SERVED = {"DRA010", "DRA011"}


def test_valid_files_have_no_error_at_the_newest_release():
    index = SHARED / "corpus" / "real-world" / "index.json"
    if not index.is_file():
        pytest.skip("the real-world corpus (../shared/corpus/real-world) is not present")
    rows = [r for r in json.loads(index.read_text()) if r["expected_valid"] is True and r.get("k8s_version")]
    files = [index.parent / r["file"] for r in rows]
    errors: dict[str, list[str]] = {}
    for p in lint_paths(files, release=NEWEST).problems:
        if str(p.severity) == "error":
            errors.setdefault(os.path.realpath(p.source), []).append(f"{p.span.line}:{p.span.column} {p.rule} {p.path}: {p.message}")
    served = {f: errs for f, errs in errors.items() if not any(f" {code} " in e for e in errs for code in NOT_SERVED)}
    assert len(rows) > 300
    assert served == {}
