"""A recommender comparison as one self-contained HTML page, on the search report's stack.

The style sheet (:data:`rankwise.report.assets.CSS`), the figures' canvas
and three of its figures (measure@k curves, per-user distributions,
per-user differences) are the search report's; the long tail, accuracy
against popularity and the per-segment panels are
:mod:`rankwise.recommenders.figures`. Same page rules: inline style, no
script, a Content-Security-Policy that forbids every request.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

import numpy as np

from rankwise._wording import counted, format_p, higher_means
from rankwise.report.assets import CSS
from rankwise.report.figure_html import figure_html

__all__ = ["render_comparison_page"]

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_ACCURACY_FIRST = ("novelty", "arp", "aplt", "epc", "ild", "serendipity")
_BIAS = ("arp", "aplt", "novelty")
_SECTIONS = {"comparison": "Comparison", "whole-set": "Beyond accuracy over the whole set",
             "bias": "Accuracy against popularity", "long-tail": "The long tail",
             "curves": "Measure@k curves",
             "distribution": "Per-user distribution", "differences": "Per-user differences",
             "segments": "Segments", "assumptions": "What was assumed",
             "provenance": "Provenance"}


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _num(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def _section(key: str, lead: str, body: str) -> str:
    return (f'<section id="{key}" class="card"><h2>{_e(_SECTIONS[key])}</h2>'
            f'<p class="lead">{lead}</p>{body}</section>')


def _comparison_table(comparison: Any, digits: int) -> str:
    """Models x per-user measures: mean, and against the baseline Δ and corrected p, marked."""
    measures = list(comparison.measures)
    head = "".join(f'<th class="num">{_e(m)}</th>' for m in measures)
    body = []
    for system in comparison.systems:
        cells = []
        for measure in measures:
            rows = [r for r in comparison.rows if r.measure == measure and r.system == system]
            against = [r for r in rows if r.baseline is not None]
            row = against[0] if against else (rows[0] if rows else None)
            if row is None:
                cells.append('<td class="num">–</td>')
                continue
            mark, detail = "", ""
            if row.baseline is not None:
                if row.significant and row.direction:
                    up = row.direction > 0
                    mark = (f'<span class="sig {"up" if up else "down"}" title="significant: '
                            f'p_adjusted {format_p(row.p_adjusted)}">†{"▲" if up else "▼"}'
                            "</span>")
                detail = (f'<span class="d">Δ {row.delta:+.{digits}f} vs {_e(row.baseline)}, '
                          f"p_adj {format_p(row.p_adjusted)}</span>")
            cells.append(f'<td class="num{" sig-cell" if row.significant else ""}" '
                         f'data-measure="{_e(measure)}" data-system="{_e(system)}">'
                         f'<span class="v">{_num(row.mean, digits)}</span>{mark}'
                         f'<span class="d">[{_num(row.ci_low, digits)}, '
                         f"{_num(row.ci_high, digits)}]</span>{detail}</td>")
        body.append(f"<tr><th>{_e(system)}</th>{''.join(cells)}</tr>")
    return (f'<div class="scroll"><table class="comparison"><thead><tr><th>model</th>{head}'
            f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
            f'<p class="legend">† {_e(comparison.legend)}; ▲ (▼) higher (lower)'
            f"{_e(higher_means(comparison.test, 'user'))}</p>")


def _whole_table(whole: dict[str, dict[str, float]], baseline: str | None, digits: int) -> str:
    measures = list(next(iter(whole.values()), {}))
    if not measures:
        return ""
    head = "".join(f'<th class="num">{_e(m)}</th>' for m in measures)
    body = []
    for model, values in whole.items():
        cells = []
        for m in measures:
            delta = ("" if baseline is None or model == baseline else
                     f'<span class="d">Δ {values[m] - whole[baseline][m]:+.{digits}f}</span>')
            cells.append(f'<td class="num">{_num(values[m], digits)}{delta}</td>')
        body.append(f"<tr><th>{_e(model)}</th>{''.join(cells)}</tr>")
    return (f'<div class="scroll"><table class="whole-set"><thead><tr><th>model</th>{head}'
            f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _main_measure(measures: list[str]) -> str | None:
    accuracy = [m for m in measures if not m.startswith(_ACCURACY_FIRST)]
    chosen = accuracy or measures
    return chosen[0] if chosen else None


def _figures(result: Any, tail: Any, curves: Any) -> list[str]:
    from rankwise.recommenders.figures import bias_canvas, long_tail_canvas
    from rankwise.report.curves import curves_canvas
    from rankwise.report.differences import differences_canvas
    from rankwise.report.distribution import distribution_canvas

    sections = []
    measures = list(result.comparison.measures)
    main = _main_measure(measures)
    bias = next((m for m in measures if m.startswith(_BIAS)), None)
    if main is not None and bias is not None and main != bias:
        points = {name: (float(np.nanmean(r.per_user[bias])), float(np.nanmean(r.per_user[main])))
                  for name, r in result.results.items()}
        sections.append(_section(
            "bias", f"Each model's mean {_e(main)} against its mean {_e(bias)}: up is more "
            "accurate, right is more popular (or, for novelty, less popular) items.",
            figure_html(bias_canvas(points, x_label=bias, y_label=main), "bias",
                        f"{_e(main)} against {_e(bias)}, one point per model")))
    if tail is not None:
        sections.append(_section(
            "long-tail", "Items ranked by training popularity, in bins ten times wider each "
            "time: the share of each model's recommended items in each bin, against the share "
            "of the training interactions (grey).",
            figure_html(long_tail_canvas(tail.labels, tail.training, tail.models), "long-tail",
                        "share of recommended items per popularity bin; items recommended: "
                        + _e(", ".join(f"{n} {c:,}" for n, c in tail.items.items())))))
    if curves is not None and curves.values:
        top = int(curves.cutoffs[-1]) if len(curves.cutoffs) else 1
        labels = ", ".join(curves.values)
        sections.append(_section(
            "curves", f"Each model's mean {_e(labels)} at every cutoff k from 1 to {top} (the "
            "lists as evaluated: seen items excluded, cut at k; 0/1 relevance): where the "
            "models cross, the choice of k decides the winner.",
            figure_html(curves_canvas(curves.panels(), names=list(result.models),
                                      key="rankwise-curves"), "curves",
                        f"{_e(labels)} at k = 1..{top}, one line per model")))
    if main is None:
        return sections
    values = {name: _finite(r.per_user[main]) for name, r in result.results.items()}
    sections.append(_section(
        "distribution", f"Each model's per-user {_e(main)}: the share of users in each bin.",
        figure_html(distribution_canvas([(main, values)], names=list(values), unit="user"),
                    "distribution",
                    f"per-user {_e(main)}")))
    if result.baseline is not None:
        rows = [(main, [(name, _differences(result, main, name))
                        for name in result.models if name != result.baseline])]
        sections.append(_section(
            "differences", f"Each model's per-user {_e(main)} minus {_e(result.baseline)}'s, "
            "on the users both evaluated, sorted: green where the model is better.",
            figure_html(differences_canvas(rows, result.baseline, unit="user"), "differences",
                        f"per-user differences of {_e(main)} from {_e(result.baseline)}")))
    return sections


def _finite(values: np.ndarray) -> np.ndarray:
    return values[np.isfinite(values)]


def _differences(result: Any, measure: str, model: str) -> np.ndarray:
    a, b = result.results[model], result.results[result.baseline]
    users_a, users_b = np.asarray(a.users), np.asarray(b.users)
    _, in_a, in_b = np.intersect1d(users_a, users_b, assume_unique=True, return_indices=True)
    d = a.per_user[measure][in_a] - b.per_user[measure][in_b]
    return _finite(d)


def _segment_figure(result: Any) -> str:
    """The main measure per model inside each segment, marked against the baseline."""
    from rankwise.recommenders.figures import SegmentPoint, segments_canvas

    first = next(iter(result.segments.values()))
    main = _main_measure(list(first.measures))
    if main is None:
        return ""
    panels = []
    for name, segment in result.segments.items():
        points = {}
        for system in segment.systems:
            rows = [r for r in segment.rows if r.measure == main and r.system == system]
            against = [r for r in rows if r.baseline is not None
                       and r.baseline == result.baseline]
            row = against[0] if against else (rows[0] if rows else None)
            if row is None:  # all pairs: the first model is only ever the one compared with
                other = next((r for r in segment.rows
                              if r.measure == main and r.baseline == system), None)
                if other is not None:
                    points[system] = SegmentPoint(other.baseline_mean, math.nan, math.nan)
                continue
            direction = (row.direction or 0) if against and row.significant else 0
            points[system] = SegmentPoint(row.mean, row.ci_low, row.ci_high, direction,
                                          row.p_adjusted)
        users = max(result.segment_users.get(name, {}).values(), default=0)
        panels.append((f"{name} ({counted(users, 'user', grouped=True)})", points))
    canvas = segments_canvas(panels, names=list(result.models), measure=main,
                             baseline=result.baseline)
    marks = (f"; ▲ (▼) where it is significantly higher (lower) than "
             f"{_e(result.baseline)}'s (dashed), after the correction"
             f"{_e(higher_means(result.comparison.test, 'user'))}"
             if result.baseline is not None else "")
    return figure_html(canvas, "segment-panels",
                       f"mean {_e(main)} per model inside each segment with its "
                       f"confidence interval{marks}")


def render_comparison_page(result: Any, *, title: str = "Recommender comparison",
                           digits: int = 4, long_tail: Any = None,
                           curves: Any = None) -> str:
    """The page of a :class:`~rankwise.recommenders.comparison.RecommenderComparison`.

    *long_tail* (a :class:`~rankwise.recommenders.long_tail.LongTail`) adds
    the long-tail figure; *curves* (a
    :class:`~rankwise.recommenders.at_k.MeasureCurves`) the measure@k
    curves. With segments, a figure of the main measure per model inside
    each segment comes before their tables.

    Examples
    --------
    >>> import rankwise as rw
    >>> held_out = {"user": [1, 2, 3], "item": ["a", "b", "c"]}
    >>> models = {"x": {1: ["a"], 2: ["a"], 3: ["c"]}, "y": {1: ["b"], 2: ["b"], 3: ["c"]}}
    >>> page = render_comparison_page(rw.compare_recommendations(held_out, models, "P@1",
    ...                                                          baseline="x", seed=0))
    >>> page.startswith("<!DOCTYPE html>"), 'id="differences"' in page
    (True, True)
    """
    from rankwise._version import __version__

    comparison = result.comparison
    sections = [_section(
        "comparison", "Means over the evaluated users with their confidence intervals; "
        "against the baseline, the mean per-user difference (Δ) and the corrected p-value of "
        "the paired test, † where significant (▲ higher, ▼ lower).",
        _comparison_table(comparison, digits))]
    whole = _whole_table(result.whole_set, result.baseline, digits)
    if whole:
        sections.append(_section("whole-set", "One value per model over its whole set of "
                                 "lists (no test: there is one number per model).", whole))
    sections += _figures(result, long_tail, curves)
    if result.segments:
        parts = [_segment_figure(result)]
        for name, segment in result.segments.items():
            users = ", ".join(f"{m} {n:,}" for m, n in result.segment_users.get(name,
                                                                                {}).items())
            parts.append(f'<h3 data-segment="{_e(name)}">{_e(name)} ({_e(users)} users)</h3>'
                         + _comparison_table(segment, digits)
                         + _whole_table(result.segment_whole_set.get(name, {}),
                                        result.baseline, digits))
        sections.append(_section("segments", "The models compared inside each segment: the "
                                 "same tests on the segment's users, the main measure drawn "
                                 "first, then every measure's table.", "".join(parts)))
    said = "".join(f"<li>{_e(line)}</li>" for line in result.assumptions)
    notes = "".join(f"<li>{_e(line)}</li>" for line in result.notes)
    sections.append(_section("assumptions", "What the numbers rest on.",
                             f'<ul class="notes" id="assumed">{said}</ul>'
                             + (f'<h3>Notes</h3><ul class="notes" id="notes">{notes}</ul>'
                                if notes else "")))
    options = comparison.options
    settings = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in (
        ("rankwise", __version__), ("models", ", ".join(result.models)),
        ("baseline", result.baseline or "none: every pair"), ("test", options.test),
        ("correction", options.correction), ("family", options.family),
        ("alpha", options.alpha), ("intervals", options.ci),
        ("resamples", options.n_resamples), ("seed", options.seed)))
    sections.append(_section("provenance", "How to make this page again.",
                             f'<table class="provenance"><tbody>{settings}</tbody></table>'))
    most = max(len(r.users) for r in result.results.values())
    nav = "".join(f'<a href="#{k}">{_e(v)}</a>' for k, v in _SECTIONS.items()
                  if f'id="{k}"' in "".join(sections))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f'<meta name="generator" content="rankwise {_e(__version__)}">'
        f"<title>{_e(title)}</title><link rel=\"icon\" href=\"data:,\">"
        f"<style>{CSS}</style></head><body>"
        f'<header class="top"><div class="wrap"><h1>{_e(title)}</h1>'
        f'<p class="meta"><b>{len(result.models)}</b> models · up to <b>{most:,}</b> users · '
        f"<b>{len(result.measures)}</b> measures · rankwise {_e(__version__)}</p></div></header>"
        f'<nav class="toc"><div class="wrap">{nav}</div></nav>'
        f"<main class=\"wrap\">{''.join(sections)}</main>"
        f"<footer>Made by rankwise {_e(__version__)}. This page is self-contained: it loads "
        "nothing from the network.</footer></body></html>\n"
    )
