"""Two-way ANOVA, Tukey's HSD on its residual, the studentized range: against the references.

References: statsmodels ``anova_lm(ols("score ~ C(system) + C(topic)"))`` and
``fit.mse_resid`` (a test-only peer), scipy's ``studentized_range`` (accurate
to ~1e-12 against mpmath), the exact k = 2 case (Q = sqrt(2) |t|), R's
``TukeyHSD(aov(...))`` when Rscript is installed (RANKWISE_RSCRIPT or on the
PATH; R's ptukey is itself off by up to 1e-6 at 50 means), and the published
values of Sakai's Table 5.1.
"""

from __future__ import annotations

import csv
import math
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from strategies import score_matrices

from rankwise.exceptions import InvalidParameterError
from rankwise.stats import TukeyResult, tukey_hsd, two_way_anova
from rankwise.stats.studentized_range import studentized_range_ppf, studentized_range_sf

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"


def sakai_table() -> np.ndarray:
    with open(DATA / "sakai_table5_1.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return np.array([[float(row[name]) for row in rows] for name in ("X", "Y", "Z")])


def random_matrix(m: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    topics = rng.beta(2, 5, size=n)
    effects = np.linspace(0, 0.08, m)
    return np.clip(topics[None, :] + effects[:, None] + rng.normal(0, 0.05, (m, n)), 0, 1)


def scipy_tukey(x: np.ndarray, mse: float, df: float,
                pairs: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
    """scipy's p-values of every pair of systems, or of the *pairs* (indices) only."""
    m, n = x.shape
    means = x.mean(axis=1)
    q = np.abs(means[:, None] - means[None, :]) / math.sqrt(mse / n)
    if pairs is not None:
        q = q[pairs]  # scipy integrates each value: half the matrix, half the time
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # IntegrationWarning at many means; values are fine
        return scipy.stats.studentized_range.sf(q, m, df)


# ----------------------------------------------------------------------------
# two-way ANOVA
# ----------------------------------------------------------------------------


def test_sakai_table_5_1_published_values() -> None:
    result = two_way_anova(sakai_table())
    assert round(result.ss_systems, 4) == 0.1083
    assert round(result.ss_topics, 4) == 1.0293
    assert round(result.ss_residual, 4) == 0.8317
    assert round(result.residual_variance, 4) == 0.0219
    assert round(result.f_systems, 3) == 2.475 and round(result.p_systems, 3) == 0.098
    assert round(result.f_topics, 3) == 2.475 and round(result.p_topics, 3) == 0.009
    assert (result.df_systems, result.df_topics, result.df_residual) == (2, 19, 38)
    margin = scipy.stats.t.ppf(0.975, 38) * math.sqrt(result.residual_variance / 20)
    assert round(margin, 4) == 0.0670
    means = result.system_means
    effect = (means[:, None] - means[None, :]) / math.sqrt(result.residual_variance)
    assert [round(abs(effect[i, j]), 4) for i, j in ((0, 1), (0, 2), (1, 2))] == \
        [0.5070, 0.6760, 0.1690]


@pytest.mark.parametrize("shape, seed", [((3, 20), 0), ((4, 10), 1), ((10, 50), 2),
                                         ((2, 7), 3), ((25, 8), 4)])
def test_anova_equals_statsmodels(shape: tuple[int, int], seed: int) -> None:
    pd = pytest.importorskip("pandas")
    sm = pytest.importorskip("statsmodels.api")
    formula = pytest.importorskip("statsmodels.formula.api")
    x = random_matrix(*shape, seed)
    m, n = x.shape
    frame = pd.DataFrame([(f"s{i}", f"t{j}", x[i, j]) for i in range(m) for j in range(n)],
                         columns=["system", "topic", "score"])
    fit = formula.ols("score ~ C(system) + C(topic)", data=frame).fit()
    table = sm.stats.anova_lm(fit, typ=1)
    result = two_way_anova(x)
    assert result.residual_variance == pytest.approx(fit.mse_resid, rel=1e-10)
    assert result.df_residual == fit.df_resid
    for row, prefix in (("C(system)", "systems"), ("C(topic)", "topics")):
        assert getattr(result, f"ss_{prefix}") == pytest.approx(table.loc[row, "sum_sq"],
                                                                rel=1e-10)
        assert getattr(result, f"f_{prefix}") == pytest.approx(table.loc[row, "F"], rel=1e-9)
        assert abs(getattr(result, f"p_{prefix}") - table.loc[row, "PR(>F)"]) <= 1e-12
    assert result.ss_residual == pytest.approx(table.loc["Residual", "sum_sq"], rel=1e-10)
    # omega squared (Sakai 2018, ch. 3) from statsmodels' sums of squares
    ss_a, v_e = table.loc["C(system)", "sum_sq"], fit.mse_resid
    ss_t = table["sum_sq"].sum()
    assert result.omega2_systems == pytest.approx((ss_a - (m - 1) * v_e) / (ss_t + v_e),
                                                  rel=1e-9, abs=1e-15)
    f = result.f_systems
    assert result.partial_omega2_systems == pytest.approx(
        (m - 1) * (f - 1) / ((m - 1) * (f - 1) + m * n), rel=1e-12)


def test_anova_refuses_what_it_cannot_use() -> None:
    for bad, message in [([1.0, 2.0], "2-D"), ([[1.0, 2.0]], "at least 2 systems"),
                         ([[1.0], [2.0]], "at least 2 systems and 2 topics"),
                         ([[1.0, np.nan], [2.0, 1.0]], "finite")]:
        with pytest.raises(InvalidParameterError, match=message):
            two_way_anova(bad)


def test_anova_of_perfectly_additive_data() -> None:
    x = np.add.outer([0.0, 0.25, 0.5], [0.0, 0.125, 0.5, 0.75])  # no residual at all
    result = two_way_anova(x)
    assert result.ss_residual == 0.0 and result.f_systems == np.inf and result.p_systems == 0
    constant = two_way_anova(np.full((3, 4), 0.5))
    assert math.isnan(constant.f_systems) and math.isnan(constant.p_systems)


# ----------------------------------------------------------------------------
# the studentized range distribution
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("k, df", [(2, 1), (3, 2), (3, 38), (4, 27), (5, 4), (10, 9),
                                   (20, 570), (30, 29), (50, 4851), (12, 3.5), (6, 2.5),
                                   pytest.param(100, 24750, marks=pytest.mark.slow)])
def test_studentized_range_equals_scipy(k: int, df: float) -> None:
    q = np.linspace(0.0, 10.0, 21)
    expected = scipy_tukey_sf(q, k, df)
    assert np.abs(studentized_range_sf(q, k, df) - expected).max() <= 1e-9


def scipy_tukey_sf(q: np.ndarray, k: int, df: float) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scipy.stats.studentized_range.sf(q, k, df)


@pytest.mark.parametrize("df", [1, 3, 10, 100, 10_000, 1_000_000])
def test_two_means_are_a_t_test(df: int) -> None:
    # Q of 2 means is sqrt(2) |t|: exact, where scipy's large-df shortcut is off by 3e-6
    q = np.linspace(0.01, 9, 40)
    exact = 2 * scipy.stats.t.sf(q / math.sqrt(2), df)
    assert np.abs(studentized_range_sf(q, 2, df) - exact).max() <= 1e-10


def test_studentized_range_quantile_inverts_the_tail() -> None:
    for k, df in [(3, 38), (10, 90), (50, 12250)]:
        q = studentized_range_ppf(0.95, k, df)
        assert studentized_range_sf(q, k, df) == pytest.approx(0.05, abs=1e-12)
    assert studentized_range_ppf(0.95, 3, 38) == pytest.approx(
        scipy.stats.studentized_range.ppf(0.95, 3, 38), rel=1e-10)
    assert studentized_range_sf(-1.0, 3, 5) == 1.0 and studentized_range_sf(np.inf, 3, 5) == 0
    with pytest.raises(InvalidParameterError, match="k"):
        studentized_range_sf(1.0, 1, 5)
    with pytest.raises(InvalidParameterError, match="df"):
        studentized_range_sf(1.0, 3, 0)


# ----------------------------------------------------------------------------
# Tukey's HSD
# ----------------------------------------------------------------------------


def test_tukey_on_sakai_table_equals_the_reference() -> None:
    result = tukey_hsd(sakai_table())
    assert isinstance(result, TukeyResult)
    # scipy with the ANOVA residual; R's TukeyHSD gives the same to 8.6e-13
    expected = {(0, 1): 0.256697746377, (0, 2): 0.095686847118, (1, 2): 0.854963181115}
    for (i, j), p in expected.items():
        assert result.p_values[i, j] == pytest.approx(p, abs=1e-11)
        assert result.p_values[j, i] == result.p_values[i, j]
    assert result.critical_difference == pytest.approx(0.11409422894663114, rel=1e-10)
    assert result.letters() == ["a", "a", "a"]
    low, high = result.ci_low[1, 0], result.ci_high[1, 0]  # Y - X, as R's "Y-X" row
    assert (low, high) == pytest.approx((-0.189094228951, 0.039094228951), abs=1e-11)


@pytest.mark.parametrize("shape, seed", [((4, 10), 0), ((3, 20), 5), ((10, 50), 6),
                                         pytest.param((20, 30), 7, marks=pytest.mark.slow),
                                         ((6, 12), 8)])
def test_tukey_equals_statsmodels_residual_and_scipy(shape: tuple[int, int], seed: int) -> None:
    pd = pytest.importorskip("pandas")
    formula = pytest.importorskip("statsmodels.formula.api")
    x = random_matrix(*shape, seed)
    m, n = x.shape
    frame = pd.DataFrame([(f"s{i}", f"t{j}", x[i, j]) for i in range(m) for j in range(n)],
                         columns=["system", "topic", "score"])
    fit = formula.ols("score ~ C(system) + C(topic)", data=frame).fit()
    expected = scipy_tukey(x, fit.mse_resid, fit.df_resid)
    result = tukey_hsd(x)
    off = ~np.eye(m, dtype=bool)
    assert np.abs(result.p_values[off] - expected[off]).max() <= 1e-8
    assert (np.diag(result.p_values) == 1).all()
    assert np.allclose(result.statistic * math.sqrt(fit.mse_resid / n),
                       np.abs(result.differences), rtol=1e-12, atol=1e-15)


@pytest.mark.slow
def test_tukey_with_fifty_systems_equals_scipy() -> None:
    x = random_matrix(50, 100, 9)
    anova = two_way_anova(x)
    upper = np.triu_indices(50, 1)
    expected = scipy_tukey(x, anova.residual_variance, anova.df_residual, upper)
    assert np.abs(tukey_hsd(x).p_values[upper] - expected).max() <= 1e-8


def _rscript() -> str | None:
    return os.environ.get("RANKWISE_RSCRIPT") or shutil.which("Rscript")


_R_TUKEY = r"""
d <- read.csv(file("stdin"), colClasses=c("character", "character", "numeric"))
d$system <- factor(d$system, levels=unique(d$system))
d$topic <- factor(d$topic, levels=unique(d$topic))
tk <- TukeyHSD(aov(score ~ system + topic, data=d), "system")$system
options(digits=17)
write.csv(as.data.frame(tk), stdout())
"""


@pytest.mark.parametrize("shape, seed, tolerance", [((4, 10), 0, 1e-9), ((3, 20), 5, 1e-9),
                                                    ((10, 25), 6, 1e-7)])
def test_tukey_equals_r_tukeyhsd(shape: tuple[int, int], seed: int, tolerance: float,
                                 tmp_path: Path) -> None:
    rscript = _rscript()
    if rscript is None:
        pytest.skip("R is not installed (set RANKWISE_RSCRIPT or put Rscript on the PATH)")
    x = random_matrix(*shape, seed)
    m, n = x.shape
    lines = ["system,topic,score"] + [f"s{i},t{j},{float(x[i, j])!r}" for i in range(m)
                                      for j in range(n)]
    script = tmp_path / "tukey.R"
    script.write_text(_R_TUKEY, encoding="utf-8")
    out = subprocess.run([rscript, str(script)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    result = tukey_hsd(x)
    rows = list(csv.reader(out.splitlines()))[1:]
    assert len(rows) == m * (m - 1) // 2
    for label, diff, low, high, p in rows:
        i, j = (int(part[1:]) for part in label.split("-"))  # "s2-s0": s2 minus s0
        assert float(diff) == pytest.approx(result.differences[i, j], abs=1e-13)
        assert float(p) == pytest.approx(result.p_values[i, j], abs=tolerance)
        assert float(low) == pytest.approx(result.ci_low[i, j], abs=1e-9)
        assert float(high) == pytest.approx(result.ci_high[i, j], abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(score_matrices())
def test_tukey_properties(x: np.ndarray) -> None:
    result = tukey_hsd(x)
    p = result.p_values
    assert ((p >= 0) & (p <= 1)).all() and (p == p.T).all()
    # a larger difference never has a larger p-value
    upper = np.triu_indices(len(p), 1)
    order = np.argsort(result.statistic[upper], kind="stable")
    assert (np.diff(p[upper][order]) <= 1e-12).all()
    # significant at alpha exactly when the difference exceeds the HSD
    if np.isfinite(result.critical_difference) and result.critical_difference > 0:
        beyond = np.abs(result.differences[upper]) > result.critical_difference * (1 + 1e-9)
        within = np.abs(result.differences[upper]) < result.critical_difference * (1 - 1e-9)
        assert (p[upper][beyond] <= 0.05).all() and (p[upper][within] > 0.05).all()
