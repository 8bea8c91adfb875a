"""Topic set size design, power and discriminative power (rankwise.design, rankwise design).

References: R's power.t.test(strict=TRUE) and pwr.anova.test (tests/data/stats/
topic_set_sizes_r.csv, 200 cells), exact formulas recomputed here with scipy.stats,
and the definitions (discriminative power = share of pairs with p <= alpha).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

import rankwise as rw
from rankwise.design import (
    discriminative_power,
    power,
    residual_variance,
    topic_set_size,
    topic_set_table,
)
from rankwise.exceptions import InvalidParameterError
from rankwise.stats import two_way_anova
from rankwise.stats.topic_sets import anova_power, ci_expected_width, paired_t_power

from .conftest import make_collection

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"
GRID_DIFFS = [0.05, 0.10, 0.15, 0.20]
GRID_VARIANCES = [round(0.01 * k, 2) for k in range(1, 11)]


def r_sizes() -> list[dict[str, str]]:
    with open(DATA / "topic_set_sizes_r.csv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("method", ["exact", "sakai"])
def test_paired_t_test_table_equals_r(method: str) -> None:
    # the t-test table (alpha .05, beta .20, minD_t .05-.20, sigma_t^2 .01-.10): the normal
    # approximations of Sakai's Excel tool and the exact noncentral t agree with R in all cells
    cells = [row for row in r_sizes() if row["test"] == "t-test"]
    assert len(cells) == 40
    for row in cells:
        size = topic_set_size("t-test", float(row["min_diff"]), float(row["variance"]),
                              method=method)
        assert size.n == int(row["n"]), row
        assert size.achieved >= 0.8 and size.method == method


def test_anova_table_equals_r() -> None:
    cells = [row for row in r_sizes() if row["test"] == "anova"]
    assert len(cells) == 160
    for row in cells:
        size = topic_set_size("anova", float(row["min_diff"]), float(row["variance"]),
                              n_systems=int(row["m"]))
        assert size.n == int(row["n"]), row


def test_the_sakai_approximation_of_anova_is_close_but_not_equal() -> None:
    gaps = []
    for m in (2, 10):
        for diff in GRID_DIFFS:
            for variance in GRID_VARIANCES:
                exact = topic_set_size("anova", diff, variance, n_systems=m).n
                approx = topic_set_size("anova", diff, variance, n_systems=m, method="sakai").n
                gaps.append(exact - approx)
    assert max(gaps) > 0 and max(gaps) <= 15 and min(gaps) >= -1


def test_powers_are_the_noncentral_distributions() -> None:
    for delta, n in [(0.3, 50), (0.8, 10), (0.05, 2000)]:
        phi = n - 1
        w = scipy.stats.t.ppf(0.975, phi)
        expected = scipy.stats.nct.sf(w, phi, math.sqrt(n) * delta) + \
            scipy.stats.nct.cdf(-w, phi, math.sqrt(n) * delta)
        assert paired_t_power(delta, n) == pytest.approx(expected, abs=1e-12)
    m, n, diff, variance = 5, 40, 0.1, 0.05
    w = scipy.stats.f.ppf(0.95, m - 1, m * (n - 1))
    expected = scipy.stats.ncf.sf(w, m - 1, m * (n - 1), n * diff**2 / (2 * variance))
    assert anova_power(diff, variance, m, n) == pytest.approx(expected, abs=1e-12)
    # the expected width of the interval: simulated mean of 2 t s / sqrt(n)
    rng = np.random.default_rng(0)
    sample = rng.normal(0, 0.1, size=(200_000, 12))
    widths = 2 * scipy.stats.t.ppf(0.975, 11) * sample.std(axis=1, ddof=1) / math.sqrt(12)
    assert ci_expected_width(12, 0.01) == pytest.approx(widths.mean(), rel=2e-3)


# P(T' <= x) far in the lower tail, integrated with mpmath at 40 digits (its quad split
# at phi/20 steps for phi = 4999): scipy's nctdtr gives NaN at the first point, 7.08e-29
# at the second
TAIL = [((59, 9.6, -2.0009995), 1.79390665423e-30),
        ((59, 9.60143, -2.001), 1.76505697689e-30),
        ((1, 3.0, -0.5), 5.05085893837e-04),
        ((4999, 15.0, -1.96), 8.59363922253e-65),
        ((2, 9.0, -4.3), 1.41658034245e-22)]


@pytest.mark.parametrize(("args", "expected"), TAIL)
def test_the_lower_tail_where_scipy_has_no_value_is_integrated(args: tuple, expected: float
                                                                ) -> None:
    import scipy.special

    from rankwise.stats.topic_sets import _integrated_cdf, _noncentral_t_cdf

    assert _integrated_cdf(scipy.special, *args) == pytest.approx(expected, rel=1e-7)
    value = _noncentral_t_cdf(scipy.special, *args)
    assert value == pytest.approx(expected, rel=1e-7) or not math.isnan(
        scipy.special.nctdtr(*args))


def test_a_power_where_scipy_has_no_value() -> None:
    """rankwise guide failed on 60 queries: nctdtr(59, 9.60143, -2.0009995...) is NaN."""
    import scipy.special

    phi, noncentrality = 59, 9.60143
    w = float(scipy.special.stdtrit(phi, 0.975))
    # scipy 1.17's nctdtr gives NaN at -w (older ones a number); the lower tail is below
    # 1e-28 either way: the power is the upper tail's
    expected = 1.0 - float(scipy.special.nctdtr(phi, noncentrality, w))
    assert paired_t_power(noncentrality / math.sqrt(60), 60) == pytest.approx(expected,
                                                                                abs=1e-15)


def test_ci_table_and_methods() -> None:
    expected = {0.05: [64, 125, 187, 248, 310, 371, 433, 494, 556, 617],
                0.20: [6, 10, 14, 18, 22, 26, 29, 33, 37, 41]}
    for width, row in expected.items():
        for method in ("exact", "sakai"):
            sizes = [topic_set_size("ci", width, v, method=method).n for v in GRID_VARIANCES]
            assert sizes == row
    size = topic_set_size("ci", 0.1, 0.05)
    assert size.achieved <= 0.1 < ci_expected_width(size.n - 1, 0.05)


@pytest.mark.parametrize(("test", "systems"), [("t-test", None), ("anova", 3), ("ci", None)])
@pytest.mark.parametrize("min_diff", [1e-160, 1e-300])
def test_a_difference_too_small_to_square_is_an_error_not_a_crash(
    test: str, systems: int | None, min_diff: float
) -> None:
    """Issue 33, item 13: its square overflowed (OverflowError) or underflowed to 0
    (ZeroDivisionError); the answer is that no number of topics up to 10^8 is enough."""
    with pytest.raises(InvalidParameterError, match="needs more than 100,000,000 topics"):
        topic_set_size(test, min_diff, 0.05, n_systems=systems)


@pytest.mark.parametrize("min_diff", [1e10, 1e100, 1e300])
def test_a_huge_difference_needs_the_fewest_topics(min_diff: float) -> None:
    """A difference far beyond the variance is detected with power 1 by 2 topics (the
    fewest a paired test or ANOVA takes); scipy's noncentral distributions give NaN that
    far in their tails, which read as power 0 and searched up to 100,000,000 topics."""
    t_test = rw.design.topic_set_size("t-test", min_diff, 0.01)
    assert (t_test.n, t_test.achieved) == (2, 1.0)
    anova = rw.design.topic_set_size("anova", min_diff, 0.01, n_systems=3)
    assert (anova.n, anova.achieved) == (2, 1.0)
    assert paired_t_power(min_diff, 2) == 1.0
    assert anova_power(min_diff, 0.01, 3, 2) == 1.0


def test_too_many_systems_for_the_distributions_is_an_error_not_a_search() -> None:
    """scipy's chi-square noncentrality is NaN near 10^12 degrees of freedom."""
    with pytest.raises(InvalidParameterError, match="give fewer systems"):
        topic_set_size("anova", 0.1, 0.05, n_systems=10**20)


