"""Runs side by side: the candidates of each query, and each run's score and rank for them.

Fusion works on an :class:`Aligned` view of R runs: for every query, the
*candidates* are the union of the documents the runs retrieved for it. Each
run keeps its own rows (one per document it retrieved), each row knowing its
candidate, its score and, when a method needs it, its 1-based rank in that
run's own order (score descending, ties by document id descending:
trec_eval's rule). Every fusion method is then a few vectorised sums over
each run's rows (``numpy.bincount`` by candidate), for all queries at once.

With the C module (``rankwise.fusion._cfuse``), :func:`scan` finds the
candidates in one pass over each query's rows, run after run (a hash table
per query, keyed by the document id's bytes), and can add each row's value to
its candidate's total in the same pass: :func:`rankwise.fusion.methods.one_pass`
fuses the methods that are such sums without aligning the runs at all.
Without it, the candidates come from sorting; both number them query by
query, in order of first appearance, so the fused runs are the same.

The rank-based methods (rrf, isr, rbc, bordafuse, condorcet, ...) need every
row's rank, where the evaluation ranks only the judged rows (by counting):
:func:`rank_rows` takes each query's rows where the run holds them, sorts them
in C (scores into buckets of equal width, or by a radix sort of their bits;
nothing to sort when they come in rank order), then each group of tied scores
by document id.

Queries are the union of the runs' queries: a query one run lacks is a
query that run retrieved nothing for.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.exceptions import DuplicateEntryError

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Run

__all__ = ["Aligned", "Layout", "RowValues", "Scanned", "align", "document_ids", "layout",
           "rank_rows", "scan", "split_source"]


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
    source : ndarray of int64
        Per candidate, where it first appears (for its document id): run r,
        row i there, as ``r << 40 | i`` (see :func:`split_source`).
    runs : tuple of Run
    """

    query_ids: list[str]
    candidate_query: np.ndarray
    candidates: tuple[np.ndarray, ...]
    scores: tuple[np.ndarray, ...]
    ranks: tuple[np.ndarray, ...] | None
    row_queries: tuple[np.ndarray, ...]
    list_length: np.ndarray
    source: np.ndarray
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
        out: np.ndarray = counts[self.candidate_query]
        return out

    def doc_ids(self) -> pa.Array:
        """The document id of each candidate (Arrow strings)."""
        return document_ids(self.runs, self.source)


@dataclass(frozen=True)
class Layout:
    """Where each query's rows are in each run (queries: the union, in order of first appearance).

    Attributes
    ----------
    query_ids : list of str
    begin, end : tuple of ndarray of int64
        Per run, one per query: the query's rows are positions ``begin[q]``
        to ``end[q] - 1`` of the run's rows (or of ``order``).
    order : tuple of (ndarray of int64, or None)
        Per run, its rows in order of query (stable), where the run is not
        grouped by query; None where it is (positions are rows).
    blocks : tuple of (ndarray, ndarray or None)
        Per run, its blocks of rows of one query: their queries and lengths
        (lengths None: one query per row).
    """

    query_ids: list[str]
    begin: tuple[np.ndarray, ...]
    end: tuple[np.ndarray, ...]
    order: tuple[np.ndarray | None, ...]
    blocks: tuple[tuple[np.ndarray, np.ndarray | None], ...]

    def row_queries(self) -> tuple[np.ndarray, ...]:
        """Per run, the query of each row."""
        return tuple(codes if lengths is None else np.repeat(codes, lengths)
                     for codes, lengths in self.blocks)

    def list_length(self) -> np.ndarray:
        """Queries x runs: how many documents each run retrieved for each query."""
        if not self.begin:
            return np.zeros((len(self.query_ids), 0), dtype=np.int64)
        return np.column_stack([e - b for b, e in zip(self.begin, self.end)])


RunRows = tuple[np.ndarray, np.ndarray, "np.ndarray | None"]
"""Where one run's rows of each query are: begin, end (int64, one per query) and order (the
run's rows in order of query, or None when it is grouped by query), as in :class:`Layout`."""


def layout(runs: tuple[Run, ...]) -> Layout:
    """The :class:`Layout` of *runs* (from each run's blocks of rows; no sort when grouped)."""
    names: dict[str, int] = {}
    mappings = [np.array([names.setdefault(q, len(names)) for q in run.query_ids], dtype=np.int64)
                for run in runs]
    begins, ends = [], []
    orders: list[np.ndarray | None] = []
    blocks: list[tuple[np.ndarray, np.ndarray | None]] = []
    for run, mapping in zip(runs, mappings):
        (begin, end, order), block = _rows_by_query(run, mapping, len(names))
        begins.append(begin)
        ends.append(end)
        orders.append(order)
        blocks.append(block)
    return Layout(list(names), tuple(begins), tuple(ends), tuple(orders), tuple(blocks))


