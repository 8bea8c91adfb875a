"""``compare``: paired significance tests between systems evaluated on the same queries."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._tabular import Tabular
from rankwise._validation import Instance, Text, check, optional, reject
from rankwise._wording import counted, format_p
from rankwise.engines import Engine
from rankwise.engines.core import relevance_notes
from rankwise.evaluation import RUN_NAME, RUNS_EXPECTED
from rankwise.exceptions import InvalidParameterError, UnsupportedMeasureError
from rankwise.measures import Measure
from rankwise.options import (
    DEFAULT_CHUNK_SIZE,
    CompareOptions,
    Correction,
    CorrectionFamily,
    EvalOptions,
    IntervalMethod,
    Missing,
    TestName,
    Ties,
    Unjudged,
    merged,
    options_from,
    split_options,
)
from rankwise.results import Results
from rankwise.stats import (
    CORRECTIONS,
    TEST_LABELS,
    TESTS,
    adjust_pvalues,
    cohens_dz,
    stream,
    wins_ties_losses,
)
from rankwise.stats.intervals import quantile_bounds, t_interval
from rankwise.stats.registry import MANY_SYSTEM_TESTS, RESAMPLING_TESTS, direction_of
from rankwise.stats.resampling import bootstrap_sums
from rankwise.stats.seeding import normalise_seed
from rankwise.stats.tukey import TukeyResult

if TYPE_CHECKING:
    import pandas as pd

    from rankwise.report.tables import Table

__all__ = ["Comparison", "ComparisonRow", "compare", "compare_results", "compare_values"]


# ----------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ComparisonRow:
    """One measure and one system of a :class:`Comparison`.

    A row with ``baseline=None`` describes the baseline itself (its mean and
    interval only). Otherwise the row compares *system* with *baseline* (in
    all-pairs mode: the system listed earlier) on the queries evaluated for
    both, ``n_queries`` of them.

    Attributes
    ----------
    measure, system : str
        Canonical measure name and system name.
    baseline : str or None
        The system compared against.
    n_queries : int
        Queries compared (evaluated for both systems).
    n_dropped : int
        Queries evaluated for one of the two (or, with the Tukey tests, for
        both but not for every system) and left out of the comparison.
    mean, ci_low, ci_high : float
        Mean of *system* over the compared queries and its confidence interval.
    baseline_mean : float
        Mean of *baseline* over the same queries.
    delta, delta_ci_low, delta_ci_high : float
        Mean paired difference (system - baseline) and its confidence interval.
    p_value, p_adjusted : float
        Two-sided p-value of the test and after the correction.
    significant : bool or None
        ``p_adjusted <= alpha``.
    effect_size : float
        Paired Cohen's d: mean difference / standard deviation of the differences.
    wins, ties, losses : int or None
        Queries where *system* scores higher than, equal to, lower than *baseline*.
    method : str
        How the p-value was obtained (``"exact"``, ``"monte carlo"``,
        ``"normal approximation"``, ``"t distribution"``, ``"all differences zero"``).
    direction : int or None
        Which way the test finds *system* differs from *baseline*: 1 higher,
        -1 lower, 0 neither, by what the test weighs
        (:func:`rankwise.stats.registry.direction_of`): the mean difference for
        the t-test, randomization, bootstrap and Tukey tests, wins - losses for
        the sign test, W+ - W- for the Wilcoxon test. The arrows of the tables
        and reports follow it: under the sign test a system that wins most
        queries by a little is higher even when its mean is lower.
    """

    measure: str
    system: str
    baseline: str | None
    n_queries: int
    n_dropped: int
    mean: float
    ci_low: float
    ci_high: float
    baseline_mean: float = math.nan
    delta: float = math.nan
    delta_ci_low: float = math.nan
    delta_ci_high: float = math.nan
    p_value: float = math.nan
    p_adjusted: float = math.nan
    significant: bool | None = None
    effect_size: float = math.nan
    wins: int | None = None
    ties: int | None = None
    losses: int | None = None
    method: str = ""
    direction: int | None = None


_INT_COLUMNS = ("wins", "ties", "losses", "direction")


class Comparison(Tabular):
    """Paired comparisons of systems, per measure: means, intervals, tests, effects.

    Built by :func:`compare`. Iterating gives the :class:`ComparisonRow`
    objects, ordered by measure, then by system (baseline first). Its
    :meth:`table` is one row per measure and system (the long table); like
    every result it has ``to_dict``, ``to_pandas``, ``to_polars``,
    ``to_table``, shows as a table in a notebook and pickles.

    Attributes
    ----------
    rows : tuple of ComparisonRow
    measures : tuple of str
        Canonical measure names, in the order asked for.
    systems : tuple of str
        System names, in the order given.
    baseline : str or None
        The baseline; None when all pairs were compared.
    test, correction : str
        Canonical names (see :data:`rankwise.stats.TESTS`, :data:`rankwise.stats.CORRECTIONS`).
    family : {"measure", "all"}
        The family of hypotheses a correction is applied over.
    alpha, confidence : float
        Significance level and confidence level (``1 - alpha``) of the intervals.
    ci : {"t", "bootstrap"}
        How the confidence intervals were computed.
    n_resamples : int
    seed : int
        The seed that reproduces the result (drawn at random when None was given).
    notes : tuple of str
        What a reader should know: dropped queries, all-zero differences, a
        significance no test could reach with so few queries, ...
    tukey : dict
        With ``test="tukey"`` or ``"randomized-tukey"``: measure ->
        :class:`~rankwise.stats.TukeyResult` over all systems (in the order
        of :attr:`systems`), with its two-way ANOVA (``.anova``); empty otherwise.
    unit : {"query", "user"}
        What was compared, as the notes and the legend name it (``"user"``:
        recommenders, :func:`rankwise.compare_recommendations`).
    system_means : dict
        ``{(measure, system): mean}`` over all the queries (users) the system
        was evaluated on, as :func:`rankwise.evaluate` gives it: the number
        :meth:`to_table`'s wide table shows (a row's ``mean`` is over the
        queries of its pair only).
    """

    def __init__(
        self,
        rows: Iterable[ComparisonRow],
        *,
        measures: Sequence[str],
        systems: Sequence[str],
        baseline: str | None,
        test: str,
        correction: str,
        family: str,
        alpha: float,
        ci: str,
        n_resamples: int,
        seed: int,
        notes: Iterable[str] = (),
        tukey: Mapping[str, TukeyResult] | None = None,
        unit: str = "query",
        system_means: Mapping[tuple[str, str], float] | None = None,
    ) -> None:
        self.rows = tuple(rows)
        self.measures = tuple(measures)
        self.systems = tuple(systems)
        self.baseline = baseline
        self.test = test
        self.correction = correction
        self.family = family
        self.alpha = alpha
        self.confidence = 1 - alpha
        self.ci = ci
        self.n_resamples = n_resamples
        self.seed = seed
        self.notes = tuple(notes)
        self.tukey = dict(tukey or {})
        self.unit = unit
        self.system_means = dict(system_means or {})

    def __iter__(self) -> Any:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def options(self) -> CompareOptions:
        """The statistics of this comparison: passed back, they reproduce it (the seed included).

        Examples
        --------
        >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
        >>> runs = {"x": {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, "y": {"q1": {"b": 1.0}}}
        >>> compare(qrels, runs, "P@1", test="t", seed=3).options.replace(alpha=0.01)
        CompareOptions(test='t-test', correction='holm', alpha=0.01, ci='t', n_resamples=10000, \
seed=3, family='measure', chunk_size=4194304)
        """
        return CompareOptions(test=self.test, correction=self.correction,  # type: ignore[arg-type]
                              alpha=self.alpha, ci=self.ci,  # type: ignore[arg-type]
                              n_resamples=self.n_resamples, seed=self.seed,
                              family=self.family)  # type: ignore[arg-type]

    def row(
        self, measure: str | Measure, system: str, baseline: str | None = None
    ) -> ComparisonRow:
        """The row of *measure* and *system* (against *baseline* in all-pairs mode).

        Raises
        ------
        KeyError
            No such row; the message lists what exists.
        """
        name = str(measure) if isinstance(measure, Measure) else measure
        if name not in self.measures:
            from rankwise.measures import parse

            name = str(parse(name))
        found = [
            row for row in self.rows
            if row.measure == name and row.system == system
            and (baseline is None or row.baseline == baseline)
        ]
        if len(found) > 1:
            found = [row for row in found if row.baseline is not None]
        if len(found) == 1:
            return found[0]
        pairs = sorted((r.system, r.baseline or "") for r in self.rows if r.measure == name)
        reason = "several rows match; give baseline=" if found else "no such row"
        raise KeyError(
            f"{reason} for measure {name!r}, system {system!r}"
            + (f" against {baseline!r}" if baseline else "")
            + f"; rows (system, against): {pairs}"
        )

    @property
    def n_comparisons(self) -> int:
        """Number of hypotheses tested (rows against a baseline)."""
        return sum(row.baseline is not None for row in self.rows)

    @property
    def legend(self) -> str:
        """One sentence saying which test, correction, level and intervals were used.

        It starts with "significant at alpha = ..."; put your marker in front
        (the repr uses ``*``). For the randomization and bootstrap tests it
        gives the seed, so a published table can be reproduced. A table that
        shows no interval (the wide table of means) uses
        :attr:`significance_legend`, the same sentence without them.
        """
        interval = (
            "Student t" if self.ci == "t"
            else f"bootstrap percentile ({counted(self.n_resamples, 'resample', grouped=True)})"
        )
        return (f"{self.significance_legend}; {self.confidence:.0%} {interval} confidence "
                "intervals")

    @property
    def significance_legend(self) -> str:
        """:attr:`legend` without the intervals: which test, correction and level were used."""
        test = TEST_LABELS[self.test]
        if self.test == "randomization":
            test += (f" ({counted(self.n_resamples, 'random sign flip', grouped=True)}, exact "
                     "enumeration when "
                     f"2^k <= {self.n_resamples:,}; seed {self.seed})")
        elif self.test == "bootstrap":
            test += f" ({counted(self.n_resamples, 'resample', grouped=True)}, seed {self.seed})"
        elif self.test == "randomized-tukey":
            test += (f" ({counted(self.n_resamples, 'trial', grouped=True)} shuffling each "
                     f"{getattr(self, 'unit', 'query')}'s values among the "
                     f"systems, all relabellings when (m!)^(n-1) <= {self.n_resamples:,}; "
                     f"p = count/trials; seed {self.seed})")
        if self.test in MANY_SYSTEM_TESTS:
            correction = ("family-wise over all pairs of systems of each measure (no further "
                          "correction)")
        elif self.correction == "none":
            correction = "no correction for multiple comparisons"
        else:
            scope = "per measure, over the systems compared" if self.family == "measure" else (
                "over all systems and measures")
            correction = f"{CORRECTIONS[self.correction]} correction {scope}"
        against = f"against {self.baseline!r}" if self.baseline is not None else "all pairs"
        return (
            f"significant at alpha = {self.alpha:g} (p_adjusted <= alpha): two-sided {test}, "
            f"{against}, {correction}"
        )

    def letters(self, measure: str | Measure, alpha: float | None = None) -> dict[str, str]:
        """Compact letter display of *measure*: systems that share a letter do not differ.

        From the Tukey result over all systems (``test="tukey"`` or
        ``"randomized-tukey"``), or else from the rows when every pair was
        compared (no baseline): a pair differs when ``p_adjusted <= alpha``.
        ``a`` is the group of the highest mean (see
        :func:`rankwise.stats.compact_letters`).

        Raises
        ------
        InvalidParameterError
            Pairs were compared with a baseline only (not every pair is known).

        Examples
        --------
        >>> qrels = {f"q{i}": {"good": 1} for i in range(8)}
        >>> good = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(8)}
        >>> bad = {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(8)}
        >>> from rankwise.comparison import compare
        >>> compare(qrels, {"x": good, "y": bad, "z": good}, "P@1", seed=0).letters("P@1")
        {'x': 'a', 'y': 'b', 'z': 'a'}
        """
        from rankwise.stats import compact_letters

        name = self._measure_name(measure)
        level = self.alpha if alpha is None else alpha
        if name in self.tukey:
            return dict(zip(self.systems, self.tukey[name].letters(level)))
        if self.baseline is not None:
            raise InvalidParameterError(
                "letters need every pair of systems compared: compare without a baseline, "
                "or with test='tukey'"
            )
        index = {system: i for i, system in enumerate(self.systems)}
        m = len(self.systems)
        significant = np.zeros((m, m), dtype=bool)
        means = np.full(m, np.nan)
        counted = np.full(m, -1)
        for row in self.rows:
            if row.measure != name or row.baseline is None:
                continue
            i, j = index[row.system], index[row.baseline]
            if row.p_adjusted <= level:
                significant[i, j] = significant[j, i] = True
            for k, value in ((i, row.mean), (j, row.baseline_mean)):
                if row.n_queries > counted[k]:
                    means[k], counted[k] = value, row.n_queries
        return dict(zip(self.systems, compact_letters(means, significant)))

    def _measure_name(self, measure: str | Measure) -> str:
        name = str(measure) if isinstance(measure, Measure) else measure
        if name not in self.measures:
            from rankwise.measures import parse

            name = str(parse(name))
        if name not in self.measures:
            raise KeyError(f"measure {name!r} was not compared; compared: {list(self.measures)}")
        return name

    # conversions ---------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return the settings, the rows (as dicts) and the notes.

        Examples
        --------
        >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
        >>> runs = {"x": {"q1": {"a": 1.0}, "q2": {"z": 1.0}, "q3": {"c": 1.0}},
        ...         "y": {"q1": {"z": 1.0}, "q2": {"z": 1.0}, "q3": {"c": 1.0}}}
        >>> from rankwise.comparison import compare
        >>> result = compare(qrels, runs, "P@1", baseline="y", seed=0).to_dict()
        >>> result["rows"][1]["delta"], result["rows"][1]["p_value"]
        (0.3333333333333333, 1.0)
        """
        return {
            "measures": list(self.measures),
            "systems": list(self.systems),
            "baseline": self.baseline,
            "test": self.test,
            "correction": self.correction,
            "family": self.family,
            "alpha": self.alpha,
            "confidence": self.confidence,
            "ci": self.ci,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "legend": self.legend,
            "rows": [asdict(row) for row in self.rows],
            "notes": list(self.notes),
            **({"tukey": {name: _tukey_dict(result, self.systems)
                          for name, result in self.tukey.items()}} if self.tukey else {}),
        }

    def to_pandas(self) -> pd.DataFrame:
        """Return one row per measure and system (columns as in :class:`ComparisonRow`).

        ``wins``, ``ties``, ``losses`` and ``direction`` are nullable integers
        and ``significant`` a nullable boolean (missing on the baseline's rows).
        """
        try:
            import pandas as pd
        except ImportError as error:  # pragma: no cover - depends on the environment
            from rankwise.exceptions import MissingDependencyError

            raise MissingDependencyError(
                "Comparison.to_pandas needs pandas: pip install 'rankwise[pandas]'"
            ) from error
        records = [asdict(row) for row in self.rows]
        columns = list(ComparisonRow.__dataclass_fields__)
        frame = pd.DataFrame.from_records(records, columns=columns)
        for name in _INT_COLUMNS:
            frame[name] = frame[name].astype("Int64")
        frame["significant"] = frame["significant"].astype("boolean")
        frame["n_queries"] = frame["n_queries"].astype("int64")
        frame["n_dropped"] = frame["n_dropped"].astype("int64")
        return frame

    def to_polars(self) -> Any:
        """Return one row per measure and system, as :meth:`to_pandas` (polars types).

        ``wins``, ``ties``, ``losses`` and ``direction`` are ``Int64`` and
        ``significant`` ``Boolean``, null on the baseline's rows.
        """
        try:
            import polars as pl
        except ImportError as error:  # pragma: no cover - depends on the environment
            from rankwise.exceptions import MissingDependencyError

            raise MissingDependencyError(
                "Comparison.to_polars needs polars: pip install 'rankwise[polars]'"
            ) from error
        types = {"measure": pl.Utf8, "system": pl.Utf8, "baseline": pl.Utf8,
                 "n_queries": pl.Int64, "n_dropped": pl.Int64, "significant": pl.Boolean,
                 "wins": pl.Int64, "ties": pl.Int64, "losses": pl.Int64, "method": pl.Utf8,
                 "direction": pl.Int64}
        columns = list(ComparisonRow.__dataclass_fields__)
        return pl.DataFrame([
            pl.Series(name, [getattr(row, name) for row in self.rows],
                      dtype=types.get(name, pl.Float64))
            for name in columns
        ])

    def table(self) -> Table:
        """One row per measure and system with every statistic (the long table)."""
        from rankwise.report.comparison_tables import long_table

        return long_table(self)

    def _caption(self) -> str:
        return (f"Comparison({len(self.systems)} systems, {len(self.measures)} "
                f"measure{'s' if len(self.measures) != 1 else ''}, "
                f"test={self.test!r}, correction={self.correction!r}, alpha={self.alpha:g})")

    row_type = ComparisonRow
    """The type of the rows (its fields are the columns of the long table)."""

    def to_table(
        self,
        fmt: str = "table",
        *,
        long: bool = False,
        digits: int = 4,
        marker: str | None = None,
        letters: str = "auto",
    ) -> str:
        r"""The comparison as text: a paper's table, or one row per measure and system.

        Parameters
        ----------
        fmt : {"table", "tsv", "csv", "json", "jsonl", "markdown", "latex"}
            ``table``, ``markdown`` and ``latex`` give the wide table (one
            row per system, one column per measure, significance marked) with
            its legend, or with *long* one row per measure and system;
            ``tsv`` and ``csv`` the long table; ``jsonl`` its rows as
            objects; ``json`` :meth:`to_dict`.
        long : bool
            The long table in the ``table``, ``markdown`` and ``latex`` formats.
        digits : int
            Decimals of the means and p-values in the wide formats.
        marker : str, optional
            Marks a significant difference from the baseline (default ``†``,
            ``\dagger`` in LaTeX).
        letters : {"auto", "groups", "better"}
            Comparing all pairs: ``groups``, a compact letter display (systems
            that share a letter do not differ; the default for the Tukey
            tests), or ``better``, the letters of the systems each is better
            than (the default otherwise). ``groups`` also replaces the
            baseline's markers.

        Returns
        -------
        str

        Examples
        --------
        >>> qrels = {f"q{i}": {"good": 1} for i in range(8)}
        >>> good = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(8)}
        >>> bad = {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(8)}
        >>> result = compare(qrels, {"x": good, "y": bad, "z": good}, "P@1", test="tukey")
        >>> print(result.to_table().split("letters:")[0])
        system  P@1
        ------  --------
        x       1.0000 a
        y       0.0000 b
        z       1.0000 a
        <BLANKLINE>
        """
        from rankwise.report.comparison_tables import render_comparison

        return render_comparison(self, fmt, long=long, digits=digits, marker=marker,
                                 letters=letters)

    def plot(
        self,
        measures: str | Measure | Iterable[str | Measure] | None = None,
        *,
        ax: Any = None,
        **kwargs: Any,
    ) -> Any:
        """Plot each system's mean difference from the baseline with its confidence interval.

        Filled dots are significant after the correction; the corrected p-value is
        written on the right. A thin wrapper of :func:`rankwise.report.plot_comparison`
        (needs matplotlib: ``pip install 'rankwise[plot]'``).

        Parameters
        ----------
        measures : str, Measure or list, optional
            Default: every measure of the comparison.
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        **kwargs
            Passed to :meth:`rankwise.report.ComparisonDisplay.plot`.

        Returns
        -------
        ComparisonDisplay
            Holding ``figure_``, ``ax_`` and ``labels_``.
        """
        from rankwise.report.plots import plot_comparison

        return plot_comparison(self, measures, ax=ax, **kwargs)

    def __repr__(self) -> str:
        header = ["measure", "system", "vs", "n", "mean", f"{self.confidence:.0%} CI",
                  "delta", "p", "p_adj", "", "d_z", "W/T/L"]
        lines = []
        for row in self.rows:
            compared = row.baseline is not None
            lines.append([
                row.measure,
                row.system,
                row.baseline or "",
                str(row.n_queries),
                f"{row.mean:.4f}",
                f"[{row.ci_low:.4f}, {row.ci_high:.4f}]",
                f"{row.delta:+.4f}" if compared else "",
                format_p(row.p_value) if compared else "",
                format_p(row.p_adjusted) if compared else "",
                "*" if row.significant else "",
                f"{row.effect_size:+.3f}" if compared else "",
                f"{row.wins}/{row.ties}/{row.losses}" if compared else "",
            ])
        if self.baseline is not None:  # the "vs" column says nothing new
            header.pop(2)
            for line in lines:
                line.pop(2)
        widths = [max([len(h)] + [len(line[i]) for line in lines]) for i, h in enumerate(header)]
        text_columns = {0, 1} if self.baseline is not None else {0, 1, 2}

        def render(cells: list[str]) -> str:
            return "  ".join(
                cell.ljust(w) if i in text_columns else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(cells, widths))
            ).rstrip()

        out = [self._caption(), render(header)]
        out.extend(render(line) for line in lines)
        out.append(f"* {self.legend}")
        for name, result in self.tukey.items():
            letters = " ".join(f"{system}={text}" for system, text in
                               zip(self.systems, result.letters(self.alpha)))
            out.append(f"{name}: ANOVA {result.anova.summary()}; letters {letters}")
        out.extend(f"note: {note}" for note in self.notes)
        return "\n".join(out)