def test_residual_variance_converts_as_sakai_does() -> None:
    assert topic_set_size("t-test", 0.1, residual_variance=0.025) == \
        topic_set_size("t-test", 0.1, 0.05)
    assert topic_set_size("anova", 0.1, residual_variance=0.05, n_systems=5) == \
        topic_set_size("anova", 0.1, 0.05, n_systems=5)
    with pytest.raises(InvalidParameterError, match="exactly one"):
        topic_set_size("t-test", 0.1)
    with pytest.raises(InvalidParameterError, match="exactly one"):
        topic_set_size("t-test", 0.1, 0.1, residual_variance=0.1)
    with pytest.raises(InvalidParameterError, match="n_systems"):
        topic_set_size("anova", 0.1, 0.1)
    with pytest.raises(InvalidParameterError, match="test='anova' only"):
        topic_set_size("ci", 0.1, 0.1, n_systems=3)
    with pytest.raises(InvalidParameterError, match="test must be one of"):
        topic_set_size("f-test", 0.1, 0.1)
    with pytest.raises(InvalidParameterError, match="method"):
        topic_set_size("t-test", 0.1, 0.1, method="approx")
    with pytest.raises(InvalidParameterError, match="min_diff"):
        topic_set_size("t-test", -0.1, 0.1)


