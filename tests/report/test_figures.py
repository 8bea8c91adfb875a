"""Image tests of the displays and figures: they render, with labelled axes and legends."""

from __future__ import annotations

import io
import itertools
import re
import sys
from typing import Any

import numpy as np
import pytest

import rankwise as rw
from rankwise.comparison import compare_results
from rankwise.evaluation import evaluate_runs
from rankwise.exceptions import InvalidParameterError, MissingDependencyError
from rankwise.report import (
    ComparisonDisplay,
    CurvesDisplay,
    DifferencesDisplay,
    DistributionDisplay,
    comparison_figure,
    curves_figure,
    differences_figure,
    distribution_figure,
    figure_to_svg,
    plot_comparison,
    plot_results,
    save_figure,
)
from rankwise.report._mpl import require_matplotlib

pytestmark = pytest.mark.usefixtures("mpl")

CURVES = [f"{family}@{k}" for family in ("ndcg", "P", "recall") for k in range(1, 31)]


@pytest.fixture(scope="module")
def evaluated(synthetic: Any) -> dict[str, rw.Results]:
    qrels, runs = synthetic(80, 3, depth=30, seed=3)
    measures = ["ndcg@10", "map", "mrr", *CURVES]
    return {name: rw.evaluate(qrels, run, measures) for name, run in runs.items()}


def rendered(figure: Any) -> np.ndarray:
    """The figure as RGBA pixels (through a PNG, as a user would save it)."""
    import matplotlib.image

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=60)
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    buffer.seek(0)
    return matplotlib.image.imread(buffer)


def assert_drew_something(figure: Any) -> None:
    pixels = rendered(figure)
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100
    assert pixels[..., :3].std() > 0.05  # not a blank canvas
    colours = np.unique((pixels[..., :3] * 15).round().reshape(-1, 3), axis=0)
    assert len(colours) > 5


def bar_heights(collection: Any) -> list[float]:
    """The signed height of each bar of a collection of bars (rectangles from 0)."""
    heights = []
    for path in collection.get_paths():
        y = path.vertices[:4, 1]
        heights.append(float(y[np.argmax(np.abs(y))]))
    return heights


def legend_texts(ax: Any) -> list[str]:
    """The texts of the legend of *ax*, inside it or along its figure's top edge."""
    legends = [ax.get_legend(), *ax.figure.legends]
    legend = next((item for item in legends if item is not None), None)
    assert legend is not None
    return [text.get_text() for text in legend.get_texts()]


# ----------------------------------------------------------------------------
# the displays
# ----------------------------------------------------------------------------


def test_curves_display(evaluated: dict[str, rw.Results]) -> None:
    display = CurvesDisplay.from_results(evaluated, "ndcg")
    assert display.ax_.get_xlabel().startswith("cutoff k")
    assert display.ax_.get_ylabel() == "ndcg@k" == display.ax_.get_title()
    assert legend_texts(display.ax_) == list(evaluated)
    assert display.ax_.get_xscale() == "log"  # k goes beyond 20
    line = display.lines_["sys1"]
    assert line.get_xdata().tolist() == list(range(1, 31))
    expected = [evaluated["sys1"].mean[f"ndcg@{k}"] for k in range(1, 31)]
    np.testing.assert_allclose(line.get_ydata(), expected)
    assert display.figure_ is display.ax_.figure
    assert_drew_something(display.figure_)


def test_curves_display_on_given_axes(evaluated: dict[str, rw.Results]) -> None:
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots()
    display = CurvesDisplay.from_results(evaluated["sys0"], "P@10", ax=ax, xscale="linear")
    assert display.ax_ is ax and display.figure_ is figure
    assert ax.get_xscale() == "linear" and ax.get_ylabel() == "P@k"
    with pytest.raises(InvalidParameterError,
                       match=r"^xscale must be one of 'auto', 'log', 'linear', got "
                             r"'logarithmic' \(str\)$"):
        display.plot(xscale="logarithmic")


