"""dialect=ranx against ranx itself on thousands of fresh queries whose ties decide.

Lists of 16 to 300 documents with few distinct scores (ranx's numba quicksort
moves tied documents there), short lists, queries whose judgments hold no
non-relevant document (ranx's bpref is NaN), empty rankings, judged queries the
run misses and queries only the run has. Both of ranx's calls: ``evaluate`` on a
run that holds exactly the judged queries (sorted once), and on one made
comparable (sorted twice). Every per-query value and every mean must be ranx's.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import rankwise as rw

pytestmark = pytest.mark.slow

K = (1, 3, 5, 10, 20, 100)
NAMES = ("ndcg", "ndcg_burges", "map", "mrr", "precision", "recall", "hit_rate", "hits")


def collection(n_queries: int, seed: int, comparable: bool) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        query = f"q{q:05d}"
        n = int(rng.integers(16, 301)) if q % 5 else int(rng.integers(1, 16))
        scores = rng.integers(0, int(rng.integers(1, 6)), size=n) / 2.0
        docs = [f"d{i}" for i in rng.choice(5000, size=n + 5, replace=False)]
        no_nonrel = q % 7 == 3
        judged: dict[str, int] = {}
        for doc in docs[:n]:
            u = rng.random()
            if u < 0.15:
                judged[doc] = int(rng.integers(1, 4))
            elif u < 0.4 and not no_nonrel:
                judged[doc] = 0
        for doc in docs[n:]:
            if rng.random() < 0.5:
                judged[doc] = int(rng.integers(1 if no_nonrel else 0, 3))
        qrels[query] = judged or {docs[-1]: 1}
        if comparable and q % 50 == 49:
            continue  # judged, not retrieved
        run[query] = dict(zip(docs[:n], scores.tolist()))
    if comparable:
        run["only_in_the_run"] = {"z1": 1.0, "z2": 1.0}
        run[next(iter(qrels))] = {}  # an empty ranking
    return qrels, run


def _ours(metric: str) -> str:
    if metric == "bpref":
        return "bpref(dialect=ranx)"
    if metric.startswith("rbp."):
        return f"rbp(dialect=ranx,p=0.{metric[4:]})"
    return f"{metric}(dialect=ranx)"


def ranx_values(qrels: dict, run: dict, comparable: bool, bpref_queries: int) -> tuple:
    from ranx import Qrels, Run, evaluate

    metrics = ["map", "mrr", "ndcg", "ndcg_burges", "hits", "rbp.8", "rbp.95"]
    metrics += [f"{m}@{k}" for k in K for m in NAMES]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if comparable:
            given = Run({q: v for q, v in run.items() if q in qrels and v})
            ranx_run = given.make_comparable(Qrels(qrels))
        else:
            ranx_run = Run(run)
        values = evaluate(Qrels(qrels), ranx_run, metrics, return_mean=False)
        queries = list(ranx_run.get_query_ids())
        bpref = {}  # query by query: ranx's batch bpref is wrong after an empty query
        for query in queries[:bpref_queries]:
            one = Qrels({query: qrels[query]})
            alone = Run({query: run[query]}) if run.get(query) else Run()
            alone = alone.make_comparable(one) if comparable else alone
            bpref[query] = float(np.asarray(evaluate(one, alone, ["bpref"],
                                                     return_mean=False)).ravel()[0])
    return metrics, queries, values, bpref


@pytest.mark.parametrize("comparable", [False, True], ids=["sorted_once", "make_comparable"])
@pytest.mark.parametrize("native", [True, False], ids=["c", "numpy"])
def test_every_value_is_ranx(comparable: bool, native: bool,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ranx")
    if not native:
        monkeypatch.setenv("RANKWISE_NO_C", "1")
    n_queries = 2000 if native else 500
    qrels, run = collection(n_queries, 11 + comparable, comparable)
    metrics, queries, theirs, bpref = ranx_values(qrels, run, comparable, 200)
    results = rw.evaluate(qrels, run, [_ours(m) for m in [*metrics, "bpref"]])
    row = {query: i for i, query in enumerate(results.query_ids)}
    compared = 0
    for metric in metrics:
        ours = results[_ours(metric)]
        for query, value in zip(queries, np.asarray(theirs[metric])):
            assert ours[row[query]] == pytest.approx(value, rel=1e-12, abs=1e-12), (
                metric, query)
            compared += 1
        assert results.mean[str(rw.parse(_ours(metric)))] == pytest.approx(
            float(np.mean(theirs[metric])), rel=1e-12, abs=1e-12), metric
    for query, value in bpref.items():
        mine = results["bpref(dialect=ranx)"][row[query]]
        assert (math.isnan(value) and math.isnan(mine)) or mine == pytest.approx(value), query
        compared += 1
    long_tied = sum(len(r) > 15 and len(set(r.values())) < len(r) for r in run.values())
    assert long_tied >= 0.75 * n_queries and compared >= 50 * n_queries
    assert any(math.isnan(v) for v in bpref.values())
