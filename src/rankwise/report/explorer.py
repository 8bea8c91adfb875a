"""The query explorer section of the HTML report, and the page's one script.

The section is a frame (controls, the paired scatter figures, an empty
table, an empty query panel) that the script fills from the data of
:mod:`rankwise.report.explorer_data`. The script (``explorer.js``, next to
this module) is inlined and allowed by the page's Content-Security-Policy
through its SHA-256 hash: no other script can run, nothing can be loaded.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from html import escape

from rankwise._wording import counted
from rankwise.report.protocols import PageLike

__all__ = ["SCRIPT", "explorer_section", "script", "script_hash"]

SCRIPT = "explorer.js"
"""The page's script, a file of this package."""


@cache
def script() -> str:
    """The text of the page's script."""
    from importlib.resources import files

    return files("rankwise.report").joinpath(SCRIPT).read_text(encoding="utf-8")


def script_hash() -> str:
    """``'sha256-...'``: the script's hash, as a Content-Security-Policy source."""
    digest = hashlib.sha256(script().encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _scatter(report: PageLike) -> str:
    """One figure per system against the baseline, shown one at a time by the script."""
    from rankwise.report.figure_html import figure_html
    from rankwise.report.scatter import scatter_caption, scatter_svg

    if report.baseline is None:
        return ""
    measures = [str(m) for m in report.measures]
    figures: list[str] = []
    for index, system in enumerate(report.systems):
        if system == report.baseline:
            continue
        canvas = scatter_svg(report.results, measures, report.baseline, system,
                             key=f"rankwise-scatter-{index}")
        paired = report.results[report.baseline].n_queries
        figures.append(figure_html(
            canvas, "scatter",
            f"{_e(system)} (up) against {_e(report.baseline)} (across). "
            + _e(scatter_caption(paired)),
            extra=f' data-system="{index}"' + (" hidden" if figures else "")))
    return "".join(figures)


def explorer_section(report: PageLike) -> str:
    """The explorer's frame: controls, scatter figures, the table, the query panel."""
    from rankwise.report.explorer_data import explorer_json

    depth = report.lists.depth if report.lists is not None else 0
    lists = (f"its {counted(depth, 'first document')} in each system's ranking, side by "
             "side (coloured by grade, unjudged marked, ties joined, the same document "
             "linked across lists)" if depth else "its values")
    lead = (f"Every query ({report.n_queries:,}) with each system's value and its difference "
            "from the baseline: sort by any column, find a query by its id or its words, "
            f"and open one to see {lists}. Above, each system against the baseline, query by "
            "query: click a dot to open its query.")
    texts = " or text" if report.topics is not None else ""
    body = (
        '<div id="x-app" class="x-app" data-state="loading">'
        '<p id="x-status" class="x-status" role="status">Loading the explorer…</p>'
        "<noscript><p class='empty'>The explorer needs JavaScript; every other part of this "
        "page works without it.</p></noscript>"
        '<div id="x-controls" class="x-controls" hidden>'
        '<label>Measure <select id="x-measure"></select></label>'
        '<label>System <select id="x-system"></select></label>'
        f'<label class="x-search">Find <input id="x-search" type="search" '
        f'placeholder="query id{texts}" autocomplete="off" spellcheck="false" '
        f'aria-describedby="x-count"></label>'
        '<label>Show <select id="x-show"><option value="all">every query</option>'
        '<option value="lost">worse than the baseline</option>'
        '<option value="gained">better than the baseline</option>'
        '<option value="tied">tied with the baseline</option></select></label>'
        '<span id="x-count" class="x-count" aria-live="polite"></span>'
        '<button id="x-clear" type="button" hidden>clear the scatter pick</button></div>'
        f"{_scatter(report)}"
        '<div id="x-wrap" class="x-wrap" hidden><table id="x-table" class="x-table" '
        'aria-label="queries"><thead></thead><tbody></tbody></table></div>'
        '<div id="x-query" class="x-query" role="region" tabindex="-1" hidden></div>'
        "</div>"
        f'<script type="application/json" id="rankwise-data">{explorer_json(report)}</script>'
    )
    return (f'<section id="explorer" class="card"><h2>Query explorer</h2>'
            f'<p class="lead">{lead}</p>{body}</section>')
