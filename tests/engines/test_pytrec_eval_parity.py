"""Differential tests: rankwise against pytrec_eval (trec_eval's C code) on random data.

pytrec_eval (pytrec-eval-terrier) embeds trec_eval 9.0.8, which stores scores
as 32-bit floats: the generated scores are exact in float32, so both tools
see the same ties. Its iprec_at_recall/11pt_avg use trec_eval 9's rounding of
recall cutoffs (int(x * R + 0.9)) where 10.0 rounds to nearest: they are
compared with ``rounding=trec_eval9`` here, and against trec_eval 10.0's
vectors in test_conformance. The values are equal bit for bit: rankwise
divides and sums in trec_eval's order.
"""

from __future__ import annotations

import math

import pytest
from pytrec_once import FRESH_PROCESS_MEASURES, evaluate_once, merged_collections
from strategies import random_collection

import rankwise as rw
from rankwise.measures.trec_names import parse_trec_list

pytrec_eval = pytest.importorskip("pytrec_eval")

TREC_MEASURES = [
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "map",
    "Rprec",
    "recip_rank",
    "P.1,3,5,10",
    "recall.1,5,10,50",
    "ndcg",
    "ndcg_cut.1,3,5,10",
    "map_cut.3,10",
    "success.1,5",
    "set_P",
    "set_recall",
    "set_F",
    "set_map",
    "set_relative_P",
    "relative_P.5,10",
    "infAP",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
    "utility",
    "Rprec_mult.0.5,1.5",
    "iprec_at_recall.0,0.1,0.3,0.55,1",
    "11pt_avg",
]
"""Compared in the test process; bpref (FRESH_PROCESS_MEASURES) in a test of its own."""


def same_bits(ours: float, theirs: float) -> bool:
    return ours == theirs or (math.isnan(ours) and math.isnan(theirs))


def pytrec_values(qrels: dict, run: dict, rel: int) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES), relevance_level=rel)
    return evaluator.evaluate(run)


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("ties", [True, False])
def test_same_per_query_values_as_pytrec_eval(seed: int, ties: bool) -> None:
    qrels, run = random_collection(seed, ties=ties)
    rel = 1 if seed % 3 else 2
    expected = pytrec_values(qrels, run, rel)
    entries = parse_trec_list(TREC_MEASURES)
    measures = {}
    for entry in entries:
        measure = entry.measure
        if measure.family.takes_level:
            measure = measure.replace(rel=float(rel))
        if measure.name in ("iprec_at_recall", "11pt_avg"):
            measure = measure.replace(rounding="trec_eval9")
        measures[entry.label] = measure
    results = rw.evaluate(qrels, run, list(dict.fromkeys(measures.values())))
    assert sorted(results.query_ids) == sorted(expected)
    for label, measure in measures.items():
        values = results[measure]
        for index, query in enumerate(results.query_ids):
            want = expected[query][label]
            assert same_bits(values[index], want), (label, query, seed, values[index], want)


@pytest.mark.parametrize("rel", [1, 2])
def test_bpref_as_pytrec_eval_in_a_fresh_process(rel: int) -> None:
    """The same 80 collections as above, merged: one pytrec_eval call in a fresh process."""
    qrels, run = merged_collections((seed, ties) for seed in range(40) for ties in (True, False))
    expected = evaluate_once(qrels, run, FRESH_PROCESS_MEASURES, relevance_level=rel)
    results = rw.evaluate(qrels, run, [f"bpref(rel={rel})"])
    assert sorted(results.query_ids) == sorted(expected)
    values = results[rw.parse(f"bpref(rel={rel})")]
    assert len(values) > 300
    for index, query in enumerate(results.query_ids):
        assert same_bits(values[index], expected[query]["bpref"]), query


def test_a_constant_scorer_is_ranked_by_docno_descending() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    results = rw.evaluate(qrels, run, ["mrr", "P@1"])
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert results["mrr"][0] == pytest.approx(expected["q"]["recip_rank"]) == pytest.approx(1 / 3)
    assert results["P@1"][0] == 0.0
