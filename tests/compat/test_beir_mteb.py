"""BEIR's and MTEB's evaluation code runs on rankwise.compat.pytrec_eval by changing one import.

``beir_evaluate`` and ``mteb_scores`` restate the few lines BEIR 2.2
(``EvaluateRetrieval.evaluate``) and MTEB 2.x (``calculate_retrieval_scores``)
run on pytrec_eval, written here from reading their code (the module is a
parameter: the "import line"). Both give the same numbers with pytrec_eval
and with the drop-in, on random collections whose scores are exact in
float32 (the only difference left then is none: those measures do not use
iprec_at_recall). BEIR itself, installed, is run with its import swapped.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from strategies import random_collection

import rankwise as rw
import rankwise.compat.pytrec_eval as drop_in

pytrec_eval = pytest.importorskip("pytrec_eval")

K_VALUES = [1, 3, 5, 10, 100]


def beir_evaluate(
    module: ModuleType, qrels: dict, results: dict, k_values: list[int],
    ignore_identical_ids: bool = True,
) -> tuple[dict[str, float], ...]:
    """BEIR 2.2's EvaluateRetrieval.evaluate, its pytrec_eval module given."""
    if ignore_identical_ids:
        for qid, rels in results.items():
            for pid in list(rels):
                if qid == pid:
                    results[qid].pop(pid)
    ndcg = {f"NDCG@{k}": 0.0 for k in k_values}
    _map = {f"MAP@{k}": 0.0 for k in k_values}
    recall = {f"Recall@{k}": 0.0 for k in k_values}
    precision = {f"P@{k}": 0.0 for k in k_values}
    cuts = ",".join(str(k) for k in k_values)
    evaluator = module.RelevanceEvaluator(
        qrels, {f"map_cut.{cuts}", f"ndcg_cut.{cuts}", f"recall.{cuts}", f"P.{cuts}"}
    )
    scores = evaluator.evaluate(results)
    for query_id in scores:
        for k in k_values:
            ndcg[f"NDCG@{k}"] += scores[query_id][f"ndcg_cut_{k}"]
            _map[f"MAP@{k}"] += scores[query_id][f"map_cut_{k}"]
            recall[f"Recall@{k}"] += scores[query_id][f"recall_{k}"]
            precision[f"P@{k}"] += scores[query_id][f"P_{k}"]
    for table in (ndcg, _map, recall, precision):
        for name in table:
            table[name] = round(table[name] / len(scores), 5)
    return ndcg, _map, recall, precision


def mteb_scores(module: ModuleType, qrels: dict, results: dict, k_values: list[int]) -> dict:
    """MTEB's retrieval scores on pytrec_eval: per-query values and means rounded to 5 decimals."""
    cuts = ",".join(str(k) for k in k_values)
    names = {"ndcg_cut": "ndcg_at", "map_cut": "map_at", "recall": "recall_at",
             "P": "precision_at", "success": "hit_rate_at"}
    evaluator = module.RelevanceEvaluator(qrels, {f"{name}.{cuts}" for name in names})
    scores = evaluator.evaluate(results)
    out: dict[str, Any] = {}
    for name, label in names.items():
        for k in k_values:
            values = [scores[query][f"{name}_{k}"] for query in scores]
            out[f"{label}_{k}"] = round(sum(values) / len(scores), 5)
    out["per_query"] = scores
    return out


def copy_of(results: dict) -> dict:
    return {query: dict(docs) for query, docs in results.items()}


@pytest.mark.parametrize("seed", range(10))
def test_beir_evaluate_with_the_drop_in(seed: int) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    qrels = {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}
    first_judged = next(iter(qrels))
    run.setdefault(first_judged, {})[first_judged] = 9.0  # a document named as its query
    want = beir_evaluate(pytrec_eval, qrels, copy_of(run), K_VALUES)
    got = beir_evaluate(drop_in, qrels, copy_of(run), K_VALUES)
    assert got == want


@pytest.mark.parametrize("seed", range(10))
def test_mteb_scores_with_the_drop_in(seed: int) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 1)
    run = dict(reversed(run.items()))  # not in byte order: q9, q8, ..., q10, q1, q0
    want = mteb_scores(pytrec_eval, qrels, run, K_VALUES)
    got = mteb_scores(drop_in, qrels, run, K_VALUES)
    # evaluate_abstention pairs the i-th query of the scores with the i-th of the run
    assert list(got["per_query"]) == list(want["per_query"])
    assert list(want["per_query"]) == [query for query in run if query in qrels]
    for query, values in want["per_query"].items():
        assert got["per_query"][query] == pytest.approx(values, abs=1e-12)
    del got["per_query"], want["per_query"]
    assert got == want


