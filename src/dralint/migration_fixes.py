"""The migrate rewrite as a fix: beta apiVersion problems (DRA011, DRA020, DRA021) of
v1beta1/v1beta2 objects get the `dralint migrate` result of their document.

A fixer for `LintOptions.fixers`, used by `dralint --fix` and the language
server; `lint` itself never imports migrate (which lints what it rewrites).
"""

from functools import lru_cache

from .k8s.resource import MIGRATION_KINDS, MIGRATION_SOURCES
from .model import Document, Edit, Fix, Problem, Span
from .pipeline.run import LintOptions


@lru_cache(maxsize=8)
def _migrated(name: str, text: str) -> str | None:
    # Only when a fix is read: migrate brings ruamel's round-trip loader and dataclasses,
    # which `dralint -f json` on a clean file must not pay for (tests/test_architecture.py).
    from .migrate import migrate_text

    result = migrate_text(name, text)
    return result.new if result.changed and not result.failed else None


def migrate_document(doc: Document) -> list[Fix]:
    """The v1beta1/v1beta2 -> v1 rewrite of one document, through `dralint migrate` (comments kept).

    The whole file is migrated (the migrate code verifies each object)
    and only the changed lines inside this document become edits.
    """
    root = doc.positions.get(())
    if doc.text is None or root is None:
        return []
    new = _migrated(doc.source, doc.text)
    if new is None:
        return []
    import difflib  # as migrate, only when a fix is read

    old_lines = doc.text.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    edits = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or i1 + 1 > root.value.end_line or max(i2, i1 + 1) < root.value.line:
            continue
        edits.append(Edit(Span(i1 + 1, 1, i2 + 1, 1), "".join(new_lines[j1:j2])))
    if not edits:
        return []
    return [Fix(f"migrate this {doc.kind} to resource.k8s.io/v1 (as `dralint migrate` does)", tuple(edits))]


def with_fixes(options: LintOptions) -> LintOptions:
    """Options whose problems carry every known fix, the migrate rewrite included (computed only when read)."""
    if attach_migration_fixes not in options.fixers:
        options.fixers = (*options.fixers, attach_migration_fixes)
    return options


MIGRATABLE_RULES = ("DRA011", "DRA020", "DRA021")


def attach_migration_fixes(problems: list[Problem], documents: list[Document]) -> None:
    """Beta apiVersion problems of one file get the migrate rewrite of their document as their fix."""
    by_index = {(d.source, d.index): d for d in documents}
    for p in problems:
        if p.rule in MIGRATABLE_RULES and p.api_version in MIGRATION_SOURCES and p.kind in MIGRATION_KINDS:
            doc = by_index.get((p.source, p.document))
            if doc is not None:
                p.fixes = lambda doc=doc: migrate_document(doc)
