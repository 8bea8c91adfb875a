""":class:`~rankwise.Results` as a table: means per run, or per-query values and means."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rankwise.report.tables import Table, block_rows

if TYPE_CHECKING:
    from rankwise.measures import Measure
    from rankwise.results import Results

__all__ = ["results_table"]


def _kind(measure: Measure) -> str:
    family = measure.family
    if family.text_valued:
        return "text"
    return "int" if family.integer else "float"


def _text_column(values: Any) -> list[str | None]:
    return [None if value is None else str(value) for value in values.tolist()]


def results_table(
    results: Mapping[str, Results],
    measures: Sequence[Measure] | None = None,
    *,
    per_query: bool = False,
    unjudged: bool = False,
) -> Table:
    """Lay out the results of one or more runs as one table.

    With *per_query*, the rows are produced in blocks, straight from the
    per-query arrays, when the table is written: its memory does not grow
    with the number of queries.

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

    def means(result: Results) -> list[float | None]:
        return [None if k == "text" else float(result.mean[label])
                for label, k in zip(labels, kinds)]

    if not per_query:
        rows: list[list[Any]] = [[name, *means(result)] for name, result in results.items()]
        return Table(header, lead + kinds, rows)

    step = block_rows(len(header))

    def blocks() -> Iterator[list[Any]]:
        for name, result in results.items():
            ids = result.query_ids
            for start in range(0, len(ids), step):
                stop = min(start + step, len(ids))
                values = [result[m][start:stop] for m in measures]
                yield [
                    [name] * (stop - start),
                    [str(qid) for qid in ids[start:stop]],
                    *(_text_column(v) if k == "text" else v for v, k in zip(values, kinds)),
                ]
            yield [[name], ["all"], *([value] for value in means(result))]

    return Table(header, lead + kinds, blocks=blocks)

def _bounds_table(
    results: Mapping[str, Results], measures: Sequence[Measure], per_query: bool
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
            for index, qid in enumerate(result.query_ids):
                table.rows.append([name, str(qid), *(float(col[index]) for col in columns)])
        table.rows.append([name, "all", *means] if per_query else [name, *means])
    return table

