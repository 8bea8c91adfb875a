"""``evaluate``: judgments + run + measures -> :class:`Results`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from rankwise.data import Qrels, Run
from rankwise.exceptions import InvalidParameterError, UnsupportedMeasureError
from rankwise.io.coerce import as_qrels, as_run, split_one_table
from rankwise.measures import Measure, parse_many
from rankwise.results import Results, TieReport, aggregate

__all__ = ["evaluate"]


def evaluate(
    qrels: Any,
    run: Any = None,
    measures: str | Measure | Iterable[str | Measure] | None = None,
    *,
    rel: float | None = None,
    depth: int | None = None,
    missing: str = "skip",
    judged_only: bool = False,
    ties: str = "trec",
    query: str | None = None,
    label: str | None = None,
    score: str | None = None,
    doc: str | None = None,
) -> Results:
    """Evaluate a run against judgments.

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        The judgments: a :class:`Qrels`, a TREC qrels file (or Parquet, CSV,
        TSV, JSONL file), a pandas / polars / Arrow table with columns
        ``query_id, doc_id, relevance``, or ``{query_id: {doc_id: grade}}``.
        With ``query=``, ``label=`` and ``score=`` it is one table holding
        both judgments and scores (every row judged), and *run* is omitted.
    run : Run, path, frame or dict
        The scored results, in the same forms (columns ``query_id, doc_id,
        score``; dicts ``{query_id: {doc_id: score}}``).
    measures : str, Measure or list of them
        For example ``["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]``;
        trec_eval's names (``ndcg_cut.10``, ``P.5,10``, ``all_trec``) work too.
    rel : float, optional
        Minimum grade that counts as relevant (default 1); sets ``rel`` of
        every measure that takes it and does not set it itself.
    depth : int, optional
        Evaluate only the first *depth* documents of each query (trec_eval ``-M``).
    missing : {"skip", "zero"}
        A judged query absent from the run is left out (default) or scores as
        an empty ranking, 0 for most measures (trec_eval ``-c``).
    judged_only : bool
        Drop unjudged documents before ranking (trec_eval ``-J``).
    ties : {"trec", "average", "rank", "worst", "best"}
        Order of documents with equal scores: docno descending (trec_eval's
        rule, the default); ``"average"``: the exact expected value over all
        orders of each tie group; ``"rank"``: the run's rank column decides;
        ``"worst"`` / ``"best"``: relevant documents last / first, the bounds
        of any tie-breaking. ``Results.ties`` reports how much ties matter.
    query, label, score, doc : str, optional
        Column names for the one-table form (learning-to-rank data).

    Returns
    -------
    Results

    Raises
    ------
    InputFormatError
        Malformed input (the message names the file and line).
    MeasureSyntaxError, UnknownMeasureError
        A measure that cannot be parsed.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d5": 1.0, "d4": 0.5}}
    >>> results = rw.evaluate(qrels, run, ["ndcg@10", "map", "mrr", "P@2"])
    >>> {name: round(value, 4) for name, value in results.mean.items()}
    {'ndcg@10': 0.7974, 'map': 0.6667, 'mrr': 0.75, 'P@2': 0.5}
    >>> results["map"]
    array([0.83333333, 0.5       ])
    """
    if measures is None:
        raise InvalidParameterError("measures is required, for example ['ndcg@10', 'map']")
    if query is not None or label is not None or score is not None:
        if run is not None:
            raise InvalidParameterError(
                "give either (qrels, run) or one table with query=, label= and score=, not both"
            )
        qrels_obj, run_obj = split_one_table(qrels, query=query, label=label, score=score, doc=doc)
    else:
        if run is None:
            raise InvalidParameterError(
                "run is required (or pass one table with query=, label= and score=)"
            )
        qrels_obj, run_obj = as_qrels(qrels), as_run(run, keep_rank=ties == "rank")
    parsed = parse_measures(measures, rel)
    results = evaluate_objects(
        qrels_obj,
        run_obj,
        parsed,
        depth=depth,
        missing=missing,
        judged_only=judged_only,
        ties=ties,
    )
    warn_coverage(results.unjudged_queries, results.missing_queries, missing, results.run_name)
    return results


def warn_coverage(
    unjudged_queries: int, missing_queries: int, missing: str, run_name: str, stacklevel: int = 3
) -> None:
    """Say once that queries were ignored or left out (Python shows a warning once).

    Used by :func:`evaluate` and by the Spark engine, so both say the same.
    """
    import warnings

    from rankwise.exceptions import RankwiseWarning

    def queries(count: int, singular: str, plural: str) -> str:
        return f"{count} quer{'y' if count == 1 else 'ies'} " + (singular if count == 1 else plural)

    parts = []
    if unjudged_queries:
        parts.append(queries(unjudged_queries, "of the run has", "of the run have")
                     + " no judgments (ignored)")
    if missing_queries and missing == "skip":
        parts.append(
            queries(missing_queries, "of the judgments is", "of the judgments are")
            + " not in the run (left out; missing='zero' scores them as empty rankings)"
        )
    if parts:
        warnings.warn(f"run {run_name!r}: " + "; ".join(parts), RankwiseWarning,
                      stacklevel=stacklevel)


def parse_measures(
    measures: str | Measure | Iterable[str | Measure], rel: float | None
) -> list[Measure]:
    """Parse *measures* and apply a global relevance level to those that take one."""
    parsed = parse_many(measures)
    if rel is None:
        return parsed
    try:
        rel = float(rel)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"rel must be a number, got {rel!r}") from None
    out = []
    for measure in parsed:
        if "rel" in measure.family.params and "rel" not in dict(measure.params):
            measure = measure.replace(rel=rel)
        if measure not in out:
            out.append(measure)
    return out


def evaluate_objects(
    qrels: Qrels,
    run: Run,
    measures: list[Measure],
    *,
    depth: int | None = None,
    missing: str = "skip",
    judged_only: bool = False,
    ties: str = "trec",
) -> Results:
    """Evaluate already-built objects with already-parsed measures."""
    from rankwise.kernels import rank_all_ties
    from rankwise.kernels.ranking import TIE_POLICIES

    if ties not in TIE_POLICIES:
        raise InvalidParameterError(
            f"ties must be one of {', '.join(map(repr, TIE_POLICIES))}, got {ties!r}"
        )
    for measure in measures:
        kernel_for(measure, ties, depth)  # unknown or unsupported measures fail before ranking
    ranking = rank_all_ties(
        qrels, run, depth=depth, missing=missing, judged_only=judged_only, by_rank=ties == "rank"
    )
    return evaluate_ranking(
        ranking,
        measures,
        ties=ties,
        run_name=run.name,
        missing_queries=len(set(qrels.query_ids) - set(run.query_ids)),
        unjudged_queries=len(set(run.query_ids) - set(qrels.query_ids)),
    )


def evaluate_ranking(
    ranking: Any,
    measures: list[Measure],
    *,
    ties: str = "trec",
    run_name: str = "run",
    missing_queries: int = 0,
    unjudged_queries: int = 0,
) -> Results:
    """Compute *measures* from a :class:`~rankwise.kernels.ranking.TiedRanking`.

    The one place where kernels meet a ranking: the numpy engine and the
    Spark engine both end here, so their numbers agree by construction.
    """
    from rankwise.kernels import Context

    kernels = {m: kernel_for(m, ties, ranking.depth) for m in measures}
    data = ranking.view(ties)
    context = Context(data)
    values = {measure: kernels[measure](context, measure) for measure in measures}
    return Results(
        query_ids=data.query_ids,
        values=values,
        run_name=run_name,
        missing_queries=missing_queries,
        unjudged_queries=unjudged_queries,
        ties=tie_report(ranking, measures, ties),
    )


def kernel_for(measure: Measure, ties: str, depth: int | None) -> Any:
    """The kernel computing *measure* under tie policy *ties*."""
    from rankwise.kernels import KERNELS
    from rankwise.kernels.tie_average import average_kernel

    if measure.name not in KERNELS:
        raise UnsupportedMeasureError(f"measure {str(measure)!r} is not implemented")
    if ties == "average":
        return average_kernel(measure.name, KERNELS[measure.name], depth)
    return KERNELS[measure.name]


def tie_report(ranking: Any, measures: list[Measure], ties: str) -> TieReport:
    """How much ties decide the result: affected queries and best/worst bounds per measure."""
    from rankwise.kernels import KERNELS, Context
    from rankwise.kernels._unique import distinct

    data = ranking.view("trec")
    if not ranking.has_ties:
        return TieReport(ties, 0, 0, {})
    tied = data.tie_size > 1
    cutoffs = {m.cutoff for m in measures if m.cutoff is not None}
    if ranking.depth is not None:
        cutoffs.add(ranking.depth)
    straddle = np.zeros(len(tied), dtype=bool)
    for k in cutoffs:
        straddle |= tied & (data.tie_above < k) & (data.tie_above + data.tie_size > k)
    rel = next((m.param("rel") for m in measures if "rel" in m.family.params), 1.0)
    relevant = data.hit_grade >= rel
    group = data.hit_query.astype(np.int64) * (1 << 32) + data.tie_above
    groups, _, inverse = distinct(group[tied])
    rel_count = np.bincount(inverse, weights=relevant[tied], minlength=len(groups))
    size = np.zeros(len(groups))
    size[inverse] = data.tie_size[tied]
    mixed_groups = (rel_count > 0) & (rel_count < size)
    mixed_queries = distinct(groups[mixed_groups] >> 32)[0]
    bounds: dict[str, tuple[float, float]] = {}
    worst, best = Context(ranking.view("worst")), Context(ranking.view("best"))
    for measure in measures:
        if measure.family.text_valued:
            continue
        low = aggregate(measure, KERNELS[measure.name](worst, measure))
        high = aggregate(measure, KERNELS[measure.name](best, measure))
        bounds[str(measure)] = (low, high)
    return TieReport(
        ties,
        len(distinct(data.hit_query[straddle])[0]),
        len(mixed_queries),
        bounds,
    )
