"""The API server's handwritten validation as a checklist (issue 19, item 2).

Every error call site of each release's `validation.go` in ../shared/k8s-validation
(tests/go_validation.py finds them) must have a row in tests/validation_rules.py;
a row's rules must exist and run at the release, and a fixture under tests/cases/
must expect one of them with the site's error type at a path the site's Go path
expression can produce — so a row cannot name a rule that checks something else.
The next release's new checks fail here until a rule covers them.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pytest
from go_validation import call_sites, path_suffix, release_sites, validation_files
from validation_rules import COVERAGE

from dralint.api import release_tuple
from dralint.registry import all_rules

from conftest import CASES
from expectations import read_fixture

# The releases whose validation.go is known to exist, and any other found in ../shared: a new
# release's file is checked as soon as it is dropped in.
RELEASES = tuple(sorted({"1.35", "1.37", "1.38", *validation_files()}, key=release_tuple))


def _present(release: str) -> None:
    if release not in validation_files():
        pytest.skip(f"validation.go of {release} (../shared/k8s-validation) is not present")


@lru_cache(maxsize=1)
def _rules():
    return {r.code: r for r in all_rules(plugins=False)}


@lru_cache(maxsize=1)
def _expected() -> dict[tuple[str, str], list[str]]:
    """(rule, error type) -> every path a fixture expects it at."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(p for p in CASES.rglob("*") if p.suffix in (".yaml", ".yml")):
        for block in read_fixture(path).blocks:
            for e in block.expectations:
                found.setdefault((e.key.code, e.key.error_type or ""), []).append(e.key.path)
    return found


@pytest.mark.parametrize("release", RELEASES)
def test_every_call_site_has_a_row(release):
    _present(release)
    missing = sorted({site.render() for site in release_sites(release) if site.key not in COVERAGE})
    assert missing == [], f"call sites of {release} without a row in tests/validation_rules.py (port them, then map them)"


@pytest.mark.parametrize("release", RELEASES)
def test_mapped_rules_exist_and_run_at_the_release(release):
    """Every code of a row is a rule; one of them runs at the release (a shared helper's row names a rule per kind)."""
    _present(release)
    rules, wrong = _rules(), []
    for site in release_sites(release):
        row = COVERAGE.get(site.key)
        if not row or not row.rules:
            continue
        wrong += [f"{site.render()}: {code} is not a rule" for code in row.rules if code not in rules]
        if not any(code in rules and rules[code].in_releases(release) for code in row.rules):
            wrong.append(f"{site.render()}: none of {', '.join(row.rules)} runs at {release}")
    assert sorted(set(wrong)) == []


# Helpers that report below the path they are given (metadata.name, nodeSelector.nodeSelectorTerms[0]...).
DEEP = frozenset({
    "corevalidation.ValidateObjectMeta", "corevalidation.ValidateObjectMetaWithOpts", "corevalidation.ValidateTemplateObjectMeta",
    "corevalidation.ValidateNodeSelector", "metav1validation.ValidateConditions",
})

# (rule, error type) proven by a test rather than a fixture, where a fixture would be unreasonably large.
PROVEN_BY_TEST = {
    ("DRA207", "TooLong"): "tests/test_rules_parity.py::test_annotations_together_at_most_256_kib",
}


@lru_cache(maxsize=1)
def _vias() -> dict[tuple[str, str, str], set[str]]:
    vias: dict[tuple[str, str, str], set[str]] = {}
    for release in validation_files():
        for site in release_sites(release):
            vias.setdefault(site.key, set()).add(site.via)
    return vias


def _pattern(path: str, etype: str, vias: set[str]) -> str | None:
    suffix = path_suffix(path)
    if suffix is None:
        return None
    if vias & DEEP:
        return suffix[:-1] + r"([.\[].*)?$"
    if etype == "Duplicate" and "validateSet" in vias:
        return suffix[:-1] + r"(\[\d+\])?$"  # validateSet reports a duplicate at the entry
    return suffix


