""":class:`~rankwise.Results` as a table: means per run, or per-query values and means."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rankwise.report.tables import Table

if TYPE_CHECKING:
    from rankwise.measures import Measure
    from rankwise.results import Results

__all__ = ["results_table"]


def _kind(measure: Measure) -> str:
    family = measure.family
    if family.text_valued:
        return "text"
    return "int" if family.integer else "float"


def _cell(value: object, kind: str) -> str | float | int | None:
    if kind == "text":
        return None if value is None else str(value)
    return float(value)  # type: ignore[arg-type]


def results_table(
    results: Mapping[str, Results],
    measures: Sequence[Measure] | None = None,
    *,
    per_query: bool = False,
) -> Table:
    """Lay out the results of one or more runs as one table.

    Parameters
    ----------
    results : dict ``{name: Results}``
        The runs, in the order of the rows.
    measures : sequence of Measure, optional
        The columns, in order (default: the measures of the first run).
    per_query : bool
        One row per (run, query) followed by the run's means (query ``all``);
        otherwise one row of means per run.

    Returns
    -------
    Table
        Render it with :func:`rankwise.report.tables.render`.

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
    labels = [str(m) for m in measures]
    kinds = [_kind(m) for m in measures]
    header = ["run", "query", *labels] if per_query else ["run", *labels]
    table = Table(header, ["text"] * (len(header) - len(labels)) + kinds)
    for name, result in results.items():
        if per_query:
            columns = [result[m].tolist() for m in measures]
            for index, qid in enumerate(result.query_ids):
                table.rows.append(
                    [name, str(qid), *(_cell(col[index], k) for col, k in zip(columns, kinds))]
                )
        means = [
            None if k == "text" else float(result.mean[label]) for label, k in zip(labels, kinds)
        ]
        table.rows.append([name, "all", *means] if per_query else [name, *means])
    return table
