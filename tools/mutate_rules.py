"""Mutation testing of the built-in rules (rules/*.py) with a small AST mutator.

    python tools/mutate_rules.py [--budget SECONDS] [--sample N] [--seed S] [--limits-only]
                                 [--fail-on-limit-survivors] [--fail-on-comparison-survivors]
                                 [FILE[:LINE] ...]

Each mutant changes one thing a careless edit changes: a comparison operator
(`>` <-> `>=`, `<` <-> `<=`, `==` <-> `!=`, `is` <-> `is not`, `in` <-> `not in`),
an `if`/`elif`/`while`/conditional-expression test (`not` added or removed), or an
integer constant (n -> n+1, n -> n-1). For each mutant the rule module is
rewritten, the fast rule tests run (`TESTS`, with `-x`, serially), and the
original bytes are put back before the next mutant.

The mutants run on a copy of the checkout in a temporary folder (the working
tree is never written, and ../shared is not beside the copy: the tests run as on
a clean clone without it); the copy goes when the run ends, on Ctrl-C or SIGTERM too.

A *limit comparison* is a comparison one side of which is a named limit
(a name with a `MAX`, `MIN` or `LIMIT` part, e.g. `TAINTS_MAX`, `ANNOTATIONS_MAX_TOTAL`) or an
integer literal that the docstring of the enclosing `@rule` function states.
With `--fail-on-limit-survivors` the exit code is 1 when such a mutant
survives (unless `EQUIVALENT` lists it, with the reason no input can tell it from
the original). With `--fail-on-comparison-survivors` it is 1 when any comparison
mutant survives, limit or not, unless `EQUIVALENT` lists it. Other survivors (conditions,
constants) are reported but do not fail.

The score goes to standard output: killed/total, and every survivor as
FILE:LINE with the mutation.
"""

from __future__ import annotations

import argparse
import ast
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
# Rule tests that are slower or start processes, run only for the module they test.
EXTRA_TESTS = {
    "pod_references.py": ("tests/test_pod_references_hostile.py", "tests/test_did_you_mean.py", "tests/test_kustomize.py"),
    "cel.py": ("tests/test_cel.py", "tests/test_cel_messages.py"),
}
# Mutants that behave as the original on every input the rule can see:
# (module, text of the line, mutation) -> why.
EQUIVALENT = {
    ("requests.py", 'elif mode == "ExactCount" and count <= 0', "<= -> <"):
        "count 0 with ExactCount is defaulted to 1 before validation (allocation()), so count is never 0 here",
    ("config.py", "if size <= OPAQUE_PARAMETERS_MAX * 1.01", "<= -> <"):
        "the bound is 10342.4 and a size in bytes is an integer, so no size equals it",
}
FLIPS = {
    ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
SYMBOLS = {
    ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
LIMIT_NAME = re.compile(r"(^|_)(MAX|MIN|LIMIT)(_|$)")


@dataclass(frozen=True)
class Mutant:
    file: Path
    line: int
    start: int  # byte offsets in the file of the text replaced
    end: int
    replacement: bytes
    what: str  # e.g. "> -> >="
    limit: bool  # a comparison against a documented limit

    @property
    def kind(self) -> str:
        if self.what.startswith("not "):
            return "condition"
        return "constant" if self.what[0].isdigit() else "comparison"

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


def _copy_tree(into: Path) -> Path:
    """This checkout without .git, virtual environments and caches: what the mutants change.

    The working tree is never written; ../shared is not beside the copy, so the tests
    run as on a clean clone without it.
    """
    copy = into / "dralint"
    ignore = shutil.ignore_patterns(".git", ".venv", "venv", "__pycache__", ".ruff_cache", ".pytest_cache", "*.egg-info", "build", "dist")
    shutil.copytree(ROOT, copy, symlinks=True, ignore=ignore)
    return copy


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a reader sees the old bytes or the new ones. The module's bytecode goes with the
    old bytes: the tests' conftest compiles the checkout, and a bytecode file is taken as current when the
    source's size and modification second match what it recorded, which a mutant of the same size (16 -> 17)
    written within the same second as the last compile does: the tests would run the code before it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, path)
    for compiled in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        compiled.unlink(missing_ok=True)


def _terminate(*_: object) -> None:  # SIGTERM unwinds like Ctrl-C, through the finally that removes the copy
    raise KeyboardInterrupt


def _tests(copy: Path, tests: tuple[str, ...], timeout: float) -> str:
    """'passed', 'failed' or 'timeout' (a mutant that makes the tests hang is caught)."""
    # The copy's src first on the path, and no bytecode: a mutant's must not outlive it.
    env = dict(os.environ, PYTHONPATH=str(copy / "src"), PYTHONDONTWRITEBYTECODE="1")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *tests],
            cwd=copy, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    return "passed" if result.returncode == 0 else "failed"


def tests_for(file: Path) -> tuple[str, ...]:
    return TESTS + EXTRA_TESTS.get(file.name, ())