def _untyped(code: str, expected: dict[tuple[str, str], list[str]]) -> bool:
    """A rule whose messages name no error type (CEL): its fixtures carry none, so the path alone proves it."""
    return not any(c == code and t for c, t in expected)


def test_every_row_is_exercised_by_a_fixture():
    """A row's rules report its error type at a path its Go expression can produce, in some fixture."""
    expected, unproven = _expected(), []
    for (function, etype, path), row in sorted(COVERAGE.items()):
        if not row.rules or any((code, etype) in PROVEN_BY_TEST for code in row.rules):
            continue
        pattern = _pattern(path, etype, _vias().get((function, etype, path), set()))
        paths = [p for code in row.rules for t in (etype, "") if t == etype or _untyped(code, expected) for p in expected.get((code, t), [])]
        if not any(pattern is None or re.search(pattern, p) for p in paths):
            unproven.append(f"{function}: {etype} at {path} -> {', '.join(row.rules)}")
    assert unproven == [], "rows no fixture proves (expect the rule with that error type at such a path)"


def test_tests_named_as_proof_exist():
    for proof in PROVEN_BY_TEST.values():
        file, name = proof.split("::")
        assert f"def {name}(" in (CASES.parents[1] / file).read_text(encoding="utf-8"), proof


def test_every_row_matches_a_call_site():
    """A row must match a call site of some release: a renamed function or path is not silently kept."""
    files = validation_files()
    if not files:
        pytest.skip("../shared/k8s-validation is not present")
    present = {site.key for release in files for site in release_sites(release)}
    assert sorted(set(COVERAGE) - present) == []


def test_rows_say_one_thing():
    for key, row in COVERAGE.items():
        assert sum(map(bool, (row.rules, row.schema, row.na, row.gap))) == 1, key


@pytest.mark.parametrize("release", RELEASES)
def test_known_gaps(release):
    """The call sites no rule ports yet, by name: listed here so that they stay visible."""
    _present(release)
    gaps = sorted({f"{site.render()}: {COVERAGE[site.key].gap}" for site in release_sites(release)
                   if site.key in COVERAGE and COVERAGE[site.key].gap})
    if gaps:
        pytest.xfail(f"{len(gaps)} call sites of {release} are known gaps:\n" + "\n".join(gaps))


SAMPLE = '''
func validateThing(thing Thing, fldPath *field.Path) field.ErrorList {
	// field.Invalid(fldPath, "in a comment")
	allErrs := validateSet(thing.Items, 8, func(item Item, fldPath *field.Path) field.ErrorList {
		return field.ErrorList{field.Required(fldPath.Child("name"), "(not a bracket)")}
	}, stringKey, fldPath.Child("items"))
	allErrs = append(allErrs, validateSet(thing.Other, -1, nil, stringKey, fldPath.Child("other"))...)
	return append(allErrs, field.TooLong(fldPath.Child("a", "b").Index(i), "", 3))
}
'''


def test_the_reader_finds_calls_not_comments_or_strings():
    got = [(s.function, s.error_type, s.path, s.via) for s in call_sites(SAMPLE)]
    assert got == [
        ("validateThing", "TooMany", 'fldPath.Child("items")', "validateSet"),
        ("validateThing", "Duplicate", 'fldPath.Child("items")', "validateSet"),
        ("validateThing", "Required", 'fldPath.Child("name")', ""),
        ("validateThing", "Duplicate", 'fldPath.Child("other")', "validateSet"),  # -1: no size limit
        ("validateThing", "TooLong", 'fldPath.Child("a","b").Index(i)', ""),
    ]
    assert re.search(path_suffix('fldPath.Child("a","b").Index(i)'), "spec.x.a.b[3]")
    assert not re.search(path_suffix('fldPath.Child("a","b").Index(i)'), "spec.xa.b[3]")
    assert path_suffix("keyPath") is None