def _tukey_dict(result: TukeyResult, systems: Sequence[str]) -> dict[str, Any]:
    """The many-system result of one measure as plain values (matrices as nested lists)."""
    def matrix(values: np.ndarray) -> list[list[float | None]]:
        return [[None if math.isnan(v) else float(v) for v in row] for row in values]

    return {
        "systems": list(systems),
        "method": result.method,
        "p_method": result.p_method,
        "means": [float(v) for v in result.means],
        "p_values": matrix(result.p_values),
        "ci_low": matrix(result.ci_low),
        "ci_high": matrix(result.ci_high),
        "critical_difference": (None if math.isnan(result.critical_difference)
                                else result.critical_difference),
        "letters": dict(zip(systems, result.letters())),
        "anova": result.anova.to_dict(),
    }


# ----------------------------------------------------------------------------
# the public functions
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """The statistics of one comparison, with what is settled when it runs.

    The :class:`~rankwise.options.CompareOptions` as they apply: the baseline
    found among the runs, the seed drawn when none was given, the correction
    ``auto`` stands for.
    """

    baseline: str | None
    test: str
    correction: str
    family: str
    alpha: float
    ci: str
    n_resamples: int
    seed: int
    chunk_size: int

    @classmethod
    def of(cls, options: CompareOptions, baseline: str | None) -> _Plan:
        return cls(
            baseline=baseline,
            test=options.test,
            correction=options.applied_correction,
            family=options.family,
            alpha=options.alpha,
            ci=options.ci,
            n_resamples=options.n_resamples,
            seed=normalise_seed(options.seed),
            chunk_size=options.chunk_size,
        )


