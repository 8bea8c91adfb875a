"""compare(): values equal the tests on aligned per-query values; pairing; options; outputs."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats

import rankwise as rw
from rankwise.comparison import Comparison, compare, compare_results
from rankwise.exceptions import InvalidParameterError, UnsupportedMeasureError
from rankwise.stats import adjust_pvalues, randomization_test, stream

MEASURES = ["ndcg@10", "map", "P@5"]


def per_query(qrels, run, measures=MEASURES, missing="skip"):
    results = rw.evaluate(qrels, run, measures, missing=missing)
    return results.query_ids, np.column_stack([results[m] for m in measures])


def aligned(qrels, system, baseline, measures=MEASURES, missing="skip"):
    qs, xs = per_query(qrels, system, measures, missing)
    qb, xb = per_query(qrels, baseline, measures, missing)
    common = sorted(set(qs) & set(qb))
    return xs[[qs.index(q) for q in common]], xb[[qb.index(q) for q in common]]


def test_randomization_values_equal_the_test_on_aligned_values(collection) -> None:
    qrels, runs = collection
    result = compare(qrels, runs, MEASURES, baseline="bm25", seed=3)
    assert isinstance(result, Comparison)
    for system in ("dense", "hybrid"):
        x, y = aligned(qrels, runs[system], runs["bm25"])
        expected = randomization_test(x, y, seed=stream(3, "randomization", ["bm25", system]))
        for j, measure in enumerate(MEASURES):
            row = result.row(measure, system)
            assert row.p_value == expected.p_value[j]
            assert row.mean == pytest.approx(x[:, j].mean(), rel=1e-14)
            assert row.baseline_mean == pytest.approx(y[:, j].mean(), rel=1e-14)
            assert row.delta == pytest.approx((x - y)[:, j].mean(), rel=1e-12, abs=1e-15)
            d = x[:, j] - y[:, j]
            assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
            assert (row.wins, row.ties, row.losses) == (
                int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
            assert row.n_queries == len(x) and row.n_dropped == 0
            assert row.method == "monte carlo"
    base = result.row("map", "bm25")
    assert base.baseline is None and math.isnan(base.p_value) and base.significant is None


@pytest.mark.parametrize("test", ["t-test", "wilcoxon"])
def test_t_and_wilcoxon_equal_scipy(collection, test: str) -> None:
    qrels, runs = collection
    result = compare(qrels, runs, MEASURES, baseline="bm25", test=test, correction="none")
    x, y = aligned(qrels, runs["hybrid"], runs["bm25"])
    for j, measure in enumerate(MEASURES):
        if test == "t-test":
            expected = scipy.stats.ttest_rel(x[:, j], y[:, j]).pvalue
        else:
            expected = scipy.stats.wilcoxon(x[:, j], y[:, j]).pvalue
        row = result.row(measure, "hybrid")
        assert abs(row.p_value - expected) <= 1e-12
        assert row.p_adjusted == row.p_value


def test_sign_and_bootstrap_tests(collection) -> None:
    qrels, runs = collection
    x, y = aligned(qrels, runs["dense"], runs["bm25"])
    sign = compare(qrels, runs, MEASURES, baseline="bm25", test="sign")
    d = x[:, 0] - y[:, 0]
    expected = scipy.stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue
    assert sign.row("ndcg@10", "dense").p_value == pytest.approx(expected, abs=1e-12)
    boot = compare(qrels, runs, MEASURES, baseline="bm25", test="bootstrap", seed=1,
                   n_resamples=2000)
    again = compare(qrels, runs, MEASURES, baseline="bm25", test="bootstrap", seed=1,
                    n_resamples=2000, chunk_size=999)
    assert [r.p_value for r in boot] == pytest.approx([r.p_value for r in again], nan_ok=True)
    assert boot.row("ndcg@10", "dense").method == "monte carlo"


def test_confidence_intervals(collection) -> None:
    qrels, runs = collection
    x, y = aligned(qrels, runs["dense"], runs["bm25"])
    result = compare(qrels, runs, MEASURES, baseline="bm25", alpha=0.1)
    row = result.row("ndcg@10", "dense")
    d = x[:, 0] - y[:, 0]
    n = len(d)
    expected = scipy.stats.t.interval(0.9, n - 1, loc=d.mean(), scale=scipy.stats.sem(d))
    assert (row.delta_ci_low, row.delta_ci_high) == pytest.approx(expected, rel=1e-12)
    expected = scipy.stats.t.interval(0.9, n - 1, loc=x[:, 0].mean(),
                                      scale=scipy.stats.sem(x[:, 0]))
    assert (row.ci_low, row.ci_high) == pytest.approx(expected, rel=1e-12)
    boot = compare(qrels, runs, MEASURES, baseline="bm25", ci="bootstrap", seed=2)
    row = boot.row("ndcg@10", "dense")
    assert row.ci_low < row.mean < row.ci_high
    assert row.delta_ci_low < row.delta < row.delta_ci_high
    assert boot.ci == "bootstrap" and "bootstrap percentile" in boot.legend


def test_same_seed_same_p_values_whatever_the_order_of_runs_and_chunks(make) -> None:
    qrels, runs = make(n_queries=80, systems=("a", "b", "c", "d"), seed=5)
    first = compare(qrels, runs, MEASURES, baseline="a", seed=9)
    shuffled = {name: runs[name] for name in ("d", "b", "a", "c")}
    second = compare(qrels, shuffled, MEASURES, baseline="a", seed=9, chunk_size=1234)
    fewer = compare(qrels, {"c": runs["c"], "a": runs["a"]}, MEASURES, baseline="a", seed=9)
    for measure in MEASURES:
        for system in ("b", "c", "d"):
            assert first.row(measure, system).p_value == second.row(measure, system).p_value
        assert first.row(measure, "c").p_value == fewer.row(measure, "c").p_value
    all_pairs = compare(qrels, runs, MEASURES, seed=9)
    reversed_pairs = compare(qrels, dict(reversed(list(runs.items()))), MEASURES, seed=9)
    for measure in MEASURES:
        forward = all_pairs.row(measure, "c", baseline="a")
        backward = reversed_pairs.row(measure, "a", baseline="c")
        assert forward.p_value == backward.p_value
        assert forward.delta == pytest.approx(-backward.delta, abs=1e-15)
        assert (forward.wins, forward.losses) == (backward.losses, backward.wins)


def test_without_seed_the_drawn_seed_reproduces(make) -> None:
    qrels, runs = make(n_queries=40)
    first = compare(qrels, runs, ["map"], baseline="bm25")
    again = compare(qrels, runs, ["map"], baseline="bm25", seed=first.seed)
    assert [r.p_value for r in first.rows[1:]] == [r.p_value for r in again.rows[1:]]


def test_all_pairs_without_baseline(collection) -> None:
    qrels, runs = collection
    result = compare(qrels, runs, ["map"], correction="bonferroni")
    pairs = [(r.system, r.baseline) for r in result]
    assert pairs == [("dense", "bm25"), ("hybrid", "bm25"), ("hybrid", "dense")]
    raw = [r.p_value for r in result]
    assert [r.p_adjusted for r in result] == pytest.approx(np.minimum(1, 3 * np.array(raw)))
    with pytest.raises(KeyError, match="several rows match; give baseline="):
        result.row("map", "hybrid")
    assert result.row("map", "dense").baseline == "bm25"


def test_correction_family(collection) -> None:
    qrels, runs = collection
    per_measure = compare(qrels, runs, MEASURES, baseline="bm25", correction="holm", seed=1)
    overall = compare(qrels, runs, MEASURES, baseline="bm25", correction="holm", seed=1,
                      family="all")
    compared = [r for r in per_measure if r.baseline is not None]
    for measure in MEASURES:
        rows = [r for r in compared if r.measure == measure]
        expected = adjust_pvalues([r.p_value for r in rows], "holm")
        assert [r.p_adjusted for r in rows] == pytest.approx(expected.tolist())
    expected = adjust_pvalues([r.p_value for r in compared], "holm")
    got = [r.p_adjusted for r in overall if r.baseline is not None]
    assert got == pytest.approx(expected.tolist())
    for row in overall:
        if row.baseline is not None:
            assert row.significant == (row.p_adjusted <= 0.05)
    assert "over all systems and measures" in overall.legend


def test_pairing_on_common_queries_and_missing_zero(make) -> None:
    qrels, runs = make(n_queries=50, skip={"dense": 4, "hybrid": 7})
    result = compare(qrels, runs, ["map"], baseline="bm25", test="t")
    dense, hybrid = result.row("map", "dense"), result.row("map", "hybrid")
    assert (dense.n_queries, dense.n_dropped) == (46, 4)
    assert (hybrid.n_queries, hybrid.n_dropped) == (43, 7)
    assert result.row("map", "bm25").n_queries == 50
    assert any("dense vs bm25: compared on the 46 queries" in note for note in result.notes)
    x, y = aligned(qrels, runs["hybrid"], runs["bm25"], ["map"])
    assert hybrid.p_value == pytest.approx(scipy.stats.ttest_rel(x[:, 0], y[:, 0]).pvalue,
                                           abs=1e-12)
    zero = compare(qrels, runs, ["map"], baseline="bm25", test="t", missing="zero")
    row = zero.row("map", "hybrid")
    assert (row.n_queries, row.n_dropped) == (50, 0)
    x, y = aligned(qrels, runs["hybrid"], runs["bm25"], ["map"], missing="zero")
    assert row.p_value == pytest.approx(scipy.stats.ttest_rel(x[:, 0], y[:, 0]).pvalue, abs=1e-12)
    assert not zero.notes


def test_identical_runs_give_p_one_with_a_note(collection) -> None:
    qrels, runs = collection
    for test in ("randomization", "t-test", "wilcoxon", "bootstrap", "sign"):
        result = compare(qrels, {"a": runs["bm25"], "b": runs["bm25"]}, ["map"], baseline="a",
                         test=test, seed=0)
        row = result.row("map", "b")
        assert row.p_value == 1.0 and row.p_adjusted == 1.0 and row.significant is False
        assert row.method == "all differences zero"
        assert row.effect_size == 0.0 and row.wins == row.losses == 0
        assert any("all 60 differences are zero; p = 1" in note for note in result.notes)


def test_exact_randomization_for_few_queries(make) -> None:
    qrels, runs = make(n_queries=10)
    result = compare(qrels, runs, ["P@5"], baseline="bm25", n_resamples=2**10, seed=0)
    x, y = aligned(qrels, runs["dense"], runs["bm25"], ["P@5"])
    row = result.row("P@5", "dense")
    assert row.method == "exact"
    assert row.p_value == randomization_test(x[:, 0], y[:, 0], n_resamples=2**10).p_value


def test_runs_as_a_list_and_other_forms(tmp_path, collection) -> None:
    qrels, runs = collection
    by_list = compare(qrels, list(runs.values()), ["map"], baseline="dense", seed=1)
    by_dict = compare(qrels, runs, ["map"], baseline="dense", seed=1)
    assert [r.p_value for r in by_list] == [r.p_value for r in by_dict]
    assert by_list.systems == ("bm25", "dense", "hybrid")
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.trec"
        with open(path, "w") as out:
            for query, docs in run.to_dict().items():
                ranked = sorted(docs.items(), key=lambda item: -item[1])
                for rank, (doc, score) in enumerate(ranked, 1):
                    out.write(f"{query} Q0 {doc} {rank} {score!r} {name}\n")
        paths.append(str(path))
    # files are named by their run ids; the baseline may be given by its file name
    from_files = compare(qrels, paths, ["map"], baseline="dense.trec", seed=1)
    assert from_files.systems == ("bm25", "dense", "hybrid")
    assert from_files.baseline == "dense"
    assert [r.p_value for r in from_files] == [r.p_value for r in by_dict]
    for system in ("bm25", "hybrid"):
        assert from_files.row("map", system).mean == pytest.approx(
            by_dict.row("map", system).mean, rel=1e-12)
    results = {name: rw.evaluate(qrels, run, ["map"]) for name, run in runs.items()}
    via_results = compare_results(results, baseline="dense", seed=1)
    assert [r.p_value for r in via_results] == [r.p_value for r in by_dict]
    mixed = compare(qrels, {"bm25": results["bm25"], "dense": runs["dense"],
                            "hybrid": runs["hybrid"]}, ["map"], baseline="dense", seed=1)
    assert [r.p_value for r in mixed] == [r.p_value for r in by_dict]


def test_to_pandas_and_to_dict(collection) -> None:
    qrels, runs = collection
    result = compare(qrels, runs, MEASURES, baseline="bm25", seed=4)
    frame = result.to_pandas()
    assert len(frame) == len(MEASURES) * 3
    for column in ("measure", "system", "baseline", "mean", "ci_low", "ci_high", "delta",
                   "p_value", "p_adjusted", "significant", "effect_size", "wins", "ties",
                   "losses", "n_queries", "n_dropped", "method"):
        assert column in frame.columns
    assert str(frame["wins"].dtype) == "Int64" and str(frame["significant"].dtype) == "boolean"
    assert frame["p_value"].isna().sum() == len(MEASURES)  # the baseline's rows
    assert frame.loc[1, "p_value"] == result.rows[1].p_value
    data = result.to_dict()
    assert data["test"] == "randomization" and data["correction"] == "holm"
    assert data["seed"] == 4 and len(data["rows"]) == len(frame)
    assert data["rows"][1]["p_adjusted"] == result.rows[1].p_adjusted
    text = repr(result)
    assert "p_adj" in text and "dense" in text and result.legend in text
    assert "Fisher's randomization test (10,000 random sign flips" in result.legend
    assert "Holm correction per measure" in result.legend


def test_option_errors(collection) -> None:
    qrels, runs = collection
    with pytest.raises(InvalidParameterError, match="baseline 'bm52' is not one of the runs"):
        compare(qrels, runs, ["map"], baseline="bm52")
    with pytest.raises(InvalidParameterError,
                       match=r"^test must be one of 'randomization', .* got 'ttset' \(str\); did "
                             r"you mean 'ttest'\?$"):
        compare(qrels, runs, ["map"], test="ttset")
    with pytest.raises(InvalidParameterError,
                       match=r"^correction must be one of 'auto', 'holm', .*'bh'.* or None, got "
                             r"'sidak' \(str\); that procedure is not available \(holm and "
                             r"bonferroni control the same family-wise error\)$"):
        compare(qrels, runs, ["map"], correction="sidak")
    with pytest.raises(InvalidParameterError,
                       match=r"^alpha must be a number in \(0, 1\), got 5 \(int\)$"):
        compare(qrels, runs, ["map"], alpha=5)
    with pytest.raises(InvalidParameterError,
                       match=r"^ci must be 't' or 'bootstrap' \(or an alias: 'student', "
                             r"'percentile'\), got 'normal' \(str\)$"):
        compare(qrels, runs, ["map"], ci="normal")
    with pytest.raises(InvalidParameterError,
                       match=r"^family must be 'measure' \(correct over the systems of each "
                             r"measure\) or 'all' \(over all systems and measures\), got "
                             r"'system' \(str\)$"):
        compare(qrels, runs, ["map"], family="system")
    with pytest.raises(InvalidParameterError,
                       match=r"^missing must be 'skip' or 'zero', got 'drop' \(str\)$"):
        compare(qrels, runs, ["map"], missing="drop")
    with pytest.raises(InvalidParameterError, match="at least two runs"):
        compare(qrels, {"a": runs["bm25"]}, ["map"])
    # two runs of one name are numbered, as everywhere (rankwise.io.naming)
    assert compare(qrels, [runs["bm25"], runs["bm25"]], ["map"], seed=0).systems == (
        "bm25", "bm25#2")
    with pytest.raises(InvalidParameterError, match=r"runs\[0\] is a dict, which has no name"):
        compare(qrels, [{"q": {"d": 1.0}}, {"q": {"d": 2.0}}], ["map"])
    with pytest.raises(InvalidParameterError,
                       match=r"runs must be a dict \{name: run\} or a list of runs, got .*\(Run\)"):
        compare(qrels, runs["bm25"], ["map"])


@pytest.mark.parametrize(
    "measure,kind", [("gm_map", "a geometric mean"), ("num_ret", "a sum over queries")]
)
def test_measures_not_aggregated_by_a_mean_are_refused(collection, measure: str, kind: str) -> None:
    qrels, runs = collection
    with pytest.raises(UnsupportedMeasureError, match=rf"'{measure}' \({kind}\)"):
        compare(qrels, runs, ["map", measure])


def test_same_p_values_whatever_the_blas_thread_count() -> None:
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from rankwise.stats import bootstrap_test, randomization_test\n"
        "rng = np.random.default_rng(0)\n"
        "d = np.round(rng.normal(0.01, 0.2, size=(3000, 3)), 2)\n"
        "r = randomization_test(d, n_resamples=2000, seed=1).p_value\n"
        "b = bootstrap_test(d, n_resamples=2000, seed=1).p_value\n"
        "print(repr(r.tolist() + b.tolist()))\n"
    )
    outputs = set()
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads,
                   MKL_NUM_THREADS=threads)
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_plot_delegates_to_the_report_layer(collection) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    qrels, runs = collection
    display = compare(qrels, runs, ["map"], baseline="bm25", seed=0).plot()
    assert display.figure_ is not None and display.ax_ is not None


def test_ties_policy_reaches_the_evaluation() -> None:
    qrels = {f"q{i}": {"good": 1} for i in range(6)}
    tied = {f"q{i}": {"good": 1.0, "bad": 1.0} for i in range(6)}  # trec order: good first
    better = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(6)}
    trec = compare(qrels, {"tied": tied, "better": better}, ["mrr"], baseline="tied", seed=1)
    average = compare(qrels, {"tied": tied, "better": better}, ["mrr"], baseline="tied", seed=1,
                      ties="average")
    assert trec.row("mrr", "better").delta == 0.0
    assert average.row("mrr", "better").delta == pytest.approx(0.25)


def test_the_wide_table_shows_each_systems_mean_over_its_own_queries() -> None:
    """All pairs, runs missing different queries: no row holds C's ten queries.

    The table showed C's mean over the nine it shares with A (0.1111); it
    shows what rw.evaluate gives each run (C: 0.2), as for a baseline.
    """
    qrels = {f"q{i}": {"good": 1} for i in range(10)}
    good, bad = {"good": 2.0, "bad": 1.0}, {"bad": 2.0, "good": 1.0}
    runs = {"A": {f"q{i}": (good if i % 2 else bad) for i in range(10) if i != 1},
            "B": {f"q{i}": (good if i % 3 else bad) for i in range(10) if i != 2},
            "C": {f"q{i}": (good if i in (1, 2) else bad) for i in range(10)}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)  # the queries a run misses
        own = {name: rw.evaluate(qrels, run, "P@1").mean["P@1"] for name, run in runs.items()}
        result = rw.compare(qrels, runs, "P@1", seed=0)
    assert own == {"A": 4 / 9, "B": 5 / 9, "C": 0.2}
    assert result.system_means == {("P@1", name): mean for name, mean in own.items()}
    assert [line.split()[-1] for line in result.to_table().splitlines()[2:5]] == [
        "0.4444", "0.5556", "0.2000"]
    assert result.row("P@1", "C", "A").mean == pytest.approx(1 / 9)  # a pair's: shared queries
