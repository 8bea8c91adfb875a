"""rankwise.compat.pytrec_eval's numbers are pytrec_eval's, bit for bit.

pytrec_eval (pytrec-eval-terrier 0.5.11) bundles trec_eval 9.0.8; the drop-in
gives its values: scores compared in float32, iprec_at_recall and 11pt_avg
cut at int(x * R + 0.9) relevant documents (rankwise's own API keeps trec_eval
10.0's lround, tested here too). The collections have ties (some only in
float32), empty rankings, judged queries with no judgment, negative grades and
scores, queries on one side only, document ids that order ties by their bytes;
every key of ``all_trec`` and of a set of measures with parameters, at
relevance levels 1, 2 and 3, with and without ``judged_docs_only_flag``. The
12 comparisons of ``test_every_value_is_pytrec_evals`` compare 250,557 values
(each asserts at least 13,000), bpref's test 4,996 more.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pytrec_once import FRESH_PROCESS_MEASURES, evaluate_once
from strategies import random_collection

import rankwise as rw
import rankwise.compat.pytrec_eval as drop_in

pytrec_eval = pytest.importorskip("pytrec_eval")

WITH_PARAMETERS = {
    "P.1,2,7,33", "recall.3,333", "map_cut.1,4,99", "ndcg_cut.2,3,8", "relative_P.2,12",
    "success_2,3,50", "iprec_at_recall.0.05,0.33,0.66,0.95", "Rprec_mult_0.3,2.5",
    "11pt_avg.0.2,0.4,0.45", "utility.0.5,1,2,3", "set_F.0.5", "map", "gm_map", "ndcg",
    "ndcg_rel", "Rndcg", "G", "binG", "infAP", "gm_bpref", "Rprec", "recip_rank", "set",
    "num_nonrel_judged_ret",
}
"""Parameters as pytrec_eval users write them (either separator); bpref: its own test."""
MEASURE_SETS = {"all_trec": set(pytrec_eval.supported_measures) - FRESH_PROCESS_MEASURES,
                "with parameters": WITH_PARAMETERS}


def collection(seed: int, n_queries: int = 120) -> tuple[dict, dict]:
    """Judgments and a run for *n_queries* queries, with what trec_eval 9.0.8 finds hard."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    top = int(rng.choice([1, 2, 3, 5]))
    names = ["d", "D", "\u00e9", "x" * 9]
    for q in range(n_queries):
        query = f"q{rng.integers(0, 10 ** int(rng.integers(1, 4)))}-{q}"
        pool = [f"{names[i % 4]}{rng.integers(0, 10 ** int(rng.integers(1, 4)))}.{i}"
                for i in range(int(rng.integers(3, 90)))]
        side = rng.random()
        if side > 0.08:  # judged (or an empty judgment entry, dropped as pytrec_eval drops it)
            judged = rng.choice(len(pool), size=int(rng.integers(0, len(pool))), replace=False)
            grades = rng.integers(-2, top + 1, size=len(judged))
            if len(grades) and grades.max() < -1:  # pytrec_eval crashes there (a test of its own)
                grades[0] = -1
            qrels[query] = {pool[i]: int(g) for i, g in zip(judged.tolist(), grades.tolist())}
        if side < 0.94:  # retrieved (or an empty ranking, evaluated as nothing retrieved)
            size = int(rng.integers(0, len(pool))) if rng.random() > 0.05 else 0
            chosen = rng.choice(len(pool), size=size, replace=False)
            run[query] = dict(zip([pool[i] for i in chosen.tolist()], _scores(rng, size)))
    return qrels, run


def _scores(rng: np.random.Generator, size: int) -> list[float]:
    style = int(rng.integers(0, 4))
    if style == 0:  # many ties
        values = rng.integers(0, 5, size=size) / 2.0
    elif style == 1:  # float64 scores, negative ones too
        values = rng.normal(size=size)
    elif style == 2:  # distinct in float64, tied in float32
        values = 1.0 + rng.integers(0, 3, size=size) * 1e-9
    else:  # large magnitudes
        values = rng.integers(-3, 3, size=size) * 1e5 + rng.random(size)
    return values.tolist()


def same(ours: float, theirs: float) -> bool:
    """Equal bits (NaN where both are NaN)."""
    return ours == theirs or (math.isnan(ours) and math.isnan(theirs))


def compared(want: dict, got: dict) -> int:
    """Assert the same queries in the same order, the same keys in the same order and the
    same values; return the number of values compared."""
    assert list(got) == list(want)  # the run's queries, in the run's order
    count = 0
    for query, values in want.items():
        assert list(got[query]) == list(values), query
        for key, value in values.items():
            assert same(got[query][key], value), (query, key, value, got[query][key])
            count += 1
    return count


