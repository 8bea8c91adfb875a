"""The lazy import of matplotlib, and the style of rankwise's figures.

matplotlib is optional (``pip install 'rankwise[plot]'``): it is imported
only inside the functions that draw, never when :mod:`rankwise` or
:mod:`rankwise.report` is imported.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from rankwise.exceptions import MissingDependencyError

__all__ = ["COLORS", "GAIN_COLOR", "LOSS_COLOR", "STYLE", "color_of", "new_axes",
           "new_figure", "require_matplotlib", "styled"]

COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
          "#000000")
"""Line and bar colours, one per system: the Okabe-Ito palette (safe for colour blindness)."""

GAIN_COLOR = "#1a9850"
"""Colour of per-query gains over the baseline."""

LOSS_COLOR = "#d73027"
"""Colour of per-query losses against the baseline."""

STYLE: dict[str, Any] = {
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.titleweight": "bold",
    "axes.labelsize": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "legend.frameon": False,
    "legend.fontsize": 8.5,
    "xtick.labelsize": 8.0,
    "ytick.labelsize": 8.0,
}
"""matplotlib settings of the figures of the HTML report and of ``rankwise plot``."""


def require_matplotlib(feature: str = "plotting") -> ModuleType:
    """Import matplotlib, or say how to install it.

    Parameters
    ----------
    feature : str
        What needs it, for the message.

    Returns
    -------
    module
        :mod:`matplotlib`.

    Raises
    ------
    MissingDependencyError
        When matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError as error:
        raise MissingDependencyError(
            f"{feature} needs matplotlib, which is not installed: pip install 'rankwise[plot]'"
        ) from error
    return matplotlib


def styled() -> Any:
    """A context manager applying :data:`STYLE` (for figures made and saved inside it)."""
    matplotlib = require_matplotlib("plotting")
    return matplotlib.rc_context(STYLE)


def color_of(index: int) -> str:
    """The colour of the system at *index* (the palette repeats after 8)."""
    return COLORS[index % len(COLORS)]


def new_axes(ax: Any, feature: str) -> tuple[Any, Any]:
    """Return ``(figure, ax)``: *ax* and its figure, or a new pyplot figure when *ax* is None.

    As in scikit-learn's displays, a new figure comes from :mod:`matplotlib.pyplot`
    so that notebooks show it.
    """
    require_matplotlib(feature)
    if ax is None:
        import matplotlib.pyplot as plt

        figure, ax = plt.subplots()
        return figure, ax
    return ax.figure, ax


def new_figure(width: float, height: float) -> Any:
    """A :class:`matplotlib.figure.Figure` outside pyplot (no global state, no GUI backend).

    Parameters
    ----------
    width, height : float
        Size in inches.
    """
    require_matplotlib("plotting")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")
