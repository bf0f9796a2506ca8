"""Did-you-mean for references to names the run does not define (DRA712, DRA713): the closest name one edit away."""

import random

from dralint.k8s.suggest import OneEditAway


def one_edit_apart(a: str, b: str) -> bool:
    """By definition: one character changed, deleted, inserted, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def test_the_closest_name_is_the_one_a_brute_force_search_finds():
    rng = random.Random(7)
    for _ in range(300):
        names = sorted({"".join(rng.choice("ab-1") for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 30))})
        index = OneEditAway(names)
        for _ in range(10):
            wanted = "".join(rng.choice("ab-1") for _ in range(rng.randint(1, 6)))
            near = [n for n in names if one_edit_apart(n, wanted)]
            expected = min(near, key=lambda c: (abs(len(c) - len(wanted)), c)) if near else None
            assert index.closest(wanted) == expected, (names, wanted)


def test_two_names_sharing_a_deletion_are_not_one_edit_apart():
    assert OneEditAway(["-ba1"]).closest("--ba") is None  # delete the first "-" of one, the "1" of the other
    assert OneEditAway(["claim-ab"]).closest("claim-ba") == "claim-ab"


def test_a_hash_collision_is_not_an_answer():
    index = OneEditAway(["claim-b"])
    index._index(7)
    # File "claim-zz" under the hash of a variant of "claim-a" as a colliding hash would.
    index.by_variant[hash("claim-")] = ["claim-b", "claim-zz"]
    assert index.closest("claim-a") == "claim-b"
    index.by_variant[hash("claim-")] = "claim-zz"
    assert OneEditAway.closest(index, "claim-c") is None
