"""``render_html``: a :class:`~rankwise.report.build.Report` as one self-contained HTML page.

Everything is inline: the style sheet, the figures (as SVG elements), the
data of the query explorer and the one script that runs it. A
Content-Security-Policy forbids the page any request and any other script
(the page's own is allowed by its SHA-256 hash), so it opens offline and
cannot leak anything when opened.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

from rankwise._wording import counted, higher_means
from rankwise.report.assets import CSS
from rankwise.report.comparison_display import format_p
from rankwise.report.figure_html import figure_html
from rankwise.report.protocols import PageLike, RowLike
from rankwise.report.summaries import paired_index, top_changes
from rankwise.report.svg import Canvas

__all__ = ["SECTIONS", "render_html"]

SECTIONS = {
    "summary": "Comparison",
    "explorer": "Query explorer",
    "curves": "Metric@k curves",
    "differences": "Per-query differences",
    "distributions": "Distributions",
    "queries": "Queries that changed most",
    "provenance": "What was evaluated",
}
"""Section ids of the page and their headings, in order."""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src {script}"
"""The page may load nothing and run only its own script (allowed by its hash)."""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _num(value: float, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def _signed(value: float, digits: int = 4) -> str:
    if value is None or math.isnan(value):
        return "–"
    return f"{value:+.{digits}f}".replace("-", "−")


def _size(size: int | None) -> str:
    if size is None:
        return "–"
    amount = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if amount < 1000 or unit == "GB":
            return f"{size:,} B" if unit == "B" else f"{amount:.1f} {unit} ({size:,} B)"
        amount /= 1000
    return f"{size:,} B"  # pragma: no cover


def _section(key: str, lead: str, body: str) -> str:
    return (f'<section id="{key}" class="card"><h2>{_e(SECTIONS[key])}</h2>'
            f'<p class="lead">{lead}</p>{body}</section>')


def _figure(figure: Canvas, key: str, caption: str) -> str:
    return figure_html(figure, key, caption)


# ----------------------------------------------------------------------------
# sections
# ----------------------------------------------------------------------------


def _header(report: PageLike) -> str:
    baseline = (f" · baseline <b>{_e(report.baseline)}</b>" if report.baseline else "")
    when = report.created.strftime("%Y-%m-%d %H:%M %Z").strip()
    systems = len(report.systems)
    return (
        f'<header class="top"><div class="wrap"><h1>{_e(report.title)}</h1>'
        f'<p class="meta"><b>{systems}</b> system{"s" if systems != 1 else ""} · '
        f"<b>{report.n_queries:,}</b> queries · <b>{len(report.measures)}</b> "
        f"measure{'s' if len(report.measures) != 1 else ''}{baseline} · made {_e(when)} "
        f"with rankwise {_e(report.versions.get('rankwise', ''))}</p></div></header>"
    )


def _nav() -> str:
    links = "".join(f'<a href="#{key}">{_e(title)}</a>' for key, title in SECTIONS.items())
    return f'<nav class="toc"><div class="wrap">{links}</div></nav>'


def _marker(row: RowLike | None) -> str:
    if row is None or not row.significant or not row.direction:
        return ""
    up = row.direction > 0  # as the test weighs the differences (the mean, or wins, or ranks)
    title = (f"{'better' if up else 'worse'} than {row.baseline}: Δ {_signed(row.delta)}, "
             f"won/tied/lost {row.wins}/{row.ties}/{row.losses}, "
             f"p_adj {format_p(row.p_adjusted)}")
    return (f'<span class="sig {"up" if up else "down"}" title="{_e(title)}">'
            f'{"▲" if up else "▼"}</span>')


def _v(value: float | None) -> str:
    """A cell's ``data-v`` attribute: the number the tables sort by (empty: none)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ' data-v=""'
    return f' data-v="{value!r}"'


def _under(row: RowLike | None, level: str) -> str:
    """What a mean's cell shows under it: Δ, and (one click away) p_adj, d_z, the CI of Δ."""
    if row is None:
        return ""
    return (f'<span class="d d-delta">{_signed(row.delta)}</span>'
            f'<span class="d d-padj">p_adj {format_p(row.p_adjusted)}</span>'
            f'<span class="d d-dz">d<sub>z</sub> {_signed(row.effect_size, 3)}</span>'
            f'<span class="d d-ci">{level} [{_signed(row.delta_ci_low)}, '
            f"{_signed(row.delta_ci_high)}]</span>")


