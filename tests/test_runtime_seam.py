"""The runtime seam (dralint.runtime): a host that calls dralint from Python keeps its process as it was.

Without the seam, dralint must not patch ruamel's C parser module, put a stand-in ruamel.yaml
into sys.modules, switch the garbage collector off or freeze it; a host that uses ruamel itself,
in threads beside dralint's, gets ruamel's own behaviour, and dralint's results do not change.
With the seam on, a host that puts ruamel's classes back still gets dralint's results.
"""

from __future__ import annotations

import gc
import io
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dralint import runtime
from dralint.lint import LintOptions, lint
from dralint.pipeline.load import backend as backend_mod
from dralint.pipeline.load import load
from dralint.pipeline.sources import Source

CASES = Path(__file__).parent / "cases" / "rules"
NAMES = ["constraints-invalid.yaml", "config-invalid.yaml", "classic-invalid.yaml", "audit-missing-fields.yaml"]
ROUND_TRIP = "# keep me\na: 1  # and me\nb: [x, y]\nc: {d: q}\n"
CLASSES = ("ScalarEvent", "MappingStartEvent", "MappingEndEvent", "SequenceStartEvent", "SequenceEndEvent")


def _sources() -> list[Source]:
    return [Source(name, (CASES / name).read_bytes()) for name in NAMES]


def _problems() -> list[tuple]:
    result = lint(_sources(), LintOptions(plugins=False))
    return [(p.source, p.path, p.rule, p.span.line, p.span.column, p.message) for p in result.problems]


def _round_trip() -> str:
    from ruamel.yaml import YAML  # noqa: PLC0415 - the host's own use of ruamel

    yaml = YAML()
    data = yaml.load(ROUND_TRIP)
    data["b"].append("z")
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _c_module_classes() -> dict[str, type]:
    import _ruamel_yaml  # noqa: PLC0415

    return {name: getattr(_ruamel_yaml, name) for name in CLASSES}


@pytest.fixture
def seam_off():
    runtime.disable()
    yield
    runtime.disable()


@pytest.fixture
def expected(seam_off):
    with runtime.enabled():  # what the CLI reports
        problems = _problems()
    assert problems and all(rule != "DRA001" for _, _, rule, *_ in problems)
    return problems


