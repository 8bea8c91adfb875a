"""Score normalisations, per run and per query, as ranx defines them.

Each works on the documents one run retrieved for one query (*s* a score,
*n* the documents in that list, *i* the 0-based position in the run's
order: score descending, ties by document id descending):

=================  =======================================================
``min-max``        (s - min) / max(max - min, 1e-9); all equal -> 0
``min-max-inverted``  (max - s) / max(max - min, 1e-9) (the order reverses)
``max``            s / max(max, 1e-9)
``sum``            (s - min) / max(sum(s) - n min, 1e-9)
``zmuv``           (s - mean) / max(std, 1e-9), std of the population
``rank``           1 - i / n
``borda``          over the query's candidates C (all runs): 1 - i / |C| for
                   a retrieved document, (|C| - n + 1) / (2 |C|) for one the
                   run did not retrieve, which it then holds, below its own
=================  =======================================================

The 1e-9 floors are ranx's (ranx 0.3.21, ``ranx/normalization``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankwise._validation import check
from rankwise.fusion.align import Aligned, rank_rows
from rankwise.options import NORMALISATION, NORMALISATIONS

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["NORMALISATIONS", "normalise", "resolve_norm"]

_FLOOR = 1e-9


def resolve_norm(norm: str | None) -> str | None:
    """The canonical name of a normalisation, or None.

    Examples
    --------
    >>> resolve_norm("min_max"), resolve_norm(None)
    ('min-max', None)
    """
    canonical: str | None = check("norm", norm, NORMALISATION)
    return canonical


def _per_query(
    values: np.ndarray, query: np.ndarray, n_queries: int, spread: bool = False
) -> tuple[np.ndarray, ...]:
    """Per query: min, max, sum, count, mean and (with *spread*) population std of *values*.

    Rows grouped by query (as runs are written) are reduced block by block;
    other runs through unbuffered per-query updates.
    """
    n = len(values)
    starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1]))) if n else \
        np.zeros(0, dtype=np.int64)
    blocks = query[starts]
    low = np.full(n_queries, np.inf)
    high = np.full(n_queries, -np.inf)
    total = np.zeros(n_queries)
    count = np.zeros(n_queries)
    if len(np.unique(blocks)) == len(blocks):  # each query's rows together
        low[blocks] = np.minimum.reduceat(values, starts) if n else low[blocks]
        high[blocks] = np.maximum.reduceat(values, starts) if n else high[blocks]
        total[blocks] = np.add.reduceat(values, starts) if n else total[blocks]
        count[blocks] = np.diff(np.append(starts, n)).astype(np.float64)
    else:
        np.minimum.at(low, query, values)
        np.maximum.at(high, query, values)
        total[:] = np.bincount(query, weights=values, minlength=n_queries)
        count[:] = np.bincount(query, minlength=n_queries)
    mean = np.divide(total, count, out=np.zeros(n_queries), where=count > 0)
    if not spread:
        return low, high, total, count, mean, np.zeros(n_queries)
    deviation = values - mean[query]
    squares = np.bincount(query, weights=deviation * deviation, minlength=n_queries)
    std = np.sqrt(np.divide(squares, count, out=np.zeros(n_queries), where=count > 0))
    return low, high, total, count, mean, std


def _normalise_rows(name: str, values: np.ndarray, query: np.ndarray,
                    ranks: np.ndarray | None, n_queries: int) -> np.ndarray:
    """One run's rows, normalised per query."""
    if name == "rank":
        count = np.bincount(query, minlength=n_queries).astype(np.float64)
        out: np.ndarray = 1.0 - (ranks - 1) / count[query]  # type: ignore[operator]
        return out
    low, high, total, count, mean, std = _per_query(values, query, n_queries, name == "zmuv")
    lo, hi = low[query], high[query]
    if name == "min-max":
        out = (values - lo) / np.maximum(hi - lo, _FLOOR)
        return out
    if name == "min-max-inverted":
        out = (hi - values) / np.maximum(hi - lo, _FLOOR)
        return out
    if name == "max":
        out = values / np.maximum(hi, _FLOOR)
        return out
    if name == "sum":
        out = (values - lo) / np.maximum(total[query] - count[query] * lo, _FLOOR)
        return out
    out = (values - mean[query]) / np.maximum(std[query], _FLOOR)  # zmuv
    return out


