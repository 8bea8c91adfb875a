"""``explain``: why two tools give different numbers, convention by convention.

:func:`explain` evaluates one measure in two dialects (see
:mod:`rankwise.measures.dialects`), then switches the conventions of the
first to the second's one at a time, in the order they apply
(:data:`rankwise.measures.dialects.ORDER`), and reports for each the queries
it changes and its part of the difference between the two means. The parts
are differences of consecutive means, so they add up to the whole
difference exactly (as fractions: every float is one). A query changes when
its value moves by more than a tolerance (by default half a unit of the
fourth decimal, the last one printed): floating-point noise (1e-16) is not a
change.

With ``measured=``, it finds which dialect gives a number a tool printed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._tabular import Tabular
from rankwise._validation import Number, check, reject
from rankwise.engines.core import Evaluator
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure, parse
from rankwise.measures.dialects import (
    DEFAULT_DIALECT,
    DIALECTS,
    Conventions,
    conventions_of,
    describe,
    read_dialect,
)
from rankwise.options import EvalOptions, Missing, Ties, Unjudged, options_from
from rankwise.results import aggregate

if TYPE_CHECKING:
    from rankwise.report.tables import Table

__all__ = ["CHANGE_TOLERANCE", "Candidate", "Explanation", "Matches", "Step", "explain"]

CHANGE_TOLERANCE = 5e-05
"""How much a query's value must move to count as changed, by default: half a unit of the
fourth decimal, the last one the text prints (``--digits`` sets another on the command line)."""


# a difference of two means this small (relative) is the rounding of their sums
_ROUNDING = 1e-12

@dataclass(frozen=True)
class Step:
    """One convention switched from the first dialect's value to the second's.

    Attributes
    ----------
    convention : str
        The field of :class:`~rankwise.measures.dialects.Conventions`.
    before, after : Any
        Its value in the first dialect and in the second.
    mean : float
        The mean once this convention (and those before it) are switched.
    delta : Fraction
        The mean after the switch minus the mean before it, exactly.
    queries_changed : int
        Queries whose value the switch moves by more than the explanation's
        tolerance, or whether the mean counts them.
    family : str
        The measure family (some conventions read differently for some).
    """

    convention: str
    before: Any
    after: Any
    mean: float
    delta: Fraction
    queries_changed: int
    family: str = ""

    @property
    def text(self) -> str:
        """The switch in words."""
        before = describe(self.convention, self.before, self.family)
        return f"{before} -> {describe(self.convention, self.after, self.family)}"


@dataclass(frozen=True)
class Explanation(Tabular):
    """The difference between two dialects' means of one measure, split by convention.

    Its :meth:`table` is one row per convention switched; :meth:`to_text`
    (and the ``repr``) adds the total. Like every result it has ``to_dict``,
    ``to_pandas``, ``to_polars``, ``to_table``, shows as a table in a notebook
    and pickles.

    Attributes
    ----------
    measure : Measure
        The measure, in rankwise's dialect.
    dialects : tuple of str
        The two dialects, from and to.
    measures : tuple of Measure
        The measure in each dialect.
    means : tuple of float
        Its mean in each dialect (what ``rw.evaluate`` gives).
    steps : list of Step
        One per convention that differs, in the order they apply. Their
        deltas add up to :attr:`difference` exactly.
    n_queries : int
        Queries evaluated.
    tolerance : float
        How much a query's value must move for a step to change it (by
        default 5e-05, half a unit of the fourth decimal).
    """

    measure: Measure
    dialects: tuple[str, str]
    measures: tuple[Measure, Measure]
    means: tuple[float, float]
    steps: list[Step]
    n_queries: int
    tolerance: float = CHANGE_TOLERANCE

    @property
    def difference(self) -> Fraction:
        """The second mean minus the first, exactly."""
        return Fraction(self.means[1]) - Fraction(self.means[0])

    def share(self, step: Step) -> float:
        """The part of the difference *step* accounts for (NaN when the means are equal).

        Means within 1e-12 of each other (relative to the larger, at least 1) are
        equal: such a difference is the rounding of the two sums, which add the
        same values in another order, and no step accounts for a share of it.
        """
        total = self.difference
        scale = max(1.0, abs(self.means[0]), abs(self.means[1]))
        return float(step.delta / total) if abs(total) > _ROUNDING * scale else math.nan

    def to_dict(self) -> dict[str, Any]:
        """The explanation as plain data (for JSON)."""
        return {
            "measure": str(self.measure),
            "from": {"dialect": self.dialects[0], "measure": str(self.measures[0]),
                     "mean": self.means[0]},
            "to": {"dialect": self.dialects[1], "measure": str(self.measures[1]),
                   "mean": self.means[1]},
            "difference": float(self.difference),
            "queries": self.n_queries,
            "steps": [
                {
                    "convention": step.convention,
                    "from": _plain(step.before),
                    "to": _plain(step.after),
                    "change": step.text,
                    "queries_changed": step.queries_changed,
                    "mean": step.mean,
                    "delta": float(step.delta),
                    "share": self.share(step),
                }
                for step in self.steps
            ],
        }

    def table(self) -> Table:
        """One row per convention switched: the change, the queries it moves, its part."""
        from rankwise.report.tables import Table

        table = Table(["convention", "change", "queries_changed", "mean", "delta", "share"],
                      ["text", "text", "int", "float", "float", "float"])
        for step in self.steps:
            table.rows.append([step.convention, step.text, step.queries_changed, step.mean,
                               float(step.delta), self.share(step)])
        return table

    def _caption(self, digits: int = 4) -> str:
        a, b = self.dialects
        return (f"{self.measure} on {self.n_queries} quer{'y' if self.n_queries == 1 else 'ies'}: "
                f"{a} {self.means[0]:.{digits}f}, "
                f"{b} {self.means[1]:.{digits}f} (difference {float(self.difference):+.{digits}f})")

    def to_text(self, digits: int = 4) -> str:
        """A table: one row per convention switched, then the total."""
        a, b = self.dialects
        lines = [self._caption(digits)]
        if not self.steps:
            lines.append(f"{a} and {b} follow the same conventions for {self.measure.name}.")
            return "\n".join(lines) + "\n"
        rows = [("convention", "change", "queries", "mean after", "part", "share")]
        for step in self.steps:
            share = self.share(step)
            rows.append((
                step.convention,
                step.text,
                str(step.queries_changed),
                f"{step.mean:.{digits}f}",
                f"{float(step.delta):+.{digits}f}",
                "" if math.isnan(share) else f"{share:.1%}",
            ))
        rows.append(("total", f"{a} -> {b}", "", f"{self.means[1]:.{digits}f}",
                     f"{float(self.difference):+.{digits}f}",
                     "" if self.difference == 0 else "100.0%"))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        numeric = {2, 3, 4, 5}
        for index, row in enumerate(rows):
            cells = [
                cell.rjust(width) if i in numeric else cell.ljust(width)
                for i, (cell, width) in enumerate(zip(row, widths))
            ]
            lines.append("  " + "  ".join(cells).rstrip())
            if index == 0 or index == len(rows) - 2:
                lines.append("  " + "  ".join("-" * width for width in widths))
        tolerance = _tolerance_text(self.tolerance, digits)
        lines.append(f"  queries: those whose value the step moves by more than {tolerance}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return self.to_text().rstrip("\n")


@dataclass(frozen=True)
class Candidate:
    """A dialect (and a tool option) and the mean it gives.

    Attributes
    ----------
    measure : Measure
        The measure in that dialect.
    dialect : str
        The dialect.
    option : str
        The tool's option it follows ("" for the tool's defaults).
    mean : float
        Its mean.
    difference : float
        Its mean minus the measured number.
    """

    measure: Measure
    dialect: str
    option: str
    mean: float
    difference: float


@dataclass(frozen=True, repr=False)
class Matches(Tabular):
    """Which dialects give a number a tool printed.

    Its :meth:`table` is one row per candidate, nearest first; like every
    result it has ``to_dict``, ``to_pandas``, ``to_polars``, ``to_table``,
    shows as a table in a notebook and pickles.

    Attributes
    ----------
    measured : float or str
        The number, as given.
    tolerance : float
        How close a mean must be to match (half a unit of the number's last
        printed decimal, unless given).
    candidates : list of Candidate
        Every dialect (and tool option) that has the measure, nearest first.
    """

    measure: Measure
    measured: float | str
    tolerance: float
    candidates: list[Candidate]

    @property
    def matches(self) -> list[Candidate]:
        """The candidates within the tolerance."""
        return [c for c in self.candidates if abs(c.difference) <= self.tolerance]

    def to_dict(self) -> dict[str, Any]:
        """The matches as plain data (for JSON)."""
        return {
            "measure": str(self.measure),
            "measured": float(self.measured),
            "tolerance": self.tolerance,
            "candidates": [
                {"measure": str(c.measure), "dialect": c.dialect, "option": c.option,
                 "mean": c.mean, "difference": c.difference,
                 "match": abs(c.difference) <= self.tolerance}
                for c in self.candidates
            ],
        }

    def table(self) -> Table:
        """One row per candidate (dialect and tool option), nearest first."""
        from rankwise.report.tables import Table

        table = Table(["measure", "dialect", "option", "mean", "difference", "match"],
                      ["text", "text", "text", "float", "float", "text"])
        for c in self.candidates:
            table.rows.append([str(c.measure), c.dialect, c.option, c.mean, c.difference,
                               "true" if abs(c.difference) <= self.tolerance else "false"])
        return table

    def _caption(self) -> str:
        found = len(self.matches)
        return (f"Matches({self.measured} for {self.measure}: "
                f"{found} within {self.tolerance:.1g})")

    def to_text(self, digits: int = 6) -> str:
        """What matches, then the nearest others."""
        lines = []
        matching = self.matches
        head = f"your number {self.measured} for {self.measure}"
        if matching:
            for c in matching:
                lines.append(
                    f"{head} matches dialect {c.dialect}{_option(c)}: {c.measure} = "
                    f"{c.mean:.{digits}f} (to {_order(c.difference, self.tolerance)})"
                )
        else:
            lines.append(f"{head} matches no dialect within {self.tolerance:.1g}")
        others = [c for c in self.candidates if c not in matching][:5]
        if others:
            lines.append("nearest others:")
            width = max(len(str(c.measure)) for c in others)
            lines.extend(
                f"  {c.measure!s:<{width}}  {c.mean:.{digits}f}  ({c.difference:+.2e})"
                f"{_option(c)}"
                for c in others
            )
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()


def _tolerance_text(tolerance: float, digits: int) -> str:
    """The tolerance in words: '5e-05 (half a unit of the last decimal shown)', or the number.

    Examples
    --------
    >>> _tolerance_text(5e-05, 4), _tolerance_text(1e-09, 4)
    ('5e-05 (half a unit of the last decimal shown)', '1e-09')
    """
    shown = f"{tolerance:g}"
    if math.isclose(tolerance, 0.5 * 10.0 ** -digits, rel_tol=1e-9):
        return f"{shown} (half a unit of the last decimal shown)"
    return shown


def _option(c: Candidate) -> str:
    return f" with {c.option}" if c.option else ""


def _order(difference: float, tolerance: float) -> str:
    """How close, in words: '1e-07', or 'every digit' for an exact match."""
    size = abs(difference)
    if size == 0:
        return "every digit"
    exponent = math.ceil(math.log10(size))
    return f"1e{exponent}" if exponent < 0 else f"{size:.1g}"


def _plain(value: Any) -> Any:
    return [list(pair) for pair in value] if isinstance(value, tuple) else value


def _decimals(measured: float | str) -> int | None:
    text = measured if isinstance(measured, str) else repr(float(measured))
    text = text.strip().lower()
    if "e" in text or "." not in text:
        return None if "e" in text else 0
    return len(text.split(".", 1)[1])


_TOLERANCE = Number(low=0, finite=True)
MEASURED = Number(finite=True, text=True, words="a finite number (a mean a tool printed)")
"""What ``measured=`` must be (a number's text keeps its printed decimals)."""


def _tolerance(measured: float | str, tolerance: float | None) -> float:
    if tolerance is not None:
        return tolerance
    decimals = _decimals(measured)
    half_unit = 0.5 * 10.0 ** -decimals if decimals is not None else 0.0
    return max(half_unit, 1e-9)


def _with_dialect(measure: Measure, dialect: str) -> Measure:
    if "dialect" not in measure.family.params:
        raise InvalidParameterError(
            f"{measure.name!r} has no dialects; measures with dialects: "
            + ", ".join(sorted({f for d in DIALECTS.values() for f in d.families}))
        )
    return measure.replace(dialect=dialect)


def _inputs(
    qrels: Any, run: Any, measures: list[Measure], options: EvalOptions
) -> tuple[Evaluator, int]:
    from rankwise.engines.numpy import NumpyEngine

    engine = NumpyEngine()
    engine.check(measures, options)
    evaluator, _, _ = engine.evaluator(qrels, run, measures, options)
    return evaluator, len(evaluator.ranking.query_ids)


def _state(
    evaluator: Evaluator, measure: Measure, c: Conventions
) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-query values (NaN where not counted), the counted mask and the mean under *c*."""
    values = np.asarray(evaluator.values(measure, conventions=c), dtype=np.float64)
    mask = evaluator.counted(measure, values, conventions=c)
    counted = np.ones(len(values), dtype=bool) if mask is None else mask
    values = np.where(counted, values, np.nan)
    plain = measure.replace(dialect=DEFAULT_DIALECT) if "dialect" in measure.family.params else (
        measure
    )
    mean = aggregate(plain, values, counted)
    if c.round is not None and not math.isnan(mean):
        mean = round(mean, c.round)
    return values, counted, mean


def explain(
    qrels: Any,
    run: Any,
    measure: str | Measure,
    dialect_a: str | None = None,
    dialect_b: str | None = None,
    *,
    measured: float | str | None = None,
    tolerance: float | None = None,
    dialects: Iterable[str] | None = None,
    rel: float | None = None,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    columns: Mapping[str, str | None] | None = None,
    options: EvalOptions | None = None,
) -> Explanation | Matches:
    """Explain why two tools give different numbers, or which tool gave a number.

    With two dialects: the measure's mean in each, and the difference split
    by convention. The conventions of *dialect_a* are switched to those of
    *dialect_b* one at a time, in the order they apply (which documents and
    queries, score width, ties, relevance, gain, ideal, denominators, empty
    queries, arithmetic, rounding); each step's part is the change of the
    mean it causes, so the parts add up to the difference exactly.

    A step changes a query when it moves the query's value by more than
    *tolerance* (by default half a unit of the fourth decimal, 5e-05, the
    last one the text prints), or changes whether the mean counts it: the
    rounding noise of computing one value two ways (1e-16) is not a change.

    With ``measured=``: the measure's mean in every dialect that has it (and
    with the tool options rankwise follows), nearest first, and those within
    the tolerance.

    Parameters
    ----------
    qrels, run
        The judgments and the run, in any form :func:`rankwise.evaluate` takes.
    measure : str or Measure
        For example ``"ndcg@10"``; its parameters (``gain=``, ``rel=``)
        apply in both dialects.
    dialect_a, dialect_b : str
        Dialect names (:data:`rankwise.measures.dialects.DIALECTS`):
        ``trec_eval``, ``sklearn``, ``lightgbm``, ``xgboost``, ...
    measured : float or str, optional
        A number a tool printed (finite); a string keeps its printed
        decimals (``"0.4310"`` has 4).
    tolerance : float, optional
        With two dialects, how much a query's value must move for a step to
        change it: by default 5e-05 (:data:`CHANGE_TOLERANCE`). With
        *measured*, how close a dialect's mean must be to it: by default half
        a unit of its last decimal (at least 1e-9).
    dialects : iterable of str, optional
        With *measured*, the dialects to try (default: all).
    rel, depth, missing, judged_only, exclude_self, columns, options
        As in :func:`rankwise.evaluate`.
    ties, unjudged
        As in :func:`rankwise.evaluate`, but only their defaults apply: ties
        are ordered as each dialect orders them, and a difference is split
        for the values with unjudged documents not relevant (another value
        is refused).

    Returns
    -------
    Explanation or Matches

    Raises
    ------
    InvalidParameterError
        Neither two dialects nor a measured number, a measured number that
        is NaN or infinite, an unknown dialect, or a measure without dialects.
    MeasureSyntaxError
        A dialect that does not have the measure.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 3, "b": 0, "c": 2, "d": 1}, "q2": {"e": 0}}
    >>> run = {"q1": {"a": 0.2, "b": 0.9, "c": 0.9, "d": 0.1}, "q2": {"e": 1.0}}
    >>> ex = rw.explain(qrels, run, "ndcg@3", "trec_eval", "lightgbm")
    >>> ex.means
    (0.36750349256943715, 0.7870707045068006)
    >>> [(s.convention, s.queries_changed, round(float(s.delta), 4)) for s in ex.steps]
    [('ties', 1, -0.0775), ('gain', 1, -0.0029), ('ideal', 0, 0.0), ('empty', 1, 0.5)]
    >>> sum(s.delta for s in ex.steps) == ex.difference
    True
    >>> found = rw.explain(qrels, run, "ndcg@3", measured="0.7871")
    >>> [str(c.measure) for c in found.matches]
    ['ndcg@3(dialect=catboost,gain=exp)', 'ndcg@3(dialect=lightgbm)', 'ndcg@3(dialect=xgboost)']
    """
    chosen = options_from(options, rel=rel, depth=depth, missing=missing,
                          judged_only=judged_only, ties=ties, exclude_self=exclude_self,
                          unjudged=unjudged, columns=columns)
    if chosen.ties != "trec":
        reject("ties", chosen.ties, "'trec' in explain",
               remedy="each dialect orders tied documents its own way (its 'ties' convention)")
    if chosen.unjudged != "nonrelevant":
        reject("unjudged", chosen.unjudged, "'nonrelevant' in explain",
               remedy="explain splits the difference of one value per query; evaluate the "
                      "bounds with rankwise.evaluate(unjudged='bounds')")
    if tolerance is not None:
        tolerance = float(check("tolerance", tolerance, _TOLERANCE))
    if measured is not None:
        check("measured", measured, MEASURED)
    base = parse(measure)
    if "dialect" in dict(base.params):
        raise InvalidParameterError(
            f"{base} names a dialect: explain puts the measure in each dialect it compares "
            f"(the two given, or every one with measured=); give it without dialect=")
    if (chosen.rel is not None and "rel" in base.family.params
            and "rel" not in base.given | dict(base.params).keys()):
        base = base.replace(rel=chosen.rel)
    if measured is not None:
        return _matches(qrels, run, base, measured, tolerance, dialects, chosen)
    if dialect_a is None or dialect_b is None:
        raise InvalidParameterError(
            "give two dialects (explain(qrels, run, 'ndcg@10', 'trec_eval', 'sklearn')) "
            "or a number a tool printed (measured=0.4312)"
        )
    names = (read_dialect(dialect_a), read_dialect(dialect_b))
    first, second = (_with_dialect(base, name) for name in names)
    evaluator, n_queries = _inputs(qrels, run, [first, second], chosen)
    start, end = conventions_of(first), conventions_of(second)
    current = start
    values, counted, mean = _state(evaluator, first, current)
    _defined(mean, first, "", values, counted)
    first_mean = mean
    within = CHANGE_TOLERANCE if tolerance is None else tolerance
    steps: list[Step] = []
    for name in start.changes(end):
        current = replace(current, **{name: getattr(end, name)})
        new_values, new_counted, new_mean = _state(evaluator, first, current)
        _defined(new_mean, first, f" once {name} is {getattr(end, name)!r}", new_values,
                 new_counted)
        changed = int((_moved(values, new_values, within) | (new_counted != counted)).sum())
        steps.append(Step(name, getattr(start, name), getattr(end, name), new_mean,
                          Fraction(new_mean) - Fraction(mean), changed, base.name))
        values, counted, mean = new_values, new_counted, new_mean
    return Explanation(base, names, (first, second), (first_mean, mean), steps, n_queries,
                       within)


def _moved(before: np.ndarray, after: np.ndarray, tolerance: float) -> np.ndarray:
    """Per query, whether its value moved by more than *tolerance* (NaN to a number: moved).

    Examples
    --------
    >>> _moved(np.array([0.5, 0.5, np.nan, np.nan]),
    ...        np.array([0.5 + 1.7e-16, 0.6, np.nan, 0.1]), 5e-05).tolist()
    [False, True, False, True]
    """
    both_nan = np.isnan(before) & np.isnan(after)
    with np.errstate(invalid="ignore"):
        near = np.abs(after - before) <= tolerance
    out: np.ndarray = ~(near | both_nan)
    return out


def _defined(mean: float, measure: Measure, where: str, values: np.ndarray,
             counted: np.ndarray) -> None:
    """Refuse a mean no query counts in, or a NaN one: the difference has no exact parts."""
    undefined = np.isnan(values) & counted
    if math.isnan(mean) and undefined.any():  # a NaN value counted (ranx's bpref 0/0)
        raise InvalidParameterError(
            f"{measure}{where}: {int(undefined.sum())} of the queries counted have no value "
            "(NaN: bpref of a query whose judgments hold no non-relevant document, as ranx "
            "computes it), so the mean is NaN and the difference cannot be split: leave "
            "those queries out"
        )
    if math.isnan(mean) and len(values) == 0:
        raise InvalidParameterError(
            f"{measure}{where}: the run and the judgments share no query, so there is no "
            "difference to split: give the judgments of the run's queries (or "
            "missing='zero', which scores the judged queries the run lacks 0)"
        )
    if math.isnan(mean):
        raise InvalidParameterError(
            f"{measure}{where}: no query counts in the mean (every query is left out, e.g. "
            "none has a relevant document), so the difference cannot be split: evaluate "
            "queries with relevant documents"
        )


def _candidates(base: Measure, dialects: Iterable[str] | None) -> list[tuple[Measure, str, str]]:
    names = sorted(DIALECTS) if dialects is None else [read_dialect(d) for d in dialects]
    if "trec_eval" in names:  # rankwise's measure equal to trec_eval's is named trec_eval
        names.remove("trec_eval")
        names.insert(0, "trec_eval")
    out: list[tuple[Measure, str, str]] = []
    seen: set[Measure] = set()
    for name in names:
        dialect = DIALECTS[name]
        if base.name not in dialect.families:
            continue
        if base.cutoff is not None and dialect.cutoff.get(base.name) == "none":
            continue
        variants: list[tuple[str, Mapping[str, str]]] = [("", {})]
        variants += list(dialect.options.get(base.name, ()))
        for option, params in variants:
            measure = base.replace(dialect=name, **params)
            if measure not in seen:
                seen.add(measure)
                out.append((measure, name, option))
    return out


def _matches(
    qrels: Any,
    run: Any,
    base: Measure,
    measured: float | str,
    tolerance: float | None,
    dialects: Iterable[str] | None,
    options: EvalOptions,
) -> Matches:
    number = float(measured)
    if "dialect" not in base.family.params:
        _with_dialect(base, DEFAULT_DIALECT)
    found = _candidates(base, dialects)
    if not found:
        raise InvalidParameterError(f"no dialect of those given has {base.name!r}")
    measures = [m for m, _, _ in found]
    evaluator, _ = _inputs(qrels, run, measures, options)
    candidates = []
    for measure, name, option in found:
        _, _, mean = _state(evaluator, measure, conventions_of(measure))
        candidates.append(Candidate(measure, name, option, mean, mean - number))
    candidates.sort(key=lambda c: (math.isnan(c.difference), abs(c.difference)))
    shown = measured.strip() if isinstance(measured, str) else number
    return Matches(base, shown, _tolerance(measured, tolerance), candidates)

