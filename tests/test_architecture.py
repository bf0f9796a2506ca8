"""The structure the design promises (issue 8): no import cycles, small modules and functions,
and the lint path's start-up kept free of what a clean file does not need."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "src" / "dralint"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80  # docstrings not counted


def _modules() -> dict[str, Path]:
    modules = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        parts = list(file.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = file
    return modules


@functools.cache
def _parsed(file: Path) -> tuple[str, ast.Module]:
    """The text and syntax tree of `file`, read once for the tests below (which only read the tree)."""
    text = file.read_text(encoding="utf-8")
    return text, ast.parse(text)


@functools.cache
def _statements(file: Path) -> tuple[ast.stmt, ...]:
    """Every statement of `file`, nested ones too. Imports and function definitions are statements and no
    expression holds one: the walk goes through the statement lists (bodies, branches, handlers, cases)
    and skips the expressions, most of a tree."""
    found: list[ast.stmt] = []
    todo: list[ast.AST] = [_parsed(file)[1]]
    while todo:
        node = todo.pop()
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, (ast.stmt, ast.excepthandler, ast.match_case)):
                        if isinstance(item, ast.stmt):
                            found.append(item)
                        todo.append(item)
    return tuple(found)


def _imports(name: str, file: Path, modules: dict[str, Path]) -> set[str]:
    """Every dralint module `name` imports, also inside functions (a cycle hidden in a function is still one)."""
    package = name.split(".") if file.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in _statements(file):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            submodules = {f"{target}.{alias.name}" for alias in node.names} & modules.keys()
            found |= submodules
            if len(submodules) < len(node.names):
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target:
                    found.add(target)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names} & modules.keys()
    found.discard(name)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    """Each dralint module -> the dralint modules it imports."""
    modules = _modules()
    return {name: frozenset(_imports(name, file, modules)) for name, file in modules.items()}


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


# The layers of the package (dralint.pipeline's docstring): the shared core (model, api, positions,
# schemas, k8s, cel, rules, ...), the pipeline's stages on it, and the front doors that feed the
# pipeline and report what it returns. Imports run down the layers, never up.
FRONT_DOORS = frozenset({
    "dralint.__main__", "dralint.console", "dralint.cli", "dralint.arguments", "dralint.commands", "dralint.gates_command",
    "dralint.config", "dralint.policy", "dralint.lint", "dralint.testing", "dralint.report", "dralint.lsp",
    "dralint.webhook", "dralint.migrate", "dralint.migration_fixes", "dralint.moved_comments", "dralint.rewrite",
    "dralint.fix",
})


def _layer(module: str) -> int:
    top = ".".join(module.split(".")[:2])
    if top in FRONT_DOORS:
        return 2
    return 1 if top == "dralint.pipeline" else 0


def _upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((name, imported) for name, found in graph.items() for imported in found if _layer(imported) > _layer(name))


def test_imports_run_from_front_doors_to_the_pipeline_to_the_core():
    modules = _modules()
    assert {".".join(m.split(".")[:2]) for m in modules if _layer(m) == 2} == FRONT_DOORS - {"dralint"}
    assert _upward_imports(_graph()) == []


def test_the_layer_check_finds_an_upward_import():
    graph = {"dralint.model": {"dralint.pipeline.run"}, "dralint.pipeline.run": {"dralint.cli", "dralint.model"}, "dralint.cli": {"dralint.pipeline.run"}}
    assert _upward_imports(graph) == [("dralint.model", "dralint.pipeline.run"), ("dralint.pipeline.run", "dralint.cli")]


def _docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.end_lineno - first.lineno + 1
    return 0


def test_modules_and_functions_stay_small():
    too_long = []
    for name, file in _modules().items():
        text = _parsed(file)[0]
        lines = text.count("\n")
        if lines > MAX_MODULE_LINES:
            too_long.append(f"{name}: {lines} lines")
        for node in _statements(file):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1 - _docstring_lines(node)
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}.{node.name}: {length} lines")
    assert too_long == []


def test_a_clean_lint_imports_nothing_it_does_not_need(tmp_path):
    """What bench/startup.py measures, as a fact that cannot regress unnoticed: these stay off the path
    (decimal: ~2.5 ms, only quantity comparisons of ResourceSlice capacities need it;
    glob: only a Helm-rendered origin looking for its chart needs it; hashlib and hmac load OpenSSL:
    the caches use BLAKE2 and the comparison without it; ruamel's writer side: dralint.runtime;
    dralint.pipeline.gitignore: only a folder walked needs it; threading: dralint takes its lock and
    thread-local from _thread; base64: only `format: byte` fields need it; typing: 10-16 M instructions, for names
only type checkers read, imported under `if TYPE_CHECKING:` (CONTRIBUTING.md); contextlib and
importlib.util: dralint.runtime does without; datetime and copy: ruamel's
reader, scanner and parser are stand-ins (dralint.runtime._STAND_IN_ERRORS); math and binascii: extension
modules to load). Nor is compile() called on a
    string: the first call sets up the compiler's AST types, as costly as a large import, and typing calls it
    for each string annotation of a NamedTuple or in a typing.Callable (dralint.model, dralint.api). Nor is a
    LazyPattern compiled (dralint.lazy_re: re compiles in Python, so a pattern only some inputs need waits).
    A re-run the result cache answers whole loads none of the pipeline, no rule and no YAML parser."""
    clean = tmp_path / "claim.yaml"
    clean.write_bytes((ROOT / "examples" / "resourceclaim.yaml").read_bytes() + b"---\n" + (ROOT / "examples" / "deviceclass.yaml").read_bytes())
    heavy = ["jsonschema", "dataclasses", "difflib", "inspect", "pathlib", "tempfile", "dralint.migrate", "dralint.policy", "decimal", "glob",
             "hashlib", "hmac", "_hashlib", "ruamel.yaml.constructor", "ruamel.yaml.representer", "ruamel.yaml.emitter", "ruamel.yaml.composer",
             "dralint.pipeline.gitignore", "threading", "base64", "typing",
             "contextlib", "importlib.util", "datetime", "copy", "math", "binascii"]
    # The built-in rule modules with no rule for a claim or a class (rules/kinds.json, dralint.registry.BuiltinRules).
    heavy += [f"dralint.rules.{m}" for m in ("slices", "slice_devices", "compatibility_groups", "taints", "taint_rule_scope", "pool_status")]
    pipeline = [f"dralint.pipeline.{m}" for m in ("run", "load", "engine", "schema_check", "triage", "resolve", "origins")]
    pipeline += ["_ruamel_yaml", "ruamel", "dralint.api", "dralint.rules.requests"]
    probe = (
        # compile() of a file's source (a module without bytecode) is the import system's, not a string's.
        "import builtins, sys; strings = []; compile_ = builtins.compile;"
        "builtins.compile = lambda source, name, *a, **k: (name == '<string>' and strings.append(source)) or compile_(source, name, *a, **k);"
        "from dralint.cli import main; code = main(['--no-config', '-f', 'json', '--cache-dir', *sys.argv[2:], sys.argv[1]]);"
        f"heavy = {heavy + pipeline!r};"
        # A regular expression only some inputs need is a LazyPattern: compiled on its first use, not by this lint.
        "from dralint.lazy_re import LazyPattern;"
        "compiled = [f'{m}.{n}' for m, module in list(sys.modules.items()) if m.startswith('dralint') for n, v in vars(module).items()"
        " if isinstance(v, LazyPattern) and v._compiled is not None];"
        "print(sorted(m for m in heavy if m in sys.modules) + [f'compile({s!r})' for s in strings] + compiled, file=sys.stderr); sys.exit(code)"
    )
    # As a pre-commit hook runs it: the CEL verdict cache and the result cache warmed by an earlier run.
    env = {**os.environ, "DRALINT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DRALINT_NO_CACHE", None)
    imported = []
    for extra in ([], [], ["--no-cache"]):
        run = subprocess.run([sys.executable, "-c", probe, str(clean), str(tmp_path / "results"), *extra], capture_output=True, text=True, timeout=60, env=env)
        assert run.returncode == 0, run.stderr
        imported.append(run.stderr.strip().splitlines()[-1])
    assert imported[1] == "[]"  # the warm re-run
    assert imported[2] == repr(sorted(pipeline))  # judged afresh: the pipeline, nothing heavy


def test_a_config_naming_rule_codes_imports_no_rule_on_a_warm_re_run(tmp_path):
    """A project's `.dralint.yaml` that names codes (severity, select, ignore) has them checked against the
    rule index (rules/kinds.json), not by importing every rule module: the pre-commit hook's re-run on an
    unchanged file in such a project loads no rule, as it does without a config."""
    (tmp_path / "claim.yaml").write_bytes((ROOT / "examples" / "resourceclaim.yaml").read_bytes())
    (tmp_path / ".dralint.yaml").write_text(
        "kubernetes-version: '1.35'\nseverity: {DRA713: warning, DRA101: info}\nignore: [DRA102]\n"
        "select: [DRA1, DRA7, DRA001]\n", encoding="utf-8")
    probe = (
        "import sys; from dralint.cli import main; code = main(['-f', 'json', 'claim.yaml']);"
        "print(sorted(m for m in sys.modules if m.startswith('dralint.rules.') or m == 'dralint.api'), file=sys.stderr);"
        "sys.exit(code)"
    )
    env = {**os.environ, "DRALINT_CACHE_DIR": str(tmp_path / "cel-cache")}
    env.pop("DRALINT_NO_CACHE", None)
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
            for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr  # DRA713 a warning: below fail-on
    assert runs[0].stdout == runs[1].stdout and '"DRA713"' in runs[0].stdout and '"warning"' in runs[0].stdout
    assert runs[1].stderr.strip().splitlines()[-1] == "[]"  # the warm re-run
    # A code no rule has is still a usage error, told before any file.
    (tmp_path / ".dralint.yaml").write_text("severity: {DRA7133: warning}\n", encoding="utf-8")
    bad = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert bad.returncode == 2 and "unknown rule 'DRA7133'" in bad.stderr