_BASELINE = optional(Text(words="a system name (a non-empty str)"))
_RESULTS = Instance(Results, words="a Results (from rankwise.evaluate)")


def compare(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure],
    *,
    baseline: str | None = None,
    test: TestName = "randomization",
    correction: Correction | None = "auto",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = None,
    missing: Missing = "skip",
    ci: IntervalMethod = "t",
    family: CorrectionFamily = "measure",
    rel: float | None = None,
    depth: int | None = None,
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    options: EvalOptions | CompareOptions | tuple[EvalOptions | CompareOptions, ...]
    | None = None,
    engine: str | Engine | None = None,
    columns: Mapping[str, str | None] | None = None,
    unjudged: Unjudged = "nonrelevant",
) -> Comparison:
    r"""Compare systems with paired significance tests, per measure.

    Each run is loaded and evaluated once against the same judgments; each
    pair of systems is then compared on the queries evaluated for both.

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        The judgments (any form :func:`rankwise.evaluate` accepts).
    runs : dict or list
        ``{name: run}`` (runs as objects, paths, frames, dicts, or already
        computed :class:`~rankwise.Results`, used as they are: *missing*,
        *rel*, *depth* and *judged_only* do not apply to them), or a list of runs named by
        their :attr:`Run.name` (the run id of a TREC file) or, for paths,
        their file name. Names must be distinct; at least two runs.
    measures : str, Measure or list of them
        Measures aggregated by an arithmetic mean (``ndcg@10``, ``map``,
        ``P@10``, ...). ``gm_map``, ``gm_bpref`` and the ``num_*`` counts are
        refused: a paired test of means says nothing about them.
    baseline : str, optional
        Compare every other system with this one. Without it, every pair
        (the later system in *runs* against the earlier one).
    test : {"randomization", "t-test", "wilcoxon", "bootstrap", "sign", "tukey", "randomized-tukey"}
        The two-sided paired test (aliases: ``permutation``, ``t``, ...):
        see :mod:`rankwise.stats`. ``tukey`` (Tukey's HSD on the two-way
        ANOVA residual) and ``randomized-tukey`` (Carterette's randomised
        Tukey HSD) test all pairs of systems at once on the queries evaluated
        for every system, family-wise; :attr:`Comparison.tukey` holds their
        ANOVA, p-value matrix and letters. With a baseline, the rows are the
        pairs with the baseline, still tested in the family of all pairs.
    correction : {"auto", "holm", "bonferroni", "benjamini-hochberg", "bh", "fdr_bh", "none"}
        Multiple-comparison correction of the p-values. ``auto``: Holm for
        the paired tests, none for the Tukey tests (which are family-wise
        already; another correction is refused).
    alpha : float
        Significance level: a difference is significant when its corrected
        p-value is at most *alpha*. Intervals have confidence ``1 - alpha``.
    n_resamples : int
        Resamples of the randomization, bootstrap and randomised Tukey tests
        and of bootstrap intervals. The randomization test enumerates all
        :math:`2^k` sign flips instead when :math:`2^k \le` *n_resamples*
        (*k* non-zero differences); the randomised Tukey test all
        :math:`(m!)^{n-1}` relabellings when there are at most *n_resamples*.
    seed : int, optional
        Makes resampling reproducible: each pair's random stream depends only
        on the seed and the two system names, never on the order of *runs*,
        the other systems or the chunk size. None draws a seed, reported as
        :attr:`Comparison.seed`.
    missing : {"skip", "zero"}
        A judged query a run did not retrieve is left out of that run's
        evaluation (then out of its comparisons: pairs are compared on the
        queries evaluated for both, and :attr:`ComparisonRow.n_dropped` says
        how many were left out), or scores 0 (``"zero"``: every judged query
        is compared).
    ci : {"t", "bootstrap"}
        Confidence intervals of means and of mean differences: Student t
        (default), or bootstrap percentile with *n_resamples* resamples.
    family : {"measure", "all"}
        The correction is applied per measure over the systems compared
        (default), or over all systems and measures at once.
    rel, depth, judged_only, ties, exclude_self, columns, unjudged
        As in :func:`rankwise.evaluate` (``ties="average"`` compares the
        expected values over tied orderings; with ``unjudged="bounds"``
        the values compared are those with unjudged documents not relevant).
    chunk_size : int
        Elements of a resample matrix processed at once (bounds memory; does
        not change any value).
    options : EvalOptions, CompareOptions, or a tuple of both, optional
        The options at once: :class:`~rankwise.options.EvalOptions` (the
        evaluation) and :class:`~rankwise.options.CompareOptions` (the
        statistics: *test* to *chunk_size*); keywords given as well override them.
    engine : {"numpy", "spark"} or Engine
        Where the runs are evaluated.

    Returns
    -------
    Comparison

    Raises
    ------
    InvalidParameterError
        A bad option, an unknown baseline, fewer than two runs, duplicate names.
    UnsupportedMeasureError
        A measure that is not aggregated by an arithmetic mean.

    Examples
    --------
    >>> qrels = {f"q{i}": {"good": 1} for i in range(8)}
    >>> bm25 = {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(8)}
    >>> dense = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(6)}
    >>> dense.update({f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(6, 8)})
    >>> from rankwise.comparison import compare
    >>> result = compare(qrels, {"bm25": bm25, "dense": dense}, ["mrr", "P@1"],
    ...                  baseline="bm25", seed=0)
    >>> row = result.row("P@1", "dense")
    >>> row.delta, row.p_value, row.method, (row.wins, row.ties, row.losses)
    (0.75, 0.03125, 'exact', (6, 2, 0))
    >>> result.to_pandas()[["measure", "system", "mean", "p_value", "p_adjusted"]]
      measure system   mean  p_value  p_adjusted
    0     mrr   bm25  0.500      NaN         NaN
    1     mrr  dense  0.875  0.03125     0.03125
    2     P@1   bm25  0.000      NaN         NaN
    3     P@1  dense  0.750  0.03125     0.03125
    """
    from rankwise.engines.core import prepare_measures
    from rankwise.evaluation import evaluate_runs

    evaluation, statistics = split_options(options, EvalOptions, CompareOptions)
    chosen = options_from(
        evaluation, rel=rel, depth=depth, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self, columns=columns, unjudged=unjudged,
    )
    settings = merged(CompareOptions, statistics, test=test, correction=correction, alpha=alpha,
                      ci=ci, n_resamples=n_resamples, seed=seed, family=family,
                      chunk_size=chunk_size)
    _check_runs(runs, baseline)
    parsed = prepare_measures(measures, chosen)
    _check_comparable(parsed)
    if isinstance(runs, Mapping) and baseline is not None:
        _check_baseline(baseline, list(runs))
    evaluated = evaluate_runs(qrels, runs, parsed, options=chosen, engine=engine,
                              need_common_queries=False)
    return _compare(evaluated, parsed, _Plan.of(settings, _found_baseline(baseline, evaluated,
                                                                          runs)))


