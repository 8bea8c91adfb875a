"""ranx's fusion functions (``comb_sum(runs)``, ``rrf(runs, k)``, ...), fused by rankwise.

Each hands rankwise's :func:`rankwise.fuse` the runs as ranx reads them: each
query's documents in the order the run holds them (ranx's ranks are those
positions). The methods that read ranks only get scores falling along that
order (no ties), so rankwise's ranks are ranx's exactly; the methods that read
scores get the scores. The fused run's candidates come in ranx's order (the
runs in turn, each run's documents in order), and the fused ``Run`` is sorted
as ranx sorts it.

segfuse reads both: its ranks break tied scores by document id (rankwise's
rule), which changes a value only where tied documents straddle one of its
segment boundaries (ranks 5|6, 15|16, 35|36, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rankwise.compat.ranx._table import Table
from rankwise.compat.ranx.data_structures import Qrels, Run
from rankwise.exceptions import InputFormatError, InvalidParameterError
from rankwise.options import FusionMethod

__all__ = [
    "bordafuse", "comb_anz", "comb_gmnz", "comb_max", "comb_med", "comb_min", "comb_mnz",
    "comb_sum", "fused", "isr", "log_isr", "logn_isr", "mapfuse", "mapfuse_train", "mixed",
    "posfuse", "posfuse_train", "probfuse", "probfuse_train", "rankwise_runs", "rbc", "rrf",
    "same_queries", "segfuse", "segfuse_train", "slidefuse", "slidefuse_train", "trained",
    "weighted_bordafuse", "wmnz", "wsum",
]

_SCORES_TOO = {"segfuse"}
"""Methods that read ranks and scores (the others read one or the other)."""


def same_queries(runs: Sequence[Run]) -> None:
    """Refuse runs whose query ids differ (ranx asserts they do not).

    Raises
    ------
    InputFormatError
        Fewer than two runs, or two runs with different queries (which, and how).
    """
    if len(runs) < 2:
        raise InputFormatError(f"fusion needs at least two runs, got {len(runs)}")
    first = runs[0].keys()
    for j, run in enumerate(runs[1:], start=1):
        keys = run.keys()
        if keys != first:
            only = [key for key in first if key not in keys][:1] or \
                   [key for key in keys if key not in first][:1]
            raise InputFormatError(
                f"runs 0 and {j} query ids do not match (query {only[0]!r} is in one only): "
                "fuse runs of the same queries (Run.make_comparable(qrels) gives a run the "
                "judged queries)")


def rankwise_runs(runs: Sequence[Run], by_rank: bool) -> list[Any]:
    """The runs as rankwise runs, their rows in ranx's order (as each run holds them).

    *by_rank*: scores falling along that order instead of the scores.
    """
    from rankwise.data import Run as RankwiseRun

    out = []
    for run in runs:
        table = run._current()
        codes, docs, values = table.rows()
        scores = -np.arange(table.n_rows, dtype=np.float64) if by_rank else values
        out.append(RankwiseRun(codes, [str(key) for key in table.keys], docs, scores,
                               name=str(run.name)))
    return out


def fused(runs: Sequence[Run], method: FusionMethod, name: str, **params: Any) -> Run:
    """*runs* fused by rankwise's *method* (ranx's name) into a sorted ``Run`` named *name*."""
    from rankwise.fusion import METHODS, fuse

    same_queries(runs)
    by_rank = METHODS[method].needs_ranks and method not in _SCORES_TOO
    result = fuse(rankwise_runs(runs, by_rank), method, **params)
    keys = list(runs[0].keys())
    original = {str(key): key for key in keys}
    table = Table.from_run(result)
    table = Table([original[key] for key in table.keys], table.lengths, table.docs,
                  table.values)
    return Run._of_table(table.with_keys(keys), name)


def trained(method: str, qrels: Qrels, runs: Sequence[Run], **options: Any) -> list[Any]:
    """What *method* learns from *qrels* on *runs*, each run read in ranx's sorted order."""
    from rankwise.fusion import train

    ranked = [run._ranking() for run in runs]  # sorted first, as ranx's to_typed_list()
    judged = qrels._cached(qrels._sorted_table(), "training",
                           lambda: _judgments(qrels._sorted_table()))
    learned = train(method, judged, ranked, **options)
    return list(next(iter(learned.values())))


def _judgments(table: Table) -> Any:
    import pyarrow as pa

    from rankwise.data import Qrels as RankwiseQrels

    codes, docs, grades = table.rows()
    queries = pa.array([str(key) for key in table.keys], pa.string())
    return RankwiseQrels.from_arrow(queries.take(pa.array(codes)), docs, grades)


# the methods, with ranx's signatures and names --------------------------------------
def comb_sum(runs: list[Run], name: str = "comb_sum") -> Run:
    """CombSUM: the sum of the scores (Fox & Shaw, TREC-2 1994)."""
    return fused(runs, "sum", name)


def comb_mnz(runs: list[Run], name: str = "comb_mnz") -> Run:
    """CombMNZ: the sum times the number of runs that retrieved the document."""
    return fused(runs, "mnz", name)


def comb_anz(runs: list[Run], name: str = "comb_anz") -> Run:
    """CombANZ: the mean score over the runs that retrieved the document."""
    return fused(runs, "anz", name)


def comb_max(runs: list[Run], name: str = "comb_max") -> Run:
    """CombMAX: the highest score (over the runs that retrieved it; see docs/fusion.md)."""
    return fused(runs, "max", name)


def comb_min(runs: list[Run], name: str = "comb_min") -> Run:
    """CombMIN: the lowest score over the runs that retrieved the document."""
    return fused(runs, "min", name)