def run_rows(run: Run) -> RunRows:
    """Where *run*'s rows of each of its own queries are (see :class:`Layout`).

    Examples
    --------
    >>> from rankwise.data import Run
    >>> begin, end, order = run_rows(Run.from_arrow(["a", "b", "a"], ["x", "x", "y"], [1, 2, 3]))
    >>> begin.tolist(), end.tolist(), order.tolist()
    ([0, 2], [2, 3], [0, 2, 1])
    """
    n_queries = len(run.query_ids)
    return _rows_by_query(run, np.arange(n_queries, dtype=np.int64), n_queries)[0]


def _rows_by_query(run: Run, mapping: np.ndarray, n_queries: int
                   ) -> tuple[RunRows, tuple[np.ndarray, np.ndarray | None]]:
    """*run*'s rows of each query (its codes mapped to *mapping*), and its blocks of rows."""
    starts, local = run.query_blocks
    codes = mapping[local]
    stops = np.append(starts[1:], len(run)).astype(np.int64)
    begin = np.zeros(n_queries, dtype=np.int64)
    end = np.zeros(n_queries, dtype=np.int64)
    if len(np.unique(codes)) == len(codes):  # one block per query
        begin[codes] = starts
        end[codes] = stops
        return (begin, end, None), (codes, stops - starts)
    query = mapping[run.query_codes]
    order = np.argsort(query, kind="stable").astype(np.int64)
    end[:] = np.cumsum(np.bincount(query, minlength=n_queries))
    begin[1:] = end[:-1]
    return (begin, end, order), (query, None)


def chunks_of(run: Run) -> list[tuple[int, np.ndarray, np.ndarray, int]]:
    """*run*'s document ids as the C module reads them: Arrow string chunks' buffers."""
    from rankwise.data._strings import string_chunks

    return [chunk.as_buffers() for chunk in string_chunks(run.doc_column)]


def native() -> Any:
    """The C module :mod:`rankwise.fusion._cfuse`, or None (not built, or turned off)."""
    from rankwise._compiled import enabled, load

    return load("rankwise.fusion._cfuse") if enabled() else None


@dataclass(frozen=True)
class RowValues:
    """What :func:`scan` adds up for one run: each row's value.

    kind: ``none``; ``raw`` (``values``); ``min-max`` or ``max`` (``values``
    normalised per query as :mod:`~rankwise.fusion.normalise` does); ``rrf``
    (1 / (param + v)), ``isr`` (1 / v^2) or ``over`` (param / v), v a rank in
    ``values`` (None: the row's position in its query's rows), or with
    ``rank_scores`` the row's rank by the scores in ``values`` (ranked in the
    same pass, as :func:`rank_rows` ranks); then times ``weight`` unless it is None.
    """

    kind: str = "none"
    values: np.ndarray | None = None
    param: float = 0.0
    weight: float | None = None
    rank_scores: bool = False


_KINDS = {"none": 0, "raw": 1, "min-max": 2, "max": 3, "rrf": 4, "isr": 5, "over": 6}


ROWS_PER_PART = 1_000_000
"""Rows per thread of :func:`scan` (fewer rows: one thread)."""

SOURCE_SHIFT = 40
"""Where a candidate first appears, run r and row i, is ``r << SOURCE_SHIFT | i``."""


