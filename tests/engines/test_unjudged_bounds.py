"""``unjudged="bounds"``: every measure with the unjudged documents taken as relevant too."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import collections, diversity_collections

import rankwise as rw
from rankwise.exceptions import InvalidParameterError, UnsupportedMeasureError

EVERY = [
    "P@3", "P@10", "recall@5", "map", "ndcg@5", "ndcg", "mrr", "rbp", "rbp(p=0.5,rel=1)",
    "err@5", "nerr@5", "ncg@5", "compat", "judged@3", "bpref", "Rprec", "hit@2",
    "inst", "insq(quantity=etc)", "bpm(T=2)", "tbg(halflife=5)", "umeasure(L=20,quantity=ed)",
    "alpha_ndcg@5", "err_ia@5", "nrbp", "ap_ia", "p_ia@5", "strec@3",
]


def binary(qrels: dict) -> dict:
    return {q: {d: int(g >= 1) for d, g in docs.items()} for q, docs in qrels.items()}


@settings(max_examples=100, deadline=None)
@given(collections())
def test_precision_width_is_the_unjudged_share_of_the_top_k(data) -> None:
    qrels, run = data
    qrels = binary(qrels)
    results = rw.evaluate(qrels, run, ["P@3", "P@1", "num_ret"], unjudged="bounds")
    bounds = results.unjudged
    retrieved = results["num_ret"]
    for name, k in (("P@3", 3), ("P@1", 1)):
        width = bounds.high[name] - bounds.low[name]
        np.testing.assert_allclose(width, np.minimum(retrieved, k) / k - bounds.judged[name],
                                   atol=1e-12)
        full = retrieved >= k  # the check: 1 - judged@k
        np.testing.assert_allclose(width[full], 1 - bounds.judged[name][full], atol=1e-12)
        np.testing.assert_array_equal(bounds.low[name], results[name])


@settings(max_examples=100, deadline=None)
@given(collections(), collections(ties=False))
def test_rbp_width_is_its_residual(data, untied) -> None:
    for qrels, run in (data, untied):
        qrels = binary(qrels)
        names = ["rbp", "rbp(p=0.5)", "rbp_resid", "rbp_resid(p=0.5)", "num_ret"]
        results = rw.evaluate(qrels, run, names, unjudged="bounds")
        for p, rbp, resid in ((0.8, "rbp", "rbp_resid"), (0.5, "rbp(p=0.5)", "rbp_resid(p=0.5)")):
            width = results.unjudged.high[rbp] - results.unjudged.low[rbp]
            # trec_eval's rbp_resid is 0 when nothing retrieved is unjudged; the tail p^n remains
            expected = np.where(results[resid] > 0, results[resid], p ** results["num_ret"])
            np.testing.assert_allclose(width, expected, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(collections())
def test_low_is_the_value_and_judged_only_leaves_nothing_unjudged(data) -> None:
    qrels, run = data
    names = [n for n in EVERY if not n.startswith(("inst", "bpm"))]  # gains above 1
    results = rw.evaluate(qrels, run, names, unjudged="bounds")
    plain = rw.evaluate(qrels, run, names)
    assert plain.unjudged is None
    for name in results:
        np.testing.assert_array_equal(results.unjudged.low[name], plain[name])
        assert results.unjudged.mean[name][0] == plain.mean[name]
    judged = rw.evaluate(qrels, run, names, unjudged="bounds", judged_only=True)
    endless = ("rbp", "insq", "tbg", "umeasure")  # they read past the end of the ranking
    for name in judged:
        if not name.startswith(endless):
            np.testing.assert_allclose(judged.unjudged.high[name], judged[name], atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(diversity_collections())
def test_every_measure_has_bounds_under_every_tie_policy(data) -> None:
    qrels, run = data
    names = [n.replace("inst", "inst(max_grade=2)").replace("bpm(T=2)", "bpm(T=2,max_grade=2)")
             for n in EVERY]
    trec = rw.evaluate(qrels, run, names, unjudged="bounds")
    for ties in ("worst", "best", "ascending"):
        other = rw.evaluate(qrels, run, names, unjudged="bounds", ties=ties)
        assert set(other.unjudged.high) == set(trec.unjudged.high)
    # more relevant documents: these cannot fall (AP, recall, and those divided by an
    # ideal, or by M, the subtopics with a relevant document, can: M and the ideal grow too)
    for name in ["P@3", "hit@2", "judged@3", "mrr"]:
        assert np.all(trec.unjudged.high[name] >= trec.unjudged.low[name] - 1e-12), name
    average = rw.evaluate(qrels, run, ["P@3", "rbp", "ndcg@5"], unjudged="bounds",
                          ties="average")
    assert np.all(average.unjudged.high["P@3"] >= average["P@3"] - 1e-12)


def test_by_hand() -> None:
    # ranking a (grade 2), x (unjudged), b (grade 0), y (unjudged); top grade 2
    qrels, run = {"q": {"a": 2, "b": 0, "c": 1}}, {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}}
    results = rw.evaluate(qrels, run, ["P@4", "recall@4", "judged@4", "ndcg@2(gain=linear)",
                                       "rbp(p=0.5)"], unjudged="bounds")
    bounds = results.unjudged
    assert bounds.top_grade == 2
    assert bounds.mean["P@4"] == (0.25, 0.75)
    assert bounds.mean["recall@4"] == (0.5, 0.75)  # R grows with x and y: 3 of 4
    assert bounds.judged["P@4"].tolist() == [0.5] and bounds.mean["judged@4"] == (0.5, 1.0)
    assert bounds.mean["ndcg@2(gain=linear)"][1] == pytest.approx(1.0)
    # rbp: grades rescaled to [0, 1]: a 1, x 1, y 1 and the tail p^4
    assert bounds.mean["rbp(p=0.5)"] == pytest.approx((0.5, 0.5 * (1 + 0.5 + 0.125) + 0.5**4))


def test_the_option_is_checked() -> None:
    with pytest.raises(InvalidParameterError, match="unjudged must be 'nonrelevant' or 'bounds'"):
        rw.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@1"], unjudged="high")


def test_a_dialect_that_ranks_as_its_tool_is_refused_with_what_it_needs() -> None:
    """It said "this engine cannot rank the run as ('input', False, False)"."""
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}}
    with pytest.raises(UnsupportedMeasureError) as caught:
        rw.evaluate(qrels, run, "ndcg@10(dialect=xgboost)", unjudged="bounds")
    assert str(caught.value) == (
        "unjudged='bounds' takes the measures that rank the run as trec_eval does; "
        "ndcg@10(dialect=xgboost) ranks it as its tool does (ties in input order; scores as "
        "float32): evaluate it without unjudged='bounds'")
    # a dialect that ranks as trec_eval does has its bounds
    bounds = rw.evaluate(qrels, run, "ndcg@10(dialect=sklearn)", unjudged="bounds").unjudged
    assert bounds is not None and "ndcg@10(dialect=sklearn)" in bounds.mean


def test_a_dialect_measure_without_a_cutoff_takes_its_tools(  # XGBoost's pre: the top 32
) -> None:
    qrels = {"q": {"a": 1}}
    run = {"q": {f"d{i}": 1.0 / (i + 1) for i in range(40)} | {"a": 0.041}}  # a at rank 25
    assert rw.evaluate(qrels, run, "P(dialect=xgboost)").mean["P(dialect=xgboost)"] == 1 / 32
    assert rw.evaluate(qrels, run, "P@32(dialect=xgboost)").mean["P@32(dialect=xgboost)"] == 1 / 32
    assert rw.evaluate(qrels, run, "P@20(dialect=xgboost)").mean["P@20(dialect=xgboost)"] == 0
    with pytest.raises(rw.MeasureSyntaxError, match="measure 'P' needs a cutoff"):
        rw.evaluate(qrels, run, "P(dialect=catboost)")  # CatBoost has no default cutoff
