"""rw.guide: each rule fires on data that triggers it and stays silent on data that does not;
the numbers behind its sentences are the data's (counted here by hand, or by the reference
tables: R's topic set sizes); the bundled collections get the advice they should; the result
follows the protocol of the other results."""

from __future__ import annotations

import csv
import gzip
import json
import math
import pickle
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import rankwise as rw
from rankwise.exceptions import InvalidParameterError
from rankwise.guidance import RULES, Guide
from rankwise.guidance.rules import rule

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "src" / "rankwise" / "demo_data"
WEB = ROOT / "tests" / "data" / "gdeval"
R_SIZES = ROOT / "tests" / "data" / "stats" / "topic_set_sizes_r.csv"


# -- small collections ---------------------------------------------------------------------

def one_relevant(n: int = 3) -> dict[str, dict[str, int]]:
    return {f"q{i}": {f"r{i}": 1, f"n{i}": 0} for i in range(n)}


def many_binary(n: int = 3) -> dict[str, dict[str, int]]:
    return {f"q{i}": {f"r{i}a": 1, f"r{i}b": 1, f"n{i}": 0} for i in range(n)}


def many_graded(n: int = 3) -> dict[str, dict[str, int]]:
    return {f"q{i}": {f"r{i}a": 2, f"r{i}b": 1, f"n{i}": 0} for i in range(n)}


