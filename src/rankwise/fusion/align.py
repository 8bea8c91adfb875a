"""Runs side by side: the candidates of each query, and each run's score and rank for them.

Fusion works on an :class:`Aligned` view of R runs: for every query, the
*candidates* are the union of the documents the runs retrieved for it. Each
run keeps its own rows (one per document it retrieved), each row knowing its
candidate, its score and, when a method needs it, its 1-based rank in that
run's own order (score descending, ties by document id descending:
trec_eval's rule). Every fusion method is then a few vectorised sums over
each run's rows (``numpy.bincount`` by candidate), for all queries at once.

Queries are the union of the runs' queries: a query one run lacks is a
query that run retrieved nothing for.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from rankwise.exceptions import DuplicateEntryError

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Run

__all__ = ["Aligned", "align"]


@dataclass(frozen=True)
class Aligned:
    """R runs aligned on the union of their (query, document) pairs.

    Attributes
    ----------
    query_ids : list of str
        The queries (the union of the runs' queries, in order of first appearance).
    candidate_query : ndarray of int64
        Per candidate, its query (index into ``query_ids``); candidates are
        numbered query by query.
    candidates : tuple of ndarray
        Per run, the candidate of each of its rows.
    scores : tuple of ndarray
        Per run, the (normalised) score of each of its rows.
    ranks : tuple of ndarray, or None
        Per run, the 1-based rank of each row in the run's list for its query
        (None until :meth:`with_ranks`).
    row_queries : tuple of ndarray
        Per run, the query of each row.
    list_length : ndarray of int64, queries x runs
        How many documents each run retrieved for each query.
    source_run, source_row : ndarrays of int64
        Per candidate, a run that holds it and the row there (for its document id).
    runs : tuple of Run
    """

    query_ids: list[str]
    candidate_query: np.ndarray
    candidates: tuple[np.ndarray, ...]
    scores: tuple[np.ndarray, ...]
    ranks: tuple[np.ndarray, ...] | None
    row_queries: tuple[np.ndarray, ...]
    list_length: np.ndarray
    source_run: np.ndarray
    source_row: np.ndarray
    runs: tuple[Run, ...]

    @property
    def n_candidates(self) -> int:
        """Number of (query, document) candidates."""
        return len(self.candidate_query)

    @property
    def n_runs(self) -> int:
        """Number of runs."""
        return len(self.candidates)

    def with_ranks(self) -> Aligned:
        """The view with each row's rank (computed once, in trec_eval's order)."""
        if self.ranks is not None:
            return self
        from rankwise.kernels.ranking import rank_rows

        return replace(self, ranks=tuple(rank_rows(run) for run in self.runs))

    def total(self, values: list[np.ndarray] | tuple[np.ndarray, ...]) -> np.ndarray:
        """Per candidate, the sum over runs (in order) of each run's *values* of its rows."""
        out = np.zeros(self.n_candidates)
        for candidates, row_values in zip(self.candidates, values):
            out += np.bincount(candidates, weights=row_values, minlength=self.n_candidates)
        return out

    def count(self) -> np.ndarray:
        """Per candidate, the number of runs that retrieved it, n(d)."""
        out = np.zeros(self.n_candidates)
        for candidates in self.candidates:
            out += np.bincount(candidates, minlength=self.n_candidates)
        return out

    def extreme(self, values: tuple[np.ndarray, ...], highest: bool) -> np.ndarray:
        """Per candidate, the highest (or lowest) of its runs' *values*."""
        out = np.full(self.n_candidates, -np.inf if highest else np.inf)
        pick = np.maximum if highest else np.minimum
        for candidates, row_values in zip(self.candidates, values):
            out[candidates] = pick(out[candidates], row_values)
        return out

    def dense(self, values: tuple[np.ndarray, ...], missing: float) -> np.ndarray:
        """Candidates x runs: each run's *values*, *missing* where it lacks the candidate."""
        out = np.full((self.n_candidates, self.n_runs), missing, dtype=np.float64)
        for r, (candidates, row_values) in enumerate(zip(self.candidates, values)):
            out[candidates, r] = row_values
        return out

    def candidates_per_query(self) -> np.ndarray:
        """Per candidate, the number of candidates of its query (|C_q|)."""
        counts = np.bincount(self.candidate_query, minlength=len(self.query_ids))
        return counts[self.candidate_query]

    def doc_ids(self) -> pa.Array:
        """The document id of each candidate (Arrow strings)."""
        import pyarrow as pa

        from rankwise.data._arrow import numpy_to_array

        pieces = []
        order = np.argsort(self.source_run, kind="stable")
        for r, run in enumerate(self.runs):
            rows = self.source_row[order[self.source_run[order] == r]]
            if len(rows):
                pieces.append(run.doc_ids.take(numpy_to_array(rows)).combine_chunks())
        if not pieces:
            return pa.array([], pa.string())
        stacked = pa.concat_arrays([piece.cast(pa.string()) for piece in pieces])
        back = np.empty(len(order), dtype=np.int64)
        back[order] = np.arange(len(order))
        return stacked.take(numpy_to_array(back))


