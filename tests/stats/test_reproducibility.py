"""reproduce, rbo, ktu, measure_agreement: equal to repro_eval 0.5.0, the rbo package and scipy.

The reference numbers were generated with the tools themselves (they need numpy < 2,
so not in this environment): see tests/data/stats/README.md.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from strategies import ranked_lists

import rankwise as rw
from rankwise.exceptions import InvalidParameterError
from rankwise.reproducibility import ktu, measure_agreement, rbo, reproduce
from rankwise.stats.agreement import kendall_tau_b, spearman_rho

DATA = Path(__file__).resolve().parents[1] / "data" / "stats" / "repro_eval_reference.json"
REFERENCE = json.loads(DATA.read_text(encoding="utf-8"))
MEASURES = REFERENCE["provenance"]["measures"]  # repro_eval's name -> rankwise's


def as_runs(section: dict) -> dict[str, dict]:
    return {name: {topic: {doc: score for doc, score in pairs} for topic, pairs in run.items()}
            for name, run in section["runs"].items()}


def as_list(items: list[str]) -> dict:
    return {"q": {doc: float(len(items) - i) for i, doc in enumerate(items)}}


@pytest.fixture(scope="module")
def reproducibility():
    section = REFERENCE["reproducibility"]
    runs = as_runs(section)
    result = reproduce(section["qrels"], runs["orig_a"], runs["rep_a"], list(MEASURES.values()),
                       original_baseline=runs["orig_b"], reproduced_baseline=runs["rep_b"])
    return section, runs, result


def test_ktu_and_rbo_per_topic_equal_repro_eval(reproducibility) -> None:
    section, runs, result = reproducibility
    for side in ("advanced", "baseline"):
        for kind, ours in (("ktu", result.ktu[side]), ("rbo", result.rbo[side])):
            expected = section[kind][side]
            assert set(ours.query_ids) == set(expected)
            for topic, value in ours.to_dict().items():
                assert value == pytest.approx(expected[topic], abs=1e-12), (kind, side, topic)
    shallow = rbo(runs["orig_a"], runs["rep_a"], p=0.9, depth=10, method="repro_eval")
    for topic, value in shallow.to_dict().items():
        assert value == pytest.approx(section["rbo_p09_d10"]["advanced"][topic], abs=1e-12)


def test_rmse_er_dri_and_t_tests_equal_repro_eval(reproducibility) -> None:
    section, _, result = reproducibility
    assert result.kind == "reproducibility"
    for theirs, ours in MEASURES.items():
        for side in ("advanced", "baseline"):
            assert result.rmse[side][ours] == pytest.approx(section["rmse"][side][theirs],
                                                            abs=1e-12)
            assert result.nrmse[side][ours] == pytest.approx(section["nrmse"][side][theirs],
                                                             abs=1e-12)
            expected = section["ttest"][side][theirs]
            if expected is None:  # all differences zero: repro_eval NaN, rankwise 1
                assert result.p_values[side][ours] == 1.0
            else:
                assert result.p_values[side][ours] == pytest.approx(expected, abs=1e-12)
        assert result.effect_ratio[ours] == pytest.approx(section["er"][theirs], abs=1e-12)
        assert result.delta_ri[ours] == pytest.approx(section["dri"][theirs], abs=1e-12)
    text = result.to_table()
    assert "KTU advanced: mean" in text and "rbo(p=0.95, depth=1000, repro_eval)" in text
    assert json.loads(json.dumps(result.to_dict(), allow_nan=True))["kind"] == "reproducibility"


def test_replicability_equals_repro_eval() -> None:
    original = REFERENCE["reproducibility"]
    section = REFERENCE["replicability"]
    runs, other = as_runs(original), as_runs(section)
    result = reproduce(original["qrels"], runs["orig_a"], other["rep_a"], list(MEASURES.values()),
                       original_baseline=runs["orig_b"], reproduced_baseline=other["rep_b"],
                       qrels_reproduced=section["qrels"])
    assert result.kind == "replicability" and result.ktu == {} and result.rmse == {}
    for theirs, ours in MEASURES.items():
        assert result.effect_ratio[ours] == pytest.approx(section["er"][theirs], abs=1e-12)
        assert result.delta_ri[ours] == pytest.approx(section["dri"][theirs], abs=1e-12)
        for side in ("advanced", "baseline"):
            expected = section["ttest"][side][theirs]
            if expected is None:  # two identical constant samples: repro_eval NaN, rankwise 1
                assert result.p_values[side][ours] == 1.0
            else:
                assert result.p_values[side][ours] == pytest.approx(expected, abs=1e-12)


def test_rbo_equals_the_rbo_package() -> None:
    for case in REFERENCE["rbo_package"]:
        a, b = as_list(case["a"]), as_list(case["b"])
        for p in (0.9, 0.98):
            assert rbo(a, b, p=p).mean == pytest.approx(case[f"rbo_ext_{p}"], abs=1e-12), case
        assert rbo(a, b, p=0.9, method="truncated").mean == pytest.approx(case["rbo_0.9"],
                                                                          abs=1e-12)
        assert rbo(a, b, p=1, method="truncated").mean == pytest.approx(case["rbo_1"], abs=1e-12)


def test_webber_examples() -> None:
    # Webber et al. (2010) / the rbo package: identical lists score 1, disjoint 0
    same = as_list(list("abcdefgh"))
    assert rbo(same, same, p=0.9).mean == pytest.approx(1.0, abs=1e-15)
    assert rbo(same, as_list(list("stuvwxyz")), p=0.9).mean == 0.0
    # repro_eval's normalised, truncated RBO of two identical 8-document lists at depth 1000
    assert rbo(same, same, p=0.95, depth=1000, method="repro_eval").mean == pytest.approx(
        0.6082016811326177, abs=1e-13)
    assert ktu(same, same).mean == 1.0
    assert ktu(same, as_list(list("hgfedcba"))).mean == -1.0


@settings(max_examples=150, deadline=None)
@given(ranked_lists())
def test_rbo_properties(lists) -> None:
    first, second = lists
    a, b = as_list(first), as_list(second)
    value = rbo(a, b, p=0.9).mean
    assert 0.0 <= value <= 1.0
    assert rbo(b, a, p=0.9).mean == pytest.approx(value, abs=1e-14)  # symmetric
    lower = rbo(a, b, p=0.9, method="truncated").mean
    assert lower <= value + 1e-12  # the truncated sum is a lower bound
    if first == second:
        assert value == pytest.approx(1.0, abs=1e-12)
    if not set(first) & set(second):
        assert value == 0.0


@settings(max_examples=100, deadline=None)
@given(ranked_lists())
def test_ktu_equals_scipy_kendalltau_on_the_union_positions(lists) -> None:
    first, second = lists
    n = min(len(first), len(second))
    union = sorted(set(first) | set(second))
    x = [union.index(d) for d in first[:n]]
    y = [union.index(d) for d in second[:n]]
    expected = scipy.stats.kendalltau(x, y).statistic if n > 1 else math.nan
    value = ktu(as_list(first), as_list(second)).values[0]
    if math.isnan(expected):
        assert math.isnan(value)
    else:
        assert value == pytest.approx(expected, abs=1e-12)


def test_rbo_per_query_and_queries_on_one_side() -> None:
    a = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0}, "q3": {"d9": 1.0}}
    b = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d1": 1.0}}
    result = rbo(a, b, p=0.5)
    assert result.query_ids == ("q1", "q2") and result.values[1] == 1.0
    assert result.notes and "not in the other run" in result.notes[0]
    # ties are broken as everywhere in rankwise: by document id, descending
    tied = rbo({"q": {"a": 1.0, "b": 1.0}}, {"q": {"b": 2.0, "a": 1.0}}, p=0.5)
    assert tied.values[0] == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError, match="persistence"):
        rbo(a, b, p=1.5)
    with pytest.raises(InvalidParameterError, match="method"):
        rbo(a, b, method="min")


def test_measure_agreement_equals_scipy() -> None:
    rng = np.random.default_rng(0)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(10)} for i in range(15)}
    runs = {f"s{k}": {q: {f"d{j}": float(rng.random()) for j in range(10)} for q in qrels}
            for k in range(6)}
    result = measure_agreement(qrels, runs, ["map", "ndcg@5", "P@3"])
    evaluated = {name: rw.evaluate(qrels, run, ["map", "ndcg@5", "P@3"]) for name, run in
                 runs.items()}
    means = np.array([[r.mean[m] for m in ("map", "ndcg@5", "P@3")] for r in evaluated.values()])
    np.testing.assert_allclose(result.means, means, rtol=1e-14)
    for i in range(3):
        for j in range(3):
            if i == j:
                continue
            assert result.kendall[i, j] == pytest.approx(
                scipy.stats.kendalltau(means[:, i], means[:, j]).statistic, abs=1e-12)
            assert result.spearman[i, j] == pytest.approx(
                scipy.stats.spearmanr(means[:, i], means[:, j]).statistic, abs=1e-12)
    assert "kendall_tau" in result.to_table()


@settings(max_examples=100, deadline=None)
@given(ranked_lists(max_length=9))
def test_tau_b_and_rho_with_ties_equal_scipy(lists) -> None:
    first, second = lists
    n = min(len(first), len(second))
    x = [len(d) % 3 for d in first[:n]]  # many ties
    y = [int(d[1:]) % 4 for d in second[:n]]
    for ours, theirs in ((kendall_tau_b, scipy.stats.kendalltau),
                         (spearman_rho, scipy.stats.spearmanr)):
        value = ours(x, y)
        with np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = theirs(x, y).statistic if n > 1 else math.nan
        if math.isnan(expected):
            assert math.isnan(value)
        else:
            assert value == pytest.approx(expected, abs=1e-12)


def test_reproduce_refuses_half_a_baseline() -> None:
    run = {"q1": {"d1": 1.0}}
    with pytest.raises(InvalidParameterError, match="both"):
        reproduce({"q1": {"d1": 1}}, run, run, "map", original_baseline=run)
