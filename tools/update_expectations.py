"""Rewrite the `# expect:` comments of test fixtures from a real run of this checkout.

    python tools/update_expectations.py tests/cases/rules/gates.yaml [...]
    python tools/update_expectations.py --release 1.33 --release 1.34 tests/cases/rules/new.yaml

Each file's expectation blocks are replaced by what the linter reports now, at
the end of the file; `expect-codes`, `expect-select` and `expect-ignore`
headers stay where they are. End positions and message fragments written by
hand are kept while the problem they belong to still matches them. Review the
result with `git diff` before committing: this script records behaviour, it
does not judge it. Grammar: tests/cases/README.md.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the helpers the test suite itself uses, so both agree

from engine import lint_fixture  # noqa: E402
from expectations import Block, Expectation, Fixture, covered, key_of, read_fixture  # noqa: E402

_WHOLE_LINE = re.compile(r"^\s*#\s*expect(?:-release)?:")
_TRAILING = re.compile(r"\s*#\s*expect:.*$")


def refreshed(block: Block, fixture: Fixture) -> list[Expectation]:
    problems = covered(fixture, lint_fixture(fixture.path, release=block.release, select=fixture.select, ignore=fixture.ignore))
    unused = list(block.expectations)
    result = []
    for problem in problems:
        key = key_of(problem)
        old = next((e for e in unused if e.key == key), None)
        new = Expectation(key)
        if old is not None:
            unused.remove(old)
            span = problem.span
            new.end = (span.end_line, span.end_column) if old.end is not None else None
            new.contains = [text for text in old.contains if text in problem.message]
            new.equals = problem.message if old.equals is not None else None
        result.append(new)
    return result


def rewrite(path: Path, releases: list[str]) -> bool:
    fixture = read_fixture(path)
    if releases:
        known = {b.release: b for b in fixture.blocks}
        # A block without a release lends its hand-written details to the releases that replace it.
        unnamed = known.get(None, Block(None)).expectations
        fixture.blocks = [known.get(r) or Block(r, list(unnamed)) for r in releases]
    if not fixture.blocks:
        fixture.blocks = [Block(None)]
    body: list[str] = []
    for block in fixture.blocks:
        if block.release is not None:
            body.append(f"# expect-release: {block.release}")
        expectations = refreshed(block, fixture)
        body += [e.render() for e in expectations] or ["# expect: none"]
    text = path.read_text(encoding="utf-8")
    kept = [_TRAILING.sub("", line) for line in text.splitlines() if not _WHOLE_LINE.match(line)]
    while kept and not kept[-1].strip():
        kept.pop()
    new_text = "\n".join(kept + body) + "\n"
    if new_text == text:
        return False
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(new_text)
    os.replace(temporary, path)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--release", action="append", default=[], help="the release blocks the files get (default: the ones they have)")
    args = parser.parse_args(argv)
    for path in args.files:
        if rewrite(path, args.release):
            print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