def ranked(qrels: dict[str, dict[str, Any]], unjudged: int = 0, *, first: bool = False,
           queries: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Each query's judged documents in order (best grade first), and *unjudged* more
    (before the judged ones with *first*)."""
    run = {}
    for q in queries if queries is not None else list(qrels):
        docs = sorted(qrels.get(q, {}), key=lambda d: -qrels.get(q, {})[d])
        extra = [f"u{q}-{i}" for i in range(unjudged)]
        order = extra + docs if first else docs + extra
        run[q] = {doc: float(len(order) - i) for i, doc in enumerate(order)}
    return run


def fired(qrels: Any, runs: Any = None, **options: Any) -> tuple[str, ...]:
    return rw.guide(qrels, runs, **options).rules


# -- each rule: data that triggers it, data that does not -----------------------------------

def _ties(qrels: dict[str, dict[str, int]], at: int) -> dict[str, dict[str, float]]:
    """One-relevant judgments; q0's relevant document tied with its non-relevant one at rank
    *at* (the ranks above it hold unjudged documents)."""
    run = ranked(qrels)
    docs = {f"x{i}": float(100 - i) for i in range(at - 1)}
    docs.update({"r0": 1.0, "n0": 1.0})
    run["q0"] = docs
    return run


def _compare(better: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    qrels = one_relevant(20)
    good = ranked(qrels)
    bad = ranked(qrels, unjudged=1, first=True) if better else good
    return qrels, {"good": good, "bad": bad}


NINE = {f"q{i}": {f"d{i}-{j}": int(j == 0) for j in range(9)} for i in range(3)}
"""Nine judged documents per query: with one unjudged more, 90% of the top 10 is judged."""

CASES: dict[str, tuple[tuple[Any, ...], tuple[Any, ...]]] = {
    # rule: ((qrels, runs, options) that trigger it, (qrels, runs, options) that do not)
    "no-relevant": (({"q1": {"a": 1}, "q2": {"b": 0}}, None, {}), ({"q1": {"a": 1}}, None, {})),
    "one-relevant": ((one_relevant(), None, {}), (many_binary(), None, {})),
    "many-graded": ((many_graded(), None, {}), (many_binary(), None, {})),
    "many-binary": ((many_binary(), None, {}), (many_graded(), None, {})),
    "fewer-than-k": ((many_binary(), None, {}), (many_binary(), None, {"cutoff": 2})),
    "binary": ((many_binary(), None, {}), (many_graded(), None, {})),
    "graded": ((many_graded(), None, {}), (many_binary(), None, {})),
    "two-gains": ((many_graded(), None, {}),
                  ({"q": {"a": 1, "b": 0.5, "c": 0}}, None, {"rel": 0.5})),
    "negative-grades": (({"q": {"a": 1, "b": -1}}, None, {}), ({"q": {"a": 1, "b": 0}}, None, {})),
    "missing-queries": ((one_relevant(), ranked(one_relevant(), queries=["q0", "q1"]), {}),
                        (one_relevant(), ranked(one_relevant()), {})),
    "extra-queries": ((one_relevant(), ranked(one_relevant(), 1,
                                              queries=["q0", "q1", "q2", "q9"]), {}),
                      (one_relevant(), ranked(one_relevant()), {})),
    "short-rankings": ((one_relevant(), ranked(one_relevant()), {}),
                       (one_relevant(), ranked(one_relevant()), {"cutoff": 2})),
    "unjudged-top": ((one_relevant(), ranked(one_relevant(), 8, first=True), {}),
                     (one_relevant(), ranked(one_relevant()), {})),
    "mostly-judged": ((NINE, ranked(NINE, 1), {}), (NINE, ranked(NINE), {})),
    "all-judged": ((NINE, ranked(NINE), {}), (NINE, ranked(NINE, 1), {})),
    "shallow-pool": ((one_relevant(), ranked(one_relevant(), 98), {}),
                     ({f"q{i}": {f"d{j}": int(j == 0) for j in range(100)} for i in range(3)},
                      ranked({f"q{i}": {f"d{j}": int(j == 0) for j in range(100)}
                              for i in range(3)}), {})),
    "ties-decide": ((one_relevant(), _ties(one_relevant(), 1), {}),
                    (one_relevant(), ranked(one_relevant()), {})),
    "ties-harmless": ((one_relevant(), _ties(one_relevant(), 11), {}),
                      (one_relevant(), _ties(one_relevant(), 1), {})),
    "no-ties": ((one_relevant(), ranked(one_relevant()), {}),
                (one_relevant(), _ties(one_relevant(), 11), {})),
    "no-runs": ((one_relevant(), None, {}), (one_relevant(), ranked(one_relevant()), {})),
    "too-few-queries": ((one_relevant(), ranked(one_relevant(), 1, first=True)
                         | {"q0": {"r0": 1.0}}, {}),
                        (one_relevant(40), {q: v for q, v in ranked(
                            one_relevant(40), 1, first=True).items()} | {
                            f"q{i}": {f"r{i}": 1.0} for i in range(20)}, {"min_diff": 0.5})),
    "enough-queries": ((one_relevant(40), {q: v for q, v in ranked(
                            one_relevant(40), 1, first=True).items()} | {
                            f"q{i}": {f"r{i}": 1.0} for i in range(20)}, {"min_diff": 0.5}),
                       (one_relevant(), ranked(one_relevant(), 1, first=True)
                        | {"q0": {"r0": 1.0}}, {})),
    "discriminable": ((*_compare(True), {}), (*_compare(False), {})),
    "not-discriminable": ((*_compare(False), {}), (*_compare(True), {})),
}


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == {item.name for item in RULES}


@pytest.mark.parametrize("name", list(CASES))
def test_the_rule_fires_on_data_that_triggers_it(name: str) -> None:
    qrels, runs, options = CASES[name][0]
    assert name in fired(qrels, runs, **options)


@pytest.mark.parametrize("name", list(CASES))
def test_the_rule_is_silent_on_data_that_does_not(name: str) -> None:
    qrels, runs, options = CASES[name][1]
    assert name not in fired(qrels, runs, **options)


def test_rules_are_data_with_a_condition_a_sentence_and_a_suggestion() -> None:
    from rankwise.guidance.rules import SCOPES, TOPICS

    assert len({item.name for item in RULES}) == len(RULES)
    for item in RULES:
        assert item.scope in SCOPES and item.topic in TOPICS and item.when and item.text
    assert rule("one-relevant").measures == ("mrr@{k}", "recall@{deep}")
    assert ("unjudged", "bounds") in rule("unjudged-top").options
    with pytest.raises(InvalidParameterError, match="did you mean 'no-ties'"):
        rule("no-tie")


# -- the numbers behind the sentences --------------------------------------------------------

def _advice(g: Guide, name: str) -> Any:
    [item] = [a for a in g.advice if a.rule == name]
    return item


def test_grades_and_relevant_documents_are_counted() -> None:
    qrels = {"q1": {"a": 3, "b": 1, "c": 0, "d": 0}, "q2": {"e": 1, "f": 1, "g": 2},
             "q3": {"h": 0}}
    g = rw.guide(qrels)
    assert _advice(g, "graded").text.startswith(
        "The judgments are graded: grades 0 (3 judgments, 38%), 1 (3, 38%), 2 (1, 12%), "
        "3 (1, 12%).")
    # R = 2 and 3 on the queries that have any; q3 has none
    many = _advice(g, "many-graded").numbers
    assert (many["median"], many["low"], many["high"]) == (2.5, 2, 3)
    assert _advice(g, "no-relevant").numbers == {
        "none": 1, "n": 3, "rel": 1.0, "scored": "Every measure scores them 0 whatever the ranking"}
    # a perfect ranking's P@10: (2/10 + 3/10) / 2
    assert _advice(g, "fewer-than-k").numbers == {"few": 2, "best": pytest.approx(0.25)}
    gains = _advice(g, "two-gains").numbers  # grade 3 against grade 1: 7/1 and 3/1
    assert (gains["exp"], gains["lin"]) == (7, 3)
    assert g.measures == ("ndcg@10", "map")


def test_rel_moves_what_counts_as_relevant() -> None:
    qrels = {"q1": {"a": 2, "b": 1}, "q2": {"c": 2, "d": 1}}
    assert "many-graded" in fired(qrels)
    g = rw.guide(qrels, rel=2)  # only grade 2 is relevant: one per query, one grade
    assert g.rules[:2] == ("one-relevant", "binary")
    assert g.commands == ("rankwise eval QRELS RUN -m mrr@10 recall@1000 --rel 2",)


def test_the_bounds_of_the_top_k_are_the_unjudged_documents_taken_either_way() -> None:
    # binary, several relevant: the first measure of the top k is P@10; per query the top
    # 10 holds 2 relevant, 1 not relevant and 7 unjudged documents
    qrels = many_binary()
    run = ranked(qrels, 7)
    g = rw.guide(qrels, run)
    numbers = _advice(g, "unjudged-top").numbers
    assert numbers["measure"] == "P@10"
    assert numbers["judged"] == pytest.approx(3 / 10)
    assert (numbers["low"], numbers["high"]) == (pytest.approx(2 / 10), pytest.approx(9 / 10))
    assert g.options == {"unjudged": "bounds"}
    assert "judged@10" in g.measures


def test_judged_share_does_not_count_ranks_a_short_ranking_lacks() -> None:
    g = rw.guide(one_relevant(), ranked(one_relevant()))  # 2 documents each, both judged
    assert "all-judged" in g.rules and "unjudged-top" not in g.rules
    assert g.facts.runs[0].judged[10] == 1.0


def test_ties_report_the_worst_and_best_order() -> None:
    g = rw.guide(one_relevant(), _ties(one_relevant(), 1))
    numbers = _advice(g, "ties-decide").numbers
    # q0: rank 1 or 2 by the order of the tie, q1 and q2 rank 1: mrr@10 (1/2 + 2) / 3 or 1
    assert numbers["measure"] == "mrr@10"
    assert (numbers["worst"], numbers["best"]) == (pytest.approx(2.5 / 3), 1.0)
    assert g.options == {"ties": "average"}
    assert "--ties average" in g.commands[0]


def test_grades_past_a_double_s_exponent_are_worded() -> None:
    """2 ** 2000.0 raised OverflowError in the two-gains sentence (a review)."""
    g = rw.guide({"q1": {"a": 2000, "b": 1}, "q2": {"c": 1}})
    text = _advice(g, "two-gains").text
    assert "grade 2000 weighs about 2^2000 times grade 1" in text
    g = rw.guide({"q1": {"a": 3, "b": 1}, "q2": {"c": 1}})
    assert "grade 3 weighs 7 times grade 1" in _advice(g, "two-gains").text


def test_negative_grades_at_a_negative_rel_and_two_gains_at_rel_0() -> None:
    """With rel=-1 map counts grade -1 relevant: the guide said 'never relevant'; with rel=0
    ndcg still has two gains: the guide said nothing (a review)."""
    qrels = {"q1": {"a": -1, "b": 1, "c": 2}, "q2": {"d": 0, "e": 2}}
    assert rw.evaluate(qrels, {"q1": {"a": 1.0}}, ["P@1"], rel=-1).mean["P@1(rel=-1)"] == 1.0
    text = _advice(rw.guide(qrels, rel=-1), "negative-grades").text
    assert "at rel -1 map, P@k, recall and mrr count those >= -1 as relevant" in text
    assert "never relevant" in _advice(rw.guide(qrels), "negative-grades").text
    assert "two-gains" in rw.guide(qrels, rel=0).rules


def test_queries_without_a_relevant_document_but_with_a_grade_are_scored_by_ndcg() -> None:
    """Grades 0.5 and 0.25 at rel 1: ndcg is 1.0, not 0 as the sentence said (a review)."""
    qrels = {"q1": {"a": 0.5, "b": 0.25}, "q2": {"c": 1}, "q3": {"d": 0}}
    assert rw.evaluate(qrels, {"q1": {"a": 1.0, "b": 0.5}}, ["ndcg@10"]).mean["ndcg@10"] == 1.0
    g = rw.guide(qrels)
    assert g.facts.judgments.gained_not_relevant == 1
    assert "map, P@k, recall and mrr score them 0 whatever the ranking (ndcg reads the grades, "\
        "not rel: it scores the 1 with a grade above 0)" in _advice(g, "no-relevant").text


def test_measures_without_a_power_sentence_are_noted() -> None:
    """A variance of 6e-33 (rounding) gave 'sigma_t^2 = 0.0000 ... 2 would give 80%'; a
    constant measure or one query gave no sentence and no note (a review)."""
    import random

    random.seed(1)
    qrels = {f"q{i}": {f"d{j}": int(j < 3) for j in range(12)} for i in range(40)}
    run = {q: {f"d{j}": 20.0 - j + random.random() * 0.1 for j in range(12)}
           for q in list(qrels)[:30]}
    g = rw.guide(qrels, {"D": run})  # every query perfect: map, P@10, recall 1.0 each
    assert g.facts.power == ()
    assert not [a for a in g.advice if a.topic == "power"]
    assert g.facts.notes == (f"queries needed: not said for {', '.join(g.facts.measures)}: "
                             "the values do not vary over the queries",)
    one = rw.guide({"q1": {"a": 1}}, {"q1": {"a": 1.0, "b": 0.5}})
    assert one.facts.notes == (f"queries needed: not said for {', '.join(one.facts.measures)}:"
                               " 1 query evaluated, a variance needs 2",)


def test_ties_count_a_query_with_either_kind_of_tie_once() -> None:
    """A query with a mixed tie and another with a tie across the cutoff: 2 (it said 1)."""
    qrels = {"A": {"r1": 1, "n1": 0, "r2": 1, "r3": 1},
             "B": {"r1": 1, "r2": 1, "r3": 1, "j10": 0, "j11": 0}}
    a = {"r1": 3000.0, "r2": 2999.0, **{f"x{i:04d}": 2000.0 - i for i in range(297)},
         "r3": 1.0, "n1": 1.0}
    b = {"r1": 30.0, "r2": 29.0, "r3": 28.0, **{f"x{i}": 20.0 - i for i in range(6)},
         "j10": 5.0, "j11": 5.0, **{f"z{i}": 4.0 - i * 0.1 for i in range(10)}}
    g = rw.guide(qrels, {"R": {"A": a, "B": b}})
    assert g.facts.runs[0].tied_queries == 2
    assert next(item.text for item in g.advice if item.topic == "ties").startswith(
        "R: tied scores around judged documents in 2 of its 2 queries")


def _r_size(min_diff: float, variance: float) -> int:
    with R_SIZES.open() as handle:
        for row in csv.DictReader(handle):
            if row["test"] == "t-test" and float(row["min_diff"]) == min_diff and \
                    float(row["variance"]) == variance:
                return int(row["n"])
    raise AssertionError("no such row")


def _power_by_hand(d: float, variance: float, n: int, alpha: float = 0.05) -> float:
    from scipy import stats

    t = stats.t.ppf(1 - alpha / 2, n - 1)
    nc = math.sqrt(n) * d / math.sqrt(variance)
    return float(stats.nct.sf(t, n - 1, nc) + stats.nct.cdf(-t, n - 1, nc))


def test_one_run_queries_needed_from_twice_the_variance_of_its_values() -> None:
    # 20 queries, mrr@10 = 1 on one of them: sample variance 0.05, sigma_t^2 = 0.1
    qrels = one_relevant(20)
    run = ranked(qrels, 20, first=True) | {"q0": {"r0": 1.0}}
    g = rw.guide(qrels, run, min_diff=0.1)
    values = [1.0] + [0.0] * 19
    assert statistics.variance(values) == pytest.approx(0.05)
    power = g.facts.power[0]
    assert power.measure == "mrr@10" and power.n_queries == 20
    assert power.variance == pytest.approx(0.1)
    assert power.needed == _r_size(0.10, 0.10) == 81  # R's power.t.test
    assert power.power == pytest.approx(_power_by_hand(0.1, 0.1, 20), abs=1e-9)
    assert _advice(g, "too-few-queries").text.startswith(
        "With 20 queries a paired t-test detects a true difference of 0.1 in mrr@10 with "
        f"probability {_power_by_hand(0.1, 0.1, 20):.2f}; 81 queries give 80% (sigma_t^2 = "
        "0.1000, twice the variance of run's values")


def test_two_runs_queries_needed_from_sakai_s_residual_variance() -> None:
    # 21 queries; x finds the relevant document first on q0, y on q1, both on the rest:
    # the differences are +1, -1 and 19 zeros, their variance 2/20 = 0.1 = 2 V_E
    qrels = one_relevant(21)
    both = ranked(qrels)
    miss = ranked(qrels, 20, first=True)
    runs = {"x": both | {"q1": miss["q1"]}, "y": both | {"q0": miss["q0"]}}
    g = rw.guide(qrels, runs, min_diff=0.1)
    power = g.facts.power[0]
    assert power.residual == pytest.approx(0.05) and power.variance == pytest.approx(0.1)
    assert power.needed == _r_size(0.10, 0.10)
    assert power.power == pytest.approx(_power_by_hand(0.1, 0.1, 21), abs=1e-9)
    assert "not-discriminable" in g.rules
    compared = _advice(g, "not-discriminable").numbers
    assert compared["pairs"] == 1 and compared["delta"] == 0.0


def test_a_clear_difference_is_significant() -> None:
    qrels, runs = _compare(True)
    g = rw.guide(qrels, runs)
    numbers = _advice(g, "discriminable").numbers
    # bad finds the relevant document second on every query: mrr@10 1/2 against 1
    assert numbers["best"] == "mrr@10" and numbers["delta"] == pytest.approx(-0.5)
    assert g.commands[1] == ("rankwise compare QRELS RUN_1 RUN_2 -m mrr@10 recall@1000 --seed 0")


def test_missing_queries_and_short_rankings_are_counted() -> None:
    qrels = one_relevant(4)
    g = rw.guide(qrels, ranked(qrels, 2, queries=["q0", "q1", "q2", "q7"]))
    assert _advice(g, "missing-queries").numbers == {"missing": 1, "n": 4}
    assert _advice(g, "extra-queries").numbers == {"extra": 1}
    assert _advice(g, "short-rankings").numbers == {"short": 3, "n": 3, "fewest": 4}
    assert g.options["missing"] == "zero"


# -- the bundled collections ----------------------------------------------------------------

def _trec_lines(path: Path) -> list[list[str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        return [line.split() for line in handle if line.strip()]


def test_the_demo_collection() -> None:
    qrels_path, run_path = DEMO / "qrels.test", DEMO / "results.test"
    g = rw.guide(qrels_path, run_path)
    assert g.rules == ("many-binary", "binary", "all-judged", "shallow-pool", "ties-harmless",
                       "too-few-queries")
    # counted here from the files
    judgments = _trec_lines(qrels_path)
    grades = Counter(int(row[3]) for row in judgments)
    assert grades == {0: 3120, 1: 561}
    relevant = Counter(row[0] for row in judgments if int(row[3]) >= 1)
    many = _advice(g, "many-binary").numbers
    assert (many["median"], many["low"], many["high"]) == (
        statistics.median(relevant.values()), min(relevant.values()), max(relevant.values()))
    judged = {(row[0], row[2]) for row in judgments}
    lines = _trec_lines(run_path)
    pool = _advice(g, "shallow-pool").numbers
    assert pool["judged_all"] == pytest.approx(
        sum((row[0], row[2]) in judged for row in lines) / len(lines))
    # judged down to rank 100 (90% or more of each top k, averaged), not to 200
    by_query: dict[str, list[tuple[float, str]]] = {}
    for row in lines:
        by_query.setdefault(row[0], []).append((-float(row[4]), row[2]))

    def share(k: int) -> float:
        tops = [sorted(docs, key=lambda x: (x[0], [-ord(c) for c in x[1]]))[:k]
                for docs in by_query.values()]
        return statistics.mean(sum((q, d) in judged for _, d in top) / len(top)
                               for q, top in zip(by_query, tops))

    assert share(100) >= 0.9 > share(200)
    assert pool["pool"] == 100
    assert g.measures == ("map", "P@10", "recall@1000")
    assert g.commands == (f"rankwise eval {qrels_path} {run_path} -m map P@10 recall@1000",)


def test_the_web_track_collection() -> None:
    qrels_path = WEB / "qrels.web.151-200.txt.gz"
    run_path = WEB / "results-2012-rm-cata-filtered.txt.gz"
    g = rw.guide(qrels_path, run_path)
    assert g.rules == ("many-graded", "graded", "two-gains", "negative-grades",
                       "short-rankings", "unjudged-top", "shallow-pool", "ties-harmless",
                       "too-few-queries")
    judgments = _trec_lines(qrels_path)
    assert _advice(g, "negative-grades").numbers == {
        "negative": sum(int(row[3]) < 0 for row in judgments),
        "counted": "judged and never relevant (gain 0)"}
    assert dict(g.facts.judgments.grades) == dict(Counter(float(row[3]) for row in judgments))
    lines = _trec_lines(run_path)
    sizes = Counter(row[0] for row in lines)
    assert _advice(g, "short-rankings").numbers == {
        "short": sum(n < 10 for n in sizes.values()), "n": len(sizes),
        "fewest": min(sizes.values())}
    assert g.measures == ("ndcg@10", "map", "judged@10")
    assert g.options == {"unjudged": "bounds"}


# -- inputs, options, errors ----------------------------------------------------------------

def test_runs_in_every_form() -> None:
    qrels = one_relevant()
    run = ranked(qrels)
    names = lambda g: [r.name for r in g.facts.runs]  # noqa: E731
    assert names(rw.guide(qrels, run)) == ["run"]  # one run as a dict {query: {doc: score}}
    assert names(rw.guide(qrels, {"a": run, "b": run})) == ["a", "b"]
    assert names(rw.guide(qrels, [rw.Run.from_dict(run, name="x"),
                                  rw.Run.from_dict(run, name="x")])) == ["x", "x#2"]
    assert names(rw.guide(qrels, rw.Run.from_dict(run, name="bm25"))) == ["bm25"]
    assert names(rw.guide(DEMO / "qrels.test", [str(DEMO / "results.test")])) == ["STANDARD"]


@pytest.mark.parametrize("options, message", [
    ({"cutoff": 0}, r"^cutoff must be a positive integer, got 0 \(int\)$"),
    ({"min_diff": 0}, r"^min_diff must be a number in \(0, 1\] \(the difference between two "
                      r"means to detect\), got 0 \(int\)$"),
    ({"alpha": 1.5}, r"^alpha must be a number in \(0, 1\), got 1\.5 \(float\)$"),
    ({"beta": 0}, r"^beta must be a number in \(0, 1\), got 0 \(int\)$"),
])
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        rw.guide(one_relevant(), **options)


def test_run_names_must_be_text() -> None:
    with pytest.raises(InvalidParameterError,
                       match=r"^a run name must be a non-empty str, got 1 \(int\)$"):
        rw.guide(one_relevant(), {1: "run.txt"})


# -- the result protocol --------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo() -> Guide:
    return rw.guide(DEMO / "qrels.test", DEMO / "results.test")


def test_to_dict_is_json_with_every_number(demo: Guide) -> None:
    data = json.loads(json.dumps(demo.to_dict(), allow_nan=False))
    assert data["judgments"]["n_queries"] == 3
    assert data["runs"][0]["name"] == "STANDARD"
    assert [a["rule"] for a in data["advice"]] == list(demo.rules)
    assert data["commands"] == list(demo.commands)
    assert json.loads(demo.to_table("json")) == data


def test_to_table_formats(demo: Guide) -> None:
    assert demo.to_table() == str(demo) == repr(demo) + "\n"
    rows = list(csv.DictReader(demo.to_table("csv").splitlines()))
    assert [row["rule"] for row in rows] == list(demo.rules)
    assert rows[0]["text"] == demo.advice[0].text
    markdown = demo.to_table("markdown")
    assert "### Run STANDARD" in markdown and "```sh\nrankwise eval" in markdown
    with pytest.raises(InvalidParameterError):
        demo.to_table("yaml")


def test_the_text_wraps_and_ends_with_the_commands(demo: Guide) -> None:
    text = demo.to_text()
    assert max(len(line) for line in text.splitlines() if not line.startswith("  rankwise")) <= 88
    assert text.rstrip().splitlines()[-2:] == ["Suggested:", f"  {demo.commands[0]}"]


def test_to_pandas_one_row_per_sentence(demo: Guide) -> None:
    pytest.importorskip("pandas")
    frame = demo.to_pandas()
    assert list(frame.columns) == ["scope", "run", "topic", "rule", "text"]
    assert list(frame["rule"]) == list(demo.rules)


def test_html_escapes_what_it_shows() -> None:
    qrels = one_relevant()
    html = rw.guide(qrels, {"<b>x</b>": ranked(qrels)})._repr_html_()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_pickles(demo: Guide) -> None:
    back = pickle.loads(pickle.dumps(demo))
    assert back.to_dict() == demo.to_dict() and str(back) == str(demo)


def test_a_run_without_a_judged_query_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="run 'x' and the judgments have no query "
                                                    "in common"):
        rw.guide(one_relevant(), {"x": {"q9": {"a": 1.0}}})


def test_judgments_without_a_judgment_are_refused() -> None:
    # the readers' one rule for an input with nothing in it (docs/reading.md)
    with pytest.raises(rw.InputFormatError, match="the dict is empty: judgments need"):
        rw.guide({})


def test_headings_count_in_words() -> None:
    text = rw.guide({"q1": {"a": 0}}, {"q1": {"a": 1.0}}).to_text()
    assert text.startswith("The judgments (1 query, 1 judgment)\n")
    assert "\nRun run (1 judged query, 1 document each)\n" in text
