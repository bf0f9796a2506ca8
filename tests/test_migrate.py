"""`dralint migrate --to resource.k8s.io/v1`: conversion, preservation of everything else, --write."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest

from dralint.model import format_path

from conftest import SHARED, lint_json, run_dralint
from engine import lint_paths

TO = ("migrate", "--to", "resource.k8s.io/v1")
CORPUS = SHARED / "corpus" / "real-world"
BETA = ("resource.k8s.io/v1beta1", "resource.k8s.io/v1beta2")


def _corpus_entries() -> list[dict]:
    index = CORPUS / "index.json"
    if not index.is_file():
        return []
    return [
        e for e in json.loads(index.read_text())
        if e.get("expected_valid") is True and any(v in BETA for v in e.get("api_versions", []))
    ]


def _split(text: str) -> list[str]:
    """Documents of a stream as text, split at `---` lines (the same rule migrate uses)."""
    docs, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.rstrip("\r\n") == "---" or line.startswith("--- "):
            docs.append("".join(cur))
            cur = [line]
        else:
            cur.append(line)
    docs.append("".join(cur))
    return docs


@pytest.fixture(scope="module")
def migrated_corpus(tmp_path_factory) -> dict:
    """One `migrate --write` over every beta corpus file, then one lint of the results at 1.35."""
    if not CORPUS.is_dir():
        pytest.skip("../shared corpus is not present")
    base = tmp_path_factory.mktemp("migrated")
    targets = {}
    for number, entry in enumerate(_corpus_entries()):
        src = CORPUS / entry["file"]
        target = base / str(number) / src.name
        target.parent.mkdir()
        shutil.copyfile(src, target)
        targets[entry["file"]] = (src.read_text(), target)
    run = run_dralint(*TO, "--write", *(str(t) for _, t in targets.values()), timeout=120)
    errors: dict[str, list] = {}
    for problem in lint_paths([t for _, t in targets.values()], release="1.35").problems:
        if str(problem.severity) == "error":
            errors.setdefault(problem.source, []).append((problem.rule, format_path(problem.path), problem.message))
    return {"run": run, "targets": targets, "errors": errors}


@pytest.mark.parametrize("entry", _corpus_entries(), ids=lambda e: e["file"])
def test_corpus_round_trip_lints_clean_at_1_35(entry, migrated_corpus):
    run = migrated_corpus["run"]
    assert run.code == 0, run.stderr
    before, target = migrated_corpus["targets"][entry["file"]]
    after = target.read_text()
    assert "resource.k8s.io/v1beta" not in after.replace("resource.k8s.io/v1beta1=true", "")
    errors = migrated_corpus["errors"].get(str(target), [])
    assert errors == [], errors
    # Documents that held no beta DRA object are byte-identical; so is every comment line.
    old_docs, new_docs = _split(before), _split(after)
    assert len(old_docs) == len(new_docs)
    for old, new in zip(old_docs, new_docs, strict=True):
        if "resource.k8s.io/v1beta" not in old:
            assert old == new
    old_comments = [ln.strip() for ln in before.splitlines() if ln.strip().startswith("#")]
    new_comments = [ln.strip() for ln in after.splitlines() if ln.strip().startswith("#")]
    assert new_comments == old_comments


V1BETA1 = """\
# Claims for the training job.
apiVersion: v1
kind: Namespace
metadata:
  name:   ml     # odd spacing stays
---
# The claim itself
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata:
  name: gpus
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu          # one GPU
        deviceClassName: "gpu.example.com"   # quoted on purpose
        allocationMode: ExactCount
        count: 2
        selectors:
        - cel:
            expression: 'device.driver == "gpu.example.com"'
      - name: any
        firstAvailable:
        - name: big
          deviceClassName: big.example.com
        - name: small
          deviceClassName: small.example.com
          count: 2
      constraints:
      - requests: [gpu]
        matchAttribute: gpu.example.com/numa