def test_a_threaded_host_using_ruamel_keeps_its_process_and_both_are_right(expected):
    want = _round_trip()
    assert want == "# keep me\na: 1  # and me\nb: [x, y, z]\nc: {d: q}\n"
    classes, freeze_count, gc_on = _c_module_classes(), gc.get_freeze_count(), gc.isenabled()
    modules = dict(sys.modules)
    got: dict[str, list] = {"lint": [], "ruamel": [], "gc_off_seen": []}
    stop = threading.Event()

    def linter() -> None:
        for _ in range(3):
            got["lint"].append(_problems())

    def host() -> None:
        for _ in range(10):
            got["ruamel"].append(_round_trip())

    def watch_gc() -> None:
        while not stop.is_set():
            if not gc.isenabled():
                got["gc_off_seen"].append(True)

    watcher = threading.Thread(target=watch_gc)
    watcher.start()
    threads = [threading.Thread(target=f) for f in (linter, linter, host, host)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    watcher.join()
    assert got["lint"] == [expected] * 6
    assert got["ruamel"] == [want] * 20
    assert got["gc_off_seen"] == []
    assert (gc.isenabled(), gc.get_freeze_count()) == (gc_on, freeze_count)
    assert _c_module_classes() == classes
    import _ruamel_yaml  # noqa: PLC0415

    assert not hasattr(_ruamel_yaml, "_dralint_cheap_events")
    assert all(sys.modules.get(name) is module for name, module in modules.items())  # nothing removed or replaced
    assert hasattr(sys.modules["ruamel.yaml"], "YAML")  # the real package, never a stand-in
    assert _round_trip() == want


def test_the_seam_switched_off_puts_ruamels_classes_back(seam_off):
    cmod, events, _ = backend_mod._c_parts()
    with runtime.enabled():
        _problems()
        assert cmod.ScalarEvent is not events.ScalarEvent  # the one-frame classes, while on
    assert {name: getattr(cmod, name) for name in CLASSES} == {name: getattr(events, name) for name in CLASSES}


def test_a_host_restoring_ruamels_classes_gets_the_same_results(expected):
    cmod, events, _ = backend_mod._c_parts()
    runtime.enable()
    assert _problems() == expected
    assert cmod.ScalarEvent is not events.ScalarEvent
    for name in CLASSES:  # the host puts ruamel's classes back behind dralint's back
        setattr(cmod, name, getattr(events, name))
    assert _problems() == expected


def test_a_replay_after_the_host_restored_the_classes_still_reads_positions(seam_off):
    text = (CASES / NAMES[0]).read_bytes()
    with runtime.enabled():
        want = [dict(d.positions.items()) for d in load("x.yaml", text).documents]
        docs = load("x.yaml", text).documents  # positions not computed yet: replayed on first use
        cmod, events, _ = backend_mod._c_parts()
        for name in CLASSES:
            setattr(cmod, name, getattr(events, name))
        assert [dict(d.positions.items()) for d in docs] == want
        assert want and all(want)


def test_a_host_process_importing_ruamel_and_dralint_both_work(tmp_path):
    claim = tmp_path / "claim.yaml"
    claim.write_bytes((CASES / NAMES[0]).read_bytes())
    code = f"""
import gc, io, sys, threading
import ruamel.yaml, dralint
from dralint.lint import lint, LintOptions
from dralint.pipeline.sources import read
frozen, on = gc.get_freeze_count(), gc.isenabled()
def dralint_run(out):
    out.append(sorted((p.rule, p.span.line, p.span.column) for p in lint([read(sys.argv[1])], LintOptions(plugins=False)).problems))
def ruamel_run(out):
    y = ruamel.yaml.YAML(); d = y.load({ROUND_TRIP!r}); s = io.StringIO(); y.dump(d, s); out.append(s.getvalue())
a, b = [], []
ts = [threading.Thread(target=dralint_run, args=(a,)) for _ in range(2)] + [threading.Thread(target=ruamel_run, args=(b,)) for _ in range(2)]
[t.start() for t in ts]; [t.join() for t in ts]
import _ruamel_yaml, ruamel.yaml.events as ev
assert all(getattr(_ruamel_yaml, n) is getattr(ev, n) for n in {CLASSES!r}), "ruamel patched"
assert (gc.get_freeze_count(), gc.isenabled()) == (frozen, on)
assert b == [{ROUND_TRIP!r}] * 2, b
assert a[0] == a[1]
print(a[0])
"""
    proc = subprocess.run([sys.executable, "-c", code, str(claim)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    cli = subprocess.run([sys.executable, "-m", "dralint", "--no-config", "-f", "json", str(claim)],
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 1
    import json  # noqa: PLC0415

    want = sorted((p["rule"], p["line"], p["column"]) for p in json.loads(cli.stdout)["problems"])
    assert proc.stdout.strip() == repr(want)


def test_ruamel_imported_after_a_lint_loads_and_writes_with_its_own_classes(tmp_path):
    """The command's lint loads ruamel's C parser module with stand-ins for the modules it imports only for
    an error class (dralint.runtime._STAND_IN_ERRORS); ruamel.yaml imported later in the process (migrate, --fix, the
    editor's fixes) gets its real modules, and its round trip works."""
    claim = tmp_path / "claim.yaml"
    claim.write_bytes((CASES / NAMES[0]).read_bytes())
    code = f"""
import io, sys
from dralint.cli import main
assert main(['--no-config', '--no-cache', '-q', sys.argv[1]]) == 1
assert 'ruamel.yaml.constructor' not in sys.modules and 'ruamel.yaml' not in sys.modules
import ruamel.yaml, ruamel.yaml.constructor, ruamel.yaml.emitter
assert not hasattr(ruamel.yaml.constructor, 'DRALINT') and hasattr(ruamel.yaml.constructor, 'SafeConstructor')
y = ruamel.yaml.YAML(); d = y.load({ROUND_TRIP!r}); s = io.StringIO(); y.dump(d, s); print(repr(s.getvalue()))
"""
    proc = subprocess.run([sys.executable, "-c", code, str(claim)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == repr(ROUND_TRIP)  # after the lint's report


def test_a_c_parser_module_imported_before_through_the_seam_still_reads_every_document():
    """A host that imported the C parser module through the seam first (its stand-in package and the
    submodules removed after) leaves it bound to event and error classes that a later import of
    ``ruamel.yaml.events`` does not give again: the load must read every document with the C module's own
    classes, report a syntax error where it is, and end (it used to spin on the parser's None for ever)."""
    code = """
import sys
from dralint import runtime
runtime.enable()
(cmod,) = runtime.import_ruamel_parts(['_ruamel_yaml'])
assert 'ruamel.yaml.events' not in sys.modules
from dralint.pipeline.load import load
from dralint.pipeline.load.backend import backend
assert backend(False).cmod is cmod and backend(False).DocStart is cmod.DocumentStartEvent
r = load('x.yaml', b'a: 1\\n---\\nb: [1, 2]\\n---\\nc: [\\n---\\nd: {e: 2}\\n')
print([d.data for d in r.documents])
print([(p.rule, p.span.line, p.span.column) for p in r.problems])
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data, problems = proc.stdout.splitlines()
    assert data == repr([{"a": 1}, {"b": [1, 2]}, {"d": {"e": 2}}])
    assert problems == repr([("DRA001", 6, 1)])


# --------------------------------------------------------------------------- positioned fields come from the rules


def _positioned_asked(monkeypatch, options: LintOptions) -> set:
    import dralint.pipeline.stages as lint_mod  # noqa: PLC0415

    asked: set = set()
    real = lint_mod.load

    def spy(*args, **kwargs):
        asked.add(kwargs.get("positioned"))
        return real(*args, **kwargs)

    monkeypatch.setattr(lint_mod, "load", spy)
    problems = lint(_sources(), options).problems
    assert problems
    return asked


def test_the_loader_notes_the_fields_the_active_run_scope_rules_declare(monkeypatch):
    from dralint.api import rule  # noqa: PLC0415
    from dralint.pipeline.selection import Selection  # noqa: PLC0415

    @rule("X900", "driver-places", scope="run", collect=lambda view: view.place(("spec",)), positioned=("driver",))
    def driver_places(run, report):
        """Places drivers (a test rule)."""

    # apiVersion always: where the engine's DRA010/DRA011 stand, the problem real-world files have most often
    refs = {"resourceClaimName", "resourceClaimTemplateName", "resourceClassName", "deviceClassName", "apiVersion"}
    assert _positioned_asked(monkeypatch, LintOptions(plugins=False)) == {frozenset(refs)}
    extra = LintOptions(plugins=False, extra_rules=[driver_places.__dralint_rule__])
    assert _positioned_asked(monkeypatch, extra) == {frozenset({*refs, "driver"})}
    only = LintOptions(plugins=False, extra_rules=[driver_places.__dralint_rule__], selection=Selection(select=["X900", "DRA5"]))
    assert _positioned_asked(monkeypatch, only) == {frozenset({"driver", "apiVersion"})}
    none = LintOptions(plugins=False, selection=Selection(select=["DRA5"]))
    assert _positioned_asked(monkeypatch, none) == {frozenset({"apiVersion"})}


def test_the_command_turns_the_seam_on_for_its_run_and_off_after(monkeypatch, seam_off, tmp_path, capsys):
    import dralint.pipeline.stages as lint_mod  # noqa: PLC0415
    from dralint.cli import main  # noqa: PLC0415

    seen: list = []
    real = lint_mod.load

    def spy(*args, **kwargs):
        seen.append((runtime.is_enabled(), gc.isenabled()))
        return real(*args, **kwargs)

    monkeypatch.setattr(lint_mod, "load", spy)
    (tmp_path / "claim.yaml").write_bytes((CASES / NAMES[0]).read_bytes())
    assert main(["--no-config", "-f", "json", str(tmp_path / "claim.yaml")]) == 1
    assert seen == [(True, True)]  # the collector is paused inside load only
    assert not runtime.is_enabled()
    cmod, events, _ = backend_mod._c_parts()
    assert cmod.ScalarEvent is events.ScalarEvent  # the run's classes taken back
    import json  # noqa: PLC0415

    reported = [(p["rule"], p["line"], p["column"]) for p in json.loads(capsys.readouterr().out)["problems"]]
    library = lint([Source(str(tmp_path / "claim.yaml"), (CASES / NAMES[0]).read_bytes())], LintOptions(plugins=False))
    assert reported == [(p.rule, p.span.line, p.span.column) for p in library.problems] and len(reported) == 10


def test_with_loads_frozen_what_a_load_builds_is_frozen_as_it_ends_and_only_with_the_seam_on(seam_off):
    data = (CASES / NAMES[0]).read_bytes()

    def frozen_by_a_load() -> bool:
        before = gc.get_freeze_count()
        kept = load("a.yaml", data)  # held: what a freeze at its end took stays frozen
        return gc.get_freeze_count() > before and bool(kept.documents)

    gc.unfreeze()
    try:
        with runtime.loads_frozen():
            assert not frozen_by_a_load()  # the seam off: the collector is not touched
            with runtime.enabled():
                assert frozen_by_a_load()
        with runtime.enabled():
            assert not frozen_by_a_load()  # the seam on, but no run asked for it
    finally:
        gc.unfreeze()


def test_the_seam_finds_a_submodule_as_importlib_util_does():
    """runtime.find_spec stands in for importlib.util.find_spec (which imports contextlib) for a submodule
    not imported yet: the same spec, None for one that does not exist, an error for a parent that is no package.
    In a process of its own, where none of these submodules is imported yet."""
    probe = """if True:
        import importlib.util, sys
        from dralint import runtime
        names = ["email.mime.audio", "xml.dom.pulldom", "ruamel.yaml.cyaml", "dralint.rules.taints", "json.tool", "cel_expr_python", "tomllib"]
        assert not any(n in sys.modules for n in names)
        for name in names:
            mine, theirs = runtime.find_spec(name), importlib.util.find_spec(name)
            assert (mine.name, mine.origin, list(mine.submodule_search_locations or ()), type(mine.loader)) == (
                theirs.name, theirs.origin, list(theirs.submodule_search_locations or ()), type(theirs.loader)), name
        for name in ("email.no_such_module", "no_such_top_level_module"):
            assert runtime.find_spec(name) is None is importlib.util.find_spec(name)
        for name in ("os.path_not_a_package", "no_such_top_level_module.x"):
            try:
                runtime.find_spec(name)
            except ModuleNotFoundError:
                pass
            else:
                raise AssertionError(name)
        print("same")
    """
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (0, "same\n", "")


def test_the_seam_s_context_managers_restore_what_they_found_also_after_an_error(seam_off):
    for outer in (False, True):
        if outer:
            runtime.enable()
        with pytest.raises(KeyError):
            with runtime.enabled():
                assert runtime.is_enabled()
                raise KeyError("x")
        assert runtime.is_enabled() is outer
        runtime.disable()
    with pytest.raises(KeyError):
        with runtime.loads_frozen():
            assert runtime._state["freeze_loads"] is True
            with runtime.loads_frozen():
                pass
            assert runtime._state["freeze_loads"] is True
            raise KeyError("x")
    assert runtime._state["freeze_loads"] is False


def test_the_c_parser_s_errors_through_the_stand_ins_are_ruamel_s(tmp_path):
    """With the seam on, ruamel's reader, scanner and parser modules are stand-ins holding only their error
    class (dralint.runtime._STAND_IN_ERRORS): libyaml raises those errors in their stead. A reader error
    (a control character), a scanner error and a parser error are reported as with ruamel's own modules
    (the package imported before the lint: no stand-ins), in every field."""
    head = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: x\n"
    files = {"reader.yaml": head + '  labels: {a: "x\x01y"}\n', "scanner.yaml": head + 'spec: "abc\n', "parser.yaml": head + "spec: {a: 1\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    probe = ("import sys\nif sys.argv[1] == 'real': import ruamel.yaml\nfrom dralint.cli import main\n"
             "code = main(['--no-config', '--no-cache', *sys.argv[2:]])\n"
             "print(sorted(m for m in ('ruamel.yaml.scanner', 'ruamel.yaml.comments', 'datetime') if m in sys.modules), file=sys.stderr)\nsys.exit(code)")
    runs = {how: subprocess.run([sys.executable, "-c", probe, how, "-f", fmt, *sorted(files)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
            for how in ("stand-ins", "real") for fmt in ("json",)}
    stand_ins, real = runs["stand-ins"], runs["real"]
    assert stand_ins.returncode == real.returncode == 1
    assert stand_ins.stdout == real.stdout
    assert stand_ins.stderr.splitlines()[-1] == "[]" and real.stderr.splitlines()[-1] == "['datetime', 'ruamel.yaml.comments', 'ruamel.yaml.scanner']"
    text = subprocess.run([sys.executable, "-c", probe, "stand-ins", *sorted(files)], capture_output=True, text=True, timeout=60, cwd=tmp_path).stdout
    assert [line for line in text.splitlines() if "DRA001" in line] == [
        "parser.yaml:5:12: error: did not find expected ',' or '}' (while parsing a flow mapping at line 5, column 7) [DRA001 yaml-syntax]",
        "reader.yaml:1:1: error: unacceptable character #x0001: control characters are not allowed; the rest of the file was not checked [DRA001 yaml-syntax]",
        "scanner.yaml:5:11: error: found unexpected end of stream (while scanning a quoted scalar at line 5, column 7) [DRA001 yaml-syntax]",
    ]


def test_the_reader_error_stand_in_is_ruamel_s_reader_error():
    import ruamel.yaml.error  # noqa: PLC0415
    import ruamel.yaml.reader  # noqa: PLC0415

    stand_in = runtime._reader_error(ruamel.yaml.error.YAMLError)
    assert stand_in.__name__ == "ReaderError" and stand_in.__module__ == "ruamel.yaml.reader" and issubclass(stand_in, ruamel.yaml.error.YAMLError)
    for args in (("<unicode string>", 7, 0x1, "unicode", "control characters are not allowed"), ("f.yaml", 3, b"\xff", "utf-8", "invalid start byte")):
        mine, theirs = stand_in(*args), ruamel.yaml.reader.ReaderError(*args)
        assert str(mine) == str(theirs) and vars(mine) == vars(theirs) and mine.args == theirs.args