def _check_runs(runs: Any, baseline: Any) -> None:
    """*runs* a dict or sequence of at least two runs, *baseline* None or a name."""
    check("baseline", baseline, _BASELINE)
    if not isinstance(runs, (Mapping, list, tuple)):
        reject("runs", runs, RUNS_EXPECTED)
    if len(runs) < 2:
        raise InvalidParameterError(f"compare needs at least two runs, got {len(runs)}")


def _found_baseline(baseline: str | None, evaluated: Mapping[str, Any], runs: Any
                    ) -> str | None:
    """The evaluated run *baseline* names (its name, path, file name or file stem)."""
    if baseline is None:
        return None
    from rankwise.evaluation import run_sources
    from rankwise.io.naming import find_run

    return find_run(baseline, list(evaluated), run_sources(runs), what="baseline")


def compare_results(
    results: Mapping[str, Results] | Sequence[Results],
    measures: str | Measure | Iterable[str | Measure] | None = None,
    *,
    baseline: str | None = None,
    test: TestName = "randomization",
    correction: Correction | None = "auto",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = None,
    ci: IntervalMethod = "t",
    family: CorrectionFamily = "measure",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    options: CompareOptions | None = None,
) -> Comparison:
    """Compare already evaluated systems: :func:`compare` without the evaluation.

    Parameters
    ----------
    results : dict or list of Results
        ``{name: Results}``, or a list named by :attr:`Results.run_name`.
    measures : str, Measure or list, optional
        Default: the measures of the first Results (all must hold them).
    baseline, test, correction, alpha, n_resamples, seed, ci, family, chunk_size
        As in :func:`compare`.
    options : CompareOptions, optional
        The statistics at once (keywords given as well override them).

    Returns
    -------
    Comparison

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> x = rw.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, "P@1")
    >>> y = rw.evaluate(qrels, {"q1": {"z": 1.0}, "q2": {"b": 1.0}}, "P@1")
    >>> compare_results({"x": x, "y": y}, baseline="y").row("P@1", "x").delta
    0.5
    """
    from rankwise.measures import parse_many

    settings = merged(CompareOptions, options, test=test, correction=correction, alpha=alpha,
                      ci=ci, n_resamples=n_resamples, seed=seed, family=family,
                      chunk_size=chunk_size)
    check("baseline", baseline, _BASELINE)
    named = _named_runs(results)
    for name, value in named.items():
        check(f"results[{name!r}]", value, _RESULTS)
    _check_baseline(baseline, list(named))
    first = next(iter(named.values()))
    parsed = list(first.measures) if measures is None else parse_many(measures)
    _check_comparable(parsed)
    return _compare(named, parsed, _Plan.of(settings, baseline))


