"""The ranked lists of the query explorer: each run's first documents per query.

The report is built from runs evaluated one at a time; while a run is in
memory, :func:`top_lists` keeps what the explorer shows of it: per query, its
first *depth* documents in the order of the ties rule (score descending,
ties as the evaluation broke them), each with its score, its grade (or
unjudged) and whether its score ties with its neighbours', and the rank of
every relevant judged document it retrieved (at any depth).
:func:`gather_lists` then aligns every system on the report's queries and
interns the documents once, in one table all lists share
(:class:`RankedLists`).

Nothing here evaluates a measure: the lists are what the measures read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.data._arrow import array_to_numpy, numpy_to_array
from rankwise.exceptions import InvalidParameterError
from rankwise.options import EvalOptions

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.data import Qrels, Run

__all__ = ["DEFAULT_DEPTH", "ListCollector", "RankedLists", "SystemLists", "gather_lists",
           "query_table", "top_lists"]

DEFAULT_DEPTH = 20
"""Documents shown per query and system in the explorer."""

TIED_ABOVE = 1
"""Tie mark: the document's score equals the one ranked just above it."""
TIED_BELOW = 2
"""Tie mark: the document's score equals the one ranked just below it (shown or not)."""


@dataclass(frozen=True)
class SystemLists:
    """One run's first documents per query, in its own query numbering.

    Entries are sorted by query, then rank. ``query`` indexes
    ``query_ids``; ``grade`` is NaN for an unjudged document; ``ties`` holds
    :data:`TIED_ABOVE` and :data:`TIED_BELOW` bits. ``found_*`` are the
    relevant judged documents the run retrieved, at any depth, with their rank.
    """

    query_ids: list[str]
    query: np.ndarray
    rank: np.ndarray
    docs: pa.Array
    score: np.ndarray
    grade: np.ndarray
    ties: np.ndarray
    retrieved: np.ndarray
    found_query: np.ndarray
    found_docs: pa.Array
    found_rank: np.ndarray


def query_table(results: Mapping[str, Any]) -> list[str]:
    """The queries of a report: every system's evaluated queries, in order of first appearance.

    Examples
    --------
    >>> import rankwise as rw
    >>> one = rw.evaluate({"q1": {"a": 1}, "q2": {"a": 1}}, {"q2": {"a": 1.0}}, "P@1")
    >>> two = rw.evaluate({"q1": {"a": 1}, "q2": {"a": 1}}, {"q1": {"a": 1.0}}, "P@1")
    >>> query_table({"x": one, "y": two})
    ['q2', 'q1']
    """
    ids = [np.asarray(item.query_ids).astype(str) for item in results.values()]
    if not ids:
        return []
    return list(dict.fromkeys(np.concatenate(ids).tolist()))


def _checked_depth(depth: Any) -> int:
    from rankwise._validation import NON_NEGATIVE_INT, check

    return int(check("list_depth", depth, NON_NEGATIVE_INT))


def _qrels_codes(qrels: Qrels, names: Sequence[str]) -> np.ndarray:
    """The index of each name in ``qrels.query_ids`` (-1: not judged), vectorised."""
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.index_in(pa.array(list(names), pa.string()),
                        value_set=pa.array(qrels.query_ids, pa.string()))
    return array_to_numpy(found.fill_null(-1).cast(pa.int64()), np.int64)


