r"""Many systems at once: Tukey's HSD on the two-way ANOVA residual, and its randomised version.

Both compare every pair of :math:`m` systems over the same :math:`n` topics
and control the family-wise error over all :math:`m(m-1)/2` pairs, so their
p-values need no further correction.

- :func:`tukey_hsd`: :math:`q_{ii'} = |\bar x_{i\cdot} - \bar x_{i'\cdot}| /
  \sqrt{V_E / n}` with :math:`V_E` the residual variance of the two-way
  ANOVA without replication (:func:`rankwise.stats.anova.two_way_anova`),
  and :math:`p = P(Q_{m, \phi_E} > q)`, the studentized range distribution
  with :math:`\phi_E = (m-1)(n-1)` degrees of freedom: R's
  ``TukeyHSD(aov(score ~ system + topic))``. (Not the one-way Tukey-Kramer of
  ``scipy.stats.tukey_hsd``, statsmodels' ``pairwise_tukeyhsd`` or ranx,
  which ignore that topics are shared.)
- :func:`randomized_tukey_hsd`: Carterette's randomised Tukey HSD (ACM TOIS
  30(1), 2012; Sakai, *Laboratory Experiments in IR*, 2018, ch. 4): in
  each trial the :math:`m` values of every topic are shuffled among the
  systems, and :math:`D^* = \max_i \bar x^*_{i\cdot} - \min_i \bar x^*_{i\cdot}`;
  :math:`p_{ii'} = \#\{b : D^*_b \ge |\bar x_{i\cdot} - \bar x_{i'\cdot}|\} / B`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankwise._validation import LEVEL, Instance, check
from rankwise.stats.anova import TwoWayAnova, as_matrix, two_way_anova
from rankwise.stats.letters import compact_letters
from rankwise.stats.resampling import DEFAULT_CHUNK_SIZE, check_resamples
from rankwise.stats.seeding import as_seed_sequence

__all__ = ["TukeyResult", "randomized_tukey_hsd", "tukey_hsd"]

BLOCK = 64
"""Trials drawn from one random stream: the unit that makes the result independent of the chunk."""

_TIE_TOLERANCE = 1e-9
"""A permuted range within this fraction of n max|x| of an observed difference counts as a tie."""


@dataclass(frozen=True)
class TukeyResult:
    r"""All pairs of systems compared at once (Tukey's HSD or its randomised version).

    Matrices are :math:`m \times m`, in the order of the rows given, with
    entry ``[i, j]`` about system *i* minus system *j*.

    Attributes
    ----------
    method : {"tukey", "randomized-tukey"}
    means : numpy.ndarray
        System means over the topics.
    differences : numpy.ndarray
        ``means[i] - means[j]``.
    statistic : numpy.ndarray
        Tukey: :math:`q = |d| / \sqrt{V_E / n}`; randomised: :math:`|d|`.
    p_values : numpy.ndarray
        Symmetric, family-wise over all pairs; 1 on the diagonal.
    ci_low, ci_high : numpy.ndarray
        Tukey's simultaneous :math:`1 - \alpha` intervals of the differences,
        :math:`d \pm Q_{m,\phi_E}(1-\alpha) \sqrt{V_E/n}` (NaN for the randomised test).
    critical_difference : float
        Tukey's honestly significant difference :math:`Q_{m,\phi_E}(1-\alpha)\sqrt{V_E/n}`
        (NaN for the randomised test).
    alpha : float
        The level of the intervals and of :meth:`significant` / :meth:`letters` by default.
    anova : TwoWayAnova
        The two-way ANOVA of the same matrix.
    p_method : str
        ``"studentized range"``, ``"exact"`` (all relabellings enumerated) or
        ``"monte carlo"``.
    n_resamples : int
        Trials drawn (Monte Carlo), relabellings enumerated (exact), 0 for Tukey.
    plus_one : bool
        Monte Carlo p-values as :math:`(c + 1) / (B + 1)` rather than :math:`c / B`.
    """

    method: str
    means: np.ndarray
    differences: np.ndarray
    statistic: np.ndarray
    p_values: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    critical_difference: float
    alpha: float
    anova: TwoWayAnova
    p_method: str
    n_resamples: int = 0
    plus_one: bool = False

    @property
    def n_systems(self) -> int:
        """:math:`m`."""
        return len(self.means)

    def significant(self, alpha: float | None = None) -> np.ndarray:
        """Boolean matrix: ``p <= alpha`` off the diagonal."""
        level = self.alpha if alpha is None else alpha
        out = self.p_values <= level
        np.fill_diagonal(out, False)
        return out

    def letters(self, alpha: float | None = None) -> list[str]:
        """Compact letter display at *alpha*: systems that share a letter do not differ.

        ``a`` is the group of the highest mean (see
        :func:`rankwise.stats.letters.compact_letters`).
        """
        return compact_letters(self.means, self.significant(alpha))

    def pairs(self) -> list[tuple[int, int]]:
        """The pairs ``(i, j)``, ``i < j``, in row order."""
        m = self.n_systems
        return [(i, j) for i in range(m) for j in range(i + 1, m)]


def tukey_hsd(values: Any, *, alpha: float = 0.05) -> TukeyResult:
    r"""Tukey's HSD on the residual variance of the two-way ANOVA (systems x topics).

    Parameters
    ----------
    values : array_like
        Shape ``(m, n)``: one row per system, one column per topic, complete.
    alpha : float
        Level of the simultaneous intervals and of the honestly significant difference.

    Returns
    -------
    TukeyResult

    Examples
    --------
    Sakai (2015), Table 5.1 has 3 systems x 20 topics; its first six topics:

    >>> x = [[0.7, 0.3, 0.2, 0.6, 0.4, 0.4], [0.5, 0.1, 0.0, 0.2, 0.4, 0.3],
    ...      [0.0, 0.0, 0.2, 0.1, 0.3, 0.3]]
    >>> result = tukey_hsd(x)
    >>> result.p_values.round(4).tolist()
    [[1.0, 0.1496, 0.0245], [0.1496, 1.0, 0.5237], [0.0245, 0.5237, 1.0]]
    >>> result.letters()
    ['a', 'ab', 'b']
    """
    from rankwise.stats.studentized_range import studentized_range_ppf, studentized_range_sf

    alpha = check("alpha", alpha, LEVEL)
    x = as_matrix(values)
    m, n = x.shape
    anova = two_way_anova(x)
    means = anova.system_means
    differences = means[:, None] - means[None, :]
    scale = math.sqrt(anova.residual_variance / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(differences) / scale
    q[np.abs(differences) == 0] = 0.0  # also when V_E = 0
    p = np.ones((m, m))
    upper = np.triu_indices(m, 1)
    p[upper] = studentized_range_sf(q[upper], m, anova.df_residual)
    p.T[upper] = p[upper]
    critical = studentized_range_ppf(1 - alpha, m, anova.df_residual) * scale
    return TukeyResult(
        method="tukey", means=means, differences=differences, statistic=q, p_values=p,
        ci_low=differences - critical, ci_high=differences + critical,
        critical_difference=critical, alpha=alpha, anova=anova,
        p_method="studentized range",
    )


def _canonical_rows(x: np.ndarray) -> np.ndarray:
    """An order of the rows that depends only on their values (so not on the order given)."""
    return np.lexsort(x.T[::-1])


def _count_at_least(ranges: np.ndarray, observed: np.ndarray, tolerance: float) -> np.ndarray:
    ordered = np.sort(ranges)
    return len(ordered) - np.searchsorted(ordered, observed - tolerance, side="left")


def _enumerated_ranges(x: np.ndarray) -> np.ndarray:
    """D* (in sums) of every relabelling, topic 0 fixed: (m!)^(n-1) values."""
    import itertools

    m, n = x.shape
    perms = np.array(list(itertools.permutations(range(m))))
    sums = x[:, 0][None, :]
    for j in range(1, n):
        sums = (sums[:, None, :] + x[perms, j][None, :, :]).reshape(-1, m)
    out: np.ndarray = sums.max(axis=1) - sums.min(axis=1)
    return out


def _sampled_ranges(x: np.ndarray, n_resamples: int, seed: np.random.SeedSequence,
                    chunk_size: int) -> np.ndarray:
    """D* (in sums) of *n_resamples* random relabellings, BLOCK trials per stream."""
    m, n = x.shape
    columns = np.ascontiguousarray(x.T)  # topics x systems
    blocks = -(-n_resamples // BLOCK)
    per_chunk = max(1, chunk_size // max(1, BLOCK * n * m))
    out = np.empty(n_resamples)
    key = tuple(seed.spawn_key)
    for first in range(0, blocks, per_chunk):
        last = min(blocks, first + per_chunk)
        start, stop = first * BLOCK, min(n_resamples, last * BLOCK)
        trials = stop - start
        table = np.tile(columns, (trials, 1))  # (trials * topics) x systems
        for block in range(first, last):
            generator = np.random.Generator(np.random.PCG64(
                np.random.SeedSequence(seed.entropy, spawn_key=(*key, block))))
            rows = slice((block * BLOCK - start) * n,
                         (min(stop, (block + 1) * BLOCK) - start) * n)
            generator.permuted(table[rows], axis=1, out=table[rows])
        sums = table.reshape(trials, n, m).sum(axis=1)
        out[start:stop] = sums.max(axis=1) - sums.min(axis=1)
    return out


def randomized_tukey_hsd(
    values: Any,
    *,
    n_resamples: int = 10_000,
    seed: Any = None,
    alpha: float = 0.05,
    plus_one: bool = False,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> TukeyResult:
    r"""Carterette's randomised Tukey HSD over a systems x topics matrix.

    Under the null hypothesis the systems are exchangeable on each topic.
    Each trial shuffles the :math:`m` values of every topic among the
    systems (independently per topic) and records the range of the
    shuffled system means, :math:`D^*`. The p-value of a pair is the share
    of trials whose :math:`D^*` reaches the pair's observed difference:
    :math:`p = \#\{b : D^*_b \ge d\} / B`, the convention of Sakai's tools
    (Discpower), or :math:`(\# + 1)/(B + 1)` with *plus_one* (Phipson &
    Smyth 2010: never 0). Comparing with the maximum over all pairs makes
    the p-values family-wise.

    - **Exact**: when the :math:`(m!)^{n-1}` relabellings (topic 0 fixed:
      relabelling all systems alike does not change :math:`D^*`) are at
      most *n_resamples*, all are enumerated and the p-value is exact.
    - **Monte Carlo** otherwise: *n_resamples* trials. The rows are put in an
      order that depends only on their values, and trials come in blocks of
      64 from streams keyed by the block's number: the same seed gives the
      same p-values whatever the order of the rows and *chunk_size*.

    A :math:`D^*` within :math:`10^{-9}\,n \max|x|` below :math:`d` (in sums
    over topics) counts as reaching it, so that equal sums added in another
    order are not separated by rounding.

    Parameters
    ----------
    values : array_like
        Shape ``(m, n)``: one row per system, one column per topic, complete.
    n_resamples : int
        Trials *B*, and the bound for exact enumeration.
    seed : int or numpy.random.SeedSequence, optional
        Fixes the trials; None draws fresh entropy.
    alpha : float
        The default level of :meth:`TukeyResult.significant` and :meth:`TukeyResult.letters`.
    plus_one : bool
        Monte Carlo p-values as :math:`(c + 1) / (B + 1)`.
    chunk_size : int
        Elements (trials x topics x systems) processed at once, at least one
        block of 64 trials; bounds memory, never changes the result.

    Returns
    -------
    TukeyResult

    Examples
    --------
    3 systems x 6 topics: the 6^5 = 7,776 relabellings are enumerated.

    >>> x = [[0.750, 0.500, 0.625, 0.250, 0.875, 0.375],
    ...      [0.500, 0.375, 0.500, 0.125, 0.625, 0.250],
    ...      [0.625, 0.125, 0.250, 0.250, 0.500, 0.000]]
    >>> result = randomized_tukey_hsd(x)
    >>> result.p_method, (result.p_values * 7776).round().astype(int)[0].tolist()
    ('exact', [7776, 1952, 66])
    """
    n_resamples, chunk_size = check_resamples(n_resamples, chunk_size)
    alpha = check("alpha", alpha, LEVEL)
    check("plus_one", plus_one, Instance(bool, words="True or False"))
    x = as_matrix(values)
    m, n = x.shape
    anova = two_way_anova(x)
    order = _canonical_rows(x)
    ordered = x[order]
    sums = np.ascontiguousarray(ordered.T).sum(axis=0)
    observed = np.abs(sums[:, None] - sums[None, :])
    tolerance = _TIE_TOLERANCE * n * float(np.abs(x).max())
    small = (n - 1) * math.lgamma(m + 1) <= math.log(n_resamples) + 1
    relabellings = math.factorial(m) ** (n - 1) if small else n_resamples + 1
    if relabellings <= n_resamples:
        ranges = _enumerated_ranges(ordered)
        counts = _count_at_least(ranges, observed.ravel(), tolerance).reshape(m, m)
        p_ordered = counts / relabellings
        p_method, drawn = "exact", relabellings
    else:
        ranges = _sampled_ranges(ordered, n_resamples, as_seed_sequence(seed), chunk_size)
        counts = _count_at_least(ranges, observed.ravel(), tolerance).reshape(m, m)
        p_ordered = (counts + 1) / (n_resamples + 1) if plus_one else counts / n_resamples
        p_method, drawn = "monte carlo", n_resamples
    p = np.empty((m, m))
    p[np.ix_(order, order)] = p_ordered
    np.fill_diagonal(p, 1.0)
    means = anova.system_means
    differences = means[:, None] - means[None, :]
    nan = np.full((m, m), np.nan)
    return TukeyResult(
        method="randomized-tukey", means=means, differences=differences,
        statistic=np.abs(differences), p_values=p, ci_low=nan, ci_high=nan.copy(),
        critical_difference=math.nan, alpha=alpha, anova=anova, p_method=p_method,
        n_resamples=drawn, plus_one=plus_one and p_method == "monte carlo",
    )
