"""rules/kinds.json (tools/gen_rule_index.py): the built-in rule modules a run imports kind by kind.

A run of the built-in rules imports the modules every document needs, then those with a rule for each
kind it meets (dralint.registry.BuiltinRules); the index says which without importing them. It must be
current, and a run must report exactly what it reports with every rule loaded at once.
"""

import importlib.util
import os

from dralint.pipeline.options import LintOptions
from dralint.pipeline.run import lint
from dralint.pipeline.selection import Selection
from dralint.pipeline.sources import read_all
from dralint.registry import BUILTIN_PACKAGE, BuiltinRules, all_rules, builtin_index
from dralint.schemas import DEFAULT_RELEASE

from conftest import ROOT


def _generator():
    spec = importlib.util.spec_from_file_location("gen_rule_index", ROOT / "tools" / "gen_rule_index.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_index_is_current():
    assert (ROOT / "rules" / "kinds.json").read_text(encoding="utf-8") == _generator().render(), "run python tools/gen_rule_index.py"


def test_the_index_names_every_module_and_rule_and_what_each_judges():
    index = builtin_index()
    modules = {name[:-3] for name in os.listdir(ROOT / "rules") if name.endswith(".py") and not name.startswith("_")}
    assert set(index) == modules
    rules = all_rules(plugins=False)
    assert {code: slug for entry in index.values() for code, slug in entry["codes"].items()} == {r.code: r.slug for r in rules}
    for rule in rules:
        entry = index[rule.origin.removeprefix(BUILTIN_PACKAGE + ".")]
        assert entry["always"] if rule.scope == "run" or rule.kinds is None else set(rule.kinds) <= set(entry["kinds"])


def test_a_module_loads_once_for_the_first_kind_it_judges():
    builtin = BuiltinRules.from_package()
    always = builtin.always()
    assert {r.origin for r in always} == {f"{BUILTIN_PACKAGE}.{n}" for n, e in builtin_index().items() if e["always"]}
    slices = builtin.for_kind("ResourceSlice")
    assert {r.origin for r in slices} >= {f"{BUILTIN_PACKAGE}.slices", f"{BUILTIN_PACKAGE}.slice_devices"}
    assert [r.code for r in slices] == sorted(r.code for r in slices)
    assert builtin.for_kind("ResourceSlice") == [] and builtin.for_kind(None) == [] and builtin.always() == []


def _cases() -> list[str]:
    """The case files of every document kind the built-in rules judge, and of other kinds."""
    found = []
    for case_folder in ("rules", "slices", "pods"):
        for folder, _dirs, names in os.walk(ROOT / "tests" / "cases" / case_folder):
            found += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".yaml", ".yml", ".json"))]
    return sorted(found)


def test_a_run_reports_what_it_reports_with_every_rule_loaded_at_once(monkeypatch):
    """The case files in one run, some rules not selected: the same problems, in the same order. At the
    default release and at 1.30 (the classic API's rules): every module reports."""
    cases, reported = _cases(), set()
    origin = {r.code: r.origin.removeprefix(BUILTIN_PACKAGE + ".") for r in all_rules(plugins=False)}
    for release in (DEFAULT_RELEASE, "1.30"):
        options = {"selection": Selection(ignore=["DRA56", "metadata-name"]), "plugins": False, "release": release}
        by_kind = lint(read_all((path, None) for path in cases), LintOptions(**options))
        with monkeypatch.context() as patch:
            patch.setattr(LintOptions, "builtin_by_kind", lambda self: None)
            at_once = lint(read_all((path, None) for path in cases), LintOptions(**options))
        assert by_kind.problems == at_once.problems
        reported |= {origin[p.rule] for p in at_once.problems if p.rule in origin}
    assert set(builtin_index()) - reported == {"taint_rule_scope"}  # its rule needs a preview release's gate


def test_the_codes_a_config_may_name_are_the_same_from_the_index_as_from_every_rule(tmp_path):
    """dralint.config checks the codes a `.dralint.yaml` names against the index when the rules are the
    built-in ones (plus policies): the same codes and slugs, in the same order, as loading every rule gives."""
    from dralint.config import _known_codes  # noqa: PLC0415
    from dralint.pipeline.options import known_codes  # noqa: PLC0415
    from dralint.policy import load_policies  # noqa: PLC0415

    policy = load_policies([str(ROOT / "tests" / "cases" / "policy" / "gpu-limits.yaml")])
    options = LintOptions(DEFAULT_RELEASE, plugins=False, extra_rules=policy)
    assert options.builtin_by_kind() is not None
    from_index = _known_codes(options)
    assert list(from_index.items()) == list(known_codes(options.rules()).items())
    assert {r.code for r in policy} <= set(from_index) and "DRA001" in from_index and "DRA713" in from_index
