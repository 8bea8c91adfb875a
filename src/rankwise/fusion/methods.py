"""The fusion methods: each a few vectorised operations over an :class:`Aligned` view.

Notation: runs r = 1..R; for a candidate d, s_r(d) its (normalised) score in
run r, k_r(d) its 1-based rank there, P(d) the runs that retrieved it and
n(d) = |P(d)|; C the candidates of d's query; n_r the length of run r's
list for the query. The formulas are ranx's (ranx 0.3.21, ``ranx/fusion``),
with its rule for a document a run did not retrieve, method by method:

============  ===========================================  ==================
method        fused score                                  missing from run r
============  ===========================================  ==================
sum           sum_r s_r                                    adds 0
mnz           n(d) * sum_{P(d)} s_r                        not counted
anz           sum_{P(d)} s_r / n(d)                        not counted
max / min     max / min over P(d)                          not counted
med           median over P(d)                             not counted
gmnz          n(d)^gamma * sum_{P(d)} s_r                  not counted
wsum          sum_r w_r s_r                                adds 0
wmnz          (sum_{P(d)} s_r) (sum_{P(d)} w_r)            not counted
mixed         sqrt(n(d)) sum_{P(d)} w_r s_r                not counted
rrf           sum_{P(d)} 1 / (k + k_r)                     adds 0
isr           n(d) sum_{P(d)} 1 / k_r^2                    not counted
log_isr       ln(n(d)) sum_{P(d)} 1 / k_r^2                not counted
logn_isr      ln(n(d) + sigma) sum_{P(d)} 1 / k_r^2        not counted
bordafuse     sum_r B_r, B_r = |C| - k_r + 1               (|C| - n_r + 1) / 2
w_bordafuse   sum_r w_r B_r                                w_r (|C| - n_r + 1) / 2
condorcet     |C| - position in the majority order         ranked below all
w_condorcet   the same with weighted votes                 ranked below all
rbc           sum_{P(d)} (1 - phi) phi^(k_r - 1)           adds 0
posfuse       sum_{P(d)} probs_r[k_r - 1] (0 past its end)   adds 0
probfuse      sum_{P(d)} probs_r[g] / (g + 1)              adds 0
segfuse       sum_{P(d)} probs_r[g] (s_r + 1)              adds 0
slidefuse     sum_{P(d)} mean(probs_r[a..b])               adds 0
mapfuse       sum_{P(d)} MAP_r / k_r                       adds 0
bayesfuse     sum_r L_r                                    log(0.001 / 0.999)
============  ===========================================  ==================

For probfuse, g = floor((k_r - 1) / ceil(n_r / S)) with S segments; for
segfuse, g is the fixed segment [0, 5), [5, 15), [15, 35), ... holding
k_r - 1 (0 past 5115); for slidefuse, a = max(k_r - 1 - w, 0) and
b = min(k_r - 1 + w, n_r - 1), probabilities past the list's end count 0;
for bayesfuse, L_r is the log-odds of the rank's bin (ranks past 1000 take
the last bin's, where ranx reads past its table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._validation import check, reject
from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError
from rankwise.fusion.align import Aligned, RowValues, Scanned, layout, scan
from rankwise.options import FUSION_ALIASES, FUSION_METHOD, FUSION_PARAMETERS, check_fusion_params

if TYPE_CHECKING:
    from rankwise.data import Run

__all__ = ["ALIASES", "METHODS", "SEGFUSE_BOUNDS", "Method"]

MISSING_LOG_ODDS = float(np.log(0.001 / 0.999))
"""bayesfuse's log-odds for a document a run did not retrieve (ranx's)."""

SEGFUSE_BOUNDS = np.array([0, 5, 15, 35, 75, 155, 315, 635, 1275, 2555, 5115])
"""segfuse's fixed segments of 0-based positions: [0, 5), [5, 15), ..., [2555, 5115)."""


