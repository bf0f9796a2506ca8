"""A file's partial result (dralint.pipeline.partial) is a value: taken file by file, pickled (as a worker or a
cache sends it) and merged back, it gives the report one serial run gives, in every format."""

from __future__ import annotations

import pickle

from dralint.pipeline.run import PartialResult, _Run
from dralint.pipeline.sources import files, read_all

import cases_reference as reference
from conftest import CASES


def _file_by_file(options, paths=(str(CASES),)):
    checking, judging = _Run(options), _Run(options)
    parts = 0
    for source in read_all(files(list(paths))):
        checking.check_source(source)
        partial = pickle.loads(pickle.dumps(checking.take_partial()))
        assert isinstance(partial, PartialResult) and partial.result.files == 1
        judging.absorb(partial)
        parts += 1
    assert checking.result.files == 0  # every file's contribution was taken
    return judging.finish(), parts


def test_file_partials_merged_give_the_serial_report():
    serial, reports = reference.serial((str(CASES),))
    merged, parts = _file_by_file(reference.options())
    assert parts == serial.files > 100
    assert reference.reports(merged) == reports
    text = reports["text"]
    assert "DRA712" in text and "DRA900" in text  # a run-scope rule and an unused suppression, judged at the end


def test_ignore_paths_are_judged_over_every_file_partial(tmp_path_factory):
    config = reference.ignore_config(tmp_path_factory.getbasetemp())
    _, reports = reference.serial(reference.IGNORE_FOLDERS, config)
    merged, parts = _file_by_file(reference.options(config), reference.IGNORE_FOLDERS)
    assert parts == 14
    assert reference.reports(merged) == reports
    lines = reports["text"].splitlines()
    unused = [line for line in lines if "unused config ignore" in line]
    assert len(unused) == 1 and "ignore-paths[1]" in unused[0]  # used by no file: judged once, over all partials
    pods = [line for line in lines if "/pods/" in line.split(":")[0]]
    assert pods and "DRA712" not in "\n".join(pods)


def test_a_partial_merges_into_an_empty_one_unchanged():
    run = _Run(reference.options())
    for source in read_all(files([str(CASES / "pods")])):
        run.check_source(source)
    taken = run.take_partial()
    empty = PartialResult()
    empty.merge(taken)
    assert empty.result.problems == taken.result.problems and empty.result.files == taken.result.files == 7
    assert empty.records == taken.records and set(empty.first) == set(taken.first) and empty.records


def test_a_pickled_problem_keeps_every_slot():
    """Problems pickle as their slots (model.Problem.__reduce__): fixes and the origin of a rendered stream's
    problem come back too, and the copy is a Problem equal to the original."""
    from dralint.model import Edit, Fix, Problem, Severity, Span

    problem = Problem("DRA101", "unknown-field", Severity.ERROR, "unknown field", "a.yaml", 2, ("spec", 0), Span(3, 4, 3, 9),
                      "resource.k8s.io/v1", "ResourceClaim", "ns/name", "FieldValueNotFound")
    problem.fixes = [Fix("drop it", (Edit(Span(3, 1, 4, 1), ""),))]
    problem.origin = ("b.yaml", 7)
    copy = pickle.loads(pickle.dumps(problem, pickle.HIGHEST_PROTOCOL))
    assert type(copy) is Problem and copy == problem
    assert [getattr(copy, name) for name in Problem.__slots__] == [getattr(problem, name) for name in Problem.__slots__]
    assert copy.fixes == problem.fixes and copy.origin == ("b.yaml", 7)


def test_the_named_tuples_a_partial_holds_pickle_as_their_class_and_fields():
    """Spans, edits, fixes, places and the pod-reference records pickle as class and fields (model.fields_reduce):
    every field comes back, nested ones with their own class, through any protocol a worker or the cache uses."""
    from dralint.api import Place
    from dralint.model import Edit, Fix, Span, fields_reduce
    from dralint.rules.pod_references import _Object

    span = Span(3, 4, 3, 9)
    place = Place("a.yaml", 2, 1, ("spec", 0), span, "resource.k8s.io/v1", "ResourceClaim", "ns/name")
    record = _Object("ResourceClaim", "name", "ns", "a.yaml", ((place, "ResourceClaim", "x"),), (), (_Object(None, None, None, "k.yaml", (), ()),))
    values = [span, Edit(span, "text"), Fix("drop it", (Edit(span, ""),)), place, record, Place("b.yaml", 0, None, (), span)]
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        copies = pickle.loads(pickle.dumps(values, protocol))
        assert copies == values
        assert [type(c) for c in copies] == [type(v) for v in values]
        assert type(copies[3].at) is Span and type(copies[4].pod_refs[0][0]) is Place and type(copies[4].context[0]) is _Object
    assert all(type(v).__reduce__ is fields_reduce for v in values)
