"""rw.explain: the difference between two dialects split by convention, and measured numbers.

- the parts add up to the difference exactly, for any collection, measure
  and pair of dialects (Hypothesis), and the two means are rw.evaluate's;
- each convention, switched alone, changes the value as its definition says
  (hand-computed values on small cases);
- a number a tool printed is matched to the dialects that give it.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import collections

import rankwise as rw
from rankwise.cli.app import main
from rankwise.engines.numpy import NumpyEngine
from rankwise.measures import parse
from rankwise.measures.dialects import DIALECTS, ORDER, Conventions, conventions_of
from rankwise.options import EvalOptions

FAMILY_CUTOFFS = {
    "ndcg": ["ndcg@3", "ndcg"], "map": ["map@3", "map"], "mrr": ["mrr@3"], "P": ["P@2"],
    "recall": ["recall@3"], "hit": ["hit@2"], "dcg": ["dcg@3"], "bpref": ["bpref"],
    "rbp": ["rbp"], "coverage": ["coverage"],
}


def _pairs() -> list[tuple[str, str, str]]:
    out = []
    for family, measures in FAMILY_CUTOFFS.items():
        names = sorted(d for d, dialect in DIALECTS.items() if family in dialect.families)
        for measure in measures:
            for a in names:
                for b in names:
                    if a < b and not (
                        "@" in measure and "none" in (DIALECTS[a].cutoff.get(family),
                                                      DIALECTS[b].cutoff.get(family))
                    ):
                        out.append((measure, a, b))
    return out


PAIRS = _pairs()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(PAIRS))
def test_the_parts_add_up_to_the_difference_exactly(
    data: tuple[dict, dict], pair: tuple[str, str, str]
) -> None:
    qrels, run = data
    measure, a, b = pair
    try:
        explanation = rw.explain(qrels, run, measure, a, b)
    except rw.InvalidParameterError as error:  # a mean no query counts in: no exact parts
        assert "no query counts in the mean" in str(error)
        first, second = (parse(measure).replace(dialect=d) for d in (a, b))
        results = rw.evaluate(qrels, run, [first, second])
        # an end leaves queries out, or a state between them leaves every query out (the
        # message names the convention: "ndcg(dialect=recommenders) once ideal is 'list'")
        assert not all(results.counted(first)) or not all(results.counted(second)) or (
            "empty" in str(error) or "skip" in str(error) or " once " in str(error))
        return
    assert sum((step.delta for step in explanation.steps), Fraction(0)) == (
        explanation.difference
    )
    first, second = (parse(measure).replace(dialect=d) for d in (a, b))
    means = rw.evaluate(qrels, run, [first, second]).mean
    assert explanation.means == (means[str(first)], means[str(second)]) or all(
        math.isnan(x) and math.isnan(y)
        for x, y in zip(explanation.means, (means[str(first)], means[str(second)]))
    )
    # every step switches one convention, in the order they apply
    switched = [step.convention for step in explanation.steps]
    assert switched == [name for name in ORDER if name in switched]
    assert switched == conventions_of(first).changes(conventions_of(second))


def _value(qrels: dict, run: dict, measure: str, c: Conventions,
           options: EvalOptions | None = None) -> list[float]:
    """Per-query values of *measure* under record *c* (NaN where not counted)."""
    m = parse(measure)
    options = options or EvalOptions()
    evaluator, _, _ = NumpyEngine().evaluator(qrels, run, [m], options)
    values = np.asarray(evaluator.values(m, conventions=c))
    mask = evaluator.counted(m, values, conventions=c)
    return np.where(mask if mask is not None else True, values, np.nan).tolist()


BASE = Conventions()


def test_self_docs() -> None:
    qrels, run = {"q": {"q": 1, "d": 0}}, {"q": {"q": 0.9, "d": 0.5}}
    assert _value(qrels, run, "mrr", BASE) == [1.0]
    assert _value(qrels, run, "mrr", replace(BASE, self_docs="drop")) == [0.0]


def test_missing() -> None:
    qrels, run = {"a": {"x": 1}, "b": {"y": 1}}, {"a": {"x": 1.0}}
    options = EvalOptions(missing="zero")
    assert _value(qrels, run, "mrr", BASE, options) == [1.0, 0.0]
    skipped = _value(qrels, run, "mrr", BASE)
    assert skipped[0] == 1.0 and len(skipped) == 1
    # a dialect that counts them (BEIR's MRR) adds them to the evaluation
    results = rw.evaluate(qrels, run, ["mrr(dialect=beir)", "mrr"])
    assert results.mean == {"mrr(dialect=beir)": 0.5, "mrr": 1.0}


def test_scores() -> None:
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 0.5, "z": 0.5 + 1e-12}}
    assert _value(qrels, run, "mrr", BASE) == [0.5]  # z above a in float64
    # equal in float32: docno descending puts z first still; input order puts a first
    tied = replace(BASE, scores="float32", ties="input")
    assert _value(qrels, run, "mrr", tied) == [1.0]
    assert _value(qrels, run, "mrr", replace(BASE, ties="input")) == [0.5]


@pytest.mark.parametrize(
    ("ties", "expected"),
    [
        ("docno", 1 / 3),  # c, b, a
        ("input", 1.0),  # a, b, c
        ("low_first", 1 / 3),  # the relevant document last
        ("high_first", 1.0),
        ("group_end", 1 / 3),  # every document at rank 3
    ],
)
def test_ties(ties: str, expected: float) -> None:
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 0.5, "b": 0.5, "c": 0.5}}
    assert _value(qrels, run, "map", replace(BASE, ties=ties)) == [pytest.approx(expected)]


def test_ties_average() -> None:
    qrels, run = {"q": {"a": 3}}, {"q": {"a": 0.5, "b": 0.5}}
    c = replace(BASE, ties="average", gain="linear")
    # E[DCG] = 3 * (1 + 1/log2(3)) / 2, ideal 3
    assert _value(qrels, run, "ndcg", c) == [pytest.approx((1 + 1 / math.log2(3)) / 2)]


def test_cutoff() -> None:
    qrels = {"q": {f"d{i:02d}": int(i == 39) for i in range(40)}}
    run = {"q": {f"d{i:02d}": 40.0 - i for i in range(40)}}
    assert _value(qrels, run, "mrr", BASE) == [1 / 40]
    assert _value(qrels, run, "mrr", replace(BASE, cutoff=32)) == [0.0]


def test_nonpositive() -> None:
    qrels, run = {"q": {"a": 1, "b": 1}}, {"q": {"a": -1.0, "b": 0.5}}
    assert _value(qrels, run, "map", BASE) == [1.0]
    assert _value(qrels, run, "map", replace(BASE, nonpositive="ignore")) == [0.5]


@pytest.mark.parametrize(("gain", "expected"), [("exp", 3.0), ("linear", 2.0), ("binary", 1.0)])
def test_gain(gain: str, expected: float) -> None:
    qrels, run = {"q": {"a": 2}}, {"q": {"a": 1.0}}
    assert _value(qrels, run, "dcg", replace(BASE, gain=gain)) == [expected]


def test_gains_table() -> None:
    qrels, run = {"q": {"a": 2}}, {"q": {"a": 1.0}}
    assert _value(qrels, run, "dcg", replace(BASE, gains=((2.0, 9.0),))) == [9.0]


def test_negative() -> None:
    qrels, run = {"q": {"a": -1, "b": 1}}, {"q": {"a": 1.0, "b": 0.5}}
    assert _value(qrels, run, "dcg", BASE) == [pytest.approx(1 / math.log2(3))]
    raw = replace(BASE, negative="raw")
    assert _value(qrels, run, "dcg", raw) == [pytest.approx(-1 + 1 / math.log2(3))]


def test_negative_for_bpref() -> None:
    qrels, run = {"q": {"a": -1, "b": 1, "c": 0}}, {"q": {"a": 1.0, "b": 0.5}}
    assert _value(qrels, run, "bpref", BASE) == [1.0]  # a: unjudged (not in the pool)
    assert _value(qrels, run, "bpref", replace(BASE, negative="raw")) == [0.0]


def test_ideal() -> None:
    qrels, run = {"q": {"a": 1, "b": 1}}, {"q": {"a": 1.0}}  # b judged, not retrieved
    assert _value(qrels, run, "ndcg", BASE) == [pytest.approx(1 / (1 + 1 / math.log2(3)))]
    assert _value(qrels, run, "ndcg", replace(BASE, ideal="list")) == [1.0]
    assert _value(qrels, run, "map", replace(BASE, ideal="list")) == [1.0]
    assert _value(qrels, run, "map", BASE) == [0.5]


def test_past_list() -> None:
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    assert _value(qrels, run, "P@5", BASE) == [0.2]
    assert _value(qrels, run, "P@5", replace(BASE, past_list="n")) == [1.0]


@pytest.mark.parametrize(("denominator", "expected"), [("R", 0.25), ("capped", 0.5),
                                                        ("retrieved", 1.0)])
def test_denominator(denominator: str, expected: float) -> None:
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    run = {"q": {"a": 1.0, "x": 0.5}}
    c = replace(BASE, denominator=denominator)
    assert _value(qrels, run, "map@2", c) == [expected]


@pytest.mark.parametrize(("empty", "expected"), [("0", 0.0), ("1", 1.0)])
def test_empty(empty: str, expected: float) -> None:
    qrels, run = {"q": {"a": 0}}, {"q": {"a": 1.0}}
    assert _value(qrels, run, "ndcg", replace(BASE, empty=empty)) == [expected]


def test_empty_skip_leaves_the_query_out_of_the_mean() -> None:
    qrels, run = {"q": {"a": 0}, "r": {"b": 1}}, {"q": {"a": 1.0}, "r": {"b": 1.0}}
    values = _value(qrels, run, "ndcg", replace(BASE, empty="skip"))
    assert math.isnan(values[0]) and values[1] == 1.0
    results = rw.evaluate(qrels, run, ["P@1(dialect=recommenders)"])
    assert results.counted("P@1(dialect=recommenders)").tolist() == [False, True]
    assert results.mean["P@1(dialect=recommenders)"] == 1.0


def test_empty_when() -> None:
    qrels, run = {"q": {"a": 1, "b": -1}}, {"q": {"b": 1.0, "a": 0.5}}
    raw = replace(BASE, gain="linear", negative="raw", ideal="list", empty="1")
    dcg = -1 + 1 / math.log2(3)
    ideal = 1 - 1 / math.log2(3)
    assert _value(qrels, run, "ndcg", raw) == [pytest.approx(dcg / ideal)]  # ideal > 0
    assert _value(qrels, run, "ndcg", replace(raw, empty_when="label_sum")) == [1.0]  # 1 - 1 = 0
    qrels = {"q": {"a": -1, "b": 0}}
    assert _value(qrels, run, "ndcg", replace(raw, empty_when="nonpositive")) == [1.0]
    assert _value(qrels, run, "ndcg", replace(raw, empty_when="zero")) == [pytest.approx(1.0)]


def test_arithmetic() -> None:
    qrels = {"q": {f"d{i}": (i * 7) % 5 for i in range(9)}}
    run = {"q": {f"d{i}": float(i) for i in range(9)}}
    c = replace(BASE, gain="linear")
    exact = _value(qrels, run, "ndcg", c)[0]
    single = _value(qrels, run, "ndcg", replace(c, arithmetic="float32"))[0]
    assert single != exact and abs(single - exact) < 1e-6
    assert single == float(np.float32(single))  # a float32 result


def test_round() -> None:
    qrels, run = {"q": {"a": 1}}, {"q": {"b": 0.9, "c": 0.8, "a": 0.7}}
    results = rw.evaluate(qrels, run, ["mrr@10(dialect=beir)", "mrr@10"])
    assert results.mean == {"mrr@10(dialect=beir)": 0.33333, "mrr@10": 1 / 3}


def test_explanation_of_trec_eval_and_sklearn() -> None:
    qrels = {"q1": {"a": 3, "b": 0, "c": 2, "x": 1}, "q2": {"e": 0, "f": 1}}
    run = {"q1": {"a": 0.2, "b": 0.9, "c": 0.9, "d": 0.1}, "q2": {"e": 1.0, "f": 0.5}}
    explanation = rw.explain(qrels, run, "ndcg@3", "trec_eval", "sklearn")
    assert [s.convention for s in explanation.steps] == ["ties", "negative", "ideal"]
    ties, negative, ideal = explanation.steps
    assert (ties.queries_changed, negative.queries_changed, ideal.queries_changed) == (1, 0, 1)
    text = explanation.to_text()
    assert "ties by document id descending -> ties averaged over all orders" in text
    assert "total" in text
    data = explanation.to_dict()
    assert json.loads(json.dumps(data))["steps"][2]["convention"] == "ideal"


def test_same_conventions_explain_nothing() -> None:
    explanation = rw.explain({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", "trec_eval", "rankwise")
    assert explanation.steps == [] and explanation.difference == 0
    assert "follow the same conventions" in str(explanation)


def test_a_measured_number_is_matched_to_its_dialects() -> None:
    qrels = {"q1": {"a": 3, "b": 0, "c": 2, "d": 1}, "q2": {"e": 0}}
    run = {"q1": {"a": 0.2, "b": 0.9, "c": 0.9, "d": 0.1}, "q2": {"e": 1.0}}
    means = rw.evaluate(qrels, run, ["ndcg@3(dialect=lightgbm)"]).mean
    number = means["ndcg@3(dialect=lightgbm)"]
    found = rw.explain(qrels, run, "ndcg@3", measured=round(number, 7))
    assert "ndcg@3(dialect=lightgbm)" in [str(c.measure) for c in found.matches]
    assert found.tolerance == 5e-8
    assert "matches dialect lightgbm" in found.to_text()
    assert found.candidates[0].difference == pytest.approx(0, abs=5e-8)
    nothing = rw.explain(qrels, run, "ndcg@3", measured="0.1234")
    assert nothing.matches == [] and "matches no dialect" in str(nothing)


def test_explain_refuses_what_it_cannot_do() -> None:
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    with pytest.raises(rw.InvalidParameterError, match="two dialects"):
        rw.explain(qrels, run, "ndcg@10", "trec_eval")
    with pytest.raises(rw.MeasureSyntaxError, match="has no 'mrr'"):
        rw.explain(qrels, run, "mrr@10", "trec_eval", "spark")
    with pytest.raises(rw.InvalidParameterError, match="has no dialects"):
        rw.explain(qrels, run, "Rprec", "trec_eval", "ranx")


def test_the_command(tmp_path, capsys) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 3\nq1 0 b 0\nq1 0 c 2\nq2 0 e 0\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 b 1 0.9 r\nq1 Q0 c 2 0.9 r\nq1 Q0 a 3 0.2 r\nq2 Q0 e 1 1.0 r\n")
    assert main(["explain", str(qrels), str(run), "-m", "ndcg@3", "--between", "trec_eval",
                 "lightgbm"]) == 0
    out = capsys.readouterr().out
    assert "ndcg@3 on 2 queries: trec_eval" in out and "empty" in out
    assert main(["explain", str(qrels), str(run), "-m", "ndcg@3", "--between", "trec_eval",
                 "lightgbm", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    total = sum(step["delta"] for step in data["steps"])
    assert total == pytest.approx(data["difference"], abs=1e-15)
    lightgbm = data["to"]["mean"]
    assert main(["explain", str(qrels), str(run), "-m", "ndcg@3", "--measured",
                 f"{lightgbm:.6f}"]) == 0
    assert "matches dialect lightgbm" in capsys.readouterr().out
    assert main(["explain", str(qrels), str(run), "-m", "ndcg@3", "--measured", "x"]) == 1


def _noisy_collection() -> tuple[dict, dict]:
    """40 queries of 12 judged documents (grades 0-3), every one retrieved; five queries hold a
    tie of three documents, the others none."""
    rng = np.random.default_rng(11)
    qrels, run = {}, {}
    for q in range(40):
        grades = rng.integers(0, 4, 12)
        scores = rng.permutation(12).astype(float) / 12
        if q % 8 == 0:
            scores[[0, 1, 2]] = scores[0]
        qrels[f"q{q}"] = {f"d{i}": int(g) for i, g in enumerate(grades)}
        run[f"q{q}"] = {f"d{i}": float(s) for i, s in enumerate(scores)}
    return qrels, run


def test_rounding_noise_is_not_a_change() -> None:
    """Issue 33, item 10: trec_eval -> sklearn said the ties step changed 22 queries when the
    largest change was 1.7e-16. A query changes when its value moves by more than half a unit
    of the last decimal printed (5e-05). Every document is judged and retrieved and no grade is
    negative, so the ties step is the whole difference per query: the queries it changes are
    those where pytrec_eval's ndcg_cut_10 and scikit-learn's ndcg_score(k=10) differ by more."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    metrics = pytest.importorskip("sklearn.metrics")
    qrels, run = _noisy_collection()
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    differ = 0
    for query, judged in qrels.items():
        docs = sorted(judged)
        theirs = metrics.ndcg_score([[judged[d] for d in docs]], [[run[query][d] for d in docs]],
                                    k=10)
        differ += abs(theirs - trec[query]["ndcg_cut_10"]) > 5e-05
    assert differ == 5  # the five queries with a tie (40 queries, each by both tools)
    ex = rw.explain(qrels, run, "ndcg@10", "trec_eval", "sklearn")
    assert ex.tolerance == 5e-05
    assert [(s.convention, s.queries_changed) for s in ex.steps] == [
        ("ties", differ), ("negative", 0), ("ideal", 0)]
    assert ex.to_text().rstrip().endswith(
        "queries: those whose value the step moves by more than 5e-05 (half a unit of the "
        "last decimal shown)")
    # every bit: the noise of computing a value two ways counts then
    exact = rw.explain(qrels, run, "ndcg@10", "trec_eval", "sklearn", tolerance=0)
    assert exact.steps[0].queries_changed > differ
    with pytest.raises(rw.InvalidParameterError, match="finite number >= 0"):
        rw.explain(qrels, run, "ndcg@10", "trec_eval", "sklearn", tolerance=math.nan)