# ----------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------


def _run_name(run: Any, position: int) -> str:
    from rankwise.data import Run

    if isinstance(run, Run):
        return run.name
    if isinstance(run, Results):
        return run.run_name
    if isinstance(run, (str, os.PathLike)):
        return os.path.basename(os.fspath(run))
    raise InvalidParameterError(
        f"runs[{position}] is a {type(run).__name__}, which has no name; "
        "pass a dict {name: run} instead of a list"
    )


def _named_runs(runs: Any) -> dict[str, Any]:
    if isinstance(runs, Mapping):
        named: dict[str, Any] = {}
        for name, run in runs.items():
            named[check("a run name", name, RUN_NAME)] = run
    elif isinstance(runs, (list, tuple)):
        named = {}
        first_position: dict[str, int] = {}
        for position, run in enumerate(runs):
            name = _run_name(run, position)
            if name in named:
                raise InvalidParameterError(
                    f"runs[{first_position[name]}] and runs[{position}] are both named "
                    f"{name!r}; pass a dict {{name: run}} to name them"
                )
            named[name] = run
            first_position[name] = position
    else:
        reject("runs", runs, RUNS_EXPECTED)
    if len(named) < 2:
        raise InvalidParameterError(f"compare needs at least two runs, got {len(named)}")
    return named


