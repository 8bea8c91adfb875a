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

from types import ModuleType
from typing import Any

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
    want = mteb_scores(pytrec_eval, qrels, run, K_VALUES)
    got = mteb_scores(drop_in, qrels, run, K_VALUES)
    assert set(got["per_query"]) == set(want["per_query"])
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
