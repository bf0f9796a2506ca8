"""`dralint migrate` never loses data: whole files only, per-file write errors, bytes kept, links, pins, size.

Regression tests for issue 9 item 1 and issue 10 item 6. The CLI contract (exit
codes, what reaches the disk) runs the real command; the rest runs in process.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import tempfile
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dralint import cli
from dralint.linediff import opcodes, unified_diff
from dralint.lint import LintOptions, lint
from dralint.migrate import migrate_text
from dralint.model import Severity
from dralint.pipeline.sources import Source

from conftest import run_dralint

TO = ("migrate", "--to", "resource.k8s.io/v1")

CLAIM = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
"""
CLAIM_V1 = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""


# ---------------------------------------------------------------- files over the read cap


def test_file_over_16_mib_is_neither_written_nor_diffed(tmp_path):
    # The reproducer: the file is cut at 16 MiB when read, and was written back cut.
    f = tmp_path / "t.yaml"
    original = ("apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata: {name: x}\n" + "---\n# pad\n" * 1700000 + "---\n# END\n").encode()
    f.write_bytes(original)

    run = run_dralint(*TO, "--write", str(f))
    assert run.code == 1, run.stderr
    assert f.read_bytes() == original
    assert f"{f}:1: not migrated: the file is larger than 16 MiB, the most dralint reads of a file; a file not read whole is never rewritten" in run.stderr

    diff = run_dralint(*TO, str(f))
    assert diff.code == 1
    assert diff.stdout == ""
    assert "larger than 16 MiB" in diff.stderr

    stdin = run_dralint(*TO, "-", input=original)
    assert stdin.code == 1 and stdin.stdout == ""  # a cut stream is not passed on as if it were whole


# ---------------------------------------------------------------- write errors are per file


def _two_folders(tmp_path: Path) -> tuple[Path, Path]:
    ro, rw = tmp_path / "ro", tmp_path / "rw"
    for folder in (ro, rw):
        folder.mkdir()
        (folder / "c.yaml").write_text(CLAIM)
    return ro, rw


