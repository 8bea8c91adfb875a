"""The explorer's figures: the paired scatter, the ASL curves one panel per measure (issue 39).

What is drawn maps back to the numbers it was drawn from (``svgdata`` inverts
each panel's ``data-box``, ``data-xlim`` and ``data-ylim``).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from svgdata import panels, parse, points

import rankwise as rw
from rankwise.exceptions import InvalidParameterError
from rankwise.report.discriminative import asl_panels_svg
from rankwise.report.scatter import DOT_CLASSES, scatter_svg


@pytest.fixture(scope="module")
def evaluated(synthetic: Any) -> dict[str, rw.Results]:
    qrels, runs = synthetic(300, 3, depth=30, seed=5)
    return {name: rw.evaluate(qrels, run, ["ndcg@10", "P@10", "map"])
            for name, run in runs.items()}


def dots(d: str) -> np.ndarray:
    return np.array([(float(x), float(y)) for x, y in re.findall(
        r"M(-?[\d.]+) (-?[\d.]+)h0", d)]).reshape(-1, 2)


def test_every_query_is_a_dot_where_its_values_are(evaluated: dict[str, rw.Results]) -> None:
    canvas = scatter_svg(evaluated, ["ndcg@10", "P@10", "map"], "sys0", "sys2")
    root = parse(canvas.svg())
    drawn = panels(root)
    assert [p.title for p in drawn] == ["ndcg@10", "P@10", "map"]
    base, system = evaluated["sys0"], evaluated["sys2"]
    for panel in drawn:
        x, y = base[panel.title], system[panel.title]
        centres = []
        counted = 0
        for path in panel.find("path", "dots"):
            at = dots(path.get("d"))
            centres.append(at)
            counted += int(path.get("data-queries"))
            least = int(path.get("data-least"))
            assert float(path.get("stroke-width")) == dict(DOT_CLASSES)[least]
        assert counted == len(x)  # every query in a dot
        centres = np.concatenate(centres)
        values = np.column_stack([panel.data_x(centres[:, 0]), panel.data_y(centres[:, 1])])
        # each query within a pixel of a dot (queries on one pixel share it)
        half = np.array([panel.pixel_tolerance_x(), panel.pixel_tolerance_y()]) * 60
        for point in np.column_stack([x, y]):
            assert (np.abs(values - point) <= half).all(axis=1).any(), point
        better, worse = int((y > x).sum()), int((y < x).sum())
        notes = {e.get("class"): "".join(e.itertext()) for e in panel.element.iter()
                 if (e.get("class") or "").startswith("note")}
        assert notes == {"note above": f"{better:,} better", "note below": f"{worse:,} worse",
                         "note tied": f"{len(x) - better - worse:,} tied"}
        (diagonal,) = panel.find("path", "diagonal")
        ends = np.array([float(v) for v in re.findall(r"-?[\d.]+", diagonal.get("d"))])
        assert panel.data_x(ends[[0, 2]]) == pytest.approx(panel.data_y(ends[[1, 3]]), abs=1e-3)


def test_a_scatter_needs_two_systems(evaluated: dict[str, rw.Results]) -> None:
    with pytest.raises(InvalidParameterError, match="another system"):
        scatter_svg(evaluated, ["map"], "sys0", "sys0")


def test_asl_panels_show_every_curve(evaluated: dict[str, rw.Results]) -> None:
    """Four curves at p = 0 and one at 1: each in its own panel, over the others in grey."""
    from rankwise.design import DiscriminativePower

    names = tuple(f"m{i}" for i in range(5))
    curves = {name: np.zeros(10) for name in names[:4]}
    curves["m4"] = np.ones(10)
    systems = tuple(f"s{i}" for i in range(5))
    pairs = tuple((a, b) for i, a in enumerate(systems) for b in systems[i + 1:])
    power = DiscriminativePower("bootstrap", 0.05, 100, 0, systems, pairs, names, curves)
    root = parse(asl_panels_svg(power).svg())
    drawn = panels(root)
    assert [p.element.get("data-measure") for p in drawn] == list(names)
    for panel, name in zip(drawn, names):
        (series,) = panel.find("path", "series")  # its own curve, alone in colour
        assert series.get("data-name") == name
        xy = points(series.get("d"))
        np.testing.assert_allclose(panel.data_x(xy[:, 0]), np.arange(1, 11),
                                   atol=panel.pixel_tolerance_x())
        np.testing.assert_allclose(panel.data_y(xy[:, 1]), power.curve(name),
                                   atol=panel.pixel_tolerance_y())
        context = sorted(p.get("data-name") for p in panel.find("path", "context"))
        assert context == sorted(set(names) - {name})
        share = "100%" if name != "m4" else "0%"
        assert panel.title.startswith(f"{name}: {share} (")


def test_scatter_replays_onto_matplotlib(evaluated: dict[str, rw.Results], mpl: Any) -> None:
    from rankwise.report._mpl import draw

    canvas = scatter_svg(evaluated, ["map"], "sys0", "sys1")
    drawn = draw(canvas)
    (ax,) = drawn.axes
    points_drawn = np.concatenate([np.asarray(line.get_xydata()) for line in ax.get_lines()
                                   if line.get_marker() == "o"])
    assert len(points_drawn) == sum(
        len(op.args["xs"]) for op in canvas.ops if op.kind == "dots")
    assert ax.get_xlim() == pytest.approx(canvas.panels[0].xlim)