def run_mutant(copy: Path, mutant: Mutant, original: bytes, timeout: float) -> str:
    """'killed', 'survived' or 'timeout'."""
    target = copy / "rules" / mutant.file.name
    _write(target, original[: mutant.start] + mutant.replacement + original[mutant.end :])
    try:
        outcome = _tests(copy, tests_for(mutant.file), timeout)
    finally:
        _write(target, original)
    return {"passed": "survived", "failed": "killed"}.get(outcome, outcome)


def equivalent(mutant: Mutant) -> str | None:
    """Why no test can kill this mutant, when it is a known equivalent one."""
    line = mutant.file.read_bytes().splitlines()[mutant.line - 1].decode().strip()
    for (name, text, what), why in EQUIVALENT.items():
        if mutant.file.name == name and text in line and mutant.what == what:
            return why
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", metavar="FILE[:LINE]", help="rule modules (default: rules/*.py), or lines of them")
    parser.add_argument("--budget", type=float, default=600.0, help="start no other mutant after this many seconds (limit comparisons all run)")
    parser.add_argument("--sample", type=int, default=0, help="besides the limit comparisons, N other mutants chosen with --seed")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--limits-only", action="store_true", help="only the comparisons against documented limits")
    parser.add_argument("--no-limits", action="store_true", help="all but the comparisons against documented limits")
    parser.add_argument("--fail-on-limit-survivors", action="store_true")
    parser.add_argument("--fail-on-comparison-survivors", action="store_true",
                        help="exit 1 when any comparison mutant survives (not only those of limits), unless EQUIVALENT lists it")
    parser.add_argument("--only", choices=("comparison", "condition", "constant"), help="one kind of mutant")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one mutant's tests may take")
    args = parser.parse_args(argv)

    lines: dict[Path, set[int]] = {}  # FILE:LINE arguments: only the mutants of those lines
    files = []
    for arg in args.files:
        name, _, line = arg.partition(":")
        path = Path(name).resolve()
        if path.parent != RULES or not path.is_file() or (line and not line.isdigit()):
            parser.error(f"{arg} is not a module of {RULES} (or MODULE:LINE)")
        if path not in files:
            files.append(path)
        if line:
            lines.setdefault(path, set()).add(int(line))
    files = files or sorted(p for p in RULES.glob("*.py") if p.name != "__init__.py")
    mutants = [m for f in files for m in mutants_of(f) if f not in lines or m.line in lines[f]]
    if args.limits_only:
        mutants = [m for m in mutants if m.limit]
    if args.no_limits:
        mutants = [m for m in mutants if not m.limit]
    if args.only:
        mutants = [m for m in mutants if m.kind == args.only]
    if args.list:
        print("\n".join(m.label() for m in mutants))
        return 0
    limits = [m for m in mutants if m.limit]
    others = [m for m in mutants if not m.limit]
    if args.sample:
        random.Random(args.seed).shuffle(others)
        others = others[: args.sample]
    mutants = limits + others

    signal.signal(signal.SIGTERM, _terminate)
    began = time.monotonic()
    outcomes: list[tuple[Mutant, str]] = []
    with tempfile.TemporaryDirectory(prefix="dralint-mutate-") as tmp:
        copy = _copy_tree(Path(tmp))
        try:
            for tests in sorted({tests_for(m.file) for m in mutants}):
                if _tests(copy, tests, args.timeout) != "passed":
                    print(f"the tests fail without a mutant (on a copy without ../shared): {' '.join(tests)}", file=sys.stderr)
                    return 2
            originals = {f: f.read_bytes() for f in files}
            for mutant in mutants:
                if not mutant.limit and time.monotonic() - began > args.budget:
                    break  # the budget bounds the rest: every limit comparison runs, first, since CI gates on them
                outcome = run_mutant(copy, mutant, originals[mutant.file], args.timeout)
                outcomes.append((mutant, outcome))
                print(f"{outcome:8} {mutant.label()}", flush=True)
        except KeyboardInterrupt:
            print("interrupted: the score so far", file=sys.stderr)

    survivors = [m for m, outcome in outcomes if outcome == "survived"]
    killed = len(outcomes) - len(survivors)
    print(f"mutation score: {killed}/{len(outcomes)} killed ({len(mutants) - len(outcomes)} of {len(mutants)} not run within the budget)")
    for mutant in survivors:
        print(f"survived: {mutant.label()}")
    limit_survivors = [m for m in survivors if m.limit and not equivalent(m)]
    comparison_survivors = [m for m in survivors if m.kind == "comparison" and not equivalent(m)]
    for mutant in survivors:
        if why := equivalent(mutant):
            print(f"equivalent: {mutant.label()}: {why}")
    if limit_survivors:
        print(f"{len(limit_survivors)} surviving mutant(s) of comparisons against documented limits")
    if comparison_survivors:
        print(f"{len(comparison_survivors)} surviving comparison mutant(s)")
    failed = (args.fail_on_limit_survivors and limit_survivors) or (args.fail_on_comparison_survivors and comparison_survivors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
