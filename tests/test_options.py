"""One option model (issue 34, step 1): the options values, their one wording, the front doors.

Every front door takes ``options=`` and the same keywords; the keywords
override the object; an options value is checked once, when made; every
refusal says what, expected, got (value and type), and the remedy.
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path
from typing import get_args

import numpy as np
import pytest

import rankwise as rw
from rankwise import design
from rankwise.exceptions import InvalidParameterError
from rankwise.options import (
    CORRECTION_NAMES,
    FUSION_METHODS,
    FUSION_PARAMETERS,
    NORMALISATIONS,
    TEST_NAMES,
    TIE_POLICIES,
    CompareOptions,
    EvalOptions,
    FusionOptions,
    RecommenderOptions,
    Ties,
    split_options,
)

QRELS = {f"q{i}": {"good": 1, "fair": 1, "bad": 0} for i in range(8)}
GOOD = {f"q{i}": {"good": 3.0, "fair": 2.0, "bad": 1.0, "q": 0.5} for i in range(8)}
BAD = {f"q{i}": {"bad": 3.0, "x": 2.0, "good": 1.0} for i in range(8)}
MIXED = {f"q{i}": (GOOD if i % 2 else BAD)[f"q{i}"] for i in range(8)}
RUNS = {"good": GOOD, "bad": BAD, "mixed": MIXED}
GOLDEN = Path(__file__).parent / "cli" / "golden" / "compare"


# ----------------------------------------------------------------------------
# the vocabularies are one
# ----------------------------------------------------------------------------


def test_each_vocabulary_has_one_source() -> None:
    from rankwise.cli import options as cli_options
    from rankwise.fusion import METHODS
    from rankwise.fusion.normalise import NORMALISATIONS as FUSION_NORMALISATIONS
    from rankwise.stats import CORRECTIONS, MANY_SYSTEM_TESTS, TEST_LABELS, TESTS

    assert TIE_POLICIES == get_args(Ties) == cli_options.TIE_CHOICES
    assert TEST_NAMES == (*TESTS, *MANY_SYSTEM_TESTS) == tuple(TEST_LABELS)
    assert set(CORRECTION_NAMES) == set(CORRECTIONS)
    assert cli_options.TEST_NAMES is TEST_NAMES and cli_options.CORRECTION_NAMES is CORRECTION_NAMES
    assert tuple(METHODS) == FUSION_METHODS
    for name, method in METHODS.items():
        assert method.params == FUSION_PARAMETERS.get(name, {}), name
    assert FUSION_NORMALISATIONS is NORMALISATIONS


# ----------------------------------------------------------------------------
# one wording
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "message"), [
    (lambda: EvalOptions(ties="tre"),
     "ties must be one of 'trec', 'average', 'rank', 'worst', 'best', 'ascending', got 'tre' "
     "(str); did you mean 'trec'?"),
    (lambda: EvalOptions(depth=2.5),
     "depth must be a non-negative integer (0: every ranking is empty) or None, got 2.5 (float)"),
    (lambda: EvalOptions(judged_only="yes"), "judged_only must be True or False, got 'yes' (str)"),
    (lambda: CompareOptions(alpha=1.5), "alpha must be a number in (0, 1), got 1.5 (float)"),
    (lambda: CompareOptions(alpha=True), "alpha must be a number in (0, 1), got True (bool)"),
    (lambda: CompareOptions(n_resamples=0), "n_resamples must be a positive integer, got 0 (int)"),
    (lambda: CompareOptions(seed=-1), "seed must be a non-negative integer or None, got -1 (int)"),
    (lambda: CompareOptions(alpha=1e-20),
     "alpha must be a number in (0, 1) whose 1 - alpha, the confidence of the intervals, is "
     "below 1 in floating point, got 1e-20 (float)"),
    (lambda: FusionOptions("wsum", weights=[1.0, "x"]),
     "weights must be a list of finite numbers, one per run, got [1.0, 'x'] (list)"),
    (lambda: FusionOptions("rrf", params={"k": -3}),
     "fusion method 'rrf': k must be a finite number >= 0, got -3 (int); e.g. k=60"),
    (lambda: RecommenderOptions(duplicates="last"),
     "duplicates must be 'error' or 'first', got 'last' (str)"),
    (lambda: rw.compare(QRELS, RUNS, "P@1", n_resamples="many"),
     "n_resamples must be a positive integer, got 'many' (str)"),
    (lambda: rw.build_report(QRELS, RUNS, "P@1", top=0), "top must be a positive integer, got 0 "
                                                         "(int)"),
    (lambda: rw.evaluate(QRELS, GOOD, "P@1", engine="nump"),
     "engine must be 'numpy' or 'spark', or an Engine, got 'nump' (str); did you mean 'numpy'?"),
    (lambda: rw.explain(QRELS, GOOD, "ndcg@3", measured="high"),
     "measured must be a finite number (a mean a tool printed), got 'high' (str)"),
    (lambda: design.discriminative_power(QRELS, RUNS, "P@1", test="t-test"),
     "test must be 'bootstrap' or 'randomized-tukey', got 't-test' (str)"),
    (lambda: rw.optimize_fusion(QRELS, [GOOD, BAD], "rrf", folds=1),
     "folds must be an integer >= 2 or None, got 1 (int)"),
])
def test_every_refusal_is_worded_alike(call, message: str) -> None:
    with pytest.raises(InvalidParameterError) as error:
        call()
    assert str(error.value) == message


def test_options_of_the_wrong_kind_are_refused() -> None:
    with pytest.raises(InvalidParameterError) as error:
        rw.compare(QRELS, RUNS, "P@1", options=FusionOptions())
    assert str(error.value).startswith(
        "options must be an EvalOptions, a CompareOptions, or a tuple of them, got "
        "FusionOptions(method='rrf'")
    with pytest.raises(InvalidParameterError, match="one of each kind"):
        rw.compare(QRELS, RUNS, "P@1", options=(EvalOptions(), EvalOptions(depth=2)))
    with pytest.raises(InvalidParameterError,
                       match=r"^options must be an EvalOptions, got CompareOptions\("):
        rw.evaluate(QRELS, GOOD, "P@1", options=CompareOptions())


# ----------------------------------------------------------------------------
# the options values
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("options", [
    EvalOptions(rel=2, depth=5, ties="average", columns={"query_id": "qid"}, unjudged="bounds"),
    CompareOptions(test="permutation", correction="BH", alpha=0.01, ci="percentile", seed=4,
                   family="all"),
    FusionOptions("CombMNZ", norm="z-score"),
    FusionOptions("rrf", params={"k": "10"}),
    FusionOptions("wsum", weights=(0.25, 0.75)),
    RecommenderOptions(k=10, missing="zero", duplicates="first", relevance="stars"),
])
def test_options_are_frozen_pickle_and_describe_themselves(options) -> None:
    again = pickle.loads(pickle.dumps(options))
    assert again == options and type(again) is type(options)
    assert hash(again) == hash(options)
    with pytest.raises(AttributeError):
        options.replace.__self__.__setattr__("missing", "zero")
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in options.describe().items())


def test_aliases_become_the_canonical_names_once() -> None:
    options = CompareOptions(test="Randomised Tukey", correction="none", ci="Student")
    assert (options.test, options.correction, options.ci) == ("randomized-tukey", "none", "t")
    assert CompareOptions(correction=None).correction == "none"
    assert CompareOptions().applied_correction == "holm"
    assert CompareOptions(test="hsd").applied_correction == "none"
    fusion = FusionOptions("comb_sum", norm="MinMax")
    assert (fusion.method, fusion.norm) == ("sum", "min-max")
    assert FusionOptions("wsum", params={"weights": [1, 2]}).weights == (1.0, 2.0)
    assert FusionOptions("slidefuse", params={"w": 2.0}).params == {"w": 2}


def test_split_options_takes_one_or_several_kinds() -> None:
    evaluation, statistics = EvalOptions(depth=3), CompareOptions(alpha=0.1)
    assert split_options(None, EvalOptions, CompareOptions) == (None, None)
    assert split_options(statistics, EvalOptions, CompareOptions) == (None, statistics)
    assert split_options([statistics, evaluation], EvalOptions, CompareOptions) == (
        evaluation, statistics)


# ----------------------------------------------------------------------------
# every front door: options= and the same keywords
# ----------------------------------------------------------------------------


def _rows(comparison: rw.Comparison) -> list:
    return [(r.measure, r.system, r.p_value, r.p_adjusted, r.ci_low, r.delta_ci_high)
            for r in comparison.rows]


def test_compare_takes_its_statistics_as_one_value() -> None:
    keywords = rw.compare(QRELS, RUNS, ["P@1", "mrr"], baseline="bad", test="bootstrap",
                          correction="bonferroni", alpha=0.1, ci="bootstrap", n_resamples=500,
                          seed=3, family="all", depth=2)
    statistics = CompareOptions(test="bootstrap", correction="bonferroni", alpha=0.1,
                                ci="bootstrap", n_resamples=500, seed=3, family="all")
    given = rw.compare(QRELS, RUNS, ["P@1", "mrr"], baseline="bad",
                       options=(EvalOptions(depth=2), statistics))
    assert _rows(given) == _rows(keywords)
    assert given.options == statistics  # the seed too: passed back, it reproduces the rows
    again = rw.compare(QRELS, RUNS, ["P@1", "mrr"], baseline="bad", depth=2,
                       options=given.options)
    assert _rows(again) == _rows(given)
    # a keyword given as well overrides the value
    overridden = rw.compare(QRELS, RUNS, ["P@1", "mrr"], baseline="bad", depth=2,
                            options=statistics, alpha=0.2)
    assert overridden.alpha == 0.2 and overridden.test == "bootstrap"


def test_compare_results_and_build_report_take_the_same_value() -> None:
    results = rw.evaluate_runs(QRELS, RUNS, ["P@1"])
    statistics = CompareOptions(test="t-test", alpha=0.1, seed=1)
    by_value = rw.compare_results(results, baseline="bad", options=statistics)
    by_keywords = rw.compare_results(results, baseline="bad", test="t", alpha=0.1, seed=1)
    assert _rows(by_value) == _rows(by_keywords)
    report = rw.build_report(QRELS, RUNS, ["P@1"], baseline="bad", max_k=2,
                             options=(statistics, EvalOptions(unjudged="bounds")))
    assert _rows(report.comparison) == _rows(by_value)
    # "x" is unjudged at rank 2 of bad's queries: P@1 is 0 either way, P@2's high bound 1/2
    assert report.results["bad"].unjudged.mean["P@1"] == (0.0, 0.0)


def test_evaluate_runs_takes_every_evaluation_option() -> None:
    # the unjudged "x" at rank 2 of bad: P@2 is 0 (low) or 1/2 (high, x relevant)
    out = rw.evaluate_runs(QRELS, {"bad": BAD}, ["P@2"], unjudged="bounds", depth=2)["bad"]
    assert out.unjudged.mean["P@2"] == (0.0, 0.5)
    # cut at 1, good's ranking is "good" alone: P@2 = 1/2; at grade 2 nothing is relevant
    assert rw.evaluate_runs(QRELS, {"good": GOOD}, ["P@2"], depth=1)["good"].mean == {"P@2": 0.5}
    assert rw.evaluate_runs(QRELS, {"good": GOOD}, ["P@2"], rel=2)["good"].mean == {
        "P@2(rel=2)": 0.0}


@pytest.mark.parametrize("call", [
    lambda **o: rw.compare(QRELS, RUNS, "P@1", seed=0, **o),
    lambda **o: rw.build_report(QRELS, RUNS, "P@1", max_k=2, seed=0, **o),
    lambda **o: rw.evaluate_runs(QRELS, RUNS, "P@1", **o),
    lambda **o: design.residual_variance(QRELS, RUNS, "P@1", **o),
    lambda **o: design.discriminative_power(QRELS, RUNS, "P@1", n_resamples=50, seed=0, **o),
    lambda **o: rw.measure_agreement(QRELS, RUNS, ["P@1", "mrr"], **o),
    lambda **o: rw.reproduce(QRELS, GOOD, MIXED, ["P@1"], **o),
    lambda **o: rw.optimize_fusion(QRELS, [GOOD, BAD], "rrf", measure="P@1", **o),
])
def test_unjudged_reaches_every_function_that_evaluates(call) -> None:
    call(unjudged="bounds")
    with pytest.raises(InvalidParameterError,
                       match=r"^unjudged must be 'nonrelevant' or 'bounds', got 'all' \(str\)$"):
        call(unjudged="all")


def test_explain_takes_every_evaluation_option() -> None:
    qrels = {"q1": {"q1": 1, "a": 1, "b": 0}, "q2": {"c": 1}}
    run = {"q1": {"q1": 3.0, "b": 2.0, "a": 1.0}, "q2": {"c": 1.0}}
    # without its own id, q1's ranking is b, a: RR 1/2, and q2's 1: the mean is 3/4
    kept = rw.explain(qrels, run, "mrr", "trec_eval", "ranx")
    dropped = rw.explain(qrels, run, "mrr", "trec_eval", "ranx", exclude_self=True)
    assert kept.means == (1.0, 1.0) and dropped.means == (0.75, 0.75)
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"qid": ["q1", "q1", "q1", "q2"], "docno": ["q1", "b", "a", "c"],
                              "score": [3.0, 2.0, 1.0, 1.0]})
    by_columns = rw.explain(qrels, frame, "mrr", "trec_eval", "ranx", exclude_self=True,
                            columns={"query_id": "qid", "doc_id": "docno"})
    assert by_columns.means == dropped.means
    with pytest.raises(InvalidParameterError,
                       match=r"^ties must be 'trec' in explain, got 'average' \(str\); each "):
        rw.explain(qrels, run, "mrr", "trec_eval", "ranx", ties="average")
    with pytest.raises(InvalidParameterError,
                       match=r"^unjudged must be 'nonrelevant' in explain, got 'bounds'"):
        rw.explain(qrels, run, "mrr", "trec_eval", "ranx", unjudged="bounds")


def test_fuse_takes_its_options_as_one_value() -> None:
    by_keywords = rw.fuse([GOOD, BAD], "wsum", norm="max", weights=[0.75, 0.25])
    options = FusionOptions("wsum", norm="max", weights=(0.75, 0.25))
    assert rw.fuse([GOOD, BAD], options=options).to_dict() == by_keywords.to_dict()
    # q0: good gives 1, 2/3, 1/3, 1/6 (max-normalised), bad 1, 2/3, 1/3: wsum of "good"
    assert by_keywords.to_dict()["q0"]["good"] == pytest.approx(0.75 * 1 + 0.25 / 3)
    rrf = FusionOptions("rrf", params={"k": 10})
    assert rw.fuse([GOOD, BAD], options=rrf, k=0).to_dict()["q0"]["good"] == 1 / 1 + 1 / 3
    found = rw.optimize_fusion(QRELS, [GOOD, BAD], measure="P@1",
                               options=(FusionOptions("wsum", norm="max"), EvalOptions(rel=1)),
                               step=0.5)
    # weights (0.5, 0.5): "good" and "bad" tie at 2/3 on every query, docno descending puts
    # "good" first: P@1 = 1; (0, 1) is bad's ranking alone: 0; (1, 0) good's: 1
    assert (found.method, found.norm) == ("wsum", "max")
    assert found.trials == [({"weights": [0.0, 1.0]}, 0.0), ({"weights": [0.5, 0.5]}, 1.0),
                            ({"weights": [1.0, 0.0]}, 1.0)]


# ----------------------------------------------------------------------------
# the renamed keywords
# ----------------------------------------------------------------------------


def test_reproduce_depth_is_rbo_depth_now() -> None:
    new = rw.reproduce(QRELS, GOOD, MIXED, ["P@1"], rbo_depth=2)
    with pytest.warns(FutureWarning, match=r"^reproduce: depth= is renamed rbo_depth= \(RBO's "):
        old = rw.reproduce(QRELS, GOOD, MIXED, ["P@1"], depth=2)
    assert old.rbo["advanced"].mean == new.rbo["advanced"].mean
    assert new.rbo["advanced"].name == "rbo(p=0.95, depth=2, repro_eval)"
    with pytest.raises(InvalidParameterError, match="give rbo_depth= only"):
        rw.reproduce(QRELS, GOOD, MIXED, ["P@1"], depth=2, rbo_depth=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rw.reproduce(QRELS, GOOD, MIXED, ["P@1"])  # no warning when the old name is not used


def test_discriminative_power_method_is_test_now() -> None:
    new = design.discriminative_power(QRELS, RUNS, "P@1", test="randomized-tukey", seed=0,
                                      n_resamples=100)
    with pytest.warns(FutureWarning, match=r"method= is renamed test="):
        old = design.discriminative_power(QRELS, RUNS, "P@1", method="randomized-tukey",
                                          seed=0, n_resamples=100)
    np.testing.assert_array_equal(old.p_values["P@1"], new.p_values["P@1"])


# ----------------------------------------------------------------------------
# the command line builds each options value once
# ----------------------------------------------------------------------------


def test_the_command_line_builds_each_options_value_once(monkeypatch, capsys) -> None:
    from rankwise.cli import main

    monkeypatch.chdir(GOLDEN)
    arguments = ["compare", "qrels.txt", "bm25.run", "dense.run", "-m", "map", "--seed", "1",
                 "--alpha", "0.1", "--depth", "50", "--quiet"]
    assert main(arguments) == 0  # the defaults each kind compares keywords with are made once
    expected = [EvalOptions(depth=50), CompareOptions(alpha=0.1, seed=1)]
    made: list[object] = []
    for kind in (EvalOptions, CompareOptions):
        original = kind.__post_init__

        def counted(self, original=original) -> None:
            made.append(self)
            original(self)

        monkeypatch.setattr(kind, "__post_init__", counted)
    assert main(arguments) == 0
    assert made == expected
    capsys.readouterr()


def test_evaluate_recommendations_test_is_held_out_now() -> None:
    held_out = {"user": [1, 2], "item": ["c", "b"]}
    recs = {1: ["a", "c"], 2: ["b", "c"]}
    new = rw.evaluate_recommendations(held_out, recs, ["P@1"])
    assert new.mean == {"P@1": 0.5}  # user 1's first item is not held out, user 2's is
    by_name = rw.evaluate_recommendations(held_out=held_out, recommendations=recs,
                                          measures="P@1")
    assert by_name.mean == new.mean
    with pytest.warns(FutureWarning, match=r"^evaluate_recommendations: test= is renamed "
                                           r"held_out= \(the held-out interactions; ") as caught:
        old = rw.evaluate_recommendations(test=held_out, recommendations=recs, measures="P@1")
    assert old.mean == new.mean
    assert caught[0].filename == __file__  # the warning names the caller's line
    with pytest.raises(InvalidParameterError, match="give held_out= only"):
        rw.evaluate_recommendations(held_out, recs, "P@1", test=held_out)
    with pytest.raises(InvalidParameterError, match="recommendations is required"):
        rw.evaluate_recommendations(held_out, measures="P@1")


def test_recs_builds_its_options_once(tmp_path: Path, monkeypatch, capsys) -> None:
    from rankwise.cli import main

    (tmp_path / "held.csv").write_text("user,item\n1,c\n2,b\n")
    (tmp_path / "recs.csv").write_text("user,item,score\n1,a,2\n1,c,1\n2,b,2\n2,c,1\n")
    arguments = ["recs", str(tmp_path / "held.csv"), str(tmp_path / "recs.csv"), "-m", "P@1",
                 "-k", "1", "--missing", "zero", "-f", "csv"]
    assert main(arguments) == 0
    expected = RecommenderOptions(k=1, missing="zero")
    made: list[object] = []
    original = RecommenderOptions.__post_init__

    def counted(self) -> None:
        made.append(self)
        original(self)

    monkeypatch.setattr(RecommenderOptions, "__post_init__", counted)
    assert main(arguments) == 0
    assert made == [expected]
    assert capsys.readouterr().out.splitlines()[-1] == "recs.csv,2,0.5"
