"""rankwise.compat.pytrec_eval against pytrec_eval itself (pytrec-eval-terrier, trec_eval 9.x).

Every measure pytrec_eval supports, on random collections with ties (scores
exact in float32), relevance levels 1 and 2, with and without -J. The values
are the same but where trec_eval 10.0 changed them (docs/compat.md): the
recall cut-offs of iprec_at_recall and 11pt_avg, and scores compared in
float32. Both differences are tested to be exactly what the docs say.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pytrec_once import FRESH_PROCESS_MEASURES, evaluate_once, merged_collections
from strategies import random_collection

import rankwise as rw
import rankwise.compat.pytrec_eval as drop_in

pytrec_eval = pytest.importorskip("pytrec_eval")

ALL = set(pytrec_eval.supported_measures) - FRESH_PROCESS_MEASURES  # those: a test of their own
CHANGED_IN_10 = ("iprec_at_recall_", "11pt_avg")
"""Keys whose values trec_eval 10.0 changed (lround instead of int(x + 0.9))."""


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def both(qrels: dict, run: dict, measures: set[str], **options: object) -> tuple[dict, dict]:
    want = pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    got = drop_in.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    return want, got


@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("ties", [True, False])
def test_every_measure_as_pytrec_eval(seed: int, ties: bool) -> None:
    qrels, run = random_collection(seed, ties=ties)
    options = {"relevance_level": 1 if seed % 3 else 2, "judged_docs_only_flag": seed % 4 == 0}
    want, got = both(qrels, run, ALL, **options)
    assert list(got) == list(want)  # the same queries, in the run's order
    compared = 0
    for query, values in want.items():
        assert list(got[query]) == list(values), query  # the same keys, in the same order
        for key, value in values.items():
            if key.startswith(CHANGED_IN_10):
                continue
            assert same(got[query][key], value), (seed, query, key, value, got[query][key])
            compared += 1
    assert compared > 50


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("rel", [1, 2])
def test_bpref_as_pytrec_eval_in_a_fresh_process(rel: int, judged_only: bool) -> None:
    qrels, run = merged_collections((seed, seed % 2 == 0) for seed in range(12))
    options = {"relevance_level": rel, "judged_docs_only_flag": judged_only}
    want = evaluate_once(qrels, run, FRESH_PROCESS_MEASURES, **options)
    got = drop_in.RelevanceEvaluator(qrels, set(FRESH_PROCESS_MEASURES), **options).evaluate(run)
    assert set(got) == set(want)
    assert len(want) > 30
    for query, values in want.items():
        for key, value in values.items():
            assert same(got[query][key], value), (query, key, value, got[query][key])


def test_iprec_at_recall_differs_only_by_the_cutoff_rounding() -> None:
    """pytrec_eval's iprec_at_recall at x is rankwise's at recall c / R, c = int(x * R + 0.9):
    trec_eval 9 truncates x * R + 0.9, trec_eval 10.0 (and rankwise) round x * R."""
    differ = 0
    for seed in range(8):
        qrels, run = random_collection(seed, ties=True)
        rel = 1 if seed % 3 else 2
        want = pytrec_eval.RelevanceEvaluator(
            qrels, {"iprec_at_recall", "11pt_avg", "num_rel"}, relevance_level=rel
        ).evaluate(run)
        for query, values in want.items():
            relevant = int(values["num_rel"])
            levels, measures = [], []
            for step in range(11):
                x = step / 10
                cut = int(x * relevant + 0.9)
                levels.append(cut / relevant if relevant else x)
                measures.append(rw.parse(f"iprec_at_recall(recall={levels[-1]!r},rel={rel})"))
                differ += relevant > 0 and cut != math.floor(x * relevant + 0.5)
            eleven = rw.parse(f"11pt_avg(levels={';'.join(map(repr, levels))},rel={rel})")
            got = rw.evaluate({query: qrels[query]}, {query: run[query]}, [*measures, eleven])
            for step, measure in enumerate(measures):
                assert same(got[measure][0], values[f"iprec_at_recall_{step / 10:.2f}"])
            assert same(got[eleven][0], values["11pt_avg"]), query
    assert differ > 10  # the two roundings do differ on these collections


def test_an_example_of_the_cutoff_rounding() -> None:
    """R = 4 relevant, recall 0.4: trec_eval 9 cuts at int(1.6 + 0.9) = 2 relevant documents,
    trec_eval 10.0 at lround(1.6) = 2; recall 0.3: int(2.1) = 2 against lround(1.2) = 1."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    run = {"q": {"a": 5.0, "x": 4.0, "y": 3.0, "b": 2.0}}
    want, got = both(qrels, run, {"iprec_at_recall.0.3,0.4"})
    assert want["q"]["iprec_at_recall_0.30"] == 0.5  # the 2nd relevant, at rank 4: 2/4
    assert got["q"]["iprec_at_recall_0.30"] == 1.0  # the 1st relevant, at rank 1: 1/1
    assert want["q"]["iprec_at_recall_0.40"] == got["q"]["iprec_at_recall_0.40"] == 0.5


def test_scores_compared_in_float32_by_pytrec_eval_only() -> None:
    """pytrec_eval's trec_eval 9 reads scores as 32-bit floats: 1.0000000001 and 1.0 tie there
    (and docno descending puts d2 first), not in trec_eval 10.0 and rankwise."""
    qrels = {"q": {"d2": 1}}
    run = {"q": {"d1": 1.0000000001, "d2": 1.0}}
    want, got = both(qrels, run, {"recip_rank"})
    assert want["q"]["recip_rank"] == 1.0
    assert got["q"]["recip_rank"] == 0.5
    as_float32 = {q: {d: float(np.float32(s)) for d, s in docs.items()} for q, docs in run.items()}
    assert drop_in.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(as_float32) == want