def normalise(view: Aligned, norm: str | None) -> Aligned:
    """*view* with its scores normalised per run and query (ranks follow the new scores).

    Examples
    --------
    >>> from rankwise.data import Run
    >>> from rankwise.fusion.align import align
    >>> view = align([Run.from_dict({"q": {"a": 1.0, "b": 2.0, "c": 3.0}})])
    >>> normalise(view, "min-max").scores[0].tolist()
    [0.0, 0.5, 1.0]
    >>> normalise(view, "zmuv").scores[0].round(6).tolist()
    [-1.224745, 0.0, 1.224745]
    """
    from dataclasses import replace

    name = resolve_norm(norm)
    if name is None:
        return view
    if name in ("rank", "borda", "min-max-inverted"):
        view = view.with_ranks()
    if name == "borda":
        return _borda(view)
    scores = []
    ranks = []
    for r, run in enumerate(view.runs):
        row_ranks = view.ranks[r] if view.ranks is not None else None
        values = _normalise_rows(name, view.scores[r], view.row_queries[r], row_ranks,
                                 len(view.query_ids))
        scores.append(values)
        if name == "min-max-inverted":  # the order reverses: rank by the new scores
            ranks.append(rank_rows(run, values))
    if name == "min-max-inverted":
        return replace(view, scores=tuple(scores), ranks=tuple(ranks))
    return replace(view, scores=tuple(scores))


def _borda(view: Aligned) -> Aligned:
    """Borda normalisation: every run scores every candidate of the query."""
    from dataclasses import replace

    q = view.candidate_query
    size = view.candidates_per_query().astype(np.float64)
    every = np.arange(view.n_candidates)
    docs = None
    scores: list[np.ndarray] = []
    ranks: list[np.ndarray] = []
    list_lengths: list[np.ndarray] = []
    for r in range(view.n_runs):
        present = np.zeros(view.n_candidates, dtype=bool)
        present[view.candidates[r]] = True
        rank = np.zeros(view.n_candidates, dtype=np.int64)
        rank[view.candidates[r]] = view.ranks[r]  # type: ignore[index]
        n = view.list_length[q, r].astype(np.float64)
        values = np.where(present, 1.0 - (rank - 1) / size, (size - n + 1.0) / (2.0 * size))
        absent = np.flatnonzero(~present)
        if len(absent):
            # the documents a run did not retrieve come after its own, by document id descending
            if docs is None:
                docs = view.doc_ids()
            absent = absent[_absent_order(docs, q, absent)]
            query = q[absent]
            start = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
            block_lengths = np.diff(np.append(start, len(absent)))
            within = np.arange(len(absent)) - np.repeat(start, block_lengths)
            rank[absent] = view.list_length[query, r] + 1 + within
        scores.append(values)
        ranks.append(rank)
        list_lengths.append(np.bincount(q, minlength=len(view.query_ids)))
    return replace(
        view,
        candidates=tuple(every for _ in range(view.n_runs)),
        scores=tuple(scores),
        ranks=tuple(ranks),
        row_queries=tuple(q for _ in range(view.n_runs)),
        list_length=np.column_stack(list_lengths) if list_lengths else view.list_length,
    )


def _absent_order(docs: pa.Array, query: np.ndarray, absent: np.ndarray) -> np.ndarray:
    """Order of *absent* candidates by query, then document id descending (byte order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.table({"q": query[absent], "d": docs.take(pa.array(absent)).cast(pa.binary())})
    out: np.ndarray = pc.sort_indices(
        table, sort_keys=[("q", "ascending"), ("d", "descending")]).to_numpy()
    return out
