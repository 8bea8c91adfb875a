""":class:`~rankwise.Results` as a table: means per run, or per-query values and means."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from rankwise.measures import Measure
from rankwise.report.protocols import ResultsLike
from rankwise.report.tables import Table, block_rows

__all__ = ["query_order", "results_table"]

_INTEGER_LINES = re.compile(r"(?:-?[0-9]+\n)*")


def query_order(ids: Sequence[Any]) -> np.ndarray | None:
    """The order of per-query rows: numeric when every id is an integer, else by the ids' bytes.

    Integer ids (``1, 2, 10``; text of ASCII digits with an optional ``-``, or
    Python integers, within 64 bits) are sorted as numbers, ``007`` before
    ``7``; any other set of ids in the byte order of their UTF-8 text, as
    trec_eval sorts them (``q1, q10, q2``). Sorted in numpy, no loop per id.

    Returns
    -------
    numpy.ndarray or None
        The row of each position, or None when *ids* are in that order already.

    Examples
    --------
    >>> query_order(["1", "10", "2", "-3"]).tolist(), query_order(["q1", "q10", "q2"])
    ([3, 0, 2, 1], None)
    >>> query_order(["7", "007", "10"]).tolist(), query_order(["2", "x", "10"]).tolist()
    ([1, 0, 2], [2, 0, 1])
    """
    if len(ids) < 2:
        return None
    if isinstance(ids[0], str):
        text = np.asarray(ids, dtype=str)
        order = None
        if _INTEGER_LINES.fullmatch("\n".join(ids) + "\n"):
            try:
                order = np.lexsort((text, text.astype(np.int64)))
            except (ValueError, OverflowError):  # beyond 64 bits, or a line break in an id
                order = None
        if order is None:
            order = np.argsort(text, kind="stable")
    else:
        numbers = np.asarray(ids)
        if numbers.dtype.kind in "iu":
            order = np.argsort(numbers, kind="stable")
        else:  # integers beyond 64 bits
            order = np.asarray(sorted(range(len(ids)), key=ids.__getitem__))
    return None if np.array_equal(order, np.arange(len(ids))) else order


def _kind(measure: Measure) -> str:
    family = measure.family
    if family.text_valued:
        return "text"
    return "int" if family.integer else "float"


def _text_column(values: Any) -> list[str | None]:
    return [None if value is None else str(value) for value in values.tolist()]


def results_table(
    results: Mapping[str, ResultsLike],
    measures: Sequence[Measure] | None = None,
    *,
    per_query: bool = False,
    unjudged: bool = False,
) -> Table:
    """Lay out the results of one or more runs as one table.

    With *per_query*, the rows are produced in blocks, straight from the
    per-query arrays, when the table is written: its memory does not grow
    with the number of queries. The queries of each run are in numeric order
    when every id is an integer, else in the byte order of their ids
    (:func:`query_order`).

    Parameters
    ----------
    results : dict ``{name: Results}``
        The runs, in the order of the rows.
    measures : sequence of Measure, optional
        The columns, in order (default: the measures of the first run).
    per_query : bool
        One row per (run, query) followed by the run's means (query ``all``);
        otherwise one row of means per run.
    unjudged : bool
        After each measure, its value with the unjudged documents taken as
        relevant (``<measure> high``, from ``Results.unjudged``), and at the
        end judged@k at each cutoff of the measures.

    Returns
    -------
    Table
        Render it with :func:`rankwise.report.tables.render` (or write it in
        pieces with :func:`rankwise.report.tables.write_chunks`).

    Examples
    --------
    >>> import rankwise as rw
    >>> from rankwise.report.tables import render
    >>> r = rw.evaluate({"q1": {"a": 1}, "q2": {"b": 1}},
    ...                 {"q1": {"a": 1.0}, "q2": {"c": 1.0}}, ["P@1", "num_ret"])
    >>> print(render(results_table({"bm25": r}, per_query=True), "table"), end="")
    run   query     P@1  num_ret
    ----  -----  ------  -------
    bm25  q1     1.0000        1
    bm25  q2     0.0000        1
    bm25  all    0.5000        2
    """
    if measures is None:
        first = next(iter(results.values()), None)
        measures = list(first.measures) if first is not None else []
    measures = list(measures)
    if unjudged:
        return _bounds_table(results, measures, per_query)
    labels = [str(m) for m in measures]
    kinds = [_kind(m) for m in measures]
    header = ["run", "query", *labels] if per_query else ["run", *labels]
    lead = ["text"] * (len(header) - len(labels))

    def means(result: ResultsLike) -> list[float | None]:
        return [None if k == "text" else float(result.mean[label])
                for label, k in zip(labels, kinds)]

    if not per_query:
        rows: list[list[Any]] = [[name, *means(result)] for name, result in results.items()]
        return Table(header, lead + kinds, rows)

    step = block_rows(len(header))

    def blocks() -> Iterator[list[Any]]:
        for name, result in results.items():
            ids = result.query_ids
            order = query_order(ids)
            for start in range(0, len(ids), step):
                stop = min(start + step, len(ids))
                if order is None:
                    values = [result[m][start:stop] for m in measures]
                    shown = ids[start:stop]
                else:
                    rows = order[start:stop]
                    values = [result[m][rows] for m in measures]
                    shown = [ids[i] for i in rows.tolist()]
                yield [
                    [name] * (stop - start),
                    [str(qid) for qid in shown],
                    *(_text_column(v) if k == "text" else v for v, k in zip(values, kinds)),
                ]
            yield [[name], ["all"], *([value] for value in means(result))]

    return Table(header, lead + kinds, blocks=blocks)

def _bounds_table(
    results: Mapping[str, ResultsLike], measures: Sequence[Measure], per_query: bool
) -> Table:
    """Each measure, its value with unjudged documents relevant, and judged@k per cutoff."""
    import math

    numeric = [m for m in measures if not m.family.text_valued]
    cutoffs: dict[str, str] = {}
    for m in numeric:
        label = f"judged@{m.cutoff}" if m.cutoff is not None else "judged"
        cutoffs.setdefault(label, str(m))
    labels: list[str] = []
    for m in numeric:
        labels += [str(m), f"{m} high"]
    labels += list(cutoffs)
    header = ["run", "query", *labels] if per_query else ["run", *labels]
    kinds = ["text"] * (len(header) - len(labels)) + ["float"] * len(labels)
    table = Table(header, kinds)
    for name, result in results.items():
        report = result.unjudged
        if report is None:
            raise ValueError(f"run {name!r} was evaluated without unjudged='bounds'")
        columns: list[list[float]] = []
        means: list[float] = []
        for m in numeric:
            columns += [report.low[str(m)].tolist(), report.high[str(m)].tolist()]
            means += list(report.mean[str(m)])
        for first in cutoffs.values():
            values = report.judged[first]
            columns.append(values.tolist())
            means.append(float(values.mean()) if len(values) else math.nan)
        if per_query:
            order = query_order(result.query_ids)
            for index in range(len(result.query_ids)) if order is None else order.tolist():
                table.rows.append([name, str(result.query_ids[index]),
                                   *(float(col[index]) for col in columns)])
        table.rows.append([name, "all", *means] if per_query else [name, *means])
    return table

