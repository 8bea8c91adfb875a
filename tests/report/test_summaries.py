"""The numbers behind the plots (no matplotlib needed)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.exceptions import InvalidParameterError, MeasureSyntaxError
from rankwise.measures import parse
from rankwise.report.build import curve_templates
from rankwise.report.summaries import (
    curve_label,
    curve_measures,
    curve_template,
    cutoff_curve,
    histogram_edges,
    named_results,
    paired_values,
    sorted_profile,
    top_changes,
)

QRELS = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}, "q3": {"d": 1}}
RUN = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"y": 2.0, "c": 1.0}, "q3": {"z": 1.0}}


@pytest.mark.parametrize(("text", "expected", "label"), [
    ("ndcg", "ndcg", "ndcg@k"),
    ("Ndcg@10", "ndcg", "ndcg@k"),
    ("NDCG@10", "ndcg(gain=linear)", "ndcg@k(gain=linear)"),  # ir_measures' spelling
    ("P", "P", "P@k"),
    ("precision", "P", "P@k"),
    ("recall(rel=2)", "recall(rel=2)", "recall@k(rel=2)"),
    ("ndcg@5(gain=linear)", "ndcg(gain=linear)", "ndcg@k(gain=linear)"),
    ("map", "map", "map@k"),
])
def test_curve_template(text: str, expected: str, label: str) -> None:
    template = curve_template(text)
    assert str(template) == expected and template.cutoff is None
    assert curve_label(template) == label


def test_curve_template_errors() -> None:
    with pytest.raises(InvalidParameterError, match="'bpref' takes no cutoff"):
        curve_template("bpref")
    with pytest.raises(MeasureSyntaxError, match="did you mean"):
        curve_template("ndgc")


def test_curve_templates_take_the_parameters_asked_for() -> None:
    measures = [parse("ndcg@10(gain=linear)"), parse("P@5(rel=2)")]
    assert [str(t) for t in curve_templates(["ndcg", "P", "recall"], measures, None)] == [
        "ndcg(gain=linear)", "P(rel=2)", "recall"]
    assert [str(t) for t in curve_templates(["recall", "ndcg"], [], 2)] == [
        "recall(rel=2)", "ndcg"]


def test_cutoff_curve_matches_the_means() -> None:
    measures = curve_measures(curve_template("P"), 5)
    assert [str(m) for m in measures] == ["P@1", "P@2", "P@3", "P@4", "P@5"]
    results = rw.evaluate(QRELS, RUN, [*reversed(measures), "map"])
    cutoffs, means = cutoff_curve(results, curve_template("P"))
    assert cutoffs.tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(means, [results.mean[f"P@{k}"] for k in range(1, 6)])
    with pytest.raises(InvalidParameterError, match=r"hold no cutoff of recall@k"):
        cutoff_curve(results, curve_template("recall"))
    with pytest.raises(InvalidParameterError, match="positive integer"):
        curve_measures(curve_template("P"), 0)


def test_named_results() -> None:
    a = rw.evaluate(QRELS, RUN, "P@1")
    b = rw.evaluate(QRELS, rw.Run.from_dict(RUN, name="b"), "P@1")
    assert list(named_results([a, b])) == ["run", "b"]
    assert list(named_results({"x": a})) == ["x"]
    with pytest.raises(InvalidParameterError, match="two results are named 'run'"):
        named_results([a, a])
    with pytest.raises(InvalidParameterError, match="must be a Results"):
        named_results({"x": {"q1": 1.0}})
    with pytest.raises(InvalidParameterError, match="is empty"):
        named_results({})


def test_paired_values_use_the_common_queries() -> None:
    full = rw.evaluate(QRELS, RUN, "mrr")
    part = rw.evaluate(QRELS, {"q3": {"d": 1.0}, "q1": {"b": 1.0}}, "mrr")
    ids, base, values = paired_values(full, part, "mrr")
    assert ids.tolist() == ["q1", "q3"]
    assert base.tolist() == [1.0, 0.0] and values.tolist() == [1.0, 1.0]


def test_sorted_profile_small_is_exact() -> None:
    d = np.array([0.3, np.nan, -0.1, 0.0, 0.2])
    positions, values = sorted_profile(d)
    assert positions.tolist() == [1, 2, 3, 4]
    assert values.tolist() == [-0.1, 0.0, 0.2, 0.3]


def test_sorted_profile_large_keeps_the_shape_and_the_counts() -> None:
    rng = np.random.default_rng(1)
    d = np.concatenate([rng.uniform(-1, 0, 3000), np.zeros(1234), rng.uniform(0, 1, 5766)])
    positions, values = sorted_profile(d, max_points=200)
    assert len(values) <= 204
    assert positions[0] == 1 and positions[-1] == len(d)
    assert np.all(np.diff(values) >= 0) and np.all(np.diff(positions) > 0)
    # the edges of the ties are kept: losses end at 3000, wins start after 4234
    assert values[positions == 3000][0] < 0 and values[positions == 3001][0] == 0
    assert values[positions == 4234][0] == 0 and values[positions == 4235][0] > 0
    exact = np.sort(d)[positions.astype(int) - 1]
    np.testing.assert_array_equal(values, exact)  # samples, not approximations


def test_top_changes() -> None:
    ids = ["q1", "q2", "q3", "q4", "q5"]
    base = np.array([0.5, 0.5, 0.2, 0.9, 0.1])
    new = np.array([0.9, 0.9, 0.2, 0.1, np.nan])
    gains, losses = top_changes(ids, base, new, n=1)
    assert [(c.query_id, c.baseline, c.value) for c in gains] == [("q1", 0.5, 0.9)]
    assert gains[0].delta == pytest.approx(0.4)
    assert [c.query_id for c in losses] == ["q4"]
    gains, losses = top_changes(ids, base, new, n=10)
    assert [c.query_id for c in gains] == ["q1", "q2"]  # ties by query id; no unchanged, no NaN


def test_histogram_edges() -> None:
    edges = histogram_edges([np.array([0.0, 0.1, 1.0])])
    centres = (edges[:-1] + edges[1:]) / 2
    np.testing.assert_allclose(centres, np.linspace(0, 1, 11))
    counts, _ = np.histogram([0.0, 0.1, 0.1, 1.0], bins=edges)
    assert counts.tolist() == [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert histogram_edges([np.array([5.0, 5.0])]).tolist() == [4.5, 5.5]
    assert len(histogram_edges([np.array([0.0, 30.0])], bins=6)) == 7
    assert len(histogram_edges([np.array([np.nan])])) == 12


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), unique=True, min_size=1, max_size=30),
       st.lists(st.integers(0, 40), unique=True, min_size=1, max_size=30), st.booleans(),
       st.booleans())
def test_paired_index_pairs_each_query_with_itself(first: list[int], second: list[int],
                                                   same: bool, integer_ids: bool) -> None:
    from rankwise.report.summaries import paired_index

    def results(ids: list[int], name: str) -> rw.Results:
        query_ids = ids if integer_ids else [f"q{i}" for i in ids]
        values = np.array(ids, dtype=np.float64) * (2 if name == "b" else 1)
        return rw.Results(query_ids, {parse("map"): values}, run_name=name)

    base = results(first, "a")
    system = results(first if same else second, "b")
    common, in_base, in_system = paired_index(base, system)
    expected = sorted({str(q) for q in base.query_ids} & {str(q) for q in system.query_ids})
    assert common.tolist() == expected  # the common queries, sorted as text
    assert [str(base.query_ids[i]) for i in in_base] == expected
    assert [str(system.query_ids[i]) for i in in_system] == expected
    np.testing.assert_array_equal(2 * base["map"][in_base], system["map"][in_system])
