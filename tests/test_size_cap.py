"""A file over the 16 MiB read cap is reported with its own size, not the length of the capped read."""

from __future__ import annotations

from conftest import run_dralint

CLAIM = b"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
SIZE = 20 * 1024 * 1024 + 7


def test_a_file_over_the_cap_is_reported_with_its_own_size(tmp_path):
    big = tmp_path / "big.yaml"
    data = CLAIM + b"#" * (SIZE - len(CLAIM) - 1) + b"\n"
    big.write_bytes(data)
    assert big.stat().st_size == SIZE
    run = run_dralint("--no-config", "big.yaml", cwd=tmp_path)
    assert run.stdout == f"big.yaml:1:1: error: the file is {SIZE} bytes, more than the 16 MiB limit; it was not checked [DRA005 resource-limit]\n"
    assert run.code == 1
    # Standard input has no size to tell: what was read says only that it is over the cap.
    piped = run_dralint("--no-config", "-", input=data)
    assert piped.stdout == "-:1:1: error: the input is more than the 16 MiB limit; it was not checked [DRA005 resource-limit]\n"
    assert piped.code == 1