def test_the_command_counts_changes_beyond_the_last_digit_printed(tmp_path, capsys) -> None:
    qrels, run = _noisy_collection()
    qrels_path, run_path = tmp_path / "g.qrels", tmp_path / "a.run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                  for d, g in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, docs in run.items()
                                for d, s in docs.items()))
    args = ["explain", str(qrels_path), str(run_path), "-m", "ndcg@10", "--between",
            "trec_eval", "sklearn"]
    assert main(args) == 0
    out = capsys.readouterr().out
    ties = next(line.split() for line in out.splitlines() if line.strip().startswith("ties"))
    assert int(ties[-4]) == 5  # the queries column (then mean after, part, share)
    assert "by more than 5e-05 (half a unit of the last decimal shown)" in out
    assert main([*args, "--digits", "17"]) == 0  # 5e-18: the noise is shown, and counted
    out = capsys.readouterr().out
    ties = next(line.split() for line in out.splitlines() if line.strip().startswith("ties"))
    assert int(ties[-4]) > 5


def test_an_unknown_dialect_or_a_measured_nan_is_one_line(tmp_path, capsys) -> None:
    """Issue 33, items 13 and 23: --between trec_eval sklearnn came as a traceback, and
    --measured nan was accepted."""
    qrels, run = tmp_path / "g.qrels", tmp_path / "a.run"
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 1.0 r\n")
    cases = [
        (["--between", "trec_eval", "sklearnn"],
         "rankwise: error: unknown dialect 'sklearnn'; did you mean 'sklearn'?"),
        (["--measured", "nan"],
         "rankwise: error: --measured must be a finite number (a mean a tool printed), "
         "got 'nan' (str)"),
        (["--measured", "inf"],
         "rankwise: error: --measured must be a finite number (a mean a tool printed), "
         "got 'inf' (str)"),
    ]
    for extra, line in cases:
        status = main(["explain", str(qrels), str(run), "-m", "ndcg@10", *extra])
        captured = capsys.readouterr()
        assert (status, captured.err, captured.out) == (1, line + "\n", "")
    with pytest.raises(rw.InvalidParameterError, match="unknown dialect 'sklearnn'"):
        rw.explain({"q": {"a": 1}}, {"q": {"a": 1.0}}, "ndcg@10", "trec_eval", "sklearnn")
    with pytest.raises(rw.InvalidParameterError, match="finite number"):
        rw.explain({"q": {"a": 1}}, {"q": {"a": 1.0}}, "ndcg@10", measured=math.nan)