def split_source(source: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs and rows of packed *source* values (``r << 40 | i``).

    Examples
    --------
    >>> [part.tolist() for part in split_source(np.array([5, (2 << 40) | 7]))]
    [[0, 2], [5, 7]]
    """
    return source >> SOURCE_SHIFT, source & ((1 << SOURCE_SHIFT) - 1)


@dataclass(frozen=True)
class Scanned:
    """What :func:`scan` found: the candidates and their sums over the runs.

    Candidates are numbered query by query, in order of first appearance.

    Attributes
    ----------
    layout : Layout
    candidates : tuple of ndarray, or None
        Per run, the candidate of each of its rows (when asked for).
    per_query : ndarray of int64
        Per query, its number of candidates.
    source : ndarray of int64
        Per candidate, where it first appears (``r << 40 | i``).
    total, count : ndarray of float64, or None
        Per candidate: the sum of its rows' values over the runs, in run
        order; the number of runs that retrieved it (when asked for).
    """

    layout: Layout
    candidates: tuple[np.ndarray, ...] | None
    per_query: np.ndarray
    source: np.ndarray
    total: np.ndarray | None
    count: np.ndarray | None

    @property
    def candidate_query(self) -> np.ndarray:
        """Per candidate, its query."""
        return np.repeat(np.arange(len(self.per_query), dtype=np.int64), self.per_query)

    def segments(self) -> tuple[np.ndarray, np.ndarray]:
        """The candidates' blocks of one query: first candidates and queries (non-empty ones)."""
        held = np.flatnonzero(self.per_query)
        starts = np.concatenate(([0], np.cumsum(self.per_query)[:-1]))[held]
        return starts.astype(np.int64), held.astype(np.int32)


def scan(runs: tuple[Run, ...], where: Layout, values: list[RowValues] | None = None, *,
         candidates: bool = True, count: bool = True) -> Scanned | None:
    """The candidates of *runs* and, with *values*, their totals (and counts), in one C pass.

    None where the C module is not built, or when a run lists a document twice
    for a query (:func:`align` then reports it).
    """
    from rankwise._threads import cores, run_threads

    module = native()
    if module is None:
        return None
    n_queries = len(where.query_ids)
    chunks = [chunks_of(run) for run in runs]
    specs = values if values is not None else [RowValues() for _ in runs]
    outs = [np.empty(len(run), dtype=np.int64) for run in runs] if candidates else None
    run_args = [
        (where.begin[r], where.end[r], where.order[r], chunks[r], spec.values,
         _KINDS[spec.kind], float(spec.param),
         None if spec.weight is None else float(spec.weight),
         None if outs is None else outs[r], spec.rank_scores)
        for r, spec in enumerate(specs)
    ]
    per_query_rows = sum((e - b for b, e in zip(where.begin, where.end)),
                         np.zeros(n_queries, dtype=np.int64))
    before = np.concatenate(([0], np.cumsum(per_query_rows)))
    n = int(before[-1])
    parts = max(1, min(cores(), n // ROWS_PER_PART + 1, n_queries))
    # split the queries where the rows split evenly
    bounds = np.searchsorted(before, np.linspace(0, n, parts + 1)[1:-1]).tolist()
    edges = [0, *bounds, n_queries]
    sums = values is not None
    per_query = np.zeros(n_queries, dtype=np.int64)
    local: list[tuple[int, tuple[np.ndarray | None, ...]]] = [(0, ())] * parts

    def work(index: int) -> None:
        begin, end = edges[index], edges[index + 1]
        room = int(before[end] - before[begin])
        arrays = (np.empty(room, dtype=np.int64), np.empty(room) if sums else None,
                  np.empty(room) if sums and count else None)
        found = module.scan(begin, end, run_args, per_query, *arrays)
        local[index] = (found, arrays)

    run_threads(work, parts)
    if any(found < 0 for found, _ in local):
        return None
    base = 0
    for index, (found, _) in enumerate(local):
        if base and outs is not None:
            module.shift(edges[index], edges[index + 1], run_args, base)
        base += found

    def joined(k: int) -> np.ndarray | None:
        if local[0][1][k] is None:
            return None
        pieces = [arrays[k][:found] for found, arrays in local]  # type: ignore[index]
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)

    source = joined(0)
    return Scanned(where, None if outs is None else tuple(outs), per_query,
                   source if source is not None else np.zeros(0, np.int64), joined(1), joined(2))


def document_ids(runs: tuple[Run, ...], source: np.ndarray) -> pa.Array:
    """The document id at each packed (run, row) (Arrow strings): copied in C where built."""
    import pyarrow as pa

    from rankwise.data._arrow import numpy_to_array

    module = native()
    if module is not None:
        offsets = np.empty(len(source) + 1, dtype=np.int32)
        try:
            data = module.gather(np.ascontiguousarray(source, dtype=np.int64),
                                 [chunks_of(run) for run in runs], offsets)
        except OverflowError:  # more than 2 GiB of ids: Arrow's takes below
            pass
        else:
            return pa.Array.from_buffers(pa.string(), len(source),
                                         [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    source_run, source_row = split_source(source)
    pieces = []
    order = np.argsort(source_run, kind="stable")
    for r, run in enumerate(runs):
        rows = source_row[order[source_run[order] == r]]
        if len(rows):
            pieces.append(run.doc_ids.take(numpy_to_array(rows)).combine_chunks())
    if not pieces:
        return pa.array([], pa.string())
    stacked = pa.concat_arrays([piece.cast(pa.string()) for piece in pieces])
    back = np.empty(len(order), dtype=np.int64)
    back[order] = np.arange(len(order))
    return stacked.take(numpy_to_array(back))


def rank_rows(run: Run, scores: np.ndarray | None = None) -> np.ndarray:
    """The 1-based rank of every row of *run* within its query, in trec_eval's order.

    Parameters
    ----------
    run : Run
        The run whose rows are ranked.
    scores : ndarray, optional
        One per row: they order the rows instead of the run's own scores.

    Returns
    -------
    ndarray of int64
        Per row, its rank, as :func:`rankwise.ranking.rank.rank_rows` gives it.

    Examples
    --------
    >>> from rankwise.data import Run
    >>> run = Run.from_dict({"q1": {"a": 1.0, "b": 2.0, "c": 1.0}, "q2": {"x": 0.5}})
    >>> rank_rows(run).tolist()
    [3, 1, 2, 1]
    >>> rank_rows(run, -run.scores).tolist()
    [2, 3, 1, 1]
    """
    from rankwise._threads import cores, run_threads

    module = native()
    if module is None or not len(run):
        return _kernels_rank_rows(run, scores)
    values = np.ascontiguousarray(run.scores if scores is None else scores, dtype=np.float64)
    begin, end, order = run_rows(run)
    chunks = chunks_of(run)
    out = np.empty(len(run), dtype=np.int64)
    n_queries = len(begin)
    parts = max(1, min(cores(), len(run) // ROWS_PER_PART + 1, n_queries))
    before = np.concatenate(([0], np.cumsum(end - begin)))
    edges = [0, *np.searchsorted(before, np.linspace(0, len(run), parts + 1)[1:-1]).tolist(),
             n_queries]
    status = [0] * parts

    def work(index: int) -> None:
        status[index] = module.ranks(edges[index], edges[index + 1], begin, end, order, chunks,
                                     values, out)

    run_threads(work, parts)
    if min(status) < 0:  # a NaN score: ranked as numpy sorts it
        return _kernels_rank_rows(run, scores)
    return out


def _kernels_rank_rows(run: Run, scores: np.ndarray | None) -> np.ndarray:
    from rankwise.ranking.rank import rank_rows as ranked

    return ranked(run, scores)


def align(runs: tuple[Run, ...] | list[Run], *, ranks: bool = False) -> Aligned:
    """Align *runs* on the union of their (query, document) pairs.

    Candidates are numbered query by query, in order of first appearance
    (runs in order, each run's rows in order), with the C module or without.

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
    where = layout(runs)
    found = scan(runs, where)
    if found is not None:
        candidates, candidate_query, source = (found.candidates, found.candidate_query,
                                               found.source)
    else:
        candidates, candidate_query, source = _align_by_sorting(runs, where)
    view = Aligned(
        query_ids=where.query_ids,
        candidate_query=candidate_query,
        candidates=candidates,  # type: ignore[arg-type]
        scores=tuple(run.scores for run in runs),
        ranks=None,
        row_queries=where.row_queries(),
        list_length=where.list_length(),
        source=source,
        runs=runs,
    )
    return view.with_ranks() if ranks else view


def _align_by_sorting(
    runs: tuple[Run, ...], where: Layout
) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """The candidates without the C module (and the duplicate check for both).

    Sorted by (query, document), then numbered in order of first appearance.
    """
    from rankwise.data._arrow import string_keys

    sizes = np.array([len(run) for run in runs], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    query = np.concatenate(where.row_queries()) if runs else np.zeros(0, dtype=np.int64)
    key = np.empty(len(query), dtype=np.uint64)
    exact = True
    for r, run in enumerate(runs):
        key[offsets[r]:offsets[r + 1]], run_exact = string_keys(run.doc_column)
        exact &= run_exact
    candidate, candidate_query, first = _group_by_sorting(runs, query, key, exact)
    # renumber: by query, then first appearance (the C module's numbering)
    renumber = np.lexsort((first, candidate_query))
    new = np.empty(len(renumber), dtype=np.int64)
    new[renumber] = np.arange(len(renumber))
    candidate = new[candidate]
    candidate_query, first = candidate_query[renumber], first[renumber]
    held = np.zeros(len(candidate_query), dtype=bool)
    candidates = []
    for r, run in enumerate(runs):
        mine = candidate[offsets[r]:offsets[r + 1]]
        held[:] = False
        held[mine] = True
        if int(np.count_nonzero(held)) != len(run):
            _report_duplicate(run, mine)
        candidates.append(mine)
    source_run = np.searchsorted(offsets, first, side="right") - 1
    source = (source_run << SOURCE_SHIFT) | (first - offsets[source_run])
    return tuple(candidates), candidate_query, source


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
    first = np.minimum.reduceat(order, starts) if n else order[starts]  # each one's earliest row
    return candidate, sorted_query[starts], first


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
    # uint64 from Arrow: row arithmetic needs int64
    out: np.ndarray = order.to_numpy().astype(np.int64)
    return out


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
