"""``rw.compare_recommendations`` (issue 37): models paired per user, against the references.

The per-user values are each model's :func:`rw.evaluate_recommendations`
values (and, on Microsoft Recommenders' unit-test fixtures, Recommenders'
own numbers, tests/recommenders/data); the paired tests are scipy's
(``ttest_rel``, ``wilcoxon``, ``false_discovery_control``), the exact
randomization p-value a brute-force enumeration of the sign flips, the
intervals and effect sizes computed here from their formulas.
"""

from __future__ import annotations

import itertools
import json
import math
import pickle
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw

scipy_stats = pytest.importorskip("scipy.stats")

DATA = Path(__file__).parent / "data"


def _random_models(seed: int, n_users: int = 40, n_items: int = 30, models: int = 3,
                   skip: bool = True) -> tuple[dict, dict, dict]:
    """Held-out, training and model tables with tied scores; some users lack a list."""
    rng = np.random.default_rng(seed)
    held = {"user": [], "item": []}
    train = {"user": [], "item": []}
    for user in range(n_users):
        items = rng.permutation(n_items)
        seen = int(rng.integers(0, 6))
        for item in items[:seen]:
            train["user"].append(user)
            train["item"].append(int(item))
        for item in items[seen:seen + int(rng.integers(1, 5))]:
            held["user"].append(user)
            held["item"].append(int(item))
    out = {}
    for m in range(models):
        recs = {"user": [], "item": [], "score": []}
        for user in range(n_users):
            if skip and (user + m) % 11 == 0:
                continue  # no list for this user in this model
            for item in rng.choice(n_items, 12, replace=False).tolist():
                recs["user"].append(user)
                recs["item"].append(item)
                recs["score"].append(float(rng.integers(0, 4)))  # many ties
        out[f"m{m}"] = recs
    return held, train, out


def _paired(result: rw.recommenders.RecommenderComparison, measure: str, model: str,
            baseline: str) -> tuple[np.ndarray, np.ndarray]:
    """The two models' values on the users both were evaluated for, from their evaluations."""
    a, b = result.results[model], result.results[baseline]
    common = sorted(set(a.users) & set(b.users))
    index_a = {u: n for n, u in enumerate(a.users)}
    index_b = {u: n for n, u in enumerate(b.users)}
    x = np.array([a.per_user[measure][index_a[u]] for u in common])
    y = np.array([b.per_user[measure][index_b[u]] for u in common])
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


MEASURES = ["ndcg@10", "recall@5", "P@5", "mrr", "novelty@5", "arp@5", "ild@5",
            "coverage@5", "gini@5"]


