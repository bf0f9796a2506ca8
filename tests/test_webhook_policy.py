"""The webhook's answers that depend on configuration and on the API server's limits, in process.

Policies are built the way `dralint serve` builds them (`build_policy` on its parsed
arguments); reviews go through `review.decide`, as in a judge process.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from conftest import CASES, ROOT

pytest.importorskip("uvicorn", reason="the webhook extra is not installed")

from dralint.webhook import review as rv  # noqa: E402
from dralint.webhook.cli import build_policy, serve_parser  # noqa: E402

CLAIM = json.loads((CASES / "webhook" / "claim.json").read_text())


def policy(*flags: str) -> rv.Policy:
    return build_policy(serve_parser().parse_args(["--tls-cert", "c", "--tls-key", "k", "--no-config", "-k", "1.35", *flags]))


def update(old: dict, new: dict) -> dict:
    return {"uid": "u-1", "operation": "UPDATE", "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"},
            "object": new, "oldObject": old}


def changed_spec() -> tuple[dict, dict]:
    new = copy.deepcopy(CLAIM)
    new["spec"]["devices"]["requests"][0]["exactly"]["count"] = 3
    return CLAIM, new


def test_immutable_spec_is_an_error_by_default():
    decision = rv.decide(update(*changed_spec()), policy())
    assert not decision.allowed
    assert [(p.rule, p.path) for p in decision.denying] == [("DRA022", ("spec",))]


def test_immutable_spec_answers_to_severity_and_ignore():
    decision = rv.decide(update(*changed_spec()), policy("--severity", "DRA022=warning"))
    assert decision.allowed
    assert decision.warnings == ["spec: field is immutable: the spec of a ResourceClaim cannot change after creation (delete and recreate it) [DRA022]"]
    decision = rv.decide(update(*changed_spec()), policy("--ignore", "immutable-field"))
    assert decision.allowed and decision.warnings == []


def test_warnings_stay_within_what_the_api_server_passes_on_whole():
    lines = [f"spec.devices.requests[{i}].name: {'advice ' * 25}[DRA999]" for i in range(40)]  # ~215 characters each
    warnings = rv.shorten_warnings(lines)
    assert all(len(w) <= rv.WARNING_MAX_CHARS for w in warnings)
    assert sum(len(w) for w in warnings) <= rv.WARNINGS_TOTAL_CHARS < 4096
    kept = len(warnings) - 1
    assert warnings[-1].startswith(f"... and {40 - kept} more dralint warnings")
    assert warnings[0].endswith("[DRA999]")


def test_long_advice_is_not_cut():
    # 182 characters: over the 120 that AdmissionResponse asks for "if possible", under the 256 the API server keeps.
    line = ("spec.devices.requests[0].exactly.tolerations: tolerations is silently dropped unless the cluster enables "
            "the DRADeviceTaints feature gate (off by default in Kubernetes 1.35) [DRA801]")
    assert rv.shorten_warnings([line]) == [line]


def test_answers_with_lone_surrogates_are_valid_json_echoing_the_uid():
    body = rv.encode(rv.allow_review("\ud800-uid", ["name \udfff"]))
    assert b"\\ud800-uid" in body
    assert json.loads(body)["response"]["uid"] == "\ud800-uid"


def test_documented_options_match_the_parser():
    table = (ROOT / "docs" / "webhook.md").read_text().split("## Options", 1)[1].split("\n## ", 1)[0]
    documented = {}
    for row in table.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        flag = re.match(r"`(--[a-z-]+)", cells[0])
        if flag and len(cells) > 1 and cells[1].startswith("`"):
            documented[flag.group(1)] = cells[1].strip("`")
    defaults = {a.option_strings[-1]: a.default for a in serve_parser()._actions if a.option_strings}
    assert documented, "no options documented"
    for flag, default in documented.items():
        value = defaults[flag]
        assert (f"{value:g}" if isinstance(value, float) else str(value)) == default, flag
    assert {"--review-timeout", "--judges", "--on-error", "--read-timeout"} <= set(documented)


@pytest.mark.parametrize(("body", "expected"), [
    # As the API server writes it: the request's own fields before the object.
    (b'{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u-1","kind":{"group":"resource.k8s.io",'
     b'"version":"v1","kind":"ResourceClaim"},"name":"c","namespace":"ns","operation":"CREATE","userInfo":{"uid":"not-it"},'
     b'"object":{"metadata":{"name":"not-it"}}}}',
     {"uid": "u-1", "kind": "ResourceClaim", "name": "c", "namespace": "ns", "operation": "CREATE"}),
    # Escapes, a lone surrogate, white space between tokens.
    (b'{ "request" : { "uid" : "\\ud800-\\"q\\"" , "name" : "a\\u00e9" } }', {"uid": "\ud800-\"q\"", "name": "a\u00e9"}),
    # Keys of the same name deeper down, or inside an array, are not the request's.
    (b'{"x":{"request":{"uid":"no"}},"request":[{"uid":"no"}]}', {}),
    (b'{"request":{"object":{"uid":"no"},"uid":"yes"}}', {"uid": "yes"}),
    # Not strings, empty, or cut off: nothing.
    (b'{"request":{"uid":1,"name":"","namespace":null,"operation":"CREA', {}),
    # Nested far deeper than any recursion limit before the uid: read without recursion, then out of the head.
    (b'{"request":{"object":' + b"[" * 200_000 + b"]" * 200_000 + b'},"uid":"late"}}', {}),
])
def test_peek_head_reads_the_request_fields_from_the_head_only(body, expected):
    assert rv.peek_head(body) == expected


def test_peek_head_reads_no_further_than_its_limit():
    head = b'{"request":{"name":"n","padding":"' + b"x" * rv.PEEK_BYTES + b'","uid":"late"}}'
    assert rv.peek_head(head) == {"name": "n"}
    assert rv.peek(head) == {"name": "n", "uid": "late"}  # the whole body has it
