"""Plots and the self-contained HTML report.

matplotlib is optional (``pip install 'rankwise[plot]'``) and imported only
when something is drawn: importing this package does not import it.

- :func:`build_report` evaluates and compares runs; :meth:`Report.save`
  writes one HTML file that opens offline.
- :func:`plot_results` and :func:`plot_comparison` (``Results.plot``,
  ``Comparison.plot``) return scikit-learn style displays holding
  ``figure_`` and ``ax_``: :class:`CurvesDisplay`, :class:`DistributionDisplay`,
  :class:`DifferencesDisplay`, :class:`ComparisonDisplay`.
"""

from rankwise.report.build import CURVE_FAMILIES, Report, build_report, evaluate_runs
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
from rankwise.report.forest import ComparisonDisplay
from rankwise.report.plots import plot_comparison, plot_results

__all__ = [
    "CURVE_FAMILIES",
    "ComparisonDisplay",
    "CurvesDisplay",
    "DifferencesDisplay",
    "DistributionDisplay",
    "Report",
    "build_report",
    "comparison_figure",
    "curves_figure",
    "differences_figure",
    "distribution_figure",
    "evaluate_runs",
    "figure_to_svg",
    "plot_comparison",
    "plot_results",
    "save_figure",
]
