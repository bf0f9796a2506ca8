"""The console script (dralint.console): start-up runs without the cyclic collector, the work with it.

These run the installed console script as a new process, not a forked one (conftest.run_dralint forks
from a server that has imported everything already): what is checked is the process's own start.
"""

import gc
import os
import subprocess
import sys

from dralint.cli import main

from conftest import dralint_exe

# A --rules-dir rule that says in its message whether the collector was on when its module loaded (start-up)
# and when it judges (the work), and whether it judges in a --jobs worker.
COLLECTOR_RULE = '''\
import gc
import multiprocessing
import os

from dralint.api import rule

AT_IMPORT = gc.isenabled()
ON = {True: "on", False: "off"}


@rule("LOCAL001", "collector", severity="info", kinds={"ResourceClaim"})
def collector(doc, report):
    """Says whether the cyclic collector was on when this module loaded and when it judges (also in judged.log)."""
    where = "a worker" if multiprocessing.parent_process() is not None else "the command"
    with open(os.path.join(os.path.dirname(__file__), "judged.log"), "a") as log:
        log.write(f"{ON[gc.isenabled()]}\\n")
    report(("metadata", "name"), f"loaded with the collector {ON[AT_IMPORT]}, judging with it {ON[gc.isenabled()]} in {where}")
'''

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""
ENV = {**os.environ, "DRALINT_NO_CACHE": "1"}


def _console(tmp_path, *args: str) -> list[str]:
    """The rule's problems; each judgement's collector state is in rules/judged.log."""
    rules = tmp_path / "rules"
    rules.mkdir(exist_ok=True)
    (rules / "collector.py").write_text(COLLECTOR_RULE)
    run = subprocess.run([*dralint_exe(), "--no-config", "--no-cache", "--rules-dir", str(rules), "-f", "text", *args],
                         capture_output=True, text=True, cwd=tmp_path, timeout=60, env=ENV)
    assert run.returncode == 0, run.stderr
    return [line for line in run.stdout.splitlines() if "LOCAL001" in line]


def test_start_up_runs_without_the_collector_and_a_serial_lint_with_it(tmp_path):
    (tmp_path / "claim.yaml").write_text(CLAIM)
    assert _console(tmp_path, "claim.yaml") == [
        "claim.yaml:4:9: info: loaded with the collector off, judging with it on in the command (at metadata.name) [LOCAL001 collector]"
    ]


def test_the_workers_of_a_parallel_lint_judge_with_the_collector_on(tmp_path):
    # Two files of 267 kB (a long comment above the claim): past dralint.pipeline.parallel.MIN_BYTES, so they go to workers.
    padding = ("# " + "x" * 78 + "\n") * 3300
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(padding + CLAIM)
    message = "info: loaded with the collector off, judging with it on in a worker (at metadata.name) [LOCAL001 collector]"
    assert _console(tmp_path, "--jobs", "2", "a.yaml", "b.yaml") == [f"a.yaml:3304:9: {message}", f"b.yaml:3304:9: {message}"]


def test_a_fix_run_fixes_with_the_collector_on(tmp_path):
    (tmp_path / "claim.yaml").write_text(CLAIM)
    assert _console(tmp_path, "--fix", "claim.yaml") == [
        "claim.yaml:4:9: info: loaded with the collector off, judging with it on in the command (at metadata.name) [LOCAL001 collector]"
    ]
    # Judged while the fixes are sought, then for the report.
    assert (tmp_path / "rules" / "judged.log").read_text() == "on\non\n"


def test_the_command_line_called_in_process_leaves_the_collector_as_the_host_has_it(tmp_path, capsys):
    claim = tmp_path / "claim.yaml"
    claim.write_text(CLAIM)
    was = gc.isenabled()
    try:
        for host_has_it in (False, True):
            (gc.enable if host_has_it else gc.disable)()
            assert main(["--no-config", "--no-cache", "-f", "json", str(claim)]) == 0
            assert gc.isenabled() is host_has_it
    finally:
        (gc.enable if was else gc.disable)()
    assert '"problems"' in capsys.readouterr().out


def test_python_dash_m_dralint_is_the_console_script(tmp_path):
    (tmp_path / "claim.yaml").write_text(CLAIM)
    run = subprocess.run([sys.executable, "-m", "dralint", "--no-config", "--no-cache", "-f", "text", "claim.yaml"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=60, env=ENV)
    assert (run.returncode, run.stdout.splitlines()) == (0, [
        "claim.yaml:11:26: info: DeviceClass 'gpu.example.com' is not defined in the linted files; it must be installed in the cluster"
        " (at spec.devices.requests[0].exactly.deviceClassName) [DRA713 device-class-unresolved]"
    ])
