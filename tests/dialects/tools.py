"""Each tool's own per-query values, computed by running the tool (test-only).

``TOOLS[name](qrels, run)`` runs one tool on judgments ``{query: {doc: grade}}``
and a run ``{query: {doc: score}}`` (dict order is the input order) and
returns ``{rankwise measure: {query: value}}``: the key is the rankwise
measure that follows that tool (``"ndcg@10(dialect=lightgbm)"``), the value
the tool's own number for the query (NaN where the tool gives none: it
refuses the input, or leaves the query out).

The tools that see one labelled list per query (scikit-learn, LightGBM,
XGBoost, CatBoost, torchmetrics) get the run's documents of the query in
input order, labelled with their grade (0 when unjudged). Each is called
once per query where its interface evaluates groups together only as a mean.

Used by make_fixtures.py (which stores the outputs under tests/data/dialects)
and by the live tests (which run the tools where they are installed).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

KS = (1, 3, 5, 10, 20)

Values = dict[str, dict[str, float]]


def lists(qrels: dict, run: dict) -> dict[str, tuple[list[str], np.ndarray, np.ndarray]]:
    """Per run query: its documents (input order), their scores and their labels."""
    out = {}
    for query, ranking in run.items():
        judged = qrels.get(query, {})
        docs = list(ranking)
        scores = np.array([ranking[d] for d in docs], dtype=np.float64)
        labels = np.array([judged.get(d, 0) for d in docs], dtype=np.float64)
        out[query] = (docs, scores, labels)
    return out


def _put(values: Values, measure: str, query: str, value: float) -> None:
    values.setdefault(measure, {})[query] = float(value)


# --------------------------------------------------------------------------- scikit-learn


def sklearn_values(qrels: dict, run: dict) -> Values:
    """ndcg_score, dcg_score (k and none), LRAP and coverage_error, one row per query."""
    from sklearn.metrics import (
        coverage_error,
        dcg_score,
        label_ranking_average_precision_score,
        ndcg_score,
    )

    values: Values = {}
    for query, (_, scores, labels) in lists(qrels, run).items():
        y_true, y_score = labels[None, :], scores[None, :]
        binary = (labels >= 1).astype(np.int64)[None, :]
        for k in (*KS, None):
            suffix = "" if k is None else f"@{k}"
            for family, function in (("ndcg", ndcg_score), ("dcg", dcg_score)):
                try:
                    value = function(y_true, y_score, k=k)
                except ValueError:  # one document, or a negative grade for ndcg_score
                    value = math.nan
                _put(values, f"{family}{suffix}(dialect=sklearn)", query, value)
        for measure, function in (
            ("map(dialect=sklearn)", label_ranking_average_precision_score),
            ("coverage(dialect=sklearn)", coverage_error),
        ):
            try:
                value = function(binary, y_score)
            except ValueError:
                value = math.nan
            _put(values, measure, query, value)
    return values


# --------------------------------------------------------------------------- LightGBM


def _lightgbm_eval(labels: np.ndarray, scores: np.ndarray, sizes: list[int]) -> dict[str, float]:
    import lightgbm as lgb

    data = lgb.Dataset(np.zeros((len(labels), 1)), label=labels, group=sizes,
                       init_score=scores, free_raw_data=False)
    params = {"objective": "lambdarank", "metric": ["ndcg", "map"], "eval_at": list(KS),
              "verbose": -1, "num_threads": 1}
    booster = lgb.Booster(params=params, train_set=data)  # no tree: the scores are init_score
    return {name: float(value) for _, name, value, _ in booster.eval_train()}


def lightgbm_values(qrels: dict, run: dict) -> Values:
    """LightGBM's ndcg@k and map@k (a booster with no tree scores init_score)."""
    values: Values = {}
    for query, (_, scores, labels) in lists(qrels, run).items():
        out = {} if (labels < 0).any() else _lightgbm_eval(labels, scores, [len(labels)])
        for k in KS:
            for family in ("ndcg", "map"):
                _put(values, f"{family}@{k}(dialect=lightgbm)", query,
                     out.get(f"{family}@{k}", math.nan))
    return values


# --------------------------------------------------------------------------- XGBoost

_XGB = re.compile(r"\teval-([^\t:]+):([^\t]+)")


