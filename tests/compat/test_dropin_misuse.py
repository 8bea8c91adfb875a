"""Misuse of the drop-ins: a clear error where data would be lost, one measure read as one."""

from __future__ import annotations

import pytest

from rankwise.exceptions import InputFormatError, InvalidParameterError

QRELS = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
RUN = {"q1": {"d1": 0.5, "d2": 0.4}, "q2": {"d3": 1.0, "d4": 0.2}}


def test_ranx_add_with_fewer_values_than_documents() -> None:
    """ranx raises IndexError; the drop-in zipped the lists and lost d2."""
    from rankwise.compat import ranx as rx

    qrels = rx.Qrels()
    with pytest.raises(InputFormatError, match="query 'q1': 2 document ids and 1 value"):
        qrels.add("q1", ["d1", "d2"], [1])
    qrels.add("q1", ["d1", "d2"], [1, 0])
    assert dict(qrels.to_dict()) == {"q1": {"d1": 1, "d2": 0}}


def test_ranx_fuse_of_plain_dicts() -> None:
    from rankwise.compat import ranx as rx

    with pytest.raises(InvalidParameterError, match="run 0 is a dict: wrap it as Run"):
        rx.fuse([{"q1": {"d1": 1.0}}, {"q1": {"d2": 1.0}}], method="rrf")


def test_ir_measures_one_measure_not_in_a_list() -> None:
    """ir_measures reads a string letter by letter (and fails); the drop-in reads the measure."""
    from rankwise.compat import ir_measures as im

    expected = im.calc_aggregate([im.nDCG @ 10], QRELS, RUN)[im.nDCG @ 10]
    assert im.calc_aggregate("nDCG@10", QRELS, RUN) == {"nDCG@10": expected}
    assert im.calc_aggregate(im.nDCG @ 10, QRELS, RUN) == {im.nDCG @ 10: expected}


def test_ir_measures_counts_are_floats_and_empty_rankings_count() -> None:
    """A run of empty rankings was an empty run (NumQ 0, the int 0), where ir_measures gives
    NumQ 1.0 and NumRel as pytrec_eval counts it (a review: ir_measures 0.4.3, warm)."""
    from rankwise.compat import ir_measures as im

    qrels = {"0": {"d2": 2, "d27": 1, "d11": 0}}
    got = im.calc_aggregate([im.NumQ, im.AP, im.NumRel], qrels, {"0": {}})
    assert got == {im.NumQ: 1.0, im.AP: 0.0, im.NumRel: 2.0}
    empty = im.calc_aggregate([im.NumQ, im.NumRet], qrels, {})
    assert empty == {im.NumQ: 0.0, im.NumRet: 0.0}
    assert all(type(value) is float for value in empty.values())


def test_ranx_student_p_values_are_numpy_floats() -> None:
    """ranx's Student p-value is scipy's numpy float; the drop-in gave a Python float."""
    import numpy as np

    from rankwise.compat import ranx as rx

    qrels = rx.Qrels({"q1": {"d1": 2, "d2": 1}, "q2": {"d3": 1, "d4": 3}, "q3": {"d1": 1}})
    a = rx.Run({"q1": {"d1": 0.5, "d2": 0.4}, "q2": {"d3": 1.0, "d4": 0.2},
                "q3": {"d1": 0.1, "d2": 0.3}}, name="a")
    b = rx.Run({"q1": {"d1": 0.1, "d2": 0.9}, "q2": {"d3": 0.2, "d4": 0.8},
                "q3": {"d1": 0.9}}, name="b")
    report = rx.compare(qrels, [a, b], ["ndcg@3"], stat_test="student").to_dict()
    p = report["a"]["comparisons"]["b"]["ndcg@3"]
    assert type(p) is np.float64 and p == pytest.approx(0.43826693906729064, abs=1e-12)