@dataclass(frozen=True)
class Method:
    """A fusion method: its formula, its parameters and what it learns, if anything.

    Attributes
    ----------
    name : str
        ranx's name (``rrf``, ``mnz``, ...).
    compute : callable
        ``(view, params) -> ndarray`` of fused scores, one per candidate.
    params : dict
        Parameter name -> default (``None``: required).
    learns : str or None
        The parameter a supervised method learns from judgments (``probs``,
        ``log_odds``, ``map_scores``), or None.
    summary : str
        One line.
    needs_ranks : bool
        Whether it reads each run's ranks (not only its scores).
    row_sum : RowSum or None
        For the methods that are a sum over runs of one value per row (then
        combined with n(d)): that form, which :func:`one_pass` computes
        without aligning the runs first.
    """

    name: str
    compute: Callable[[Aligned, dict[str, Any]], np.ndarray]
    params: dict[str, Any]
    learns: str | None = None
    summary: str = ""
    needs_ranks: bool = False
    row_sum: RowSum | None = None


@dataclass(frozen=True)
class RowSum:
    """A method of the form ``combine(sum_r v_r(d), n(d))``, v_r one value per row of run r.

    Attributes
    ----------
    value : str
        The row value: ``score`` (the normalised score s_r), ``rrf``
        (1 / (k + k_r)), ``isr`` (1 / k_r^2) or ``map`` (MAP_r / k_r).
    weighted : bool
        Times the run's weight w_r.
    uses_count : bool
        Whether *combine* reads n(d).
    combine : callable
        ``(total, count, params) -> fused scores`` (count None unless *uses_count*).
    check : callable or None
        Checks the parameters *combine* reads.
    """

    value: str
    weighted: bool
    uses_count: bool
    combine: Callable[[np.ndarray, np.ndarray | None, dict[str, Any]], np.ndarray]
    check: Callable[[dict[str, Any]], None] | None = None

    def per_run(self, params: dict[str, Any], n_runs: int) -> tuple[list[float], np.ndarray | None]:
        """Each run's parameter of its row values (k, MAP_r) and its weight; checks *params*."""
        if self.check is not None:
            self.check(params)
        weights = _weights(n_runs, params) if self.weighted else None
        if self.value == "rrf":
            return [_rrf_k(params)] * n_runs, weights
        if self.value == "map":
            return _map_scores(params, n_runs).tolist(), weights
        return [0.0] * n_runs, weights

    def compute(self, view: Aligned, params: dict[str, Any]) -> np.ndarray:
        """The fused scores over an aligned view (each run's row values, numpy's sums)."""
        per_run, weights = self.per_run(params, view.n_runs)
        if self.value == "score":
            values = list(view.scores)
        elif self.value == "rrf":
            k = per_run[0]
            if k == 0:
                values = [1.0 / ranks for ranks in _ranks(view)]
            else:
                values = [1.0 / (k + ranks) for ranks in _ranks(view)]
        elif self.value == "isr":
            values = [1.0 / (ranks.astype(np.float64) ** 2) for ranks in _ranks(view)]
        else:  # map
            map_scores = np.asarray(per_run, dtype=np.float64)
            values = [value / ranks for value, ranks in zip(map_scores, _ranks(view))]
        if weights is not None:
            values = [w * v for w, v in zip(weights, values)]
        count = view.count() if self.uses_count else None
        return self.combine(view.total(values), count, params)


def _weights(n_runs: int, params: dict[str, Any]) -> np.ndarray:
    weights = params.get("weights")
    if weights is None:
        raise InvalidParameterError(
            "this method needs weights=, one number per run, e.g. weights=[0.7, 0.3]"
        )
    values = _floats("weights", weights)
    if values.shape != (n_runs,) or not np.isfinite(values).all():
        reject("weights", list(weights), f"a list of {n_runs} finite numbers, one per run")
    return values


def _ranks(view: Aligned) -> tuple[np.ndarray, ...]:
    if view.ranks is None:  # fuse() computes them for the methods that need them
        raise RuntimeError("ranks were not computed")
    return view.ranks


def _total(total: np.ndarray, count: np.ndarray | None, params: dict[str, Any]) -> np.ndarray:
    return total


def _times_count(total: np.ndarray, count: np.ndarray | None,
                 params: dict[str, Any]) -> np.ndarray:
    out: np.ndarray = total * count
    return out


def _over_count(total: np.ndarray, count: np.ndarray | None,
                params: dict[str, Any]) -> np.ndarray:
    out: np.ndarray = total / count
    return out