def _xgboost_eval(labels: np.ndarray, scores: np.ndarray, sizes: list[int], metrics: list[str],
                  exp_gain: bool = True) -> dict[str, float]:
    import xgboost as xgb

    data = xgb.DMatrix(np.zeros((len(labels), 1), dtype=np.float32), label=labels,
                       base_margin=scores)
    data.set_group(sizes)
    params = {"objective": "rank:ndcg", "eval_metric": metrics, "nthread": 1,
              "ndcg_exp_gain": exp_gain}
    booster = xgb.train(params, data, num_boost_round=0)  # no tree: predictions = base_margin
    return {name: float(value) for name, value in _XGB.findall(booster.eval(data, "eval"))}


def xgboost_values(qrels: dict, run: dict) -> Values:
    """XGBoost's ndcg, map (with and without '-') and pre, exponential and linear gain.

    map and pre refuse graded labels: they get grade >= 1.
    """
    values: Values = {}
    graded = [f"ndcg@{k}" for k in KS] + [f"ndcg@{k}-" for k in KS] + ["ndcg"]
    binary = [f"map@{k}" for k in KS] + [f"map@{k}-" for k in KS] + ["map"]
    binary += [f"pre@{k}" for k in KS]

    def name(metric: str, linear: bool = False) -> str:
        base, _, cut = metric.partition("@")
        minus = cut.endswith("-") or base.endswith("-")
        cut = cut.rstrip("-")
        base = base.rstrip("-")
        family = {"ndcg": "ndcg", "map": "map", "pre": "P"}[base]
        params = ["dialect=xgboost"] + (["gain=linear"] if linear else []) + (
            ["empty=0"] if minus else []
        )
        return f"{family}{'@' + cut if cut else ''}({','.join(params)})"

    for query, (_, scores, labels) in lists(qrels, run).items():
        sizes = [len(labels)]
        exp = {} if (labels < 0).any() else _xgboost_eval(labels, scores, sizes, graded)
        linear = _xgboost_eval(labels, scores, sizes, graded, exp_gain=False)
        binarised = _xgboost_eval((labels >= 1).astype(np.float64), scores, sizes, binary)
        for metric in graded:
            _put(values, name(metric), query, exp.get(metric, math.nan))
            _put(values, name(metric, linear=True), query, linear[metric])
        for metric in binary:
            if metric.startswith("pre") and metric.endswith("-"):
                continue
            _put(values, name(metric), query, binarised[metric])
    return values


# --------------------------------------------------------------------------- CatBoost

_CATBOOST = {
    "NDCG": "ndcg", "NDCG;type=Exp": "ndcg", "DCG": "dcg", "MAP": "map", "MRR": "mrr",
    "PrecisionAt": "P", "RecallAt": "recall",
}


def catboost_values(qrels: dict, run: dict) -> Values:
    """CatBoost's NDCG (Base and Exp), DCG, MAP, MRR, PrecisionAt and RecallAt, with and
    without top."""
    from catboost.utils import eval_metric

    values: Values = {}
    for query, (_, scores, labels) in lists(qrels, run).items():
        group = [0] * len(labels)
        for metric, family in _CATBOOST.items():
            base, _, extra = metric.partition(";")
            exp = ",gain=exp" if extra == "type=Exp" else ""
            tops: tuple[int | None, ...] = (*KS, None)
            if family in ("P", "recall"):
                tops = KS
            for top in tops:
                options = [f"top={top}"] if top is not None else []
                if extra:
                    options.append(extra)
                text = base + (":" + ";".join(options) if options else "")
                value = eval_metric(labels, scores, text, group_id=group)[0]
                cut = "" if top is None else f"@{top}"
                _put(values, f"{family}{cut}(dialect=catboost{exp})", query, value)
    return values


# --------------------------------------------------------------------------- torchmetrics


