"""CatBoost: rankwise's metric object in dialect=catboost follows CatBoost's own NDCG and MAP
at every iteration, on the training and the evaluation pool."""

from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw

catboost = pytest.importorskip("catboost")

from rankwise.integrations.catboost import metric  # noqa: E402


def _pools(train_valid: tuple) -> tuple:
    (x, y, g), (xv, yv, gv) = train_valid
    train = catboost.Pool(x, y, group_id=np.repeat(np.arange(len(g)), g))
    valid = catboost.Pool(xv, yv, group_id=np.repeat(np.arange(len(gv)), gv))
    return train, valid


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [("ndcg@5(dialect=catboost)", "NDCG:top=5;type=Base"),
     ("map@5(dialect=catboost)", "MAP:top=5"),
     ("mrr@10(dialect=catboost)", "MRR:top=10")],
)
def test_metric_equals_catboost_at_every_iteration(train_valid: tuple, ours: str,
                                                    theirs: str) -> None:
    train, valid = _pools(train_valid)
    model = catboost.CatBoostRanker(
        iterations=12, depth=3, loss_function="YetiRank", verbose=0, thread_count=1,
        random_seed=0, allow_writing_files=False, eval_metric=metric(ours, group_id=[train, valid]),
        custom_metric=[theirs],
    )
    model.fit(train, eval_set=valid)
    log = model.get_evals_result()
    compared = 0
    for pool in ("learn", "validation"):  # CatBoost skips some metrics on the learn pool
        if theirs not in log[pool]:
            continue
        mine = np.array(log[pool][f"rankwise.{ours}"])
        reference = np.array(log[pool][theirs])
        assert len(mine) == len(reference) == 12
        assert np.abs(mine - reference).max() <= 1e-9, pool
        compared += 1
    assert "validation" in log and theirs in log["validation"] and compared >= 1
    # named after its measure (issue 33, item 20: every Python metric was 'RankwiseMetric')
    assert f"rankwise.{ours}" in model.get_best_score()["validation"]


def test_the_metric_pickles_with_its_name() -> None:
    import pickle

    m = metric("ndcg@5", group_id=np.array([0, 0, 1]))
    copy = pickle.loads(pickle.dumps(m))
    assert type(copy).__name__ == "rankwise.ndcg@5" and copy.measure == m.measure
    total, weight = copy.evaluate([np.array([0.3, 0.2, 0.1])], np.array([0.0, 1.0, 1.0]), None)
    assert (total, weight) == (pytest.approx(1.0 / np.log2(3) + 1.0), 2.0)


def test_the_metric_needs_the_groups_of_each_pool(train_valid: tuple) -> None:
    train, valid = _pools(train_valid)
    model = catboost.CatBoostRanker(iterations=2, verbose=0, thread_count=1,
                                    allow_writing_files=False,
                                    eval_metric=metric("ndcg@5", group_id=valid))
    with pytest.raises(catboost.CatBoostError, match=r"groups given are for \d+ rows"):
        model.fit(train, eval_set=valid)
    with pytest.raises(rw.InvalidParameterError, match="different groups"):
        metric("ndcg@5", group_id=[np.array([0, 0, 1]), np.array([0, 1, 1])])