def test_installed_beir_with_its_import_swapped(monkeypatch: pytest.MonkeyPatch) -> None:
    evaluation = pytest.importorskip("beir.retrieval.evaluation")
    qrels, run = random_collection(3, ties=True)
    want = evaluation.EvaluateRetrieval.evaluate(qrels, copy_of(run), K_VALUES)
    monkeypatch.setattr(evaluation, "pytrec_eval", drop_in)
    got = evaluation.EvaluateRetrieval.evaluate(qrels, copy_of(run), K_VALUES)
    assert got == want


def test_exclude_self_is_beirs_ignore_identical_ids() -> None:
    """rw.evaluate(..., exclude_self=True) gives BEIR's means (before its 5-decimal rounding)."""
    for seed in range(6):
        qrels, run = random_collection(seed, ties=True)
        for query in list(run)[::2]:
            run[query][query] = 5.0  # the query's own document, first
            if query in qrels and seed % 2:
                qrels[query][query] = 1  # and judged relevant, sometimes
        ndcg, _map, recall, precision = beir_evaluate(pytrec_eval, qrels, copy_of(run), K_VALUES)
        measures = [f"ndcg@{k}(gain=linear)" for k in K_VALUES] + [
            f"{name}@{k}" for name in ("P", "recall", "map") for k in K_VALUES]
        results = rw.evaluate(qrels, run, measures, exclude_self=True)
        kept = rw.evaluate(qrels, run, measures)
        for k in K_VALUES:
            assert round(results.mean[f"ndcg@{k}(gain=linear)"], 5) == ndcg[f"NDCG@{k}"]
            assert round(results.mean[f"P@{k}"], 5) == precision[f"P@{k}"]
            assert round(results.mean[f"recall@{k}"], 5) == recall[f"Recall@{k}"]
            assert round(results.mean[f"map@{k}"], 5) == _map[f"MAP@{k}"]
        assert any(results.mean[m] != kept.mean[m] for m in results.mean)


# --------------------------------------------------------------------------- empty results
# A retriever that returns nothing for a query (nothing above a score threshold) hands over
# {query: {}}: pytrec_eval evaluates it (0), BEIR and MTEB average over what pytrec_eval
# reports (the run's judged queries), so a judged query absent from the run is left out.
# dialect=beir and dialect=mteb reproduce that with no option.

ISSUE_QRELS = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"d": 1}}
ISSUE_RUN: dict[str, dict[str, float]] = {
    "q1": {"a": 1.0, "x": 0.5}, "q2": {}, "q3": {"x": 1.0, "c": 0.5}}
DIALECT_NAMES = {"NDCG": "ndcg", "MAP": "map", "Recall": "recall", "P": "P", "MRR": "mrr",
                 "HitRate": "hit"}


def beir_mrr(qrels: dict, results: dict, k_values: list[int]) -> dict[str, float]:
    """BEIR 2.2's evaluate_custom(..., "mrr") (custom_metrics.mrr): divided by every judged
    query, documents sorted by score alone (a stable sort: ties in input order)."""
    mrr = {f"MRR@{k}": 0.0 for k in k_values}
    for query, scores in results.items():
        relevant = {doc for doc, grade in qrels[query].items() if grade > 0}
        hits = sorted(scores.items(), key=lambda item: item[1], reverse=True)[: max(k_values)]
        for k in k_values:
            for rank, (doc, _) in enumerate(hits[:k]):
                if doc in relevant:
                    mrr[f"MRR@{k}"] += 1.0 / (rank + 1)
                    break
    return {name: round(value / len(qrels), 5) for name, value in mrr.items()}


def mteb_mrr(qrels: dict, results: dict, k_values: list[int]) -> dict[str, float]:
    """MTEB 2.26's mrr (retrieval_metrics.mrr), averaged over the run's queries as
    calculate_retrieval_scores does: ties by document id descending, not rounded."""
    values: dict[str, list[float]] = {f"MRR@{k}": [] for k in k_values}
    for query, scores in results.items():
        relevant = {doc for doc, grade in qrels[query].items() if grade > 0}
        hits = sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)
        for k in k_values:
            ranks = [rank for rank, (doc, _) in enumerate(hits[:k]) if doc in relevant]
            values[f"MRR@{k}"].append(1.0 / (ranks[0] + 1) if ranks else 0.0)
    return {name: sum(v) / len(v) for name, v in values.items()}


