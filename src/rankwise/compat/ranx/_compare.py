"""ranx's ``compare``: every run evaluated, every pair of runs tested, in a ``Report``.

The tests, with ranx's meanings and rankwise's statistics:

- ``student``: the two-sided paired t-test (:func:`rankwise.stats.parametric.paired_t_test`,
  scipy's ``ttest_rel``, which ranx calls, to 1e-12; where every difference is 0
  the p-value is 1, where scipy gives NaN: not significant in both);
- ``fisher``: Fisher's randomization test of the mean difference
  (:func:`rankwise.stats.resampling.randomization_test`, *n_permutations* sign
  flips seeded by *random_seed*; exact when 2^k <= n_permutations for k non-zero
  differences). ranx draws other permutations: the p-values agree as two
  estimates of one p-value, not digit for digit;
- ``tukey``: ranx's one-way Tukey HSD over the runs (scipy's ``tukey_hsd``, which
  ignores that the queries are shared: rankwise's own ``compare(test="tukey")``
  is the two-way one), its p-values from rankwise's studentized range
  distribution.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from rankwise.compat.ranx._evaluate import evaluate, format_metrics
from rankwise.compat.ranx.data_structures import FrozensetDict, Report
from rankwise.exceptions import InvalidParameterError

__all__ = ["compare", "one_way_tukey"]

STAT_TESTS = ("student", "fisher", "tukey")


def one_way_tukey(scores: list[np.ndarray]) -> np.ndarray:
    r"""The p-values of the one-way Tukey HSD of equal-size groups (scipy's ``tukey_hsd``).

    :math:`q = |\bar x_i - \bar x_j| / \sqrt{MSE / n}`, MSE the pooled
    within-group variance on :math:`N - k` degrees of freedom, and
    :math:`p = P(Q_{k, N-k} > q)`.

    Examples
    --------
    >>> one_way_tukey([np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])]).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    from rankwise.stats.studentized_range import studentized_range_sf

    x = np.vstack(scores).astype(np.float64)
    k, n = x.shape
    means = x.mean(axis=1)
    mse = float(((x - means[:, None]) ** 2).sum() / (k * n - k))
    differences = np.abs(means[:, None] - means[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        q = differences / math.sqrt(mse / n)
    p = np.ones((k, k))
    upper = np.triu_indices(k, 1)
    p[upper] = studentized_range_sf(np.nan_to_num(q[upper], nan=0.0), k, k * n - k)
    p.T[upper] = p[upper]
    return p


def _pair_p_value(stat_test: str, control: np.ndarray, treatment: np.ndarray,
                  n_permutations: int, random_seed: int) -> float:
    from rankwise.stats.parametric import paired_t_test
    from rankwise.stats.resampling import randomization_test

    if stat_test == "student":  # numpy's float, as scipy's ttest_rel gives ranx
        return np.float64(paired_t_test(control, treatment).p_value)
    return float(randomization_test(control, treatment, n_resamples=n_permutations,
                                    seed=random_seed).p_value)


def _significance(names: list[str], scores: dict[str, dict[str, np.ndarray]], metrics: list[str],
                  stat_test: str, n_permutations: int, max_p: float,
                  random_seed: int) -> FrozensetDict:
    comparisons = FrozensetDict()
    if stat_test == "tukey":
        for i, control in enumerate(names):
            for treatment in names[i:]:
                comparisons[control, treatment] = {}
        for m in metrics:
            p = one_way_tukey([scores[name][m] for name in names])
            for i, control in enumerate(names):
                for j, treatment in enumerate(names):
                    comparisons[control, treatment][m] = {
                        "p_value": p[i, j], "significant": bool(p[i, j] <= max_p)}
        return comparisons
    for i, control in enumerate(names):
        for treatment in names[i + 1:]:
            tests = {}
            for m in metrics:
                p_value = _pair_p_value(stat_test, scores[control][m], scores[treatment][m],
                                        n_permutations, random_seed)
                tests[m] = {"p_value": p_value, "significant": bool(p_value <= max_p)}
            comparisons[control, treatment] = tests
    return comparisons


def compare(qrels: Any, runs: Sequence[Any], metrics: str | Sequence[str],
            stat_test: str = "student", n_permutations: int = 1000, max_p: float = 0.01,
            random_seed: int = 42, threads: int = 0, rounding_digits: int = 3,
            show_percentages: bool = False, make_comparable: bool = False) -> Report:
    """See :func:`rankwise.compat.ranx.compare`."""
    if stat_test not in STAT_TESTS:
        raise InvalidParameterError(
            f"stat_test must be 'student', 'fisher' or 'tukey', got {stat_test!r}")
    names_of_metrics = format_metrics(metrics)
    model_names: list[str] = []
    scores: dict[str, dict[str, np.ndarray]] = {}
    results: dict[str, dict[str, float]] = {}
    for i, run in enumerate(runs):
        name = run.name if run.name is not None else f"run_{i + 1}"
        model_names.append(name)
        values = evaluate(qrels, run, names_of_metrics, return_mean=False, threads=threads,
                          make_comparable=make_comparable)
        if len(names_of_metrics) == 1:
            values = {names_of_metrics[0]: values}
        scores[name] = values
        results[name] = {m: float(np.mean(values[m])) for m in names_of_metrics}
    comparisons = _significance(model_names, scores, names_of_metrics, stat_test,
                                n_permutations, max_p, random_seed)
    win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
    for control in model_names:
        for treatment in model_names:
            if control != treatment:
                win_tie_loss[(control, treatment)] = {m: {
                    "W": int(np.sum(scores[control][m] > scores[treatment][m])),
                    "T": int(np.sum(scores[control][m] == scores[treatment][m])),
                    "L": int(np.sum(scores[control][m] < scores[treatment][m])),
                } for m in names_of_metrics}
    return Report(model_names=model_names, results=results, comparisons=comparisons,
                  metrics=names_of_metrics, max_p=max_p, win_tie_loss=win_tie_loss,
                  rounding_digits=rounding_digits, show_percentages=show_percentages,
                  stat_test=stat_test)