@pytest.mark.parametrize("measures", sorted(MEASURE_SETS))
@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_every_value_is_pytrec_evals(level: int, judged_only: bool, measures: str) -> None:
    options = {"relevance_level": level, "judged_docs_only_flag": judged_only}
    count = 0
    for seed in range(3):
        qrels, run = collection(100 * level + 10 * judged_only + seed)
        chosen = MEASURE_SETS[measures]
        want = pytrec_eval.RelevanceEvaluator(qrels, chosen, **options).evaluate(run)
        count += compared(want, drop_in.RelevanceEvaluator(qrels, chosen, **options).evaluate(run))
    assert count >= 13_000


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("level", [1, 2])
def test_bpref_is_pytrec_evals_in_a_fresh_process(level: int, judged_only: bool) -> None:
    qrels, run = collection(7 + level + 2 * judged_only, n_queries=1500)
    options = {"relevance_level": level, "judged_docs_only_flag": judged_only}
    want = evaluate_once(qrels, run, FRESH_PROCESS_MEASURES, **options)
    got = drop_in.RelevanceEvaluator(qrels, set(FRESH_PROCESS_MEASURES), **options).evaluate(run)
    assert compared(want, got) >= 1_200


def test_iprec_at_recall_is_trec_eval_9s_in_the_drop_in_and_10s_in_rankwise() -> None:
    """The drop-in cuts at int(x * R + 0.9) relevant documents (pytrec_eval's trec_eval 9.0.8),
    rw.evaluate at lround(x * R) (trec_eval 10.0): they differ where x * R's fraction is in
    [0.1, 0.5)."""
    differ = 0
    for seed in range(6):
        qrels, run = random_collection(seed, ties=True)
        measures = {"iprec_at_recall", "11pt_avg"}
        want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        compared(want, drop_in.RelevanceEvaluator(qrels, measures).evaluate(run))
        keys = {f"iprec_at_recall(recall={step / 10})": f"iprec_at_recall_{step / 10:.2f}"
                for step in range(11)}
        keys["11pt_avg"] = "11pt_avg"
        ten = rw.evaluate(qrels, run, list(keys))
        for query, values in want.items():
            row = ten.query_ids.index(query)
            differ += sum(not same(float(ten[measure][row]), values[key])
                          for measure, key in keys.items())
    assert differ > 10


def test_an_example_of_the_cutoff_rounding() -> None:
    """R = 4 relevant, recall 0.3: trec_eval 9 cuts at int(1.2 + 0.9) = 2 relevant documents,
    trec_eval 10.0 at lround(1.2) = 1; recall 0.4: 2 in both (int(2.5), lround(1.6))."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    run = {"q": {"a": 5.0, "x": 4.0, "y": 3.0, "b": 2.0}}
    measures = {"iprec_at_recall.0.3,0.4"}
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert want == {"q": {"iprec_at_recall_0.30": 0.5, "iprec_at_recall_0.40": 0.5}}
    assert drop_in.RelevanceEvaluator(qrels, measures).evaluate(run) == want
    ten = rw.evaluate(qrels, run, ["iprec_at_recall(recall=0.3)"]).mean
    assert ten == {"iprec_at_recall(recall=0.3)": 1.0}  # the 1st relevant, at rank 1: 1/1


def test_scores_are_compared_in_float32_as_pytrec_eval_reads_them() -> None:
    """pytrec_eval's trec_eval 9.0.8 stores scores as 32-bit floats: 1.0000000001 and 1.0 tie
    there (docno descending puts d2 first); trec_eval 10.0 and rw.evaluate compare them."""
    qrels = {"q": {"d2": 1}}
    run = {"q": {"d1": 1.0000000001, "d2": 1.0}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert want == {"q": {"recip_rank": 1.0}}
    assert drop_in.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run) == want
    assert rw.evaluate(qrels, run, ["mrr"]).mean == {"mrr": 0.5}


def test_set_f_takes_trec_evals_parameter_as_given() -> None:
    """set_F.x is (x + 1) P R / (x P + R); computing it as rankwise's set_F(beta=sqrt(x))
    squares sqrt(0.5) back to 0.5000000000000001 and changes the last bit here."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "x": 1.0, "y": 0.5, "z": 0.25, "w": 0.125}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.5"}).evaluate(run)
    assert drop_in.RelevanceEvaluator(qrels, {"set_F.0.5"}).evaluate(run) == want
    assert want["q"]["set_F"] == (1.5 * (2 / 6) * (2 / 5)) / (0.5 * (2 / 6) + 2 / 5)


def test_queries_come_in_the_runs_order() -> None:
    """pytrec_eval gives the queries in the run dict's order (MTEB pairs them with the run's)."""
    qrels = {query: {"d": 1} for query in ("q1", "q2", "q10", "b")}
    run = {"q10": {"d": 1.0}, "q1": {"d": 0.5}, "x": {"d": 1.0}, "b": {}, "q2": {"e": 1.0}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map", "num_ret"}).evaluate(run)
    assert list(want) == ["q10", "q1", "b", "q2"]
    assert drop_in.RelevanceEvaluator(qrels, {"map", "num_ret"}).evaluate(run) == want
    rng = np.random.default_rng(7)
    for seed in range(6):
        qrels, run = collection(seed, n_queries=30)
        order = rng.permutation(len(run))
        shuffled = {query: run[query] for query in np.array(list(run), dtype=object)[order]}
        want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "P.5"}).evaluate(shuffled)
        compared(want, drop_in.RelevanceEvaluator(qrels, {"ndcg_cut.10", "P.5"}).evaluate(
            shuffled))
