"""Shared test helpers. The tests run this checkout: `pip install -e '.[test]'`."""

from __future__ import annotations

import atexit
import collections
import contextlib
import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from forkserver import ForkServer

from dralint.lint import LintResult
from dralint.model import Problem

from engine import REPORTED, lint_paths

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "real-world"


def _fail_unless_this_checkout() -> None:
    """A copy of dralint installed from elsewhere would make every test test that copy instead."""
    import dralint

    here = Path(dralint.__file__).resolve()
    if not here.is_relative_to(ROOT / "src"):
        pytest.exit(
            f"dralint is imported from {here}, not from this checkout ({ROOT}); install it in editable mode: pip install -e '.[test]'",
            returncode=2,
        )


_fail_unless_this_checkout()
# pytest keeps each test module's assertion-rewritten code in tests/__pycache__ unless bytecode writing
# is off (PYTHONDONTWRITEBYTECODE, which CI machines often set): then every worker of every run rewrites
# all test modules again, most of collection's time. The cache is pytest's own, keyed by the source.
sys.dont_write_bytecode = False
# Every lint, in process or not, judges afresh unless a test asks for the verdict cache.
os.environ["DRALINT_NO_CACHE"] = "1"


def _exit_without_teardown() -> None:
    """An xdist worker's last step: its results are with the controller by now (sent before its session
    ended), and the controller waits for the process to be gone before it reports. The interpreter's own
    teardown of everything the worker imported and kept would add a second to every run's end. Runs
    after every exit handler registered once this module was imported; the two registered before it
    (logging's shutdown and execnet's cleanup of gateways a worker never opens) have nothing to do."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(0)


if os.environ.get("PYTEST_XDIST_WORKER"):
    atexit.register(_exit_without_teardown)

# Subprocesses are what makes the suite slow: count every one the test process starts, by test module.
_spawned: collections.Counter = collections.Counter()
_current_module = ["(collection)"]
_popen_init = subprocess.Popen.__init__


def _counting_popen_init(self, *args, **kwargs):
    _spawned[_current_module[0]] += 1
    _popen_init(self, *args, **kwargs)


subprocess.Popen.__init__ = _counting_popen_init


# The modules that take longest, scheduled first (xdist's loadfile hands modules out in collection
# order): started last, one of them would leave a worker running alone at the end. Only the order
# depends on this list, never a result; a module missing from it runs in its alphabetical place.
LONGEST_FIRST = (
    "test_parallel", "test_webhook_abuse", "test_lsp", "test_dispatch", "test_suppress", "test_result_cache",
    "test_repairs_hostile", "test_plugins", "test_forkserver", "test_webhook", "test_migrate", "test_lsp_neovim",
    "test_hostile_output", "test_lsp_buffer", "test_extractor",
    # Its hook environment is built meanwhile, where the workers wait (`_build_hooks_ahead`).
    "test_precommit",
    "test_fuzz", "test_cases", "test_json_fast", "test_plugin_output", "test_lsp_incremental", "test_robustness",
    "test_schema_validators", "test_lsp_fuzz", "test_load_replay", "test_releases", "test_migrate_safety",
    "test_formats", "test_webhook_caps", "test_pod_references_hostile", "test_runtime_seam", "test_fix",
)


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.module.__name__ if item.module else "", len(rank)))


@pytest.hookimpl(trylast=True)  # after pytest's own and xdist's: the temporary folders and the scheduler exist
def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # once, in the process that starts the workers
        _compile_checkout()
        _rewrite_test_modules_ahead(config)
        _build_hooks_ahead(config)
    if not config.pluginmanager.has_plugin("dsession"):
        _load_pytest_lsp(config)


def _load_pytest_lsp(config) -> None:
    """pytest-lsp, in a process that runs tests. pyproject.toml keeps it from loading as pytest loads
    plugins (`-p no:pytest-lsp`): it imports lsprotocol's types, ~0.45 s of CPU, and an xdist
    controller, which runs no test, would spend that before it starts any worker. An option the
    plugin adds this late gets its default (`Config._processopt`)."""
    with contextlib.suppress(ImportError):  # the language-server tests skip without it
        config.pluginmanager.import_plugin("pytest_lsp")


_rewriters: list[int] = []


def _rewrite_test_modules_ahead(config) -> None:
    """Assertion-rewrite the test modules into pytest's cache (tests/__pycache__) in two processes
    forked from the controller while the workers start, instead of in every worker.

    On a clean checkout each worker would otherwise rewrite every test module itself, the largest
    part of its collection. Best effort, never a change in what runs: a worker that reaches a
    module first rewrites it as pytest always does, a cached module is checked against its source
    hash on every import, and pytest writes each file whole (a rename). The helpers are pytest's
    own; where they are missing (another pytest), the workers rewrite as before."""
    workers = config.getoption("numprocesses", None)
    if not isinstance(workers, int) or workers < 1 or not hasattr(os, "fork"):
        return
    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc, assertstate_key, get_cache_dir

        state = config.stash[assertstate_key]
    except (ImportError, KeyError):
        return
    modules = [Path(__file__), *_test_modules(config)]
    for share in range(2):
        pid = os.fork()
        if pid:
            _rewriters.append(pid)
            continue
        try:
            for module in modules[share::2]:
                pyc = get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)
                if _read_pyc(module, pyc, lambda _message: None) is None:
                    pyc.parent.mkdir(exist_ok=True)
                    source_hash, code = _rewrite_test(module, config)
                    _write_pyc(state, code, source_hash, pyc)
        finally:
            os._exit(0)


def _test_modules(config) -> list[Path]:
    """The test modules the run's arguments name (a folder: its test modules), in collection order."""
    found: set[Path] = set()
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        found.update(path.glob("test_*.py") if path.is_dir() else [path] if path.suffix == ".py" else [])
    return sorted(found)


