"""t_interval, cohens_dz, wins_ties_losses, seed streams, test names, the import contract."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.stats

import rankwise.stats as stats
from rankwise.exceptions import InvalidParameterError
from rankwise.stats import cohens_dz, resolve_test, stream, t_interval, wins_ties_losses
from rankwise.stats.seeding import normalise_seed


def test_t_interval_equals_scipy() -> None:
    x = np.random.default_rng(0).random((50, 3))
    low, high = t_interval(x, 0.9)
    for j in range(3):
        expected = scipy.stats.t.interval(0.9, 49, loc=x[:, j].mean(),
                                          scale=scipy.stats.sem(x[:, j]))
        assert (low[j], high[j]) == pytest.approx(expected, rel=1e-12)
    assert all(np.isnan(t_interval([0.5])))


def test_t_interval_inverts_the_t_test() -> None:
    d = np.random.default_rng(1).normal(0.1, 0.5, size=40)
    low, _ = t_interval(d, 0.95)
    assert scipy.stats.ttest_1samp(d, low).pvalue == pytest.approx(0.05, rel=1e-9)


def test_cohens_dz() -> None:
    a, b = np.array([0.5, 0.75, 1.0, 0.5]), np.array([0.25, 0.5, 0.5, 0.5])
    d = a - b
    assert cohens_dz(a, b) == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-14)
    assert cohens_dz(np.zeros(5)) == 0.0
    assert cohens_dz(np.full(5, 0.1)) == np.inf
    assert np.isnan(cohens_dz([0.1]))
    columns = cohens_dz(np.column_stack([d, -d]))
    assert columns[0] == -columns[1]


def test_wins_ties_losses() -> None:
    assert wins_ties_losses([0.5, 0.2, 0.1, 0.9], [0.4, 0.2, 0.3, 0.1]) == (2, 1, 1)
    wins, ties, losses = wins_ties_losses(np.array([[0.1, 0.0], [0.0, -0.2]]))
    assert wins.tolist() == [1, 0] and ties.tolist() == [1, 1] and losses.tolist() == [0, 1]


def test_streams_depend_on_seed_purpose_and_the_set_of_names() -> None:
    def state(*args: object) -> list[int]:
        return stream(*args).generate_state(4).tolist()  # type: ignore[arg-type]

    assert state(1, "randomization", ["a", "b"]) == state(1, "randomization", ["b", "a"])
    assert state(1, "randomization", ["a", "b"]) != state(2, "randomization", ["a", "b"])
    assert state(1, "randomization", ["a", "b"]) != state(1, "bootstrap", ["a", "b"])
    assert state(1, "randomization", ["a", "b"]) != state(1, "randomization", ["a", "c"])
    assert state(1, "randomization", ["ab", "c"]) != state(1, "randomization", ["a", "bc"])
    # stable across processes and platforms (not Python's randomized hash)
    assert state(0, "randomization", ["bm25", "dense"])[0] == 1956465518


def test_seed_validation() -> None:
    assert normalise_seed(np.int64(3)) == 3
    for bad in (-1, 1.5, "1", True):
        with pytest.raises(InvalidParameterError, match="seed must be a non-negative integer"):
            normalise_seed(bad)


def test_test_names() -> None:
    assert resolve_test("permutation") == "randomization"
    assert resolve_test("T") == "t-test"
    assert resolve_test("signed_rank") == "wilcoxon"
    message = (r"^test must be one of 'randomization', 't-test', 'wilcoxon', 'bootstrap', 'sign', "
               r"'tukey', 'randomized-tukey' \(or an alias: 'randomisation', .*\), got 'wilcoxn' "
               r"\(str\); did you mean 'wilcoxon'\?$")
    with pytest.raises(InvalidParameterError, match=message):
        resolve_test("wilcoxn")


def test_public_names_exist() -> None:
    for name in stats.__all__:
        assert hasattr(stats, name), name
    assert set(stats.TESTS) | set(stats.MANY_SYSTEM_TESTS) == set(stats.TEST_LABELS)


def test_importing_rankwise_and_stats_does_not_import_scipy() -> None:
    code = ("import sys, rankwise, rankwise.stats, rankwise.comparison; "
            "print('scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