def test_a_nan_mean_of_ranx_bpref_is_named_not_called_empty() -> None:
    """ranx's bpref is NaN where the judgments hold no non-relevant document (issue 33)."""
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1, "d": 0}}
    run = {"q1": {"a": 1.0, "x": 0.5}, "q2": {"d": 1.0, "c": 0.5}}
    with pytest.raises(rw.InvalidParameterError,
                       match=r"1 of the queries counted have no value \(NaN: bpref"):
        rw.explain(qrels, run, "bpref", "trec_eval", "ranx")


def test_a_difference_of_rounding_has_no_shares() -> None:
    """trec_eval and sklearn on the demo differ by 5.55e-17 (the order of a sum): the ties
    step showed 100.0% of it (a review); a share of a real difference is still given."""
    from pathlib import Path

    demo = Path(rw.__file__).parent / "demo_data"
    qrels, run = str(demo / "qrels.test"), str(demo / "results.test")
    found = rw.explain(qrels, run, "ndcg@10", "trec_eval", "sklearn")
    assert 0 < abs(found.difference) < 1e-15
    assert all(math.isnan(found.share(step)) for step in found.steps)
    assert all(item["share"] is None
               for item in json.loads(json.dumps(found.to_dict()).replace("NaN", "null"))
               ["steps"])
    real = rw.explain({"q": {"a": 1, "b": 1}}, {"q": {"a": 0.9, "c": 0.5}},
                      "ndcg@10", "trec_eval", "sklearn")
    assert real.difference > 0.1
    assert sum(real.share(step) for step in real.steps) == pytest.approx(1.0)


@pytest.mark.parametrize("how", [("trec_eval", "sklearn"), ()])
def test_a_measure_naming_a_dialect_is_refused(how: tuple[str, ...]) -> None:
    """ndcg@10(dialect=lightgbm) between trec_eval and sklearn dropped lightgbm silently."""
    qrels, run = {"q": {"a": 1, "b": 2}}, {"q": {"a": 1.0, "b": 0.5}}
    with pytest.raises(rw.InvalidParameterError, match=r"^ndcg@10\(dialect=lightgbm\) names a "
                       r"dialect: explain puts the measure in each dialect it compares"):
        rw.explain(qrels, run, "ndcg@10(dialect=lightgbm)", *how,
                   measured=None if how else 0.5)


def test_no_shared_query_is_said_so() -> None:
    """It said 'e.g. none has a relevant document' (a review)."""
    with pytest.raises(rw.InvalidParameterError, match=r"the run and the judgments share no "
                       r"query, so there is no difference to split"):
        rw.explain({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, "ndcg@10", "trec_eval", "sklearn")
