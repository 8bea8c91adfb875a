"""``ComparisonDisplay``: mean differences with confidence intervals and significance."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rankwise import _wording
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report._mpl import color_of, literal, new_axes, shorten

if TYPE_CHECKING:
    from rankwise.comparison import Comparison, ComparisonRow

__all__ = ["ComparisonDisplay", "comparison_labels", "format_p"]


def format_p(p: float) -> str:
    """A p-value in four decimals (``<0.0001`` below), ``–`` for NaN (``_wording.format_p``).

    Examples
    --------
    >>> format_p(0.03125), format_p(2e-6), format_p(float("nan"))
    ('0.0312', '<0.0001', '–')
    """
    return _wording.format_p(p, nan="–")


def comparison_labels(rows: Sequence[ComparisonRow]) -> list[str]:
    """The row labels of a :class:`ComparisonDisplay`, top to bottom (names shortened).

    ``system`` alone with one measure and one baseline; ``measure · system``
    with several measures; ``system − baseline`` with several baselines.
    """
    compared = [row for row in rows if row.baseline is not None]
    several_measures = len({row.measure for row in compared}) > 1
    several_baselines = len({row.baseline for row in compared}) > 1
    labels = []
    for row in compared:
        label = shorten(row.system)
        if several_baselines:
            label += f" − {shorten(row.baseline)}"
        if several_measures:
            label = f"{row.measure} · {label}"
        labels.append(label)
    return labels


class ComparisonDisplay:
    """Each system's mean difference from the baseline, with its confidence interval.

    One row per measure and system (a "forest plot"): the dot is the mean
    paired difference, the bar its confidence interval, and the dot is
    filled when the difference is significant after the correction for
    multiple comparisons, hollow otherwise. The corrected p-value is written
    on the right.

    Parameters
    ----------
    rows : sequence of ComparisonRow
        Rows that compare two systems (``row.baseline`` set).
    systems : sequence of str
        All system names, in order (fixes each system's colour).
    alpha : float
        The significance level.
    confidence : float
        The level of the intervals.

    Attributes
    ----------
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure
    labels_ : list of str
        The row labels, top to bottom.

    Examples
    --------
    >>> from rankwise.comparison import compare
    >>> qrels = {f"q{i}": {"good": 1} for i in range(8)}
    >>> bm25 = {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(8)}
    >>> dense = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(8)}
    >>> comparison = compare(qrels, {"bm25": bm25, "dense": dense}, ["mrr", "P@1"],
    ...                      baseline="bm25", seed=0)
    >>> display = ComparisonDisplay.from_comparison(comparison)
    >>> display.labels_
    ['mrr · dense', 'P@1 · dense']
    """

    def __init__(
        self, *, rows: Sequence[ComparisonRow], systems: Sequence[str], alpha: float,
        confidence: float,
    ) -> None:
        self.rows = [row for row in rows if row.baseline is not None]
        self.systems = list(systems)
        self.alpha = alpha
        self.confidence = confidence

    @classmethod
    def from_comparison(
        cls,
        comparison: Comparison,
        measures: str | Measure | Iterable[str | Measure] | None = None,
        *,
        ax: Any = None,
        **kwargs: Any,
    ) -> ComparisonDisplay:
        """Draw the differences of a :class:`~rankwise.comparison.Comparison`.

        Parameters
        ----------
        comparison : Comparison
            From :func:`rankwise.comparison.compare`.
        measures : str, Measure or list, optional
            Which measures (default: all of the comparison).
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        ComparisonDisplay
        """
        if measures is None:
            wanted = list(comparison.measures)
        else:
            items = [measures] if isinstance(measures, (str, Measure)) else list(measures)
            wanted = []
            for item in items:
                name = str(item)
                if name not in comparison.measures:
                    from rankwise.measures import parse

                    name = str(parse(name))
                if name not in comparison.measures:
                    raise InvalidParameterError(
                        f"measure {str(item)!r} is not in the comparison; it holds "
                        f"{list(comparison.measures)}"
                    )
                wanted.append(name)
        order = {name: i for i, name in enumerate(wanted)}
        rows = sorted(
            (row for row in comparison.rows if row.measure in order and row.baseline is not None),
            key=lambda row: order[row.measure],
        )
        return cls(rows=rows, systems=comparison.systems, alpha=comparison.alpha,
                   confidence=comparison.confidence).plot(ax=ax, **kwargs)

    def plot(self, ax: Any = None, *, annotate: bool = True) -> ComparisonDisplay:
        """Draw the intervals.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        annotate : bool
            Write the corrected p-value of each row on the right.

        Returns
        -------
        ComparisonDisplay
            ``self``, with :attr:`ax_`, :attr:`figure_` and :attr:`labels_` set.
        """
        from matplotlib.lines import Line2D

        figure, ax = new_axes(ax, "ComparisonDisplay.plot")
        baselines = {row.baseline for row in self.rows}
        self.labels_ = comparison_labels(self.rows)
        positions = []
        y = 0.0
        previous = None
        for row in self.rows:
            if previous is not None and row.measure != previous:
                y += 0.6  # a gap between the measures
            previous = row.measure
            positions.append(y)
            index = self.systems.index(row.system) if row.system in self.systems else 0
            color = color_of(index)
            low = row.delta - row.delta_ci_low
            high = row.delta_ci_high - row.delta
            error = None if math.isnan(low) or math.isnan(high) else [[low], [high]]
            ax.errorbar([row.delta], [y], xerr=error, fmt="none", ecolor=color,
                        elinewidth=1.6, capsize=3)
            ax.plot([row.delta], [y], marker="o", markersize=6.5, linestyle="none",
                    markeredgecolor=color, markeredgewidth=1.4,
                    markerfacecolor=color if row.significant else "white")
            if annotate:
                marker = " *" if row.significant else ""
                ax.annotate(f"p = {format_p(row.p_adjusted)}{marker}", (1.0, y),
                            xycoords=("axes fraction", "data"), xytext=(4, 0),
                            textcoords="offset points", va="center", fontsize=7.5)
            y += 1.0
        ax.axvline(0, color="#555555", linewidth=0.8)
        ax.set_yticks(positions, [literal(label) for label in self.labels_])
        if positions:
            ax.set_ylim(positions[-1] + 0.7, positions[0] - 0.7)
        ax.grid(axis="y", visible=False)
        level = f"{self.confidence:.0%}"
        ax.set_xlabel(f"mean difference from the baseline ({level} confidence interval)")
        only = next(iter(baselines)) if len(baselines) == 1 else None
        ax.set_title(literal(f"difference from {shorten(only)}") if only else "paired differences",
                     loc="left")
        handles = [
            Line2D([], [], marker="o", linestyle="none", color="#444444",
                   label=f"significant (p_adj ≤ {self.alpha:g})"),
            Line2D([], [], marker="o", linestyle="none", color="#444444",
                   markerfacecolor="white", label="not significant"),
        ]
        ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncols=2,
                  fontsize=7.5, borderaxespad=0.3)
        self.ax_ = ax
        self.figure_ = figure
        return self