def test_table_of_sizes() -> None:
    table = topic_set_table("t-test", GRID_DIFFS, GRID_VARIANCES)
    assert [size.n for size in table.sizes[1]] == [10, 18, 26, 34, 42, 50, 57, 65, 73, 81]
    text = table.to_table("csv")
    assert text.splitlines()[0].startswith("minD_t,0.01,0.02")
    named = topic_set_table("t-test", [0.1], {"ndcg@10": 0.02, "map": 0.01}, residual=True)
    assert named.to_table().splitlines()[0].split() == ["minD_t", "ndcg@10", "map"]


def test_residual_variance_of_runs_is_the_anova_residual() -> None:
    qrels, runs = make_collection(n_queries=30, systems=("a", "b", "c"), skip={"c": 2})
    estimated = residual_variance(qrels, runs, ["map", "P@5"])
    for measure in ("map", "P@5"):
        per_run = [rw.evaluate(qrels, run, measure) for run in runs.values()]
        common = sorted(set.intersection(*(set(r.query_ids) for r in per_run)))
        matrix = [[r.value(measure, q) for q in common] for r in per_run]
        assert estimated[measure] == pytest.approx(
            two_way_anova(matrix).residual_variance, rel=1e-12)


def test_power_of_existing_comparisons_equals_r_and_the_definition() -> None:
    qrels, runs = make_collection(n_queries=40)
    comparison = rw.compare(qrels, runs, ["map", "ndcg@10"], baseline="bm25", seed=0)
    rows = power(comparison)
    assert len(rows) == 4
    for row in rows:
        compared = comparison.row(row.measure, row.system)
        assert row.effect_size == compared.effect_size and row.n_queries == 40
        assert row.power == pytest.approx(paired_t_power(compared.effect_size, 40), abs=1e-15)
        needed = topic_set_size("t-test", abs(compared.effect_size), 1.0).n
        assert row.topics_needed == needed
    # Sakai's future.sample.pairedt example: t = 2.1 with 50 topics -> power 0.5394, n = 91
    assert paired_t_power(2.1 / math.sqrt(50), 50) == pytest.approx(0.539373067821, abs=1e-10)
    assert topic_set_size("t-test", 2.1 / math.sqrt(50), 1.0).n == 91


def test_discriminative_power_by_bootstrap_is_each_pairs_bootstrap_test() -> None:
    from rankwise.stats import bootstrap_test, stream

    qrels, runs = make_collection(n_queries=40, systems=("a", "b", "c", "d"), skip={"d": 3})
    result = discriminative_power(qrels, runs, ["map", "P@5"], seed=4, n_resamples=500)
    names = list(runs)
    assert len(result.pairs) == 6 and result.pairs[0] == ("a", "b")
    assert "37 queries evaluated for every run" in result.notes[0]
    evaluated = {name: rw.evaluate(qrels, run, ["map", "P@5"]) for name, run in runs.items()}
    common = sorted(set.intersection(*(set(r.query_ids) for r in evaluated.values())))
    for measure in ("map", "P@5"):
        expected = []
        for first, second in result.pairs:
            d = np.array([evaluated[second].value(measure, q) - evaluated[first].value(measure, q)
                          for q in common])
            # the same resamples for every pair: each p is the pair's own test with that seed
            expected.append(bootstrap_test(d, n_resamples=500,
                                           seed=stream(4, "discriminative-power", names)).p_value)
        np.testing.assert_array_equal(result.p_values[measure], expected)
        assert result.fraction(measure) == np.mean(np.array(expected) <= 0.05)
        np.testing.assert_array_equal(result.curve(measure), np.sort(expected))
    assert "discriminative power" in result.to_table()
    again = discriminative_power(qrels, dict(reversed(list(runs.items()))), ["map", "P@5"],
                                 seed=4, n_resamples=500)
    assert sorted(again.p_values["map"].tolist()) == sorted(result.p_values["map"].tolist())


