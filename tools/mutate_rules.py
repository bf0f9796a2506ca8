"""Mutation testing of the built-in rules (rules/*.py) with a small AST mutator.

    python tools/mutate_rules.py [--budget SECONDS] [--sample N] [--seed S] [--limits-only]
                                 [--fail-on-limit-survivors] [FILE ...]

Each mutant changes one thing a careless edit changes: a comparison operator
(`>` <-> `>=`, `<` <-> `<=`, `==` <-> `!=`, `is` <-> `is not`, `in` <-> `not in`),
an `if`/`elif`/`while`/conditional-expression test (`not` added or removed), or an
integer constant (n -> n+1, n -> n-1). For each mutant the rule module is
rewritten in place, the fast rule tests run (`TESTS`, with `-x`, serially), and
the original bytes are put back, atomically, before the next mutant, on
Ctrl-C or SIGTERM too; a backup outside the tree restores a file left behind by
a killed run the next time the tool starts.

A *limit comparison* is a comparison one side of which is a named limit
(a name ending in `_MAX`, `_MIN` or `_LIMIT`, or an attribute so named) or an
integer literal that the docstring of the enclosing `@rule` function states.
With `--fail-on-limit-survivors` the exit code is 1 when such a mutant
survives; other survivors are reported but do not fail (some are equivalent
mutants, which no test can kill).

The score goes to standard output: killed/total, and every survivor as
FILE:LINE with the mutation.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
# The fixture tests and the rule tests that need neither ../shared nor a network: what a clean clone runs.
TESTS = (
    "tests/test_cases.py",
    "tests/test_gated_checks.py",
    "tests/test_compatibility_groups.py",
)
FLIPS = {
    ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
SYMBOLS = {
    ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
LIMIT_NAME = re.compile(r"(^|_)(MAX|MIN|LIMIT)$")


@dataclass(frozen=True)
class Mutant:
    file: Path
    line: int
    start: int  # byte offsets in the file of the text replaced
    end: int
    replacement: bytes
    what: str  # e.g. "> -> >="
    limit: bool  # a comparison against a documented limit

    def label(self) -> str:
        return f"{self.file.relative_to(ROOT).as_posix()}:{self.line}: {self.what}{' [limit]' if self.limit else ''}"


class _Offsets:
    """(line, byte column) as ast gives them -> byte offset in the file."""

    def __init__(self, data: bytes):
        self.starts = [0]
        for i, byte in enumerate(data):
            if byte == 0x0A:
                self.starts.append(i + 1)

    def __call__(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column


def _documented(doc: str | None) -> set[int]:
    return {int(n) for n in re.findall(r"(?<![\w.])\d+(?![\w.])", doc or "")}


def _is_limit(node: ast.AST, numbers: set[int]) -> bool:
    if isinstance(node, ast.Name):
        return bool(LIMIT_NAME.search(node.id))
    if isinstance(node, ast.Attribute):
        return bool(LIMIT_NAME.search(node.attr))
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value in numbers
    return False


def _rule_functions(tree: ast.Module) -> list[tuple[ast.FunctionDef, set[int]]]:
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
            isinstance(d, ast.Call) and getattr(d.func, "id", None) == "rule" for d in node.decorator_list
        ):
            found.append((node, _documented(ast.get_docstring(node))))
    return found


def mutants_of(file: Path) -> list[Mutant]:
    data = file.read_bytes()
    tree = ast.parse(data)
    at = _Offsets(data)
    documented: dict[int, set[int]] = {}  # id of a node inside a rule function -> the numbers its docstring states
    for function, numbers in _rule_functions(tree):
        for node in ast.walk(function):
            documented[id(node)] = numbers
    skip: set[int] = set()  # decorators and docstrings are declarations, not logic
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                skip.update(id(n) for n in ast.walk(decorator))
    found: list[Mutant] = []

    def span(node: ast.AST) -> tuple[int, int]:
        return at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset)

    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            numbers = documented.get(id(node), set())
            operands = [node.left, *node.comparators]
            for k, op in enumerate(node.ops):
                left, right = operands[k], operands[k + 1]
                gap_start, gap_end = at(left.end_lineno, left.end_col_offset), at(right.lineno, right.col_offset)
                gap = data[gap_start:gap_end]
                symbol = SYMBOLS[type(op)].encode()
                pattern = re.compile(rb"\bnot\s+in\b" if symbol == b"not in" else rb"\bis\s+not\b" if symbol == b"is not" else re.escape(symbol))
                match = pattern.search(gap)
                if match is None:
                    continue
                flipped = SYMBOLS[FLIPS[type(op)]]
                found.append(Mutant(file, node.lineno, gap_start + match.start(), gap_start + match.end(), flipped.encode(),
                                    f"{SYMBOLS[type(op)]} -> {flipped}", _is_limit(left, numbers) or _is_limit(right, numbers)))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
            test = node.test
            start, end = span(test)
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                inner_start, inner_end = span(test.operand)
                found.append(Mutant(file, test.lineno, start, end, b"(" + data[inner_start:inner_end] + b")", "not removed", False))
            else:
                found.append(Mutant(file, test.lineno, start, end, b"not (" + data[start:end] + b")", "not inserted", False))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            start, end = span(node)
            for delta in (1, -1):
                if node.value + delta >= 0:
                    found.append(Mutant(file, node.lineno, start, end, str(node.value + delta).encode(), f"{node.value} -> {node.value + delta}", False))
    return sorted(found, key=lambda m: (m.start, m.what))


def _backup_dir() -> Path:
    tag = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"dralint-mutate-{tag}"


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a reader sees the old bytes or the new ones."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def restore_leftovers() -> list[Path]:
    """Put back any rule module a killed run left mutated (its backup outside the tree says which)."""
    restored = []
    backups = _backup_dir()
    for backup in sorted(backups.glob("*.py")) if backups.is_dir() else []:
        target = RULES / backup.name
        if target.exists() and target.read_bytes() != backup.read_bytes():
            _write(target, backup.read_bytes())
            restored.append(target)
        backup.unlink()
    return restored


def _terminate(signum, frame):  # SIGTERM unwinds like Ctrl-C, through the finally that restores
    raise KeyboardInterrupt


def run_mutant(mutant: Mutant, original: bytes, timeout: float) -> str:
    """'killed', 'survived' or 'timeout' (a mutant that makes the tests hang is caught)."""
    _write(mutant.file, original[: mutant.start] + mutant.replacement + original[mutant.end :])
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no bytecode of a mutant may outlive it
    try:
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *TESTS],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        _write(mutant.file, original)
    return "survived" if result.returncode == 0 else "killed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="rule modules (default: rules/*.py)")
    parser.add_argument("--budget", type=float, default=600.0, help="stop starting mutants after this many seconds")
    parser.add_argument("--sample", type=int, default=0, help="run N mutants chosen with --seed (limit comparisons first)")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--limits-only", action="store_true", help="only the comparisons against documented limits")
    parser.add_argument("--fail-on-limit-survivors", action="store_true")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one mutant's tests may take")
    args = parser.parse_args(argv)

    files = [f.resolve() for f in args.files] or sorted(p for p in RULES.glob("*.py") if p.name != "__init__.py")
    for f in files:
        if f.parent != RULES:
            parser.error(f"{f} is not a module of {RULES}")
    for path in restore_leftovers():
        print(f"restored {path.relative_to(ROOT)} left mutated by an earlier run", file=sys.stderr)
    mutants = [m for f in files for m in mutants_of(f)]
    if args.limits_only:
        mutants = [m for m in mutants if m.limit]
    if args.list:
        print("\n".join(m.label() for m in mutants))
        return 0
    if args.sample:
        limits = [m for m in mutants if m.limit]
        others = [m for m in mutants if not m.limit]
        random.Random(args.seed).shuffle(others)
        mutants = (limits + others)[: args.sample]

    backups = _backup_dir()
    backups.mkdir(exist_ok=True)
    originals = {f: f.read_bytes() for f in files}
    for f in files:
        (backups / f.name).write_bytes(originals[f])
    signal.signal(signal.SIGTERM, _terminate)
    began = time.monotonic()
    outcomes: list[tuple[Mutant, str]] = []
    try:
        for mutant in mutants:
            if time.monotonic() - began > args.budget:
                break
            outcomes.append((mutant, run_mutant(mutant, originals[mutant.file], args.timeout)))
    except KeyboardInterrupt:
        print("interrupted: the rule modules are restored", file=sys.stderr)
    finally:
        for f in files:
            if f.read_bytes() != originals[f]:
                _write(f, originals[f])
            (backups / f.name).unlink(missing_ok=True)

    survivors = [m for m, outcome in outcomes if outcome == "survived"]
    killed = len(outcomes) - len(survivors)
    print(f"mutation score: {killed}/{len(outcomes)} killed ({len(mutants) - len(outcomes)} of {len(mutants)} not run within the budget)")
    for mutant in survivors:
        print(f"survived: {mutant.label()}")
    limit_survivors = [m for m in survivors if m.limit]
    if limit_survivors:
        print(f"{len(limit_survivors)} surviving mutant(s) of comparisons against documented limits")
    return 1 if args.fail_on_limit_survivors and limit_survivors else 0


if __name__ == "__main__":
    sys.exit(main())
