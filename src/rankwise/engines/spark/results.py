"""``SparkResults``: per-query values as a Spark DataFrame, means as a dict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._tabular import Tabular

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import Column, DataFrame

    from rankwise.measures import Measure
    from rankwise.report.tables import Cell, Table
    from rankwise.results import Results

__all__ = ["SparkResults"]


class SparkResults(Tabular):
    """The outcome of :func:`rankwise.spark.evaluate`.

    Like every result it has ``to_dict``, ``to_pandas`` and ``to_polars``
    (per query, as :class:`~rankwise.Results`: they collect
    :attr:`per_query`), ``to_table`` and :meth:`table` (the means), shows as
    a table in a notebook, and pickles: a pickled copy holds the values
    collected (:meth:`to_results`), its :attr:`per_query` is None (a Spark
    DataFrame lives in its session).

    Attributes
    ----------
    per_query : pyspark.sql.DataFrame
        One row per evaluated query: the query id column (named as the
        ``query=`` argument, ``query_id`` by default, string) and one column
        per measure, named by the measure's canonical name (``ndcg@10``,
        ``ndcg@10(gain=linear)``, ``P@5``); float64, string for ``relstring``.
        Rows come in no particular order. Names with ``@``, ``.`` or
        parentheses need backquotes in SQL and in ``sf.col``:
        ``sf.col("`ndcg@10`")``, or use :meth:`column`.
    mean : dict
        Canonical name -> aggregate over queries, as ``Results.mean``
        (arithmetic mean; geometric for ``gm_*``; sum for ``num_*``).
    measures : list of Measure
        The measures, in the order asked for.
    strategy : str
        ``"ranks"`` or ``"partitions"``: how it was computed.
    unjudged_queries, missing_queries : int or None
        Queries of the run without judgments (ignored), judged queries
        absent from the run.
    plan : str
        The plan that ran and why it was chosen (sizes, estimated costs),
        for example ``"ranks: the judgments: 8,435 rows, ~0.3 MiB; second
        scan offers ~1.1 intervals per row"``.
    run_name : str
        The run's name (a file's run id or stem, the name given, or ``run_df``).
    """

    def __init__(
        self,
        per_query: DataFrame,
        mean: dict[str, float],
        measures: list[Measure],
        *,
        strategy: str,
        query: str,
        local: Results | None = None,
        unjudged_queries: int | None = None,
        missing_queries: int | None = None,
        cached: DataFrame | None = None,
        plan: str = "",
        run_name: str = "",
    ) -> None:
        self.run_name = run_name
        self.per_query = per_query
        self.mean = mean
        self.measures = list(measures)
        self.strategy = strategy
        self.query = query
        self.unjudged_queries = unjudged_queries
        self.missing_queries = missing_queries
        self.plan = plan or strategy
        self._local = local
        self._cached = cached

    @staticmethod
    def column(name: str) -> Column:
        """The column of measure *name* in :attr:`per_query`, quoted as needed."""
        from rankwise.engines.spark._frames import column

        return column(name)

    def to_results(self, run_name: str | None = None) -> Results:
        """The same values as a :class:`rankwise.Results` (collects :attr:`per_query`).

        Use it for the statistics and reports of the numpy side; it brings
        one row per query to the driver. *run_name* sets ``Results.run_name``.
        """
        if self._local is None:
            self._local = self._collect()
        if run_name is not None:
            self._local.run_name = run_name
        return self._local

    def _collect(self) -> Results:
        from rankwise.engines.spark._frames import column, to_arrow
        from rankwise.results import Results

        table = to_arrow(self.per_query.orderBy(column(self.query)))
        values: dict[Any, np.ndarray] = {}
        for measure in self.measures:
            values[measure] = table[str(measure)].to_numpy(zero_copy_only=False)
        return Results(
            table[self.query].to_pylist(),
            values,
            unjudged_queries=self.unjudged_queries or 0,
            missing_queries=self.missing_queries or 0,
        )

    def to_dict(self) -> dict[str, Any]:
        """``{measure: {query_id: value}}``, as ``Results.to_dict`` (collects the values)."""
        return self.to_results().to_dict()

    def to_pandas(self) -> pd.DataFrame:
        """One row per query, one column per measure, as ``Results.to_pandas`` (collects)."""
        return self.to_results().to_pandas()

    def to_polars(self) -> Any:
        """One row per query, as ``Results.to_polars`` (collects the values)."""
        return self.to_results().to_polars()

    def table(self) -> Table:
        """The means: one row, one column per measure (no collect)."""
        from rankwise.report.tables import Table

        kinds = ["text" if m.family.text_valued else "int" if m.family.integer else "float"
                 for m in self.measures]
        means: list[Cell] = [None if kind == "text" else self.mean[str(m)]
                 for m, kind in zip(self.measures, kinds)]
        return Table([str(m) for m in self.measures], kinds, [means])

    def _caption(self) -> str:
        return f"SparkResults(strategy={self.strategy!r})"

    def __getstate__(self) -> dict[str, Any]:
        """The values collected; the Spark DataFrames stay in their session."""
        state = dict(self.__dict__)
        state["_local"] = self.to_results()
        state["per_query"] = None
        state["_cached"] = None
        return state

    def unpersist(self) -> None:
        """Release the cached per-query values (the ``partitions`` strategy caches them)."""
        if self._cached is not None:
            self._cached.unpersist()

    def __repr__(self) -> str:
        width = max([len(str(m)) for m in self.measures] + [7])
        lines = [self._caption()]
        for measure in self.measures:
            name = str(measure)
            value = self.mean[name]
            text = f"{int(value)}" if measure.family.integer and value == value else f"{value:.4f}"
            lines.append(f"  {name:<{width}}  {text}")
        return "\n".join(lines)