def pytest_unconfigure(config):
    for pid in _rewriters:
        os.waitpid(pid, 0)
    for pid in _hooks_ahead:  # a build no test waited for (test_precommit deselected) is not waited for either
        if os.waitpid(pid, os.WNOHANG) == (0, 0):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _compile_checkout() -> None:
    """Byte-code for this checkout's modules, as the README advises for an editable install.

    With PYTHONDONTWRITEBYTECODE set (CI machines often set it) nothing imported from src/ or
    rules/ is cached, so every process the tests start (workers, servers, language servers,
    pre-commit's hook) would compile the whole package again. Up-to-date files are skipped."""
    import compileall

    for folder in (ROOT / "src", ROOT / "rules"):
        compileall.compile_dir(str(folder), quiet=1)


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test module's last test, its module fixtures gone: what is still alive lives on for
    the session (imported modules, session fixtures such as the corpus's lints, caches), and the
    cyclic collector would scan all of it again at each full collection in every module to come
    (docs/performance.md, "The test suite"). Collected once and frozen here (`gc.freeze`), it is
    not. What dies later is still freed by reference counting; only a frozen cycle that becomes
    garbage stays until the process ends, which a test process can afford. A test that unfreezes
    (test_streaming) leaves the next module's end to freeze again."""
    yield
    if nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None):
        gc.collect()
        gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _current_module[0] = item.module.__name__ if item.module else item.nodeid


def pytest_sessionfinish(session):
    # An xdist worker hands its count to the controller, which prints the summary.
    for server in _servers:
        server.close()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["spawned"] = dict(_spawned)
        workeroutput["forked"] = dict(_forked)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _spawned.update(getattr(node, "workeroutput", {}).get("spawned", {}))
    _forked.update(getattr(node, "workeroutput", {}).get("forked", {}))


def pytest_terminal_summary(terminalreporter):
    if _spawned:
        detail = ", ".join(f"{name} {count}" for name, count in _spawned.most_common())
        terminalreporter.write_line(f"subprocesses started by the tests: {sum(_spawned.values())} ({detail})")
    if _forked:
        detail = ", ".join(f"{name} {count}" for name, count in _forked.most_common())
        terminalreporter.write_line(f"command-line runs forked from the fork server: {sum(_forked.values())} ({detail})")


def dralint_exe() -> list[str]:
    # The console script installed next to this interpreter is what users run; with the
    # editable install it runs this checkout, which the check above makes sure of.
    script = Path(sys.executable).parent / "dralint"
    return [str(script)] if script.exists() else [sys.executable, "-m", "dralint"]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict:
        return json.loads(self.stdout)

    @property
    def problems(self) -> list[dict]:
        return self.json["problems"]


def run_dralint(*args: str, input: str | bytes | None = None, cwd: str | Path | None = None, env: dict | None = None, timeout: float = 60) -> Run:
    """The console script `dralint ARGS` in a process of its own: forked from a server that has
    imported the command line (tests/forkserver.py), or a new process where the run's environment
    asks the interpreter for another start."""
    full_env = _run_environment()
    # Each run judges afresh unless a test asks for the verdict cache.
    full_env["DRALINT_NO_CACHE"] = "1"
    full_env.update(env or {})
    full_env = {k: v for k, v in full_env.items() if v is not None}
    data = input.encode() if isinstance(input, str) else input
    server = _fork_server(full_env)
    if server is not None:
        _forked[_current_module[0]] += 1
        code, out, err = server.run(list(args), data or b"", str(cwd or ROOT), full_env, timeout)
    else:
        proc = subprocess.run([*dralint_exe(), *args], input=data, capture_output=True, cwd=cwd or ROOT, env=full_env, timeout=timeout)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    return Run(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def _run_environment() -> dict[str, str]:
    """The tests' environment without what would change a report's format or the cache's place."""
    return {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "DRALINT_CACHE_DIR")}


