"""ranx's ``evaluate``, computed by rankwise.

ranx evaluates each query's documents in the order it holds them (see
:mod:`rankwise.compat.ranx._table`), so the drop-in hands rankwise that
order as a ranking without ties, and reads ranx's metrics as rankwise
measures (:mod:`rankwise.compat.ranx._names`). Per-query values come in
ranx's order: the judgments' queries (sorted by id for ``Qrels``, the dict's
order for a dict, position for arrays).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from rankwise.compat.ranx._names import Metric, parse_metric
from rankwise.compat.ranx._table import Table
from rankwise.compat.ranx.data_structures import Qrels, Run
from rankwise.exceptions import InputFormatError, RankwiseWarning

__all__ = ["check_keys", "evaluate", "format_metrics", "judgments_at", "scores_of"]


def format_metrics(metrics: str | Sequence[str]) -> list[str]:
    """A metric or a list of them, as a list (ranx's ``format_metrics``).

    Raises
    ------
    InputFormatError
        A metric that is not a str.
    """
    listed = [metrics] if isinstance(metrics, str) else list(metrics)
    for metric in listed:
        if not isinstance(metric, str):
            raise InputFormatError(
                f"metrics must be a str or a list of str such as ['ndcg@10', 'map'], got "
                f"{metric!r} ({type(metric).__name__}) in {metrics!r}")
    return listed


def check_keys(qrels: Any, run: Any) -> None:
    """Refuse judgments and a run whose queries differ (ranx's ``check_keys``).

    Raises
    ------
    InputFormatError
        The query ids differ: says how, and the remedy (``make_comparable=True``).
    """
    qrels_keys, run_keys = qrels.keys(), run.keys()
    if qrels_keys == run_keys:
        return
    missing = [key for key in qrels_keys if key not in run_keys]
    extra = [key for key in run_keys if key not in qrels_keys]
    raise InputFormatError(
        "Qrels and Run query ids do not match: "
        + "; ".join(part for part in (
            f"{len(missing)} judged quer{'y' if len(missing) == 1 else 'ies'} not in the run "
            f"(first {missing[0]!r})" if missing else "",
            f"{len(extra)} quer{'y' if len(extra) == 1 else 'ies'} of the run not judged "
            f"(first {extra[0]!r})" if extra else "") if part)
        + ". Pass `make_comparable=True` to add empty results for queries missing from the "
        "run and remove those not appearing in qrels.")


def depth_of(metrics: list[Metric]) -> int | None:
    """How deep the metrics read each ranking: their largest cutoff, or None (the whole list).

    None when one reads past its cutoff (no cutoff, R-precision, bpref, RBP).
    """
    depths = [metric.depth for metric in metrics]
    known = [depth for depth in depths if depth is not None]
    return max(known) if known and len(known) == len(depths) else None


def _is_nested(value: Any) -> bool:
    return isinstance(value, (Qrels, Run, dict))


def _judgments(qrels: Any) -> Table:
    if isinstance(qrels, Qrels):
        return qrels._sorted_table()
    return Table.from_mapping(qrels)


def _ranking(run: Any, depth: int | None) -> Any:
    """Rankwise's run ranking the documents as ranx evaluates them (to *depth*)."""
    if isinstance(run, Run):
        return run._ranking(depth)
    return Table.from_mapping(run).descending(depth).ranking()  # ranx sorts dicts so


def judgments_at(table: Table, level: int) -> Any:
    """Rankwise's judgments, grades below *level* (and >= 0) set to 0, as ranx cleans them."""
    import pyarrow as pa

    from rankwise.data import Qrels as RankwiseQrels

    codes, docs, grades = table.rows()
    grades = np.where(grades >= level, grades, np.minimum(grades, 0.0))
    queries = pa.array([str(key) for key in table.keys], pa.string())
    return RankwiseQrels.from_arrow(queries.take(pa.array(codes)), docs, grades)


def scores_of(judgments: Table, rankwise_run: Any, metrics: list[Metric],
              qrels: Qrels | None = None) -> dict[str, np.ndarray]:
    """Each metric's value per query, in the order of *judgments*' queries.

    *rankwise_run* ranks each query's documents in ranx's order, without ties
    (:meth:`Table.ranking`); rankwise pairs its queries with the judgments by
    id. The judgments rankwise reads are kept on *qrels* for the next call.
    """
    from rankwise.evaluation import evaluate as evaluate_measures

    out: dict[str, np.ndarray] = {}
    for level in dict.fromkeys(metric.level for metric in metrics):
        chosen = [metric for metric in metrics if metric.level == level]
        measures = list(dict.fromkeys(m for metric in chosen for m in metric.measures()))
        judged = (qrels._cached(judgments, ("qrels", level),
                                lambda level=level: judgments_at(judgments, level))
                  if qrels is not None else judgments_at(judgments, level))
        with warnings.catch_warnings():  # ranx says nothing of queries it scores 0
            warnings.simplefilter("ignore", RankwiseWarning)
            results = evaluate_measures(judged, rankwise_run, measures, missing="zero")
        rows = _aligned(results.query_ids, judgments)
        for metric in chosen:
            values = []
            for measure in metric.measures():
                full = np.zeros(len(judgments.keys))  # a query with no judgment scores 0
                full[rows] = results[measure]
                values.append(full)
            out[metric.text] = metric.combine(values)
    return {metric.text: out[metric.text] for metric in metrics}  # in the order asked


def _aligned(query_ids: list[str], judgments: Table) -> np.ndarray:
    """Where each of rankwise's queries (its judged ones, in order) sits in *judgments*."""
    held = np.flatnonzero(judgments.lengths > 0)
    if [str(judgments.keys[i]) for i in held.tolist()] == list(query_ids):
        return held
    index = {str(key): i for i, key in enumerate(judgments.keys)}
    return np.array([index[query] for query in query_ids], dtype=np.int64)


def evaluate(qrels: Any, run: Any, metrics: str | Sequence[str], return_mean: bool = True,
             return_std: bool = False, threads: int = 0, save_results_in_run: bool = True,
             make_comparable: bool = False) -> Any:
    """See :func:`rankwise.compat.ranx.evaluate`."""
    from rankwise.compat.ranx._arrays import array_tables

    del threads  # rankwise chooses its own threads
    if not return_mean:
        return_std = False
    if make_comparable and isinstance(qrels, Qrels) and isinstance(run, Run):
        run = run.make_comparable(qrels)
    if _is_nested(qrels) and _is_nested(run):
        check_keys(qrels, run)
    names = format_metrics(metrics)
    parsed = [parse_metric(name) for name in names]
    if _is_nested(qrels) != _is_nested(run):
        raise InputFormatError(
            "qrels and run must be both Qrels/Run/dicts or both arrays of [doc_id, score] "
            f"rows per query, got {type(qrels).__name__} and {type(run).__name__}")
    if _is_nested(qrels):
        judgments, ranked = _judgments(qrels), _ranking(run, depth_of(parsed))
    else:
        judgments, ranking = array_tables(qrels, run)
        ranked = ranking.ranking(depth=depth_of(parsed))
    values = scores_of(judgments, ranked, parsed,
                       qrels if isinstance(qrels, Qrels) else None)
    if isinstance(run, Run) and save_results_in_run:
        _save(run, judgments.keys, values, return_std)
    output: dict[str, Any] = dict(values)
    if return_mean:
        output = {name: {"mean": np.mean(scores), "std": np.std(scores)} if return_std
                  else np.mean(scores) for name, scores in values.items()}
    return output[names[-1]] if len(names) == 1 else output


def _save(run: Run, keys: list[Any], values: dict[str, np.ndarray], with_std: bool) -> None:
    """Store the values in ``run.scores`` (by query, in the run's order) and the means."""
    run_keys = run.get_query_ids()
    same = run_keys == keys
    for name, scores in values.items():
        run.mean_scores[name] = np.mean(scores)
        if with_std:
            run.std_scores[name] = np.std(scores)
        if same:
            run.scores[name].update(zip(keys, scores))
        else:  # the judgments of a dict list the queries in another order
            by_query = dict(zip(keys, scores))
            run.scores[name].update((key, by_query[key]) for key in run_keys)
