"""Kernels of the C/W/L framework (Moffat et al., TOIS 2013, 2017; cwl_eval, Azzopardi et al. 2019).

A user reads rank 1, and after rank i continues with probability C_i. The
weight of rank i is W_i = prod_{j<i} C_j / sum_{i<=N} prod_{j<i} C_j, the
probability of stopping there L_i = prod_{j<i} C_j (1 - C_i). Over the
ranking padded (or cut) to N = ``depth`` documents (cwl_eval's
``--max_depth``, 1000), with gains g_i and costs c_i (``cost`` for each
retrieved document, 1 past the end of the ranking: cwl_eval with a cost file
for the run's one element type, whose padding costs its ``max_cost``, 1):

- ``eu``  expected utility per document, sum W_i g_i (the measure's value);
- ``etu`` expected total utility, sum L_i G_i (G: cumulative gain);
- ``ec``  expected cost per document, sum W_i c_i;
- ``etc`` expected total cost, sum L_i K_i (K: cumulative cost);
- ``ed``  expected depth, 1 / W_1.

Gains lie in [0, 1], as cwl_eval reads them: the grade divided by
``max_grade`` (negative grades and unjudged documents 0, above 1 taken as 1,
so graded judgments need ``max_grade`` set to their top grade), or with
``rel``, 1 for a grade >= rel and 0 otherwise (ir_measures' binary form). The upper bound
of ``unjudged="bounds"`` gives unjudged documents, and the ranks past the
end of the ranking, the top grade: its difference from the value is
cwl_eval's residual. Queries are evaluated a block at a time as dense
matrices (queries x N): no loop per query.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure

__all__ = ["KERNELS", "cwl_gains"]

_BLOCK = 1 << 21  # matrix cells per block of queries


def cwl_gains(grades: np.ndarray, m: Measure) -> np.ndarray:
    """The gain C/W/L measures give each grade (see the module's docstring).

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> grades = np.array([-1.0, 0.0, 1.0, 2.0])
    >>> cwl_gains(grades, parse("inst")).tolist(), cwl_gains(grades, parse("inst(rel=2)")).tolist()
    ([0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0])
    >>> cwl_gains(grades, parse("inst(max_grade=2)")).tolist()
    [0.0, 0.0, 0.5, 1.0]
    """
    rel = m.param("rel")
    if rel is not None:
        return (grades >= float(rel)).astype(np.float64)
    return np.minimum(np.maximum(grades, 0.0) / float(m.param("max_grade")), 1.0)


def _gain_matrix(ctx: Context, m: Measure, rows: slice, depth: int) -> np.ndarray:
    """Gains of ranks 1..depth for the queries of *rows* (past the end: 0, or the bound's)."""
    d = ctx.data
    first, last = rows.start, rows.stop
    gains = np.zeros((last - first, depth), dtype=np.float64)
    if d.beyond_grade is not None:
        beyond = float(cwl_gains(np.array([d.beyond_grade]), m)[0])
        past = np.arange(depth)[None, :] >= d.num_ret[first:last, None]
        gains[past] = beyond
    lo, hi = np.searchsorted(d.hit_query, [first, last])
    query, rank = d.hit_query[lo:hi], d.hit_rank[lo:hi]
    keep = rank <= depth
    gains[query[keep] - first, rank[keep] - 1] = cwl_gains(d.hit_grade[lo:hi][keep], m)
    return gains


def _cost_matrix(ctx: Context, m: Measure, rows: slice, depth: int) -> np.ndarray | None:
    """Costs of ranks 1..depth for the queries of *rows*; None when every one is 1."""
    cost = float(m.param("cost"))
    if cost == 1.0:
        return None
    retrieved = np.arange(depth)[None, :] < ctx.data.num_ret[rows.start:rows.stop, None]
    return np.where(retrieved, cost, 1.0)


def _continuation(
    family: str, m: Measure, gains: np.ndarray, spent: np.ndarray
) -> np.ndarray:
    """C_i for ranks 1..N of each row (the measures defined by C)."""
    depth = gains.shape[1]
    i = np.arange(1, depth + 1, dtype=np.float64)[None, :]
    if family == "inst":
        target = float(m.param("T"))
        remaining = target - np.cumsum(gains, axis=1)
        return ((i + target + remaining - 1.0) / (i + target + remaining)) ** 2.0
    if family == "insq":
        target = float(m.param("T"))
        return np.broadcast_to(((i + 2.0 * target - 1.0) / (i + 2.0 * target)) ** 2.0,
                               gains.shape)
    if family == "bpm":
        target, budget = float(m.param("T")), float(m.param("K"))
        return ((np.cumsum(gains, axis=1) < target) & (spent < budget)).astype(np.float64)
    raise ValueError(family)  # pragma: no cover


def _weights_direct(family: str, m: Measure, spent: np.ndarray) -> np.ndarray:
    """W_i (unnormalised) of the measures defined by W (TBG, U-measure)."""
    before = np.zeros(spent.shape)  # cost spent above rank i: K_(i-1)
    before[:, 1:] = spent[:, :-1]
    if family == "tbg":
        half = float(m.param("halflife"))
        weight = half * 2.0 ** (-before / half) / math.log(2.0)
    else:  # umeasure
        length = float(m.param("L"))
        weight = np.maximum(0.0, 1.0 - before / length)
        weight[:, -1] = 0.0
    return weight


def _quantities(
    family: str, m: Measure, gains: np.ndarray, costs: np.ndarray | None
) -> np.ndarray:
    """The quantity asked for (``eu``, ``etu``, ``ec``, ``etc``, ``ed``) of each row."""
    rows, depth = gains.shape
    if costs is None:  # every document costs 1: the cost through rank i is i
        spent = np.broadcast_to(np.arange(1, depth + 1, dtype=np.float64)[None, :], gains.shape)
    else:
        spent = np.cumsum(costs, axis=1)
    if family in ("tbg", "umeasure"):
        raw = _weights_direct(family, m, spent)
        weights = raw / raw.sum(axis=1, keepdims=True)
        ratio = np.zeros((rows, depth))
        if depth > 1:
            np.divide(weights[:, 1:], weights[:, :-1], out=ratio[:, :-1],
                      where=weights[:, :-1] > 0)
        cont = ratio
    else:
        cont = _continuation(family, m, gains, spent)
        reach = np.ones((rows, depth))
        if depth > 1:
            reach[:, 1:] = np.cumprod(cont[:, :-1], axis=1)
        weights = reach / reach.sum(axis=1, keepdims=True)
    quantity = m.param("quantity")
    if quantity == "eu":
        return np.einsum("ij,ij->i", weights, gains)
    if quantity == "ec":
        return weights.sum(axis=1) if costs is None else np.einsum("ij,ij->i", weights, costs)
    if quantity == "ed":
        return 1.0 / weights[:, 0]
    shifted = np.ones((rows, depth))
    if depth > 1:
        shifted[:, 1:] = np.cumprod(cont[:, :-1], axis=1)
    stop = shifted * (1.0 - cont)
    if quantity == "etu":
        return np.einsum("ij,ij->i", stop, np.cumsum(gains, axis=1))
    return np.einsum("ij,ij->i", stop, spent)  # etc


def _kernel(family: str) -> Callable[[Context, Measure], np.ndarray]:
    def kernel(ctx: Context, m: Measure) -> np.ndarray:
        depth = int(m.param("depth"))
        n = ctx.n_queries
        out = np.zeros(n, dtype=np.float64)
        block = max(1, _BLOCK // max(depth, 1))
        for first in range(0, n, block):
            rows = slice(first, min(n, first + block))
            out[rows] = _quantities(family, m, _gain_matrix(ctx, m, rows, depth),
                                    _cost_matrix(ctx, m, rows, depth))
        return out

    kernel.__name__ = family
    kernel.__doc__ = f"The C/W/L measure {family} (its quantity, one value per query)."
    return kernel


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    name: _kernel(name) for name in ("inst", "insq", "bpm", "tbg", "umeasure")
}
"""Measure family -> kernel."""
