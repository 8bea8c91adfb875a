"""The ir_measures drop-in's public surface, and register(), against ir_measures 0.4.3 (issue 35).

- ``sys.modules["ir_measures"]`` set to the drop-in: code written for
  ir_measures imports its names, modules and submodules;
- measure objects print, compare and hash as ir_measures' do; parse_measure,
  parse_trec_measure, the readers and converters give what ir_measures' give;
- ``SetF(beta=x)`` equals ir_measures to the last bit;
- after ``register()``, ir_measures is never worse than without it: an empty
  run scores 0, a run rankwise cannot read is evaluated by ir_measures' own
  providers, the values are ir_measures' own.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rankwise.compat import ir_measures as drop_in

irm = pytest.importorskip("ir_measures")

SRC = Path(drop_in.__file__).parents[3]
QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": -1}, "q2": {"d5": 1, "d6": 0},
         "q3": {"d7": 1}, "q4": {}}
RUN = {"q1": {"d1": 0.5, "d2": 0.9, "d3": 0.5, "x": 0.1}, "q2": {"d6": 1.0, "y": 0.2},
       "q9": {"d1": 1.0}}


def every_variant() -> list[tuple[object, object]]:
    """(ir_measures' measure, the drop-in's), for every name with a few parameter sets."""
    out = []
    for name, measure in irm.measures.registry.items():
        ours = drop_in.measures.registry[name]
        out.append((measure, ours))
        for params in ({"cutoff": 10}, {"rel": 2}, {"cutoff": 5, "rel": 2}, {"max_rel": 3},
                       {"gains": {1: 2, 0: 1}}, {"recall": 0.5}, {"p": 0.5}, {"beta": 2.0}):
            if set(params) <= set(measure.SUPPORTED_PARAMS):
                out.append((measure(**params), ours(**params)))
    return out


def test_measure_objects_print_compare_and_hash_as_ir_measures() -> None:
    assert set(drop_in.measures.registry) == set(irm.measures.registry)
    for theirs, ours in every_variant():
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
        assert hash(ours) == hash(theirs) and ours == theirs
        assert ours.AT_PARAM == theirs.AT_PARAM and ours.NAME == theirs.NAME
        assert set(ours.SUPPORTED_PARAMS) == set(theirs.SUPPORTED_PARAMS)
        for key, info in theirs.SUPPORTED_PARAMS.items():
            mine = ours.SUPPORTED_PARAMS[key]
            assert (mine.dtype, mine.required, mine.default == info.default) == (
                info.dtype, info.required, True) or info.default is not mine.default
        assert drop_in.parse_measure(repr(theirs)) == ours
        assert type(ours.aggregator()).__name__ == type(theirs.aggregator()).__name__


@pytest.mark.parametrize("text", ["map", "P_5,10", "ndcg_cut", "set_F.1.0,0.5,2.4",
                                  "iprec_at_recall", "success", "official", "recall.5"])
def test_trec_names_as_ir_measures_reads_them(text: str) -> None:
    assert drop_in.parse_trec_measure(text) == irm.parse_trec_measure(text)


@pytest.mark.parametrize("text", ["Rndcg", "nothing_like_it", "map_cut_x"])
def test_trec_names_ir_measures_refuses(text: str) -> None:
    with pytest.raises(ValueError) as theirs:
        irm.parse_trec_measure(text)
    with pytest.raises(ValueError) as ours:
        drop_in.parse_trec_measure(text)
    assert str(ours.value) == str(theirs.value)


def test_readers_and_records(tmp_path: Path) -> None:
    text = "q1 0 d1 2\nq1 1 d2 0\n\nq2 0 d3 1\n"
    assert list(drop_in.read_trec_qrels(text)) == list(irm.read_trec_qrels(text))
    run = "q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\n"
    path = tmp_path / "run.txt"
    path.write_text(run)
    assert list(drop_in.read_trec_run(str(path))) == list(irm.read_trec_run(str(path)))
    assert drop_in.Qrel("q", "d", 1) == irm.Qrel("q", "d", 1)
    assert drop_in.ScoredDoc._fields == irm.ScoredDoc._fields
    assert drop_in.Metric._fields == irm.Metric._fields
    assert drop_in.CwlMetric._fields == irm.CwlMetric._fields


def test_set_f_to_the_last_bit() -> None:
    """SetF(beta=2) was 0.29999999999999993 where ir_measures gives 0.30000000000000004: beta
    squared taken as sqrt(2) squared, 2.0000000000000004."""
    qrels = {f"q{i}": {f"d{j}": 1 for j in range(i % 7 + 1)} for i in range(40)}
    run = {f"q{i}": {f"d{j}": 1.0 / (j + 1) for j in range(0, 2 * (i % 5) + 1, 2)}
           for i in range(40)}
    for beta in (2.0, 0.5, 2.4, 3.0):
        want = {m.query_id: m.value for m in irm.iter_calc([irm.SetF(beta=beta)], qrels, run)}
        got = {m.query_id: m.value
               for m in drop_in.iter_calc([drop_in.SetF(beta=beta)], qrels, run)}
        assert got == want, beta  # bit for bit


def test_the_drop_in_as_the_ir_measures_module() -> None:
    """A script written for ir_measures, with sys.modules["ir_measures"] set to the drop-in."""
    script = textwrap.dedent("""
        import sys
        from rankwise.compat import ir_measures as drop_in
        sys.modules["ir_measures"] = drop_in
        import ir_measures
        from ir_measures import nDCG, P, SDCG, NERR8, Qrel, Metric
        from ir_measures.measures import BaseMeasure
        from ir_measures.measures.accuracy import Accuracy
        from ir_measures.providers.base import Any, Choices
        from ir_measures.util import QrelsConverter
        assert ir_measures is drop_in and isinstance(nDCG, BaseMeasure)
        qrels = [Qrel("1", "a", 2), Qrel("1", "b", 0), Qrel("2", "c", 1)]
        run = {"1": {"a": 0.1, "b": 0.9, "x": 0.5}, "2": {"c": 1.0}}
        print(ir_measures.calc_aggregate([nDCG@10, P@2, SDCG(max_rel=2)@2,
                                          NERR8(max_rel=2)@2, Accuracy], qrels, run))
        print(QrelsConverter(qrels).as_dict_of_dict())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}, check=True)
    lines = done.stdout.splitlines()
    qrels = [irm.Qrel("1", "a", 2), irm.Qrel("1", "b", 0), irm.Qrel("2", "c", 1)]
    run = {"1": {"a": 0.1, "b": 0.9, "x": 0.5}, "2": {"c": 1.0}}
    want = irm.calc_aggregate([irm.nDCG @ 10, irm.P @ 2], qrels, run)
    assert lines[0].startswith(f"{{nDCG@10: {want[irm.nDCG @ 10]}, P@2: {want[irm.P @ 2]}, ")
    assert lines[1] == str(irm.util.QrelsConverter(qrels).as_dict_of_dict())


