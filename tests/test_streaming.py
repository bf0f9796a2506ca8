"""Streaming (issue 12): a file's documents are let go once it is checked; what the run keeps per file
is small (run-scope records with their positions), so memory does not grow with the repository.

Measured with tracemalloc, in process: the peak of the bytes allocated while linting N and 4N
generated files, per extra file. A legacy run-scope rule (given every document) is the control: it must show
the growth this test is there to catch.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from dralint.api import Place, RunIndex, rule
from dralint.lint import LintOptions, lint
from dralint.model import Document, MapKey
from dralint.pipeline.parallel import frozen
from dralint.pipeline.selection import Selection
from dralint.pipeline.sources import collect

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim-{i}
  namespace: team-{team}
  labels:
    app: trainer-{i}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        count: 1
"""
CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"


def _files(root: Path, count: int) -> str:
    root.mkdir(parents=True)
    for i in range(count):
        (root / f"c{i:05}.yaml").write_text(CLAIM.format(i=i, team=i % 7))
    (root / "class.yaml").write_text(CLASS)
    return str(root)


def _peak_bytes(folder: str, options: LintOptions) -> int:
    """Peak of the bytes allocated during a CLI-style run (settled, frozen) over `folder`."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = lint(frozen(collect([folder])), options)
        gc.collect()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
        gc.unfreeze()
    assert result.problems == [] and result.files > 1
    return peak


def _per_extra_file(tmp_path: Path, options: LintOptions, n: int = 25) -> float:
    small, large = _files(tmp_path / "small", n), _files(tmp_path / "large", 4 * n)
    lint(collect([small]), options)  # warm: imports, schema and rule caches
    return (_peak_bytes(large, options) - _peak_bytes(small, options)) / (3 * n)


def _legacy_run_rule() -> object:
    @rule("XX900", "every-document", scope="run")
    def every_document(run, report):
        """A legacy run-scope rule: gets a RunView of every document, so every document is kept."""

    return every_document.__dralint_rule__  # type: ignore[attr-defined]


MEASURE = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import test_streaming as t
from dralint.lint import LintOptions
root = Path(sys.argv[2])
print(t._per_extra_file(root / "a", LintOptions(keep=())))
print(t._per_extra_file(root / "b", LintOptions(keep=(), extra_rules=[t._legacy_run_rule()])))
"""