def test_curves_need_cutoffs(evaluated: dict[str, rw.Results]) -> None:
    with pytest.raises(InvalidParameterError, match=r"no cutoff of map@k; evaluate them"):
        CurvesDisplay.from_results(evaluated, "map")
    with pytest.raises(InvalidParameterError, match="takes no cutoff"):
        CurvesDisplay.from_results(evaluated, "bpref")


@pytest.mark.parametrize("kind", ["hist", "box"])
def test_distribution_display(evaluated: dict[str, rw.Results], kind: str) -> None:
    display = DistributionDisplay.from_results(evaluated, "ndcg@10", kind=kind)
    assert display.ax_.get_title() == "ndcg@10" == display.ax_.get_xlabel()
    assert display.means_ == pytest.approx(
        {name: r.mean["ndcg@10"] for name, r in evaluated.items()})
    if kind == "hist":
        assert display.ax_.get_ylabel() == "% of queries"
        for name, bars in display.artists_.items():
            assert sum(bar_heights(bars)) == pytest.approx(100.0), name
            assert bar_heights(bars) == pytest.approx(display.shares_[name])
        texts = legend_texts(display.ax_)
        assert [t.split(" (")[0] for t in texts] == list(evaluated)
    else:
        labels = [t.get_text() for t in display.ax_.get_yticklabels()]
        assert labels == list(evaluated)
        assert legend_texts(display.ax_) == [*evaluated, "mean"]  # as in the report
    assert_drew_something(display.figure_)


def test_distribution_of_unbounded_values(evaluated: dict[str, rw.Results]) -> None:
    display = DistributionDisplay(values={"a": np.array([3.0, 8.0, 20.0, np.nan])},
                                  measure="num_rel").plot()
    assert sum(bar_heights(display.artists_["a"])) == pytest.approx(100.0)
    with pytest.raises(InvalidParameterError,
                       match=r"^kind must be 'hist' or 'box', got 'violin' \(str\)$"):
        display.plot(kind="violin")


