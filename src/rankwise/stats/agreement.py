r"""Agreement between rankings: rank-biased overlap, Kendall's tau, Spearman's rho.

Rankings come as parallel integer arrays (one entry per ranked document):
the query (``0 .. n_queries - 1``), the 1-based rank within the query, and
a document code. Codes are shared by the two rankings compared; for
:func:`kendall_tau_union` they must also follow the documents' ids in
lexicographic order.

- **Overlap** :math:`X_d = |S_{:d} \cap T_{:d}|`: a document in both lists
  counts from depth :math:`\max(r_S, r_T)` on, so a list shorter than
  :math:`d` takes part whole (Webber et al. 2010, §4.1).
- **RBO**, Webber, Moffat & Zobel, "A similarity measure for indefinite
  rankings", ACM TOIS 28(4), 2010. With :math:`s` and :math:`l` the lengths
  of the shorter and the longer list, the extrapolated value (their Eq. 32;
  Eq. 30 when :math:`s = l`) is

  .. math::

      RBO_{ext} = \frac{1-p}{p}\Bigl[\sum_{d=1}^{l} \frac{X_d}{d} p^d +
      \sum_{d=s+1}^{l} \frac{X_s (d - s)}{s\,d} p^d\Bigr] +
      \Bigl[\frac{X_l - X_s}{l} + \frac{X_s}{s}\Bigr] p^l.

  The truncated :math:`RBO@k = (1-p) \sum_{d=1}^{k} p^{d-1} X_d / d` is its
  lower part (the ``rbo`` package's ``rbo()``); repro_eval 0.5.0 normalises
  it by its weight: :math:`\sum_{d \le k} p^{d-1} X_d/d \,/\, \sum_{d \le k} p^{d-1}`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise._validation import Number, OneOf, check
from rankwise.exceptions import InvalidParameterError

__all__ = [
    "kendall_tau_b",
    "kendall_tau_union",
    "overlaps",
    "rbo_from_overlaps",
    "spearman_rho",
]

_PAIR_BUDGET = 2**22
"""Pairs (queries x positions x positions) compared at once by kendall_tau_union."""


RBO_METHODS = ("ext", "truncated", "repro_eval")
"""The variants of RBO: Webber's extrapolation, the truncated sum, repro_eval's normalised sum."""

PERSISTENCE = Number(0, 1, closed="neither")
"""RBO's persistence p (the truncated sum also takes 1: :data:`PERSISTENCE_OR_ONE`)."""
PERSISTENCE_OR_ONE = Number(0, 1, closed="right", words="a number in (0, 1] (1: average "
                                                        "overlap)")
_RBO_METHOD = OneOf(RBO_METHODS)


def overlaps(
    query_a: np.ndarray, rank_a: np.ndarray, doc_a: np.ndarray,
    query_b: np.ndarray, rank_b: np.ndarray, doc_b: np.ndarray,
    n_queries: int, width: int,
) -> np.ndarray:
    r"""The overlap :math:`X_d` of every query at depths :math:`d = 1 .. width`.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_queries, width)``, float64 (counts).

    Examples
    --------
    >>> q = np.zeros(3, dtype=np.int64)
    >>> overlaps(q, np.array([1, 2, 3]), np.array([0, 1, 2]),
    ...          q, np.array([1, 2, 3]), np.array([1, 0, 3]), 1, 4).tolist()
    [[0.0, 2.0, 2.0, 2.0]]
    """
    doc_count = int(max(doc_a.max(initial=-1), doc_b.max(initial=-1))) + 1
    key_a = query_a.astype(np.int64) * doc_count + doc_a
    key_b = query_b.astype(np.int64) * doc_count + doc_b
    _, in_a, in_b = np.intersect1d(key_a, key_b, assume_unique=True, return_indices=True)
    depth = np.maximum(rank_a[in_a], rank_b[in_b])
    column = np.minimum(depth, width + 1) - 1  # beyond the width: never counted
    counts = np.bincount(query_a[in_a].astype(np.int64) * (width + 1) + column,
                         minlength=n_queries * (width + 1)).reshape(n_queries, width + 1)
    return np.cumsum(counts[:, :width], axis=1).astype(np.float64)