def torchmetrics_values(qrels: dict, run: dict) -> Values:
    """torchmetrics' retrieval metrics (graded targets for NDCG, grade >= 1 for the others),
    all queries at once with ``indexes``; empty_target_action 'neg' and, for NDCG and MAP,
    'pos' and 'skip'."""
    import torch
    from torchmetrics.retrieval import (
        RetrievalHitRate,
        RetrievalMAP,
        RetrievalMRR,
        RetrievalNormalizedDCG,
        RetrievalPrecision,
        RetrievalRecall,
    )

    per_query = lists(qrels, run)
    queries = list(per_query)
    indexes = torch.tensor(np.concatenate([np.full(len(per_query[q][1]), i)
                                           for i, q in enumerate(queries)]))
    preds = torch.tensor(np.concatenate([per_query[q][1] for q in queries]))
    graded = torch.tensor(np.concatenate([per_query[q][2] for q in queries]).astype(np.int64))
    binary = (graded >= 1).long()

    def keep(values: Any, dim: Any = None) -> Any:
        return values  # the per-query values, not their mean

    classes = {"ndcg": RetrievalNormalizedDCG, "map": RetrievalMAP, "mrr": RetrievalMRR,
               "P": RetrievalPrecision, "recall": RetrievalRecall, "hit": RetrievalHitRate}
    values: Values = {}
    for family, cls in classes.items():
        for k in (*KS, None):
            if k is None and family in ("P", "recall", "hit"):
                continue
            actions = ("neg", "pos", "skip") if family in ("ndcg", "map") else ("neg",)
            for action in actions:
                metric = cls(top_k=k, empty_target_action=action, aggregation=keep)
                target = graded if family == "ndcg" else binary
                metric.update(preds, target, indexes=indexes)
                out = metric.compute().double().numpy()
                if action == "skip":  # the skipped queries are dropped from the output
                    kept = [q for i, q in enumerate(queries)
                            if int(target[indexes == i].sum()) != 0]
                    mapping = dict(zip(kept, out))
                    out = np.array([mapping.get(q, math.nan) for q in queries])
                empty = {"neg": "", "pos": ",empty=1", "skip": ",empty=skip"}[action]
                cut = "" if k is None else f"@{k}"
                for query, value in zip(queries, out):
                    _put(values, f"{family}{cut}(dialect=torchmetrics{empty})", query, value)
    return values


# --------------------------------------------------------------------------- ranx


def ranx_values(qrels: dict, run: dict) -> Values:
    """ranx's metrics (make_comparable: judged queries without a run score 0, and the run is
    sorted a second time). bpref is computed one query at a time (in a batch, ranx 0.3.21
    gives 0.0 to the queries after a query without a relevant document), each query's run
    made comparable as the batch's is, so sorted twice too."""
    from ranx import Qrels, Run, evaluate

    names = {"ndcg": "ndcg", "ndcg_burges": "ndcg", "map": "map", "mrr": "mrr",
             "precision": "P", "recall": "recall", "hit_rate": "hit", "hits": "rel_ret"}
    metrics = ["map", "mrr", "ndcg", "ndcg_burges", "hits", "rbp.8"]
    for k in KS:
        metrics += [f"{m}@{k}" for m in names]
    judged = {q: dict(v) for q, v in qrels.items()}
    retrieved = {q: dict(v) for q, v in run.items() if q in qrels}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_run = Run(retrieved).make_comparable(Qrels(judged))
        out = evaluate(Qrels(judged), ranx_run, metrics, return_mean=False,
                       make_comparable=False)
        queries = list(ranx_run.get_query_ids())
        bpref = {}
        for query in queries:
            one = Qrels({query: judged[query]})
            alone = Run({query: retrieved[query]}) if query in retrieved else Run()
            single = evaluate(one, alone.make_comparable(one), ["bpref"], return_mean=False)
            bpref[query] = float(np.asarray(single).ravel()[0])
    values: Values = {}
    for metric, per in out.items():
        base, _, cut = metric.partition("@")
        if base == "rbp.8":
            measure = "rbp(dialect=ranx)"
        else:
            family = names[base]
            gain = ",gain=exp" if base == "ndcg_burges" else ""
            measure = f"{family}{'@' + cut if cut else ''}(dialect=ranx{gain})"
        for query, value in zip(queries, np.asarray(per)):
            _put(values, measure, query, value)
    for query, value in bpref.items():
        _put(values, "bpref(dialect=ranx)", query, value)
    return values


# --------------------------------------------------------------------------- recommenders


