"""The computing half of the ir_measures drop-in: judgments and runs read once, ranked, evaluated.

ir_measures' providers differ in how they rank a run (ties by document id
descending for pytrec_eval and gdeval, ascending for its judged, msmarco,
compat and pyndeval providers, input order for cwl_eval and accuracy; scores
read as float32 by pytrec_eval) and in which judgments they read (pyndeval's
subtopics come from the TREC file's second column, ``iteration``). A
:class:`Job` says, for one measure, the rankwise measure that computes it
and the ranking it reads (:class:`Ranking`); :func:`evaluate` ranks the run
once per ranking and runs rankwise's kernels over it: no loop per query.

Inputs are read as ir_measures takes them (a dict of dicts, a pandas frame,
named tuples; rankwise's own objects and files too). A judged query of the
judgments as given (an empty dict included) that the run does not hold
scores the measure's default, 0, as in ir_measures; an empty run is a run
that retrieved nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankwise.measures.spec import Measure as RwMeasure

__all__ = ["Job", "Judgments", "Ranking", "RunData", "evaluate"]


@dataclass(frozen=True)
class Ranking:
    """How a provider ranks the run.

    ``tie_order``: ``"docno"`` (descending, trec_eval's), ``"input"``,
    ``"ranx"``; ``ascending``: tied documents by id ascending; ``float32``:
    scores compared as 32-bit floats; ``judged_only``: unjudged documents
    dropped first; ``subtopics``: the judgments' ``iteration`` read as the
    subtopic (pyndeval's).
    """

    tie_order: str = "docno"
    ascending: bool = False
    float32: bool = False
    judged_only: bool = False
    subtopics: bool = False


@dataclass(frozen=True)
class Job:
    """One measure as a provider computes it: rankwise measures over a ranking.

    ``measures`` are the rankwise measures it needs (one for most; the five
    C/W/L quantities for cwl_eval); ``combine`` turns their per-query arrays
    into the value (and extra fields) of each query; ``keep`` says which
    evaluated queries get a row (None: all; a query the run misses never
    does). ``direct``, instead of ``measures``: the arrays computed from the ranking itself (a
    :class:`~rankwise.ranking.tied.TiedRanking`), one value per query of it.
    """

    measures: tuple[RwMeasure, ...]
    ranking: Ranking = field(default_factory=Ranking)
    combine: Callable[[list[np.ndarray]], list[np.ndarray]] | None = None
    keep: Callable[[list[np.ndarray]], np.ndarray] | None = None
    direct: Callable[[Any], list[np.ndarray]] | None = None


def _unique_in_order(values: Any) -> list[Any]:
    return list(dict.fromkeys(values))


class Judgments:
    """Judgments read once: the query ids as given (ir_measures' ``qrel_qids``) and the rows.

    ``qids``: every query of the judgments as given (a dict's keys, an empty
    dict of judgments included); ``judged_qids``: those with a judgment (the
    providers of ir_measures that read the judgments row by row see only
    those).

    Parameters
    ----------
    qrels : dict, frame, named tuples, Qrels or path
        What ir_measures takes (named tuples and generators are read once).
    """

    def __init__(self, qrels: Any) -> None:
        from rankwise.data import Qrels
        from rankwise.io.records import records_table

        self._subtopic_qrels: Any = None
        self._source: Any = qrels
        if isinstance(qrels, dict):
            self.qids = list(qrels)
            rows = {q: docs for q, docs in qrels.items() if docs}
            self.judged_qids = list(rows)
            self._source = rows
            self.qrels = _as_qrels(rows) if rows else None
            return
        if isinstance(qrels, Qrels):
            self.qrels = qrels
            self.qids = self.judged_qids = _typed(qrels.query_ids, qrels.query_id_type)
            return
        if hasattr(qrels, "__next__"):
            qrels = list(qrels)
        if isinstance(qrels, (list, tuple)) and not qrels:
            self.qids, self.judged_qids, self.qrels = [], [], None
            return
        table = records_table(qrels)
        if table is not None:
            self._source = table
            qrels = table
        if (hasattr(qrels, "num_rows") and qrels.num_rows == 0) or (
                hasattr(qrels, "shape") and len(qrels) == 0):
            self.qids, self.judged_qids, self.qrels = [], [], None
            return
        self.qrels = _as_qrels(qrels)
        self.qids = _query_column(qrels) or _typed(self.qrels.query_ids,
                                                    self.qrels.query_id_type)
        self.judged_qids = self.qids

    def subtopics(self) -> Any:
        """The judgments with ``iteration`` as the subtopic (pyndeval's reading), or plain."""
        if self._subtopic_qrels is None:
            self._subtopic_qrels = _subtopic_qrels(self._source, self.qrels)
        return self._subtopic_qrels


def _typed(ids: list[str], kind: type | None) -> list[Any]:
    return [int(q) for q in ids] if kind is int else list(ids)


def _query_column(table: Any) -> list[Any] | None:
    """The distinct query ids of a table, in the order they first come (None if unreadable)."""
    try:
        column = table["query_id"]
    except (KeyError, TypeError, IndexError):
        return None
    if hasattr(column, "unique") and hasattr(column, "tolist"):  # pandas / polars
        values = column.unique()
        return list(values.tolist() if hasattr(values, "tolist") else values)
    import pyarrow.compute as pc

    ids: list[Any] = pc.unique(column).to_pylist()
    return ids


def _as_qrels(source: Any) -> Any:
    from rankwise.exceptions import DuplicateEntryError
    from rankwise.io.coerce import as_qrels

    try:
        return as_qrels(source)
    except DuplicateEntryError:
        if not _has_iteration(source):
            raise
        # a document judged once per subtopic (diversity judgments): its greatest grade
        return as_qrels(source, columns={"subtopic": "iteration"})


def _has_iteration(source: Any) -> bool:
    names = getattr(source, "column_names", None)
    if names is None:
        names = list(getattr(source, "columns", []))
    return "iteration" in names and not {"subtopic", "intent"} & set(names)


def _subtopic_qrels(source: Any, plain: Any) -> Any:
    """Pyndeval's judgments: the ``iteration`` field is the subtopic (one subtopic without it)."""
    from rankwise.io.coerce import as_qrels

    if plain is None or not _has_iteration(source):
        return plain
    return as_qrels(source, columns={"subtopic": "iteration"})


class RunData:
    """A run read once: rankwise's :class:`~rankwise.data.Run` (None when empty).

    Parameters
    ----------
    run : dict, frame, named tuples, Run or path
        What ir_measures takes (named tuples and generators are read once).
    """

    def __init__(self, run: Any) -> None:
        from rankwise.data import Run
        from rankwise.io.coerce import as_run
        from rankwise.io.records import records_table

        self.source = run
        self._input_ranked: Any = None
        if isinstance(run, Run):
            self.run: Any = run
            return
        if isinstance(run, dict):
            self.run = as_run(run) if run else None  # {"q": {}}: a query ranked empty
            return
        if hasattr(run, "__next__"):
            run = list(run)
        if isinstance(run, (list, tuple)) and not run:
            self.run = None
            return
        table = records_table(run)
        if table is not None:
            run = table
            self.source = table
        empty = (hasattr(run, "num_rows") and run.num_rows == 0) or (
            hasattr(run, "shape") and len(run) == 0)
        self.run = None if empty else as_run(run)

    def positions(self) -> dict[str, int]:
        """Each query's position in the run (the order ir_measures' providers yield them)."""
        if self.run is None:
            return {}
        return {query: index for index, query in enumerate(self.run.query_ids)}

    def input_ranked(self) -> Any:
        """The run with a rank column: by score descending, ties in the order of the input."""
        from rankwise.data import Run

        if self._input_ranked is None:
            run = self.run
            codes = run.query_codes
            order = np.lexsort((np.arange(len(run)), -run.scores, codes))
            sorted_codes = codes[order]
            starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
            counts = np.diff(np.r_[starts, len(order)])
            rank = np.empty(len(run), dtype=np.int64)
            rank[order] = np.arange(len(order)) - np.repeat(starts, counts) + 1
            table = run.to_arrow()
            self._input_ranked = Run.from_arrow(table["query_id"], table["doc_id"], run.scores,
                                                ranks=rank, check_duplicates=False)
        return self._input_ranked


def ascending_ties(ranking: Any) -> Any:
    """*ranking* (tied scores by document id descending) with each tie group reversed.

    Document ids ascending is the reverse of descending within a group of
    tied scores: a document at rank r of a group of s documents below a
    documents is at rank 2a + s + 1 - r. As fast as trec_eval's order (the
    C ranker), where ranking by ids ascending sorts the whole run.
    """
    from dataclasses import replace

    rank = 2 * ranking.tie_above + ranking.tie_size + 1 - ranking.hit_rank
    return replace(ranking, hit_rank=rank.astype(ranking.hit_rank.dtype), presorted=False,
                   cache={})


def evaluate(judgments: Judgments, run: RunData,
             jobs: Sequence[Job]) -> tuple[list[Any], list[tuple[list[np.ndarray], np.ndarray]]]:
    """The evaluated queries (in the run's order) and, per job, its arrays and rows over them.

    A query is evaluated when both the judgments and the run hold it.
    Returns ``(query ids, [([value, extra fields ...], has a row) per job])``.
    """
    if judgments.qrels is None or run.run is None:
        return [], [([], np.zeros(0, dtype=bool)) for _ in jobs]
    from rankwise.engines.core import compute
    from rankwise.options import EvalOptions
    from rankwise.ranking.rank import rank_all_ties

    judged = set(judgments.qrels.query_ids)
    order_ids = [q for q in run.run.query_ids if q in judged]
    slot = {query: index for index, query in enumerate(order_ids)}
    by_ranking: dict[Ranking, list[int]] = {}
    for index, job in enumerate(jobs):
        by_ranking.setdefault(job.ranking, []).append(index)
    per_job: list[tuple[list[np.ndarray], np.ndarray]] = [([], np.zeros(0, dtype=bool))
                                                           for _ in jobs]
    for spec, indexes in by_ranking.items():
        qrels = judgments.subtopics() if spec.subtopics else judgments.qrels
        source = run.input_ranked() if spec.tie_order == "input" else run.run
        mirror = spec.ascending and not spec.judged_only and spec.tie_order == "docno"
        ranking = rank_all_ties(
            qrels, source, judged_only=spec.judged_only, by_rank=spec.tie_order == "input",
            tie_order="docno" if spec.tie_order == "input" else spec.tie_order,
            float32=spec.float32, ascending=spec.ascending and not mirror,
        )
        if mirror:
            ranking = ascending_ties(ranking)
        where = np.array([slot[q] for q in ranking.query_ids], dtype=np.intp)
        present = np.zeros(len(order_ids), dtype=bool)
        present[where] = True
        options = EvalOptions(judged_only=spec.judged_only,
                              ties="ascending" if spec.ascending else "trec")
        wanted = list(dict.fromkeys(m for i in indexes for m in jobs[i].measures))

        def rankings(key: tuple[str, bool, bool], qrels: Any = qrels,
                     judged_only: bool = spec.judged_only) -> Any:
            tie_order, float32, drop_self = key  # a dialect's ranking (ranx's tie order)
            return rank_all_ties(qrels, run.run, judged_only=judged_only,
                                 tie_order=tie_order, float32=float32, drop_self=drop_self)

        values = compute(ranking, wanted, options, rankings=rankings) if wanted else {}
        for i in indexes:
            direct = jobs[i].direct
            found = direct(ranking) if direct is not None else [values[m] for m in
                                                                 jobs[i].measures]
            arrays = []
            for column in found:
                full = np.zeros(len(order_ids))
                full[where] = column
                arrays.append(full)
            combine, keep = jobs[i].combine, jobs[i].keep
            rows = present if keep is None else present & keep(arrays)
            per_job[i] = (combine(arrays) if combine is not None else arrays, rows)
    return _typed(order_ids, judgments.qrels.query_id_type), per_job
