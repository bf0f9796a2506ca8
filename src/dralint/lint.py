"""The library's front door: what a Python program calls to lint manifests.

    from dralint.lint import LintOptions, Source, lint
    result = lint([Source("claim.yaml", data)], LintOptions(release="1.35"))

The stages live in `dralint.pipeline`, which may be reorganised between releases; the names
here are the stable import path for callers, as `dralint.api` is for rule authors.
"""

from .pipeline.partial import DocumentSummary, LintResult
from .pipeline.run import LintOptions, known_codes, lint, lint_documents
from .pipeline.selection import Selection
from .pipeline.sources import Source, collect

__all__ = ["LintOptions", "LintResult", "Selection", "Source", "collect", "DocumentSummary", "lint", "lint_documents", "known_codes"]