---
apiVersion: v1
kind: ConfigMap
metadata: {name: untouched}
data:
  x:    "keep   this"
"""


def test_diff_by_default_and_shape(tmp_path):
    f = tmp_path / "claims.yaml"
    f.write_text(V1BETA1)
    run = run_dralint(*TO, str(f))
    assert run.code == 0, run.stderr
    assert f.read_text() == V1BETA1  # a diff only
    assert run.stdout.startswith("--- a/")
    assert "-apiVersion: resource.k8s.io/v1beta1\n+apiVersion: resource.k8s.io/v1\n" in run.stdout
    assert "+        exactly:\n" in run.stdout
    assert "would migrate ResourceClaimTemplate/ml/gpus" in run.stderr

    run = run_dralint(*TO, "--write", str(f))
    assert run.code == 0, run.stderr
    new = f.read_text()
    docs = _split(new)
    old_docs = _split(V1BETA1)
    assert docs[0] == old_docs[0] and docs[2] == old_docs[2]  # byte-identical neighbours
    assert docs[1] == """\
---
# The claim itself
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpus
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu          # one GPU
        exactly:
          deviceClassName: "gpu.example.com" # quoted on purpose
          allocationMode: ExactCount
          count: 2
          selectors:
          - cel:
              expression: 'device.driver == "gpu.example.com"'
      - name: any
        firstAvailable:
        - name: big
          deviceClassName: big.example.com
        - name: small
          deviceClassName: small.example.com
          count: 2
      constraints:
      - requests: [gpu]
        matchAttribute: gpu.example.com/numa
"""
    lint = lint_json("-k", "1.35", str(f))
    assert [p for p in lint.problems if p["severity"] == "error"] == []
    # Running it again has nothing to do.
    again = run_dralint(*TO, str(f))
    assert again.code == 0 and again.stdout == ""


def test_resourceslice_basic_is_flattened_and_v1beta2_only_changes_apiversion(tmp_path):
    f = tmp_path / "slice.yaml"
    f.write_text("""\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata:
  name: node-1-gpu
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes:
        model: {string: "A100"}   # the model (column kept)
      capacity:
        memory: {value: 40Gi}
---
apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
""")
    run = run_dralint(*TO, "-w", str(f))
    assert run.code == 0, run.stderr
    assert f.read_text() == """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpu
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: "A100"}     # the model (column kept)
    capacity:
      memory: {value: 40Gi}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
"""


def test_lossy_objects_are_reported_and_left_unchanged(tmp_path):
    f = tmp_path / "bad.yaml"
    text = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: both
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      firstAvailable:
      - name: a
        deviceClassName: a.example.com
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: fine
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
"""
    f.write_text(text)
    run = run_dralint(*TO, "--write", str(f))
    assert run.code == 1
    assert f"{f}:1: cannot migrate ResourceClaim/both (resource.k8s.io/v1beta1): spec.devices.requests[0] has both firstAvailable" in run.stderr
    new = f.read_text()
    assert _split(new)[0] == _split(text)[0]
    assert "exactly:\n        deviceClassName: gpu.example.com" in _split(new)[1]


def test_result_that_would_not_lint_clean_is_left_unchanged(tmp_path):
    f = tmp_path / "typo.yaml"
    text = """\
apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaim
metadata:
  name: typo
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClasName: gpu.example.com
"""
    f.write_text(text)
    run = run_dralint(*TO, str(f))
    assert run.code == 1
    assert "would not lint clean at Kubernetes 1.37" in run.stderr and "deviceClasName" in run.stderr
    assert run.stdout == ""
    assert f.read_text() == text


def test_write_is_atomic_keeps_mode_crlf_and_leaves_no_temp_file(tmp_path):
    f = tmp_path / "claim.yml"
    f.write_bytes(b"apiVersion: resource.k8s.io/v1beta1\r\nkind: DeviceClass\r\nmetadata:\r\n  name: x.example.com\r\nspec: {}\r\n")
    os.chmod(f, 0o640)
    inode = f.stat().st_ino
    run = run_dralint(*TO, "--write", str(f))
    assert run.code == 0, run.stderr
    assert f.read_bytes() == b"apiVersion: resource.k8s.io/v1\r\nkind: DeviceClass\r\nmetadata:\r\n  name: x.example.com\r\nspec: {}\r\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    assert f.stat().st_ino != inode  # replaced by rename, never truncated in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claim.yml"]


