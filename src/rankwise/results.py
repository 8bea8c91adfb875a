"""``Results``: per-query values (queries x measures) and their aggregates."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._tabular import Tabular
from rankwise._wording import counted
from rankwise.measures.spec import Measure

if TYPE_CHECKING:
    import pandas as pd

    from rankwise.report.tables import Table

__all__ = ["MIN_GEOMETRIC_VALUE", "Results", "TieReport", "UnjudgedBounds", "aggregate"]

MIN_GEOMETRIC_VALUE = 1e-5
"""Values below this are raised to it before a geometric mean (trec_eval's MIN_GEO_MEAN)."""


def aggregate(measure: Measure, values: np.ndarray, counted: np.ndarray | None = None, *,
              sequential: bool = False) -> float:
    """Aggregate per-query *values* of *measure* over queries.

    Arithmetic mean for most measures, geometric mean (values floored at
    1e-5) for ``gm_map`` and ``gm_bpref``, sum for the ``num_*`` counts.
    NaN for an empty set of queries. With *counted*, only the queries it
    marks count (a dialect may leave queries out); a dialect that rounds
    its means (BEIR, MTEB) rounds this one. *sequential*: the values are
    added one after another in their order, as trec_eval accumulates them
    (numpy's pairwise sum can differ in the last bit, and a mean that lands
    on a half, 0.21875, then prints another fourth decimal).
    """
    kind = measure.family.aggregate
    if kind == "none":
        return math.nan
    if counted is not None:
        values = values[counted]

    def total(array: np.ndarray) -> float:
        if sequential:
            return float(np.cumsum(array)[-1]) if len(array) else 0.0
        return float(array.sum())

    if kind == "sum":
        return total(values)
    if len(values) == 0:
        return math.nan
    if kind == "gmean":
        return float(np.exp(total(np.log(np.maximum(values, MIN_GEOMETRIC_VALUE))) / len(values)))
    mean = total(values) / len(values)
    if "dialect" in measure.family.params:
        from rankwise.measures.dialects import conventions_of

        digits = conventions_of(measure).round
        if digits is not None:
            mean = round(mean, digits)
    return mean


@dataclass(frozen=True)
class TieReport:
    """How much tied scores could change the result.

    Attributes
    ----------
    policy : str
        The tie policy used for the values.
    queries_straddling_cutoff : int
        Queries with a tie group holding a judged document that straddles a
        cutoff of the measures (or the depth cut).
    queries_mixed : int
        Queries with a tie group holding a relevant document and at least one
        document that is not relevant.
    bounds : dict
        Per measure, the mean under ``ties="worst"`` and ``ties="best"``
        (empty when no judged document is tied).
    queries_tied : int
        Queries with either kind of tie group above (each query once).
    """

    policy: str
    queries_straddling_cutoff: int
    queries_mixed: int
    bounds: dict[str, tuple[float, float]]
    queries_tied: int = 0

    def spread(self, measure: str) -> float:
        """The best minus the worst mean of *measure* (0 without ties)."""
        low, high = self.bounds.get(measure, (0.0, 0.0))
        return high - low

    def changed_digits(self, digits: int = 4) -> list[str]:
        """Measures whose worst and best means differ when printed with *digits* decimals."""
        return [
            name
            for name, (low, high) in self.bounds.items()
            if f"{low:.{digits}f}" != f"{high:.{digits}f}"
        ]


def _fits_int64(values: list[Any]) -> bool:
    limit = 1 << 63
    return all(-limit <= value < limit for value in values)


def _as_integer_ids(
    query_ids: list[str], values: dict[Measure, np.ndarray]
) -> tuple[list[int], dict[Measure, np.ndarray], np.ndarray | None]:
    """Text ids back to integers, the queries in numeric order (values permuted alike)."""
    numbers = list(map(int, query_ids))
    if _fits_int64(numbers):
        order = np.argsort(np.array(numbers, dtype=np.int64), kind="stable")
    else:
        order = np.array(sorted(range(len(numbers)), key=numbers.__getitem__), dtype=np.int64)
    if len(order) and (np.diff(order) == 1).all():
        return numbers, values, None
    numbers = [numbers[i] for i in order.tolist()]
    return numbers, {measure: array[order] for measure, array in values.items()}, order


@dataclass(frozen=True)
class UnjudgedBounds:
    """Each measure with the unjudged retrieved documents taken as not relevant, and as relevant.

    ``unjudged="bounds"``: ``low`` is the usual value (unjudged documents
    are not relevant); ``high`` is the value when every unjudged document
    retrieved is relevant at ``top_grade`` (the top grade of the judgments)
    to every subtopic of its query, counted in R and in the ideal ranking,
    and, for the measures of an endless ranking (``rbp`` and the C/W/L
    family), when the documents past the end of the ranking are too. For a
    measure normalised by an ideal ranking the high value can be the lower
    one (the ideal gains as well).

    Attributes
    ----------
    low, high : dict
        Canonical name -> per-query values (aligned with ``Results.query_ids``).
    judged : dict
        Canonical name -> per-query judged@k at the measure's cutoff k
        (judged documents in the top k / k; without a cutoff, judged
        documents retrieved / retrieved).
    mean : dict
        Canonical name -> (aggregate of low, aggregate of high).
    top_grade : float
        The grade given to unjudged documents in ``high``.

    Examples
    --------
    >>> import rankwise as rw
    >>> r = rw.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 3.0, "x": 2.0, "b": 1.0}},
    ...                 ["P@3", "rbp(p=0.5)"], unjudged="bounds")
    >>> r.unjudged.mean["P@3"], r.unjudged.width("P@3"), r.unjudged.judged["P@3"].tolist()
    ((0.3333333333333333, 0.6666666666666666), 0.3333333333333333, [0.6666666666666666])
    >>> r.unjudged.mean["rbp(p=0.5)"]
    (0.5, 0.875)
    """

    low: dict[str, np.ndarray]
    high: dict[str, np.ndarray]
    judged: dict[str, np.ndarray]
    mean: dict[str, tuple[float, float]]
    top_grade: float

    def reordered(self, order: np.ndarray) -> UnjudgedBounds:
        """The same bounds with the queries taken in *order* (as the results' values)."""
        return UnjudgedBounds(
            low={name: array[order] for name, array in self.low.items()},
            high={name: array[order] for name, array in self.high.items()},
            judged={name: array[order] for name, array in self.judged.items()},
            mean=self.mean,
            top_grade=self.top_grade,
        )

    def width(self, measure: str) -> float:
        """The high mean minus the low mean of *measure*."""
        low, high = self.mean[measure]
        return high - low


class Results(Tabular, Mapping[str, np.ndarray]):
    """Per-query values of each measure, and their means.

    A read-only mapping from a measure's canonical name to its per-query
    values (a float64 array aligned with :attr:`query_ids`).

    Attributes
    ----------
    query_ids : list of str or list of int
        Evaluated queries, in byte order of their ids (trec_eval's order);
        integers in numeric order when the judgments gave them as integers
        (a dict's keys, a frame's integer column: :attr:`query_id_type`).
    query_id_type : type
        ``int`` when the judgments gave their query ids as integers, else ``str``.
    measures : list of Measure
        The measures, in the order asked for.
    mean : dict
        Canonical name -> aggregate over queries (arithmetic mean; geometric
        for ``gm_*``; sum for ``num_*``).
    run_name : str
        Name of the evaluated run.
    ties : TieReport
        Queries whose tie groups matter, and best/worst bounds per measure
        (computed when first asked for).
    missing_queries : int
        Judged queries the run does not hold.
    unjudged_queries : int
        Queries of the run the judgments do not hold (ignored).
    max_grade : float or None
        The highest grade judged for the evaluated queries (None when not
        known): a measure whose ``rel`` is above it counts nothing as relevant.
    notes : tuple of str
        What to tell the user once about these values (for example that the
        exponential gain of ``ndcg`` met graded judgments, where other tools
        use the linear gain). ``rankwise.evaluate`` gives each as a
        :class:`~rankwise.exceptions.RankwiseWarning`; the command line prints
        them under the table.
    unjudged : UnjudgedBounds or None
        With ``unjudged="bounds"``: each measure with the unjudged documents
        taken as not relevant (low, the values) and as relevant (high).
    plan : str
        How the values were computed, when there is something to say: on
        Spark, the strategy chosen and why (and first, when the inputs chose
        the engine, that: ``"engine spark: chosen for the inputs (...)"``);
        empty in this process.

    Notes
    -----
    Like every result of rankwise it has ``to_dict``, ``to_pandas``,
    ``to_polars``, ``to_table`` and ``table``, shows as a table in a notebook
    and pickles (:class:`rankwise._tabular.Tabular`).

    A query a measure does not count has the value NaN for it and is left
    out of its mean: a dialect that leaves empty queries out (Microsoft
    Recommenders, ``empty=skip``), or a judged query absent from the run
    when another measure of the same evaluation counts those (BEIR's MRR).
    :meth:`counted` says which queries each mean counts.
    """

    def __init__(
        self,
        query_ids: list[Any],
        values: dict[Measure, np.ndarray],
        *,
        run_name: str = "run",
        missing_queries: int = 0,
        unjudged_queries: int = 0,
        ties: TieReport | Callable[[], TieReport] | None = None,
        counted: dict[Measure, np.ndarray] | None = None,
        query_id_type: type | None = None,
        max_grade: float | None = None,
        notes: tuple[str, ...] = (),
        unjudged: UnjudgedBounds | None = None,
        plan: str = "",
    ) -> None:
        if query_id_type is int:
            text_ids = list(query_ids)
            query_ids, values, order = _as_integer_ids(text_ids, values)
            if counted:  # permuted alike
                counted = _as_integer_ids(text_ids, counted)[1]
            if unjudged is not None and order is not None:
                unjudged = unjudged.reordered(order)
        self.query_ids: list[Any] = list(query_ids)
        self.query_id_type = int if query_id_type is int else str
        self.measures = list(values)
        self._values = values
        self._counted = {m: mask for m, mask in (counted or {}).items() if not mask.all()}
        for mask in self._counted.values():
            mask.flags.writeable = False
        self._by_name = {str(m): m for m in values}
        for array in values.values():
            array.flags.writeable = False
        self.run_name = run_name
        self.missing_queries = missing_queries
        self.unjudged_queries = unjudged_queries
        # a report, or how to make it when first asked for (it evaluates twice more)
        self._ties = ties if ties is not None else TieReport("trec", 0, 0, {})
        self.max_grade = max_grade
        self.notes = tuple(notes)
        self.unjudged = unjudged
        self.plan = plan
        self.mean = {str(m): aggregate(m, v, self._counted.get(m)) for m, v in values.items()}

    def accumulated_mean(self, measure: str | Measure) -> float:
        """The mean of *measure* as trec_eval accumulates it: values added in query order.

        :attr:`mean` adds them pairwise (numpy's sum, the more accurate); the
        two can differ in the last bit, which shows where a mean lands on a
        half of the printed digits. ``rankwise trec-eval`` prints this one.

        Examples
        --------
        >>> import rankwise as rw
        >>> qrels = {f"q{i}": {"r": 1} for i in range(8)}
        >>> ranks = [None, None, None, 2, 3, 3, 3, 4]  # of "r": 1/rank, 0 where not retrieved
        >>> run = {f"q{i}": {"x": 1.0} if rank is None else
        ...        {**{f"x{j}": 9.0 - j for j in range(rank - 1)}, "r": 0.0}
        ...        for i, rank in enumerate(ranks)}
        >>> results = rw.evaluate(qrels, run, "mrr")
        >>> f"{results.mean['mrr']:.4f}", f"{results.accumulated_mean('mrr'):.4f}"
        ('0.2188', '0.2187')
        """
        m = self._by_name[str(measure)] if not isinstance(measure, Measure) else measure
        return aggregate(m, self._values[m], self._counted.get(m), sequential=True)

    @property
    def ties(self) -> TieReport:
        """Queries whose tie groups matter, and best/worst bounds per measure.

        Computed when first asked for: the bounds evaluate every measure
        under ``ties="worst"`` and ``ties="best"``.
        """
        if not isinstance(self._ties, TieReport):
            self._ties = self._ties()
        return self._ties

    def __getstate__(self) -> dict[str, Any]:
        """The state to pickle: the tie report made now, so nothing of the engine goes along.

        The report is made from the ranking the results came from, which a
        copy in another process no longer has (results sent back from a
        ``multiprocessing`` pool, under fork, spawn or forkserver alike).
        """
        state = dict(self.__dict__)
        state["_ties"] = self.ties
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for array in (*self._values.values(), *self._counted.values()):
            if isinstance(array, np.ndarray):
                array.flags.writeable = False  # read-only, as when made

    # mapping protocol ----------------------------------------------------------
    def _measure(self, key: str | Measure) -> Measure:
        if isinstance(key, Measure):
            if key in self._values:
                return key
            key = str(key)
        if key in self._by_name:
            return self._by_name[key]
        from rankwise.measures import parse

        measure = parse(key)
        if measure not in self._values:
            known = ", ".join(self._by_name)
            raise KeyError(f"measure {key!r} was not evaluated; evaluated: {known}")
        return measure

    def __getitem__(self, key: str | Measure) -> np.ndarray:
        return self._values[self._measure(key)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._values)

    @property
    def n_queries(self) -> int:
        """Number of evaluated queries."""
        return len(self.query_ids)

    def counted(self, measure: str | Measure) -> np.ndarray:
        """Which queries the mean of *measure* counts (a boolean array, all True usually).

        Examples
        --------
        >>> import rankwise as rw
        >>> qrels = {"q1": {"a": 1}, "q2": {"b": 0}}
        >>> run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
        >>> r = rw.evaluate(qrels, run, ["P@1(dialect=recommenders)"])
        >>> r.counted("P@1(dialect=recommenders)").tolist(), r["P@1(dialect=recommenders)"]
        ([True, False], array([ 1., nan]))
        >>> r.mean
        {'P@1(dialect=recommenders)': 1.0}
        """
        measure_obj = self._measure(measure)
        mask = self._counted.get(measure_obj)
        return mask if mask is not None else np.ones(self.n_queries, dtype=bool)

    def value(self, measure: str | Measure, query_id: Any) -> float:
        """The value of *measure* for one query (an integer id also by its text).

        Raises
        ------
        KeyError
            The query was not evaluated; when the ids are text and *query_id*
            is not (``1`` for ``"1"``), the message says so.

        Examples
        --------
        >>> import rankwise as rw
        >>> r = rw.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["map"])
        >>> r.value("map", "1")
        1.0
        >>> r.value("map", 1)
        Traceback (most recent call last):
        ...
        KeyError: "query 1 was not evaluated; query ids are text: did you mean '1'?"
        """
        try:
            index = self.query_ids.index(query_id)
        except ValueError:
            index = -1
            if self.query_id_type is int and isinstance(query_id, str):
                with contextlib.suppress(ValueError):
                    index = self.query_ids.index(int(query_id))
            if index < 0:
                hint = ""
                if (self.query_id_type is str and not isinstance(query_id, str)
                        and str(query_id) in self.query_ids):
                    hint = f"; query ids are text: did you mean {str(query_id)!r}?"
                raise KeyError(f"query {query_id!r} was not evaluated{hint}") from None
        return float(self[measure][index])

    # conversions ---------------------------------------------------------------
    def to_dict(self) -> dict[str, dict[Any, float]]:
        """Return ``{measure: {query_id: value}}`` (integer ids as integers)."""
        return {
            name: dict(zip(self.query_ids, self._values[m].tolist()))
            for name, m in self._by_name.items()
        }

    def to_pandas(self) -> pd.DataFrame:
        """Return a DataFrame: one row per query (index ``query_id``), one column per measure."""
        try:
            import pandas as pd
        except ImportError as error:  # pragma: no cover - depends on the environment
            from rankwise.exceptions import MissingDependencyError

            raise MissingDependencyError(
                "Results.to_pandas needs pandas: pip install 'rankwise[pandas]'"
            ) from error
        frame = pd.DataFrame(
            {name: self._values[m] for name, m in self._by_name.items()},
            index=pd.Index(self.query_ids, name="query_id"),
        )
        return frame

    def to_polars(self) -> Any:
        """Return a polars DataFrame: a ``query_id`` column, then one column per measure.

        Query ids are integers (``Int64``) when :attr:`query_id_type` is ``int``.

        Examples
        --------
        >>> import rankwise as rw
        >>> r = rw.evaluate({7: {"a": 1}, 10: {"b": 1}}, {7: {"a": 1.0}, 10: {"a": 1.0}}, "P@1")
        >>> r.to_polars().rows()
        [(7, 1.0), (10, 0.0)]
        """
        try:
            import polars as pl
        except ImportError as error:  # pragma: no cover - depends on the environment
            from rankwise.exceptions import MissingDependencyError

            raise MissingDependencyError(
                "Results.to_polars needs polars: pip install 'rankwise[polars]'"
            ) from error
        if self.query_id_type is int and _fits_int64(self.query_ids):
            ids = pl.Series("query_id", self.query_ids, dtype=pl.Int64)
        else:
            ids = pl.Series("query_id", [str(q) for q in self.query_ids], dtype=pl.Utf8)
        columns = [pl.Series(name, self._values[m]) for name, m in self._by_name.items()]
        return pl.DataFrame([ids, *columns])

    def to_table(self, fmt: str = "table", *, per_query: bool = False, digits: int = 4) -> str:
        """The results as text: a table of means (or per-query values and means).

        Parameters
        ----------
        fmt : {"table", "tsv", "csv", "json", "jsonl", "markdown", "latex"}
            The format (see :mod:`rankwise.report.tables`): ``tsv``, ``csv``
            and the JSON formats keep full precision, the others round to
            *digits* decimals.
        per_query : bool
            One row per query, then the means (query ``all``).
        digits : int
            Decimals in the ``table``, ``markdown`` and ``latex`` formats.

        Returns
        -------
        str

        Examples
        --------
        >>> import rankwise as rw
        >>> r = rw.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["P@1", "map"])
        >>> print(r.to_table("markdown"), end="")
        | run |    P@1 |    map |
        | :-- | -----: | -----: |
        | run | 1.0000 | 1.0000 |
        """
        from rankwise.report.tables import render

        return render(self.table(per_query=per_query), fmt, digits=digits)

    def table(self, *, per_query: bool = False) -> Table:
        """The means as a :class:`rankwise.report.tables.Table` (with *per_query*, every query).

        One row of means (column ``run``, then one per measure); with
        *per_query*, a row per query (column ``query``), then the means
        (query ``all``), produced block by block as it is written.
        """
        from rankwise.report.result_tables import results_table

        return results_table({self.run_name: self}, self.measures, per_query=per_query)

    def _caption(self) -> str:
        return f"Results({self.run_name!r}, {counted(self.n_queries, 'query')})"

    def plot(
        self,
        kind: str = "distribution",
        measure: str | Measure | None = None,
        *,
        ax: Any = None,
        **kwargs: Any,
    ) -> Any:
        """Plot the results: the distribution of per-query values, or a measure over k.

        A thin wrapper of :func:`rankwise.report.plot_results` (needs matplotlib:
        ``pip install 'rankwise[plot]'``).

        Parameters
        ----------
        kind : {"distribution", "curves"}
            Per-query values of *measure* (``style="box"`` for box plots), or the
            mean of a family (``"ndcg"``, ``"P"``) at each cutoff evaluated.
        measure : str or Measure, optional
            Default: the first measure (for curves, the first evaluated at several cutoffs).
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        **kwargs
            Passed to the display's ``plot``.

        Returns
        -------
        DistributionDisplay or CurvesDisplay
            Holding ``figure_`` and ``ax_``.
        """
        from rankwise.report.plots import plot_results

        return plot_results(self, kind, measure, ax=ax, **kwargs)

    def __repr__(self) -> str:
        width = max([len(name) for name in self._by_name] + [7])
        lines = [self._caption()]
        for name, m in self._by_name.items():
            value = self.mean[name]
            text = f"{int(value)}" if m.family.integer and not math.isnan(value) else f"{value:.4f}"
            lines.append(f"  {name:<{width}}  {text}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        rows = "".join(
            f"<tr><td>{escape(name)}</td><td>{self.mean[name]:.4f}</td></tr>"
            for name in self._by_name
        )
        return (
            f"<table><caption>{escape(str(self.run_name))}: "
            f"{counted(self.n_queries, 'query')}</caption>"
            f"<tr><th>measure</th><th>mean</th></tr>{rows}</table>"
        )

    def __eq__(self, other: Any) -> bool:
        return self is other

    __hash__ = object.__hash__