def _max(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    return view.extreme(view.scores, highest=True)


def _min(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    return view.extreme(view.scores, highest=False)


def _med(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    out: np.ndarray = np.nanmedian(view.dense(view.scores, np.nan), axis=1)
    return out


def _check_gamma(params: dict[str, Any]) -> None:
    if params.get("gamma") is None:
        raise InvalidParameterError("gmnz needs gamma=, e.g. gamma=1 (mnz) or 0 (sum)")


def _gmnz(total: np.ndarray, count: np.ndarray | None, params: dict[str, Any]) -> np.ndarray:
    out: np.ndarray = total * count ** float(params["gamma"])  # type: ignore[operator]
    return out


def _mixed(total: np.ndarray, count: np.ndarray | None, params: dict[str, Any]) -> np.ndarray:
    return total * np.sqrt(count)  # type: ignore[arg-type]


def _rrf_k(params: dict[str, Any]) -> float:
    return float(params.get("k", 60))  # a finite number >= 0 (rankwise.options)


def _log_isr(total: np.ndarray, count: np.ndarray | None, params: dict[str, Any]) -> np.ndarray:
    return total * np.log(count)  # type: ignore[arg-type]


def _logn_isr(total: np.ndarray, count: np.ndarray | None, params: dict[str, Any]) -> np.ndarray:
    return total * np.log(count + float(params.get("sigma", 0.01)))  # type: ignore[operator]


def _wmnz(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    weights = _weights(view.n_runs, params)
    held_weight = view.total([np.full(len(c), w) for c, w in zip(view.candidates, weights)])
    out: np.ndarray = view.total(view.scores) * held_weight
    return out


def _with_missing(view: Aligned, present: list[np.ndarray], missing: list[np.ndarray],
                  weights: np.ndarray) -> np.ndarray:
    """sum_r w_r (present_r where run r retrieved the candidate, else missing_r of its query)."""
    q = view.candidate_query
    out = np.zeros(view.n_candidates)
    for r, (candidates, row_values) in enumerate(zip(view.candidates, present)):
        per_candidate = missing[r][q]
        per_candidate[candidates] = row_values
        out += weights[r] * per_candidate
    return out


def _borda(view: Aligned, weights: np.ndarray) -> np.ndarray:
    size = np.bincount(view.candidate_query, minlength=len(view.query_ids)).astype(np.float64)
    points = [size[queries] - ranks + 1.0 for queries, ranks in zip(view.row_queries,
                                                                    _ranks(view))]
    missing = [(size - view.list_length[:, r] + 1.0) / 2.0 for r in range(view.n_runs)]
    return _with_missing(view, points, missing, weights)


def _bordafuse(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    return _borda(view, np.ones(view.n_runs))


def _w_bordafuse(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    return _borda(view, _weights(view.n_runs, params))


def _rbc(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    phi = params.get("phi")
    if phi is None:
        raise InvalidParameterError("rbc needs phi=, the persistence in (0, 1), e.g. phi=0.8")
    phi = float(phi)  # in [0, 1] (rankwise.options)
    return view.total([(1.0 - phi) * phi ** (ranks - 1.0) for ranks in _ranks(view)])


def _table(params: dict[str, Any], key: str, view: Aligned, method: str) -> list[np.ndarray]:
    values = params.get(key)
    if values is None:
        raise InvalidParameterError(
            f"{method} needs {key}= (learned from judgments: pass qrels= to rankwise.fuse, "
            f"or use rankwise.fusion.train)"
        )
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        reject(key, values, "one row of numbers per run", where=method)
    tables = [_floats(key, row, where=method).ravel() for row in values]
    if len(tables) != view.n_runs:
        raise InvalidParameterError(
            f"{method}: {key} has {counted(len(tables), 'row')}, expected one per run "
            f"({view.n_runs})"
        )
    return tables


def _at_positions(table: np.ndarray, position: np.ndarray, past_end: float = 0.0) -> np.ndarray:
    inside = position < len(table)
    out = np.full(position.shape, past_end, dtype=np.float64)
    out[inside] = table[position[inside]]
    return out


def _posfuse(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    probs = _table(params, "probs", view, "posfuse")
    return view.total([_at_positions(t, ranks - 1) for t, ranks in zip(probs, _ranks(view))])


def _probfuse(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    probs = _table(params, "probs", view, "probfuse")
    values = []
    for r, (table, ranks) in enumerate(zip(probs, _ranks(view))):
        if not len(table):
            values.append(np.zeros(len(ranks)))
            continue
        n = view.list_length[view.row_queries[r], r]
        size = -(-n // len(table))  # ceil(n / segments)
        segment = (ranks - 1) // np.maximum(size, 1)
        values.append(_at_positions(table, segment) / (segment + 1.0))
    return view.total(values)


def _segfuse(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    probs = _table(params, "probs", view, "segfuse")
    values = []
    for table, ranks, scores in zip(probs, _ranks(view), view.scores):
        position = ranks - 1
        segment = np.searchsorted(SEGFUSE_BOUNDS, position, side="right") - 1
        value = _at_positions(table, segment)
        value[position >= SEGFUSE_BOUNDS[-1]] = 0.0
        values.append(value * (scores + 1.0))
    return view.total(values)


def _slidefuse(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    probs = _table(params, "probs", view, "slidefuse")
    w = params.get("w")
    if w is None:
        raise InvalidParameterError("slidefuse needs w=, a window half-width >= 0, e.g. w=2")
    w = int(w)  # a whole number >= 0 (rankwise.options)
    values = []
    for r, (table, ranks) in enumerate(zip(probs, _ranks(view))):
        position = ranks - 1
        n = view.list_length[view.row_queries[r], r]
        low = np.maximum(position - w, 0)
        high = np.minimum(position + w, n - 1)
        prefix = np.concatenate(([0.0], np.cumsum(table)))
        window = prefix[np.minimum(high + 1, len(table))] - prefix[np.minimum(low, len(table))]
        values.append(window / (high - low + 1.0))
    return view.total(values)


def _map_scores(params: dict[str, Any], n_runs: int) -> np.ndarray:
    scores = params.get("map_scores")
    if scores is None:
        raise InvalidParameterError(
            "mapfuse needs map_scores= (each run's MAP: pass qrels= to rankwise.fuse)"
        )
    values = _floats("map_scores", scores)
    if values.shape != (n_runs,):
        reject("map_scores", scores, f"{n_runs} numbers, one per run")
    return values


def _bayesfuse(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    log_odds = _table(params, "log_odds", view, "bayesfuse")
    present = []
    for table, ranks in zip(log_odds, _ranks(view)):
        if len(table):
            present.append(table[np.minimum(ranks - 1, len(table) - 1)])
        else:
            present.append(np.full(len(ranks), MISSING_LOG_ODDS))
    missing = [np.full(len(view.query_ids), MISSING_LOG_ODDS) for _ in range(view.n_runs)]
    return _with_missing(view, present, missing, np.ones(view.n_runs))


def _condorcet_scores(view: Aligned, weights: np.ndarray) -> np.ndarray:
    """Position in the majority order, per query: |C| for the first, 1 for the last.

    Candidates are sorted with the pairwise comparator of Montague & Aslam
    (2002): x comes before y when the (weighted) runs ranking x above y are
    at least those ranking y above x; a document a run did not retrieve is
    ranked below all its documents there, and two such documents count for
    y, as in ranx. The comparator may not be a total order (cycles); the
    sort is a merge sort starting from the candidates in the order of their
    best rank over the runs, then document id descending, so the result is
    deterministic. Its cost grows with the candidates of a query times
    their logarithm, in Python: meant for hundreds of candidates per query.
    """
    import functools

    out = np.zeros(view.n_candidates)
    ranks = view.dense(tuple(r.astype(np.float64) for r in _ranks(view)), np.inf)
    query = view.candidate_query
    order = np.argsort(query, kind="stable")
    sorted_query = query[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_query[1:] != sorted_query[:-1]))) if \
        len(query) else np.zeros(0, dtype=np.int64)
    ends = np.append(starts[1:], len(query))
    docs = view.doc_ids().to_pylist()
    for start, end in zip(starts.tolist(), ends.tolist()):
        members = order[start:end].tolist()

        def before(x: int, y: int) -> int:
            ahead = ranks[x] < ranks[y]
            behind = ranks[x] > ranks[y]
            x_votes = float(weights[ahead].sum())
            y_votes = float(weights[behind].sum()) + float(weights[~ahead & ~behind].sum())
            return -1 if x_votes >= y_votes else 1

        members.sort(key=lambda c: (ranks[c].min(), _descending(docs[c])))
        ordered = sorted(members, key=functools.cmp_to_key(before))
        size = len(ordered)
        for position, candidate in enumerate(ordered):
            out[candidate] = size - position
    return out


def _descending(text: str) -> tuple[int, ...]:
    return (*(-byte for byte in text.encode("utf-8")), 1)


def _condorcet(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    return _condorcet_scores(view, np.ones(view.n_runs))


def _w_condorcet(view: Aligned, params: dict[str, Any]) -> np.ndarray:
    return _condorcet_scores(view, _weights(view.n_runs, params))


_BY_RANK = {"rrf", "isr", "log_isr", "logn_isr", "bordafuse", "w_bordafuse", "condorcet",
            "w_condorcet", "rbc", "posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse",
            "bayesfuse"}


def _m(name: str, compute: Callable[[Aligned, dict[str, Any]], np.ndarray] | RowSum,
       summary: str, learns: str | None = None) -> Method:
    params = dict(FUSION_PARAMETERS.get(name, {}))  # the vocabulary of rankwise.options
    if isinstance(compute, RowSum):
        return Method(name, compute.compute, params, learns, summary, name in _BY_RANK, compute)
    return Method(name, compute, params, learns, summary, name in _BY_RANK)


METHODS: dict[str, Method] = {m.name: m for m in (
    _m("sum", RowSum("score", False, False, _total),
       "CombSUM: the sum of the scores (Fox & Shaw, 1994)"),
    _m("mnz", RowSum("score", False, True, _times_count),
       "CombMNZ: the sum times the number of runs that retrieved it"),
    _m("anz", RowSum("score", False, True, _over_count),
       "CombANZ: the mean over the runs that retrieved it"),
    _m("max", _max, "CombMAX: the highest score"),
    _m("min", _min, "CombMIN: the lowest score among the runs that retrieved it"),
    _m("med", _med, "CombMED: the median score among the runs that retrieved it"),
    _m("gmnz", RowSum("score", False, True, _gmnz, _check_gamma),
       "CombGMNZ: the sum times n(d)^gamma"),
    _m("wsum", RowSum("score", True, False, _total), "weighted sum of the scores"),
    _m("wmnz", _wmnz, "weighted CombMNZ: the sum times the weights of the runs that retrieved it"),
    _m("mixed", RowSum("score", True, True, _mixed),
       "weighted sum times sqrt(n(d)) (Wu, 2012)"),
    _m("rrf", RowSum("rrf", False, False, _total),
       "reciprocal rank fusion (Cormack et al., 2009)"),
    _m("isr", RowSum("isr", False, True, _times_count),
       "inverse square rank (Mourao et al., 2014)"),
    _m("log_isr", RowSum("isr", False, True, _log_isr),
       "logarithmic inverse square rank (Mourao et al., 2014)"),
    _m("logn_isr", RowSum("isr", False, True, _logn_isr),
       "log(n(d) + sigma) times the inverse square ranks"),
    _m("bordafuse", _bordafuse, "Borda count (Aslam & Montague, 2001)"),
    _m("w_bordafuse", _w_bordafuse, "weighted Borda count"),
    _m("condorcet", _condorcet, "Condorcet fusion (Montague & Aslam, 2002)"),
    _m("w_condorcet", _w_condorcet, "weighted Condorcet fusion"),
    _m("rbc", _rbc, "rank-biased centroids (Bailey et al., 2017)"),
    _m("posfuse", _posfuse, "probability of relevance per rank (Lillis et al.)",
       learns="probs"),
    _m("probfuse", _probfuse, "probability of relevance per segment (Lillis et al., 2006)",
       learns="probs"),
    _m("segfuse", _segfuse, "probability per fixed segment times the score (Shokouhi, 2007)",
       learns="probs"),
    _m("slidefuse", _slidefuse, "probability over a sliding window of ranks (Lillis et al., 2008)",
       learns="probs"),
    _m("mapfuse", RowSum("map", False, False, _total),
       "each run's MAP over the rank (Lillis et al., 2010)",
       learns="map_scores"),
    _m("bayesfuse", _bayesfuse, "naive Bayes log-odds of relevance per rank (Aslam & Montague, "
       "2001)", learns="log_odds"),
)}
"""Fusion methods by ranx's name."""

ALIASES: dict[str, str] = FUSION_ALIASES
"""Other names of the methods (``combsum`` for ranx's ``sum``, ...)."""


def resolve_method(name: str) -> Method:
    """The method called *name* (ranx's name or an alias, any case).

    Examples
    --------
    >>> resolve_method("CombMNZ").name
    'mnz'
    """
    return METHODS[check("method", name, FUSION_METHOD)]


def check_params(method: Method, params: dict[str, Any]) -> dict[str, Any]:
    """*params* with the method's defaults filled in; unknown names and bad numbers refused.

    Examples
    --------
    >>> check_params(resolve_method("rrf"), {"k": "10"})
    {'k': 10}
    >>> check_params(resolve_method("rrf"), {"k": "abc"})
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: fusion method 'rrf': k must be a finite number \
>= 0, got 'abc' (str); e.g. k=60
    """
    return {**method.params, **check_fusion_params(method.name, params)}


def _floats(what: str, value: Any, where: str | None = None) -> np.ndarray:
    """*value* (a number per run, or a table's row) as float64, or an error naming *what*."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        reject(what, value, "numbers", where=where)


def fused_scores(view: Aligned, method: Method, params: dict[str, Any]) -> np.ndarray:
    """The fused score of every candidate of *view*."""
    if method.needs_ranks:
        view = view.with_ranks()
    return np.asarray(method.compute(view, params), dtype=np.float64)


_ONE_PASS_NORMS = (None, "min-max", "max")
_RANK_VALUES = {"rrf": "rrf", "isr": "isr", "map": "over"}


def one_pass(runs: tuple[Run, ...], method: Method, params: dict[str, Any],
             norm: str | None) -> tuple[Scanned, np.ndarray] | None:
    """The fused scores of a :class:`RowSum` method, in one C pass over the runs.

    The runs are not aligned first: each row's value (its score, normalised
    per query by ``min-max`` or ``max``, or a function of its rank: its
    position where the run is in rank order without ties, else its rank
    among the query's rows sorted in the same pass) goes straight to its
    candidate's total, bit for bit the sums over an aligned view. None
    where this does not apply: another method or normalisation (*norm* a
    canonical name), no C module, or a run that lists a document twice (the
    aligned path then says where).
    """
    spec = method.row_sum
    if spec is None or norm not in _ONE_PASS_NORMS:
        return None
    from rankwise._compiled import enabled, load

    if not enabled() or load("rankwise.fusion._cfuse") is None:
        return None
    per_run, weights = spec.per_run(params, len(runs))
    where = layout(runs)
    values = []
    for r, run in enumerate(runs):
        weight = None if weights is None else float(weights[r])
        if spec.value == "score":
            values.append(RowValues("raw" if norm is None else norm, run.scores, 0.0, weight))
        else:  # ranks: positions in the query's rows where those are the ranks, else sorted
            positions = where.order[r] is None and _positions_are_ranks(run)
            values.append(RowValues(_RANK_VALUES[spec.value], None if positions else run.scores,
                                    per_run[r], weight, rank_scores=not positions))
    found = scan(runs, where, values, candidates=False, count=spec.uses_count)
    if found is None or found.total is None:
        return None
    count = found.count if spec.uses_count else None
    return found, np.asarray(spec.combine(found.total, count, params), dtype=np.float64)


def _positions_are_ranks(run: Run) -> bool:
    """Whether each row's rank is its position in its query's rows (from 1).

    So when the run is known to be in rank order (its reader saw each query's
    rows together, scores never rising) and no two consecutive rows of a
    query tie (ties would be ranked by document id: see
    :func:`rankwise.ranking.rank.rank_rows`).
    """
    blocks = run.rank_order_blocks
    if blocks is None:
        return False
    scores = run.scores
    tied = scores[1:] == scores[:-1]
    if len(blocks) > 1:
        tied[blocks[1:] - 1] = False  # a new query is never a tie
    return not bool(tied.any())


def names() -> Sequence[str]:
    """The methods' names."""
    return list(METHODS)