def rbo_from_overlaps(x: np.ndarray, length_a: np.ndarray, length_b: np.ndarray, p: float,
                      method: str = "ext", depth: int | None = None) -> np.ndarray:
    """RBO of each query from its overlaps (see the module's formulas).

    Parameters
    ----------
    x : numpy.ndarray
        :func:`overlaps`, at least as wide as the longer list (or *depth*).
    length_a, length_b : numpy.ndarray
        The lengths of the two lists of each query (after any cut at *depth*).
    p : float
        Persistence, :math:`0 < p < 1` (``truncated`` also takes 1: average overlap).
    method : {"ext", "truncated", "repro_eval"}
        Webber's extrapolation; the truncated sum at the shorter length (or
        *depth*); repro_eval's normalised sum to *depth* (default 1000).
    depth : int, optional
        Where the truncated sums stop.

    Returns
    -------
    numpy.ndarray
        One value per query; NaN where both lists are empty, 0 where one is.
    """
    n_queries = x.shape[0]
    short = np.minimum(length_a, length_b).astype(np.int64)
    long_ = np.maximum(length_a, length_b).astype(np.int64)
    rows = np.arange(n_queries)
    out: np.ndarray = np.zeros(n_queries)
    empty = short == 0
    if method == "repro_eval":
        p = check("p (the persistence)", p, PERSISTENCE)
        k = 1000 if depth is None else depth
        d = np.arange(1, k + 1, dtype=np.float64)
        weight = p ** (d - 1)
        if x.shape[1] < k:  # past the longer list the overlap no longer grows
            last = x[:, -1:] if x.shape[1] else np.zeros((n_queries, 1))
            x = np.hstack([x, np.repeat(last, k - x.shape[1], axis=1)])
        out = (x[:, :k] / d * weight).sum(axis=1) / weight.sum()
        out[(length_a == 0) & (length_b == 0)] = np.nan
        return out
    if method == "truncated":
        p = check("p (the persistence)", p, PERSISTENCE_OR_ONE)
        k = short if depth is None else np.minimum(short, depth)
        d = np.arange(1, x.shape[1] + 1, dtype=np.float64)
        inside = d <= k[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if p == 1:  # average overlap
                out = np.where(k > 0, (x / d * inside).sum(axis=1) / k, 0.0)
            else:
                out = (1 - p) * (x / d * p ** (d - 1) * inside).sum(axis=1)
        out[(length_a == 0) & (length_b == 0)] = np.nan
        return out
    check("method", method, _RBO_METHOD)
    p = check("p (the persistence)", p, PERSISTENCE)
    width = int(long_.max(initial=0))
    if width == 0:
        return np.full(n_queries, np.nan)
    d = np.arange(1, width + 1, dtype=np.float64)
    powers = p**d
    x = x[:, :width]
    safe_short = np.maximum(short, 1)
    safe_long = np.maximum(long_, 1)
    x_s = x[rows, safe_short - 1]
    x_l = x[rows, safe_long - 1]
    up_to_long = d <= long_[:, None]
    first = (x / d * powers * up_to_long).sum(axis=1)
    beyond_short = (d > short[:, None]) & up_to_long
    second = x_s * ((d - short[:, None]) / (safe_short[:, None] * d) * powers
                    * beyond_short).sum(axis=1)
    out = (1 - p) / p * (first + second) + (
        (x_l - x_s) / safe_long + x_s / safe_short) * p**long_
    out = np.clip(out, 0.0, 1.0)
    out[empty] = 0.0
    out[(length_a == 0) & (length_b == 0)] = np.nan
    return out


def kendall_tau_union(
    query_a: np.ndarray, rank_a: np.ndarray, doc_a: np.ndarray,
    query_b: np.ndarray, rank_b: np.ndarray, doc_b: np.ndarray, n_queries: int,
) -> np.ndarray:
    r"""Kendall's tau union (KTU) per query, as repro_eval 0.5.0 computes it.

    repro_eval maps each document to its position in the sorted union of
    the two lists' ids and correlates, rank by rank, the positions of the
    original's documents with those of the reproduction's: Kendall's
    :math:`\tau_b` of :math:`(x_r)` and :math:`(y_r)`, :math:`r = 1..n`
    (Breuer et al., SIGIR 2020). Only the order of the codes matters, so
    codes that follow the ids' lexicographic order give the same value.
    Documents within a list are distinct, so :math:`\tau_b = \tau_a`.
    Lists of different lengths are compared on the first :math:`n =
    \min` of them (repro_eval requires equal lengths); fewer than two give NaN.

    Returns
    -------
    numpy.ndarray
        One value per query.

    Examples
    --------
    >>> q = np.zeros(4, dtype=np.int64)
    >>> r = np.arange(1, 5)
    >>> kendall_tau_union(q, r, np.array([0, 1, 2, 3]), q, r, np.array([1, 0, 2, 3]), 1)
    array([0.66666667])
    """
    length_a = np.bincount(query_a, minlength=n_queries)
    length_b = np.bincount(query_b, minlength=n_queries)
    n = np.minimum(length_a, length_b)
    width = int(n.max(initial=0))
    out = np.full(n_queries, np.nan)
    if width < 2:
        return out

    def padded(query: np.ndarray, rank: np.ndarray, doc: np.ndarray) -> np.ndarray:
        table = np.zeros((n_queries, width), dtype=np.int64)
        keep = rank <= n[query]
        table[query[keep], rank[keep] - 1] = doc[keep]
        return table

    x, y = padded(query_a, rank_a, doc_a), padded(query_b, rank_b, doc_b)
    positions = np.arange(width)
    step = max(1, _PAIR_BUDGET // (width * width))
    for start in range(0, n_queries, step):
        stop = min(n_queries, start + step)
        size = n[start:stop, None, None]
        valid = (positions[None, :, None] < positions[None, None, :]) & \
                (positions[None, None, :] < size)
        sx = np.sign(x[start:stop, :, None] - x[start:stop, None, :])
        sy = np.sign(y[start:stop, :, None] - y[start:stop, None, :])
        score = (sx * sy * valid).sum(axis=(1, 2))
        pairs = n[start:stop] * (n[start:stop] - 1) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start:stop] = np.where(pairs > 0, score / pairs, np.nan)
    return out


def _average_ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    groups = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], len(values))
    ranks = np.empty(len(values))
    ranks[order] = ((starts + ends - 1) / 2 + 1)[groups]
    return ranks


