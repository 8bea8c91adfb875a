"""The figures of the HTML report, drawn as SVG with :mod:`rankwise.report.svg` (no matplotlib).

The same panels, captions, legends, axes and labels as the matplotlib
figures of :mod:`rankwise.report.figures` (which ``rankwise plot`` keeps for
PNG and PDF): the comparison with confidence intervals, the ASL curves,
metric@k curves with a logarithmic k axis, the sorted per-query differences
and the distributions (histograms or box plots).

Each function returns a :class:`~rankwise.report.svg.Canvas`: ``.svg()`` is
the ``<svg>`` element, ``.width`` its natural width in CSS pixels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report._mpl import GAIN_COLOR, LOSS_COLOR, color_of, shorten
from rankwise.report.differences import MAX_BARS, MAX_POINTS
from rankwise.report.figure_data import box_stats, stacked_widths
from rankwise.report.summaries import (
    curve_label,
    curve_template,
    cutoff_curve,
    histogram_edges,
    paired_index,
    sorted_profile,
)
from rankwise.report.svg import (
    NOTE_SIZE,
    TICK_SIZE,
    TITLE_SIZE,
    Axes,
    Canvas,
    escape,
    legend_layout,
    log_ticks,
    nice_ticks,
    text_width,
)

if TYPE_CHECKING:
    from rankwise.comparison import Comparison
    from rankwise.results import Results

__all__ = ["asl_svg", "comparison_svg", "curves_svg", "differences_svg", "distribution_svg"]

# sizes in CSS pixels (96 to the inch: the matplotlib figures' inches x 96)
_CELL = 374.0  # the width of one panel of a grid, with its tick labels
_LEFT = 62.0  # y tick labels and a rotated axis label
_RIGHT = 18.0
_TITLE = 30.0  # a panel title above the axes
_BELOW = 50.0  # x tick labels and an axis label
_PANEL = 211.0  # the height of a plot area
_ROW = 17.0  # a row of a legend


def _name(name: object) -> str:
    return escape(shorten(name))


def _margin(low: float, high: float, share: float = 0.05) -> tuple[float, float]:
    span = high - low
    return low - span * share, high + span * share


def _finite(values: Any) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    return values[np.isfinite(values)]


def _legend_block(canvas: Canvas, entries: Sequence[tuple[str, str, str]], width: float,
                  y: float = 6.0) -> float:
    """A legend centred along the top edge; returns the height it takes."""
    columns, column, rows = legend_layout([label for label, _, _ in entries], width - 20)
    x = max((width - columns * column) / 2, 6.0)
    canvas.legend(entries, x=x + 8, y=y, columns=columns, column_width=column)
    return rows * _ROW + y + 6


def _grid(count: int, columns: int) -> tuple[int, int]:
    columns = max(1, min(columns, count))
    return math.ceil(count / columns), columns


def _names(names: Sequence[str]) -> str:
    return ", ".join(shorten(n) for n in names)


# ----------------------------------------------------------------------------
# metric@k curves
# ----------------------------------------------------------------------------


def curves_svg(results: Mapping[str, Results], measures: Sequence[str | Measure], *,
               max_k: int | None = None, key: str = "rankwise-curves") -> Canvas:
    """One panel per measure family: its mean at each cutoff k, one line per system.

    The k axis is logarithmic (ticks 1, 2, 5, 10, 20, ...) when k goes beyond
    20, else linear with whole-number ticks. Raises
    :class:`~rankwise.exceptions.InvalidParameterError` when the results
    hold no cutoff of a family.
    """
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg', 'P', 'recall']")
    names = list(results)
    templates = [curve_template(m) for m in measures]
    curves = [{name: cutoff_curve(item, t, max_k) for name, item in results.items()}
              for t in templates]
    labels = [curve_label(t) for t in templates]
    rows, columns = _grid(len(templates), 3)
    width = _CELL * columns
    top_k = max((int(k.max()) for panel in curves for k, _ in panel.values() if len(k)),
                default=1)
    canvas = Canvas(width, 0, key=key, title=f"Metric@k curves: {', '.join(labels)}",
                    desc=f"Mean {', '.join(labels)} at each cutoff k from 1 to {top_k}, one "
                         f"line per system: {_names(names)}.")
    legend = _legend_block(canvas, [(shorten(n), "line", color_of(i))
                                    for i, n in enumerate(names)], width)
    step = _TITLE + _PANEL + _BELOW
    canvas.height = legend + rows * step
    for index, (label, panel) in enumerate(zip(labels, curves)):
        r, c = divmod(index, columns)
        k_max = max((int(k.max()) for k, _ in panel.values() if len(k)), default=1)
        log = k_max > 20
        values = np.concatenate([_finite(m) for _, m in panel.values()])
        low = 0.0 if len(values) == 0 or values.min() >= 0 else float(values.min())
        high = float(values.max()) if len(values) else 1.0
        ylim = (low, high + 0.05 * (high - low)) if high > low else (low, low + 1.0)
        ax = Axes(c * _CELL + _LEFT, legend + r * step + _TITLE,
                  _CELL - _LEFT - _RIGHT, _PANEL, (1, k_max), ylim, xlog=log)
        canvas.open("panel", f'data-title="{escape(label)}" {ax.attributes()}')
        xticks = log_ticks(1, k_max) if log else nice_ticks(1, k_max, integer=True)
        canvas.frame(ax, xticks=xticks, yticks=nice_ticks(*ax.ylim, 5), title=label,
                     xlabel="cutoff k" + (" (log scale)" if log else ""), ylabel=label)
        for name, (cutoffs, means) in panel.items():
            canvas.polyline(ax.x(cutoffs), ax.y(means), color=color_of(names.index(name)),
                            attributes=f'class="series" data-name="{_name(name)}"')
        canvas.close()
    return canvas


# ----------------------------------------------------------------------------
# distributions
# ----------------------------------------------------------------------------


def distribution_svg(results: Mapping[str, Results], measures: Sequence[str | Measure], *,
                     kind: str = "hist", key: str = "rankwise-distributions") -> Canvas:
    """One panel per measure: its per-query values, per system, as histograms or box plots.

    ``kind="hist"``: the share of queries in each bin, one bar per system, a
    triangle on the top edge at each system's mean. ``kind="box"``: a box per
    system (quartiles, median, whiskers at the 5th and 95th percentiles, an
    open circle at each distinct value beyond them, a diamond at the mean);
    the legend explains the diamond above the panels.
    """
    if kind not in ("hist", "box"):
        raise InvalidParameterError(f"kind must be 'hist' or 'box', got {kind!r}")
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg@10']")
    names = list(results)
    texts = [str(m) for m in measures]
    rows, columns = _grid(len(texts), 3)
    entries = [(shorten(n), "patch", color_of(i)) for i, n in enumerate(names)]
    if kind == "box":
        entries.append(("mean", "diamond", "#000000"))
        label_width = max((text_width(shorten(n), TICK_SIZE) for n in names), default=0.0)
        first_left = label_width + 16
        plot_width = _CELL - _LEFT - _RIGHT
        panel_height = 27.0 * len(names) + 24
        width = first_left + columns * plot_width + (columns - 1) * 36 + _RIGHT
        title = _TITLE
    else:
        width, panel_height, title = _CELL * columns, _PANEL, _TITLE + 12  # the mean marks
    what = "histograms" if kind == "hist" else "box plots"
    canvas = Canvas(width, 0, key=key, title=f"Distributions of {', '.join(texts)}",
                    desc=f"Per-query values of {', '.join(texts)} as {what}, per system: "
                         f"{_names(names)}.")
    legend = _legend_block(canvas, entries, width)
    step = title + panel_height + _BELOW
    canvas.height = legend + rows * step
    for index, measure in enumerate(texts):
        r, c = divmod(index, columns)
        finite = {name: _finite(item[measure]) for name, item in results.items()}
        top = legend + r * step + title
        if kind == "hist":
            _hist_panel(canvas, finite, measure, c * _CELL + _LEFT, top,
                        _CELL - _LEFT - _RIGHT, first=c == 0, names=names)
        else:
            left = first_left + c * (plot_width + 36)
            _box_panel(canvas, finite, measure, left, top, plot_width, panel_height,
                       first=c == 0, names=names)
    return canvas


def _hist_panel(canvas: Canvas, finite: dict[str, np.ndarray], measure: str, left: float,
                top: float, width: float, *, first: bool, names: list[str]) -> None:
    edges = histogram_edges(list(finite.values()))
    centres = (edges[:-1] + edges[1:]) / 2
    systems = max(len(finite), 1)
    bar_width = np.diff(edges) * 0.84 / systems
    shares = {}
    for name, values in finite.items():
        counts, _ = np.histogram(values, bins=edges)
        shares[name] = 100.0 * counts / max(len(values), 1)
    highest = max((float(s.max()) for s in shares.values() if len(s)), default=0.0) or 100.0
    unit = edges[0] == -0.05 and edges[-1] == 1.05 and len(edges) == 12
    xlim = (-0.06, 1.06) if unit else _margin(float(edges[0]), float(edges[-1]), 0.02)
    ax = Axes(left, top, width, _PANEL, xlim, (0.0, highest * 1.05))
    canvas.open("panel", f'data-title="{escape(measure)}" {ax.attributes()}')
    xticks = np.round(np.linspace(0, 1, 6), 1) if unit else nice_ticks(*xlim, 5)
    canvas.frame(ax, xticks=xticks, xlabels=[f"{t:g}" for t in xticks] if unit else None,
                 yticks=nice_ticks(*ax.ylim, 5), xgrid=False, title=measure, title_gap=14,
                 xlabel=measure, ylabel="% of queries" if first else "")
    for index, (name, share) in enumerate(shares.items()):
        offset = (index - (systems - 1) / 2) * bar_width
        start = centres + offset - bar_width / 2
        color = color_of(names.index(name))
        canvas.rects(ax.x(start), ax.y(np.zeros_like(share)), ax.x(start + bar_width),
                     ax.y(share), color=color,
                     attributes=f'class="bars" data-name="{_name(name)}"')
    for name, values in finite.items():  # the means: triangles on the top edge
        if len(values):
            canvas.markers(ax.x([values.mean()]), [ax.top], shape="triangle-down", size=10,
                           fill=color_of(names.index(name)), stroke="#ffffff",
                           stroke_width=0.8,
                           attributes=f'class="mean" data-name="{_name(name)}"')
    canvas.close()


def _box_panel(canvas: Canvas, finite: dict[str, np.ndarray], measure: str, left: float,
               top: float, width: float, height: float, *, first: bool,
               names: list[str]) -> None:
    stats = {name: box_stats(v) for name, v in finite.items() if len(v)}
    values = np.concatenate([[b.p5, b.p95, *b.outliers] for b in stats.values()] +
                            [[v.mean()] for v in finite.values() if len(v)]) \
        if stats else np.array([0.0, 1.0])
    xlim = _margin(float(values.min()), float(values.max()))
    ax = Axes(left, top, width, height, xlim, (0.4, len(names) + 0.6), flip=True)
    canvas.open("panel", f'data-title="{escape(measure)}" {ax.attributes()}')
    positions = np.arange(1, len(names) + 1, dtype=np.float64)
    canvas.frame(ax, xticks=nice_ticks(*ax.xlim, 5), yticks=positions if first else None,
                 ylabels=[shorten(n) for n in names] if first else None, ygrid=False,
                 title=measure, xlabel=measure)
    half = 0.3
    whiskers = []
    for index, name in enumerate(names):
        if name not in stats:
            continue
        box = stats[name]
        p5, q1, median, q3, p95 = ax.x([box.p5, box.q1, box.median, box.q3, box.p95]).tolist()
        y = float(ax.y(positions[index]))
        y0, y1 = float(ax.y(positions[index] - half)), float(ax.y(positions[index] + half))
        cap = abs(y1 - y0) / 4
        canvas.rects([q1], [y0], [q3], [y1], color=color_of(index), opacity=0.85,
                     stroke="#000000", attributes=f'class="box" data-name="{_name(name)}"')
        whiskers.append(f"M{p5:.2f} {y:.2f}H{q1:.2f}M{q3:.2f} {y:.2f}H{p95:.2f}"
                        f"M{p5:.2f} {y - cap:.2f}V{y + cap:.2f}M{p95:.2f} {y - cap:.2f}"
                        f"V{y + cap:.2f}")
        canvas.line(median, y0, median, y1, color="#000000", width=1.6, css="median")
        if len(box.outliers):  # the queries beyond the whiskers: a point per distinct value
            counts = " ".join(str(int(c)) for c in box.outlier_counts)
            canvas.markers(ax.x(box.outliers), np.full(len(box.outliers), y), size=5.5,
                           fill="#ffffff", stroke=color_of(index), stroke_width=1.2,
                           attributes=f'class="outliers" data-name="{_name(name)}" '
                                      f'data-counts="{counts}"')
    if whiskers:
        canvas.add(f'<path d="{"".join(whiskers)}" fill="none" stroke="#000000" '
                   'stroke-width="1" class="whiskers"/>')
    means = [(finite[n].mean(), positions[i]) for i, n in enumerate(names) if len(finite[n])]
    if means:
        xs, ys = np.array(means).T
        canvas.markers(ax.x(xs), ax.y(ys), shape="diamond", size=9, fill="#ffffff",
                       stroke="#000000", attributes='class="mean"')
    canvas.close()


# ----------------------------------------------------------------------------
# per-query differences
# ----------------------------------------------------------------------------


def differences_svg(results: Mapping[str, Results], measures: Sequence[str | Measure],
                    baseline: str, *, key: str = "rankwise-differences") -> Canvas:
    """Panels of sorted per-query differences: one row per measure, one column per system.

    Up to :data:`MAX_BARS` queries a bar each; up to :data:`MAX_POINTS` the
    area the bars fill (a step per query); beyond, that area drawn from
    samples of the sorted differences (exact at the ends and at the edges of
    the ties). The panels of a row share their y scale; the x ticks are the
    first and the last query (whole numbers).
    """
    names = list(results)
    if baseline not in results:
        raise InvalidParameterError(f"baseline {baseline!r} is not one of the systems {names}")
    others = [name for name in names if name != baseline]
    if not others:
        raise InvalidParameterError(f"differences need two systems; got only {names}")
    if not measures:
        raise InvalidParameterError("measures is empty; give e.g. ['ndcg@10']")
    texts = [str(m) for m in measures]
    rows, columns = len(texts), len(others)
    width = min(max(403.0 * columns, 768.0), 1248.0)
    left, right, gap = _LEFT + 10, 14.0, 19.0
    plot_width = (width - left - right - gap * (columns - 1)) / columns
    panel, row_gap = 149.0, _TITLE + 24
    canvas = Canvas(width, _TITLE + rows * panel + (rows - 1) * row_gap + _BELOW, key=key,
                    title=f"Per-query differences against {shorten(baseline)}",
                    desc=f"For {', '.join(texts)}: each system's per-query value minus "
                         f"{shorten(baseline)}'s, sorted, for {_names(others)}.")
    room = max(int(plot_width / (TITLE_SIZE * 0.6) / 2) - 2, 8)
    pairs = {system: paired_index(results[baseline], results[system]) for system in others}
    for r, measure in enumerate(texts):
        base = results[baseline][measure]
        differences = [_finite(results[system][measure][pairs[system][2]]
                               - base[pairs[system][1]]) for system in others]
        top = max((float(np.abs(d).max()) for d in differences if len(d)), default=0.0) or 1.0
        for c, (system, d) in enumerate(zip(others, differences)):
            n = len(d)
            ax = Axes(left + c * (plot_width + gap), _TITLE + r * (panel + row_gap),
                      plot_width, panel, (0.5, max(n, 1) + 0.5), (-top * 1.08, top * 1.08))
            title = f"{shorten(system, room)} − {shorten(baseline, room)}"
            canvas.open("panel", f'data-title="{escape(title)}" data-measure="{escape(measure)}"'
                                 f' data-n="{n}" {ax.attributes()}')
            canvas.frame(ax, xticks=sorted({1, n}) if n else [],
                         yticks=nice_ticks(*ax.ylim, 4) if c == 0 else None,
                         xgrid=False, ygrid=False, title=title,
                         xlabel="queries, sorted by difference" if r == rows - 1 else "",
                         ylabel=f"Δ {measure}" if c == 0 else "")
            _differences_panel(canvas, ax, np.sort(d))
            canvas.close()
    return canvas


def _differences_panel(canvas: Canvas, ax: Axes, ordered: np.ndarray) -> None:
    n = len(ordered)
    if 0 < n <= MAX_BARS:
        position = np.arange(1, n + 1, dtype=np.float64)
        zero = ax.y(np.zeros(n))
        for mask, color, css in ((ordered < 0, LOSS_COLOR, "loss"),
                                 (ordered > 0, GAIN_COLOR, "gain")):
            if mask.any():
                canvas.rects(ax.x(position[mask] - 0.4), zero[mask], ax.x(position[mask] + 0.4),
                             ax.y(ordered[mask]), color=color,
                             attributes=f'class="bars {css}"')
    elif n:
        if n <= MAX_POINTS:  # every query is a step
            positions = np.repeat(np.arange(1, n + 1, dtype=np.float64), 2)
            positions += np.tile([-0.5, 0.5], n)
            values = np.repeat(ordered, 2)
        else:
            positions, values = sorted_profile(ordered, MAX_POINTS)
        for mask, color, css in ((values < 0, LOSS_COLOR, "loss"),
                                 (values > 0, GAIN_COLOR, "gain")):
            index = np.flatnonzero(mask)
            if len(index) == 0:
                continue
            first, last = index[0], index[-1]
            xs = positions[max(first - 1, 0):last + 2]  # to where the curve crosses zero
            ys = values[max(first - 1, 0):last + 2]
            ys = np.minimum(ys, 0.0) if css == "loss" else np.maximum(ys, 0.0)
            canvas.polygon(ax.x(np.concatenate([[xs[0]], xs, [xs[-1]]])),
                           ax.y(np.concatenate([[0.0], ys, [0.0]])), color=color,
                           attributes=f'class="area {css}"')
    zero_y = float(ax.y(0.0))
    canvas.line(ax.left, zero_y, ax.right, zero_y, color="#555555", width=0.8, css="zero")
    wins, ties, losses = int((ordered > 0).sum()), int((ordered == 0).sum()), int(
        (ordered < 0).sum())
    if n:
        mean_y = float(ax.y(ordered.mean()))
        canvas.line(ax.left, mean_y, ax.right, mean_y, color="#000000", width=0.9,
                    dash="4 3", css="mean")
    canvas.text(ax.left + 0.02 * ax.width, ax.top + 4, f"{wins:,} better · {ties:,} tied · "
                f"{losses:,} worse", size=NOTE_SIZE, color="#333333", hang=True, halo=True,
                css="note")
    canvas.text(ax.left + 0.02 * ax.width, ax.top + 4 + NOTE_SIZE * 1.25,
                f"mean {ordered.mean():+.4f}" if n else "no query", size=NOTE_SIZE,
                color="#333333", hang=True, halo=True, css="note")


# ----------------------------------------------------------------------------
# the comparison (forest plot) and the ASL curves
# ----------------------------------------------------------------------------


def comparison_svg(comparison: Comparison, *, key: str = "rankwise-comparison") -> Canvas:
    """Each system's mean difference from the baseline with its confidence interval.

    One row per measure and system; the dot is filled when the difference is
    significant after the correction, hollow otherwise; the corrected
    p-value is written on the right.
    """
    from rankwise.report.comparison_display import comparison_labels, format_p

    order = {name: i for i, name in enumerate(comparison.measures)}
    rows = sorted((row for row in comparison.rows
                   if row.baseline is not None and row.measure in order),
                  key=lambda row: order[row.measure])
    labels = comparison_labels(rows)
    measures = len({row.measure for row in rows})
    left = min(max((text_width(t, TICK_SIZE) for t in labels), default=0.0) + 20, 346.0)
    top, bottom, right = 60.0, _BELOW, 86.0
    height = max(top + bottom + 25.0 * len(rows) + 14.0 * measures, 192.0)
    width = max(749.0, left + 461.0)
    baselines = {row.baseline for row in rows}
    only = next(iter(baselines)) if len(baselines) == 1 else None
    title = f"difference from {shorten(only)}" if only else "paired differences"
    level = f"{comparison.confidence:.0%}"
    canvas = Canvas(width, height, key=key, title=f"Mean {title}",
                    desc=f"Mean difference from the baseline with its {level} confidence "
                         f"interval, one row per measure and system; filled dots are "
                         f"significant (p_adj ≤ {comparison.alpha:g}).")
    positions = []
    y = 0.0
    previous = None
    for row in rows:
        if previous is not None and row.measure != previous:
            y += 0.6  # a gap between the measures
        previous = row.measure
        positions.append(y)
        y += 1.0
    spread = _finite([v for row in rows for v in (row.delta, row.delta_ci_low,
                                                  row.delta_ci_high)] + [0.0])
    xlim = _margin(float(spread.min()), float(spread.max()))
    ylim = (positions[0] - 0.7, positions[-1] + 0.7) if positions else (0.0, 1.0)
    ax = Axes(left, top, width - left - right, height - top - bottom, xlim, ylim, flip=True)
    canvas.legend([(f"significant (p_adj ≤ {comparison.alpha:g})", "dot", "#444444"),
                   ("not significant", "ring", "#444444")],
                  x=ax.right - 2 * 190.0, y=4.0, columns=2, column_width=190.0)
    canvas.open("panel", f'data-title="{escape(title)}" {ax.attributes()}')
    canvas.frame(ax, xticks=nice_ticks(*ax.xlim, 6), yticks=positions, ylabels=labels,
                 ygrid=False, title=title, title_left=True,
                 xlabel=f"mean difference from the baseline ({level} confidence interval)")
    zero = float(ax.x(0.0))
    canvas.line(zero, ax.top, zero, ax.bottom, color="#555555", width=0.8, css="zero")
    for row, position in zip(rows, positions):
        color = color_of(comparison.systems.index(row.system)
                         if row.system in comparison.systems else 0)
        y = float(ax.y(position))
        low, high = ax.x([row.delta_ci_low, row.delta_ci_high])
        if math.isfinite(low) and math.isfinite(high):
            canvas.add(f'<path d="M{low:.2f} {y:.2f}H{high:.2f}M{low:.2f} {y - 4:.2f}V{y + 4:.2f}'
                       f'M{high:.2f} {y - 4:.2f}V{y + 4:.2f}" fill="none" stroke="{color}" '
                       'stroke-width="1.6" class="interval"/>')
        canvas.markers(ax.x([row.delta]), [y], size=8.7,
                       fill=color if row.significant else "#ffffff", stroke=color,
                       stroke_width=1.9,
                       attributes=f'class="dot" data-significant='
                                  f'"{"yes" if row.significant else "no"}"')
        marker = " *" if row.significant else ""
        canvas.text(ax.right + 5, y, f"p = {format_p(row.p_adjusted)}{marker}", size=NOTE_SIZE,
                    css="p")
    canvas.close()
    return canvas


def asl_svg(power: Any, *, key: str = "rankwise-asl") -> Canvas:
    """One ASL curve per measure: the pairs' p-values, sorted, against the pair's rank.

    The dashed line is alpha; the legend (measure and discriminative power)
    is on the right of the plot, off the data. The curves are drawn widest
    first, each next one thinner and on top, so curves that coincide (every
    pair at p = 0) show as nested stripes of their colours.
    """
    labels = [f"{name} ({power.fraction(name):.0%})" for name in power.measures]
    legend_title = "measure (discriminative power)"
    legend_width = max([text_width(t, 11.0) + 30 for t in labels]
                       + [text_width(legend_title, 11.0) * 1.08]) + 10
    width, height = 749.0, 346.0
    curves = [np.asarray(power.curve(name), dtype=np.float64) for name in power.measures]
    pairs = max((len(c) for c in curves), default=1)
    last = max((float(c[-1]) for c in curves if len(c)), default=0.2)
    ylim = (0.0, max(0.2, min(1.0, 1.05 * last)))
    xlim = _margin(1.0, float(pairs)) if pairs > 1 else (0.5, 1.5)
    ax = Axes(67.0, 14.0, width - 67.0 - legend_width - 24.0, height - 14.0 - 53.0, xlim, ylim)
    canvas = Canvas(width, height, key=key, title="Achieved significance level curves",
                    desc=f"Sorted p-values of the {counted(pairs, 'pair')} of systems for "
                         f"{', '.join(labels)}; the dashed line is alpha = {power.alpha:g}.")
    canvas.open("panel", f'data-title="ASL" {ax.attributes()}')
    canvas.frame(ax, xticks=nice_ticks(*ax.xlim, 6, integer=True), yticks=nice_ticks(*ylim, 5),
                 xlabel="system pair, sorted by p-value",
                 ylabel="achieved significance level (p)")
    alpha_y = float(ax.y(power.alpha))
    canvas.line(ax.left, alpha_y, ax.right, alpha_y, color="#666666", width=1.0, dash="5 3",
                css="alpha")
    widths = stacked_widths(len(curves))  # widest first: coinciding curves stay visible
    for index, (name, curve) in enumerate(zip(power.measures, curves)):
        ranks = np.arange(1, len(curve) + 1)
        attributes = f'class="series" data-name="{escape(name)}"'
        canvas.polyline(ax.x(ranks), ax.y(curve), color=color_of(index), width=widths[index],
                        attributes=attributes)
        if len(curve) <= 30:
            canvas.markers(ax.x(ranks), ax.y(curve), size=3.0 + widths[index],
                           fill=color_of(index))
    canvas.close()
    canvas.legend([(label, "line", color_of(i)) for i, label in enumerate(labels)],
                  x=ax.right + 18, y=ax.top, columns=1, column_width=legend_width,
                  title=legend_title)
    return canvas