def test_discriminative_power_by_randomized_tukey_is_the_comparison() -> None:
    qrels, runs = make_collection(n_queries=40, systems=("a", "b", "c", "d"))
    result = discriminative_power(qrels, runs, ["map", "P@5"], test="randomized-tukey",
                                  seed=4, n_resamples=500)
    comparison = rw.compare(qrels, runs, ["map", "P@5"], test="randomized-tukey", seed=4,
                            n_resamples=500)
    for measure in ("map", "P@5"):
        p = np.array([r.p_value for r in comparison.rows
                      if r.measure == measure and r.baseline is not None])
        np.testing.assert_array_equal(result.p_values[measure], p)
        assert result.fraction(measure) == np.mean(p <= 0.05)
    with pytest.raises(InvalidParameterError,
                       match=r"^test must be 'bootstrap' or 'randomized-tukey', got 't-test' "
                             r"\(str\)$"):
        discriminative_power(qrels, runs, "map", test="t-test")


def test_asl_curves_plot() -> None:
    pytest.importorskip("matplotlib")
    from rankwise.report.discriminative import asl_figure

    qrels, runs = make_collection(n_queries=20, systems=("a", "b", "c"))
    result = discriminative_power(qrels, runs, ["map", "P@5"], seed=0, n_resamples=200)
    figure = asl_figure(result)
    ax = figure.axes[0]
    curves = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert [line.get_label() for line in curves][:2] == [
        f"map ({result.fraction('map'):.0%})", f"P@5 ({result.fraction('P@5'):.0%})"]
    np.testing.assert_array_equal(curves[0].get_ydata(), result.curve("map"))


def _files(tmp_path: Path) -> list[str]:
    qrels, runs = make_collection(n_queries=30, systems=("a", "b", "c"))
    qrels.to_trec(tmp_path / "q.txt")
    paths = [str(tmp_path / "q.txt")]
    for name, run in runs.items():
        run.to_trec(tmp_path / f"{name}.run")
        paths.append(str(tmp_path / f"{name}.run"))
    return paths