def test_memory_per_file_stays_small_and_documents_are_not_kept(tmp_path):
    # In a fresh interpreter, as a command-line run: what earlier tests left in this process's
    # caches (and in xdist, which tests ran before) moved the figure by ~60 %.
    run = subprocess.run([sys.executable, "-c", MEASURE, str(Path(__file__).parent), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    streamed, retained = (float(line) for line in run.stdout.split())
    # Kept per file (~1.1 KB measured): its name (sources.files) and DRA713's record of the claim, with a Place;
    # a legacy run rule that keeps every document measures ~5.3 KB (its view's memo is let go after its rules).
    assert streamed < 1500, streamed
    # The control: a run that keeps its documents grows by several KiB a document.
    assert retained > 3 * 1500, retained


def test_problems_are_positioned_before_their_documents_go(tmp_path):
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "a.yaml").write_text(CLAIM.format(i="X_", team=1))
    (folder / "b.yaml").write_text(CLASS.replace("gpu.example.com", "gpu.example.co"))
    result = lint(collect([str(folder)]), LintOptions(keep=("fixes",)))
    brief = [(p.rule, p.source.rsplit("/", 1)[-1], p.span.line, p.span.column, p._where) for p in result.problems]
    assert brief == [
        ("DRA202", "a.yaml", 4, 9, None),
        ("DRA205", "a.yaml", 7, 10, None),
        ("DRA713", "a.yaml", 13, 26, None),
    ]
    assert f"did you mean 'gpu.example.co' ({folder / 'b.yaml'})?" in result.problems[2].message
    assert result.texts == {} and result.objects == [] and result.source_names == []
    assert not any(callable(p._fixes) for p in result.problems)  # built, not a closure over the document


COLLECTED = textwrap.dedent("""\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: {name}
    data:
      peer: {peer}
""")


def _peers(view):
    if view.kind != "ConfigMap":
        return None
    peer = view.get("data", "peer", type=str)
    return view.name, view.place(("data", "peer")) if peer else None, peer


@rule("XX901", "configmap-peer", scope="run", collect=_peers)
def configmap_peer(run, report):
    """A ConfigMap's data.peer names another ConfigMap of the run."""
    assert isinstance(run, RunIndex)
    names = {name for name, _, _ in run}
    for _name, place, peer in run:
        if place is not None and peer not in names:
            assert isinstance(place, Place)
            report(place, f"no ConfigMap {peer!r} in the run", error_type="NotFound")


def test_a_plugin_run_rule_reports_at_the_places_it_collected(tmp_path):
    (tmp_path / "a.yaml").write_text(COLLECTED.format(name="a", peer="b"))
    (tmp_path / "b.yaml").write_text("# leading comment\n" + COLLECTED.format(name="b", peer="c"))
    result = lint(collect([str(tmp_path)]), LintOptions(keep=(), extra_rules=[configmap_peer.__dralint_rule__]))
    assert [(p.rule, p.source.rsplit("/", 1)[-1], p.path, p.span.line, p.span.column, p.kind, p.object, p.error_type, p.message)
            for p in result.problems] == [
        ("XX901", "b.yaml", ("data", "peer"), 7, 9, "ConfigMap", "b", "NotFound", "no ConfigMap 'c' in the run (NotFound)"),  # report() writes the type
    ]


def _label_places(view):
    # The same field twice: once as a map key (printed `[peer]`), once as a plain name (`.peer`).
    return view.place(("metadata", "labels", MapKey("peer"))), view.place(("metadata", "labels", "peer"))


@rule("XX904", "label-places", scope="run", collect=_label_places)
def label_places(run, report):
    """Reports at both places of every record."""
    for as_key, as_name in run:
        report(as_key, "as a map key")
        report(as_name, "as a name")


def test_a_place_keeps_map_keys_in_its_path(tmp_path):
    (tmp_path / "a.yaml").write_text(COLLECTED.format(name="a", peer="b"))
    result = lint(collect([str(tmp_path)]), LintOptions(keep=(), extra_rules=[label_places.__dralint_rule__]))
    assert sorted((p.message, p.path_text) for p in result.problems) == [
        ("as a map key", "metadata.labels[peer]"), ("as a name", "metadata.labels.peer")]


def test_collect_is_only_for_run_rules():
    with pytest.raises(ValueError, match="collect is for scope='run' rules"):
        rule("XX902", "x", collect=_peers)


def _broken_collect(view):
    if view.name == "b":
        raise KeyError("no peer")
    return view.name


@rule("XX903", "broken-collect", scope="run", collect=_broken_collect)
def broken_check(run, report):
    """Fails while judging, after a collector that failed on one document."""
    raise RuntimeError(f"{len(run)} records")


def test_a_failing_collector_or_run_rule_is_dra901_and_the_rest_still_runs(tmp_path):
    (tmp_path / "a.yaml").write_text(COLLECTED.format(name="a", peer="b"))
    (tmp_path / "b.yaml").write_text("# leading comment\n" + COLLECTED.format(name="b", peer="zz"))
    rules = [broken_check.__dralint_rule__, configmap_peer.__dralint_rule__]
    result = lint(collect([str(tmp_path)]), LintOptions(keep=(), extra_rules=rules, selection=Selection(select=["XX", "DRA901"])))
    assert [(p.rule, p.source.rsplit("/", 1)[-1], p.span.line, p.span.column, p.message) for p in result.problems] == [
        ("DRA901", "a.yaml", 1, 1, "rule XX903 (broken-collect) failed: RuntimeError: 1 records"),
        ("DRA901", "b.yaml", 2, 1, "rule XX903 (broken-collect) failed: KeyError: 'no peer'"),
        ("XX901", "b.yaml", 7, 9, "no ConfigMap 'zz' in the run (NotFound)"),
    ]


def test_runs_that_keep_their_documents_position_only_what_is_reported(tmp_path, monkeypatch):
    located: list[tuple] = []
    real = Document.locate
    monkeypatch.setattr(Document, "locate", lambda self, path, **kw: located.append(path) or real(self, path, **kw))
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "a.yaml").write_text(CLAIM.format(i="x", team=1))
    (folder / "b.yaml").write_text(CLASS)
    assert lint(collect([str(folder)]), LintOptions()).problems == []  # keep=None: the Python API, the language server
    assert located == []  # the class reference was collected, never positioned
    (folder / "b.yaml").unlink()
    [problem] = lint(collect([str(folder)]), LintOptions()).problems
    assert (problem.rule, problem.span.line, problem.span.column) == ("DRA713", 13, 26)
    assert located == [("spec", "devices", "requests", 0, "exactly", "deviceClassName")]