def _ranked_run(qrels: Qrels, run: Run, options: EvalOptions,
                ) -> tuple[Run, np.ndarray, np.ndarray | None]:
    """The run the evaluation ranks, its ranks, and the row of *run* each row comes from.

    Self documents dropped (``exclude_self``), unjudged and negatively
    graded documents dropped after the depth cut (``judged_only``: trec_eval's
    ``-J -M``). A run with rows dropped is rebuilt with the values that order
    it (the score, or minus the rank column) as its scores.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data import Run as RunType
    from rankwise.ranking.judged import judged_rows
    from rankwise.ranking.rank import _order_values, rank_rows

    values = _order_values(run, options.by_rank)
    keep = np.ones(len(run), bool)
    if not options.exclude_self and not options.judged_only:
        return run, rank_rows(run, values if options.by_rank else None), None
    queries = pa.array(run.query_ids, pa.string()).take(numpy_to_array(run.query_codes))
    if options.exclude_self and len(run):
        same = pc.fill_null(pc.equal(run.doc_ids.combine_chunks(), queries), False)
        keep &= ~array_to_numpy(same, np.bool_)
    if options.judged_only:
        rows, grades = judged_rows(qrels, run)
        usable = np.zeros(len(run), bool)
        usable[rows[grades >= 0]] = True
        if options.depth is not None:  # trec_eval cuts at the depth first
            usable &= _ranks(run, values, options.by_rank, keep) <= options.depth
        keep &= usable
    if keep.all():
        return run, _ranks(run, values, options.by_rank, keep), None
    origin = np.flatnonzero(keep)
    taken = numpy_to_array(origin)
    kept = RunType.from_arrow(queries.take(taken), run.doc_ids.take(taken), values[origin],
                              name=run.name, check_duplicates=False)
    return kept, rank_rows(kept), origin


def _ranks(run: Run, values: np.ndarray, by_rank: bool, keep: np.ndarray) -> np.ndarray:
    """trec_eval's rank of every row of *run* among the rows *keep* marks (others: past them)."""
    from rankwise.data import Run as RunType
    from rankwise.ranking.rank import rank_rows

    if keep.all():
        return rank_rows(run, values if by_rank else None)
    import pyarrow as pa

    origin = np.flatnonzero(keep)
    taken = numpy_to_array(origin)
    queries = pa.array(run.query_ids, pa.string()).take(numpy_to_array(run.query_codes))
    kept = RunType.from_arrow(queries.take(taken), run.doc_ids.take(taken), values[origin],
                              check_duplicates=False)
    out = np.full(len(run), np.iinfo(np.int64).max, np.int64)
    out[origin] = rank_rows(kept)
    return out