def kendall_tau_b(a: Any, b: Any) -> float:
    r"""Kendall's :math:`\tau_b` of two paired samples (ties allowed).

    :math:`\tau_b = (C - D) / \sqrt{(n_0 - n_1)(n_0 - n_2)}` with :math:`C, D`
    the concordant and discordant pairs, :math:`n_0 = n(n-1)/2` and
    :math:`n_1, n_2` the pairs tied in *a* and in *b* (Kendall 1945; what
    :func:`scipy.stats.kendalltau` and R's ``cor(method="kendall")`` give).
    NaN when either sample is constant or has fewer than two values.

    Examples
    --------
    >>> kendall_tau_b([0.3, 0.2, 0.1], [0.5, 0.6, 0.1])
    0.3333333333333333
    """
    x, y = _paired(a, b)
    n = len(x)
    if n < 2:
        return float("nan")
    upper = np.triu_indices(n, 1)
    sx = np.sign(x[:, None] - x[None, :])[upper]
    sy = np.sign(y[:, None] - y[None, :])[upper]
    total = n * (n - 1) / 2
    tied_x, tied_y = np.count_nonzero(sx == 0), np.count_nonzero(sy == 0)
    denominator = np.sqrt((total - tied_x) * (total - tied_y))
    if denominator == 0:
        return float("nan")
    return float((sx * sy).sum() / denominator)


def spearman_rho(a: Any, b: Any) -> float:
    """Spearman's rho: the Pearson correlation of the average ranks (ties share a rank).

    Equal to :func:`scipy.stats.spearmanr`; NaN when either sample is constant.

    Examples
    --------
    >>> spearman_rho([0.3, 0.2, 0.1], [0.5, 0.6, 0.1])
    0.5
    """
    x, y = _paired(a, b)
    if len(x) < 2:
        return float("nan")
    rx, ry = _average_ranks(x), _average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denominator = np.sqrt((rx**2).sum() * (ry**2).sum())
    if denominator == 0:
        return float("nan")
    return float((rx * ry).sum() / denominator)


def _paired(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise InvalidParameterError(
            f"the two samples must be 1-D and of the same length, got {x.shape} and {y.shape}"
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise InvalidParameterError("the samples must be finite numbers; found NaN or infinity")
    return x, y