@pytest.fixture
def registered() -> object:
    provider = drop_in.register()
    yield provider
    drop_in.unregister()


def rows(metrics: object) -> list:
    return sorted(((m.query_id, str(m.measure), m.value, type(m)) for m in metrics),
                  key=lambda row: row[:2])


def unregistered(call: object) -> object:
    drop_in.unregister()
    try:
        return call()
    finally:
        drop_in.register()


@pytest.mark.parametrize("empty", [[], {}, iter([])])
def test_register_an_empty_run_scores_zero_as_ir_measures(registered: object,
                                                          empty: object) -> None:
    """Before: register() made ir_measures.iter_calc raise on an empty run (PyTerrier's
    results of a query set that retrieved nothing)."""
    measures = [irm.P @ 5, irm.nDCG @ 10, irm.AP]
    want = unregistered(lambda: rows(irm.iter_calc(measures, QRELS, [])))
    got = rows(irm.iter_calc(measures, QRELS, empty))
    assert got == want and {row[2] for row in got} == {0.0}
    assert irm.calc_aggregate(measures, QRELS, []) == unregistered(
        lambda: irm.calc_aggregate(measures, QRELS, []))


def test_register_gives_ir_measures_values_and_rows(registered: object) -> None:
    measures = [irm.P @ 2, irm.nDCG @ 10, irm.RR @ 10, irm.Judged @ 2, irm.AP, irm.NumRel,
                irm.SetF(beta=2.0), irm.Compat(p=0.8)]
    for measure in measures:
        want = unregistered(lambda m=measure: rows(irm.iter_calc([m], QRELS, RUN)))
        assert rows(irm.iter_calc([measure], QRELS, RUN)) == want, measure


def test_register_falls_back_on_what_rankwise_cannot_read(registered: object) -> None:
    """A run naming a document twice: ir_measures keeps the last score; rankwise refuses such
    a run, so ir_measures' own providers evaluate it."""
    run = [irm.ScoredDoc("q1", "d1", 0.1), irm.ScoredDoc("q1", "d2", 0.5),
           irm.ScoredDoc("q1", "d1", 0.9)]
    want = unregistered(lambda: irm.calc_aggregate([irm.P @ 1, irm.RR], QRELS, list(run)))
    assert irm.calc_aggregate([irm.P @ 1, irm.RR], QRELS, iter(run)) == want
    # and what rankwise does not take at all: a measure defined in Python
    size = irm.define_byquery(lambda qrels, run: float(len(run)), name="Size")
    want = unregistered(lambda: irm.calc_aggregate([size, irm.P @ 1], QRELS, RUN))
    assert irm.calc_aggregate([size, irm.P @ 1], QRELS, RUN) == want


def test_register_takes_what_ir_measures_has_no_provider_for_here(registered: object) -> None:
    """cwl_eval is not installed here: rankwise computes SDCG, NERR and INST as it would."""
    value = irm.calc_aggregate([irm.SDCG(max_rel=2) @ 5], QRELS, RUN)[irm.SDCG(max_rel=2) @ 5]
    ours = drop_in.cwl_eval.calc_aggregate([drop_in.SDCG(max_rel=2) @ 5], QRELS, RUN)
    assert value == ours[drop_in.SDCG(max_rel=2) @ 5]
