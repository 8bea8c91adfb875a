"""rankwise against RecBole 1.2.1's own metric code, run here, on random data with ties.

RecBole's ``recbole.evaluator.metrics`` classes are called as its evaluator
calls them (``calculate_metric`` on a ``DataStruct`` holding ``rec.topk``,
``rec.items``, ``data.num_items``, ``data.count_items``), and per user
through their ``metric_info`` (every cutoff 1..K at once). Every measure
both have: Hit, MRR, NDCG, Precision, Recall, MAP, ItemCoverage,
AveragePopularity, GiniIndex, ShannonEntropy, TailPercentage, at every k.

RecBole ranks by ``torch.topk`` (the order of ties unspecified); its
metrics take the ranked top-k. The lists here have tied scores; their order
is rankwise's documented rule (score descending, ties in input row order),
made here with numpy's lexsort, and handed to RecBole as its top-k matrix.
RecBole only evaluates users with test items: every user here has some.

RecBole's conventions and the rankwise names that follow them
(docs/recommenders.md): NDCG with binary relevance (rankwise's ``ndcg``
on 0/1 grades), MAP divided by min(k, |R_u|) (``map@k(dialect=recommenders)``),
``num_items`` counting its padding id 0 (``catalogue=num_items``),
popularity = training rows per item, the ``recbole`` dialect of ``arp``,
``aplt``, ``gini``, ``entropy``.

RecBole 1.2.1's MRR and MAP use ``np.float``, removed in numpy 1.24: the
test gives numpy that alias back (``float``, what it was) for their calls.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import rankwise as rw

metrics = pytest.importorskip("recbole.evaluator.metrics")
collector = pytest.importorskip("recbole.evaluator.collector")
torch = pytest.importorskip("torch")

TOL = 1e-12
K = 10
N_ITEMS = 50  # item ids 1..49; RecBole's num_items counts its padding id 0
ACCURACY = {"hit": "hit@{k}", "mrr": "mrr@{k}", "ndcg": "ndcg@{k}", "precision": "P@{k}",
            "recall": "recall@{k}", "map": "map@{k}(dialect=recommenders)"}
CLASSES = {"hit": "Hit", "mrr": "MRR", "ndcg": "NDCG", "precision": "Precision",
           "recall": "Recall", "map": "MAP"}
WHOLE = {"itemcoverage": ("ItemCoverage", "coverage@{k}"),
         "giniindex": ("GiniIndex", "gini@{k}(dialect=recbole)"),
         "shannonentropy": ("ShannonEntropy", "entropy@{k}(dialect=recbole)")}
TAILS = [0.1, 0.3, 1.0, 2.0, 3.0]  # a share of the training items, or a count (> 1)


def _data(seed: int) -> tuple[dict, dict, dict, np.ndarray]:
    """Held-out, training, scored lists (ties, rows shuffled) and the ranked top-K matrix."""
    rng = np.random.default_rng(seed)
    n_users = 60
    recs = {"user": [], "item": [], "score": []}
    held = {"user": [], "item": []}
    train = {"user": [], "item": []}
    for user in range(n_users):
        candidates = rng.choice(np.arange(1, N_ITEMS), size=20, replace=False)
        recs["user"] += [user] * 20
        recs["item"] += candidates.tolist()
        recs["score"] += rng.integers(0, 4, 20).astype(float).tolist()  # many ties
        relevant = rng.choice(np.arange(1, N_ITEMS), size=int(rng.integers(1, 8)),
                              replace=False)
        held["user"] += [user] * len(relevant)
        held["item"] += relevant.tolist()
        seen = rng.choice(np.arange(1, N_ITEMS), size=int(rng.integers(0, 12)), replace=False)
        train["user"] += [user] * len(seen)
        train["item"] += seen.tolist()
    order = rng.permutation(len(recs["user"]))
    recs = {key: [values[i] for i in order] for key, values in recs.items()}
    # the documented order: score descending, ties in input row order
    user, item, score = (np.asarray(recs[c]) for c in ("user", "item", "score"))
    ranked = np.lexsort((np.arange(len(user)), -score, user))
    matrix = item[ranked].reshape(n_users, 20)[:, :K]
    return held, train, recs, matrix


def _struct(held: dict, train: dict, matrix: np.ndarray) -> object:
    relevant: dict[int, set[int]] = {}
    for user, item in zip(held["user"], held["item"], strict=True):
        relevant.setdefault(user, set()).add(item)
    pos_index = np.array([[item in relevant[u] for item in row] for u, row in enumerate(matrix)])
    pos_len = np.array([len(relevant[u]) for u in range(len(matrix))])
    data = collector.DataStruct()
    data.set("rec.topk", torch.from_numpy(np.column_stack([pos_index, pos_len]).astype(np.int64)))
    data.set("rec.items", torch.from_numpy(matrix.astype(np.int64)))
    data.set("data.num_items", N_ITEMS)
    data.set("data.count_items", Counter(train["item"]))
    return data


def _config(tail: float | None = None) -> dict:
    return {"topk": list(range(1, K + 1)), "metric_decimal_place": 20, "tail_ratio": tail}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_shared_measure_equals_recbole(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(np, "float", float, raising=False)  # RecBole 1.2.1's np.float
    held, train, recs, matrix = _data(seed)
    data = _struct(held, train, matrix)
    names = [pattern.format(k=k) for k in range(1, K + 1) for pattern in ACCURACY.values()]
    names += [f"arp@{k}(dialect=recbole)" for k in range(1, K + 1)]
    names += [pattern.format(k=k) for k in range(1, K + 1) for _, pattern in WHOLE.values()]
    names += [f"aplt@{k}(dialect=recbole,tail={t})" for k in range(1, K + 1) for t in TAILS]
    r = rw.evaluate_recommendations(held, recs, names, train=train, catalogue=N_ITEMS)
    users = np.asarray(r.users)
    assert users.tolist() == list(range(len(matrix)))
    pos_index, pos_len = data.get("rec.topk").numpy()[:, :K].astype(bool), \
        data.get("rec.topk").numpy()[:, K]
    compared = 0
    for short, pattern in ACCURACY.items():
        metric = getattr(metrics, CLASSES[short])(_config())
        per_user = (metric.metric_info(pos_index) if short in ("hit", "mrr", "precision")
                    else metric.metric_info(pos_index, pos_len))
        means = metric.calculate_metric(data)
        for k in range(1, K + 1):
            name = pattern.format(k=k)
            np.testing.assert_allclose(r.per_user[name], per_user[:, k - 1], rtol=0, atol=TOL,
                                       err_msg=name)
            assert r.mean[name] == pytest.approx(means[f"{short}@{k}"], abs=TOL), name
            compared += len(users) + 1
    popularity = metrics.AveragePopularity(_config())
    items, counts = popularity.used_info(data)
    per_user = popularity.metric_info(popularity.get_pop(items, counts))
    means = popularity.calculate_metric(data)
    for k in range(1, K + 1):
        name = f"arp@{k}(dialect=recbole)"
        np.testing.assert_allclose(r.per_user[name], per_user[:, k - 1], rtol=0, atol=TOL)
        assert r.mean[name] == pytest.approx(means[f"averagepopularity@{k}"], abs=TOL)
        compared += len(users) + 1
    for short, (cls, pattern) in WHOLE.items():
        means = getattr(metrics, cls)(_config()).calculate_metric(data)
        for k in range(1, K + 1):
            assert r.mean[pattern.format(k=k)] == pytest.approx(means[f"{short}@{k}"], abs=TOL)
            compared += 1
    for tail in TAILS:
        metric = metrics.TailPercentage(_config(tail))
        per_user = metric.metric_info(metric.get_tail(*metric.used_info(data)))
        means = metric.calculate_metric(data)
        for k in range(1, K + 1):
            name = f"aplt@{k}(dialect=recbole,tail={tail})"
            np.testing.assert_allclose(r.per_user[name], per_user[:, k - 1], rtol=0, atol=TOL,
                                       err_msg=name)
            assert r.mean[name] == pytest.approx(means[f"tailpercentage@{k}"], abs=TOL), name
            compared += len(users) + 1
    assert compared == 60 * K * 12 + K * 12 + 3 * K  # per-user and mean values, all equal


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_report_curves_equal_recbole_at_every_k(seed: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's measure@k curves (one pass over the lists) are RecBole's means at k = 1..K.

    RecBole's MAP divides by min(k, |R_u|), the curve's map by |R_u|: not compared.
    """
    from rankwise.recommenders.at_k import measure_curves

    monkeypatch.setattr(np, "float", float, raising=False)  # RecBole 1.2.1's np.float
    held, train, recs, matrix = _data(seed)
    data = _struct(held, train, matrix)
    pos_index = data.get("rec.topk").numpy()[:, :K].astype(bool)
    pos_len = data.get("rec.topk").numpy()[:, K]
    families = {"hit": "hit", "mrr": "mrr", "ndcg": "ndcg", "precision": "P",
                "recall": "recall"}
    curves = measure_curves(held, {"m": recs}, {"m": list(range(len(matrix)))},
                            list(families.values()), k=K)
    for short, family in families.items():
        metric = getattr(metrics, CLASSES[short])(_config())
        per_user = (metric.metric_info(pos_index) if short in ("hit", "mrr", "precision")
                    else metric.metric_info(pos_index, pos_len))
        np.testing.assert_allclose(curves.values[f"{family}@k"]["m"], per_user.mean(axis=0),
                                   rtol=0, atol=TOL, err_msg=short)
