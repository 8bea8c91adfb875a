"""Which way a significant difference goes: as the test weighs the differences.

The arrows of ``compare`` (tables, reports) follow ``ComparisonRow.direction``:
the mean difference for the tests of means, wins - losses for the sign test and
W+ - W- for the Wilcoxon test, checked here against scipy's one-sided tests.
"""

from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.stats.registry import direction_of

scipy_stats = pytest.importorskip("scipy.stats")

# 16 queries: the system wins 14 by 0.01... by judging one more document in the
# top 100, and loses 2 by a lot (a relevant document falls out of the top 2)
_WINS, _LOSSES = 14, 2


def _lopsided() -> tuple[dict, dict]:
    """qrels and two runs: "many" beats "base" on 14 queries a little, loses 2 a lot."""
    qrels: dict[str, dict[str, int]] = {}
    base: dict[str, dict[str, float]] = {}
    many: dict[str, dict[str, float]] = {}
    for i in range(_WINS + _LOSSES):
        q = f"q{i:02d}"
        qrels[q] = {"r1": 1, "r2": 1}
        ranked = [f"n{j}" for j in range(100)]
        if i < _WINS:  # r2 moves from position 100 to 99 in "many": a small gain
            base[q] = {**{d: 200.0 - j for j, d in enumerate(ranked)}, "r1": 300.0, "r2": 0.5}
            many[q] = {**{d: 200.0 - j for j, d in enumerate(ranked)}, "r1": 300.0,
                       "r2": 101.5 + 0.25}
        else:  # r1 falls from the top to the bottom in "many": a large loss
            base[q] = {**{d: 200.0 - j for j, d in enumerate(ranked)}, "r1": 300.0, "r2": 299.0}
            many[q] = {**{d: 200.0 - j for j, d in enumerate(ranked)}, "r1": 0.5, "r2": 299.0}
    return qrels, {"base": base, "many": many}


@pytest.mark.parametrize("test", ["sign", "wilcoxon"])
def test_a_run_winning_most_queries_by_a_little_is_higher_under_rank_tests(test: str) -> None:
    qrels, runs = _lopsided()
    comparison = rw.compare(qrels, runs, "map", baseline="base", test=test)
    row = comparison.row("map", "many")
    assert (row.wins, row.losses) == (_WINS, _LOSSES)
    assert row.delta < 0  # the mean is lower ...
    assert row.significant and row.direction == 1  # ... yet the test finds it higher
    table = comparison.to_table()
    assert "▲" in table and "▼" not in table.split("\n")[3]
    assert "whatever the mean" in table
    latex = comparison.to_table("latex")
    body = latex.split("\\bottomrule")[0]
    assert "blacktriangle" in body and "blacktriangledown" not in body


def test_the_report_marks_follow_the_test() -> None:
    qrels, runs = _lopsided()
    html = rw.build_report(qrels, runs, ["map"], baseline="base", test="sign").to_html()
    assert '<span class="sig up" title="better than base: Δ −0.0612, won/tied/lost 14/0/2' in html
    assert '<span class="sig down" title=' not in html
    assert "whatever the mean" in html


def test_the_tests_of_means_keep_the_mean_difference() -> None:
    qrels, runs = _lopsided()
    comparison = rw.compare(qrels, runs, "map", baseline="base", test="t-test")
    row = comparison.row("map", "many")
    assert row.direction == -1 and row.delta < 0
    assert "whatever the mean" not in comparison.to_table()


def test_all_pairs_letters_follow_the_test() -> None:
    qrels, runs = _lopsided()
    comparison = rw.compare(qrels, runs, "map", test="sign")
    row = next(r for r in comparison.rows if r.baseline is not None)
    # the later run is compared with the earlier: "many" against "base"
    assert (row.system, row.baseline, row.direction) == ("many", "base", 1)
    table = comparison.to_table()
    many_line = next(line for line in table.splitlines() if line.startswith("many"))
    base_line = next(line for line in table.splitlines() if line.startswith("base"))
    assert many_line.rstrip().endswith("a") and not base_line.rstrip().endswith("b")


def test_frames_carry_the_direction() -> None:
    qrels, runs = _lopsided()
    frame = rw.compare(qrels, runs, "map", baseline="base", test="sign").to_pandas()
    assert frame["direction"].tolist()[1] == 1 and frame["direction"].isna().tolist()[0]
    assert str(frame["direction"].dtype) == "Int64"


def _one_sided(test: str, column: np.ndarray) -> tuple[float, float]:
    """scipy's p-values of "higher" and "lower" for *column* under *test*."""
    if test == "wilcoxon":
        kept = column[column != 0]  # the normal approximation: its z has the sign of W+ - W-
        return (scipy_stats.wilcoxon(kept, alternative="greater", method="approx").pvalue,
                scipy_stats.wilcoxon(kept, alternative="less", method="approx").pvalue)
    positive, negative = int((column > 0).sum()), int((column < 0).sum())
    return (scipy_stats.binomtest(positive, positive + negative, alternative="greater").pvalue,
            scipy_stats.binomtest(positive, positive + negative, alternative="less").pvalue)


@pytest.mark.parametrize("test", ["sign", "wilcoxon"])
def test_direction_agrees_with_scipys_one_sided_tests(test: str) -> None:
    rng = np.random.default_rng(55)
    checked = 0
    for _ in range(300):
        n = int(rng.integers(3, 30))
        # skewed differences with ties and zeros: mean and rank sums often disagree
        d = np.round(rng.choice([-1, 1], n, p=[0.35, 0.65]) * rng.exponential(1, n)
                     ** rng.choice([0.2, 3]), 1)
        if not np.any(d):
            assert direction_of(test, d[:, None])[0] == 0
            continue
        higher, lower = _one_sided(test, d)
        expected = 0 if np.isclose(higher, lower, rtol=1e-12) else (1 if higher < lower else -1)
        assert direction_of(test, d[:, None])[0] == expected, d
        checked += 1
    assert checked > 250


def test_direction_of_the_tests_of_means_is_the_mean_difference() -> None:
    d = np.array([[0.1, -0.2, 0.0], [0.1, 0.1, 0.0], [-0.5, 0.05, 0.0]])
    for test in ("t-test", "randomization", "bootstrap", "tukey", "randomized-tukey"):
        assert direction_of(test, d).tolist() == [-1, -1, 0]