_servers: list[ForkServer] = []
_forked: collections.Counter = collections.Counter()


def _fork_server(env: dict[str, str]) -> ForkServer | None:
    """This test process's fork server, started on first use; None where a run must be a new process."""
    exe = dralint_exe()
    if os.environ.get("DRALINT_TEST_FORK") == "0" or len(exe) != 1 or not hasattr(os, "fork"):
        return None  # forked runs stand for the console script only
    script = Path(exe[0])
    if not _servers or _servers[0].proc.poll() is not None:
        _servers[:] = [ForkServer(script, _run_environment())]
    return _servers[0] if _servers[0].serves(env) else None


def dralint_command(*args: str) -> list[str]:
    """The command line a client that starts `dralint ARGS` itself (a language client) is given: a
    launcher whose run is forked from the fork server (tests/forkshim.py), or the console script
    where forking is off."""
    server = _fork_server(_run_environment())
    return server.command(list(args)) if server is not None else [*dralint_exe(), *args]


def lint_json(*args: str, **kw) -> Run:
    """`dralint --format json --no-config ARGS`; asserts the run produced a JSON report."""
    run = run_dralint("--format", "json", "--no-config", *args, **kw)
    assert run.code in (0, 1), f"exit {run.code}: {run.stderr}"
    return run


def brief(problems: list[dict]) -> list[tuple]:
    """(rule, path, line, column) of each problem: the shape most assertions compare."""
    return [(p["rule"], p["path"], p["line"], p["column"]) for p in problems]


@pytest.fixture
def cached(monkeypatch, tmp_path):
    """The result cache on (the suite turns it off), its per-user secret in the test's folder."""
    monkeypatch.delenv("DRALINT_NO_CACHE", raising=False)
    monkeypatch.setenv("DRALINT_CACHE_DIR", str(tmp_path / "user"))
    yield tmp_path / "results"
    gc.unfreeze()


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


# ---------------------------------------------------------------------------
# The real pre-commit, for test_precommit.py.

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("GIT_DIR", None)
    env.pop("GIT_INDEX_FILE", None)
    out = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _working_tree_files() -> list[str]:
    try:
        listed = git("ls-files", "-co", "--exclude-standard", "-z", cwd=ROOT)
        return [f for f in listed.split("\0") if f and (ROOT / f).is_file()]
    except (subprocess.CalledProcessError, FileNotFoundError):
        skip = {".git", ".venv", "__pycache__", ".pytest_cache", "build", "dist"}
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def _snapshot(copy: Path) -> str:
    """This checkout's working tree (tracked and untracked files, as `git ls-files -co` lists them) copied
    into `copy` and committed there; the commit. The checkout may have uncommitted or untracked changes,
    and `pre-commit try-repo` only sees tracked ones."""
    for rel in _working_tree_files():
        dst = copy / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dst)
    assert (copy / ".pre-commit-hooks.yaml").is_file()
    git("init", "-q", ".", cwd=copy)
    git("add", "-A", cwd=copy)
    git("commit", "-q", "--no-verify", "-m", "snapshot of the checkout under test", cwd=copy)
    return git("rev-parse", "HEAD", cwd=copy)


# The folder where the controller builds the hook environment ahead (`_build_hooks_ahead`), for the workers.
_HOOKS_AHEAD = "DRALINT_TEST_HOOKS_AHEAD"


def _build_hooks_ahead(config) -> None:
    """The pre-commit hook's environment, built by the real `pre-commit install-hooks` from a snapshot
    of this checkout in a process forked from the controller, while the workers run other modules.

    pip building the environment is most of test_precommit's time and mostly CPU: a fixed amount of
    work, which the run pays whichever process does it. Built ahead at the workers' own priority, it
    is done before the worker that gets test_precommit reaches it (`LONGEST_FIRST`), which would
    otherwise sit idle while pip runs (it waits if it must: `hook_repo`); a lower priority would leave
    the build behind the busy workers. The hooks then run as a user's first `pre-commit run` after
    `pre-commit install-hooks` would. Only for a run with workers that
    includes test_precommit; otherwise `hook_repo` builds it in the test process as before."""
    workers = config.getoption("numprocesses", None)
    if not isinstance(workers, int) or workers < 1 or not hasattr(os, "fork") or shutil.which("git") is None or not PRE_COMMIT.exists():
        return
    if not any(m.name == "test_precommit.py" for m in _test_modules(config)):
        return
    try:
        base = config._tmp_path_factory.mktemp("hooks-ahead")  # removed with the run's other folders
    except AttributeError:
        return
    pid = os.fork()
    if pid:
        _hooks_ahead.append(pid)
        os.environ[_HOOKS_AHEAD] = str(base)
        return
    status = "1"
    try:
        os.setpgid(0, 0)  # pytest_unconfigure ends the group if no test waited for it
        rev = _snapshot(base / "repo")
        project = base / "project"
        project.mkdir()
        git("init", "-q", ".", cwd=project)
        (project / ".pre-commit-config.yaml").write_text(f"repos:\n- repo: {base / 'repo'}\n  rev: {rev}\n  hooks:\n  - id: dralint\n")
        with open(base / "log", "w") as log:
            done = subprocess.run([str(PRE_COMMIT), "install-hooks"], cwd=project, env=_pre_commit_env(base / "home"),
                                  stdout=log, stderr=subprocess.STDOUT, timeout=900)
        (base / "rev").write_text(rev)
        status = str(done.returncode)
    except BaseException as exc:  # the waiting test shows it
        with open(base / "log", "a") as log:
            log.write(f"\n{type(exc).__name__}: {exc}\n")
    finally:
        (base / "status.part").write_text(status)
        os.replace(base / "status.part", base / "status")
        os._exit(0)


