"""Pod references on hostile inputs: the did-you-mean of DRA704 and DRA712 stays linear.

Before, one Pod naming a missing claim of 64k letters used 3.9 GB (every one-deletion variant of
the name was built: L * L bytes), and one Pod with 8,000 declared claims and 8,000 undeclared
container claims took 93 s (difflib compared each reference with every declared name, and every
message listed all of them).
"""

from __future__ import annotations

import random

from conftest import lint_json

POD_HEAD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
NOT_DECLARED = "is not declared by the pod: must be one of the names in pod.spec.resourceClaims"


_LETTER_OF_BYTE = bytes(ord("a") + b % 26 for b in range(256))


def _letters(rng: random.Random, n: int) -> str:
    """`n` random lower-case letters (a byte each, mapped: not a Python call per letter)."""
    return rng.randbytes(n).translate(_LETTER_OF_BYTE).decode()


def _claim(name: str) -> str:
    return f"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: {name}\n"


def _pod_naming(claim: str) -> str:
    return (f"---\n{POD_HEAD}  containers:\n  - name: c\n    image: i\n"
            f"  resourceClaims:\n  - name: gpu\n    resourceClaimName: {claim}\n")


def test_a_huge_missing_claim_name_gets_no_guess_and_no_gigabytes(tmp_path):
    name = _letters(random.Random(1), 256 * 1024)  # the old code needed ~60 GB
    path = tmp_path / "pod.yaml"
    path.write_text(_pod_naming(name)[4:])
    run = lint_json(str(path), timeout=30)
    assert [(p["rule"], p["line"], p["column"], p["message"]) for p in run.problems] == [
        ("DRA702", 11, 24, f"invalid ResourceClaim name {name!r}: must be no more than 253 characters"),
        ("DRA712", 11, 24, f"ResourceClaim {name!r} is not defined in the linted files; it must exist in the pod's namespace of the cluster"),
    ]


def test_names_longer_than_an_object_name_are_not_suggested_but_the_longest_valid_ones_are(tmp_path):
    rng = random.Random(2)
    longest = _letters(rng, 253)
    too_long = [_letters(rng, 4000) for _ in range(300)]  # each indexed name cost L hashes
    path = tmp_path / "all.yaml"
    path.write_text(
        "".join(_claim(n) for n in [longest, *too_long])
        + _pod_naming(longest[:-1] + ("a" if longest[-1] != "a" else "b"))  # one edit from the 253-character name
        + _pod_naming(too_long[0][:-1])  # one deletion from a 4,000-character name
    )
    run = lint_json(str(path), timeout=30)
    found = [(p["line"], p["column"], p["message"]) for p in run.problems if p["rule"] == "DRA712"]
    pod_line = 5 * (1 + len(too_long)) + 12  # five lines a claim, then the pod's "---" and ten lines
    changed = longest[:-1] + ("a" if longest[-1] != "a" else "b")
    assert found == [
        (pod_line, 24, f"ResourceClaim {changed!r} is not defined in the linted files; did you mean {longest!r} ({path})? "
                       "Otherwise it must exist in the pod's namespace of the cluster"),
        (pod_line + 12, 24, f"ResourceClaim {too_long[0][:-1]!r} is not defined in the linted files; "
                            "it must exist in the pod's namespace of the cluster"),
    ]


def _pod_with_claims(declared: list[str], referenced: list[str]) -> str:
    return (POD_HEAD + "  resourceClaims:\n"
            + "".join(f"  - {{name: {n}, resourceClaimTemplateName: t}}\n" for n in declared)
            + "  containers:\n  - name: c\n    image: i\n    resources:\n      claims:\n"
            + "".join(f"      - {{name: {n}}}\n" for n in referenced))


def _dra704(tmp_path, declared: list[str], referenced: list[str]) -> list[tuple]:
    path = tmp_path / "pod.yaml"
    path.write_text(_pod_with_claims(declared, referenced))
    run = lint_json(str(path), timeout=30)
    return [(p["line"], p["column"], p["message"]) for p in run.problems if p["rule"] == "DRA704"]


def test_many_undeclared_container_claims_of_a_pod_with_many_claims_take_linear_time(tmp_path):
    n = 12_000  # the old code: about 200 s
    got = _dra704(tmp_path, [f"c{i}" for i in range(n)], [f"x{i}" for i in range(n)])
    first = 6 + n + 6  # the first container claim
    listed = "c0, c1, c10, c100, c1000, c10000, c10001, c10002, c10003, c10004, c10005, c10006, c10007, c10008, c10009, c1001"
    assert got[:3] == [
        (first + i, 16, f"claim 'x{i}' {NOT_DECLARED}: {listed} and {n - 16} more; did you mean 'c{i}'?") for i in range(3)
    ]
    assert len(got) == 100  # the rest is the per-document cap's


def test_a_pod_with_few_claims_keeps_the_full_list_and_difflib_guess(tmp_path):
    declared = ["gpu", "nic", "fpga-large", "Bad_Name"]
    got = _dra704(tmp_path, declared, ["gpu", "gpus", "fpga-lrge", "zzz", "gpus"])
    names = "Bad_Name, fpga-large, gpu, nic"
    assert got == [
        (17, 16, f"claim 'gpus' {NOT_DECLARED}: {names}; did you mean 'gpu'?"),
        (18, 16, f"claim 'fpga-lrge' {NOT_DECLARED}: {names}; did you mean 'fpga-large'?"),
        (19, 16, f"claim 'zzz' {NOT_DECLARED}: {names}"),
        (20, 16, "claim 'gpus' is listed twice for this container"),
        (20, 16, f"claim 'gpus' {NOT_DECLARED}: {names}; did you mean 'gpu'?"),
    ]


def test_sixteen_claims_are_all_listed_and_seventeen_are_not(tmp_path):
    sixteen = [f"claim-{chr(ord('a') + i)}" for i in range(16)]
    # Up to sixteen names difflib guesses, and of equally close names it takes the last; above, the
    # one-edit index takes the first.
    assert _dra704(tmp_path, sixteen, ["claim-zz"]) == [
        (28, 16, f"claim 'claim-zz' {NOT_DECLARED}: {', '.join(sixteen)}; did you mean 'claim-p'?"),
    ]
    seventeen = [*sixteen, "claim-q"]
    assert _dra704(tmp_path, seventeen, ["claim-z", "other"]) == [
        (29, 16, f"claim 'claim-z' {NOT_DECLARED}: {', '.join(sixteen)} and 1 more; did you mean 'claim-a'?"),
        (30, 16, f"claim 'other' {NOT_DECLARED}: {', '.join(sixteen)} and 1 more"),
    ]


def test_a_huge_declared_name_is_cut_short_in_each_message(tmp_path):
    huge = "a" * 200_000  # with 3,000 references the old messages held 600 MB
    got = _dra704(tmp_path, [huge, "gpu"], [f"x{i}" for i in range(3000)])
    assert got[0] == (14, 16, f"claim 'x0' {NOT_DECLARED}: {'a' * 253}..., gpu")
