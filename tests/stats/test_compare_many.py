"""compare(test="tukey" | "randomized-tukey"): the same numbers as the tests on the matrix."""

from __future__ import annotations

import json

import numpy as np
import pytest

import rankwise as rw
from rankwise.comparison import compare, compare_results
from rankwise.exceptions import InvalidParameterError
from rankwise.stats import randomized_tukey_hsd, stream, tukey_hsd

from .conftest import make_collection

MEASURES = ["ndcg@10", "map"]
SYSTEMS = ("bm25", "dense", "hybrid", "splade")


def matrix(qrels, runs, measure, names):
    results = {name: rw.evaluate(qrels, runs[name], measure) for name in names}
    common = sorted(set.intersection(*(set(r.query_ids) for r in results.values())))
    return np.array([[r.value(measure, q) for q in common] for r in results.values()])


@pytest.mark.parametrize("test", ["tukey", "randomized-tukey"])
def test_rows_carry_the_many_system_p_values(test: str) -> None:
    qrels, runs = make_collection(n_queries=50, systems=SYSTEMS, skip={"splade": 4})
    result = compare(qrels, runs, MEASURES, test=test, seed=7, n_resamples=2000)
    assert result.correction == "none" and result.baseline is None
    assert set(result.tukey) == set(MEASURES)
    names = list(SYSTEMS)
    for measure in MEASURES:
        x = matrix(qrels, runs, measure, names)
        if test == "tukey":
            expected = tukey_hsd(x)
        else:
            expected = randomized_tukey_hsd(x, n_resamples=2000,
                                            seed=stream(7, test, names))
        np.testing.assert_array_equal(result.tukey[measure].p_values, expected.p_values)
        assert result.tukey[measure].anova.f_systems == pytest.approx(
            expected.anova.f_systems, rel=1e-12)
        for row in result.rows:
            if row.measure != measure:
                continue
            i, j = names.index(row.system), names.index(row.baseline)
            assert row.p_value == row.p_adjusted == expected.p_values[i, j]
            assert row.significant == (row.p_value <= 0.05)
            assert row.n_queries == 46  # the queries every system was evaluated on
            assert row.n_dropped == 4  # left out: not evaluated for every system
            assert row.method == expected.p_method
    assert any("46 queries evaluated for every system" in note for note in result.notes)


def test_randomized_tukey_is_reproducible_whatever_the_order_of_the_runs() -> None:
    qrels, runs = make_collection(n_queries=40, systems=SYSTEMS)
    kwargs = dict(test="randomized-tukey", seed=3, n_resamples=1500, chunk_size=10_000)
    forward = compare(qrels, runs, MEASURES, **kwargs)
    backward = compare(qrels, dict(reversed(list(runs.items()))), MEASURES,
                       **{**kwargs, "chunk_size": 10**8})
    for row in forward.rows:
        other = backward.row(row.measure, row.baseline, row.system)
        assert other.p_value == row.p_value
    assert forward.letters("map") == backward.letters("map")


def test_baseline_rows_are_the_pairs_with_the_baseline_in_the_family_of_all() -> None:
    qrels, runs = make_collection(n_queries=30, systems=SYSTEMS)
    pairs = compare(qrels, runs, MEASURES, test="tukey")
    against = compare(qrels, runs, MEASURES, test="tukey", baseline="dense")
    assert {r.baseline for r in against.rows} == {None, "dense"}
    for row in against.rows:
        if row.baseline is None:
            continue
        i, j = SYSTEMS.index(row.system), SYSTEMS.index("dense")
        assert row.p_value == pairs.tukey[row.measure].p_values[i, j]
    assert against.letters("map") == pairs.letters("map")


