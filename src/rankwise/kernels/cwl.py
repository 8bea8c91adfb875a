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

Gains lie in [0, 1], as cwl_eval reads them: (grade - ``min_grade``) /
(``max_grade`` - ``min_grade``), clipped to [0, 1] (negative grades and
unjudged documents 0, so graded judgments need ``max_grade`` set to their top
grade), or with
``rel``, 1 for a grade >= rel and 0 otherwise (ir_measures' binary form). The upper bound
of ``unjudged="bounds"`` gives unjudged documents, and the ranks past the
end of the ranking, the top grade: its difference from the value is
cwl_eval's residual. Queries are evaluated a block at a time as dense
matrices (queries x N): no loop per query.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure

__all__ = ["BLOCK", "KERNELS", "continuation", "cwl_gains", "cwl_quantities", "gain_matrix",
           "scaled_gains"]

BLOCK = 1 << 21  # matrix cells per block of queries


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
    >>> cwl_gains(grades, parse("inst(max_grade=2,min_grade=1)")).tolist()
    [0.0, 0.0, 0.0, 1.0]
    """
    rel = m.param("rel")
    if rel is not None:
        return (grades >= float(rel)).astype(np.float64)
    return scaled_gains(grades, float(m.param("min_grade")), float(m.param("max_grade")))


def scaled_gains(grades: np.ndarray, low: float, high: float) -> np.ndarray:
    """(grade - low) / (high - low) clipped to [0, 1], negative grades first taken as 0.

    As ir_measures' cwl_eval provider reads graded judgments (``min_rel``,
    ``max_rel``).

    Raises
    ------
    InvalidParameterError
        *high* not above *low*.
    """
    if not high > low:
        from rankwise.exceptions import InvalidParameterError

        raise InvalidParameterError(
            f"max_grade must be greater than min_grade, got max_grade={high:g}, "
            f"min_grade={low:g}"
        )
    if low == 0.0:  # the common case, as before min_grade: grade / max_grade
        out: np.ndarray = np.minimum(np.maximum(grades, 0.0) / high, 1.0)
        return out
    clipped = np.minimum(np.maximum(np.maximum(grades, 0.0), low), high)
    out = (clipped - low) / (high - low)
    return out


def _gain_matrix(ctx: Context, m: Measure, rows: slice, depth: int) -> np.ndarray:
    """Gains of ranks 1..depth for the queries of *rows* (past the end: 0, or the bound's)."""
    d = ctx.data
    beyond = None
    if d.beyond_grade is not None:
        beyond = float(cwl_gains(np.array([d.beyond_grade]), m)[0])
    return gain_matrix(d, rows, depth, lambda grades: cwl_gains(grades, m), beyond)


def gain_matrix(data: Any, rows: slice, depth: int, gain_of: Callable[[np.ndarray], np.ndarray],
                beyond: float | None = None) -> np.ndarray:
    """Gains of ranks 1..depth (queries of *rows* x depth) of a ranking's judged documents.

    *data*: a :class:`~rankwise.ranking.tied.RankedJudgments`; *gain_of*:
    grades -> gains; an unjudged rank gains 0, a rank past the end of the
    ranking 0 or *beyond*.
    """
    first, last = rows.start, rows.stop
    gains = np.zeros((last - first, depth), dtype=np.float64)
    if beyond is not None:
        past = np.arange(depth)[None, :] >= data.num_ret[first:last, None]
        gains[past] = beyond
    lo, hi = np.searchsorted(data.hit_query, [first, last])
    query, rank = data.hit_query[lo:hi], data.hit_rank[lo:hi]
    keep = rank <= depth
    gains[query[keep] - first, rank[keep] - 1] = gain_of(data.hit_grade[lo:hi][keep])
    return gains


def _cost_matrix(ctx: Context, m: Measure, rows: slice, depth: int) -> np.ndarray | None:
    """Costs of ranks 1..depth for the queries of *rows*; None when every one is 1."""
    cost = float(m.param("cost"))
    if cost == 1.0:
        return None
    retrieved = np.arange(depth)[None, :] < ctx.data.num_ret[rows.start:rows.stop, None]
    return np.where(retrieved, cost, 1.0)


def continuation(
    rule: str, params: dict[str, float], gains: np.ndarray, spent: np.ndarray
) -> np.ndarray:
    """C_i for ranks 1..N of each row (the measures defined by C).

    *rule*: a C/W/L family defined by C (``inst``, ``insq``, ``bpm``,
    ``sdcg``, ``nerr8`` ... ``nerr11``), or one of cwl_eval's readings of
    the classic measures (``P``: C_i = 1 for i < k; ``RR``: 1 until the first
    gain; ``AP``: C_i = S_(i+1) / S_i, S_i = sum_(j>=i) gain_j / j; ``RBP``:
    p). *params*: ``T``, ``K``, ``k`` (the cutoff), ``p``. *spent*: the cost
    through each rank.
    """
    rows, depth = gains.shape
    i = np.arange(1, depth + 1, dtype=np.float64)[None, :]
    if rule == "inst":
        target = params["T"]
        remaining = target - np.cumsum(gains, axis=1)
        return ((i + target + remaining - 1.0) / (i + target + remaining)) ** 2.0
    if rule == "insq":
        target = params["T"]
        return np.broadcast_to(((i + 2.0 * target - 1.0) / (i + 2.0 * target)) ** 2.0,
                               gains.shape)
    if rule == "bpm":
        target, budget = params["T"], params["K"]
        return ((np.cumsum(gains, axis=1) < target) & (spent < budget)).astype(np.float64)
    if rule == "nerr10":
        return params["p"] * (1.0 - gains)
    if rule == "nerr11":
        target = params["T"]
        return ((i + 2.0 * target - 1.0) / (i + 2.0 * target)) ** 2.0 * (1.0 - gains)
    if rule == "RBP":
        return np.full(gains.shape, params["p"])
    if rule == "RR":
        found = np.cumsum(gains > 0.0, axis=1) > 0  # at or after the first gain
        return (~found).astype(np.float64)
    if rule == "AP":
        reciprocal = gains / i
        below = np.cumsum(reciprocal[:, ::-1], axis=1)[:, ::-1]  # S_i = sum_{j >= i}
        after = np.zeros_like(below)
        after[:, :-1] = below[:, 1:]
        cont = np.zeros_like(below)
        np.divide(after, below, out=cont, where=after > 0.0)
        return cont
    truncated = i < params["k"]  # ranks before the cutoff go on; from k on, stop
    if rule == "P":
        return truncated.astype(np.float64) * np.ones((rows, 1))
    if rule == "sdcg":
        return np.where(truncated, np.log2(i + 1.0) / np.log2(i + 2.0), 0.0) * np.ones((rows, 1))
    if rule == "nerr8":
        return np.where(truncated, 1.0 - gains, 0.0)
    if rule == "nerr9":
        return np.where(truncated, i / (i + 1.0) * (1.0 - gains), 0.0)
    raise ValueError(rule)  # pragma: no cover


def _params_of(m: Measure) -> dict[str, float]:
    names = {"T": "T", "K": "K", "p": "p", "halflife": "halflife", "L": "L"}
    out = {key: float(m.param(name)) for key, name in names.items() if name in m.family.params}
    if m.cutoff is not None:
        out["k"] = float(m.cutoff)
    return out


def _weights_direct(family: str, params: dict[str, float], spent: np.ndarray) -> np.ndarray:
    """W_i (unnormalised) of the measures defined by W (TBG, U-measure)."""
    before = np.zeros(spent.shape)  # cost spent above rank i: K_(i-1)
    before[:, 1:] = spent[:, :-1]
    if family == "tbg":
        half = params["halflife"]
        weight = half * 2.0 ** (-before / half) / math.log(2.0)
    else:  # umeasure
        length = params["L"]
        weight = np.maximum(0.0, 1.0 - before / length)
        weight[:, -1] = 0.0
    return weight


def cwl_quantities(
    rule: str, params: dict[str, float], gains: np.ndarray, costs: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Every quantity (``eu``, ``etu``, ``ec``, ``etc``, ``ed``) of each row of *gains*.

    *rule* and *params* as :func:`continuation` (or ``tbg``, ``umeasure``,
    defined by W, with ``halflife``, ``L``); *costs* None: every document
    costs 1.

    Examples
    --------
    >>> gains = np.array([[0.0, 1.0, 0.0, 1.0]])
    >>> out = cwl_quantities("P", {"k": 2.0}, gains)
    >>> [float(out[name][0]) for name in ("eu", "etu", "ec", "etc", "ed")]
    [0.5, 1.0, 1.0, 2.0, 2.0]
    """
    rows, depth = gains.shape
    if costs is None:  # every document costs 1: the cost through rank i is i
        spent = np.broadcast_to(np.arange(1, depth + 1, dtype=np.float64)[None, :], gains.shape)
    else:
        spent = np.cumsum(costs, axis=1)
    if rule in ("tbg", "umeasure"):
        raw = _weights_direct(rule, params, spent)
        weights = raw / raw.sum(axis=1, keepdims=True)
        cont = np.zeros((rows, depth))
        if depth > 1:
            np.divide(weights[:, 1:], weights[:, :-1], out=cont[:, :-1],
                      where=weights[:, :-1] > 0)
    else:
        cont = continuation(rule, params, gains, spent)
        reach = np.ones((rows, depth))
        if depth > 1:
            reach[:, 1:] = np.cumprod(cont[:, :-1], axis=1)
        weights = reach / reach.sum(axis=1, keepdims=True)
    stop = np.ones((rows, depth))
    if depth > 1:
        stop[:, 1:] = np.cumprod(cont[:, :-1], axis=1)
    stop = stop * (1.0 - cont)
    return {
        "eu": np.einsum("ij,ij->i", weights, gains),
        "etu": np.einsum("ij,ij->i", stop, np.cumsum(gains, axis=1)),
        "ec": weights.sum(axis=1) if costs is None else np.einsum("ij,ij->i", weights, costs),
        "etc": np.einsum("ij,ij->i", stop, spent),
        "ed": 1.0 / weights[:, 0],
    }


def _kernel(family: str) -> Callable[[Context, Measure], np.ndarray]:
    def kernel(ctx: Context, m: Measure) -> np.ndarray:
        depth = int(m.param("depth"))
        params, quantity = _params_of(m), str(m.param("quantity"))
        n = ctx.n_queries
        out = np.zeros(n, dtype=np.float64)
        block = max(1, BLOCK // max(depth, 1))
        for first in range(0, n, block):
            rows = slice(first, min(n, first + block))
            out[rows] = cwl_quantities(family, params, _gain_matrix(ctx, m, rows, depth),
                                       _cost_matrix(ctx, m, rows, depth))[quantity]
        return out

    kernel.__name__ = family
    kernel.__doc__ = f"The C/W/L measure {family} (its quantity, one value per query)."
    return kernel


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    name: _kernel(name) for name in ("inst", "insq", "bpm", "tbg", "umeasure", "sdcg", "nerr8",
                                     "nerr9", "nerr10", "nerr11")
}
"""Measure family -> kernel."""
