"""A figure of the HTML report: its ``<svg>`` in a ``<figure>`` with a caption."""

from __future__ import annotations

from rankwise.report.svg import Canvas

__all__ = ["figure_html"]


def figure_html(figure: Canvas, key: str, caption: str, *, extra: str = "") -> str:
    """``<figure class="plot" data-plot=key>`` holding the SVG of *figure* and *caption*.

    *caption* is HTML (escaped by the caller); *extra* more attributes of the
    ``<figure>`` element. The ``id`` is ``plot-KEY`` for the first figure of a
    kind, ``plot-KEY-N`` (the canvas's key names N) for the others.
    """
    svg, width = figure.svg(), figure.width
    style = f' style="max-width:{width:.0f}px"' if width else ""
    suffix = figure.key.rsplit("-", 1)[-1] if key == "scatter" else ""
    ident = f"plot-{key}-{suffix}" if suffix else f"plot-{key}"
    return (f'<figure class="plot" id="{ident}" data-plot="{key}"{extra}{style}>{svg}'
            f"<figcaption>{caption}</figcaption></figure>")
