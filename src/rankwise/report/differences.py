"""Per-query differences against a baseline, sorted: one row per measure, one column per system.

:func:`differences_svg` draws the figure on a
:class:`~rankwise.report.svg.Canvas` (the HTML report, ``rankwise plot``);
:class:`DifferencesDisplay` replays one panel onto matplotlib axes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report.layout import (
    BELOW,
    GAIN_COLOR,
    LEFT,
    LOSS_COLOR,
    NOTE_SIZE,
    TITLE,
    TITLE_SIZE,
    Axes,
    finite,
    names_text,
    nice_ticks,
    shorten,
)
from rankwise.report.protocols import ResultsLike
from rankwise.report.summaries import named_results, paired_index, sorted_profile
from rankwise.report.svg import Canvas, Panel

__all__ = ["MAX_BARS", "MAX_POINTS", "DifferencesDisplay", "differences_canvas",
           "differences_svg"]

MAX_BARS = 60
"""Up to this many queries, one bar per query; beyond, the area the sorted bars fill."""

MAX_POINTS = 250
"""Up to this many queries the area is exact (a step per query); beyond, it is sampled."""

Row = tuple[str, Sequence[tuple[str, np.ndarray]]]


def _check_systems(names: list[str], baseline: str) -> list[str]:
    if baseline not in names:
        raise InvalidParameterError(f"baseline {baseline!r} is not one of the systems {names}")
    others = [name for name in names if name != baseline]
    if not others:
        raise InvalidParameterError(f"differences need two systems; got only {names}")
    return others


def differences_svg(results: Mapping[str, ResultsLike], measures: Sequence[str | Measure],
                    baseline: str, *, key: str = "rankwise-differences") -> Canvas:
    """Panels of sorted per-query differences: one row per measure, one column per system.

    Up to :data:`MAX_BARS` queries a bar each; up to :data:`MAX_POINTS` the
    area the bars fill (a step per query); beyond, that area drawn from
    samples of the sorted differences (exact at the ends and at the edges of
    the ties). The panels of a row share their y scale; the x ticks are the
    first and the last query (whole numbers). The differences are taken on
    the queries evaluated for both systems.
    """
    others = _check_systems(list(results), baseline)
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg@10']")
    pairs = {system: paired_index(results[baseline], results[system]) for system in others}
    rows = []
    for measure in map(str, measures):
        base = results[baseline][measure]
        rows.append((measure, [(system, finite(results[system][measure][pairs[system][2]]
                                               - base[pairs[system][1]]))
                               for system in others]))
    return differences_canvas(rows, baseline, key=key)


def differences_canvas(rows: Sequence[Row], baseline: str, *, max_bars: int = MAX_BARS,
                       max_points: int = MAX_POINTS, annotate: bool = True,
                       labels: bool = True, name_limit: int | None = None,
                       key: str = "rankwise-differences", unit: str = "query") -> Canvas:
    """The figure from its numbers: ``(measure, [(system, finite differences)])`` per row.

    *unit* names what has a value (``"user"`` for a recommender's users).
    """
    units = "queries" if unit == "query" else f"{unit}s"
    texts = [measure for measure, _ in rows]
    others = [system for system, _ in rows[0][1]] if rows else []
    n_rows, columns = len(rows), max(len(others), 1)
    width = min(max(403.0 * columns, 768.0), 1248.0)
    left, right, gap = LEFT + 10, 14.0, 19.0
    plot_width = (width - left - right - gap * (columns - 1)) / columns
    panel, row_gap = 149.0, TITLE + 24
    canvas = Canvas(width, TITLE + n_rows * panel + (n_rows - 1) * row_gap + BELOW, key=key,
                    title=f"Per-{unit} differences against {shorten(baseline)}",
                    desc=f"For {', '.join(texts)}: each system's per-{unit} value minus "
                         f"{shorten(baseline)}'s, sorted, for {names_text(others)}.")
    room = max(int(plot_width / (TITLE_SIZE * 0.6) / 2) - 2, 8) if name_limit is None \
        else name_limit
    for r, (measure, differences) in enumerate(rows):
        top = max((float(np.abs(d).max()) for _, d in differences if len(d)),
                  default=0.0) or 1.0
        for c, (system, d) in enumerate(differences):
            n = len(d)
            ax = Axes(left + c * (plot_width + gap), TITLE + r * (panel + row_gap),
                      plot_width, panel, (0.5, max(n, 1) + 0.5), (-top * 1.08, top * 1.08))
            title = f"{shorten(system, room)} − {shorten(baseline, room)}"
            plot = canvas.panel(ax, **{"data-title": title, "data-measure": measure,
                                       "data-n": n})
            last = r == n_rows - 1
            plot.frame(xticks=sorted({1, n}) if n else [],
                       yticks=nice_ticks(*ax.ylim, 4) if c == 0 else None,
                       xgrid=False, ygrid=False, title=title,
                       xlabel=f"{units}, sorted by difference" if last and labels else "",
                       ylabel=f"Δ {measure}" if c == 0 and labels else "")
            _differences_panel(plot, np.sort(d), max_bars, max_points, annotate, key=system)
            plot.close()
    return canvas


def _differences_panel(plot: Panel, ordered: np.ndarray, max_bars: int, max_points: int,
                       annotate: bool, *, key: str) -> None:
    n = len(ordered)
    if 0 < n <= max_bars:
        position = np.arange(1, n + 1, dtype=np.float64)
        zero = np.zeros(n)
        for mask, color, css in ((ordered < 0, LOSS_COLOR, "loss"),
                                 (ordered > 0, GAIN_COLOR, "gain")):
            if mask.any():
                plot.rects(position[mask] - 0.4, zero[mask], position[mask] + 0.4,
                           ordered[mask], color=color, attrs={"class": f"bars {css}"}, key=key)
    elif n:
        if n <= max_points:  # every query is a step
            positions = np.repeat(np.arange(1, n + 1, dtype=np.float64), 2)
            positions += np.tile([-0.5, 0.5], n)
            values = np.repeat(ordered, 2)
        else:
            positions, values = sorted_profile(ordered, max_points)
        for mask, color, css in ((values < 0, LOSS_COLOR, "loss"),
                                 (values > 0, GAIN_COLOR, "gain")):
            index = np.flatnonzero(mask)
            if len(index) == 0:
                continue
            first, last = index[0], index[-1]
            xs = positions[max(first - 1, 0):last + 2]  # to where the curve crosses zero
            ys = values[max(first - 1, 0):last + 2]
            ys = np.minimum(ys, 0.0) if css == "loss" else np.maximum(ys, 0.0)
            plot.polygon(np.concatenate([[xs[0]], xs, [xs[-1]]]),
                         np.concatenate([[0.0], ys, [0.0]]), color=color,
                         attrs={"class": f"area {css}"}, key=key)
    plot.hline(0.0, color="#555555", width=0.8, css="zero")
    if n:
        plot.hline(ordered.mean(), color="#000000", width=0.9, dash="4 3", css="mean")
    if not annotate:
        return
    wins, ties, losses = (int((ordered > 0).sum()), int((ordered == 0).sum()),
                          int((ordered < 0).sum()))
    lines = (f"{wins:,} better · {ties:,} tied · {losses:,} worse",
             f"mean {ordered.mean():+.4f}" if n else "no query")
    for place, line in enumerate(lines):  # in the top left corner, over the data
        plot.text(0.02, 1.0, line, xcoord="axes", ycoord="axes",
                  dy=4 + NOTE_SIZE * 1.25 * place, size=NOTE_SIZE, color="#333333",
                  hang=True, halo=True, css="note")


class DifferencesDisplay:
    """Per-query differences of one measure, system minus baseline, sorted.

    Each query is a bar, from the largest loss (left, red) to the largest
    gain (right, green); the queries with no change sit on the zero line.
    With more than :data:`MAX_BARS` queries the bars touch and are drawn as
    the area they fill (two polygons, not one shape per query); beyond
    :data:`MAX_POINTS` queries that area is drawn from a few hundred samples
    of the sorted differences (exact at the first and last query and at the
    edges of the ties), so the figure stays small whatever the number of
    queries. The panel is the one of the HTML report.

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
        The bars (losses, gains: a PolyCollection each), or the two filled areas.
    sorted_ : ndarray
        The finite differences, sorted (the height of each bar).
    wins_, ties_, losses_ : int
        Queries where the system scores higher than, the same as, lower than the baseline.
    canvas_ : Canvas
        The figure as rankwise drew it (``canvas_.svg()``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
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
        results: Mapping[str, ResultsLike] | Sequence[ResultsLike],
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
        others = _check_systems(names, baseline)
        system = others[0] if system is None else system
        if system not in named:
            raise InvalidParameterError(f"system {system!r} is not one of the systems {names}")
        if measure is None:
            measure = named[baseline].measures[0]
        _, in_base, in_system = paired_index(named[baseline], named[system])
        values = named[system][measure][in_system] - named[baseline][measure][in_base]
        return cls(differences=values, measure=str(measure), system=system,
                   baseline=baseline).plot(ax=ax, **kwargs)

    def plot(
        self, ax: Any = None, *, max_bars: int = MAX_BARS, max_points: int = MAX_POINTS,
        annotate: bool = True, labels: bool = True, name_limit: int | None = None,
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
        name_limit : int, optional
            Longer system names are shortened in the title (default: what fits).

        Returns
        -------
        DifferencesDisplay
            ``self``, with :attr:`ax_`, :attr:`figure_`, :attr:`artists_` and the counts set.
        """
        from rankwise.report._mpl import draw

        d = finite(self.differences)
        self.sorted_ = np.sort(d)
        self.wins_ = int((d > 0).sum())
        self.ties_ = int((d == 0).sum())
        self.losses_ = int((d < 0).sum())
        canvas = differences_canvas([(self.measure, [(self.system, d)])], self.baseline,
                                    max_bars=max_bars, max_points=max_points, annotate=annotate,
                                    labels=labels, name_limit=name_limit)
        drawn = draw(canvas, ax=ax, pyplot=True)
        self.artists_ = [artist for _, artist in (*drawn.of_class("bars"),
                                                  *drawn.of_class("area"))]
        self.canvas_ = canvas
        self.ax_, self.figure_ = drawn.axes[0], drawn.figure
        return self
