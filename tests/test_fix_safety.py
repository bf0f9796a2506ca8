"""`dralint --fix` writes as `dralint migrate --write` does: whole, atomically, only a file still as it was read,
never through a hard link unless asked, in the file's own line breaks; a file it cannot write is a problem
of that file (DRA016) and the run goes on."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from conftest import run_dralint

# Flat v1beta1-style fields in a v1 request: the DRA304 fix moves them under a new `exactly:` line.
FLAT = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      count: 2
"""
FIXED = """\
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
        count: 2
"""
NOT_FIXED = "DRA304 request-needs-device"


def _fix(*args: str, cwd: Path):
    return run_dralint("--no-config", "--fix", "--ignore", "DRA713", *args, cwd=cwd)


def _two_files(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(FLAT)
    second.write_text(FLAT)
    return first, second


def test_a_file_saved_during_the_run_is_not_overwritten_and_the_next_is_fixed(tmp_path):
    # A rule of the run plays the editor: it saves a.yaml (once) while --fix lints it.
    first, second = _two_files(tmp_path)
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "editor.py").write_text(textwrap.dedent(f'''\
        import os

        from dralint.api import rule

        TARGET = {str(first)!r}


        @rule("EDIT001", "editor-saves", kinds={{"ResourceClaim"}})
        def saves(doc, report):
            """Appends a line to a.yaml the first time it is linted, as an editor's save would."""
            if doc.source.endswith("a.yaml") and not os.path.exists(TARGET + ".saved"):
                open(TARGET + ".saved", "w").close()
                with open(TARGET, "a") as handle:
                    handle.write("# saved by an editor\\n")
    '''))
    run = _fix("--rules-dir", str(rules), "a.yaml", "b.yaml", cwd=tmp_path)
    assert first.read_text() == FLAT + "# saved by an editor\n"  # the editor's save is kept
    assert second.read_text() == FIXED
    assert run.stderr.splitlines()[0] == "dralint: fixed b.yaml"
    assert "a.yaml:1:1: error: its fixes were not applied: the file changed after it was read, or was not read whole; " \
        "not written [DRA016 fix-not-written]" in run.stdout
    assert run.code == 1, run.stdout + run.stderr


def test_a_hard_linked_file_is_refused_unless_the_link_may_break(tmp_path):
    target, other = tmp_path / "a.yaml", tmp_path / "other-name.yaml"
    target.write_text(FLAT)
    os.link(target, other)

    refused = _fix("a.yaml", cwd=tmp_path)
    assert refused.code == 1
    assert "a.yaml:1:1: error: its fixes were not applied: the file has 2 hard links; an atomic rewrite would leave its other names " \
        "with the old content, so it is not written (pass --break-hard-links to rewrite this name only) [DRA016 fix-not-written]" in refused.stdout
    assert NOT_FIXED in refused.stdout  # what was not fixed is still reported
    assert target.read_text() == FLAT and target.stat().st_nlink == 2

    broken = _fix("--break-hard-links", "a.yaml", cwd=tmp_path)
    assert broken.code == 0, broken.stdout + broken.stderr
    assert broken.stderr.splitlines()[:2] == ["dralint: fixed a.yaml", "dralint: a.yaml: hard link broken: the file's 1 other name(s) keep the old content"]
    assert target.read_text() == FIXED and other.read_text() == FLAT
    assert target.stat().st_nlink == 1

    usage = run_dralint("--no-config", "--break-hard-links", "a.yaml", cwd=tmp_path)
    assert usage.code == 2 and "--break-hard-links only applies with --fix" in usage.stderr


def test_a_file_that_cannot_be_written_is_a_problem_of_its_file_and_the_run_goes_on(tmp_path):
    # No temporary file can be made beside a file whose name leaves no room for the temporary name's
    # affixes (NAME_MAX is 255 bytes): a write that fails for root too.
    long_name = "c" * 240 + ".yaml"
    stuck, second = tmp_path / long_name, tmp_path / "b.yaml"
    stuck.write_text(FLAT)
    second.write_text(FLAT)
    run = _fix(long_name, "b.yaml", cwd=tmp_path)
    assert run.code == 1, run.stderr
    assert f"{long_name}:1:1: error: its fixes were not applied: cannot write (File name too long); the file is unchanged [DRA016 fix-not-written]" in run.stdout
    assert f"{long_name}:8:7: error: request has neither 'exactly' nor 'firstAvailable'" in run.stdout
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr
    assert "1 file" not in run.stderr and run.stderr.splitlines()[-1].startswith("2 files, 2 documents: 2 errors")
    assert stuck.read_text() == FLAT and second.read_text() == FIXED


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_for_real(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "a.yaml").write_text(FLAT)
    (tmp_path / "b.yaml").write_text(FLAT)
    ro.chmod(0o555)
    try:
        run = _fix("ro/a.yaml", "b.yaml", cwd=tmp_path)
    finally:
        ro.chmod(0o755)
    assert run.code == 1, run.stderr
    assert f"ro/a.yaml:1:1: error: its fixes were not applied: cannot create a file in {ro} (permission denied)" in run.stdout
    assert (ro / "a.yaml").read_text() == FLAT and (tmp_path / "b.yaml").read_text() == FIXED


def test_a_crlf_file_gets_crlf_lines(tmp_path):
    target = tmp_path / "a.yaml"
    target.write_bytes(FLAT.replace("\n", "\r\n").encode())
    run = _fix("a.yaml", cwd=tmp_path)
    assert run.code == 0, run.stdout + run.stderr
    assert target.read_bytes() == FIXED.replace("\n", "\r\n").encode()