def test_folder_without_write_access_is_a_problem_of_its_file_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    # The folder refuses new files as a read-only folder does (root ignores mode bits, so the refusal is made here).
    ro, rw = _two_folders(tmp_path)
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and Path(dir) == ro:
            raise PermissionError(13, "Permission denied", os.path.join(dir, ".c.yaml.tmp"))
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    code = cli.main([*TO, "--write", str(ro), str(rw)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "internal error" not in err
    assert f"{ro / 'c.yaml'}:1: not migrated: cannot write (Permission denied); the file is unchanged" in err or \
        f"{ro / 'c.yaml'}:1: not migrated: cannot create a file in {ro} (permission denied)" in err
    assert (ro / "c.yaml").read_text() == CLAIM
    assert (rw / "c.yaml").read_text() == CLAIM_V1
    assert "1 object migrated in 1 file, 1 problem(s) left unchanged" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_for_real(tmp_path):
    ro, rw = _two_folders(tmp_path)
    ro.chmod(0o555)
    try:
        run = run_dralint(*TO, "--write", str(ro), str(rw))
    finally:
        ro.chmod(0o755)
    assert run.code == 1, run.stderr
    assert f"{ro / 'c.yaml'}:1: not migrated: cannot create a file in {ro} (permission denied)" in run.stderr
    assert (ro / "c.yaml").read_text() == CLAIM
    assert (rw / "c.yaml").read_text() == CLAIM_V1


def test_file_changed_after_it_was_read_is_not_written(tmp_path, monkeypatch, capsys):
    import dralint.migrate as m

    f = tmp_path / "c.yaml"
    f.write_text(CLAIM)
    real = m.migrate_text

    def meanwhile(*args, **kwargs):  # an editor saves the file while it is being migrated
        f.write_text(CLAIM + "# saved by an editor\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(m, "migrate_text", meanwhile)
    assert cli.main([*TO, "--write", str(f)]) == 1
    assert "the file changed after it was read" in capsys.readouterr().err
    assert f.read_text() == CLAIM + "# saved by an editor\n"


# ---------------------------------------------------------------- line endings


def test_cr_only_line_endings_are_kept():
    old = CLAIM.replace("\n", "\r")
    result = migrate_text("c.yaml", old)
    assert result.failed == []
    assert result.new == CLAIM_V1.replace("\n", "\r")


def test_mixed_line_endings_change_only_on_migrated_lines(tmp_path):
    old = (
        "# tools wrote this file\r\n"
        "apiVersion: v1\n"
        "kind: ConfigMap\r\n"
        "metadata: {name: keep}\n"
        "---\r\n"
        "apiVersion: resource.k8s.io/v1beta1\n"
        "kind: ResourceClaim\r\n"
        "metadata:\n"
        "  name:   c    # spacing kept\r\n"
        "spec:\n"
        "  devices:\r\n"
        "    requests:\n"
        "    - name: gpu\r\n"
        "      deviceClassName: gpu.example.com\n"
        "      count: 2\r\n"
    )
    f = tmp_path / "mixed.yaml"
    f.write_bytes(old.encode())
    run = run_dralint(*TO, "--write", str(f))
    assert run.code == 0, run.stderr
    assert f.read_bytes().decode() == (
        "# tools wrote this file\r\n"
        "apiVersion: v1\n"
        "kind: ConfigMap\r\n"
        "metadata: {name: keep}\n"
        "---\r\n"
        "apiVersion: resource.k8s.io/v1\n"
        "kind: ResourceClaim\r\n"
        "metadata:\n"
        "  name:   c    # spacing kept\r\n"
        "spec:\n"
        "  devices:\r\n"
        "    requests:\n"
        "    - name: gpu\r\n"
        "      exactly:\r\n"  # a new line takes the ending of the line before it
        "        deviceClassName: gpu.example.com\n"  # moved lines keep their own
        "        count: 2\r\n"
    )


def test_json_keeps_untouched_lines_and_their_crlf_endings(tmp_path):
    old = (
        '{\r\n'
        '    "apiVersion": "resource.k8s.io/v1beta1",\r\n'
        '    "kind": "ResourceClaim",\r\n'
        '    "metadata": {\r\n'
        '        "name": "j"\r\n'
        '    },\r\n'
        '    "spec": {\r\n'
        '        "devices": {\r\n'
        '            "requests": [\r\n'
        '                {\r\n'
        '                    "name": "gpu",\r\n'
        '                    "deviceClassName": "gpu.example.com"\r\n'
        '                }\r\n'
        '            ]\r\n'
        '        }\r\n'
        '    }\r\n'
        '}\r\n'
    )
    result = migrate_text("claim.json", old)
    assert result.failed == []
    assert result.new == old.replace('"resource.k8s.io/v1beta1"', '"resource.k8s.io/v1"').replace(
        '                    "deviceClassName": "gpu.example.com"\r\n',
        '                    "exactly": {\r\n'
        '                        "deviceClassName": "gpu.example.com"\r\n'
        '                    }\r\n',
    )


# ---------------------------------------------------------------- hard links


def test_hard_linked_file_is_refused_unless_the_link_may_break(tmp_path):
    f, other = tmp_path / "c.yaml", tmp_path / "other-name.yaml"
    f.write_text(CLAIM)
    os.link(f, other)

    diff = run_dralint(*TO, str(f))
    assert diff.code == 0 and "+apiVersion: resource.k8s.io/v1\n" in diff.stdout
    assert f"{f}:1: has 2 hard links: --write will refuse it unless --break-hard-links is given" in diff.stderr

    refused = run_dralint(*TO, "--write", str(f))
    assert refused.code == 1
    assert f"{f}:1: not migrated: the file has 2 hard links; an atomic rewrite would leave its other names with the old content" in refused.stderr
    assert f.read_text() == CLAIM and f.stat().st_nlink == 2

    broken = run_dralint(*TO, "--write", "--break-hard-links", str(f))
    assert broken.code == 0, broken.stderr
    assert f"{f}:1: hard link broken: the file's 1 other name(s) keep the old content" in broken.stderr
    assert f.read_text() == CLAIM_V1 and other.read_text() == CLAIM
    assert f.stat().st_nlink == 1


def test_symlink_stays_a_symlink_and_mode_is_kept(tmp_path):
    target = tmp_path / "real.yaml"
    target.write_text(CLAIM)
    target.chmod(0o604)
    link = tmp_path / "link.yaml"
    link.symlink_to(target.name)
    assert run_dralint(*TO, "--write", str(link)).code == 0
    assert link.is_symlink() and target.read_text() == CLAIM_V1
    assert stat.S_IMODE(target.stat().st_mode) == 0o604


# ---------------------------------------------------------------- the release pin


def _lint_problems(name: str, data: bytes) -> list[tuple[str, int]]:
    """Errors and warnings (the DeviceClass is not in the run: an info that does not matter here)."""
    result = lint([Source(name, data)], LintOptions(plugins=False))
    return [(p.rule, p.span.line) for p in result.problems if p.severity >= Severity.WARNING]


def test_pin_to_a_release_without_v1_moves_to_the_first_release_serving_it(tmp_path):
    old = "# Cluster: production\n# dralint: kubernetes-version=1.32\n" + CLAIM
    # At its pinned release the beta version is served, if off by default.
    assert _lint_problems("c.yaml", old.encode()) == [("DRA011", 3)]
    f = tmp_path / "c.yaml"
    f.write_text(old)
    run = run_dralint(*TO, "--write", str(f))
    assert run.code == 0, run.stderr
    assert f"{f}:2: kubernetes-version 1.32 -> 1.34: the first release that serves resource.k8s.io/v1 by default" in run.stderr
    new = f.read_text()
    assert new == "# Cluster: production\n# dralint: kubernetes-version=1.34\n" + CLAIM_V1
    # Linting the migrated file does not ask to undo the migration.
    assert _lint_problems("c.yaml", new.encode()) == []


def test_pin_that_already_serves_v1_is_kept_and_used_for_the_check():
    old = "# dralint: kubernetes-version=1.35\n" + CLAIM
    result = migrate_text("c.yaml", old)
    assert result.new == "# dralint: kubernetes-version=1.35\n" + CLAIM_V1
    assert result.changes == []


def test_pin_is_left_alone_when_nothing_was_migrated():
    old = "# dralint: kubernetes-version=1.32\n" + CLAIM.replace("deviceClassName", "deviceClasName")
    result = migrate_text("c.yaml", old)
    assert result.new == old and result.migrated == [] and result.changes == []


# ---------------------------------------------------------------- time grows with the size, not its square


def _alarm(seconds: int):
    def expired(signum, frame):
        raise TimeoutError(f"migrate took more than {seconds} s")

    signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)


def test_long_comment_runs_are_migrated_whole_and_in_bounded_time():
    # 40,000 comment lines took minutes (a quadratic line diff and ruamel.yaml's comment joining).
    # Speed is measured by bench/bench_migrate.py; this only guards against the hang.
    pad = "# pad\n" * 40000
    old = CLAIM.replace("metadata:\n", "metadata:\n" + pad) + pad
    _alarm(30)
    try:
        result = migrate_text("c.yaml", old)
        diff = list(unified_diff(old.splitlines(True), result.new.splitlines(True), "a", "b"))
    finally:
        signal.alarm(0)
    assert result.failed == []
    assert result.new == CLAIM_V1.replace("metadata:\n", "metadata:\n" + pad) + pad
    assert sum(1 for line in diff if line.startswith("@@")) == 2


def test_line_alignment_agrees_with_what_it_aligns():
    rnd = random.Random(9)
    for _ in range(400):
        a = [rnd.choice("abcdef") + "\n" for _ in range(rnd.randint(0, 40))]
        b = list(a)
        for _ in range(rnd.randint(0, 8)):
            at = rnd.randint(0, len(b))
            if rnd.random() < 0.4 and b:
                del b[min(at, len(b) - 1)]
            else:
                b.insert(at, rnd.choice("abxyz") + "\n")
        rebuilt = []
        for tag, i1, i2, j1, j2 in opcodes(a, b):
            if tag == "equal":
                assert a[i1:i2] == b[j1:j2]
            rebuilt.extend(b[j1:j2])
        assert rebuilt == b


def test_comment_like_lines_inside_scalars_keep_their_content():
    # Long runs of `#` lines are handed to ruamel.yaml as one placeholder; inside a scalar they are text, not comments.
    script = "".join(f"      # step {i}\n" for i in range(20))
    quoted = "".join(f"    # q {i}\n" for i in range(20))
    old = (
        "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata:\n  name: c\n  annotations:\n"
        f"    script: |\n{script}      echo done\n"
        f'    note: "first\n{quoted}    last"\n'
        "spec:\n  devices:\n    requests:\n    - name: gpu\n      deviceClassName: gpu.example.com\n"
    )
    result = migrate_text("c.yaml", old)
    assert result.failed == []
    assert f"    script: |\n{script}      echo done\n" in result.new  # byte for byte
    safe = YAML(typ="safe", pure=True)
    before, after = safe.load(old), safe.load(result.new)
    assert after["metadata"] == before["metadata"]
    assert after["spec"]["devices"]["requests"] == [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]