@pytest.mark.parametrize("seed", range(4))
def test_t_test_p_values_intervals_and_effects_equal_scipy(seed: int) -> None:
    held, train, models = _random_models(seed)
    result = rw.compare_recommendations(held, models, MEASURES, baseline="m0", exclude=train,
                                        test="t-test", correction="none")
    per_user = [m for m in MEASURES if not m.startswith(("coverage", "gini"))]
    assert list(result.comparison.measures) == per_user
    compared = 0
    for measure in per_user:
        for model in ("m1", "m2"):
            x, y = _paired(result, measure, model, "m0")
            row = result.row(measure, model)
            assert row.n_queries == len(x)
            want = scipy_stats.ttest_rel(x, y)
            assert row.p_value == pytest.approx(want.pvalue, rel=1e-10, abs=1e-15)
            d = x - y
            assert row.delta == pytest.approx(d.mean(), abs=1e-12)
            low, high = scipy_stats.t.interval(0.95, len(d) - 1, loc=d.mean(),
                                               scale=d.std(ddof=1) / math.sqrt(len(d)))
            assert (row.delta_ci_low, row.delta_ci_high) == (pytest.approx(low, abs=1e-12),
                                                             pytest.approx(high, abs=1e-12))
            assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
            assert (row.wins, row.ties, row.losses) == (
                int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
            assert row.mean == pytest.approx(x.mean(), abs=1e-12)
            compared += 1
    assert compared == 2 * len(per_user)
    # users without a list in one model: the pairs are on the users both evaluated
    assert result.row("ndcg@10", "m1").n_queries < len(result.results["m1"].users)


@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_p_values_equal_scipy_with_ties_and_zeros(seed: int) -> None:
    held, train, models = _random_models(seed + 10, n_users=60)
    result = rw.compare_recommendations(held, models, ["ndcg@10", "P@5", "recall@5"],
                                        exclude=train, test="wilcoxon", correction="none")
    for measure in ("ndcg@10", "P@5", "recall@5"):
        for model, baseline in (("m1", "m0"), ("m2", "m0"), ("m2", "m1")):
            x, y = _paired(result, measure, model, baseline)
            row = result.comparison.row(measure, model, baseline)
            want = scipy_stats.wilcoxon(x, y)
            assert row.p_value == pytest.approx(want.pvalue, rel=1e-10, abs=1e-15), (
                measure, model, baseline)


def test_exact_randomization_p_value_is_the_enumeration() -> None:
    held, train, models = _random_models(3, n_users=12, models=2, skip=False)
    result = rw.compare_recommendations(held, models, ["ndcg@10", "recall@5"], baseline="m0",
                                        exclude=train, seed=5)
    for measure in ("ndcg@10", "recall@5"):
        x, y = _paired(result, measure, "m1", "m0")
        d = (x - y)[x != y]
        observed = abs(d.sum())
        flips = [abs(np.dot(signs, d)) for signs in itertools.product((-1, 1), repeat=len(d))]
        want = np.mean([f >= observed - 1e-10 * np.abs(d).sum() for f in flips])
        row = result.row(measure, "m1")
        assert row.method == "exact" and row.p_value == pytest.approx(want, abs=1e-15)


def test_family_all_corrects_every_row_once_as_scipy() -> None:
    """ILD leaves out lists shorter than 2 (tested on its own users); BH over all rows."""
    held, train, models = _random_models(7, n_users=50)
    short = {"user": [], "item": [], "score": []}  # m2: some lists of one item
    for u, i, s in zip(models["m2"]["user"], models["m2"]["item"], models["m2"]["score"]):
        if u % 5 == 0 and u in short["user"]:
            continue
        short["user"].append(u)
        short["item"].append(i)
        short["score"].append(s)
    models["m2"] = short
    result = rw.compare_recommendations(held, models, ["ndcg@10", "ild@5", "novelty@5"],
                                        baseline="m0", exclude=train, test="t",
                                        correction="bh", family="all")
    rows = [r for r in result.comparison.rows if r.baseline is not None]
    assert len(rows) == 6
    x, y = _paired(result, "ild@5", "m2", "m0")
    assert result.row("ild@5", "m2").n_queries == len(x) < len(result.results["m2"].users)
    assert result.row("ild@5", "m2").p_value == pytest.approx(
        scipy_stats.ttest_rel(x, y).pvalue, rel=1e-10)
    want = scipy_stats.false_discovery_control([r.p_value for r in rows])
    np.testing.assert_allclose([r.p_adjusted for r in rows], want, rtol=1e-12)
    for row in rows:
        assert row.significant == (row.p_adjusted <= 0.05)


def test_whole_set_values_are_each_model_s_evaluation() -> None:
    held, train, models = _random_models(2)
    result = rw.compare_recommendations(held, models, ["ndcg@10", "coverage@5", "gini@5",
                                                       "personalisation@5"],
                                        baseline="m1", exclude=train, catalogue=30, seed=0)
    for name, recs in models.items():
        alone = rw.evaluate_recommendations(held, recs, ["coverage@5", "gini@5",
                                                         "personalisation@5"],
                                            exclude=train, catalogue=30)
        assert result.whole_set[name] == alone.mean
    frame = result.to_pandas()
    row = frame[(frame.measure == "gini@5") & (frame.system == "m2")].iloc[0]
    assert row["delta"] == pytest.approx(result.whole_set["m2"]["gini@5"]
                                         - result.whole_set["m1"]["gini@5"], abs=1e-15)
    assert math.isnan(row["p_value"])


def test_the_default_catalogue_is_one_for_every_model() -> None:
    """Items a, b, c (held out and training) and x, y, z (only in model b's lists): six."""
    held = {"user": [1, 2], "item": ["a", "b"]}
    train = {"user": [1], "item": ["c"]}
    models = {"a": {1: ["a", "c"], 2: ["b"]}, "b": {1: ["x", "y"], 2: ["z"]}}
    result = rw.compare_recommendations(held, models, ["coverage", "P@1"], exclude=train)
    assert result.whole_set == {"a": {"coverage": 2 / 6}, "b": {"coverage": 3 / 6}}
    assert any("the 6 items of the training and test tables and of every model's lists"
               in line for line in result.assumptions)


# Microsoft Recommenders 1.2.1: its unit tests' fixtures and its own outputs ------------------
CASES = json.loads((DATA / "recommenders_python_evaluation_tests.json").read_text())["fixtures"]
ORACLE = json.loads((DATA / "recommenders_oracle_output.json").read_text())
COLS = {"user": "userID", "item": "itemID", "score": "prediction"}


def _oracle(function: str, pred: str) -> float:
    for case in ORACLE["ranking_cases"]:
        if case["function"] == function and case["rating_pred"] == pred and \
                case["kwargs"].get("k") == 10:
            return float(case["value"])
    raise KeyError((function, pred))


def test_each_model_s_means_are_recommenders_and_the_tests_scipy_s() -> None:
    true = dict(CASES["rating_true"], prediction=CASES["rating_true"]["rating"])
    models = {"true": true, "pred": CASES["rating_pred"], "nohit": CASES["rating_nohit"]}
    result = rw.compare_recommendations(CASES["rating_true"], models,
                                        ["P@10", "recall@10", "map@10"], baseline="pred",
                                        columns=COLS, duplicates="first", test="t")
    zero = rw.compare_recommendations(CASES["rating_true"], models, ["ndcg@10"],
                                      baseline="pred", columns=COLS, duplicates="first",
                                      missing="zero", test="wilcoxon")
    checked = 0
    for model, pred in (("true", "rating_true"), ("pred", "rating_pred"),
                        ("nohit", "rating_nohit")):
        for measure, function in (("P@10", "precision_at_k"), ("recall@10", "recall_at_k"),
                                  ("map@10", "map")):
            assert result.row(measure, model).mean == pytest.approx(_oracle(function, pred),
                                                                    abs=1e-12)
            checked += 1
        assert zero.row("ndcg@10", model).mean == pytest.approx(_oracle("ndcg_at_k", pred),
                                                                abs=1e-12)
        checked += 1
    assert checked == 12
    for model in ("true", "nohit"):
        x, y = _paired(result, "recall@10", model, "pred")
        assert result.row("recall@10", model).p_value == pytest.approx(
            scipy_stats.ttest_rel(x, y).pvalue, rel=1e-10)
        x, y = _paired(zero, "ndcg@10", model, "pred")
        assert zero.row("ndcg@10", model).p_value == pytest.approx(
            scipy_stats.wilcoxon(x, y).pvalue, rel=1e-10)


@pytest.mark.parametrize("features", [False, True])
def test_per_user_ild_is_recommenders_user_diversity(features: bool) -> None:
    measure = "item_feature_vector" if features else "item_cooccurrence_count"
    want = next(c["value"] for c in ORACLE["beyond_accuracy_cases"]
                if c["function"] == "user_diversity"
                and c["kwargs"]["item_sim_measure"] == measure)
    reco = CASES["diversity_reco"]
    reversed_reco = {key: list(reversed(values)) for key, values in reco.items()}
    other = {"UserId": reco["UserId"], "ItemId": [reco["ItemId"][n - 1] for n in
                                                  range(len(reco["ItemId"]))]}
    f = CASES["item_features"]
    extra = {"features": dict(zip(f["ItemId"], f["features"]))} if features else {}
    result = rw.compare_recommendations(
        None, {"reco": reco, "reversed": reversed_reco, "other": other}, ["ild"],
        baseline="reco", train=CASES["diversity_train"],
        columns={"user": "UserId", "item": "ItemId"}, test="t", **extra)
    got = result.results["reco"]
    assert got.users == want["UserId"]
    np.testing.assert_allclose(got.per_user["ild"], want["user_diversity"], rtol=0, atol=1e-12)
    row = result.row("ild", "reversed")  # ILD does not see the order: all differences zero
    assert (row.delta, row.p_value, row.method) == (0.0, 1.0, "all differences zero")
    assert result.row("ild", "reco").mean == pytest.approx(np.mean(want["user_diversity"]),
                                                           abs=1e-12)
    x, y = _paired(result, "ild", "other", "reco")
    np.testing.assert_allclose(y, want["user_diversity"], atol=1e-12)
    p = result.row("ild", "other").p_value
    expected = scipy_stats.ttest_rel(x, np.asarray(want["user_diversity"])).pvalue
    assert p == pytest.approx(expected, rel=1e-10) or (math.isnan(p) and math.isnan(expected))


# segments -------------------------------------------------------------------------------------
def test_activity_segments_by_hand() -> None:
    from rankwise.recommenders.activity import activity_segments

    train = {"user": [1] * 5 + [2] * 2 + [3] * 3 + [4], "item": list(range(11))}
    got = activity_segments(train, [1, 2, 3, 4, 5, 5])
    # counts 5, 2, 3, 1: median 2.5, so heavy from 3
    assert got.segments == {1: "heavy", 2: "light", 3: "heavy", 4: "light", 5: "new"}
    assert got.heavy == 3 and got.median == 2.5 and not got.chosen
    assert activity_segments(train, [1, 2, 3], heavy=5).segments == {1: "heavy", 2: "light",
                                                                     3: "light"}
    with pytest.raises(rw.InvalidParameterError, match="heavy must be an integer of at least 2"):
        activity_segments(train, [1], heavy=1)
    with pytest.raises(rw.InvalidParameterError, match="in one type"):
        activity_segments(train, ["1"])


def test_segments_compare_the_models_inside_each_segment() -> None:
    held, train, models = _random_models(5, n_users=80)
    result = rw.compare_recommendations(held, models, ["ndcg@10", "coverage@5"],
                                        baseline="m0", exclude=train, segments="activity",
                                        test="t")
    from rankwise.recommenders.activity import activity_segments

    activity = activity_segments(train, held)
    assert list(result.segments) == [s for s in ("new", "light", "heavy")
                                     if s in set(activity.segments.values())]
    assert len(result.segments) == 3
    assert any("segments by training activity" in line for line in result.assumptions)
    for segment in result.segments:
        x, y = _paired(result, "ndcg@10", "m2", "m0")
        users = sorted(set(result.results["m2"].users) & set(result.results["m0"].users))
        keep = np.array([activity.segments[u] == segment for u in users])
        row = result.row("ndcg@10", "m2", segment)
        assert row.n_queries == keep.sum()
        assert row.p_value == pytest.approx(scipy_stats.ttest_rel(x[keep], y[keep]).pvalue,
                                            rel=1e-10)
        alone = rw.evaluate_recommendations(held, models["m2"], ["coverage@5"], exclude=train,
                                            segments=activity.segments)
        assert result.segment_whole_set[segment]["m2"]["coverage@5"] == \
            alone.segments.mean[segment]["coverage@5"]
    table = result.to_pandas()
    assert set(table.segment) == {"all", "new", "light", "heavy"}


# the result and its errors --------------------------------------------------------------------
def test_assumptions_say_what_was_assumed() -> None:
    held, train, models = _random_models(1)
    said = rw.compare_recommendations(held, models, ["ndcg@10"], exclude=train, k=5,
                                      missing="zero").assumptions
    assert said[0].startswith("items seen in training: removed")
    assert "lists cut at k = 5" in said[1]
    assert any("scored 0 (missing='zero')" in line for line in said)
    plain = rw.compare_recommendations(held, models, ["ndcg@10"]).assumptions
    assert plain[0] == "items seen in training: kept in the lists (nothing excluded)"
    assert any("skipped (missing='skip')" in line for line in plain)
    assert "catalogue: not given" in plain[2]


def test_the_result_follows_the_protocol() -> None:
    held, train, models = _random_models(0, n_users=15)
    result = rw.compare_recommendations(held, models, ["ndcg@10", "gini"], baseline="m0",
                                        exclude=train, seed=3)
    back = pickle.loads(pickle.dumps(result))
    assert back.to_table("csv") == result.to_table("csv")
    plain = json.loads(result.to_table("json"))
    assert plain["baseline"] == "m0" and plain["comparison"]["seed"] == 3
    assert result.to_polars().height == len(result.table().rows)
    assert repr(result).startswith("RecommenderComparison(3 models, 2 measures")
    text = result.to_table()
    assert "whole-set measures" in text and "assumed: items seen in training" in text


def test_options_as_values_and_one_seed() -> None:
    held, train, models = _random_models(4, n_users=30)
    options = (rw.RecommenderOptions(k=8), rw.CompareOptions(test="t", alpha=0.01))
    a = rw.compare_recommendations(held, models, ["ndcg@10", "ild@5"], exclude=train,
                                   options=options)
    b = rw.compare_recommendations(held, models, ["ndcg@10", "ild@5"], exclude=train, k=8,
                                   test="t", alpha=0.01)
    assert a.to_table("csv") == b.to_table("csv")
    assert a.comparison.alpha == 0.01 and a.comparison.test == "t-test"
    drawn = rw.compare_recommendations(held, models, ["ndcg@10", "ild@5"], exclude=train)
    again = rw.compare_recommendations(held, models, ["ndcg@10", "ild@5"], exclude=train,
                                       seed=drawn.comparison.seed)
    assert again.to_table("csv") == drawn.to_table("csv")


def test_errors() -> None:
    held, _, models = _random_models(0, n_users=10)
    with pytest.raises(rw.InvalidParameterError, match="at least two models, got 1"):
        rw.compare_recommendations(held, {"m0": models["m0"]}, ["ndcg@10"])
    with pytest.raises(rw.InvalidParameterError,
                       match=r"baseline 'pop' is not one of the models \['m0', 'm1', 'm2'\]"):
        rw.compare_recommendations(held, models, ["ndcg@10"], baseline="pop")
    with pytest.raises(rw.UnsupportedMeasureError, match="gm_map"):
        rw.compare_recommendations(held, models, ["gm_map"])
    with pytest.raises(rw.InvalidParameterError, match=r"serendipity .* give baseline="):
        rw.compare_recommendations(held, models, ["serendipity"])
    with pytest.raises(rw.InvalidParameterError, match=r"segments='activity' .* give train="):
        rw.compare_recommendations(held, models, ["ndcg@10"], segments="activity")
    with pytest.raises(rw.InvalidParameterError, match="models must be a dict"):
        rw.compare_recommendations(held, list(models.values()), ["ndcg@10"])
    with pytest.raises(TypeError, match=r"unexpected keyword 'tset'.*did you mean 'test'"):
        rw.compare_recommendations(held, models, ["ndcg@10"], tset="t")
    with pytest.raises(rw.InvalidParameterError, match="test must be one of"):
        rw.compare_recommendations(held, models, ["ndcg@10"], test="z")


def test_serendipity_is_against_the_baseline_s_lists() -> None:
    held, train, models = _random_models(6, n_users=20)
    result = rw.compare_recommendations(held, models, ["serendipity@5"], baseline="m0",
                                        exclude=train, test="t")
    alone = rw.evaluate_recommendations(held, models["m1"], ["serendipity@5"], exclude=train,
                                        baseline=models["m0"])
    assert result.results["m1"].per_user["serendipity@5"].tolist() == \
        alone.per_user["serendipity@5"].tolist()
    assert any("serendipity: against the lists of the baseline, 'm0'" in line
               for line in result.assumptions)


def test_the_wide_table_shows_each_models_mean_over_its_own_users() -> None:
    """Models missing different users (missing='skip'), all pairs: no row holds C's ten."""
    import warnings

    users = list(range(10))
    held_out = {"user": users, "item": ["good"] * 10}

    def lists(wins: set[int], skip: int | None) -> dict:
        return {u: (["good", "bad"] if u in wins else ["bad", "good"]) for u in users
                if u != skip}

    models = {"A": lists({u for u in users if u % 2}, 1),
              "B": lists({u for u in users if u % 3}, 2), "C": lists({1, 2}, None)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rw.compare_recommendations(held_out, models, ["P@1"], seed=0, missing="skip")
    own = {name: result.results[name].mean["P@1"] for name in models}
    assert own == pytest.approx({"A": 4 / 9, "B": 5 / 9, "C": 0.2})
    comparison = getattr(result, "comparison", result)
    assert comparison.system_means == pytest.approx(
        {("P@1", name): mean for name, mean in own.items()})
    assert "C (c)   0.2000" in result.to_table()
