"""`dralint migrate` reads `apiVersion` and `kind` as the API server does: an explicitly tagged string
(`!!str`, a local tag) is the string it tags."""

from __future__ import annotations

from conftest import run_dralint

TO = ("migrate", "--to", "resource.k8s.io/v1")
TAGGED = """\
apiVersion: !!str resource.k8s.io/v1beta1
kind: !!str ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
---
apiVersion: !!str "resource.k8s.io/v1beta2"
kind: !custom DeviceClass
metadata:
  name: gpu.example.com
"""
MIGRATED = """\
apiVersion: !!str resource.k8s.io/v1
kind: !!str ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
---
apiVersion: !!str "resource.k8s.io/v1"
kind: !custom DeviceClass
metadata:
  name: gpu.example.com
"""


def test_explicitly_tagged_api_version_and_kind_are_migrated(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(TAGGED)
    run = run_dralint(*TO, "--write", str(f))
    assert run.code == 0, run.stderr
    assert f"{f}:1: migrated ResourceClaim/c (resource.k8s.io/v1beta1) -> resource.k8s.io/v1" in run.stderr
    assert f"{f}:11: migrated DeviceClass/gpu.example.com (resource.k8s.io/v1beta2) -> resource.k8s.io/v1" in run.stderr
    assert run.stderr.splitlines()[-1] == "2 objects migrated in 1 file"
    assert f.read_text() == MIGRATED
    lint = run_dralint("--no-config", "--ignore", "DRA713", str(f))
    assert (lint.code, lint.stdout) == (0, "")
