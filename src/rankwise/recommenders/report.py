"""A recommender evaluation as one self-contained HTML page: means, segments and their tests.

Same page rules as :mod:`rankwise.report.html`: inline style, no script, a
Content-Security-Policy that forbids every request.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, Protocol

from rankwise.report.assets import CSS
from rankwise.report.comparison_display import format_p

__all__ = ["render_html"]


class SegmentsLike(Protocol):
    """What the page reads of the segments (:class:`~rankwise.recommenders.SegmentResults`)."""

    @property
    def names(self) -> Sequence[Any]:
        """The segments, in order."""

    @property
    def users(self) -> Mapping[Any, int]:
        """Evaluated users per segment."""

    @property
    def mean(self) -> Mapping[Any, Mapping[str, float]]:
        """Every measure per segment."""

    @property
    def p_values(self) -> Mapping[str, float]:
        """The test between segments, per measure."""

    @property
    def test(self) -> str:
        """The name of that test."""


class RecommenderResultsLike(Protocol):
    """What the page reads of a :class:`~rankwise.recommenders.RecommenderResults`.

    The page imports nothing of the evaluation it shows (which calls it):
    the shape is enough.
    """

    @property
    def users(self) -> Sequence[Any]:
        """The evaluated users."""

    @property
    def mean(self) -> Mapping[str, float]:
        """Every measure's value."""

    @property
    def notes(self) -> Sequence[str]:
        """What a reader should know."""

    @property
    def segments(self) -> SegmentsLike | None:
        """The segments, when asked for."""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _num(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def render_html(result: RecommenderResultsLike, *, title: str = "Recommender evaluation",
                digits: int = 4, alpha: float = 0.05,
                descriptions: Mapping[str, str] | None = None) -> str:
    """The page: every measure's mean, and with segments every measure per segment.

    A per-user measure's p-value (Welch's or a rank test between segments,
    see :class:`~rankwise.recommenders.SegmentResults`) is shown under the
    segments; those below *alpha* are marked. Whole-set measures (coverage,
    Gini, ...) have one value per segment and no test: an empty cell, as in
    every other output. The result's notes (the default catalogue) follow
    the table of measures.

    *descriptions* (``{measure: what it says}``) fill the third column of
    the table of measures.

    Examples
    --------
    >>> import rankwise as rw
    >>> r = rw.evaluate_recommendations({"user": [1, 2], "item": ["a", "b"]},
    ...                                 {1: ["a", "c"], 2: ["c", "b"]}, ["P@1"])
    >>> page = render_html(r)
    >>> page.startswith("<!DOCTYPE html>"), "P@1" in page
    (True, True)
    """
    from rankwise._version import __version__

    names = list(result.mean)
    rows = "".join(
        f"<tr><td>{_e(name)}</td><td class=\"num\">{_num(result.mean[name], digits)}</td>"
        f"<td>{_e((descriptions or {}).get(name, ''))}</td></tr>" for name in names)
    notes = ("<ul class='notes' id='notes'>"
             + "".join(f"<li>{_e(n)}</li>" for n in result.notes) + "</ul>"
             if result.notes else "")
    sections = [
        '<section id="means" class="card"><h2>Measures</h2>'
        f'<p class="lead">Means over the <b>{len(result.users):,}</b> evaluated users '
        "(per-user measures) and values over the whole set of lists (coverage, Gini, "
        "entropy, personalisation, PopREO).</p>"
        '<div class="scroll"><table><thead><tr><th>measure</th><th>value</th>'
        f"<th>what it says</th></tr></thead><tbody>{rows}</tbody></table></div>{notes}"
        "</section>"
    ]
    seg = result.segments
    if seg is not None:
        head = "".join(f"<th>{_e(name)}</th>" for name in names)
        body = "".join(
            f"<tr><td>{_e(segment)}</td><td class=\"num\">{seg.users[segment]:,}</td>"
            + "".join(f"<td class=\"num\">{_num(seg.mean[segment].get(name), digits)}</td>"
                      for name in names) + "</tr>"
            for segment in seg.names)
        cells = []
        for name in names:
            p = seg.p_values.get(name, float("nan"))
            mark = ' class="num sig-cell"' if not math.isnan(p) and p < alpha else ' class="num"'
            star = " *" if not math.isnan(p) and p < alpha else ""
            cells.append(f"<td{mark}>{'' if math.isnan(p) else format_p(p)}{star}</td>")
        body += f"<tr><td>p ({_e(seg.test)})</td><td></td>{''.join(cells)}</tr>"
        sections.append(
            '<section id="segments" class="card"><h2>Segments</h2>'
            f'<p class="lead">Every measure per segment; the last row is the p-value of '
            f"{_e(seg.test)} between the segments' per-user values (* below {alpha:g}). "
            "Whole-set measures are recomputed on each segment's lists: one value per "
            "segment, no test (an empty cell).</p>"
            f'<div class="scroll"><table><thead><tr><th>segment</th><th>users</th>{head}'
            f"</tr></thead><tbody>{body}</tbody></table></div></section>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f'<meta name="generator" content="rankwise {_e(__version__)}">'
        f"<title>{_e(title)}</title>"
        '<link rel="icon" href="data:,">'
        f"<style>{CSS}</style></head><body>"
        f'<header class="top"><div class="wrap"><h1>{_e(title)}</h1>'
        f'<p class="meta"><b>{len(result.users):,}</b> users · <b>{len(names)}</b> measures'
        + (f" · <b>{len(seg.names)}</b> segments" if seg is not None else "")
        + f" · rankwise {_e(__version__)}</p></div></header>"
        f"<main class=\"wrap\">{''.join(sections)}</main>"
        f"<footer>Made by rankwise {_e(__version__)}. This page is self-contained: it loads "
        "nothing from the network.</footer></body></html>\n"
    )