def test_write_failure_leaves_the_original(tmp_path, monkeypatch):
    import dralint.migrate as m

    f = tmp_path / "c.yaml"
    f.write_text("original\n")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(m.os, "replace", boom)
    with pytest.raises(OSError):
        m.write_atomic(str(f), b"new\n")
    assert f.read_text() == "original\n"
    assert [p.name for p in tmp_path.iterdir()] == ["c.yaml"]


def test_json_file_and_stdin(tmp_path):
    f = tmp_path / "claim.json"
    f.write_text(json.dumps({
        "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "metadata": {"name": "j"},
        "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com", "count": 1}]}},
    }, indent=2) + "\n")
    assert run_dralint(*TO, "-w", str(f)).code == 0
    data = json.loads(f.read_text())
    assert data["apiVersion"] == "resource.k8s.io/v1"
    assert data["spec"]["devices"]["requests"] == [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "count": 1}}]

    run = run_dralint(*TO, "-", input="apiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata:\n  name: a.b\n")
    assert run.code == 0
    assert run.stdout == "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: a.b\n"


def test_list_items_are_migrated(tmp_path):
    f = tmp_path / "list.yaml"
    f.write_text("""\
apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1beta1
  kind: DeviceClass
  metadata:
    name: a.example.com
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c
""")
    assert run_dralint(*TO, "-w", str(f)).code == 0
    assert "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass" in f.read_text()
    assert "- apiVersion: v1\n  kind: ConfigMap" in f.read_text()


def test_usage_errors_exit_2(tmp_path):
    assert run_dralint("migrate", "--to", "resource.k8s.io/v1beta2", str(tmp_path)).code == 2
    assert run_dralint(*TO).code == 2
    assert run_dralint("migrate", str(tmp_path)).code == 2  # --to is required
    assert run_dralint(*TO, "--write", "-", input="").code == 2
    assert run_dralint(*TO, str(tmp_path / "missing.yaml")).code == 2


def test_nothing_to_do_exits_0(tmp_path):
    f = tmp_path / "v1.yaml"
    f.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: a.b\n")
    run = run_dralint(*TO, str(tmp_path))
    assert run.code == 0 and run.stdout == ""


def test_comments_move_with_the_keys_they_are_written_above(tmp_path):
    # Left at their old indentation (and, above the first key of `basic`, lost) when the keys moved.
    claim = tmp_path / "claim.yaml"
    claim.write_text("""\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      # the class
      deviceClassName: gpu.example.com
      selectors:
      - cel:
          expression: device.driver == "gpu.example.com"
      # two of them
      allocationMode: ExactCount
      # at most
      count: 2
      # the next request
    - name: other
      deviceClassName: gpu.example.com
""")
    slice_ = tmp_path / "slice.yaml"
    slice_.write_text("""\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata:
  name: node-1-gpu
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      # what it is
      attributes:
        model: {string: "A100"}
      # how much
      capacity:
        memory: {value: 80Gi}
""")
    run = run_dralint(*TO, "--write", str(claim), str(slice_))
    assert run.code == 0, run.stderr
    assert claim.read_text() == """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      # the class
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.driver == "gpu.example.com"
        # two of them
        allocationMode: ExactCount
        # at most
        count: 2
      # the next request
    - name: other
      exactly:
        deviceClassName: gpu.example.com
"""
    assert slice_.read_text().split("  devices:\n", 1)[1] == """\
  - name: gpu-0
    # what it is
    attributes:
      model: {string: "A100"}
    # how much
    capacity:
      memory: {value: 80Gi}
"""
