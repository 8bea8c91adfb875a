"""rankwise.compat.ranx against ranx 0.3.21 itself: every per-query value of every metric.

Random collections where ties decide: lists of 16 to 300 documents with few
distinct scores (ranx's numba quicksort moves tied documents there) and short
ones, empty rankings, negative grades, queries judged with nothing relevant or
with no judgment at all, judged queries the run misses and queries only the
run has (``make_comparable=True``, which sorts the run a second time). Each of
ranx's ways in: ``Qrels``/``Run`` from dicts, made comparable, plain dicts
(ranx sorts them its own way), a ``Run`` filled by ``add_score`` (sorted when
evaluated), TREC files; and ranx's metric functions on its arrays.

Values must be ranx's to 1e-12 (NaN where ranx's is NaN). The counts: 5 forms
x 2 seeds x 83 metrics x up to 160 queries (147,588 values), bpref query by
query and ranx's metric functions on its arrays (7,492 more): 155,080 values,
and the means and standard deviations of test_means_are_ranx_means.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from rankwise.compat import ranx as drop_in

ranx = pytest.importorskip("ranx")
ranx_metrics = pytest.importorskip("ranx.metrics")

K = (0, 1, 3, 5, 10, 20, 100)
NAMES = ("hits", "hit_rate", "precision", "recall", "f1", "mrr", "map", "dcg", "dcg_burges",
         "ndcg", "ndcg_burges")
METRICS = [f"{name}@{k}" if k else name for name in NAMES for k in K] + [
    "r-precision", "rbp.5", "rbp.8", "rbp.95", "ndcg@10-l2", "map-l2", "precision@5-l3",
    "rbp.8-l2", "r-precision-l2", "hits@20-l2", "f1@10-l2"]
N_QUERIES = 160


def collection(seed: int, empty: bool = True) -> tuple[dict, dict]:
    """Random judgments and run (every query of one in the other)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(N_QUERIES):  # seed 1: ids not in sorted order, of different lengths
        query = f"q{q:04d}" if seed % 2 == 0 else f"q{(q * 7919) % 1009}"
        n = int(rng.integers(16, 301)) if q % 4 else int(rng.integers(0 if empty else 1, 16))
        scores = (rng.integers(0, int(rng.integers(1, 6)), size=n) / 2.0 if q % 3
                  else rng.random(n).round(6))
        docs = [f"d{i}" for i in rng.choice(9000, size=n + 5, replace=False)]
        judged: dict[str, int] = {}
        nothing_relevant = q % 11 == 5
        for doc in docs[:n]:
            u = rng.random()
            if u < 0.15:
                judged[doc] = 0 if nothing_relevant else int(rng.integers(1, 4))
            elif u < 0.35:
                judged[doc] = 0
            elif u < 0.40:
                judged[doc] = -1
        for doc in docs[n:]:
            if rng.random() < 0.5:
                judged[doc] = 0 if nothing_relevant else int(rng.integers(0, 3))
        qrels[query] = {} if q % 37 == 17 else (judged or {docs[-1]: 1})
        run[query] = dict(zip(docs[:n], scores.tolist()))
    return qrels, run


def compared(want: dict, got: dict, label: str) -> int:
    """Assert every value equal (1e-12, NaN where ranx's is NaN); the number compared."""
    count = 0
    assert list(got) == list(want)
    for metric, values in want.items():
        expected, actual = np.asarray(values), np.asarray(got[metric])
        assert actual.shape == expected.shape, (label, metric)
        np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-12, equal_nan=True,
                                   err_msg=f"{label} {metric}")
        count += expected.size
    return count


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety warnings
        return function(*args, **kwargs)


