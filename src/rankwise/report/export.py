"""Figures to files: rankwise's canvas (SVG; PNG, PDF through matplotlib), matplotlib figures.

:func:`save_canvas` writes what ``rankwise plot`` draws: SVG as rankwise
wrote it, PNG and PDF by replaying the canvas onto matplotlib.
:func:`save_figure` and :func:`figure_to_svg` take a matplotlib figure (the
displays' ``figure_``, :func:`rankwise.report.curves_figure`, ...).
"""

from __future__ import annotations

import io
import os
import re
from typing import Any

from rankwise._validation import OneOf, check
from rankwise.exceptions import InvalidParameterError
from rankwise.report.svg import Canvas

__all__ = ["FILE_FORMATS", "canvas_bytes", "figure_to_svg", "file_format", "save_canvas",
           "save_figure"]

FILE_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
"""File suffix -> matplotlib format, for ``rankwise plot -o``."""

_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.DOTALL)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)
_SIZE = re.compile(r'<svg([^>]*?)\swidth="([\d.]+)pt"\s+height="([\d.]+)pt"')


def figure_to_svg(figure: Any, *, salt: str) -> tuple[str, float]:
    """An ``<svg>`` element to inline in HTML, and its natural width in CSS pixels.

    Text stays text (``svg.fonttype = "none"``: small, sharp and searchable),
    the XML prologue and the metadata (with its date and URLs) are removed,
    and the fixed size gives way to the view box so the figure scales with
    the page. *salt* makes the element ids of each figure distinct and the
    output reproducible.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure to convert.
    salt : str
        A string unique to the figure within the page.

    Returns
    -------
    svg : str
    width : float
        In CSS pixels (1 pt = 4/3 px).
    """
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = _METADATA.sub("", _PROLOGUE.sub("", buffer.getvalue(), count=1))
    width = 0.0
    match = _SIZE.search(text)
    if match:
        width = float(match.group(2)) * 4 / 3
        text = text[:match.start()] + f"<svg{match.group(1)}" + text[match.end():]
    return text.strip(), width


def file_format(path: str | os.PathLike[str]) -> str:
    """The figure format from a file name's suffix.

    Raises
    ------
    InvalidParameterError
        Not .png, .svg or .pdf.

    Examples
    --------
    >>> file_format("curves.PNG"), file_format("a/b.pdf")
    ('png', 'pdf')
    """
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FILE_FORMATS:
        raise InvalidParameterError(
            f"cannot tell the figure format of {os.fspath(path)!r}: expected a file name "
            f"ending in {', '.join(FILE_FORMATS)}, got {suffix or 'no suffix'!r}"
        )
    return FILE_FORMATS[suffix]


def save_figure(
    figure: Any, path: str | os.PathLike[str], *, dpi: float = 150, fmt: str | None = None
) -> None:
    """Write *figure* to *path* (PNG, SVG or PDF, from the suffix or *fmt*), atomically.

    The figure is rendered in memory and written through
    :func:`rankwise._files.write_file`: a regular file is replaced
    atomically (a failure leaves no partial file), anything else (``/dev/null``,
    a named pipe) is written directly.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure to write.
    path : str or path-like
        The file; its suffix gives the format unless *fmt* does.
    dpi : float
        Resolution of PNG files.
    fmt : {"png", "svg", "pdf"}, optional
        The format, for a file name without the suffix (``/dev/stdout``, a pipe).
    """
    from rankwise._files import write_file

    fmt = _checked_format(path, fmt)
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=dpi, metadata=_file_metadata(fmt))
    write_file(buffer.getvalue(), path)


def save_canvas(
    canvas: Canvas, path: str | os.PathLike[str], *, dpi: float = 150, fmt: str | None = None
) -> None:
    """Write a figure drawn by rankwise to *path*: SVG, PNG or PDF (from the suffix or *fmt*).

    SVG is the canvas' own (no matplotlib); PNG and PDF replay it onto
    matplotlib (``pip install 'rankwise[plot]'``). Written atomically, as
    :func:`save_figure` writes.

    Parameters
    ----------
    canvas : Canvas
        From :func:`rankwise.report.curves.curves_svg` and the like.
    path : str or path-like
        The file; its suffix gives the format unless *fmt* does.
    dpi : float
        Resolution of PNG files.
    fmt : {"png", "svg", "pdf"}, optional
        The format, for a file name without the suffix (``/dev/stdout``, a pipe).
    """
    from rankwise._files import write_file

    write_file(canvas_bytes(canvas, _checked_format(path, fmt), dpi=dpi), path)


def canvas_bytes(canvas: Canvas, fmt: str, *, dpi: float = 150) -> bytes:
    """The bytes of the file :func:`save_canvas` writes, in format *fmt* (png, svg or pdf).

    Examples
    --------
    >>> from rankwise.report.svg import Canvas
    >>> canvas_bytes(Canvas(100, 50, key="c", title="A", desc="An empty figure"), "svg")[:5]
    b'<?xml'
    """
    fmt = _checked_format("", fmt)
    if fmt == "svg":
        return canvas.svg(standalone=True).encode("utf-8")
    from rankwise.report._mpl import draw

    figure = draw(canvas).figure
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=dpi, metadata=_file_metadata(fmt))
    return buffer.getvalue()


def _checked_format(path: str | os.PathLike[str], fmt: str | None) -> str:
    if fmt is None:
        return file_format(path)
    checked: str = check("figure format", fmt, OneOf(tuple(dict.fromkeys(FILE_FORMATS.values()))))
    return checked


def _file_metadata(fmt: str) -> dict[str, Any]:
    from rankwise._version import __version__

    software = f"rankwise {__version__}"
    if fmt == "png":
        return {"Software": software}
    return {"Creator": software}