_hooks_ahead: list[int] = []


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """This checkout as a git repository pre-commit can install hooks from: (path, commit).

    pre-commit builds the hook's virtualenv with pip from that copy (PyPI must be reachable for the
    build backend and dependencies the first time): ahead, in the controller (`_build_hooks_ahead`),
    or here, in the first test that asks."""
    if shutil.which("git") is None or not PRE_COMMIT.exists():
        pytest.skip("git or pre-commit is not available")
    ahead = os.environ.get(_HOOKS_AHEAD)
    if ahead:
        base = Path(ahead)
        deadline = time.monotonic() + 900
        while not (base / "status").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        log = (base / "log").read_text() if (base / "log").exists() else ""
        if not (base / "status").exists() or (base / "status").read_text() != "0":
            pytest.fail(f"`pre-commit install-hooks` did not build the hook environment:\n{log}")
        return base / "repo", (base / "rev").read_text()
    copy = tmp_path_factory.mktemp("dralint-hooks")
    return copy, _snapshot(copy)


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory, hook_repo) -> Path:
    ahead = os.environ.get(_HOOKS_AHEAD)
    return Path(ahead) / "home" if ahead else tmp_path_factory.mktemp("pre-commit-home")


def _pre_commit_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "VIRTUAL_ENV", "PYTHONPATH", _HOOKS_AHEAD)}
    env["PRE_COMMIT_HOME"] = str(home)
    env["PRE_COMMIT_COLOR"] = "never"
    env["NO_COLOR"] = "1"
    return env


def run_pre_commit(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(PRE_COMMIT), "run", *args], cwd=project, env=_pre_commit_env(home), capture_output=True, text=True, timeout=900)


@dataclass
class Corpus:
    """The real-world corpus (../shared/corpus/real-world), each file linted at its release."""

    root: Path
    rows: list[dict]  # index.json entries, each with a "release"
    problems: dict[str, list[Problem]] = field(default_factory=dict)  # real path -> its problems
    # (release, feature gates) -> the result of that cluster's run, kept for a report in every format
    results: dict[tuple, LintResult] = field(default_factory=dict)

    def of(self, row: dict) -> list[Problem]:
        return self.problems.get(os.path.realpath(self.root / row["file"]), [])


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    """Linted once per session, in process, one run per release and set of feature gates the index
    records for a file (what its cluster runs; the rest are the release's defaults), as a user runs it."""
    rows = corpus_rows()
    result = Corpus(CORPUS, rows)
    for cluster, files in corpus_clusters(rows):
        release, gates = cluster
        run = result.results[cluster] = lint_paths(files, release=release, feature_gates=dict(gates), keep=REPORTED)
        for problem in run.problems:
            result.problems.setdefault(os.path.realpath(problem.source), []).append(problem)
    return result


def corpus_rows() -> list[dict]:
    """The entries of the real-world corpus's index.json, each with the "release" it is judged at;
    skips the test when ../shared is not present."""
    index = CORPUS / "index.json"
    if not index.is_file():
        pytest.skip("the real-world corpus (../shared/corpus/real-world) is not present")
    rows = json.loads(index.read_text())
    for row in rows:
        # Files without a release are prototypes of APIs no release served: judged at the newest.
        row["release"] = row.get("k8s_version") or "1.37"
    return rows


def corpus_clusters(rows: list[dict]) -> list[tuple[tuple[str, tuple[tuple[str, bool], ...]], list[Path]]]:
    """((release, feature gates), files) of each cluster the corpus's files run on, in a stable order:
    one run each, as a user runs `dralint -k RELEASE --feature-gates ...` on them."""
    by_cluster = collections.defaultdict(list)
    for row in rows:
        by_cluster[row["release"], tuple(sorted((row.get("feature_gates") or {}).items()))].append(CORPUS / row["file"])
    return sorted(by_cluster.items())