def _global_queries(runs: tuple[Run, ...]) -> tuple[list[str], list[np.ndarray]]:
    names: dict[str, int] = {}
    codes = []
    for run in runs:
        mapping = np.array([names.setdefault(q, len(names)) for q in run.query_ids], dtype=np.int64)
        codes.append(mapping[run.query_codes] if len(run) else np.zeros(0, dtype=np.int64))
    return list(names), codes


def _doc_keys(runs: tuple[Run, ...]) -> tuple[np.ndarray, bool]:
    """A 64-bit key per row of all runs (exact: one key per document id), in C where built."""
    from rankwise._compiled import enabled, load
    from rankwise.data._arrow import string_keys
    from rankwise.data._strings import string_chunks

    out = np.empty(sum(len(run) for run in runs), dtype=np.uint64)
    module = load("rankwise.fusion._cfuse") if enabled() else None
    if module is not None:
        chunks = [chunk.as_buffers() for run in runs for chunk in string_chunks(run.doc_column)]
        return out, bool(module.keys(chunks, out))
    exact, at = True, 0
    for run in runs:
        run_keys, run_exact = string_keys(run.doc_column)
        out[at:at + len(run)] = run_keys
        at += len(run)
        exact &= run_exact
    return out, exact


def align(runs: tuple[Run, ...] | list[Run], *, ranks: bool = False) -> Aligned:
    """Align *runs* on the union of their (query, document) pairs.

    Parameters
    ----------
    runs : sequence of Run
        The runs, in order (sums over runs run in this order).
    ranks : bool
        Compute each row's rank now (see :meth:`Aligned.with_ranks`).

    Raises
    ------
    DuplicateEntryError
        A run lists a document twice for one query.

    Examples
    --------
    >>> from rankwise.data import Run
    >>> a = Run.from_dict({"q1": {"d1": 3.0, "d2": 2.0}})
    >>> b = Run.from_dict({"q1": {"d2": 5.0, "d3": 1.0}, "q2": {"d1": 1.0}})
    >>> view = align([a, b], ranks=True)
    >>> view.query_ids, view.doc_ids().to_pylist()
    (['q1', 'q2'], ['d1', 'd2', 'd3', 'd1'])
    >>> [c.tolist() for c in view.candidates], [r.tolist() for r in view.ranks]
    ([[0, 1], [1, 2, 3]], [[1, 2], [1, 2, 1]])
    """
    runs = tuple(runs)
    query_ids, query_codes = _global_queries(runs)
    key, exact = _doc_keys(runs)
    sizes = np.array([len(run) for run in runs], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    query = np.concatenate(query_codes) if runs else np.zeros(0, dtype=np.int64)
    grouped = _group_in_c(query, key, len(query_ids))
    if grouped is not None and not exact and not _same_documents(runs, grouped[0], grouped[2]):
        grouped = None  # two long ids share a 64-bit key: group by the ids themselves
    if grouped is not None:
        candidate, candidate_query, first = grouped
    else:
        candidate, candidate_query, first = _group_by_sorting(runs, query, key, exact)
    del query, key
    n_candidates = len(candidate_query)
    held = np.zeros(n_candidates, dtype=bool)
    candidates = []
    list_length = np.zeros((len(query_ids), len(runs)), dtype=np.int64)
    for r, run in enumerate(runs):
        mine = candidate[offsets[r]:offsets[r + 1]]
        held[:] = False
        held[mine] = True
        if int(np.count_nonzero(held)) != len(run):
            _report_duplicate(run, mine)
        candidates.append(mine)
        list_length[:, r] = np.bincount(query_codes[r], minlength=len(query_ids))
    source_run = np.searchsorted(offsets, first, side="right") - 1
    view = Aligned(
        query_ids=query_ids,
        candidate_query=candidate_query,
        candidates=tuple(candidates),
        scores=tuple(run.scores for run in runs),
        ranks=None,
        row_queries=tuple(query_codes),
        list_length=list_length,
        source_run=source_run,
        source_row=first - offsets[source_run],
        runs=runs,
    )
    return view.with_ranks() if ranks else view


def _group_in_c(
    query: np.ndarray, key: np.ndarray, n_queries: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Candidates by a hash table per query (the C module, one part of the queries per core).

    None where the C module is not built.
    """
    from rankwise._compiled import enabled, load
    from rankwise._threads import cores, run_threads

    module = load("rankwise.fusion._cfuse") if enabled() else None
    if module is None:
        return None
    n = len(query)
    query = np.ascontiguousarray(query, dtype=np.int64)
    key = np.ascontiguousarray(key, dtype=np.uint64)
    order = np.empty(n, dtype=np.int64)
    starts = np.empty(n_queries + 1, dtype=np.int64)
    module.order(query, n_queries, order, starts)
    parts = max(1, min(cores(), n // 1_000_000 + 1, n_queries))
    # split the queries where the rows split evenly
    bounds = np.searchsorted(starts, np.linspace(0, n, parts + 1)[1:-1]).tolist()
    edges = [0, *bounds, n_queries]
    candidate = np.empty(n, dtype=np.int64)
    local: list[tuple[np.ndarray, np.ndarray, int]] = [None] * parts  # type: ignore[list-item]

    def work(index: int) -> None:
        begin, end = edges[index], edges[index + 1]
        room = int(starts[end] - starts[begin])
        candidate_query = np.empty(room, dtype=np.int64)
        first = np.empty(room, dtype=np.int64)
        count = module.group(order, starts, key, begin, end, candidate, candidate_query, first)
        local[index] = (candidate_query[:count], first[:count], count)

    run_threads(work, parts)
    base = 0
    for index in range(parts):
        if base:
            rows = order[starts[edges[index]]:starts[edges[index + 1]]]
            candidate[rows] += base
        base += local[index][2]
    candidate_query = np.concatenate([part[0] for part in local])
    first = np.concatenate([part[1] for part in local])
    return candidate, candidate_query, first


def _group_by_sorting(
    runs: tuple[Run, ...], query: np.ndarray, key: np.ndarray, exact: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidates by sorting (query, key) (by the ids themselves when keys are not exact)."""
    order = np.lexsort((key, query)) if exact else _exact_order(runs, query)
    sorted_query, sorted_key = query[order], key[order]
    n = len(order)
    new = np.ones(n, dtype=bool)
    if n:
        new[1:] = (sorted_query[1:] != sorted_query[:-1]) | (sorted_key[1:] != sorted_key[:-1])
    if not exact and n:
        new |= _string_changes(runs, order)
    candidate = np.empty(n, dtype=np.int64)
    candidate[order] = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    return candidate, sorted_query[starts], order[starts]


def _same_documents(runs: tuple[Run, ...], candidate: np.ndarray, first: np.ndarray) -> bool:
    """Whether every row holds the same document id as the first row of its candidate."""
    import pyarrow.compute as pc

    from rankwise.data._arrow import numpy_to_array

    docs = _all_docs(runs)
    reference = docs.take(numpy_to_array(first))
    mine = reference.take(numpy_to_array(candidate))
    return bool(pc.all(pc.equal(mine, docs)).as_py() in (True, None))


def _all_docs(runs: tuple[Run, ...]) -> pa.Array:
    import pyarrow as pa

    pieces = [run.doc_ids.combine_chunks().cast(pa.large_string()) for run in runs if len(run)]
    return pa.concat_arrays(pieces) if pieces else pa.array([], pa.large_string())


def _exact_order(runs: tuple[Run, ...], query: np.ndarray) -> np.ndarray:
    """The order by (query, document id bytes): for ids too long for exact 64-bit keys."""
    import pyarrow as pa
    import pyarrow.compute as pc

    docs = _all_docs(runs)
    table = pa.table({"q": query, "d": docs.cast(pa.large_binary())})
    order = pc.sort_indices(table, sort_keys=[("q", "ascending"), ("d", "ascending")])
    return order.to_numpy().astype(np.int64)  # uint64 from Arrow: row arithmetic needs int64


def _string_changes(runs: tuple[Run, ...], order: np.ndarray) -> np.ndarray:
    """Where the document id changes between consecutive rows (all runs' rows, in *order*)."""
    import pyarrow.compute as pc

    from rankwise.data._arrow import numpy_to_array

    docs = _all_docs(runs).take(numpy_to_array(order))
    change = np.ones(len(docs), dtype=bool)
    if len(docs) > 1:
        change[1:] = pc.not_equal(docs.slice(1), docs.slice(0, len(docs) - 1)).to_numpy(
            zero_copy_only=False
        )
    return change


def _report_duplicate(run: Run, candidates: np.ndarray) -> None:
    order = np.argsort(candidates, kind="stable")
    same = np.flatnonzero(candidates[order][1:] == candidates[order][:-1])
    first, second = sorted((int(order[same[0]]), int(order[same[0] + 1])))  # rows
    doc = run.doc_ids[second].as_py()
    query = run.query_ids[int(run.query_codes_at(np.array([second]))[0])]
    raise DuplicateEntryError(
        f"run {run.name!r} lists document {doc!r} twice for query {query!r} "
        f"(rows {first + 1} and {second + 1}); a run lists each document once per query",
        run.source,
        run.line_of(second) if run.source else None,
    )