def comb_med(runs: list[Run], name: str = "comb_med") -> Run:
    """CombMED: the median score over the runs that retrieved the document."""
    return fused(runs, "med", name)


def comb_gmnz(runs: list[Run], gamma: float, name: str = "comb_gmnz") -> Run:
    """CombGMNZ: the sum times n(d) ** gamma (Joon Ho Lee, SIGIR 1997)."""
    return fused(runs, "gmnz", name, gamma=gamma)


def wsum(runs: list[Run], weights: list[float], name: str = "weighted_sum") -> Run:
    """The weighted sum of the scores."""
    return fused(runs, "wsum", name, weights=weights)


def wmnz(runs: list[Run], weights: list[float], name: str = "wmnz") -> Run:
    """Weighted CombMNZ: the sum times the weights of the runs that retrieved it (Wu, 2012)."""
    return fused(runs, "wmnz", name, weights=weights)


def mixed(runs: list[Run], weights: list[float], name: str = "mixed") -> Run:
    """The weighted sum over the runs that retrieved it, times sqrt(n(d)) (Wu, 2012)."""
    return fused(runs, "mixed", name, weights=weights)


def rrf(runs: list[Run], k: int = 60, name: str = "rrf") -> Run:
    """Reciprocal rank fusion: the sum of 1 / (k + rank) (Cormack et al., SIGIR 2009)."""
    return fused(runs, "rrf", name, k=k)


def isr(runs: list[Run], name: str = "isr") -> Run:
    """Inverse square rank: n(d) times the sum of 1 / rank^2 (Mourao et al., 2014)."""
    return fused(runs, "isr", name)


def log_isr(runs: list[Run], name: str = "log_isr") -> Run:
    """Log ISR: ln n(d) times the sum of 1 / rank^2 (Mourao et al., 2014)."""
    return fused(runs, "log_isr", name)


def logn_isr(runs: list[Run], sigma: float = 0.01, name: str = "logn_isr") -> Run:
    """LogN ISR: ln(n(d) + sigma) times the sum of 1 / rank^2."""
    return fused(runs, "logn_isr", name, sigma=sigma)


def bordafuse(runs: list[Run], name: str = "bordafuse") -> Run:
    """Borda count over the query's candidates (Aslam & Montague, SIGIR 2001)."""
    return fused(runs, "bordafuse", name)


def weighted_bordafuse(runs: list[Run], weights: list[float],
                       name: str = "weighted_bordafuse") -> Run:
    """The weighted Borda count."""
    return fused(runs, "w_bordafuse", name, weights=weights)


def rbc(runs: list[Run], phi: float, name: str = "rbc") -> Run:
    """Rank-biased centroids: the sum of (1 - phi) phi^(rank - 1) (Bailey et al., SIGIR 2017)."""
    return fused(runs, "rbc", name, phi=phi)


def posfuse(runs: list[Run], probs: list[np.ndarray], name: str = "posfuse") -> Run:
    """PosFuse: the sum of each run's probability of relevance at the rank (Lillis et al.)."""
    return fused(runs, "posfuse", name, probs=probs)


def probfuse(runs: list[Run], probs: list[np.ndarray], name: str = "probfuse") -> Run:
    """ProbFuse: segment probabilities over the segment number (Lillis et al., SIGIR 2006)."""
    return fused(runs, "probfuse", name, probs=probs)


def segfuse(runs: list[Run], probs: list[np.ndarray], name: str = "segfuse") -> Run:
    """SegFuse: the fixed segment's probability times (score + 1) (Shokouhi, ECIR 2007)."""
    return fused(runs, "segfuse", name, probs=probs)


def slidefuse(runs: list[Run], probs: list[np.ndarray], w: int, name: str = "slidefuse") -> Run:
    """SlideFuse: the mean probability over a window of w ranks each side (Lillis et al.)."""
    return fused(runs, "slidefuse", name, probs=probs, w=w)


def mapfuse(runs: list[Run], map_scores: list[float], name: str = "mapfuse") -> Run:
    """MAPFuse: the sum of each run's MAP over the rank (Lillis et al., 2010)."""
    return fused(runs, "mapfuse", name, map_scores=map_scores)


def posfuse_train(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    """Per run, the share of queries with a relevant document at each position."""
    return trained("posfuse", qrels, runs)


def probfuse_train(qrels: Qrels, runs: list[Run], n_segments: int) -> list[np.ndarray]:
    """Per run, ProbFuse's probability of relevance per segment."""
    return trained("probfuse", qrels, runs, n_segments=n_segments)


def segfuse_train(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    """Per run, SegFuse's probability of relevance per fixed segment."""
    return trained("segfuse", qrels, runs)


def slidefuse_train(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    """Per run, the share of queries with a relevant document at each position."""
    return trained("slidefuse", qrels, runs)


def mapfuse_train(qrels: Qrels, runs: list[Run]) -> list[float]:
    """Per run, its MAP on the judgments (as ranx's ``evaluate(qrels, run, "map")``)."""
    from rankwise.compat.ranx._evaluate import evaluate

    return [float(evaluate(qrels, run, "map", save_results_in_run=False)) for run in runs]


def switch(methods: dict[str, Callable[..., Run]], method: str) -> Callable[..., Run]:
    """Ranx's ``fusion_switch``: the function of a method name.

    Raises
    ------
    InvalidParameterError
        An unknown method (the methods listed, the nearest suggested).
    """
    from rankwise.suggest import did_you_mean

    if method not in methods:
        raise InvalidParameterError(
            f"fusion method {method!r} is not one of ranx's ({', '.join(methods)})"
            + did_you_mean(str(method), list(methods)))
    return methods[method]