def dialect_means(qrels: dict, run: dict, dialect: str, tables: list[dict]) -> dict:
    """rankwise's means for the names of *tables* (``NDCG@10``, ...) in *dialect*."""
    names = {f"{DIALECT_NAMES[key.split('@')[0]]}@{key.split('@')[1]}(dialect={dialect})": key
             for table in tables for key in table}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        means = rw.evaluate(qrels, run, list(names)).mean
    return {names[measure]: value for measure, value in means.items()}


def with_empty_results(seed: int) -> tuple[dict, dict]:
    """A random collection as BEIR/MTEB hand it (the run's queries judged), some results empty."""
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    qrels = {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}
    run = {q: docs for q, docs in run.items() if q in qrels}
    rng = np.random.default_rng(500 + seed)
    for query in qrels:
        if (query not in run or rng.random() < 0.3) and rng.random() < 0.7:
            run[query] = {}
    if all(run.values()):
        run[list(qrels)[-1]] = {}
    if not any(run.values()):
        query = next(iter(qrels))
        run[query] = {next(iter(qrels[query])): 1.0}
    return qrels, run


@pytest.mark.parametrize("seed", [None, *range(12)])
def test_beir_dialect_is_beirs_evaluate_with_empty_results(seed: int | None) -> None:
    qrels, run = (ISSUE_QRELS, ISSUE_RUN) if seed is None else with_empty_results(seed)
    if seed is not None and seed % 3 == 0:  # a query that retrieved only itself: emptied
        query = next(q for q in qrels if q in run)
        run[query] = {query: 9.0}
    want = [*beir_evaluate(pytrec_eval, qrels, copy_of(run), K_VALUES),
            beir_mrr(qrels, {q: {d: s for d, s in docs.items() if d != q}
                             for q, docs in run.items()}, K_VALUES)]
    got = dialect_means(qrels, run, "beir", want)
    assert got == {key: value for table in want for key, value in table.items()}
    if seed is None:  # the issue's numbers: q2 counts 0, q4 (not in the run) is left out
        assert got["NDCG@10"] == 0.54364 and got["MRR@10"] == 0.375


@pytest.mark.parametrize("seed", [None, *range(6)])
def test_installed_beir_with_empty_results(seed: int | None) -> None:
    evaluation = pytest.importorskip("beir.retrieval.evaluation")
    qrels, run = (ISSUE_QRELS, ISSUE_RUN) if seed is None else with_empty_results(seed)
    outputs = evaluation.EvaluateRetrieval.evaluate(qrels, copy_of(run), K_VALUES)
    mrr = evaluation.EvaluateRetrieval.evaluate_custom(qrels, copy_of(run), K_VALUES, "mrr")
    want = [*outputs, mrr]
    got = dialect_means(qrels, run, "beir", want)
    assert got == {key: value for table in want for key, value in table.items()}
    if seed is None:
        assert outputs[0]["NDCG@10"] == 0.54364


@pytest.mark.parametrize("seed", [None, *range(12)])
def test_mteb_dialect_is_mtebs_scores_with_empty_results(seed: int | None) -> None:
    qrels, run = (ISSUE_QRELS, ISSUE_RUN) if seed is None else with_empty_results(seed)
    scores = mteb_scores(pytrec_eval, qrels, run, K_VALUES)
    by_name = {"ndcg_at": "NDCG", "map_at": "MAP", "recall_at": "Recall",
               "precision_at": "P", "hit_rate_at": "HitRate"}
    want = {f"{by_name[key.rsplit('_', 1)[0]]}@{key.rsplit('_', 1)[1]}": value
            for key, value in scores.items() if key != "per_query"}
    mrr = mteb_mrr(qrels, run, K_VALUES)
    got = dialect_means(qrels, run, "mteb", [want, mrr])
    assert got == pytest.approx({**want, **mrr}, abs=1e-12)  # MTEB does not round MRR
    if seed is None:
        assert got["NDCG@10"] == 0.54364 and got["MRR@10"] == 0.5


def test_installed_mteb_with_empty_results() -> None:
    metrics = pytest.importorskip("mteb._evaluators.retrieval_metrics")
    for seed in (None, *range(6)):
        qrels, run = (ISSUE_QRELS, ISSUE_RUN) if seed is None else with_empty_results(seed)
        found = metrics.calculate_retrieval_scores(run, qrels, K_VALUES)
        want = {**found.ndcg, **found.map, **found.recall, **found.precision,
                **found.hit_rate, **found.mrr}
        got = dialect_means(qrels, run, "mteb", [want])
        assert got == pytest.approx(want, abs=1e-12), seed