def recommenders_values(qrels: dict, run: dict) -> Values:
    """Microsoft Recommenders' python_evaluation, one user (query) at a time.

    rating_true holds the judgments with grade >= 1 (recommenders counts every row
    it is given as relevant); a query without one is left out by the tool (NaN here).
    """
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    values: Values = {}
    for query, ranking in run.items():
        relevant = {d: g for d, g in qrels.get(query, {}).items() if g >= 1}
        if query not in qrels:
            continue
        true = pd.DataFrame({"userID": [query] * len(relevant), "itemID": list(relevant),
                             "rating": [float(g) for g in relevant.values()]})
        pred = pd.DataFrame({"userID": [query] * len(ranking), "itemID": list(ranking),
                             "prediction": list(ranking.values())})
        for k in KS:
            if not relevant:
                row = dict.fromkeys(("P", "recall", "map", "mapR", "ndcg", "raw", "exp"),
                                    math.nan)
            else:
                row = {
                    "P": pe.precision_at_k(true, pred, k=k),
                    "recall": pe.recall_at_k(true, pred, k=k),
                    "map": pe.map_at_k(true, pred, k=k),
                    "mapR": pe.map(true, pred, k=k),
                    "ndcg": pe.ndcg_at_k(true, pred, k=k),
                    "raw": pe.ndcg_at_k(true, pred, k=k, score_type="raw"),
                    "exp": pe.ndcg_at_k(true, pred, k=k, score_type="exp",
                                        discfun_type="log2"),
                }
            for key, measure in (
                ("P", f"P@{k}(dialect=recommenders)"),
                ("recall", f"recall@{k}(dialect=recommenders)"),
                ("map", f"map@{k}(dialect=recommenders)"),
                ("mapR", f"map@{k}(dialect=recommenders,denominator=R)"),
                ("ndcg", f"ndcg@{k}(dialect=recommenders)"),
                ("raw", f"ndcg@{k}(dialect=recommenders,gain=linear)"),
                ("exp", f"ndcg@{k}(dialect=recommenders,gain=exp)"),
            ):
                _put(values, measure, query, row[key])
    return values


# --------------------------------------------------------------------------- BEIR, pytrec_eval


def beir_values(qrels: dict, run: dict) -> Values:
    """BEIR's EvaluateRetrieval.evaluate (ignore_identical_ids=True) and evaluate_custom('mrr'),
    one query at a time (each value is a mean of one, rounded to 5 decimals by BEIR)."""
    import logging

    from beir.retrieval.evaluation import EvaluateRetrieval

    logging.getLogger("beir").setLevel(logging.ERROR)
    values: Values = {}
    names = {"NDCG": "ndcg", "MAP": "map", "Recall": "recall", "P": "P", "MRR": "mrr"}
    for query in qrels:
        results = {query: dict(run.get(query, {}))}
        judged = {query: dict(qrels[query])}
        # a query the retriever did not return is not evaluated; its MRR counts 0 (BEIR
        # divides by every judged query)
        outputs = EvaluateRetrieval.evaluate(judged, results, list(KS)) if query in run else ()
        mrr = EvaluateRetrieval.evaluate_custom(judged, results, list(KS), "mrr")
        for output in (*outputs, mrr):
            for key, value in output.items():
                base, _, cut = key.partition("@")
                _put(values, f"{names[base]}@{cut}(dialect=beir)", query, value)
    return values


def pytrec_eval_values(qrels: dict, run: dict) -> Values:
    """pytrec_eval (trec_eval inside; scores read as float32): the measures BEIR and MTEB
    take from it, under their rankwise names in the mteb dialect (not rounded)."""
    import pytrec_eval

    cuts = ",".join(map(str, KS))
    measures = {f"ndcg_cut.{cuts}", f"map_cut.{cuts}", f"recall.{cuts}", f"P.{cuts}",
                f"success.{cuts}", "recip_rank"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures)
    out = evaluator.evaluate({q: v for q, v in run.items() if q in qrels})
    names = {"ndcg_cut": "ndcg", "map_cut": "map", "recall": "recall", "P": "P",
             "success": "hit"}
    values: Values = {}
    for query, per in out.items():
        for key, value in per.items():
            if key == "recip_rank":
                continue
            base, _, cut = key.rpartition("_")
            _put(values, f"{names[base]}@{cut}(dialect=mteb)", query, value)
    return values


# --------------------------------------------------------------------------- the tools' means


