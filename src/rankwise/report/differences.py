"""``DifferencesDisplay``: per-query differences against a baseline, sorted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report._mpl import (
    GAIN_COLOR,
    LOSS_COLOR,
    NAME_LIMIT,
    bars,
    literal,
    new_axes,
    shorten,
)
from rankwise.report.summaries import named_results, paired_values, sorted_profile

if TYPE_CHECKING:
    from rankwise.results import Results

__all__ = ["DifferencesDisplay"]

MAX_BARS = 60
"""Up to this many queries, one bar per query; beyond, the area the sorted bars fill."""

MAX_POINTS = 250
"""Up to this many queries the area is exact (a step per query); beyond, it is sampled."""


def _area(ax: Any, x: np.ndarray, y: np.ndarray, mask: np.ndarray, color: str,
          label: str) -> Any:
    """One polygon between the sorted values selected by *mask* and zero (a contiguous run)."""
    index = np.flatnonzero(mask)
    if len(index) == 0:
        return None
    first, last = index[0], index[-1]
    # extend to the neighbouring samples, where the curve crosses zero
    xs = x[max(first - 1, 0):last + 2]
    ys = np.clip(y[max(first - 1, 0):last + 2], *((None, 0) if y[first] < 0 else (0, None)))
    from matplotlib.patches import Polygon

    polygon = Polygon(np.column_stack([np.concatenate([[xs[0]], xs, [xs[-1]]]),
                                       np.concatenate([[0.0], ys, [0.0]])]),
                      closed=True, color=color, linewidth=0, label=label)
    # added as an artist: the limits are set by plot(), and measuring a polygon of
    # hundreds of vertices for them (as add_patch does) was a good part of a report
    ax.add_artist(polygon)
    return polygon


class DifferencesDisplay:
    """Per-query differences of one measure, system minus baseline, sorted.

    Each query is a bar, from the largest loss (left, red) to the largest
    gain (right, green); the queries with no change sit on the zero line.
    With more than :data:`MAX_BARS` queries the bars touch and are drawn as
    the area they fill (two polygons, not one shape per query); beyond
    :data:`MAX_POINTS` queries that area is drawn from a few hundred samples
    of the sorted differences (exact at the first and last query and at the
    edges of the ties), so the figure stays small whatever the number of
    queries.

    Parameters
    ----------
    differences : array-like
        One difference per query (system - baseline); NaN are ignored.
    measure, system, baseline : str
        Names for the title and the labels.

    Attributes
    ----------
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure
    artists_ : list
        The bars (one PolyCollection), or the two filled areas (losses, gains).
    sorted_ : ndarray
        The finite differences, sorted (the height of each bar).
    wins_, ties_, losses_ : int
        Queries where the system scores higher than, the same as, lower than the baseline.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> bm25 = rw.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {"x": 1.0, "b": 0.5},
    ...                            "q3": {"c": 1.0}}, "mrr")
    >>> dense = rw.evaluate(qrels, {"q1": {"x": 1.0, "a": 0.5}, "q2": {"b": 1.0},
    ...                             "q3": {"c": 1.0}}, "mrr")
    >>> display = DifferencesDisplay.from_results({"bm25": bm25, "dense": dense})
    >>> display.ax_.get_title(), (display.wins_, display.ties_, display.losses_)
    ('dense − bm25', (1, 1, 1))
    """

    def __init__(self, *, differences: Any, measure: str, system: str, baseline: str) -> None:
        self.differences = np.asarray(differences, dtype=np.float64)
        self.measure = measure
        self.system = system
        self.baseline = baseline

    @classmethod
    def from_results(
        cls,
        results: Mapping[str, Results] | Sequence[Results],
        measure: str | Measure | None = None,
        *,
        system: str | None = None,
        baseline: str | None = None,
        ax: Any = None,
        **kwargs: Any,
    ) -> DifferencesDisplay:
        """Draw the differences between two systems, on the queries evaluated for both.

        Parameters
        ----------
        results : list of Results or dict ``{name: Results}``
            At least two systems.
        measure : str or Measure, optional
            Default: the first measure of the baseline's results.
        system : str, optional
            Default: the first system that is not the baseline.
        baseline : str, optional
            Default: the first system.
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        DifferencesDisplay
        """
        named = named_results(results)
        names = list(named)
        baseline = names[0] if baseline is None else baseline
        if baseline not in named:
            raise InvalidParameterError(f"baseline {baseline!r} is not one of the systems {names}")
        if system is None:
            others = [name for name in names if name != baseline]
            if not others:
                raise InvalidParameterError(
                    f"differences need two systems; got only {names}"
                )
            system = others[0]
        if system not in named:
            raise InvalidParameterError(f"system {system!r} is not one of the systems {names}")
        if measure is None:
            measure = named[baseline].measures[0]
        _, base, values = paired_values(named[baseline], named[system], measure)
        return cls(differences=values - base, measure=str(measure), system=system,
                   baseline=baseline).plot(ax=ax, **kwargs)

    def plot(
        self, ax: Any = None, *, max_bars: int = MAX_BARS, max_points: int = MAX_POINTS,
        annotate: bool = True, labels: bool = True, name_limit: int = NAME_LIMIT,
    ) -> DifferencesDisplay:
        """Draw the sorted differences.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        max_bars : int
            Up to this many queries, one bar each; beyond, the area they fill.
        max_points : int
            Up to this many queries the area has a step per query; beyond,
            it is drawn from this many samples of the sorted differences.
        annotate : bool
            Write the counts of queries better, tied and worse on the plot.
        labels : bool
            Label the axes (small multiples may label only the outer ones).
        name_limit : int
            Longer system names are shortened in the title.

        Returns
        -------
        DifferencesDisplay
            ``self``, with :attr:`ax_`, :attr:`figure_`, :attr:`artists_` and the counts set.
        """
        figure, ax = new_axes(ax, "DifferencesDisplay.plot")
        d = self.differences[np.isfinite(self.differences)]
        n = len(d)
        self.wins_ = int((d > 0).sum())
        self.ties_ = int((d == 0).sum())
        self.losses_ = int((d < 0).sum())
        ordered = np.sort(d)
        self.sorted_ = ordered
        if n <= max_bars:
            colors = np.where(ordered > 0, GAIN_COLOR, LOSS_COLOR).tolist()
            position = np.arange(1, n + 1, dtype=np.float64)
            self.artists_ = [bars(ax, position - 0.4, position + 0.4, ordered, colors)]
        else:
            if n <= max_points:  # every query is a step: the bars, drawn as one outline
                positions = np.repeat(np.arange(1, n + 1, dtype=np.float64), 2)
                positions += np.tile([-0.5, 0.5], n)
                values = np.repeat(ordered, 2)
            else:
                positions, values = sorted_profile(ordered, max_points)
            self.artists_ = [
                _area(ax, positions, values, values < 0, LOSS_COLOR, "worse"),
                _area(ax, positions, values, values > 0, GAIN_COLOR, "better"),
            ]
        ax.axhline(0, color="#555555", linewidth=0.8)
        if n:
            mean = float(d.mean())
            ax.axhline(mean, color="black", linewidth=0.9, linestyle="--")
            ax.set_xlim(0.5, n + 0.5)
            top = float(np.abs(d).max()) or 1.0
            ax.set_ylim(-top * 1.08, top * 1.08)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))  # queries are counted
        ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
        ax.grid(axis="x", visible=False)
        ax.set_title(literal(f"{shorten(self.system, name_limit)} − "
                             f"{shorten(self.baseline, name_limit)}"))
        if labels:
            ax.set_xlabel(f"queries, sorted by difference (n = {n:,})")
            ax.set_ylabel(literal(f"Δ {self.measure}"))
        if annotate:
            mean_text = f"mean {d.mean():+.4f}" if n else "no query"
            ax.text(0.02, 0.97, f"{self.wins_:,} better · {self.ties_:,} tied · "
                    f"{self.losses_:,} worse\n{mean_text}",
                    transform=ax.transAxes, va="top", ha="left", fontsize=7.5,
                    color="#333333")
        self.ax_ = ax
        self.figure_ = figure
        return self
