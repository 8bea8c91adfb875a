"""``DistributionDisplay``: the distribution of per-query values of one measure, per system."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report._mpl import bars, color_of, literal, new_axes, shorten
from rankwise.report.figure_data import box_stats
from rankwise.report.summaries import histogram_edges, named_results

if TYPE_CHECKING:
    from rankwise.results import Results

__all__ = ["DistributionDisplay"]

_KINDS = ("hist", "box")


class DistributionDisplay:
    """How the per-query values of one measure are spread, for each system.

    ``kind="hist"`` draws grouped bars: the share of queries in each bin,
    one bar per system, with each system's mean as a triangle on the top
    edge (a mean says nothing of how many queries fail completely; the bar
    at 0 does).
    ``kind="box"`` draws one box per system (quartiles, whiskers at the 5th
    and 95th percentiles, a diamond at the mean).

    Parameters
    ----------
    values : dict
        ``{system: per-query values}``.
    measure : str
        The measure's name (title and axis label).

    Attributes
    ----------
    ax_ : matplotlib.axes.Axes
    figure_ : matplotlib.figure.Figure
    artists_ : dict
        ``{system: the bars (hist: one PolyCollection) or the box (box)}``.
    shares_ : dict
        hist: ``{system: % of queries in each bin}``.
    means_ : dict
        ``{system: mean of the finite values}``.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> run = {"q1": {"a": 1.0}, "q2": {"x": 1.0, "b": 0.5}, "q3": {"x": 1.0}}
    >>> display = DistributionDisplay.from_results(rw.evaluate(qrels, run, "mrr"))
    >>> display.ax_.get_xlabel(), display.ax_.get_ylabel(), round(display.means_["run"], 3)
    ('mrr', '% of queries', 0.5)
    """

    def __init__(self, *, values: Mapping[str, Any], measure: str) -> None:
        self.values = {str(k): np.asarray(v, dtype=np.float64) for k, v in values.items()}
        self.measure = measure

    @classmethod
    def from_results(
        cls,
        results: Results | Mapping[str, Results] | Sequence[Results],
        measure: str | Measure | None = None,
        *,
        ax: Any = None,
        **kwargs: Any,
    ) -> DistributionDisplay:
        """Draw the distribution of *measure* for each system from their results.

        Parameters
        ----------
        results : Results, list of Results, or dict ``{name: Results}``
            One or more systems.
        measure : str or Measure, optional
            Default: the first measure of the first results.
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        **kwargs
            Passed to :meth:`plot` (``kind="box"`` for box plots).

        Returns
        -------
        DistributionDisplay
        """
        named = named_results(results)
        if measure is None:
            measure = next(iter(named.values())).measures[0]
        values = {name: item[measure] for name, item in named.items()}
        return cls(values=values, measure=str(measure)).plot(ax=ax, **kwargs)

    def plot(
        self, ax: Any = None, *, kind: str = "hist", legend: bool = True
    ) -> DistributionDisplay:
        """Draw the distribution.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        kind : {"hist", "box"}
            Grouped histogram bars, or box plots.
        legend : bool
            Add a legend (hist: systems and their means; box: the mean marker).

        Returns
        -------
        DistributionDisplay
            ``self``, with :attr:`ax_`, :attr:`figure_`, :attr:`artists_` set.
        """
        if kind not in _KINDS:
            raise InvalidParameterError(f"kind must be 'hist' or 'box', got {kind!r}")
        figure, ax = new_axes(ax, "DistributionDisplay.plot")
        finite = {name: v[np.isfinite(v)] for name, v in self.values.items()}
        self.means_ = {
            name: float(v.mean()) if len(v) else float("nan") for name, v in finite.items()
        }
        if kind == "hist":
            self._hist(ax, finite, legend)
        else:
            self._box(ax, finite, legend)
        ax.set_title(literal(self.measure), pad=12 if kind == "hist" else 6)  # the mean marks
        self.ax_ = ax
        self.figure_ = figure
        return self

    def _hist(self, ax: Any, finite: dict[str, np.ndarray], legend: bool) -> None:
        edges = histogram_edges(list(finite.values()))
        centres = (edges[:-1] + edges[1:]) / 2
        widths = np.diff(edges)
        systems = len(finite)
        bar_width = widths * 0.84 / max(systems, 1)
        self.artists_ = {}
        self.shares_ = {}
        for index, (name, values) in enumerate(finite.items()):
            counts, _ = np.histogram(values, bins=edges)
            share = 100.0 * counts / max(len(values), 1)
            offset = (index - (systems - 1) / 2) * bar_width
            color = color_of(index)
            mean = self.means_[name]
            start = centres + offset - bar_width / 2
            self.shares_[name] = share
            self.artists_[name] = bars(ax, start, start + bar_width, share, color,
                                       literal(f"{shorten(name)} (mean {mean:.3f})"))
            if np.isfinite(mean):  # a triangle on the top edge: the mean, not hiding bars
                ax.plot([mean], [1.0], marker="v", markersize=7.5, color=color,
                        markeredgecolor="white", markeredgewidth=0.6, linestyle="none",
                        transform=ax.get_xaxis_transform(), clip_on=False, zorder=4)
        from matplotlib.ticker import MaxNLocator

        ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
        unit = edges[0] == -0.05 and edges[-1] == 1.05 and len(edges) == 12
        if unit:  # bins centred on 0, 0.1, ..., 1: a label every other bin
            ticks = np.round(np.linspace(0, 1, 6), 1)
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
            ax.set_xlim(-0.06, 1.06)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
        ax.grid(axis="x", visible=False)
        ax.set_xlabel(literal(self.measure))
        ax.set_ylabel("% of queries")
        if legend:
            ax.legend(loc="best")

    def _box(self, ax: Any, finite: dict[str, np.ndarray], legend: bool) -> None:
        import matplotlib

        names = list(finite)
        positions = np.arange(1, len(names) + 1)
        data = [finite[name] if len(finite[name]) else np.array([np.nan]) for name in names]
        major, minor = (int(part) for part in matplotlib.__version__.split(".")[:2])
        direction = (
            {"orientation": "horizontal"} if (major, minor) >= (3, 10) else {"vert": False}
        )
        boxes = ax.boxplot(
            data, positions=positions, whis=(5, 95), showfliers=False, patch_artist=True,
            widths=0.6, medianprops={"color": "black", "linewidth": 1.2}, **direction,
        )
        self.artists_ = {}
        for index, (name, patch) in enumerate(zip(names, boxes["boxes"])):
            patch.set_facecolor(color_of(index))
            patch.set_alpha(0.85)
            self.artists_[name] = patch
        for index, name in enumerate(names):  # beyond the whiskers: a point per distinct value
            if len(finite[name]):
                outliers = box_stats(finite[name]).outliers
                ax.scatter(outliers, np.full(len(outliers), positions[index]), marker="o",
                           s=16, facecolor="white", edgecolor=color_of(index),
                           linewidth=1.0, zorder=3)
        means = [self.means_[name] for name in names]
        ax.scatter(means, positions, marker="D", s=28, color="white", edgecolor="black",
                   zorder=3, label="mean")
        ax.set_yticks(positions, [literal(shorten(name)) for name in names])
        ax.set_ylim(len(names) + 0.6, 0.4)  # first system on top
        ax.grid(axis="y", visible=False)
        ax.set_xlabel(literal(self.measure))
        if legend:  # above the axes, right: never over a box
            ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.1,
                      handletextpad=0.2)