def _joined(qrels: dict, run: dict, binary: bool = False
            ) -> tuple[np.ndarray, np.ndarray, list[int]]:
    per = [(s, (lab >= 1).astype(np.float64) if binary else lab)
           for _, s, lab in lists(qrels, run).values()]
    return (np.concatenate([lab for _, lab in per]), np.concatenate([s for s, _ in per]),
            [len(s) for s, _ in per])


def lightgbm_means(qrels: dict, run: dict) -> dict[str, float]:
    """LightGBM's own means over every query of the run (one Dataset with its groups)."""
    labels, scores, sizes = _joined(qrels, {q: r for q, r in run.items() if q in qrels
                                            and min(qrels[q].values(), default=0) >= 0
                                            and not any(qrels[q].get(d, 0) < 0 for d in r)})
    out = _lightgbm_eval(labels, scores, sizes)
    return {f"{m.split('@')[0]}@{m.split('@')[1]}(dialect=lightgbm)": v for m, v in out.items()}


def xgboost_means(qrels: dict, run: dict) -> dict[str, float]:
    """XGBoost's own means (one DMatrix with its groups; map and pre on grade >= 1)."""
    kept = {q: r for q, r in run.items() if q in qrels}
    labels, scores, sizes = _joined(qrels, kept)
    out = {f"ndcg@{k}(dialect=xgboost,gain=linear)": v for k, v in (
        (m.split("@")[1], v) for m, v in _xgboost_eval(
            labels, scores, sizes, [f"ndcg@{k}" for k in KS], exp_gain=False).items())}
    binary, scores, sizes = _joined(qrels, kept, binary=True)
    for metric, value in _xgboost_eval(binary, scores, sizes,
                                       [f"map@{k}" for k in KS] + [f"pre@{k}" for k in KS]
                                       ).items():
        base, cut = metric.split("@")
        out[f"{'P' if base == 'pre' else base}@{cut}(dialect=xgboost)"] = value
    return out


def catboost_means(qrels: dict, run: dict) -> dict[str, float]:
    """CatBoost's own means (eval_metric with the group ids of every query)."""
    from catboost.utils import eval_metric

    kept = {q: r for q, r in run.items() if q in qrels}
    labels, scores, sizes = _joined(qrels, kept)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    out = {}
    for top in KS:
        for metric, family in (("NDCG", "ndcg"), ("MAP", "map"), ("MRR", "mrr"),
                               ("PrecisionAt", "P"), ("RecallAt", "recall")):
            value = eval_metric(labels, scores, f"{metric}:top={top}", group_id=groups)[0]
            out[f"{family}@{top}(dialect=catboost)"] = value
    return out


def torchmetrics_means(qrels: dict, run: dict) -> dict[str, float]:
    """torchmetrics' own means (the default aggregation) of NDCG@k and MAP@k, over the
    queries without tied scores (:func:`defined_part`)."""
    import torch
    from torchmetrics.retrieval import RetrievalMAP, RetrievalNormalizedDCG

    qrels, run = defined_part("torchmetrics", qrels, run)
    kept = {q: r for q, r in run.items() if q in qrels}
    labels, scores, sizes = _joined(qrels, kept)
    indexes = torch.tensor(np.repeat(np.arange(len(sizes)), sizes))
    out = {}
    for k in KS:
        for family, cls, target in (("ndcg", RetrievalNormalizedDCG, labels.astype(np.int64)),
                                    ("map", RetrievalMAP, (labels >= 1).astype(np.int64))):
            metric = cls(top_k=k)
            metric.update(torch.tensor(scores), torch.tensor(target), indexes=indexes)
            out[f"{family}@{k}(dialect=torchmetrics)"] = float(metric.compute())
    return out


def recommenders_means(qrels: dict, run: dict) -> dict[str, float]:
    """Microsoft Recommenders' own means over every user (judgments with grade >= 1)."""
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    rows = [(q, d, float(g)) for q, judged in qrels.items() for d, g in judged.items() if g >= 1]
    true = pd.DataFrame(rows, columns=["userID", "itemID", "rating"])
    pred = pd.DataFrame([(q, d, s) for q, r in run.items() for d, s in r.items()],
                        columns=["userID", "itemID", "prediction"])
    out = {}
    for k in KS:
        out[f"P@{k}(dialect=recommenders)"] = pe.precision_at_k(true, pred, k=k)
        out[f"recall@{k}(dialect=recommenders)"] = pe.recall_at_k(true, pred, k=k)
        out[f"map@{k}(dialect=recommenders)"] = pe.map_at_k(true, pred, k=k)
        out[f"map@{k}(dialect=recommenders,denominator=R)"] = pe.map(true, pred, k=k)
        out[f"ndcg@{k}(dialect=recommenders)"] = pe.ndcg_at_k(true, pred, k=k)
    return out