def top_lists(qrels: Qrels, run: Run, depth: int, options: EvalOptions | None = None,
              ) -> SystemLists:
    """The first *depth* documents of each query of *run*, as the evaluation ordered them.

    Parameters
    ----------
    qrels : Qrels
        The judgments (grades, and the relevant documents to find).
    run : Run
        The run.
    depth : int
        Documents kept per query (the evaluation's ``depth`` cuts further).
    options : EvalOptions, optional
        The evaluation's options: ``ties`` orders tied documents (``trec``,
        ``average`` and ``rank`` show trec_eval's order, docno descending;
        ``ascending`` docno ascending; ``worst`` / ``best`` the judged
        documents last / first by grade), ``exclude_self`` and
        ``judged_only`` remove documents, ``depth`` cuts, ``rel`` says
        which grades are relevant.

    Returns
    -------
    SystemLists

    Examples
    --------
    >>> from rankwise.data import Qrels, Run
    >>> qrels = Qrels.from_dict({"q": {"b": 1, "c": 0}})
    >>> run = Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}})
    >>> lists = top_lists(qrels, run, 3)
    >>> lists.docs.to_pylist(), lists.grade.tolist(), lists.ties.tolist()
    (['a', 'c', 'b'], [nan, 0.0, 1.0], [0, 2, 1])
    >>> lists.retrieved.tolist(), lists.found_docs.to_pylist(), lists.found_rank.tolist()
    ([4], ['b'], [3])
    """
    from rankwise.ranking.judged import judged_rows, judgment_rows

    chosen = options if options is not None else EvalOptions()
    depth = _checked_depth(depth)
    given = run
    run, ranks, origin = _ranked_run(qrels, given, chosen)
    values = run.scores if origin is not None else _values(given, chosen)
    codes = run.query_codes.astype(np.int64)
    cut = depth if chosen.depth is None else min(depth, chosen.depth)
    n_queries = len(run.query_ids)
    retrieved = np.bincount(codes, minlength=n_queries).astype(np.int64)
    if chosen.depth is not None:
        retrieved = np.minimum(retrieved, chosen.depth)
    # the rows of the first `cut` ranks, and every row tied with the last of them
    threshold = np.full(n_queries, np.inf)
    last = np.flatnonzero(ranks == cut) if cut else np.zeros(0, np.int64)
    threshold[codes[last]] = values[last]
    threshold[np.bincount(codes, minlength=n_queries) <= cut] = -np.inf
    candidates = np.flatnonzero((ranks <= cut) | (values >= threshold[codes])) if cut else \
        np.zeros(0, np.int64)
    q_codes = _qrels_codes(qrels, run.query_ids)
    cand_docs = run.doc_ids.take(numpy_to_array(candidates))
    judged = judgment_rows(qrels, q_codes[codes[candidates]], cand_docs)
    grade = np.full(len(candidates), np.nan)
    grade[judged >= 0] = qrels.grades[judged[judged >= 0]]
    order = _display_order(chosen.ties, codes[candidates], values[candidates],
                           ranks[candidates], grade)
    if order is not None:
        candidates, grade = candidates[order], grade[order]
    rows, cand_q = candidates, codes[candidates]
    value = values[rows]
    same = (cand_q[1:] == cand_q[:-1]) & (value[1:] == value[:-1])
    ties = np.zeros(len(rows), np.uint8)
    ties[1:] |= np.where(same, TIED_ABOVE, 0).astype(np.uint8)
    ties[:-1] |= np.where(same, TIED_BELOW, 0).astype(np.uint8)
    starts = np.flatnonzero(np.concatenate(([True], cand_q[1:] != cand_q[:-1]))) \
        if len(rows) else np.zeros(0, np.int64)
    shown_rank = np.arange(len(rows)) - np.repeat(starts, np.diff(np.append(starts, len(rows))))
    keep = shown_rank < cut
    # relevant judged documents retrieved, at any depth: their rank in the order of the ties
    # rule where they are shown, in trec_eval's order below
    hit_rows, hit_grades = judged_rows(qrels, run)
    hit_rows = hit_rows[hit_grades >= (chosen.rel if chosen.rel is not None else 1.0)]
    found_rank = ranks[hit_rows].astype(np.int64)
    if len(rows):
        shown = np.zeros(len(run), np.int64)
        shown[rows[keep]] = shown_rank[keep] + 1
        found_rank = np.where(shown[hit_rows] > 0, shown[hit_rows], found_rank)
    if chosen.depth is not None:
        inside = found_rank <= chosen.depth
        hit_rows, found_rank = hit_rows[inside], found_rank[inside]
    rows = rows[keep]
    source = rows if origin is None else origin[rows]
    return SystemLists(
        query_ids=run.query_ids,
        query=cand_q[keep].astype(np.int32),
        rank=(shown_rank[keep] + 1).astype(np.int32),
        docs=_strings(run.doc_ids, rows),
        score=given.scores[source],
        grade=grade[keep],
        ties=ties[keep],
        retrieved=retrieved,
        found_query=codes[hit_rows].astype(np.int32),
        found_docs=_strings(run.doc_ids, hit_rows),
        found_rank=found_rank,
    )


def _values(run: Run, options: EvalOptions) -> np.ndarray:
    from rankwise.ranking.rank import _order_values

    return _order_values(run, options.by_rank)


