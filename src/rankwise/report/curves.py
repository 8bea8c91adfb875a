"""``CurvesDisplay``: metric@k curves, the mean of a measure at each cutoff, per system."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.measures import Measure
from rankwise.report._mpl import color_of, literal, new_axes, shorten
from rankwise.report.summaries import curve_label, curve_template, cutoff_curve, named_results

if TYPE_CHECKING:
    from rankwise.results import Results

__all__ = ["CurvesDisplay"]

_LOG_TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


class CurvesDisplay:
    """Metric@k curves: the mean of one measure at each cutoff k, one line per system.

    Build it with :meth:`from_results` (or ``results.plot(kind="curves")``);
    the constructor takes the numbers themselves. In scikit-learn's style,
    :meth:`plot` draws and stores the matplotlib objects on the display.

    Parameters
    ----------
    curves : dict
        ``{system: (cutoffs, means)}``, two arrays of equal length.
    label : str
        What the curves show, e.g. ``"ndcg@k"`` (the title and the y axis).

    Attributes
    ----------
    ax_ : matplotlib.axes.Axes
        The axes drawn on (set by :meth:`plot`).
    figure_ : matplotlib.figure.Figure
        Its figure.
    lines_ : dict
        ``{system: matplotlib.lines.Line2D}``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> run = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"y": 2.0, "c": 1.0}}
    >>> results = rw.evaluate(qrels, run, [f"P@{k}" for k in range(1, 4)])
    >>> display = CurvesDisplay.from_results(results, "P")
    >>> display.ax_.get_ylabel(), display.lines_["run"].get_ydata().round(3).tolist()
    ('P@k', [0.5, 0.5, 0.5])
    """

    def __init__(self, *, curves: Mapping[str, tuple[Any, Any]], label: str) -> None:
        self.curves = {
            str(name): (np.asarray(k, dtype=np.int64), np.asarray(m, dtype=np.float64))
            for name, (k, m) in curves.items()
        }
        self.label = label

    @classmethod
    def from_results(
        cls,
        results: Results | Mapping[str, Results] | Sequence[Results],
        measure: str | Measure = "ndcg",
        *,
        ax: Any = None,
        max_k: int | None = None,
        **kwargs: Any,
    ) -> CurvesDisplay:
        """Draw the curve of *measure* for each system from their results.

        Parameters
        ----------
        results : Results, list of Results, or dict ``{name: Results}``
            Each must hold the measure at several cutoffs, e.g. evaluated with
            ``[f"ndcg@{k}" for k in range(1, 101)]``.
        measure : str or Measure
            The family and parameters: ``"ndcg"``, ``"P"``, ``"recall(rel=2)"``
            (a cutoff, as in ``"ndcg@10"``, is ignored).
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        max_k : int, optional
            Draw the cutoffs up to *max_k* only (default: every cutoff the
            results hold).
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        CurvesDisplay
        """
        template = curve_template(measure)
        named = named_results(results)
        curves = {name: cutoff_curve(item, template, max_k) for name, item in named.items()}
        return cls(curves=curves, label=curve_label(template)).plot(ax=ax, **kwargs)

    def plot(
        self, ax: Any = None, *, xscale: str = "auto", legend: bool = True, **line_kwargs: Any
    ) -> CurvesDisplay:
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure by default.
        xscale : {"auto", "log", "linear"}
            The k axis. ``"auto"``: logarithmic when k goes beyond 20, so
            that the top of the ranking, where most of the difference lies,
            is not squeezed into the left edge.
        legend : bool
            Add a legend of the systems.
        **line_kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        CurvesDisplay
            ``self``, with :attr:`ax_`, :attr:`figure_` and :attr:`lines_` set.
        """
        from rankwise.exceptions import InvalidParameterError

        if xscale not in ("auto", "log", "linear"):
            raise InvalidParameterError(
                f"xscale must be 'auto', 'log' or 'linear', got {xscale!r}"
            )
        from matplotlib.ticker import MaxNLocator

        figure, ax = new_axes(ax, "CurvesDisplay.plot")
        self.lines_ = {}
        max_k = 1
        for index, (name, (cutoffs, means)) in enumerate(self.curves.items()):
            options = {"color": color_of(index), "linewidth": 1.6, **line_kwargs}
            (line,) = ax.plot(cutoffs, means, label=literal(shorten(name)), **options)
            self.lines_[name] = line
            if len(cutoffs):
                max_k = max(max_k, int(cutoffs.max()))
        log = xscale == "log" or (xscale == "auto" and max_k > 20)
        if log:
            from matplotlib.ticker import NullLocator

            ax.set_xscale("log")
            ticks = [t for t in _LOG_TICKS if t <= max_k]
            ax.set_xticks(ticks, [str(t) for t in ticks])
            ax.xaxis.set_minor_locator(NullLocator())  # the labelled ticks say it is a log scale
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # k is a whole number
        ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
        ax.set_xlim(1, max_k)
        ax.set_xlabel("cutoff k" + (" (log scale)" if log else ""))
        ax.set_ylabel(literal(self.label))
        ax.set_title(literal(self.label))
        finite = [m[np.isfinite(m)] for _, m in self.curves.values()]
        if all(len(m) == 0 or m.min() >= 0 for m in finite):
            ax.set_ylim(bottom=0)
        if legend:
            ax.legend(loc="best")
        self.ax_ = ax
        self.figure_ = figure
        return self