def _trec_files(folder: Path, qrels: dict, run: dict, seed: int) -> tuple[Path, Path]:
    """The collection as TREC files, the run's lines shuffled (a dict then holds each query's
    documents in file order, and ranx sorts from there)."""
    rng = np.random.default_rng(seed)
    lines = [f"{q} Q0 {d} 1 {s!r} tag" for q, docs in run.items() for d, s in docs.items()]
    lines = [lines[i] for i in rng.permutation(len(lines))]
    run_path, qrels_path = folder / "run.trec", folder / "qrels.trec"
    run_path.write_text("\n".join(lines) + "\n")
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                  for d, g in docs.items()))
    return qrels_path, run_path


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("form", ["objects", "comparable", "dicts", "added", "files"])
def test_per_query_values_are_ranx_values(form: str, seed: int, tmp_path: Path) -> None:
    qrels, run = collection(seed, empty=form != "dicts")  # ranx fails on an empty dict ranking
    if form == "objects":
        want = _quiet(ranx.evaluate, ranx.Qrels(qrels), ranx.Run(run), METRICS, return_mean=False)
        got = drop_in.evaluate(drop_in.Qrels(qrels), drop_in.Run(run), METRICS, return_mean=False)
    elif form == "comparable":  # judged queries the run misses, queries only the run has
        partial = {q: docs for i, (q, docs) in enumerate(run.items()) if i % 9}
        partial["only_in_the_run"] = {"z1": 1.0, "z2": 1.0}
        want = _quiet(ranx.evaluate, ranx.Qrels(qrels), ranx.Run(partial), METRICS,
                      return_mean=False, make_comparable=True)
        got = drop_in.evaluate(drop_in.Qrels(qrels), drop_in.Run(partial), METRICS,
                               return_mean=False, make_comparable=True)
    elif form == "dicts":
        qrels = {q: judged or {"never": 0} for q, judged in qrels.items()}
        want = _quiet(ranx.evaluate, qrels, run, METRICS, return_mean=False)
        got = drop_in.evaluate(qrels, run, METRICS, return_mean=False)
    elif form == "added":  # unsorted until evaluated
        theirs, ours = ranx.Run(), drop_in.Run()
        for query, docs in run.items():
            for doc, score in docs.items():
                _quiet(theirs.add_score, query, doc, score)
                ours.add_score(query, doc, score)
        judged = {q: qrels[q] for q in run if run[q]}
        want = _quiet(ranx.evaluate, ranx.Qrels(judged), theirs, METRICS, return_mean=False)
        got = drop_in.evaluate(drop_in.Qrels(judged), ours, METRICS, return_mean=False)
    else:
        judged = {q: docs for q, docs in qrels.items() if docs and run[q]}
        qrels_path, run_path = _trec_files(tmp_path, judged, {q: run[q] for q in judged}, seed)
        want = _quiet(ranx.evaluate, ranx.Qrels.from_file(str(qrels_path)),
                      ranx.Run.from_file(str(run_path)), METRICS, return_mean=False)
        got = drop_in.evaluate(drop_in.Qrels.from_file(str(qrels_path)),
                               drop_in.Run.from_file(str(run_path)), METRICS, return_mean=False)
    assert compared(want, got, form) >= 83 * 100


@pytest.mark.parametrize("seed", [0, 1])
def test_means_are_ranx_means(seed: int) -> None:
    qrels, run = collection(seed)
    theirs, ours = ranx.Run(run), drop_in.Run(run)
    want = _quiet(ranx.evaluate, ranx.Qrels(qrels), theirs, METRICS, return_std=True)
    got = drop_in.evaluate(drop_in.Qrels(qrels), ours, METRICS, return_std=True)
    for metric in METRICS:
        for key in ("mean", "std"):
            assert isinstance(got[metric][key], np.floating)
            assert got[metric][key] == pytest.approx(want[metric][key], rel=0, abs=1e-12)
        assert ours.mean_scores[metric] == pytest.approx(theirs.mean_scores[metric], abs=1e-12)
        assert ours.std_scores[metric] == pytest.approx(theirs.std_scores[metric], abs=1e-12)
        assert list(ours.scores[metric]) == list(theirs.scores[metric])
        np.testing.assert_allclose(list(ours.scores[metric].values()),
                                   list(theirs.scores[metric].values()), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_bpref_query_by_query_is_ranx_bpref(seed: int) -> None:
    """ranx's batch bpref gives 0.0 to the queries after one with nothing relevant (a numba
    division by zero); each query alone, its values (NaN without judged non-relevant)."""
    qrels, run = collection(seed)
    count = 0
    for query in [q for q in qrels if qrels[q] and run[q]][:80]:  # ranx refuses empty ones
        one_qrels, one_run = {query: qrels[query]}, {query: run[query]}
        want = _quiet(ranx.evaluate, ranx.Qrels(one_qrels), ranx.Run(one_run),
                      ["bpref", "bpref-l2"], return_mean=False)
        got = drop_in.evaluate(drop_in.Qrels(one_qrels), drop_in.Run(one_run),
                               ["bpref", "bpref-l2"], return_mean=False)
        count += compared(want, got, query)
    assert count == 160


@pytest.mark.parametrize("seed", [0, 1])
def test_metric_functions_are_ranx_metric_functions(seed: int) -> None:
    qrels, run = collection(seed, empty=False)
    judged = {q: docs for q, docs in qrels.items() if docs}
    y_true = _quiet(ranx.Qrels(judged).to_typed_list)
    y_pred = _quiet(ranx.Run({q: run[q] for q in judged}).to_typed_list)
    from rankwise.compat.ranx import metrics as ours
    count = 0
    for name in ("hits", "hit_rate", "precision", "recall", "f1", "reciprocal_rank",
                 "average_precision", "dcg", "dcg_burges", "ndcg", "ndcg_burges"):
        for k in (0, 1, 5, 30):
            want = _quiet(getattr(ranx_metrics, name), y_true, y_pred, k)
            count += compared({name: want}, {name: getattr(ours, name)(y_true, y_pred, k)},
                              f"{name}@{k}")
    for p in (0.5, 0.9):
        want = _quiet(ranx_metrics.rank_biased_precision, y_true, y_pred, p)
        count += compared({"rbp": want}, {"rbp": ours.rank_biased_precision(y_true, y_pred, p)},
                          f"rbp {p}")
    want = _quiet(ranx_metrics.r_precision, y_true, y_pred)
    count += compared({"r": want}, {"r": ours.r_precision(y_true, y_pred)}, "r-precision")
    hits_want = _quiet(ranx_metrics.get_hit_lists, y_true, y_pred)
    hits_got = ours.get_hit_lists(y_true, y_pred)
    for a, b in zip(hits_want, hits_got):
        np.testing.assert_array_equal(b, a)
    assert count >= 47 * 140
