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
