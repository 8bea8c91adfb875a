"""Beyond-accuracy measures against RecBole 1.2.1 and recmetrics on their tests' data.

RecBole (tests/metrics/test_topk_metrics.py): ItemCoverage, AveragePopularity,
GiniIndex, ShannonEntropy, TailPercentage at top-k 1, 2, 3 and five tail
ratios (values from RecBole's own methods, data/recbole_topk_metrics_tests.json).
recmetrics (tests/test_metrics.py): personalization, intra_list_similarity
(1 - ILD), novelty, prediction_coverage.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.recommenders.evaluation import recbole_tail
from rankwise.recommenders.inputs import Lists, Vocabulary

DATA = Path(__file__).parent / "data"
RECBOLE = json.loads((DATA / "recbole_topk_metrics_tests.json").read_text())
RECMETRICS = json.loads((DATA / "recmetrics_tests.json").read_text())
TOL = 1e-12


def _recbole_train() -> dict[str, list]:
    """item_count as training rows (one user, an item repeated count times)."""
    counts = {int(i): c for i, c in RECBOLE["inputs"]["item_count"].items()}
    items = [i for i, c in counts.items() for _ in range(c)]
    return {"user": [-1] * len(items), "item": items}


@pytest.mark.parametrize("k", [1, 2, 3])
def test_recbole_coverage_popularity_gini_entropy(k: int) -> None:
    inputs = RECBOLE["inputs"]
    expected = RECBOLE["full_report_on_test_data(topk=[1,2,3])"]["unrounded"]
    names = [f"coverage@{k}", f"arp@{k}(dialect=recbole)", f"gini@{k}(dialect=recbole)",
             f"entropy@{k}(dialect=recbole)"]
    # a 2-D array of item ids, users 0..4; RecBole's num_items counts its [PAD] id
    r = rw.evaluate_recommendations(None, np.asarray(inputs["item_matrix"]), names,
                                    train=_recbole_train(), catalogue=inputs["num_items"])
    assert r.mean[names[0]] == pytest.approx(expected[f"itemcoverage@{k}"], abs=TOL)
    assert r.mean[names[1]] == pytest.approx(expected[f"averagepopularity@{k}"], abs=TOL)
    assert r.mean[names[2]] == pytest.approx(expected[f"giniindex@{k}"], abs=TOL)
    assert r.mean[names[3]] == pytest.approx(expected[f"shannonentropy@{k}"], abs=TOL)
    per_user = np.asarray(RECBOLE["expected"]["averagepopularity_metric_info"])[:, k - 1]
    np.testing.assert_allclose(r.per_user[names[1]], per_user, rtol=0, atol=TOL)


@pytest.mark.parametrize("ratio", ["0.1", "0.5", "1.0", "2", "3"])
def test_recbole_tail_percentage(ratio: str) -> None:
    inputs = RECBOLE["inputs"]
    counts = np.zeros(inputs["num_items"])
    known = np.zeros(inputs["num_items"], dtype=bool)
    for item, count in inputs["item_count"].items():  # item 1 has count 0 and is known
        counts[int(item)], known[int(item)] = count, True
    tail = recbole_tail(counts, known, float(ratio))
    matrix = np.asarray(inputs["item_matrix"])
    users, items = Vocabulary("user"), Vocabulary("item")
    items.encode(np.arange(inputs["num_items"]))  # codes = item ids
    lists = Lists.read(matrix, users, items)
    from rankwise.recommenders import beyond

    value = np.mean(beyond.aplt(lists, tail, len(users), k=3))
    assert value == pytest.approx(RECBOLE["tail_ratio_variants"][ratio]["tailpercentage@3"],
                                  abs=TOL)


# training counts with ties; the lists read the items out of id order
TIED_COUNTS = {9: 1, 3: 1, 7: 2, 1: 2, 5: 1, 8: 3, 2: 1, 4: 2}
TIED_MATRIX = [[9, 3, 7], [5, 2, 1], [8, 4, 3], [2, 9, 5], [7, 1, 6]]


def recbole_tail_percentage(ratio: float, k: int) -> float:
    """RecBole 1.2.1's ``TailPercentage.get_tail`` rule on TIED_COUNTS / TIED_MATRIX.

    ``sorted(count_items.items(), key=lambda kv: (kv[1], kv[0]))``: ties by
    item id; the first max(int(n * ratio), 1) are the tail; each row's
    share of tail items in its first k (RecBole's cumsum / position).
    """
    ranked = sorted(TIED_COUNTS.items(), key=lambda kv: (kv[1], kv[0]))
    tail = {item for item, _ in ranked[:max(int(len(ranked) * ratio), 1)]}
    return float(np.mean([sum(item in tail for item in row[:k]) / k for row in TIED_MATRIX]))


@pytest.mark.parametrize("ratio", [0.25, 0.5, 0.75, 1.0])
@pytest.mark.parametrize("k", [2, 3])
def test_recbole_tail_share_cuts_ties_by_item_id(ratio: float, k: int) -> None:
    """Equal counts straddle the cut (0.25, 0.75): RecBole cuts them by item id, so does rankwise.

    The items are first read in another order (9, 3, 7, ...): a tie broken
    by the order items are read would put 9 before 2 in the tail.
    """
    train = {"user": [n for n, (item, c) in enumerate(TIED_COUNTS.items()) for _ in range(c)],
             "item": [item for item, c in TIED_COUNTS.items() for _ in range(c)]}
    name = f"aplt@{k}(dialect=recbole,tail={ratio})"
    r = rw.evaluate_recommendations(None, np.asarray(TIED_MATRIX), [name], train=train)
    assert r.mean[name] == pytest.approx(recbole_tail_percentage(ratio, k), abs=TOL)
    text = rw.evaluate_recommendations(  # ids as text of one width: the same id order
        None, {u: [f"i{item}" for item in row] for u, row in enumerate(TIED_MATRIX)}, [name],
        train={"user": train["user"], "item": [f"i{item}" for item in train["item"]]})
    assert text.mean[name] == pytest.approx(r.mean[name], abs=TOL)


def test_recmetrics_personalization() -> None:
    case = RECMETRICS["personalization"]
    r = rw.evaluate_recommendations(None, case["predicted"], ["personalisation"])
    assert r.mean["personalisation"] == pytest.approx(case["exact_by_definition"], abs=TOL)
    assert round(r.mean["personalisation"], 2) == round(case["expected"], 2)


def test_recmetrics_intra_list_similarity_is_one_minus_ild() -> None:
    case = RECMETRICS["intra_list_similarity"]
    features = {int(k): v for k, v in case["features"].items()}
    r = rw.evaluate_recommendations(None, case["predicted"], ["ild"], features=features)
    assert 1 - r.mean["ild"] == pytest.approx(case["expected"], abs=TOL)


def test_recmetrics_novelty() -> None:
    """recmetrics: pop = training interactions of the item, u = training users."""
    case = RECMETRICS["novelty"]
    # a training table with pop[i] users for item i, out of u users
    users, items = [], []
    for item, pop in case["pop"].items():
        users.extend(range(pop))
        items.extend([int(item)] * pop)
    top = max(case["pop"].values())
    users.extend(range(top, case["u"]))  # the other training users hold an item not listed
    items.extend([-1] * (case["u"] - top))
    r = rw.evaluate_recommendations(None, case["predicted"], ["novelty"],
                                    train={"user": users, "item": items})
    assert r.mean["novelty"] == pytest.approx(case["expected"], abs=TOL)


@pytest.mark.parametrize("case", RECMETRICS["prediction_coverage"]["cases"][:1])
def test_recmetrics_prediction_coverage(case: dict) -> None:
    r = rw.evaluate_recommendations(None, case["predicted"], ["coverage"],
                                    catalogue=case["catalog"])
    assert round(100 * r.mean["coverage"], 2) == case["expected"]