def ranx_means(qrels: dict, run: dict) -> dict[str, float]:
    """ranx's own means (make_comparable), over the whole fixture."""
    from ranx import Qrels, Run, evaluate

    metrics = [f"{m}@{k}" for k in KS
               for m in ("ndcg", "map", "mrr", "precision", "recall", "hits")]
    judged = Qrels({q: dict(v) for q, v in qrels.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_run = Run({q: dict(v) for q, v in run.items() if q in qrels}).make_comparable(judged)
        out = evaluate(judged, ranx_run, metrics, make_comparable=False)
    names = {"ndcg": "ndcg", "map": "map", "mrr": "mrr", "precision": "P", "recall": "recall",
             "hits": "rel_ret"}
    return {f"{names[m.split('@')[0]]}@{m.split('@')[1]}(dialect=ranx)": float(v)
            for m, v in out.items()}


def beir_means(qrels: dict, run: dict) -> dict[str, float]:
    """BEIR's own means: evaluate() then evaluate_custom('mrr') on what it left."""
    from beir.retrieval.evaluation import EvaluateRetrieval

    results = {q: dict(r) for q, r in run.items() if q in qrels}
    judged = {q: dict(v) for q, v in qrels.items()}
    outputs = EvaluateRetrieval.evaluate(judged, results, list(KS))
    mrr = EvaluateRetrieval.evaluate_custom(judged, results, list(KS), "mrr")
    names = {"NDCG": "ndcg", "MAP": "map", "Recall": "recall", "P": "P", "MRR": "mrr"}
    return {f"{names[key.split('@')[0]]}@{key.split('@')[1]}(dialect=beir)": value
            for output in (*outputs, mrr) for key, value in output.items()}


# --------------------------------------------------------------------------- gdeval


def gdeval_script() -> str | None:
    """gdeval.pl, where ``RANKWISE_GDEVAL`` names it and perl is on the path (else None).

    Its printf widened from %.5f to %.17g gives full doubles; the original's
    5 decimals are compared to 5e-6.
    """
    import os
    import shutil

    script = os.environ.get("RANKWISE_GDEVAL")
    return script if script and shutil.which("perl") else None


def _gdeval_outputs(
    qrels: dict, run: dict, flags: tuple[str, ...] = ()
) -> dict[int, list[tuple[str, float, float]]]:
    """gdeval.pl's (query, ndcg@k, err@k) rows for each cutoff, its mean as query "*mean*".

    Queries are numbered for it (it reads numeric topics) and named back.
    """
    import subprocess
    import tempfile
    from pathlib import Path

    script = gdeval_script()
    if script is None:
        raise RuntimeError("set RANKWISE_GDEVAL to gdeval.pl (and put perl on the path)")
    number = {q: str(i + 1) for i, q in enumerate(sorted(set(qrels) | set(run)))}
    name = {n: q for q, n in number.items()}
    name["amean"] = "*mean*"
    outputs = {}
    with tempfile.TemporaryDirectory() as work:
        qpath, rpath = Path(work) / "qrels", Path(work) / "run"
        qpath.write_text("".join(f"{number[q]} 0 {d} {g}\n" for q, docs in qrels.items()
                                 for d, g in docs.items()))
        rpath.write_text("".join(f"{number[q]} Q0 {d} {i} {s!r} run\n"
                                 for q, docs in run.items()
                                 for i, (d, s) in enumerate(docs.items(), start=1)))
        for k in KS:
            lines = subprocess.run(
                ["perl", script, *flags, "-k", str(k), str(qpath), str(rpath)],
                capture_output=True, text=True, check=True,
            ).stdout.strip().splitlines()
            assert lines[0] == f"runid,topic,ndcg@{k},err@{k}", lines[0]
            outputs[k] = [(name[topic], float(ndcg), float(err))
                          for _, topic, ndcg, err in (line.split(",") for line in lines[1:])]
    return outputs


def gdeval_values(qrels: dict, run: dict) -> Values:
    """gdeval.pl's ndcg@k and err@k, for every k (one perl run per k).

    gdeval prints nothing for a query without a positive judgment (NaN here).
    """
    values: Values = {}
    for k, rows in _gdeval_outputs(qrels, run).items():
        for measure in (f"ndcg@{k}(dialect=gdeval)", f"err@{k}(dialect=gdeval)"):
            values[measure] = {q: math.nan for q in run if q in qrels}
        for query, ndcg, err in rows:
            if query != "*mean*":
                _put(values, f"ndcg@{k}(dialect=gdeval)", query, ndcg)
                _put(values, f"err@{k}(dialect=gdeval)", query, err)
    return values


def gdeval_means(qrels: dict, run: dict, complete: bool = False) -> dict[str, float]:
    """gdeval.pl's own means (its ``amean`` row); with *complete*, of ``gdeval.pl -c``."""
    out = {}
    for k, rows in _gdeval_outputs(qrels, run, ("-c",) if complete else ()).items():
        _, ndcg, err = next(row for row in rows if row[0] == "*mean*")
        out[f"ndcg@{k}(dialect=gdeval)"] = ndcg
        out[f"err@{k}(dialect=gdeval)"] = err
    return out


def defined_part(tool: str, qrels: dict, run: dict) -> tuple[dict, dict]:
    """The fixture without the queries whose value *tool* leaves unspecified.

    torchmetrics' MAP, MRR, P and recall order tied scores in no specified
    way: their means are taken over the queries without ties (the stored
    means and the test alike). (ranx's order, numba's quicksort, is
    reproduced: all its queries count.)
    """
    def tied(ranking: dict, float32: bool) -> bool:
        scores = np.array(list(ranking.values()), dtype=np.float32 if float32 else np.float64)
        return len(np.unique(scores)) < len(scores)

    if tool == "torchmetrics":
        keep = {q for q, r in run.items() if not tied(r, True)}
    else:
        return qrels, run
    keep |= set(qrels) - set(run)
    return ({q: v for q, v in qrels.items() if q in keep},
            {q: v for q, v in run.items() if q in keep})


MEANS: dict[str, Callable[[dict, dict], dict[str, float]]] = {
    "lightgbm": lightgbm_means, "xgboost": xgboost_means, "catboost": catboost_means,
    "torchmetrics": torchmetrics_means, "recommenders": recommenders_means,
    "ranx": ranx_means, "beir": beir_means, "gdeval": gdeval_means,
}
"""Tool name -> the tool's own means over the whole fixture, in one call."""


TOOLS: dict[str, tuple[str, Callable[[dict, dict], Values]]] = {
    "sklearn": ("sklearn", sklearn_values),
    "lightgbm": ("lightgbm", lightgbm_values),
    "xgboost": ("xgboost", xgboost_values),
    "catboost": ("catboost", catboost_values),
    "torchmetrics": ("torchmetrics", torchmetrics_values),
    "ranx": ("ranx", ranx_values),
    # the module it imports: tests/recommenders (on sys.path) is a namespace "recommenders"
    "recommenders": ("recommenders.evaluation", recommenders_values),
    "beir": ("beir", beir_values),
    "pytrec_eval": ("pytrec_eval", pytrec_eval_values),
    "gdeval": ("perl", gdeval_values),
}
"""Tool name -> (the Python module it runs on, the function running it; "perl": gdeval.pl
through perl, see :func:`gdeval_script`)."""


def version_of(tool: str) -> str:
    """The installed version of *tool* (its distribution's)."""
    from importlib.metadata import version

    if tool == "gdeval":
        import subprocess

        script = gdeval_script()
        line = subprocess.run(["perl", str(script), "-v"], capture_output=True, text=True,
                              check=True).stdout.strip()
        return line.split(": ", 1)[-1]  # "version 1.3 (Mon Apr 29 20:50:24 EDT 2013)"
    distribution = {"pytrec_eval": "pytrec_eval-terrier", "sklearn": "scikit-learn"}
    return version(distribution.get(tool, tool))