def _show_switch(report: PageLike) -> str:
    """Radio buttons choosing what each mean shows under it (read by CSS: no script needed)."""
    comparison = report.comparison
    if comparison is None:
        return ""
    level = f"{comparison.confidence:.0%}"
    choices = [("delta", "Δ from the baseline"), ("padj", "corrected p-value (p_adj)"),
               ("dz", "effect size (Cohen's d<sub>z</sub>)"), ("ci", f"{level} CI of Δ")]
    inputs = "".join(
        f'<label><input type="radio" name="summary-show" value="{key}"'
        f'{" checked" if key == "delta" else ""}> {label}</label>' for key, label in choices)
    return (f'<fieldset class="show-switch" id="summary-show"><legend>Under each mean, show'
            f"</legend>{inputs}</fieldset>")


def _conventions(report: PageLike) -> str:
    """Gain, relevance, ties and missing queries of every measure of the table."""
    from rankwise.report.conventions import conventions

    rows = "".join(
        f"<tr><td><code>{_e(c.measure)}</code></td><td>{_e(c.gain)}</td><td>{_e(c.ties)}</td>"
        f"<td>{_e(c.missing)}</td></tr>"
        for c in conventions(report.measures, report.settings))
    return ('<table class="conventions" id="conventions"><caption>How each measure was '
            "computed</caption><thead><tr><th>measure</th><th>gain and relevance</th>"
            "<th>ties</th><th>a judged query a run misses</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def _summary_table(report: PageLike) -> str:
    comparison = report.comparison
    rows: dict[tuple[str, str], RowLike] = {}
    letters: dict[str, dict[str, str]] = {}
    if comparison is not None:
        rows = {(r.measure, r.system): r for r in comparison.rows if r.baseline is not None}
        letters = {name: comparison.letters(name) for name in comparison.tukey}
    names = [str(m) for m in report.measures]
    best: dict[str, float] = {}
    for name in names:
        means = [report.results[s].mean[name] for s in report.systems]
        finite = [v for v in means if not math.isnan(v)]
        if finite and len(report.systems) > 1 and min(finite) < max(finite):
            best[name] = max(finite)
    head = "".join(f'<th class="num">{_e(n)}</th>' for n in names)
    level = f"{comparison.confidence:.0%}" if comparison is not None else ""
    body = []
    for system in report.systems:
        results = report.results[system]
        tag = ' <span class="tag">baseline</span>' if system == report.baseline else ""
        cells = [f'<th scope="row">{_e(system)}{tag}</th>',
                 f'<td class="num"{_v(results.n_queries)}>{results.n_queries:,}</td>']
        for name in names:
            value = results.mean[name]
            row = rows.get((name, system))
            css = "num best" if best.get(name) == value else "num"
            group = letters.get(name, {}).get(system, "")
            group_html = (f'<sup class="cld" title="runs that share a letter do not differ '
                          f'significantly">{_e(group)}</sup>' if group else "")
            cells.append(f'<td class="{css}"{_v(value)}><span class="v">{_num(value)}</span>'
                         f"{group_html}{_marker(row)}{_under(row, level)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<div class="scroll"><table class="summary" id="summary-table" data-sortable>'
            f'<thead><tr><th>system</th><th class="num">queries</th>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _detail_table(report: PageLike) -> str:
    comparison = report.comparison
    if comparison is None:
        return ""
    level = f"{comparison.confidence:.0%}"
    head = ("<tr><th>measure</th><th>system</th><th class='num'>n</th>"
            f"<th class='num'>mean</th><th class='num'>{level} CI</th>"
            f"<th class='num'>Δ</th><th class='num'>{level} CI of Δ</th>"
            "<th class='num'>p</th><th class='num'>p_adj</th><th data-nosort></th>"
            "<th class='num'>d<sub>z</sub></th><th class='num'>better / tied / worse</th></tr>")
    body = []
    for row in comparison.rows:
        compared = row.baseline is not None
        sign = "" if not compared or math.isnan(row.delta) else (
            "pos" if row.delta > 0 else "neg" if row.delta < 0 else "")
        body.append(
            f"<tr><td>{_e(row.measure)}</td><td>{_e(row.system)}"
            f"{'' if compared else ' <span class=tag>baseline</span>'}</td>"
            f'<td class="num"{_v(row.n_queries)}>{row.n_queries:,}</td>'
            f'<td class="num"{_v(row.mean)}>{_num(row.mean)}</td>'
            f'<td class="num"{_v(row.ci_low)}>[{_num(row.ci_low)}, {_num(row.ci_high)}]</td>'
            + (f'<td class="num {sign}"{_v(row.delta)}>{_signed(row.delta)}</td>'
               f'<td class="num"{_v(row.delta_ci_low)}>[{_signed(row.delta_ci_low)}, '
               f"{_signed(row.delta_ci_high)}]</td>"
               f'<td class="num"{_v(row.p_value)}>{format_p(row.p_value)}</td>'
               f'<td class="num"{_v(row.p_adjusted)}>{format_p(row.p_adjusted)}</td>'
               f"<td>{_marker(row)}</td>"
               f'<td class="num"{_v(row.effect_size)}>{_signed(row.effect_size, 3)}</td>'
               f'<td class="num"{_v(row.wins)}>{row.wins:,} / {row.ties:,} / {row.losses:,}</td>'
               if compared else '<td colspan="7"></td>')
            + "</tr>"
        )
    return (f'<details id="comparison-details" open><summary>All numbers: intervals, p-values, '
            f'effect sizes</summary><div class="body scroll"><p class="filter"><label>Filter '
            f'<input type="search" data-filter="details-table" aria-describedby="details-count" '
            f'placeholder="a measure or a system" autocomplete="off"></label> '
            f'<span id="details-count" class="x-count" aria-live="polite"></span></p>'
            f'<table class="details" id="details-table" data-sortable>'
            f"<thead>{head}</thead><tbody>{''.join(body)}</tbody></table></div></details>")


def _summary(report: PageLike) -> str:
    from rankwise.report.comparison_display import comparison_svg

    comparison = report.comparison
    parts = [_show_switch(report), _summary_table(report)]
    if comparison is not None:
        parts.append(
            f'<p class="legend">Mean over queries; the small figure under each mean is the '
            f"difference from the baseline (or, as chosen above, the corrected p-value, the "
            f"effect size or the interval of the difference). <span class='sig up'>▲</span> / "
            f"<span class='sig down'>▼</span>: significantly better / worse than "
            f"{_e(report.baseline)}{_e(higher_means(comparison.test))}. Bold: the best mean. "
            f"Click a column's name to sort. "
            f"{_e(comparison.legend)}.</p>"
        )
    parts.append(_conventions(report))
    if comparison is not None:
        if comparison.tukey:
            anova = "".join(
                f"<li><code>{_e(name)}</code>: two-way ANOVA (system × query) "
                f"{_e(result.anova.summary())}</li>"
                for name, result in comparison.tukey.items())
            parts.append(
                '<p class="legend" id="letters-legend">Letters after a mean: runs that share '
                "a letter do not differ significantly (compact letter display over every pair "
                f"of runs, family-wise; a = the group of the highest mean).</p>"
                f'<ul class="legend" id="anova">{anova}</ul>')
        parts.append(_figure(
            comparison_svg(comparison), "comparison",
            f"Mean difference from {_e(report.baseline)} with its "
            f"{comparison.confidence:.0%} confidence interval; a filled dot is significant.",
        ))
        parts.append(_detail_table(report))
        parts.append(_discrimination(report))
    elif len(report.systems) == 1:
        parts.append('<p class="empty">One system: no comparison. Give two or more runs to '
                     "test their differences.</p>")
    lead = ("Each system's mean of each measure, and whether it differs significantly from "
            "the baseline (paired tests on the same queries, corrected for multiple "
            "comparisons).")
    return _section("summary", lead, "".join(parts))


def _discrimination(report: PageLike) -> str:
    """The discriminative power of each measure and its ASL curves (three systems or more)."""
    power = report.discrimination
    if power is None:
        return ""
    from rankwise.report.discriminative import asl_panels_svg

    rows = "".join(
        f"<tr><td>{_e(name)}</td><td class='num'>{power.fraction(name):.0%}</td>"
        f"<td class='num'>{int((power.p_values[name] <= power.alpha).sum()):,} / "
        f"{len(power.pairs):,}</td></tr>"
        for name in power.measures)
    figure = _figure(asl_panels_svg(power), "asl",
                     "Achieved significance level of every pair of systems, sorted, one panel "
                     "per measure (the other measures' curves in grey): the lower and the "
                     "longer a measure's curve stays under the dashed line (alpha), the more "
                     "pairs it tells apart.")
    return (f'<details id="discriminative-power" open><summary>Discriminative power: how many '
            f"pairs of systems each measure tells apart</summary><div class='body'>"
            f"<p class='legend'>{_e(power.legend)} (Sakai, SIGIR 2006).</p>"
            f"<table class='details'><thead><tr><th>measure</th><th class='num'>"
            f"discriminative power</th><th class='num'>pairs significant</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>{figure}</div></details>")


def _curves(report: PageLike) -> str:
    from rankwise.exceptions import InvalidParameterError
    from rankwise.report.curves import curves_svg
    from rankwise.report.summaries import curve_label

    labels = ", ".join(curve_label(t) for t in report.curves)
    lead = (f"The mean of {_e(labels)} at every cutoff k from 1 to {report.max_k}, one line "
            "per system: which system wins at which depth. The k axis is logarithmic, so "
            "the top of the ranking gets the room it deserves.")
    if not report.curves:
        return _section("curves", lead, '<p class="empty">No curve was asked for.</p>')
    try:
        figure = curves_svg(report.results, report.curves, max_k=report.max_k)
    except InvalidParameterError as error:
        return _section("curves", lead, f'<p class="empty">{_e(error)}</p>')
    return _section("curves", lead, _figure(
        figure, "curves", f"Mean {_e(labels)} for k = 1 … {report.max_k}."))


def _differences(report: PageLike) -> str:
    from rankwise.report.differences import MAX_BARS, MAX_POINTS, differences_svg

    lead = ("For each query, the system's value minus the baseline's, sorted from the largest "
            "loss (red, left) to the largest gain (green, right); queries with no change lie "
            "on the zero line and the dashed line is the mean difference. A system that wins "
            "on average can still lose badly on some queries: this shows how many and by "
            "how much.")
    if report.baseline is None:
        return _section("differences", lead,
                        '<p class="empty">One system: nothing to compare with.</p>')
    figure = differences_svg(report.results, [str(m) for m in report.measures],
                             report.baseline)
    most = max(r.n_queries for r in report.results.values())
    how = ""
    if most > MAX_POINTS:
        how = (f" With more than {MAX_POINTS} queries the area the bars fill is drawn from "
               f"{MAX_POINTS} samples of the sorted differences.")
    elif most > MAX_BARS:
        how = " The bars touch: each step of the area is one query."
    return _section("differences", lead, _figure(
        figure, "differences",
        f"Per-query differences against {_e(report.baseline)}; one row per measure, one "
        f"column per system.{how}"))


def _distributions(report: PageLike) -> str:
    from rankwise.report.distribution import distribution_svg

    lead = ("How the per-query values of each measure are spread: the share of queries in "
            "each bin, one bar per system; the triangles on the top edge mark each system's "
            "mean. The bar at 0 counts the queries where a system found nothing relevant.")
    figure = distribution_svg(report.results, [str(m) for m in report.measures])
    return _section("distributions", lead, _figure(
        figure, "distributions", "Share of queries per bin of width 0.1 (centred on 0, 0.1, "
        "…, 1 for measures between 0 and 1)."))


def _change_table(kind: str, title: str, changes: Sequence[Any], system: str,
                  baseline: str) -> str:
    if not changes:
        rows = f'<tr><td colspan="4" class="empty">no query {kind}</td></tr>'
    else:
        rows = "".join(
            f'<tr><td class="qid" title="{_e(c.query_id)}">{_e(c.query_id)}</td>'
            f'<td class="num"{_v(c.baseline)}>{_num(c.baseline)}</td>'
            f'<td class="num"{_v(c.value)}>{_num(c.value)}</td>'
            f'<td class="num {"pos" if c.delta > 0 else "neg"}"{_v(c.delta)}>{_signed(c.delta)}'
            "</td></tr>"
            for c in changes
        )
    css = "gain" if kind == "gained" else "loss"
    return (f'<table class="changes-{css}" data-sortable><caption class="{css}">{_e(title)}'
            "</caption>"
            f"<thead><tr><th>query</th><th class='num' title='{_e(baseline)}'>{_e(baseline)}</th>"
            f"<th class='num' title='{_e(system)}'>{_e(system)}</th><th class='num'>Δ</th></tr>"
            "</thead>"
            f"<tbody>{rows}</tbody></table>")


def _queries(report: PageLike) -> str:
    lead = (f"Per measure and system, the {counted(report.top, 'query')} that gained most and "
            f"the {report.top} that lost most against the baseline: where to look first when "
            "reading the rankings.")
    if report.baseline is None:
        return _section("queries", lead,
                        '<p class="empty">One system: nothing to compare with.</p>')
    baseline = report.results[report.baseline]
    others = [s for s in report.systems if s != report.baseline]
    pairs = {system: paired_index(baseline, report.results[system]) for system in others}
    blocks = []
    for index, measure in enumerate(report.measures):
        name = str(measure)
        systems = []
        for system in others:
            ids, in_base, in_system = pairs[system]
            gains, losses = top_changes(ids, baseline[measure][in_base],
                                        report.results[system][measure][in_system],
                                        report.top)
            systems.append(
                f"<div><h4>{_e(system)} vs {_e(report.baseline)}</h4><div class='pair'>"
                + _change_table("gained", "gained most", gains, system, report.baseline)
                + _change_table("lost", "lost most", losses, system, report.baseline)
                + "</div></div>"
            )
        opened = " open" if index == 0 else ""
        blocks.append(f'<details class="measure"{opened}><summary>{_e(name)}</summary>'
                      f'<div class="body changes">{"".join(systems)}</div></details>')
    return _section("queries", lead, "".join(blocks))


def _provenance(report: PageLike) -> str:
    files = "".join(
        f"<tr><td>{_e(f.role)}</td><td>{_e(f.system or '')}</td><td class='mono'>{_e(f.path)}"
        + (f'<span class="note">{_e(f.note)}</span>' if f.note else "")
        + f'</td><td class="num">{_size(f.size)}</td><td class="hash">{_e(f.sha256 or "–")}</td>'
        "</tr>"
        for f in report.files
    )
    measures = "".join(
        f"<tr><td><code>{_e(d.name)}</code></td><td>{_e(d.summary)}</td>"
        f"<td class='mono'>{_e(d.formula)}</td><td class='mono'>{_e(d.parameters or '–')}</td>"
        f"<td>{_e(d.reference or '–')}</td></tr>"
        for d in report.definitions
    )
    settings = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in report.settings.items())
    versions = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in report.versions.items())
    when = report.created.isoformat(timespec="seconds")
    notes = ("<h3>Notes</h3><ul class='notes' id='notes'>"
             + "".join(f"<li>{_e(n)}</li>" for n in report.notes) + "</ul>"
             if report.notes else "")
    body = (
        "<h3>Files</h3><div class='scroll'><table id='files'><thead><tr><th>role</th>"
        "<th>system</th><th>path</th><th class='num'>size</th><th>SHA-256</th></tr></thead>"
        f"<tbody>{files}</tbody></table></div>"
        "<h3>Measures</h3><div class='scroll'><table id='measures'><thead><tr><th>measure</th>"
        "<th>definition</th><th>formula</th><th>parameters</th><th>reference</th></tr>"
        f"</thead><tbody>{measures}</tbody></table></div>"
        f"<h3>Settings</h3><dl class='kv' id='settings'>{settings}</dl>"
        f"<h3>Software</h3><dl class='kv' id='versions'>{versions}"
        f"<dt>date</dt><dd><time datetime='{_e(when)}'>{_e(when)}</time></dd></dl>"
        f"{notes}"
    )
    lead = ("The inputs, with their sizes and SHA-256 hashes, the definition of every measure, "
            "the options and the software: enough to reproduce every number on this page.")
    return _section("provenance", lead, body)


def render_html(report: PageLike) -> str:
    """The report as one self-contained HTML page.

    Parameters
    ----------
    report : Report
        From :func:`rankwise.report.build_report`.

    Returns
    -------
    str
        The page: no external resource; one inline script, allowed by its hash.

    Notes
    -----
    The figures are drawn as SVG by rankwise (:mod:`rankwise.report.svg`):
    the page needs neither matplotlib nor any other plotting library.
    """
    from rankwise.report.explorer import explorer_section, script, script_hash

    sections = [_summary(report), explorer_section(report), _curves(report),
                _differences(report), _distributions(report), _queries(report),
                _provenance(report)]
    version = _e(report.versions.get("rankwise", ""))
    policy = _CSP.format(script=script_hash())
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        f'<meta name="generator" content="rankwise {version}">'
        f"<title>{_e(report.title)}</title>"
        '<link rel="icon" href="data:,">'
        f"<style>{CSS}</style></head><body>"
        f"{_header(report)}{_nav()}<main class=\"wrap\">{''.join(sections)}</main>"
        f"<footer>Made by rankwise {version}. This page is self-contained: it loads nothing "
        "from the network.</footer>"
        f'<script id="rankwise-script">{script()}</script></body></html>\n'
    )
