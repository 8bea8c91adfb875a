"""Every dialect against its tool run now, where the tool is installed (fresh fixtures).

The stored outputs (test_tool_outputs.py) cover 1,040 queries whether or not
the tools are here; these run the tools themselves on 48 new queries of a
seed the stored outputs never saw (and, for the quick tools, on two more
seeds: every seed draws new ties, all-zero queries, negative grades, lists
shorter than the cutoffs and float32 collisions). The slow ones (torch,
CatBoost, ranx's numba, Microsoft Recommenders, BEIR, XGBoost) are marked
slow.
"""

from __future__ import annotations

import importlib.util

import pytest
from strategies import dialect_collection
from test_tool_outputs import compare
from tools import TOOLS, gdeval_script

FAST = {"sklearn", "lightgbm", "pytrec_eval", "gdeval"}
SEEDS = (29, 43, 71)


def _cases() -> list:
    cases = []
    for tool in sorted(TOOLS):
        for seed in SEEDS if tool in FAST else SEEDS[:1]:
            marks = () if tool in FAST else pytest.mark.slow
            cases.append(pytest.param(tool, seed, marks=marks, id=f"{tool}-{seed}"))
    return cases


@pytest.mark.parametrize(("tool", "seed"), _cases())
def test_the_tool_gives_the_dialects_numbers(tool: str, seed: int) -> None:
    module = TOOLS[tool][0]
    if module == "perl":
        if gdeval_script() is None:
            pytest.skip("set RANKWISE_GDEVAL to gdeval.pl (needs perl)")
    elif importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    fresh = dialect_collection(48, seed=seed)
    values = TOOLS[tool][1](*fresh)
    tolerance = None
    if tool == "gdeval" and all(round(v, 5) == v for per in values.values()
                                for v in per.values() if v == v):
        tolerance = 5.1e-6  # gdeval.pl as published prints 5 decimals
    compared = compare(tool, fresh, values, tolerance)
    assert compared and max(compared.values()) >= 30


@pytest.mark.parametrize("objective", ["rank_xendcg", "regression"])
def test_lightgbm_map_counts_fractional_labels_above_one_half(objective: str) -> None:
    """LightGBM's map takes any label with objectives other than lambdarank: > 0.5 relevant.

    Labels at, just above and just below 0.5, fractional and above 1, in
    lists of 1 to 12 documents; each query evaluated by LightGBM alone (a
    booster with no tree scores its init_score).
    """
    lgb = pytest.importorskip("lightgbm")
    import numpy as np

    import rankwise as rw

    rng = np.random.default_rng(5)
    choices = np.array([0.0, 0.25, 0.5, 0.5000001, 0.4999999, 0.7, 1.0, 1.5, 2.0, 3.0])
    ks = (1, 3, 5, 10)
    for query in range(60):
        n = int(rng.integers(1, 13))
        labels = rng.choice(choices, size=n)
        scores = rng.permutation(n).astype(np.float64) + 0.5
        data = lgb.Dataset(np.zeros((n, 1)), label=labels, group=[n], init_score=scores,
                           free_raw_data=False)
        booster = lgb.Booster(params={"objective": objective, "metric": "map",
                                      "eval_at": list(ks), "verbose": -1, "num_threads": 1},
                              train_set=data)
        expected = {name: value for _, name, value, _ in booster.eval_train()}
        qrels = {"q": {f"d{i}": float(g) for i, g in enumerate(labels)}}
        run = {"q": {f"d{i}": float(s) for i, s in enumerate(scores)}}
        got = rw.evaluate(qrels, run, [f"map@{k}(dialect=lightgbm)" for k in ks]).mean
        for k in ks:
            assert got[f"map@{k}(dialect=lightgbm)"] == pytest.approx(
                expected[f"map@{k}"], abs=1e-12), (query, labels.tolist(), scores.tolist(), k)
