"""Presentation: tables, figures and the self-contained HTML report.

Nothing here evaluates, and nothing here imports what it presents: it lays
out objects of the shapes in :mod:`rankwise.report.protocols` (a
:class:`~rankwise.Results`, a :class:`~rankwise.Comparison` have them; their
``to_table`` and ``plot`` methods call down into it).
:func:`rankwise.reporting.build_report` evaluates and compares runs, then
gathers them into a :class:`Report`.

Every figure is drawn once, by rankwise, on a
:class:`~rankwise.report.svg.Canvas` (one module per figure:
:mod:`~rankwise.report.curves`, :mod:`~rankwise.report.distribution`,
:mod:`~rankwise.report.differences`, :mod:`~rankwise.report.comparison_display`,
:mod:`~rankwise.report.discriminative`). The canvas writes SVG (the HTML
report, ``rankwise plot -o x.svg``) and :mod:`rankwise.report._mpl` replays it
onto matplotlib for PNG and PDF and for the displays of notebooks. matplotlib
is optional (``pip install 'rankwise[plot]'``) and imported only when one of
them draws: importing this package does not import it.

- :meth:`Report.save` writes one HTML file that opens offline.
- :func:`plot_results` and :func:`plot_comparison` (``Results.plot``,
  ``Comparison.plot``) return scikit-learn style displays holding
  ``figure_`` and ``ax_``: :class:`CurvesDisplay`, :class:`DistributionDisplay`,
  :class:`DifferencesDisplay`, :class:`ComparisonDisplay`.
- :func:`curves_figure` and the other ``*_figure`` functions give the
  report's figures as matplotlib figures; :func:`save_figure` writes one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names below are (for type checkers and the API reference)
    from rankwise.report.build import CURVE_FAMILIES, Report
    from rankwise.report.comparison_display import ComparisonDisplay
    from rankwise.report.curves import CurvesDisplay
    from rankwise.report.differences import DifferencesDisplay
    from rankwise.report.distribution import DistributionDisplay
    from rankwise.report.export import figure_to_svg, save_figure
    from rankwise.report.figures import (
        comparison_figure,
        curves_figure,
        differences_figure,
        distribution_figure,
    )
    from rankwise.report.ndeval import ndeval_csv, ndeval_measures
    from rankwise.report.plots import plot_comparison, plot_results

_LAZY = {
    "CURVE_FAMILIES": "rankwise.report.build",
    "Report": "rankwise.report.build",
    "CurvesDisplay": "rankwise.report.curves",
    "DifferencesDisplay": "rankwise.report.differences",
    "DistributionDisplay": "rankwise.report.distribution",
    "figure_to_svg": "rankwise.report.export",
    "save_figure": "rankwise.report.export",
    "comparison_figure": "rankwise.report.figures",
    "curves_figure": "rankwise.report.figures",
    "differences_figure": "rankwise.report.figures",
    "distribution_figure": "rankwise.report.figures",
    "ComparisonDisplay": "rankwise.report.comparison_display",
    "ndeval_csv": "rankwise.report.ndeval",
    "ndeval_measures": "rankwise.report.ndeval",
    "plot_comparison": "rankwise.report.plots",
    "plot_results": "rankwise.report.plots",
}

__all__ = [
    "CURVE_FAMILIES",
    "ComparisonDisplay",
    "CurvesDisplay",
    "DifferencesDisplay",
    "DistributionDisplay",
    "Report",
    "comparison_figure",
    "curves_figure",
    "differences_figure",
    "distribution_figure",
    "figure_to_svg",
    "ndeval_csv",
    "ndeval_measures",
    "plot_comparison",
    "plot_results",
    "save_figure",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rankwise.report' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