def test_differences_display_bars(evaluated: dict[str, rw.Results]) -> None:
    few = {name: r for name, r in evaluated.items()}
    display = DifferencesDisplay.from_results(few, "map", system="sys2", max_bars=100)
    d = evaluated["sys2"]["map"] - evaluated["sys0"]["map"]
    assert (display.wins_, display.ties_, display.losses_) == (
        int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
    assert display.ax_.get_title() == "sys2 − sys0"
    assert display.ax_.get_ylabel() == "Δ map" and "sorted" in display.ax_.get_xlabel()
    heights = [h for bars in display.artists_ for h in bar_heights(bars)]  # losses, then gains
    assert display.sorted_.tolist() == sorted(d.tolist())
    assert heights == [v for v in sorted(d.tolist()) if v != 0]  # a bar per query that changed
    low, high = display.ax_.get_ylim()
    assert low == pytest.approx(-high)  # symmetric: gains and losses on one scale
    assert_drew_something(display.figure_)


def test_differences_display_areas_stay_small() -> None:
    rng = np.random.default_rng(0)
    for n in (200, 100_000):
        d = np.round(rng.normal(0.02, 0.2, n), 2)
        display = DifferencesDisplay(differences=d, measure="ndcg@10", system="a",
                                     baseline="b").plot(max_points=250)
        polygons = [a for a in display.artists_ if a is not None]
        assert len(polygons) == 2
        vertices = sum(len(p.get_xy()) for p in polygons)
        assert vertices <= 2 * 2 * 250 + 20  # bounded, whatever the number of queries
        assert display.wins_ + display.ties_ + display.losses_ == n
        assert_drew_something(display.figure_)


def test_differences_need_two_systems(evaluated: dict[str, rw.Results]) -> None:
    with pytest.raises(InvalidParameterError, match="need two systems"):
        DifferencesDisplay.from_results({"sys0": evaluated["sys0"]})
    with pytest.raises(InvalidParameterError, match="baseline 'nope'"):
        DifferencesDisplay.from_results(evaluated, baseline="nope")


def test_comparison_display(evaluated: dict[str, rw.Results]) -> None:
    comparison = compare_results(evaluated, ["ndcg@10", "map"], baseline="sys0", seed=0)
    display = ComparisonDisplay.from_comparison(comparison)
    assert display.labels_ == ["ndcg@10 · sys1", "ndcg@10 · sys2", "map · sys1", "map · sys2"]
    assert "confidence interval" in display.ax_.get_xlabel()
    assert display.ax_.get_title(loc="left") == "difference from sys0"
    assert legend_texts(display.ax_) == ["significant (p_adj ≤ 0.05)", "not significant"]
    dots = [line for line in display.ax_.get_lines() if line.get_marker() == "o"]
    rows = [row for row in comparison.rows if row.baseline is not None]
    from matplotlib.colors import to_hex

    for dot, row in zip(dots, rows):
        filled = to_hex(dot.get_markerfacecolor()) != "#ffffff"
        assert filled == bool(row.significant)
        assert dot.get_xdata()[0] == pytest.approx(row.delta)
    one = ComparisonDisplay.from_comparison(comparison, "map")
    assert one.labels_ == ["sys1", "sys2"]
    with pytest.raises(InvalidParameterError, match="not in the comparison"):
        ComparisonDisplay.from_comparison(comparison, "mrr")
    assert_drew_something(display.figure_)


# ----------------------------------------------------------------------------
# what Results.plot and Comparison.plot call
# ----------------------------------------------------------------------------


def test_plot_results(evaluated: dict[str, rw.Results]) -> None:
    results = evaluated["sys1"]
    assert isinstance(plot_results(results), DistributionDisplay)
    assert plot_results(results).ax_.get_title() == "ndcg@10"  # the first measure
    curves = plot_results(results, "curves")
    assert isinstance(curves, CurvesDisplay) and curves.ax_.get_ylabel() == "ndcg@k"
    assert plot_results(results, "curves", "recall").ax_.get_ylabel() == "recall@k"
    box = plot_results(results, measure="mrr", style="box")
    assert box.ax_.get_xlabel() == "mrr"
    with pytest.raises(InvalidParameterError,
                       match=r"^kind must be 'distribution' or 'curves', got 'pie' \(str\)$"):
        plot_results(results, "pie")
    plain = rw.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map", "P@5"])
    with pytest.raises(InvalidParameterError, match="several cutoffs"):
        plot_results(plain, "curves")


def test_plot_comparison(evaluated: dict[str, rw.Results]) -> None:
    comparison = compare_results(evaluated, ["mrr"], baseline="sys0", seed=0)
    display = plot_comparison(comparison)
    assert isinstance(display, ComparisonDisplay) and display.labels_ == ["sys1", "sys2"]


# ----------------------------------------------------------------------------
# figures of several panels, and their export
# ----------------------------------------------------------------------------


def test_panel_figures(evaluated: dict[str, rw.Results]) -> None:
    comparison = compare_results(evaluated, ["ndcg@10", "map"], baseline="sys0", seed=0)
    figures = {
        "curves": curves_figure(evaluated, ["ndcg", "P", "recall"]),
        "distribution": distribution_figure(evaluated, ["ndcg@10", "map", "mrr", "map"]),
        "differences": differences_figure(evaluated, ["ndcg@10", "map"], "sys0"),
        "comparison": comparison_figure(comparison),
    }
    visible = {key: [ax for ax in f.axes if ax.get_visible()] for key, f in figures.items()}
    assert [len(v) for v in visible.values()] == [3, 4, 4, 1]
    for key in ("curves", "distribution"):  # one legend of the systems for all panels
        (legend,) = figures[key].legends
        assert [t.get_text() for t in legend.get_texts()] == list(evaluated)
    for key, axes in visible.items():
        for ax in axes:
            assert ax.get_title() or ax.get_title(loc="left"), key
            assert ax.get_xlabel() or key == "differences", key
        assert_drew_something(figures[key])
    rows = np.array(figures["differences"].axes).reshape(2, 2)
    assert rows[0][0].get_ylabel() == "Δ ndcg@10" and rows[1][0].get_ylabel() == "Δ map"
    assert rows[0][0].get_ylim() == rows[0][1].get_ylim()  # a row shares its scale


def test_figure_to_svg(evaluated: dict[str, rw.Results]) -> None:
    figure = curves_figure(evaluated, ["ndcg"])
    svg, width = figure_to_svg(figure, salt="x")
    again, _ = figure_to_svg(figure, salt="x")
    assert svg == again  # reproducible
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<?xml" not in svg and "<metadata" not in svg and "DOCTYPE" not in svg
    assert 'width="' not in svg.split(">", 1)[0]  # scales with the page
    assert "<text" in svg and "ndcg@k" in svg  # text stays text
    assert width == pytest.approx(3.9 * 96, rel=0.01)


@pytest.mark.parametrize(("suffix", "magic"), [
    (".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF"), (".PNG", b"\x89PNG")])
def test_save_figure(tmp_path: Any, evaluated: dict[str, rw.Results], suffix: str,
                     magic: bytes) -> None:
    figure = distribution_figure(evaluated, ["map"])
    target = tmp_path / f"figure{suffix}"
    save_figure(figure, target)
    assert target.read_bytes().startswith(magic)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_save_figure_refuses_unknown_formats(tmp_path: Any) -> None:
    with pytest.raises(InvalidParameterError, match=r"\.png, \.svg, \.pdf, got '\.gif'"):
        save_figure(None, tmp_path / "figure.gif")


def test_missing_matplotlib_says_how_to_install(monkeypatch: pytest.MonkeyPatch,
                                                evaluated: dict[str, rw.Results]) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    with pytest.raises(MissingDependencyError, match=r"pip install 'rankwise\[plot\]'"):
        require_matplotlib()
    with pytest.raises(MissingDependencyError, match="needs matplotlib"):
        plot_results(evaluated["sys0"])
    with pytest.raises(ImportError):  # MissingDependencyError is an ImportError too
        CurvesDisplay.from_results(evaluated, "ndcg")


# ----------------------------------------------------------------------------
# issue 13, item 13: whole numbers on count axes, legends off the data
# ----------------------------------------------------------------------------


def visible_ticks(axis: Any) -> list[float]:
    low, high = sorted(axis.get_view_interval())
    return [t for t in axis.get_majorticklocs() if low - 1e-9 <= t <= high + 1e-9]


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


def test_query_and_cutoff_ticks_are_whole_numbers(three_queries: dict[str, rw.Results]) -> None:
    display = DifferencesDisplay.from_results(three_queries, "map", system="new")
    ticks = visible_ticks(display.ax_.xaxis)
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    figure = differences_figure(three_queries, ["map", "ndcg@10"], "base")
    for ax in figure.axes:
        ticks = visible_ticks(ax.xaxis)
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
    curves = CurvesDisplay.from_results(three_queries, "P")  # k = 1..5: a linear axis
    ticks = visible_ticks(curves.ax_.xaxis)
    assert ticks and all(float(t).is_integer() for t in ticks), ticks


def drawn(figure: Any) -> Any:
    """Draw *figure* with Agg (legends are placed at draw time); return the renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def overlaps(a: Any, b: Any) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("count", [1, 3, 4])
def test_box_plot_legend_is_not_over_the_data(evaluated: dict[str, rw.Results],
                                              count: int) -> None:
    measures = ["ndcg@10", "map", "mrr", "P@10"][:count]
    figure = distribution_figure(evaluated, measures, kind="box")
    renderer = drawn(figure)
    legends = list(figure.legends) + [ax.get_legend() for ax in figure.axes
                                      if ax.get_legend() is not None]
    texts = [t.get_text() for legend in legends for t in legend.get_texts()]
    assert "mean" in texts  # the diamond is explained...
    for legend in legends:  # ...by a legend that hides no panel
        box = legend.get_window_extent(renderer)
        for ax in figure.axes:
            assert not overlaps(box, ax.get_window_extent(renderer)), (texts, ax.get_title())
    # the display alone keeps its legend above the axes, not on the boxes
    display = DistributionDisplay.from_results(evaluated, "map", kind="box")
    renderer = drawn(display.figure_)
    (legend,) = display.figure_.legends
    box = legend.get_window_extent(renderer)
    assert not overlaps(box, display.ax_.get_window_extent(renderer))


# ----------------------------------------------------------------------------
# issue 13, item 24: every text drawn on a figure is literal
# ----------------------------------------------------------------------------

HOSTILE = ["$\\foo$", "$x^$", "<script>alert(1)</script>", "a_b%c{d}#&~^", "$$",
           "long " + "x" * 300, "\\$", "price: $5 and $6"]


@pytest.fixture(scope="module")
def hostile(three_queries: dict[str, rw.Results]) -> dict[str, rw.Results]:
    values = list(three_queries.values())
    out = {}
    for index, name in enumerate(HOSTILE):
        item = values[index % len(values)]
        out[name] = rw.Results(item.query_ids, {m: item[m] for m in item.measures},
                               run_name=name)
    return out


def svg_texts(figure: Any) -> str:
    svg, _ = figure_to_svg(figure, salt="t")
    from html import unescape

    return unescape(re.sub(r"<[^>]+>", "\n", svg))


@pytest.mark.parametrize("rc", [{}, {"text.parse_math": False}])
def test_hostile_names_are_drawn_as_they_are(hostile: dict[str, rw.Results],
                                             rc: dict[str, Any]) -> None:
    import matplotlib

    comparison = compare_results(hostile, ["map"], baseline=HOSTILE[0], seed=0)
    with matplotlib.rc_context(rc):  # the displays, drawn with the user's settings
        displays = [
            CurvesDisplay.from_results(hostile, "P"),
            DistributionDisplay.from_results(hostile, "map"),
            DistributionDisplay.from_results(hostile, "map", kind="box"),
            DifferencesDisplay.from_results(hostile, "map", system="$x^$"),
            ComparisonDisplay.from_comparison(comparison),
        ]
        texts = "\n".join(svg_texts(d.figure_) for d in displays)
    for name in HOSTILE[:-3]:
        assert name in texts, name
    assert "price: $5 and $6" in texts
    assert "\\$x" not in texts  # the escapes are not shown
    assert "long " + "x" * 30 in texts and "x" * 60 not in texts  # long names shortened


def test_hostile_names_in_every_figure(hostile: dict[str, rw.Results]) -> None:
    comparison = compare_results(hostile, ["map", "P@5"], baseline="$x^$", seed=0)
    figures = [curves_figure(hostile, ["P"]),
               distribution_figure(hostile, ["map", "ndcg@10"]),
               distribution_figure(hostile, ["map"], kind="box"),
               differences_figure(hostile, ["map"], "$x^$"),
               comparison_figure(comparison)]
    texts = "\n".join(svg_texts(f) for f in figures)
    for name in ("$\\foo$", "$x^$", "<script>alert(1)</script>", "a_b%c{d}#&~^"):
        assert name in texts, name


# ----------------------------------------------------------------------------
# issue 33, item 25: the matplotlib figures draw what the SVG figures draw
# ----------------------------------------------------------------------------


def test_box_plot_draws_the_queries_beyond_the_whiskers() -> None:
    ids = [f"q{i}" for i in range(100)]
    values = np.array([1.0] * 96 + [0.2, 0.2, 0.5, 0.5])
    dense = rw.Results(ids, {rw.parse("mrr"): values}, run_name="dense")
    display = DistributionDisplay.from_results({"dense": dense}, "mrr").plot(kind="box")
    points = {tuple(np.round(p, 6)) for line in display.ax_.get_lines()
              for p in np.asarray(line.get_xydata())}
    assert {(0.2, 1.0), (0.5, 1.0)} <= points  # the four queries off the line at 1


def test_asl_curves_that_coincide_are_all_visible() -> None:
    from rankwise.design import DiscriminativePower
    from rankwise.report.discriminative import plot_asl_curves

    names = tuple(f"m{i}" for i in range(5))
    curves = {name: np.zeros(10) for name in names[:4]}
    curves["m4"] = np.linspace(0, 0.5, 10)
    systems = tuple(f"s{i}" for i in range(5))
    pairs = tuple((a, b) for i, a in enumerate(systems) for b in systems[i + 1:])
    power = DiscriminativePower("bootstrap", 0.05, 100, 0, systems, pairs, names, curves)
    ax = plot_asl_curves(power)
    widths = [line.get_linewidth() for line in ax.get_lines()
              if line.get_linestyle() != "None" and len(line.get_xdata()) == 10]
    assert len(widths) == 5 and widths == sorted(widths, reverse=True)
    assert min(a - b for a, b in itertools.pairwise(widths)) >= 1.0


# ----------------------------------------------------------------------------
# issue 34, item 4: one figure stack: matplotlib replays what the SVG draws
# ----------------------------------------------------------------------------


def test_matplotlib_replays_the_canvas(evaluated: dict[str, rw.Results]) -> None:
    """Each panel becomes axes at the same place and limits; each line the same points."""
    from rankwise.report._mpl import draw
    from rankwise.report.curves import curves_svg
    from rankwise.report.differences import differences_svg

    for canvas in (curves_svg(evaluated, ["ndcg", "P"]),
                   differences_svg(evaluated, ["map"], "sys0")):
        drawn = draw(canvas)
        assert drawn.figure.get_size_inches().tolist() == pytest.approx(
            [canvas.width / 96, canvas.height / 96])
        assert len(drawn.axes) == len(canvas.panels)
        for ax, box in zip(drawn.axes, canvas.panels):
            left, bottom, width, height = ax.get_position().bounds
            assert width * canvas.width == pytest.approx(box.width)
            assert left * canvas.width == pytest.approx(box.left)
            assert (1 - bottom - height) * canvas.height == pytest.approx(box.top)
            assert ax.get_xlim() == pytest.approx(box.xlim)
            assert ax.get_ylim() == pytest.approx(box.ylim)
            assert ax.get_xscale() == ("log" if box.xlog else "linear")
    drawn = draw(curves_svg(evaluated, ["ndcg"]))
    for op, line in drawn.of_class("series"):
        np.testing.assert_array_equal(line.get_xdata(), op.args["xs"])
        k = line.get_xdata().astype(int)
        means = [evaluated[op.args["key"]].mean[f"ndcg@{cutoff}"] for cutoff in k]
        np.testing.assert_array_equal(line.get_ydata(), means)
        assert line.get_label() == op.args["key"]


def test_one_panel_on_the_users_axes_only(evaluated: dict[str, rw.Results]) -> None:
    import matplotlib.pyplot as plt

    from rankwise.report._mpl import draw
    from rankwise.report.curves import curves_svg

    _, ax = plt.subplots()
    with pytest.raises(InvalidParameterError, match="ax= holds one panel and this figure has 2"):
        draw(curves_svg(evaluated, ["ndcg", "P"]), ax=ax)
    drawn = draw(curves_svg(evaluated, ["ndcg"]), ax=ax)
    assert drawn.axes == [ax] and ax.get_legend() is not None  # the legend inside the axes