def _strings(column: pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """The strings at *rows* as one array."""
    import pyarrow as pa

    if not len(rows):
        return pa.array([], pa.string())
    return column.take(numpy_to_array(rows.astype(np.int64))).combine_chunks()


def _display_order(ties: str, query: np.ndarray, value: np.ndarray, trec_rank: np.ndarray,
                   grade: np.ndarray) -> np.ndarray | None:
    """The order of the entries by query, then as the ties rule ranks them (None: as they are).

    ``trec``, ``average`` and ``rank`` show trec_eval's order (tied documents
    by docno descending), ``ascending`` docno ascending, ``worst`` and
    ``best`` the judged documents of a tie group last or first, by grade.
    """
    if ties in ("worst", "best"):
        judged = ~np.isnan(grade)
        by_grade = np.where(judged, grade, 0.0)
        keys = (trec_rank, by_grade, judged) if ties == "worst" else \
            (trec_rank, -by_grade, ~judged)
        return np.lexsort((*keys, -value, query))
    if ties == "ascending":  # trec_eval's order reversed inside each tie group
        return np.lexsort((-trec_rank, -value, query))
    if not len(query):
        return None
    key = query.astype(np.int64) * (int(trec_rank.max()) + 1) + trec_rank
    if (key[1:] > key[:-1]).all():  # a run written in rank order, no tie reordered
        return None
    return np.argsort(key, kind="stable")


@dataclass(frozen=True)
class RankedLists:
    """Every system's first documents per query, on the report's queries, documents interned.

    Attributes
    ----------
    depth : int
        Documents shown per query at most.
    systems : list of str
        The systems, in the report's order.
    has_lists : ndarray of bool
        Per system: whether its ranked lists are known (not for systems
        given as evaluated results).
    offsets : ndarray of int64
        Entries of system *s* and query *q* are ``offsets[s * n_queries + q]``
        to ``offsets[s * n_queries + q + 1]``, in rank order.
    doc : ndarray of int32
        Per entry, its document (an index of ``doc_ids``).
    score, grade, ties : ndarray
        Per entry: score (the rank column's value, negated, with
        ``ties="rank"``), grade (NaN: unjudged), tie marks.
    retrieved : ndarray of int64
        ``(systems, queries)``: documents the system retrieved for the query
        (-1: no list).
    relevant_offsets, relevant_doc, relevant_grade : ndarray
        The relevant judged documents of each query (grade descending).
    relevant_rank : ndarray of int64
        ``(relevant documents, systems)``: the rank each system gave it (0:
        not retrieved; -1: the system has no list).
    doc_ids : pyarrow.Array
        The shared document table (strings).
    """

    depth: int
    systems: list[str]
    has_lists: np.ndarray
    offsets: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    grade: np.ndarray
    ties: np.ndarray
    retrieved: np.ndarray
    relevant_offsets: np.ndarray
    relevant_doc: np.ndarray
    relevant_grade: np.ndarray
    relevant_rank: np.ndarray
    doc_ids: pa.Array

    def entries(self, system: int, query: int) -> slice:
        """The entries of a system's list for a query (indices into doc, score, ...)."""
        n = len(self.retrieved[0]) if len(self.retrieved) else 0
        at = system * n + query
        return slice(int(self.offsets[at]), int(self.offsets[at + 1]))


def gather_lists(query_ids: Sequence[str], systems: Mapping[str, SystemLists | None],
                 qrels: Qrels | None, depth: int, rel: float = 1.0) -> RankedLists:
    """Align the systems' lists on *query_ids* and intern their documents in one table.

    The document table lists documents in the order they first appear,
    query by query (each query's systems in turn, then its relevant
    documents): a query's documents sit together.

    Examples
    --------
    >>> from rankwise.data import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"c": 2}})
    >>> one = top_lists(qrels, Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}), 5)
    >>> two = top_lists(qrels, Run.from_dict({"q1": {"b": 2.0, "a": 1.0}}), 5)
    >>> lists = gather_lists(["q1", "q2"], {"x": one, "y": two}, qrels, 5)
    >>> lists.doc_ids.to_pylist(), lists.doc[lists.entries(1, 0)].tolist(), lists.retrieved.tolist()
    (['a', 'b', 'c'], [1, 0], [[2, 1], [2, 0]])
    >>> lists.relevant_rank.tolist()
    [[1, 2], [1, 0]]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    names = list(systems)
    n_queries, n_systems = len(query_ids), len(names)
    table = pa.array(list(query_ids), pa.string())
    parts: list[tuple[np.ndarray, np.ndarray, pa.Array, np.ndarray, np.ndarray, np.ndarray]] = []
    retrieved = np.full((n_systems, n_queries), -1, np.int64)
    found: list[tuple[np.ndarray, pa.Array, np.ndarray]] = []
    for index, name in enumerate(names):
        lists = systems[name]
        if lists is None:
            found.append((np.zeros(0, np.int64), pa.array([], pa.string()),
                          np.zeros(0, np.int64)))
            continue
        place = pc.index_in(pa.array(lists.query_ids, pa.string()), value_set=table)
        position = array_to_numpy(place.fill_null(-1).cast(pa.int64()), np.int64)
        known = position >= 0
        retrieved[index, position[known]] = lists.retrieved[known]
        retrieved[index, :][retrieved[index, :] < 0] = 0  # a query it did not retrieve for
        query = position[lists.query]
        kept = query >= 0
        parts.append((np.full(int(kept.sum()), index, np.int64), query[kept],
                      lists.docs.filter(pa.array(kept)), lists.score[kept], lists.grade[kept],
                      lists.ties[kept]))
        found_query = position[lists.found_query]
        inside = found_query >= 0
        found.append((found_query[inside], lists.found_docs.filter(pa.array(inside)),
                      lists.found_rank[inside]))
    system = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    query = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    docs = pa.concat_arrays([p[2] for p in parts]) if parts else pa.array([], pa.string())
    score = np.concatenate([p[3] for p in parts]) if parts else np.zeros(0)
    grade = np.concatenate([p[4] for p in parts]) if parts else np.zeros(0)
    ties = np.concatenate([p[5] for p in parts]) if parts else np.zeros(0, np.uint8)
    # relevant judged documents of the report's queries, grade descending
    rel_query, rel_docs, rel_grade = _relevant(qrels, table, rel)
    # one document table, in order of first appearance query by query (a query's systems
    # in turn, then its relevant documents): the documents of a query sit together
    by_query = np.argsort(np.concatenate([query, rel_query]), kind="stable")
    joined = pa.concat_arrays([docs, rel_docs]).take(numpy_to_array(by_query))
    encoded = pc.dictionary_encode(joined)
    codes = np.empty(len(by_query), np.int32)
    codes[by_query] = array_to_numpy(encoded.indices.cast(pa.int32()), np.int32)
    doc, rel_doc = codes[:len(docs)], codes[len(docs):]
    keys = system * n_queries + query
    # by (system, query of the report's table, rank): a run's queries come in its own order
    by_key = np.argsort(keys, kind="stable")
    doc, score, grade, ties = doc[by_key], score[by_key], grade[by_key], ties[by_key]
    counts = np.bincount(keys, minlength=n_systems * n_queries) if len(keys) else \
        np.zeros(n_systems * n_queries, np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    relevant_rank = np.full((len(rel_doc), n_systems), 0, np.int64)
    rel_encoded = pc.dictionary_encode(rel_docs)  # the relevant documents alone: a small table
    rel_code = array_to_numpy(rel_encoded.indices.cast(pa.int64()), np.int64)
    for index, (found_query, found_docs, found_rank) in enumerate(found):
        if systems[names[index]] is None:
            relevant_rank[:, index] = -1
            continue
        relevant_rank[:, index] = _ranks_of_relevant(
            rel_query, rel_code, found_query, found_docs, found_rank, rel_encoded.dictionary)
    rel_counts = np.bincount(rel_query, minlength=n_queries) if len(rel_query) else \
        np.zeros(n_queries, np.int64)
    return RankedLists(
        depth=depth, systems=names,
        has_lists=np.array([systems[n] is not None for n in names], bool),
        offsets=offsets, doc=doc, score=score, grade=grade, ties=ties, retrieved=retrieved,
        relevant_offsets=np.concatenate(([0], np.cumsum(rel_counts))).astype(np.int64),
        relevant_doc=rel_doc, relevant_grade=rel_grade, relevant_rank=relevant_rank,
        doc_ids=encoded.dictionary,
    )


def _relevant(qrels: Qrels | None, queries: pa.Array, rel: float,
              ) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """The relevant judgments of *queries*: query index, document, grade; by query, grade down."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if qrels is None or not len(qrels.grades):
        return np.zeros(0, np.int64), pa.array([], pa.string()), np.zeros(0)
    place = pc.index_in(pa.array(qrels.query_ids, pa.string()), value_set=queries)
    position = array_to_numpy(place.fill_null(-1).cast(pa.int64()), np.int64)
    query = position[qrels.query_codes]
    rows = np.flatnonzero((query >= 0) & (qrels.grades >= rel))
    docs = pa.array(qrels.doc_ids, pa.string()).take(numpy_to_array(
        qrels.doc_codes[rows].astype(np.int64)))
    order = np.lexsort((-qrels.grades[rows], query[rows]))
    return (query[rows][order], docs.take(numpy_to_array(order)),
            qrels.grades[rows][order].astype(np.float64))


def _ranks_of_relevant(rel_query: np.ndarray, rel_code: np.ndarray, found_query: np.ndarray,
                       found_docs: pa.Array, found_rank: np.ndarray,
                       dictionary: pa.Array) -> np.ndarray:
    """The rank a system gave each relevant document (0: not retrieved), by a sorted join.

    *rel_code* and the found documents are coded by *dictionary* (the relevant documents).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    out = np.zeros(len(rel_query), np.int64)
    if not len(found_query) or not len(rel_query):
        return out
    code = array_to_numpy(pc.index_in(found_docs, value_set=dictionary)
                          .fill_null(-1).cast(pa.int64()), np.int64)
    n_docs = max(len(dictionary), 1)
    wanted = rel_query.astype(np.int64) * n_docs + rel_code
    have = found_query.astype(np.int64) * n_docs + code
    order = np.argsort(have)
    place = np.minimum(np.searchsorted(have[order], wanted), len(have) - 1)
    hit = have[order][place] == wanted
    out[hit] = found_rank[order[place[hit]]]
    return out


class ListCollector:
    """Collects each run's lists while :func:`~rankwise.evaluation.evaluate_runs` has it.

    Called with ``(position, judgments, run)`` for each run evaluated; the
    judgments and runs an engine left unread (paths, frames) are read here.
    """

    def __init__(self, depth: int, options: EvalOptions, *, qrels_format: str | None = None,
                 run_format: str | None = None) -> None:
        self.depth = _checked_depth(depth)
        self.options = options
        self.formats = (qrels_format, run_format)
        self.qrels: Qrels | None = None
        self.lists: dict[int, SystemLists] = {}

    def __call__(self, position: int, qrels: Any, run: Any) -> None:
        """Keep the lists of the run at *position* (of the runs given)."""
        from rankwise.data import Qrels, Run
        from rankwise.io.coerce import as_qrels, as_run, read_qrels, read_run

        if self.depth == 0:
            return
        columns = self.options.columns
        if self.qrels is None:
            self.qrels = qrels if isinstance(qrels, Qrels) else (
                read_qrels(qrels, fmt=self.formats[0], columns=columns)
                if isinstance(qrels, str) else as_qrels(qrels, columns=columns))
        if not isinstance(run, Run):
            run = (read_run(run, fmt=self.formats[1], keep_rank=self.options.by_rank,
                            columns=columns) if isinstance(run, str)
                   else as_run(run, keep_rank=self.options.by_rank, columns=columns))
        self.lists[position] = top_lists(self.qrels, run, self.depth, self.options)

    def gather(self, query_ids: Sequence[str], positions: Mapping[str, int]) -> RankedLists | None:
        """The lists of the systems *positions* names (in its order), on *query_ids*."""
        if self.depth == 0:
            return None
        rel = self.options.rel if self.options.rel is not None else 1.0
        return gather_lists(query_ids, {name: self.lists.get(at) for name, at in
                                        positions.items()}, self.qrels, self.depth, rel)

    def finish(self, results: Mapping[str, Any], positions: Mapping[str, int], topics: Any,
               documents: Any) -> dict[str, Any]:
        """The explorer's fields of the :class:`~rankwise.report.build.Report`.

        *results* in the report's order, *positions* the place of each system
        in the runs given; *topics* and *documents* as
        :func:`rankwise.io.texts.as_topics` and :func:`~rankwise.io.texts.as_documents`
        read them (the documents of the lists alone are kept).
        """
        from rankwise.io.texts import as_documents, as_topics

        lists = self.gather(query_table(results), {name: positions[name] for name in results})
        self.lists.clear()
        texts = None if topics is None else as_topics(topics)
        if documents is not None and lists is None:
            raise InvalidParameterError("documents= needs ranked lists: give list_depth > 0")
        kept = None if documents is None or lists is None else as_documents(
            documents, ids=lists.doc_ids.to_pylist())
        return {"lists": lists, "topics": texts, "documents": kept}