def _check_baseline(baseline: str | None, names: list[str]) -> None:
    if baseline is not None and baseline not in names:
        from rankwise.suggest import did_you_mean

        raise InvalidParameterError(
            f"baseline {baseline!r} is not one of the runs {names}"
            + did_you_mean(baseline, names)
        )


def _check_comparable(measures: list[Measure]) -> None:
    if not measures:
        raise InvalidParameterError("measures is empty; give at least one, e.g. 'ndcg@10'")
    kinds = {"gmean": "a geometric mean", "sum": "a sum over queries", "none": "nothing"}
    bad = [m for m in measures if m.family.aggregate != "mean" or m.family.text_valued]
    if bad:
        details = ", ".join(f"{str(m)!r} ({kinds.get(m.family.aggregate, 'text')})"
                            for m in bad)
        raise UnsupportedMeasureError(
            "compare tests differences of arithmetic means of per-query values; these "
            f"measures are aggregated otherwise: {details}. Leave them out (compare 'map' "
            "rather than 'gm_map')"
        )


# ----------------------------------------------------------------------------
# the computation
# ----------------------------------------------------------------------------


def _matrix(results: Results, measures: list[Measure], name: str) -> np.ndarray:
    columns = []
    for measure in measures:
        try:
            columns.append(results[measure])
        except KeyError:
            raise InvalidParameterError(
                f"measure {str(measure)!r} was not evaluated for {name!r}; "
                f"its Results hold {list(results)}"
            ) from None
    return np.column_stack(columns) if columns else np.empty((results.n_queries, 0))


