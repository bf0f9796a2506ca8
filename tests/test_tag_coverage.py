"""Declarative validation tags as a checklist (issue 11, item 6).

Every enforced `+k8s:` tag on a type that a kind dralint checks reaches (tests/k8s_tags.py)
must have a rule that covers it (tests/tag_rules.py), and that rule must exist and run at
the release. The next release's new tags fail here until a rule covers them.
"""

from __future__ import annotations

import pytest

from dralint.api import release_tuple
from dralint.registry import all_rules

from k8s_tags import K8S_API, enforced_tags, normalise
from tag_rules import COVERAGE, exempt

RELEASES = ("1.35", "1.36", "1.37", "1.38")


def _rules():
    return {r.code: r for r in all_rules(plugins=False)}


def _in_range(release: str, since: str | None, until: str | None) -> bool:
    rel = release_tuple(release)
    return (since is None or rel >= release_tuple(since)) and (until is None or rel <= release_tuple(until))


@pytest.mark.parametrize("release", RELEASES)
def test_every_enforced_tag_has_a_rule(release):
    if not (K8S_API / release).is_dir():
        pytest.skip(f"the Go API types of {release} (../shared/k8s-api) are not present")
    rules = _rules()
    uncovered, wrong = [], []
    for tag in enforced_tags(release):
        if exempt(tag.tag):
            continue
        row = COVERAGE.get((tag.type, tag.field, tag.tag))
        where = f"{tag.version} {tag.type}.{tag.field or '<type>'} +k8s:{tag.tag}"
        if row is None or not _in_range(release, row.since, row.until):
            uncovered.append(where)
            continue
        for code in row.rules:
            if code not in rules or not rules[code].in_releases(release):
                wrong.append(f"{where}: {code} does not exist or does not run at {release}")
    assert uncovered == [], f"tags of {release} without a covering rule (add one, and a row to tests/tag_rules.py)"
    assert wrong == []


def test_the_table_has_no_stale_rows():
    """A row must match a tag of some release: a renamed field or tag is not silently kept."""
    present = {(t.type, t.field, t.tag) for release in RELEASES if (K8S_API / release).is_dir() for t in enforced_tags(release)}
    if not present:
        pytest.skip("the Go API types (../shared/k8s-api) are not present")
    assert sorted(set(COVERAGE) - present) == []


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('+k8s:beta(since: "1.37")=+k8s:maxItems=8', ("maxItems=8", "beta")),
        ('+k8s:alpha(since: "1.37")=+k8s:eachVal=+k8s:maxBytes=64', None),  # shadow-only: never returned
        ("+k8s:ifEnabled(DRAPartitionableDevicesType)=+k8s:format=k8s-resource-fully-qualified-name",
         ("ifEnabled(DRAPartitionableDevicesType)=format=k8s-resource-fully-qualified-name", "ga")),
        ("+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object", None),
        ("+optional", None),
    ],
)
def test_tag_lines_are_read_as_the_server_enforces_them(line, expected):
    assert normalise(line) == expected