def test_cli_design_prints_sakais_table(capsys) -> None:
    from rankwise.cli import main

    assert main(["design"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("topics needed (paired t-test, alpha = 0.05, power = 0.8")
    assert lines[-3].split() == ["0.1000", "10", "18", "26", "34", "42", "50", "57", "65", "73",
                                 "81"]
    assert main(["design", "--test", "anova", "--systems", "10", "--min-diff", "0.1",
                 "--variance", "0.05", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [rows] = data.values()
    assert rows == [{"minD": 0.1, "0.05": 158}]


def test_cli_design_with_runs(tmp_path: Path, capsys) -> None:
    from rankwise.cli import main

    paths = _files(tmp_path)
    assert main(["design", *paths, "-m", "map", "--min-diff", "0.1",
                 "--discriminative-power", "bootstrap", "--seed", "1", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    titles = list(data)
    assert titles[0].startswith("variance estimates from 3 runs")
    variance = data[titles[0]][0]["residual_variance"]
    qrels, runs = make_collection(n_queries=30, systems=("a", "b", "c"))
    assert variance == pytest.approx(residual_variance(qrels, runs, "map")["map"], rel=1e-12)
    assert data[titles[1]][0]["map"] == topic_set_size("t-test", 0.1,
                                                       residual_variance=variance).n
    assert data[titles[2]][0]["pairs"] == 3
    assert main(["design", "--test", "z-test"]) == 2


def test_cli_design_errors(tmp_path: Path, capsys) -> None:
    from rankwise.cli import main

    paths = _files(tmp_path)
    assert main(["design", paths[0], paths[1]]) == 1
    assert "at least two runs" in capsys.readouterr().err
    assert main(["design", "--test", "anova"]) == 1
    assert "--systems" in capsys.readouterr().err
    assert main(["design", *paths, "--variance", "0.1"]) == 1
    assert main(["design", "--discriminative-power", "bootstrap"]) == 1


# The 3 x 6 case of the issue-18 research notes (multiples of 1/8, so every sum is
# exact): exact randomised Tukey p = 66/7776, 1952/7776, 4924/7776 (all relabellings)
# and Sakai's paired bootstrap ASL over all 6^6 resamples, system 0 vs 2: 0.0891418.
EIGHTHS = np.array([
    [6, 4, 5, 2, 7, 3],
    [4, 3, 4, 1, 5, 2],
    [5, 1, 2, 2, 4, 0],
])


def eighths_collection() -> tuple[dict, dict]:
    """Judgments and runs whose P@8 per topic is EIGHTHS / 8 (systems s0, s1, s2)."""
    qrels = {f"t{j}": {f"r{k}": 1 for k in range(8)} for j in range(EIGHTHS.shape[1])}
    runs = {}
    for i, row in enumerate(EIGHTHS):
        runs[f"s{i}"] = {
            f"t{j}": {**{f"r{k}": 20.0 - k for k in range(hits)},
                      **{f"n{k}": 10.0 - k for k in range(8 - hits)}}
            for j, hits in enumerate(row)}
    return qrels, runs


def exact_bootstrap_asl(z: np.ndarray) -> float:
    """Sakai's ASL with all n^n ordered resamples of the shifted differences.

    Resamples of one repeated value have variance 0 and a mean that is not 0:
    t = +-inf, counted as extreme (as rankwise does); 0/0 does not occur here.
    """
    import itertools

    n = len(z)
    t0 = z.mean() / (z.std(ddof=1) / math.sqrt(n))
    w = z - z.mean()
    resamples = w[np.array(list(itertools.product(range(n), repeat=n)))]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = resamples.mean(axis=1) / (resamples.std(ddof=1, axis=1) / math.sqrt(n))
    spread = resamples.max(axis=1) - resamples.min(axis=1)
    t = np.where(spread == 0, np.sign(resamples[:, 0]) * np.inf, t)
    return float(np.mean(np.abs(t) >= abs(t0) - 1e-12))


def test_discriminative_power_equals_the_exact_enumerations() -> None:
    qrels, runs = eighths_collection()
    evaluated = {name: rw.evaluate(qrels, run, "P@8") for name, run in runs.items()}
    for i, name in enumerate(runs):
        np.testing.assert_array_equal(evaluated[name]["P@8"], EIGHTHS[i] / 8)
    # randomised Tukey: 6^5 = 7,776 relabellings <= B, so the p-values are exact
    tukey = discriminative_power(qrels, runs, "P@8", test="randomized-tukey",
                                 n_resamples=10_000, seed=0)
    assert list(tukey.pairs) == [("s0", "s1"), ("s0", "s2"), ("s1", "s2")]
    np.testing.assert_array_equal(np.rint(tukey.p_values["P@8"] * 7776), [1952, 66, 4924])
    assert tukey.fraction("P@8") == pytest.approx(1 / 3)
    np.testing.assert_allclose(tukey.curve("P@8"), np.array([66, 1952, 4924]) / 7776,
                               rtol=0, atol=1e-15)
    # bootstrap: Monte Carlo estimate of the exact ASL. A resample of one repeated
    # shifted difference w_i != 0 has s* = 0 and t* = +-inf: extreme, as in rankwise.
    # The notes' enumeration (0.08914180384087791, 0.0013717421124828531) set inf to 0
    # but kept t* ~ 1e16 where rounding left s* > 0: it misses exactly 1 (s0-s2) and
    # 4,096 (s0-s1: w takes two values, 4^6 resamples repeat the one held 4 times)
    # of the 6^6 resamples. With few distinct differences (P@k) this matters.
    z = (EIGHTHS[0] - EIGHTHS[2]) / 8
    exact = exact_bootstrap_asl(z)
    assert exact == pytest.approx(0.08914180384087791 + 1 / 6**6, abs=1e-15)
    exact01 = exact_bootstrap_asl((EIGHTHS[0] - EIGHTHS[1]) / 8)
    assert exact01 == pytest.approx(0.0013717421124828531 + 4**6 / 6**6, abs=1e-15)
    boot = discriminative_power(qrels, runs, "P@8", n_resamples=20_000, seed=3)
    for pair, asl in ((("s0", "s2"), exact), (("s0", "s1"), exact01)):
        p = boot.p_values["P@8"][list(boot.pairs).index(pair)]
        assert abs(p - asl) < 5 * math.sqrt(asl * (1 - asl) / 20_000) + 1 / 20_001, pair