def _intervals(
    values: np.ndarray, options: _Plan, names: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Intervals for the mean of each column (bootstrap: the same resamples for all)."""
    columns = values.shape[1]
    if values.shape[0] == 0:
        return np.full(columns, np.nan), np.full(columns, np.nan)
    if options.ci == "t":
        low, high = t_interval(values, 1 - options.alpha)
        return np.asarray(low), np.asarray(high)
    sums = bootstrap_sums(values, options.n_resamples, stream(options.seed, "bootstrap", names),
                          options.chunk_size)
    return quantile_bounds(sums / values.shape[0], 1 - options.alpha)


def _compare(results: dict[str, Results], measures: list[Measure], options: _Plan) -> Comparison:
    measure_names = [str(m) for m in measures]
    data = {}
    for name, result in results.items():
        data[name] = (np.asarray(result.query_ids, dtype=str), _matrix(result, measures, name))
    notes: list[str] = relevance_notes(results.values())
    grades = [r.max_grade for r in results.values() if r.max_grade is not None]
    unreached = frozenset(
        name for name, measure in zip(measure_names, measures)
        if grades and "rel" in measure.family.params and measure.param("rel") > max(grades)
    )
    return compare_values(data, measure_names, options, notes=notes, unreached=unreached)


def compare_values(
    data: Mapping[str, tuple[np.ndarray, np.ndarray]],
    measures: Sequence[str],
    options: CompareOptions | _Plan,
    *,
    baseline: str | None = None,
    notes: Iterable[str] = (),
    unreached: frozenset[str] = frozenset(),
    unit: str = "query",
) -> Comparison:
    """Compare systems from their values per unit: the statistics of :func:`compare` alone.

    The front doors that evaluate something else than queries (users of a
    recommender: :func:`rankwise.compare_recommendations`) hand their
    per-unit values here, so every comparison has the same tests,
    corrections, intervals, effect sizes and notes.

    Parameters
    ----------
    data : dict
        ``{system: (unit ids, values)}``: the ids (unique, of one type for
        all systems) and a matrix of one row per id, one column per measure
        (finite values). Pairs are compared on the ids of both.
    measures : sequence of str
        The name of each column.
    options : CompareOptions
        The statistics (a baseline given here).
    baseline : str, optional
        As in :func:`compare`.
    notes : iterable of str
        Notes to start the result's notes with.
    unreached : frozenset of str
        Measures whose all-zero differences need no note (nothing can be relevant).
    unit : {"query", "user"}
        What the ids are, as the notes and the legend name them: ``"user"``
        for the users of a recommender ("compared on the 3 users evaluated
        for both", "a held-out user a model has no list for").

    Returns
    -------
    Comparison

    Examples
    --------
    >>> data = {"a": (np.array([1, 2, 3]), np.array([[0.5], [0.2], [0.9]])),
    ...         "b": (np.array([1, 2, 3]), np.array([[0.4], [0.1], [0.7]]))}
    >>> row = compare_values(data, ["ndcg@10"], CompareOptions(test="t"), baseline="a").row(
    ...     "ndcg@10", "b")
    >>> round(row.delta, 4), round(row.p_value, 4)
    (-0.1333, 0.0572)
    """
    if unit not in _UNITS:
        raise InvalidParameterError(
            f"unit must be one of {', '.join(map(repr, _UNITS))}, got {unit!r}")
    if isinstance(options, CompareOptions):
        _check_baseline(baseline, list(data))
        options = _Plan.of(options, baseline)
    data = dict(data)
    names = list(data)
    measure_names = list(measures)
    notes = list(notes)
    system_means = {
        (measure, name): float(values[:, j].mean()) if len(ids) else math.nan
        for name, (ids, values) in data.items() for j, measure in enumerate(measure_names)
    }
    if options.baseline is not None:
        pairs = [(options.baseline, name) for name in names if name != options.baseline]
    else:
        pairs = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]

    tukey: dict[str, TukeyResult] = {}
    tested: dict[tuple[str, str], tuple[np.ndarray, list[str]]] | None = None
    dropped: dict[tuple[str, str], int] = {}
    if options.test in MANY_SYSTEM_TESTS:
        data, dropped, tukey, tested = _compare_many(data, names, pairs, measure_names,
                                                     options, notes, unit)
    by_measure: dict[int, list[ComparisonRow]] = {j: [] for j in range(len(measure_names))}
    if options.baseline is not None:
        ids, values = data[options.baseline]
        low, high = _intervals(values, options, [options.baseline])
        means = values.mean(axis=0) if len(ids) else np.full(len(measure_names), np.nan)
        for j, measure in enumerate(measure_names):
            by_measure[j].append(ComparisonRow(
                measure, options.baseline, None, len(ids), 0,
                float(means[j]), float(low[j]), float(high[j]),
            ))
    for reference, system in pairs:
        rows = _compare_pair(data[reference], data[system], reference, system,
                             measure_names, options, notes,
                             tested=None if tested is None else tested[(reference, system)],
                             dropped=dropped.get((reference, system)), unreached=unreached,
                             unit=unit)
        for j, row in enumerate(rows):
            by_measure[j].append(row)
    rows = _correct(by_measure, options)
    notes.extend(_unreachable_notes(by_measure, options))
    return Comparison(
        rows,
        measures=measure_names,
        systems=names,
        baseline=options.baseline,
        test=options.test,
        correction=options.correction,
        family=options.family,
        alpha=options.alpha,
        ci=options.ci,
        n_resamples=options.n_resamples,
        seed=options.seed,
        notes=notes,
        tukey=tukey,
        unit=unit,
        system_means=system_means,
    )


# what the ids of compare_values are: {unit: (plural, who a missing='zero' would keep)}
_UNITS = {"query": ("queries", "a judged query a run missed"),
          "user": ("users", "a held-out user a model has no list for")}


def _compare_many(
    data: dict[str, tuple[np.ndarray, np.ndarray]],
    names: list[str],
    pairs: list[tuple[str, str]],
    measures: list[str],
    options: _Plan,
    notes: list[str],
    unit: str = "query",
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[tuple[str, str], int],
           dict[str, TukeyResult], dict[tuple[str, str], tuple[np.ndarray, list[str]]]]:
    """Tukey's HSD (or its randomised version) of every measure, over the common queries.

    Returns the data restricted to the queries evaluated for every system,
    the queries each pair loses to that restriction, the result per measure,
    and each pair's p-values and methods.
    """
    from functools import reduce

    from rankwise.stats import randomized_tukey_hsd, tukey_hsd

    common = reduce(np.intersect1d, [ids for ids, _ in data.values()])
    restricted = {}
    for name, (ids, values) in data.items():
        _, positions, _ = np.intersect1d(ids, common, assume_unique=True, return_indices=True)
        restricted[name] = (common, values[positions])
    label = TEST_LABELS[options.test]
    union = reduce(np.union1d, [ids for ids, _ in data.values()])
    plural, kept = _UNITS[unit]
    if len(union) > len(common):
        notes.append(
            f"{label}: compared on the {counted(len(common), unit, plural)} evaluated for every "
            f"system; {len(union) - len(common)} evaluated for only some "
            f"{'was' if len(union) - len(common) == 1 else 'were'} left out "
            f"(missing='zero' scores {kept} as 0 and keeps it)"
        )
    if len(common) < 2:
        raise InvalidParameterError(
            f"{label} needs at least 2 {plural} evaluated for every system, got {len(common)}"
        )
    dropped = {
        (reference, system): len(np.union1d(data[reference][0], data[system][0])) - len(common)
        for reference, system in pairs
    }
    results: dict[str, TukeyResult] = {}
    for j, measure in enumerate(measures):
        matrix = np.stack([restricted[name][1][:, j] for name in names])
        if options.test == "tukey":
            results[measure] = tukey_hsd(matrix, alpha=options.alpha)
        else:
            results[measure] = randomized_tukey_hsd(
                matrix, n_resamples=options.n_resamples, alpha=options.alpha,
                seed=stream(options.seed, options.test, names), chunk_size=options.chunk_size,
            )
    index = {name: i for i, name in enumerate(names)}
    tested = {
        (reference, system): (
            np.array([results[m].p_values[index[system], index[reference]] for m in measures]),
            [results[m].p_method for m in measures],
        )
        for reference, system in pairs
    }
    return restricted, dropped, results, tested


def _compare_pair(
    reference_data: tuple[np.ndarray, np.ndarray],
    system_data: tuple[np.ndarray, np.ndarray],
    reference: str,
    system: str,
    measures: list[str],
    options: _Plan,
    notes: list[str],
    *,
    tested: tuple[np.ndarray, list[str]] | None = None,
    dropped: int | None = None,
    unreached: frozenset[str] = frozenset(),
    unit: str = "query",
) -> list[ComparisonRow]:
    """The rows of one pair; *tested* gives p-values computed over all systems at once."""
    reference_ids, reference_values = reference_data
    system_ids, system_values = system_data
    _, in_system, in_reference = np.intersect1d(
        system_ids, reference_ids, assume_unique=True, return_indices=True
    )
    x = system_values[in_system]
    y = reference_values[in_reference]
    n = len(in_system)
    label = f"{system} vs {reference}"
    if dropped is None:
        dropped = len(system_ids) + len(reference_ids) - 2 * n
        said = False
    else:  # the many-system tests say it once for all pairs
        said = True
    plural, kept = _UNITS[unit]
    if dropped and not said:
        notes.append(
            f"{label}: compared on the {counted(n, unit, plural)} evaluated for both; {dropped} "
            f"evaluated for only one {'was' if dropped == 1 else 'were'} left out "
            f"(missing='zero' scores {kept} as 0 and keeps it)"
        )
    columns = len(measures)
    if n == 0:
        notes.append(f"{label}: no {unit} was evaluated for both; nothing to compare")
        return [
            ComparisonRow(measure, system, reference, 0, dropped, math.nan, math.nan, math.nan,
                          method="no queries")
            for measure in measures
        ]
    d = x - y
    if tested is not None:
        p_values, methods = tested
    else:
        keyword: dict[str, Any] = {}
        if options.test in RESAMPLING_TESTS:
            keyword = {
                "n_resamples": options.n_resamples,
                "seed": stream(options.seed, options.test, [reference, system]),
                "chunk_size": options.chunk_size,
            }
        outcome = TESTS[options.test](d, **keyword)
        p_values = np.asarray(outcome.p_value, dtype=np.float64)
        methods = list(outcome.method)
        if n < 2 and options.test in ("t-test", "bootstrap"):
            notes.append(f"{label}: the {options.test} needs at least 2 {plural}; p is NaN")
        for j in np.flatnonzero(np.asarray(outcome.n) == 0):
            # (one query and the t-test or bootstrap: p is NaN, as the note above says)
            if measures[j] not in unreached and not np.isnan(np.atleast_1d(p_values)[j]):
                every = "the one difference is" if n == 1 else f"all {counted(n, 'difference')} are"
                notes.append(f"{measures[j]}: {label}: {every} zero; p = 1")
    if options.ci == "t":
        mean_low, mean_high = (np.asarray(v) for v in t_interval(x, 1 - options.alpha))
        delta_low, delta_high = (np.asarray(v) for v in t_interval(d, 1 - options.alpha))
    else:
        # the differences in one orientation (the later name minus the earlier), so that
        # a pair gives the same bits, up to the sign, whatever the order of the runs
        flip = system < reference
        sums = bootstrap_sums(np.hstack([x, -d if flip else d]), options.n_resamples,
                              stream(options.seed, "bootstrap", [reference, system]),
                              options.chunk_size)
        low, high = quantile_bounds(sums / n, 1 - options.alpha)
        mean_low, mean_high = low[:columns], high[:columns]
        delta_low, delta_high = low[columns:], high[columns:]
        if flip:
            delta_low, delta_high = -delta_high, -delta_low
    effect = np.asarray(cohens_dz(d))
    wins, ties, losses = wins_ties_losses(d)
    leans = direction_of(options.test, d)
    x_mean, y_mean, delta = x.mean(axis=0), y.mean(axis=0), d.mean(axis=0)
    return [
        ComparisonRow(
            measure=measure,
            system=system,
            baseline=reference,
            n_queries=n,
            n_dropped=dropped,
            mean=float(x_mean[j]),
            ci_low=float(mean_low[j]),
            ci_high=float(mean_high[j]),
            baseline_mean=float(y_mean[j]),
            delta=float(delta[j]),
            delta_ci_low=float(delta_low[j]),
            delta_ci_high=float(delta_high[j]),
            p_value=float(p_values[j]),
            effect_size=float(effect[j]),
            wins=int(wins[j]),
            ties=int(ties[j]),
            losses=int(losses[j]),
            method=methods[j],
            direction=int(leans[j]),
        )
        for j, measure in enumerate(measures)
    ]


def _correct(by_measure: dict[int, list[ComparisonRow]], options: _Plan) -> list[ComparisonRow]:
    """Fill ``p_adjusted`` and ``significant`` over each family of hypotheses."""
    from dataclasses import replace

    families: list[list[tuple[int, int]]]
    positions = [(j, i) for j, rows in by_measure.items() for i, row in enumerate(rows)
                 if row.baseline is not None]
    if options.family == "all":
        families = [positions]
    else:
        families = [[(j, i) for (j, i) in positions if j == measure] for measure in by_measure]
    adjusted: dict[tuple[int, int], float] = {}
    for members in families:
        p = np.array([by_measure[j][i].p_value for j, i in members], dtype=np.float64)
        for key, value in zip(members, adjust_pvalues(p, options.correction)):
            adjusted[key] = float(value)
    out = []
    for j, rows in by_measure.items():
        for i, row in enumerate(rows):
            if (j, i) in adjusted:
                value = adjusted[(j, i)]
                row = replace(row, p_adjusted=value,
                              significant=bool(not math.isnan(value) and value <= options.alpha))
            out.append(row)
    return out


def _smallest_p(row: ComparisonRow, options: _Plan) -> tuple[float, str] | None:
    """The smallest p-value the test could give this row, and why (None: no useful bound)."""
    if row.baseline is None or math.isnan(row.p_value) or row.wins is None:
        return None
    k = row.wins + (row.losses or 0)
    if k == 0:
        return None
    label = TEST_LABELS[options.test]
    if not label[0].isupper():
        label = "the " + label
    exact = f"with {counted(k, 'non-zero difference')}, the smallest p-value {label} can give"
    sampled = (f"with {counted(options.n_resamples, 'resample', grouped=True)}, the smallest "
               f"p-value {label} can give")
    if options.test == "randomization":
        if row.method == "exact":
            return 2.0 / 2.0**k, f"{exact} is 2/2^{k}"
        return 1.0 / (options.n_resamples + 1), f"{sampled} is 1/{options.n_resamples + 1:,}"
    if options.test == "sign" or (options.test == "wilcoxon" and row.method == "exact"):
        return min(1.0, 2.0 / 2.0**k), f"{exact} is 2/2^{k}"
    if options.test == "bootstrap":
        return 1.0 / (options.n_resamples + 1), f"{sampled} is 1/{options.n_resamples + 1:,}"
    return None


def _unreachable_notes(by_measure: dict[int, list[ComparisonRow]], options: _Plan) -> list[str]:
    """Say when no difference could be significant, whatever the data: too few queries.

    The bound is the smallest p-value the test can give with the row's
    number of non-zero differences (or resamples), multiplied by the family
    size for Bonferroni (its smallest adjusted p-value). Holm's step-down
    multiplies the largest p-value of the family by 1 only, so its bound is
    the test's own: a row that is not the smallest can still be significant.
    """
    compared = {j: [r for r in rows if r.baseline is not None and not math.isnan(r.p_value)]
                for j, rows in by_measure.items()}
    if options.family == "all":
        size = sum(len(rows) for rows in compared.values())
        sizes = dict.fromkeys(compared, size)
    else:
        sizes = {j: len(rows) for j, rows in compared.items()}
    factor_of = {"bonferroni": True}
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for j, rows in compared.items():
        for row in rows:
            found = _smallest_p(row, options)
            if found is None:
                continue
            smallest, why = found
            factor = sizes[j] if factor_of.get(options.correction) and sizes[j] > 1 else 1
            bound = min(1.0, smallest * factor)
            if bound <= options.alpha:
                continue
            text = f"{why} = {smallest:.4g}"
            if smallest <= options.alpha:  # the correction makes it out of reach
                text += (f" ({bound:.4g} after the {CORRECTIONS[options.correction]} correction "
                         f"over {factor} comparisons)")
            pairs = groups.setdefault((text, f"{bound:.4g}"), {})
            pairs.setdefault(f"{row.system} vs {row.baseline}", []).append(row.measure)
    notes = []
    for (text, _), pairs in groups.items():
        shown = [f"{pair} ({', '.join(names)})" for pair, names in list(pairs.items())[:6]]
        if len(pairs) > 6:
            shown.append(f"and {len(pairs) - 6} more pairs")
        notes.append(
            f"{'; '.join(shown)}: no difference can be significant at alpha = "
            f"{options.alpha:g}: {text}"
        )
    return notes