def test_keys_and_queries_as_pytrec_eval() -> None:
    qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}, "q3": {}, "q4": {"d9": 0}}
    run = {"q1": {"d1": 1.0, "d2": 2.0}, "q2": {}, "q4": {"d9": 1.0}, "q5": {"x": 1.0}}
    measures = {"ndcg_cut.10", "ndcg_cut_5", "P.5", "P_10", "map", "gm_map", "set_F.2", "runid",
                "relstring", "num_q", "Rprec_mult.0.5", "success_1", "utility", "gm_bpref"}
    want, got = both(qrels, run, measures)
    assert set(got) == set(want) == {"q1", "q2", "q4"}  # an empty run dict: evaluated
    for query in want:
        assert got[query] == pytest.approx(want[query])
        assert list(got[query]) == list(want[query])
    assert drop_in.RelevanceEvaluator(qrels, {"map"}).evaluate({}) == {}


def test_queries_come_in_the_runs_order() -> None:
    """pytrec_eval gives the queries in the run dict's order (MTEB pairs them with the run's)."""
    qrels = {query: {"d": 1} for query in ("q1", "q2", "q10", "b")}
    run = {"q10": {"d": 1.0}, "q1": {"d": 0.5}, "x": {"d": 1.0}, "b": {}, "q2": {"e": 1.0}}
    want, got = both(qrels, run, {"map", "num_ret"})
    assert list(want) == ["q10", "q1", "b", "q2"]
    assert list(got) == list(want)
    assert got == want
    rng = np.random.default_rng(7)
    for seed in range(12):
        qrels, run = random_collection(seed, ties=seed % 2 == 0)
        order = rng.permutation(len(run))
        shuffled = {query: run[query] for query in np.array(list(run), dtype=object)[order]}
        want, got = both(qrels, shuffled, {"ndcg_cut.10", "P.5"})
        assert list(got) == list(want), seed


@pytest.mark.parametrize("given", [[("q1", "d1", 1)], "q1 0 d1 1", None, 5])
def test_judgments_that_are_not_a_dict_are_refused_clearly(given: object) -> None:
    with pytest.raises(rw.InputFormatError,
                       match=r"RelevanceEvaluator: query_relevance must be a dict "
                             r"\{query_id: \{doc_id: grade\}\} \(pytrec_eval's form\), got "
                             + type(given).__name__ + r".*parse_qrel"):
        drop_in.RelevanceEvaluator(given, {"map"})  # type: ignore[arg-type]
    evaluator = drop_in.RelevanceEvaluator({"q1": {"d1": 1}}, {"map"})
    with pytest.raises(rw.InputFormatError, match=r"evaluate: scores must be a dict .*parse_run"):
        evaluator.evaluate(given)  # type: ignore[arg-type]


def test_compute_aggregated_measure_and_parsers() -> None:
    for measure, values in [("map", [0.25, 0.5]), ("num_ret", [3.0, 4.0]),
                            ("gm_map", [math.log(0.5), math.log(0.25)])]:
        assert drop_in.compute_aggregated_measure(measure, values) == pytest.approx(
            pytrec_eval.compute_aggregated_measure(measure, values))
    lines = ["q1 Q0 d1 1 2.5 run", "q1 Q0 d2 2 1.5 run", "q2 Q0 d1 1 0.5 run"]
    assert drop_in.parse_run(lines) == pytrec_eval.parse_run(lines)
    qrels = ["q1 0 d1 2", "q1 0 d2 0", "q2 0 d3 1"]
    assert drop_in.parse_qrel(qrels) == pytrec_eval.parse_qrel(qrels)
    with pytest.raises(rw.DuplicateEntryError, match="'d1' appears twice"):
        drop_in.parse_run(["q1 Q0 d1 1 2.5 run", "q1 Q0 d1 2 1.5 run"])
    assert drop_in.supported_measures >= set(pytrec_eval.supported_measures)
    assert set(drop_in.supported_nicknames) <= set(pytrec_eval.supported_nicknames)


def test_unknown_measure_is_a_value_error_with_a_suggestion() -> None:
    with pytest.raises(ValueError, match=r"unsupported measure 'ndgc_cut'.*did you mean"):
        drop_in.RelevanceEvaluator({"q": {"d": 1}}, {"ndgc_cut"})
    with pytest.raises(ValueError, match="unsupported measure"):
        pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {"ndgc_cut"})


def test_integer_ids_and_fractional_grades_are_accepted() -> None:
    """pytrec_eval refuses them (TypeError); the drop-in reads them and keeps the run's keys."""
    got = drop_in.RelevanceEvaluator({7: {"d": 1.5}}, {"P_1"}).evaluate({7: {"d": 1.0}})
    assert got == {7: {"P_1": 1.0}}


def test_the_run_keys_its_results_when_the_judgments_type_their_ids_otherwise() -> None:
    """Ids are text: judgments keyed 7 and a run keyed "7" meet, and the run's key is kept."""
    evaluator = drop_in.RelevanceEvaluator({7: {"d": 1}, 8: {"e": 1}}, {"P_1"})
    assert evaluator.evaluate({"7": {"d": 1.0}, "9": {"e": 1.0}}) == {"7": {"P_1": 1.0}}
    got = drop_in.RelevanceEvaluator({"7": {"d": 1}}, {"P_1"}).evaluate({7: {"x": 1.0}})
    assert got == {7: {"P_1": 0.0}} and isinstance(next(iter(got)), int)
