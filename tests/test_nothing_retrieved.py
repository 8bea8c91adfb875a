"""A query in the run with nothing retrieved is evaluated (it scores 0); one not in the run is not.

``{"q2": {}}`` in a run dict (what BEIR and MTEB hand over when nothing
passed a score threshold) is a query that was asked and got nothing back:
pytrec_eval and ranx evaluate it (``num_ret`` 0, every measure 0) and count it
in the means. A judged query that is not a key of the run at all is left out
(``missing="skip"``) or scored 0 (``missing="zero"``). Each path that reads a
run dict (one C pass that reads and ranks it; the C reader, then the ranking;
pure Python, ``RANKWISE_NO_C=1``) gives pytrec_eval's values, query by query.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from strategies import random_collection

import rankwise as rw
from rankwise.engines.core import prepare_measures
from rankwise.exceptions import RankwiseWarning
from rankwise.io.coerce import as_run
from rankwise.measures.trec_names import parse_trec, parse_trec_key

pytrec_eval = pytest.importorskip("pytrec_eval")

ISSUE_QRELS = {"q1": {"a": 1}, "q2": {"b": 1}}
ISSUE_RUN: dict[str, dict[str, float]] = {"q1": {"a": 1.0}, "q2": {}}

PATHS = ("one C pass", "C reader", "pure Python")
"""How a run dict is read: rank_run_dict; run_from_dict in C then rank_all_ties; no C."""

SKIPPED_KEYS = ("iprec_at_recall_", "11pt_avg", "gm_", "runid", "relstring")
"""pytrec_eval keys not compared here: trec_eval 10.0 changed the first two
(tests/compat/test_pytrec_eval.py), gm_ is given as a logarithm, the last two are text."""


def evaluate_by(path: str, monkeypatch: pytest.MonkeyPatch) -> Callable[..., rw.Results]:
    """``rw.evaluate`` reading the run dict the way *path* names."""
    if path == "pure Python":
        monkeypatch.setenv("RANKWISE_NO_C", "1")
        return rw.evaluate
    monkeypatch.setenv("RANKWISE_NO_C", "0")
    if path == "one C pass":
        return rw.evaluate

    def built_first(qrels: Any, run: Any, measures: Any, **options: Any) -> rw.Results:
        return rw.evaluate(qrels, as_run(run), measures, **options)

    return built_first


def measures_of(keys: list[str]) -> dict[str, rw.Measure]:
    """The rankwise measure of each pytrec_eval output key (those compared)."""
    out = {}
    for key in keys:
        if key.startswith(SKIPPED_KEYS):
            continue
        entry = parse_trec_key(key)
        if entry is None:
            entry = next((e for e in parse_trec(key) if e.label == key), None)
        if entry is not None and entry.measure is not None:
            out[key] = entry.measure
    return out


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("path", PATHS)
def test_the_issue_example_as_pytrec_eval_and_ranx(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranx = pytest.importorskip("ranx")
    evaluate = evaluate_by(path, monkeypatch)
    results = evaluate(ISSUE_QRELS, ISSUE_RUN, ["map", "ndcg@10", "num_ret"])
    assert results.query_ids == ["q1", "q2"]
    assert results["num_ret"].tolist() == [1.0, 0.0]
    want = pytrec_eval.RelevanceEvaluator(ISSUE_QRELS, {"map", "ndcg_cut.10"}).evaluate(ISSUE_RUN)
    assert want["q2"] == {"map": 0.0, "ndcg_cut_10": 0.0}
    assert results.mean["map"] == sum(q["map"] for q in want.values()) / len(want) == 0.5
    assert results.mean["ndcg@10"] == sum(q["ndcg_cut_10"] for q in want.values()) / 2 == 0.5
    by_ranx = ranx.evaluate(ranx.Qrels(ISSUE_QRELS), ranx.Run(ISSUE_RUN), ["map", "ndcg@10"])
    assert results.mean["map"] == by_ranx["map"] == 0.5
    assert results.mean["ndcg@10"] == by_ranx["ndcg@10"] == 0.5
    assert results.missing_queries == 0


def collection_with_empty_rankings(seed: int) -> tuple[dict, dict]:
    """A random collection whose run holds empty rankings: judged queries, and one unjudged."""
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    rng = np.random.default_rng(1000 + seed)
    for query in list(run):
        if rng.random() < 0.35:
            run[query] = {}
    for query in qrels:
        if query not in run and rng.random() < 0.6:
            run[query] = {}
    run["unjudged-empty"] = {}
    if not any(run.get(query) for query in qrels):
        query = next(iter(qrels))
        run[query] = {next(iter(qrels[query])): 1.0}
    return qrels, run


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("seed", range(12))
def test_every_measure_as_pytrec_eval_with_empty_rankings(
    seed: int, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    qrels, run = collection_with_empty_rankings(seed)
    options = {"relevance_level": 1 if seed % 3 else 2, "judged_docs_only_flag": seed % 4 == 1}
    measures = set(pytrec_eval.supported_measures) - {"bpref"}  # bpref: tests/pytrec_once.py
    want = pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    empty = {query for query in want if not run[query]}
    assert empty  # the collection holds judged queries with nothing retrieved
    named = measures_of(list(next(iter(want.values()))))
    evaluate = evaluate_by(path, monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankwiseWarning)
        got = evaluate(qrels, run, list(named.values()), rel=options["relevance_level"],
                       judged_only=options["judged_docs_only_flag"])
    assert sorted(got.query_ids) == sorted(want)  # the run's judged queries, empty ones too
    assert got.missing_queries == sum(query not in run for query in qrels)
    row = {query: i for i, query in enumerate(got.query_ids)}
    rel = rw.EvalOptions(rel=options["relevance_level"])
    for key, measure in named.items():
        values = got[prepare_measures([measure], rel)[0]]  # as evaluated: rel= applied
        for query, by_pytrec in want.items():
            assert same(float(values[row[query]]), by_pytrec[key]), (query, key, path)
        if key in ("num_ret", "num_rel_ret", "map", "P_10", "ndcg_cut_10"):
            assert all(want[query][key] == values[row[query]] == 0 for query in empty)


def test_nothing_retrieved_is_not_missing_in_the_warning() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    with pytest.warns(RankwiseWarning, match="1 judged query is not in the run") as caught:
        results = rw.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {}}, ["map"])
    assert len(caught) == 1  # q3 only: q2 is in the run, with nothing retrieved
    assert results.query_ids == ["q1", "q2"] and results.missing_queries == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankwiseWarning)
        every = rw.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {}, "q3": {}}, ["map"])
    assert every.mean["map"] == pytest.approx(1 / 3) and every.missing_queries == 0
    zero = rw.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {}}, ["map"], missing="zero")
    assert zero.query_ids == ["q1", "q2", "q3"] and zero.mean["map"] == pytest.approx(1 / 3)


def test_an_empty_ranking_through_the_other_front_doors() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    runs = {"bm25": {"q1": {"a": 1.0}, "q2": {}}, "dense": {"q1": {"x": 1.0}, "q2": {"b": 1.0}}}
    per_run = rw.evaluate_runs(qrels, runs, ["map"])
    assert per_run["bm25"].mean["map"] == 0.5 and per_run["bm25"].query_ids == ["q1", "q2"]
    row = rw.compare(qrels, runs, ["map"]).rows[0]  # paired over both queries: 1-1 against 0-1
    assert (row.n_queries, row.baseline_mean, row.wins, row.losses) == (2, 0.5, 1, 1)
    all_empty = rw.evaluate(qrels, {"q1": {}, "q2": {}}, ["map", "num_ret"])
    assert all_empty["map"].tolist() == [0.0, 0.0] and all_empty.mean["num_ret"] == 0
    # a dialect that ranks the run its own way sees the same queries
    ranx_like = rw.evaluate(qrels, runs["bm25"], ["map(dialect=ranx)", "ndcg@10(dialect=mteb)"])
    assert ranx_like.mean == {"map(dialect=ranx)": 0.5, "ndcg@10(dialect=mteb)": 0.5}


def test_exclude_self_keeps_a_query_that_retrieved_nothing() -> None:
    """Only a query emptied by exclude_self leaves the run; one empty to begin with stays."""
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
    run = {"q1": {"q1": 3.0, "d1": 2.0}, "q2": {}, "q3": {"q3": 1.0}}
    popped = {query: {d: s for d, s in docs.items() if d != query} for query, docs in run.items()}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"P_1"}).evaluate(popped)
    with pytest.warns(RankwiseWarning, match="1 judged query is not in the run"):
        got = rw.evaluate(qrels, run, ["P@1", "num_ret"], exclude_self=True)
    assert got.query_ids == ["q1", "q2"]  # q3 retrieved only itself: no longer in the run
    assert got["P@1"].tolist() == [want["q1"]["P_1"], want["q2"]["P_1"]] == [1.0, 0.0]
    assert got["num_ret"].tolist() == [1.0, 0.0]


def test_a_table_holds_no_query_without_rows() -> None:
    """A dictionary-encoded query column may name a query no row has (a pandas category
    without rows): that query is not in the run, as pytrec_eval sees the table's rows."""
    import pyarrow as pa

    queries = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()),
                                             pa.array(["q2", "q1"]))
    run = rw.Run.from_arrow(queries, ["a", "x"], [2.0, 1.0])
    assert run.query_ids == ["q2"] and run.query_codes.tolist() == [0, 0]
    want = pytrec_eval.RelevanceEvaluator(ISSUE_QRELS, {"map"}).evaluate({"q2": {"a": 2.0,
                                                                                "x": 1.0}})
    with pytest.warns(RankwiseWarning, match="1 judged query is not in the run"):
        got = rw.evaluate(ISSUE_QRELS, run, ["map"])
    assert got.query_ids == list(want) == ["q2"]
    assert got.mean["map"] == want["q2"]["map"] == 0.0
