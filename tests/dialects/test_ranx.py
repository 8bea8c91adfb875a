"""dialect=ranx on issue 33's cases: ranx's order of ties, its hits, its bpref without a judged
non-relevant document. The expected numbers are ranx 0.3.21's own (``ranx.evaluate`` on
``Qrels`` and ``Run``; test_ranx_order.py runs ranx itself on thousands of queries)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankwise as rw

TIED_100 = {"q1": {f"d{i:03d}": 1.0 for i in range(100)}}  # d000, given first, is relevant


def test_a_relevant_document_given_first_among_100_tied_lands_where_ranx_puts_it() -> None:
    # ranx: rank 73 (mrr 1/73); rankwise's own rule (docno descending): rank 100
    results = rw.evaluate({"q1": {"d000": 1}}, TIED_100, ["mrr(dialect=ranx)", "mrr"])
    assert results.mean == {"mrr(dialect=ranx)": 1 / 73, "mrr": 1 / 100}
    # a judged query the run misses: ranx needs make_comparable=True, which sorts the run
    # again: rank 2 (ranx: mrr 0.5 for q1, 0 for q2)
    results = rw.evaluate({"q1": {"d000": 1}, "q2": {"x": 1}}, TIED_100, ["mrr(dialect=ranx)"])
    assert results["mrr(dialect=ranx)"].tolist() == [0.5, 0.0]
    # q2 in the run with nothing retrieved: the run holds exactly the judged queries, ranx
    # sorts once (ranx 0.3.21: mrr 1/73 for q1, 0 for q2)
    with_empty = {**TIED_100, "q2": {}}
    results = rw.evaluate({"q1": {"d000": 1}, "q2": {"x": 1}}, with_empty, ["mrr(dialect=ranx)"])
    assert results["mrr(dialect=ranx)"].tolist() == [1 / 73, 0.0]


@pytest.mark.parametrize(("n", "rank"), [(15, 1), (16, 15)])
def test_ranx_keeps_input_order_up_to_15_documents_only(n: int, rank: int) -> None:
    run = {"q1": {f"d{i:03d}": 1.0 for i in range(n)}}
    value = rw.evaluate({"q1": {"d000": 1}}, run, ["mrr(dialect=ranx)"]).mean
    assert value == {"mrr(dialect=ranx)": 1 / rank}  # ranx: 1.0 and 1/15


HITS_QRELS = {"q1": {"d1": 1, "d3": 2, "d5": 1, "d12": 1, "d2": 0}}
HITS_RUN = {"q1": {f"d{i}": 20.0 - i for i in range(1, 15)}}


def test_hits_is_ranx_hits_where_ranx_is_asked_for() -> None:
    measures = ["hits@10(dialect=ranx)", "hit_rate@10(dialect=ranx)", "hits(dialect=ranx)",
                "rel_ret@10", "hit@10"]
    results = rw.evaluate(HITS_QRELS, HITS_RUN, measures)
    # ranx: hits@10 3.0, hit_rate@10 1.0, hits 4.0
    assert results.mean == {"rel_ret@10(dialect=ranx)": 3.0, "hit@10(dialect=ranx)": 1.0,
                            "rel_ret(dialect=ranx)": 4.0, "rel_ret@10": 3.0, "hit@10": 1.0}
    assert [str(rw.parse(m)) for m in measures[:3]] == [
        "rel_ret@10(dialect=ranx)", "hit@10(dialect=ranx)", "rel_ret(dialect=ranx)"]


def test_hits_alone_is_never_silently_one_of_them() -> None:
    with pytest.raises(rw.UnknownMeasureError) as error:
        rw.evaluate(HITS_QRELS, HITS_RUN, ["hits@10"])
    message = str(error.value)
    assert "'hit@10'" in message and "'rel_ret@10'" in message
    assert "'hits@10(dialect=ranx)'" in message and "the hit rate" in message
    with pytest.raises(rw.UnknownMeasureError, match=r"'hit@5'.*'rel_ret@5'"):
        rw.parse("HITS@5")


def test_ranx_names_read_with_ranx_meaning() -> None:
    assert str(rw.parse("ndcg_burges@10(dialect=ranx)")) == "ndcg@10(dialect=ranx,gain=exp)"
    with pytest.raises(rw.MeasureSyntaxError, match="ndcg_burges means gain=exp"):
        rw.parse("ndcg_burges@10(dialect=ranx,gain=linear)")
    with pytest.raises(rw.UnknownMeasureError):  # another dialect: not ranx's name
        rw.parse("hits@10(dialect=trec_eval)")


BPREF_QRELS = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1, "d": 0}, "q3": {"e": 1}}
BPREF_RUN = {"q1": {"a": 1.0, "x": 0.5}, "q2": {"d": 1.0, "c": 0.5}, "q3": {"y": 1.0}}


def test_bpref_without_a_judged_non_relevant_document_is_ranx_nan() -> None:
    results = rw.evaluate(BPREF_QRELS, BPREF_RUN, ["bpref(dialect=ranx)", "bpref"])
    ours = results["bpref(dialect=ranx)"]
    # ranx, each query alone: nan (0/0), 0.0, 0.0 (nothing relevant retrieved); its mean nan
    assert math.isnan(ours[0]) and ours[1:].tolist() == [0.0, 0.0]
    assert math.isnan(results.mean["bpref(dialect=ranx)"])
    assert results.counted("bpref(dialect=ranx)").all()
    # trec_eval: a relevant document with no judged non-relevant above it counts 1: 1/2
    assert results["bpref"].tolist() == [0.5, 0.0, 0.0]


def test_the_training_hooks_order_ties_as_ranx() -> None:
    from rankwise.integrations import evaluate_groups

    labels = np.zeros(40)
    labels[[0, 25]] = [1.0, 2.0]
    measures = ["mrr(dialect=ranx)", "ndcg@10(dialect=ranx)", "hits@20(dialect=ranx)"]
    arrays = evaluate_groups(labels, np.ones(40), np.array([40]), measures)
    # ranx on {"0": {"d00": 1.0, ..., "d39": 1.0}}, d00 and d25 relevant (grades 1, 2)
    ranx = {"mrr(dialect=ranx)": 0.2, "ndcg@10(dialect=ranx)": 0.2940806813328203,
            "rel_ret@20(dialect=ranx)": 1.0}
    assert arrays.mean == pytest.approx(ranx, rel=1e-12)
    run = {"0": {f"d{i:02d}": 1.0 for i in range(40)}}
    qrels = {"0": {"d00": 1, "d25": 2}}
    assert rw.evaluate(qrels, run, measures).mean == pytest.approx(ranx, rel=1e-12)
