"""The report's SVG figures (no matplotlib): what is drawn maps back to the numbers.

Each figure is parsed as XML; the ``data-*`` attributes of its panels give the map
from data to pixels, inverted by ``svgdata``: points, bars, boxes and markers are
read back as values and compared with the results they were drawn from.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from svgdata import all_text, marker_centres, panels, parse, points, rectangles

import rankwise as rw
from rankwise.comparison import compare_results
from rankwise.evaluation import evaluate_runs
from rankwise.exceptions import InvalidParameterError
from rankwise.report.comparison_display import comparison_svg
from rankwise.report.curves import curves_svg
from rankwise.report.differences import differences_svg
from rankwise.report.discriminative import asl_svg
from rankwise.report.distribution import distribution_svg
from rankwise.report.layout import log_ticks, nice_ticks, text_width, tick_labels
from rankwise.report.summaries import histogram_edges
from rankwise.report.svg import escape

CURVES = [f"{family}@{k}" for family in ("ndcg", "P", "recall") for k in range(1, 31)]


@pytest.fixture(scope="module")
def evaluated(synthetic: Any) -> dict[str, rw.Results]:
    qrels, runs = synthetic(80, 3, depth=30, seed=3)
    measures = ["ndcg@10", "map", "mrr", *CURVES]
    return {name: rw.evaluate(qrels, run, measures) for name, run in runs.items()}


@pytest.fixture(scope="module")
def three_queries() -> dict[str, rw.Results]:
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 2}}
    runs = {
        "base": {"q1": {"x": 2.0, "a": 1.0}, "q2": {"c": 1.0}, "q3": {"x": 1.0}},
        "new": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 2.0, "c": 1.0}, "q3": {"d": 1.0}},
        "other": {"q1": {"b": 2.0}, "q2": {"c": 2.0}, "q3": {"x": 2.0, "d": 1.0}},
    }
    measures = ["ndcg@10", "map", *[f"P@{k}" for k in range(1, 6)]]
    return evaluate_runs(qrels, runs, measures)


def accessible(svg: str) -> Any:
    """Parse *svg*; check its title and description are there and named by aria."""
    root = parse(svg)
    title = root.find("{http://www.w3.org/2000/svg}title")
    desc = root.find("{http://www.w3.org/2000/svg}desc")
    assert title is not None and title.text and desc is not None and desc.text
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    return root


# ----------------------------------------------------------------------------
# the drawing kit
# ----------------------------------------------------------------------------


@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6), st.integers(2, 8), st.booleans())
def test_nice_ticks(low: float, span: float, count: int, integer: bool) -> None:
    assume(span > 1e-4 * max(1.0, abs(low)))  # an axis, not a rounding error
    high = low + span
    ticks = nice_ticks(low, high, count, integer=integer)
    assert len(ticks) <= 2 * count + 2
    slack = 1e-8 * max(span, abs(low), abs(high))  # rounding, invisible on the axis
    assert np.all(ticks >= low - slack) and np.all(ticks <= high + slack)
    if len(ticks) >= 2:
        steps = np.diff(ticks)
        np.testing.assert_allclose(steps, steps[0], rtol=1e-6)
        mantissa = steps[0] / 10 ** math.floor(math.log10(steps[0]))
        assert min(abs(mantissa - m) for m in (1, 2, 2.5, 5, 10)) < 1e-6
    if integer:
        assert all(float(t).is_integer() for t in ticks)
    if not integer:
        assert len(ticks) >= 2  # a range always gets a scale


def test_tick_values_and_labels() -> None:
    assert nice_ticks(0.0, 1.0).tolist() == [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
    assert nice_ticks(0.5, 3.5, integer=True).tolist() == [1.0, 2.0, 3.0]
    assert nice_ticks(0.5, 1.5, integer=True).tolist() == [1.0]
    assert log_ticks(1, 30).tolist() == [1, 2, 5, 10, 20]
    assert log_ticks(1, 1000).tolist()[-3:] == [200, 500, 1000]
    assert tick_labels(nice_ticks(-1.08, 1.08, 4)) == ["−1", "0", "1"]
    assert tick_labels([0.0, 0.25, 0.5]) == ["0.00", "0.25", "0.50"]
    assert tick_labels([1e-9, 2e-9]) == ["0.000000", "0.000000"]  # six decimals at most


@pytest.mark.parametrize("text", ["$\\foo$", "$x^$", "<script>alert(1)</script>",
                                  "a_b%c{d}#&~^ \"'", "tab\there", "nul\x00bell\x07",
                                  "lone \udc80 surrogate", "é 漢字 😀"])
def test_escape_keeps_text_literal_and_xml_valid(text: str) -> None:
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg"><text a="{escape(text)}">'
           f"{escape(text)}</text></svg>")
    root = parse(svg)
    element = root[0]
    expected = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]", "\ufffd", text)
    assert element.text == expected
    assert element.get("a").replace("\t", " ") == expected.replace("\t", " ")
    assert "<script>" not in escape(text)


def test_text_width_grows_with_the_text() -> None:
    assert text_width("", 10) == 0
    assert text_width("mmmm", 10) > text_width("iiii", 10) > 0
    assert text_width("bm25", 20) == pytest.approx(2 * text_width("bm25", 10))


# ----------------------------------------------------------------------------
# the figures: drawn data maps back to the numbers
# ----------------------------------------------------------------------------


def test_curves(evaluated: dict[str, rw.Results]) -> None:
    root = accessible(curves_svg(evaluated, ["ndcg", "P", "recall"]).svg())
    drawn = {panel.title: panel for panel in panels(root)}
    assert list(drawn) == ["ndcg@k", "P@k", "recall@k"]
    for family, panel in zip(("ndcg", "P", "recall"), drawn.values()):
        assert panel.xlog and panel.xlim == (1, 30)  # k beyond 20: a log axis
        assert panel.texts("tick")[:5] == ["1", "2", "5", "10", "20"]
        assert panel.texts("title") == [panel.title] == panel.texts("ylabel")
        assert panel.texts("xlabel") == ["cutoff k (log scale)"]
        lines = panel.find("path", "series")
        assert [line.get("data-name") for line in lines] == list(evaluated)
        for line, results in zip(lines, evaluated.values()):
            xy = points(line.get("d"))
            expected = [results.mean[f"{family}@{k}"] for k in range(1, 31)]
            np.testing.assert_allclose(panel.data_x(xy[:, 0]), np.arange(1, 31), rtol=1e-3)
            np.testing.assert_allclose(panel.data_y(xy[:, 1]), expected,
                                       atol=panel.pixel_tolerance_y())
            assert panel.ylim[0] == 0 <= min(expected) and max(expected) <= panel.ylim[1]
    legend = [e.text for e in root.iter() if e.get("class") == "legend-label"]
    assert legend == list(evaluated)


def test_curves_of_few_cutoffs_have_whole_number_ticks(
        three_queries: dict[str, rw.Results]) -> None:
    (panel,) = panels(parse(curves_svg(three_queries, ["P"]).svg()))
    assert not panel.xlog and panel.xlim == (1, 5)
    assert panel.texts("tick")[:5] == ["1", "2", "3", "4", "5"]
    with pytest.raises(InvalidParameterError, match="no cutoff of map@k"):
        curves_svg(three_queries, ["map"])


def test_histograms(evaluated: dict[str, rw.Results]) -> None:
    measures = ["ndcg@10", "map", "mrr", "map"]
    root = accessible(distribution_svg(evaluated, measures).svg())
    drawn = panels(root)
    assert [p.title for p in drawn] == measures
    assert [p.texts("ylabel") for p in drawn] == [["% of queries"], [], [], ["% of queries"]]
    for measure, panel in zip(measures, drawn):
        edges = histogram_edges([r[measure] for r in evaluated.values()])
        bars = panel.find("path", "bars")
        assert [b.get("data-name") for b in bars] == list(evaluated)
        for bar, results in zip(bars, evaluated.values()):
            x, y, _, height = rectangles(bar.get("d")).T
            assert len(x) == len(edges) - 1
            shares = panel.data_y(y) - panel.data_y(y + height)  # heights in data units
            counts, _ = np.histogram(results[measure], bins=edges)
            np.testing.assert_allclose(shares, 100 * counts / counts.sum(),
                                       atol=2 * panel.pixel_tolerance_y())
            assert panel.data_y(y + height) == pytest.approx(0, abs=1e-6)  # from zero
        means = panel.find("path", "mean")
        for mark, results in zip(means, evaluated.values()):
            (centre,) = marker_centres(mark.get("d"))
            assert panel.data_x(centre[0]) == pytest.approx(results.mean[measure], abs=1e-3)
            assert centre[1] == pytest.approx(panel.box[1], abs=0.05)  # on the top edge
    assert panels(root)[0].texts("tick")[:6] == ["0", "0.2", "0.4", "0.6", "0.8", "1"]


@pytest.mark.parametrize("count", [1, 3, 4])
def test_box_plots(evaluated: dict[str, rw.Results], count: int) -> None:
    measures = ["ndcg@10", "map", "mrr", "P@10"][:count]
    root = accessible(distribution_svg(evaluated, measures, kind="box").svg())
    drawn = panels(root)
    assert len(drawn) == count
    for index, (measure, panel) in enumerate(zip(measures, drawn)):
        boxes = panel.find("path", "box")
        assert len(boxes) == len(evaluated)  # one box per system
        ticks = panel.find("g", "yticks")[0]
        names = ["".join(t.itertext()) for t in ticks]
        assert names == (list(evaluated) if index % 3 == 0 else [])  # names on the left only
        for position, (box, results) in enumerate(zip(boxes, evaluated.values()), start=1):
            (x, y, width, height), = rectangles(box.get("d"))
            q1, q3 = np.percentile(results[measure], [25, 75])
            assert panel.data_x(x) == pytest.approx(q1, abs=panel.pixel_tolerance_x())
            assert panel.data_x(x + width) == pytest.approx(q3, abs=panel.pixel_tolerance_x())
            assert panel.data_y(y + height / 2) == pytest.approx(position, abs=1e-3)
        (diamonds,) = panel.find("path", "mean")
        centres = marker_centres(diamonds.get("d"))
        np.testing.assert_allclose(panel.data_x(centres[:, 0]),
                                   [r.mean[measure] for r in evaluated.values()], atol=1e-3)
        low, high = panel.xlim
        for results in evaluated.values():  # the axis covers the whiskers and the means
            p5, p95 = np.percentile(results[measure], [5, 95])
            assert low <= p5 and p95 <= high
    # issue 13, item 13: the legend explains the diamond, above every panel
    legend = next(e for e in root.iter() if e.get("class") == "legend")
    labels = [e.text for e in legend.iter() if e.get("class") == "legend-label"]
    assert labels == [*evaluated, "mean"]
    lowest = max(float(t.get("y")) for t in legend.iter() if t.get("class") == "legend-label")
    assert lowest + 8 < min(panel.box[1] for panel in drawn) - 20  # clear of titles too


def test_differences_bars(three_queries: dict[str, rw.Results]) -> None:
    root = accessible(differences_svg(three_queries, ["map", "ndcg@10"], "base").svg())
    drawn = panels(root)
    assert [p.title for p in drawn] == ["new − base", "other − base"] * 2
    for panel in drawn:
        measure = panel.element.get("data-measure")
        system = panel.title.split(" − ")[0]
        d = np.sort(three_queries[system][measure] - three_queries["base"][measure])
        heights, positions = [], []
        for bars in panel.find("path", "bars"):
            for x, y, width, height in rectangles(bars.get("d")):
                top, bottom = panel.data_y(y), panel.data_y(y + height)
                heights.append(top if abs(top) > abs(bottom) else bottom)
                positions.append(panel.data_x(x + width / 2))
        order = np.argsort(positions)
        nonzero = d[d != 0]
        np.testing.assert_allclose(np.array(heights)[order], nonzero,
                                   atol=2 * panel.pixel_tolerance_y())
        # issue 13, item 13: the query axis has whole-number ticks
        assert panel.texts("tick")[:2] == ["1", "3"]
        assert panel.xlim == (0.5, 3.5)
        (mean,) = panel.find("path", "mean")
        y = float(re.findall(r"M[-\d.]+ ([-\d.]+)", mean.get("d"))[0])
        assert panel.data_y(y) == pytest.approx(d.mean(), abs=panel.pixel_tolerance_y())
        note = panel.texts("note")
        assert note[0] == (f"{(d > 0).sum()} better · {(d == 0).sum()} tied · "
                           f"{(d < 0).sum()} worse")
    for row in (drawn[:2], drawn[2:]):  # a row shares its symmetric scale
        assert row[0].ylim == row[1].ylim and row[0].ylim[0] == -row[0].ylim[1]
    assert [p.texts("ylabel") for p in drawn] == [["Δ map"], [], ["Δ ndcg@10"], []]


@pytest.mark.parametrize("n", [200, 100_000])
def test_differences_areas_stay_small(n: int) -> None:
    from rankwise.measures import parse as measure

    rng = np.random.default_rng(0)
    qids = [f"q{i}" for i in range(n)]
    base = rw.Results(qids, {measure("ndcg@10"): rng.random(n)}, run_name="b")
    values = np.clip(base["ndcg@10"] + np.round(rng.normal(0.02, 0.2, n), 2), 0, 1)
    other = rw.Results(qids, {measure("ndcg@10"): values}, run_name="a")
    svg = differences_svg({"b": base, "a": other}, ["ndcg@10"], "b").svg()
    (panel,) = panels(parse(svg))
    areas = panel.find("path", "area")
    assert [a.get("class") for a in areas] == ["area loss", "area gain"]
    assert sum(len(points(a.get("d"))) for a in areas) <= 2 * 2 * 250 + 20
    assert len(svg) < 40_000  # whatever the number of queries
    d = values - base["ndcg@10"]
    assert panel.texts("tick")[:2] == ["1", f"{n}"] and panel.texts("note")[0] == (
        f"{(d > 0).sum():,} better · {(d == 0).sum():,} tied · {(d < 0).sum():,} worse")
    gain = points(areas[1].get("d"))
    assert panel.data_y(gain[:, 1]).max() == pytest.approx(d.max(), abs=1e-3)


def test_differences_errors(three_queries: dict[str, rw.Results]) -> None:
    with pytest.raises(InvalidParameterError, match="need two systems"):
        differences_svg({"base": three_queries["base"]}, ["map"], "base")
    with pytest.raises(InvalidParameterError, match="baseline 'nope'"):
        differences_svg(three_queries, ["map"], "nope")


def test_comparison(evaluated: dict[str, rw.Results]) -> None:
    comparison = compare_results(evaluated, ["ndcg@10", "map"], baseline="sys0", seed=0)
    root = accessible(comparison_svg(comparison).svg())
    (panel,) = panels(root)
    assert panel.title == "difference from sys0" and panel.down
    labels = panel.texts("tick")
    assert labels[-4:] == ["ndcg@10 · sys1", "ndcg@10 · sys2", "map · sys1", "map · sys2"]
    dots = panel.find("path", "dot")
    rows = [row for row in comparison.rows if row.baseline is not None]
    assert len(dots) == len(rows) == 4
    previous = -math.inf
    for dot, row in zip(dots, rows):
        (centre,) = marker_centres(dot.get("d"))
        assert panel.data_x(centre[0]) == pytest.approx(row.delta, abs=panel.pixel_tolerance_x())
        assert centre[1] > previous  # first row on top
        previous = centre[1]
        assert (dot.get("fill") != "#ffffff") == bool(row.significant)
        assert dot.get("data-significant") == ("yes" if row.significant else "no")
        low, high = panel.xlim
        assert low <= row.delta_ci_low and row.delta_ci_high <= high
    intervals = panel.find("path", "interval")
    for interval, row in zip(intervals, rows):
        xs = [float(v) for v in re.findall(r"M([-\d.]+) [-\d.]+H([-\d.]+)",
                                           interval.get("d"))[0]]
        np.testing.assert_allclose(panel.data_x(xs), [row.delta_ci_low, row.delta_ci_high],
                                   atol=panel.pixel_tolerance_x())
    assert len(panel.texts("p")) == 4 and panel.texts("p")[0].startswith("p = ")
    legend = [e.text for e in root.iter() if e.get("class") == "legend-label"]
    assert legend == ["significant (p_adj ≤ 0.05)", "not significant"]


def test_asl_curves(evaluated: dict[str, rw.Results]) -> None:
    from rankwise.design import discriminative_power_results

    power = discriminative_power_results(evaluated, ["ndcg@10", "map"], n_resamples=200,
                                         seed=0)
    root = accessible(asl_svg(power).svg())
    (panel,) = panels(root)
    for line, name in zip(panel.find("path", "series"), power.measures):
        xy = points(line.get("d"))
        curve = power.curve(name)
        np.testing.assert_allclose(panel.data_x(xy[:, 0]), np.arange(1, len(curve) + 1),
                                   atol=panel.pixel_tolerance_x())
        np.testing.assert_allclose(panel.data_y(xy[:, 1]), curve,
                                   atol=panel.pixel_tolerance_y())
    (alpha,) = panel.find("path", "alpha")
    y = float(re.findall(r"M[-\d.]+ ([-\d.]+)", alpha.get("d"))[0])
    assert panel.data_y(y) == pytest.approx(power.alpha, abs=panel.pixel_tolerance_y())
    assert panel.ylim[0] == 0 and panel.ylim[1] >= 0.2
    legend_x = min(float(e.get("x")) for e in root.iter() if e.get("class") == "legend-label")
    assert legend_x > panel.box[0] + panel.box[2]  # the legend is off the data


# ----------------------------------------------------------------------------
# issue 13, item 24: every text drawn is literal; the SVG stays valid
# ----------------------------------------------------------------------------

HOSTILE = ["$\\foo$", "$x^$", "<script>alert(1)</script>", "a_b%c{d}#&~^", "$$",
           "long " + "x" * 300, "ctrl\x01char"]


@pytest.fixture(scope="module")
def hostile(three_queries: dict[str, rw.Results]) -> dict[str, rw.Results]:
    values = list(three_queries.values())
    return {name: rw.Results(values[i % 3].query_ids,
                             {m: values[i % 3][m] for m in values[i % 3].measures},
                             run_name=name)
            for i, name in enumerate(HOSTILE)}


def test_hostile_names_in_every_figure(hostile: dict[str, rw.Results]) -> None:
    comparison = compare_results(hostile, ["map", "P@5"], baseline="$x^$", seed=0)
    figures = [curves_svg(hostile, ["P"]), distribution_svg(hostile, ["map", "ndcg@10"]),
               distribution_svg(hostile, ["map"], kind="box"),
               differences_svg(hostile, ["map"], "$x^$"), comparison_svg(comparison)]
    for figure in figures:
        svg = figure.svg()
        assert "<script>" not in svg and "\x01" not in svg
        root = accessible(svg)  # well-formed XML
        text = all_text(root)
        for name in HOSTILE[:5]:
            assert name in text, (figure.key, name)
        assert "ctrl\ufffdchar" in text
        assert "long " + "x" * 30 in text and "x" * 60 not in text  # shortened
        assert "\\$" not in text  # nothing escaped for matplotlib


# ----------------------------------------------------------------------------
# issue 33, item 25: outliers drawn; coinciding ASL curves stay visible
# ----------------------------------------------------------------------------


def _mostly_one(value: float, others: list[float], n: int = 100) -> np.ndarray:
    return np.array([value] * (n - len(others)) + others)


def test_box_plot_draws_the_queries_beyond_the_whiskers() -> None:
    """MRR at 1 for 96 of 100 queries and at 0.2 or 0.5 for 4: the box is a line at 1,
    and the four queries show as two outlier points."""
    ids = [f"q{i}" for i in range(100)]
    dense = rw.Results(ids, {rw.parse("mrr"): _mostly_one(1.0, [0.2, 0.2, 0.5, 0.5])},
                       run_name="dense")
    bm25 = rw.Results(ids, {rw.parse("mrr"): np.linspace(0, 1, 100)}, run_name="bm25")
    root = accessible(distribution_svg({"bm25": bm25, "dense": dense}, ["mrr"],
                                       kind="box").svg())
    (panel,) = panels(root)
    found = {e.get("data-name"): e for e in panel.find("path", "outliers")}
    spread = np.linspace(0, 1, 100)  # bm25: the values below its 5th and above its 95th
    p5, p95 = np.percentile(spread, [5, 95])
    beyond = marker_centres(found["bm25"].get("d"))
    np.testing.assert_allclose(panel.data_x(beyond[:, 0]),
                               spread[(spread < p5) | (spread > p95)],
                               atol=panel.pixel_tolerance_x())
    centres = marker_centres(found["dense"].get("d"))
    np.testing.assert_allclose(panel.data_x(centres[:, 0]), [0.2, 0.5],
                               atol=panel.pixel_tolerance_x())
    np.testing.assert_allclose(panel.data_y(centres[:, 1]), [2, 2], atol=1e-3)
    assert found["dense"].get("data-counts") == "2 2"
    assert panel.xlim[0] <= 0.2  # the axis reaches the outliers


def test_asl_curves_that_coincide_are_all_visible() -> None:
    """Curves lying on one another are drawn widest first, each next thinner: every colour
    shows (issue 33, item 25: four of five lines at 0 showed as one)."""
    from rankwise.design import DiscriminativePower

    names = tuple(f"m{i}" for i in range(5))
    curves = {name: np.zeros(10) for name in names[:4]}
    curves["m4"] = np.linspace(0, 0.5, 10)
    systems = tuple(f"s{i}" for i in range(5))
    pairs = tuple((a, b) for i, a in enumerate(systems) for b in systems[i + 1:])
    power = DiscriminativePower("bootstrap", 0.05, 100, 0, systems, pairs, names, curves)
    root = accessible(asl_svg(power).svg())
    (panel,) = panels(root)
    lines = panel.find("path", "series")
    widths = [float(line.get("stroke-width")) for line in lines]
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == 5
    # each of the four coinciding curves is wider than the one drawn over it
    for below, above in itertools.pairwise(widths):
        assert below - above >= 1.0