def test_corrections_and_families_that_would_correct_twice_are_refused() -> None:
    qrels, runs = make_collection(n_queries=10, systems=SYSTEMS[:3])
    with pytest.raises(InvalidParameterError,
                       match=r"^correction must be 'auto' or 'none' with test='tukey', got 'holm' "
                             r"\(str\); .*would correct twice$"):
        compare(qrels, runs, "map", test="tukey", correction="holm")
    with pytest.raises(InvalidParameterError,
                       match=r"^family must be 'measure' with test='tukey', got 'all' \(str\); "
                             "the test tests the pairs of each measure as one family$"):
        compare(qrels, runs, "map", test="tukey", family="all")
    assert compare(qrels, runs, "map", test="hsd", correction="none").test == "tukey"
    assert compare(qrels, runs, "map", test="randomised tukey", seed=0).test == \
        "randomized-tukey"
    assert compare(qrels, runs, "map", seed=0).correction == "holm"  # auto


def test_too_few_common_queries() -> None:
    qrels, runs = make_collection(n_queries=6, systems=("a", "b"), skip={"b": 5})
    with pytest.raises(InvalidParameterError, match="at least 2 queries"):
        compare(qrels, runs, "map", test="tukey")


def test_outputs_show_the_letters_and_the_anova() -> None:
    qrels, runs = make_collection(n_queries=40, systems=SYSTEMS)
    result = compare(qrels, runs, MEASURES, test="tukey")
    text = result.to_table()
    for name, letters in result.letters("map").items():
        line = next(line for line in text.splitlines() if line.startswith(name + " "))
        assert line.split()[-1] == letters  # map is the last column
    assert "runs that share a letter do not differ" in text
    assert "map: two-way ANOVA (system x query) F(3, 117) = " in text
    latex = result.to_table("latex")
    assert "$^{\\mathrm{" + result.letters("map")["bm25"] + "}}$" in latex
    data = json.loads(result.to_table("json"))
    assert data["tukey"]["map"]["letters"] == result.letters("map")
    assert data["tukey"]["map"]["anova"]["df_residual"] == 117
    assert "ANOVA F(3, 117)" in repr(result)
    better = result.to_table(letters="better")
    assert "bm25 (a)" in better
    # with a paired test, all pairs: groups on request
    paired = compare(qrels, runs, MEASURES, seed=0)
    groups = paired.to_table(letters="groups")
    assert "runs that share a letter" in groups and "bm25 (a)" not in groups
    with pytest.raises(InvalidParameterError,
                       match=r"^letters must be one of 'auto', .*, got 'abc' \(str\)$"):
        paired.to_table(letters="abc")
    with pytest.raises(InvalidParameterError, match="every pair"):
        compare(qrels, runs, MEASURES, seed=0, baseline="bm25").letters("map")


def test_compare_results_takes_the_many_system_tests() -> None:
    qrels, runs = make_collection(n_queries=25, systems=SYSTEMS[:3])
    results = {name: rw.evaluate(qrels, run, MEASURES) for name, run in runs.items()}
    direct = compare(qrels, runs, MEASURES, test="tukey")
    again = compare_results(results, test="tukey")
    assert [r.p_value for r in again.rows] == [r.p_value for r in direct.rows]


def test_cli_compare_with_tukey(tmp_path) -> None:
    from rankwise.cli import main

    qrels, runs = make_collection(n_queries=30, systems=SYSTEMS)
    qrels.to_trec(tmp_path / "q.txt")
    paths = []
    for name, run in runs.items():
        run.to_trec(tmp_path / f"{name}.run")
        paths.append(str(tmp_path / f"{name}.run"))
    out = tmp_path / "out.json"
    assert main(["compare", str(tmp_path / "q.txt"), *paths, "-m", "map", "--test", "tukey",
                 "-o", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    expected = compare(qrels, runs, "map", test="tukey")
    assert data["test"] == "tukey" and data["correction"] == "none"
    assert data["tukey"]["map"]["letters"] == expected.letters("map")
    table = tmp_path / "out.md"
    assert main(["compare", str(tmp_path / "q.txt"), *paths, "-m", "map", "--test",
                 "randomized-tukey", "--seed", "1", "-o", str(table), "--quiet"]) == 0
    assert "share a letter" in table.read_text()
