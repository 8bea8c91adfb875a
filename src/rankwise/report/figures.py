"""Figures of several panels as :class:`matplotlib.figure.Figure` objects (PNG, PDF files).

Each is the figure of the HTML report (drawn once, on a
:class:`~rankwise.report.svg.Canvas`, by the ``*_svg`` functions of
:mod:`~rankwise.report.curves`, :mod:`~rankwise.report.distribution`,
:mod:`~rankwise.report.differences` and
:mod:`~rankwise.report.comparison_display`) replayed onto matplotlib outside
pyplot by :func:`rankwise.report._mpl.draw`. Save one with
:func:`rankwise.report.save_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rankwise.measures import Measure
from rankwise.report.comparison_display import comparison_svg
from rankwise.report.curves import curves_svg
from rankwise.report.differences import differences_svg
from rankwise.report.distribution import distribution_svg
from rankwise.report.protocols import ComparisonLike, ResultsLike
from rankwise.report.svg import Canvas

__all__ = ["comparison_figure", "curves_figure", "differences_figure", "distribution_figure",
           "to_figure"]


def to_figure(canvas: Canvas) -> Any:
    """*canvas* as a :class:`matplotlib.figure.Figure` outside pyplot (needs matplotlib)."""
    from rankwise.report._mpl import draw

    return draw(canvas).figure


def curves_figure(
    results: Mapping[str, ResultsLike], measures: Sequence[str | Measure], *,
    max_k: int | None = None,
) -> Any:
    """One panel per measure family: its mean at each cutoff k, one line per system.

    Parameters
    ----------
    results : dict ``{name: Results}``
        Each holding the measures at every cutoff to draw.
    measures : sequence of str or Measure
        Families (``"ndcg"``, ``"P"``, ``"recall"``), with their parameters.
    max_k : int, optional
        Draw the cutoffs up to *max_k* only (the results may hold larger
        ones, e.g. ``recall@1000`` of a report's table).

    Returns
    -------
    matplotlib.figure.Figure
    """
    return to_figure(curves_svg(results, measures, max_k=max_k))


def distribution_figure(
    results: Mapping[str, ResultsLike], measures: Sequence[str | Measure], *, kind: str = "hist"
) -> Any:
    """One panel per measure: the distribution of its per-query values, per system.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return to_figure(distribution_svg(results, measures, kind=kind))


def differences_figure(
    results: Mapping[str, ResultsLike], measures: Sequence[str | Measure], baseline: str
) -> Any:
    """Panels of sorted per-query differences: one row per measure, one column per system.

    The panels of a row share their y axis, so the systems compare at a glance.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return to_figure(differences_svg(results, measures, baseline))


def comparison_figure(comparison: ComparisonLike) -> Any:
    """Mean differences from the baseline with confidence intervals (a forest plot).

    Returns
    -------
    matplotlib.figure.Figure
    """
    return to_figure(comparison_svg(comparison))
