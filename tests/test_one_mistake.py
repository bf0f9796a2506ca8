"""One mistake, one error: the root cause once, with the fix; the rest only where it adds something."""

from __future__ import annotations

from dralint.lint import LintOptions, lint
from dralint.pipeline.sources import Source

FLAT_IN_V1 = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      count: 2
"""


def _problems(text: str, release: str = "1.35") -> list[tuple]:
    result = lint([Source("claim.yaml", text.encode())], LintOptions(release=release))
    return [(p.rule, ".".join(map(str, p.path)), p.span.line, p.span.column, p.message) for p in result.problems]


def test_a_flat_v1beta1_request_in_a_v1_claim_is_one_error_with_the_fix():
    assert _problems(FLAT_IN_V1) == [(
        "DRA304", "spec.devices.requests.0", 8, 7,
        "request has neither 'exactly' nor 'firstAvailable': 'deviceClassName' and 'count' are fields of the flat "
        "v1beta1 request; in resource.k8s.io/v1 move them under 'exactly:' (Required)",
    )]


def test_one_misplaced_field_beside_exactly_is_still_reported_where_it_is():
    text = FLAT_IN_V1.replace("      count: 2\n", "      exactly:\n        count: 2\n")
    assert [p[:4] for p in _problems(text)] == [("DRA101", "spec.devices.requests.0.deviceClassName", 9, 7)]
    assert _problems(text)[0][4] == "unknown field 'deviceClassName' here; it belongs under 'exactly' (exactly.deviceClassName)"


def test_the_flat_shape_is_still_checked_in_v1beta1():
    text = FLAT_IN_V1.replace("resource.k8s.io/v1\n", "resource.k8s.io/v1beta1\n")
    # The class named on the flat request is the one the request asks for.
    assert [p[:4] for p in _problems(text, "1.33")] == [
        ("DRA011", "apiVersion", 1, 13), ("DRA713", "spec.devices.requests.0.deviceClassName", 9, 24),
    ]


MANY_BETA = "".join(
    f"---\napiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata:\n  name: class-{i}\n" for i in range(3)
) + "---\napiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata:\n  name: other\n"


def test_disabled_by_default_is_said_once_per_file_and_api_version():
    got = _problems(MANY_BETA)
    assert [p[:4] for p in got] == [("DRA011", "apiVersion", 2, 13), ("DRA011", "apiVersion", 17, 13)]
    assert got[0][4].endswith("; the same holds for the 2 other documents of this file with this apiVersion")
    assert "the same holds" not in got[1][4]


def test_disabled_by_default_is_said_for_each_file():
    sources = [Source(name, MANY_BETA.encode()) for name in ("a.yaml", "b.yaml")]
    result = lint(sources, LintOptions(release="1.35"))
    assert [(p.source, p.span.line) for p in result.problems if p.rule == "DRA011"] == [
        ("a.yaml", 2), ("a.yaml", 17), ("b.yaml", 2), ("b.yaml", 17),
    ]
