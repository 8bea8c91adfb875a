"""Presentation: tables, plots and the self-contained HTML report.

Nothing here evaluates: it lays out :class:`~rankwise.Results` and
:class:`~rankwise.Comparison` objects it is given (their ``to_table`` and
``plot`` methods call down into it). :func:`rankwise.reporting.build_report`
evaluates and compares runs, then gathers them into a :class:`Report`.

The HTML report's figures are SVG written by rankwise itself
(:mod:`rankwise.report.svg`, :mod:`rankwise.report.svg_figures`): no plotting
library. matplotlib is optional (``pip install 'rankwise[plot]'``), for PNG
and PDF figures and the displays below, and imported only when one of them
draws: importing this package does not import it.

- :meth:`Report.save` writes one HTML file that opens offline.
- :func:`plot_results` and :func:`plot_comparison` (``Results.plot``,
  ``Comparison.plot``) return scikit-learn style displays holding
  ``figure_`` and ``ax_``: :class:`CurvesDisplay`, :class:`DistributionDisplay`,
  :class:`DifferencesDisplay`, :class:`ComparisonDisplay`.
"""

from __future__ import annotations

import importlib
from typing import Any

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
    "plot_comparison": "rankwise.report.plots",
    "plot_results": "rankwise.report.plots",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rankwise.report' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
