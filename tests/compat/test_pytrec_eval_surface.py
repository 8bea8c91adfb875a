"""rankwise.compat.pytrec_eval has pytrec_eval 0.5's surface: names, keys, empty inputs, errors.

Checked against pytrec_eval (pytrec-eval-terrier 0.5.11) itself: the keys of
every measure and nickname, ``supported_measures`` and
``supported_nicknames``, what an empty run, empty judgments or no measure
give, ``relevance_level`` and ``judged_docs_only_flag`` as its C code reads
them, the error type of each input it refuses; and where pytrec_eval cannot
answer (it aborts or crashes), that the drop-in does, in a fresh process.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import rankwise as rw
import rankwise.compat.pytrec_eval as drop_in

pytrec_eval = pytest.importorskip("pytrec_eval")

QRELS = {"q1": {"d1": 0, "d2": 1, "d3": 2, "d4": -1}, "q2": {"d2": 1, "d3": 1}, "q3": {}}
RUN = {"q2": {"d1": 1.0, "d2": 0.5, "d3": 0.5}, "q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5, "d9": 2.0},
       "q4": {"d1": 1.0}, "q5": {}}


def both(measures: object, qrels: object = QRELS, run: object = RUN,
         **options: object) -> tuple[dict, dict]:
    want = pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    got = drop_in.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    return want, got


def test_supported_measures_and_nicknames_are_pytrec_evals() -> None:
    assert isinstance(drop_in.supported_measures, set)
    assert drop_in.supported_measures == pytrec_eval.supported_measures
    assert list(drop_in.supported_nicknames) == list(pytrec_eval.supported_nicknames)
    assert drop_in.supported_nicknames == pytrec_eval.supported_nicknames


@pytest.mark.parametrize("name", sorted(pytrec_eval.supported_measures | {
    "P_5", "P.5,10", "ndcg_cut_20,4", "recall.1000", "iprec_at_recall.0.5", "Rprec_mult_0.5,1",
    "success_2", "relative_P.3", "map_cut.1,2", "utility.1,2,3,4", "11pt_avg.0.25,0.5",
    "set_F.2", "relstring.5", "set_P.5", "recip_rank.3", "P_5abc", "P.5.9",
}))
def test_the_keys_of_every_measure_are_pytrec_evals(name: str) -> None:
    """The same queries, keys and key order: alone, and with runid (whose value pytrec_eval
    reads from memory it has not written when it is alone)."""
    measures = {name} if name == "runid" else {name, "runid"}
    want, got = both(measures)
    assert list(got) == list(want) == ["q2", "q1"]
    for query, values in want.items():
        assert list(got[query]) == list(values)
        assert got[query] == pytest.approx(values, nan_ok=True)
    assert drop_in.RelevanceEvaluator(QRELS, {"runid"}).evaluate(RUN)["q1"] == {"runid": 0.0}


@pytest.mark.parametrize("nickname", list(pytrec_eval.supported_nicknames))
def test_every_nickname_gives_pytrec_evals_keys_or_its_error(nickname: str) -> None:
    try:
        want = pytrec_eval.RelevanceEvaluator(QRELS, {nickname}).evaluate(RUN)
    except ValueError:  # all_prefs, prefs, qrels_jg: listed, and refused
        with pytest.raises(ValueError, match="unsupported measure"):
            drop_in.RelevanceEvaluator(QRELS, {nickname})
        return
    got = drop_in.RelevanceEvaluator(QRELS, {nickname}).evaluate(RUN)
    assert {query: list(values) for query, values in got.items()} == {
        query: list(values) for query, values in want.items()}


@pytest.mark.parametrize("measures", [
    {"P", "P_5"}, {"official", "set", "ndcg"}, ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4"],
    {"all_trec", "P.3", "iprec_at_recall.0.5"}, {"map": 1}, {"utility.1,1,0,0"},
])
def test_measures_combine_as_pytrec_eval_combines_them(measures: object) -> None:
    """Parameters of one name merge (duplicates dropped, sorted as text); a name given without
    them keeps trec_eval's defaults only if never given with them; a dict gives its keys."""
    with pytest.warns(rw.RankwiseWarning) if "utility.1,1,0,0" in measures else _nothing():
        want, got = both(measures)
    assert {q: list(v) for q, v in got.items()} == {q: list(v) for q, v in want.items()}
    assert got == want


def _nothing() -> object:
    import contextlib

    return contextlib.nullcontext()


def test_empty_inputs_as_pytrec_eval() -> None:
    """pytrec_eval's own test_empty, and judgments whose entries are all empty."""
    for qrels, measures, run in [
        (QRELS, {"map", "ndcg"}, {}), (QRELS, set(), RUN), ({}, {"map", "ndcg"}, RUN),
        ({}, {"map"}, {}), (QRELS, set(), {}), ({}, set(), RUN), ({}, {}, {}),
        ({"q1": {}, "q2": {}}, {"map"}, RUN), (QRELS, {"map"}, {"q4": {"x": 1.0}}),
    ]:
        want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        assert drop_in.RelevanceEvaluator(qrels, measures).evaluate(run) == want
    assert both(set())[1] == {"q2": {}, "q1": {}}


@pytest.mark.parametrize("level", [1, 2, 3, True, np.int64(2), -1, -(2**31), 2**31 - 1])
@pytest.mark.parametrize("flag", [False, True, 0, 1, 2, -1, np.int32(1)])
def test_relevance_level_and_the_judged_flag_as_pytrec_evals_c_reads_them(
    level: object, flag: object
) -> None:
    """A C int each; a negative level -n is read as 2^32 - n (pytrec_eval stores the int in
    a long whose upper bytes are 0): nothing is relevant; any nonzero flag is -J."""
    measures = {"num_rel", "num_rel_ret", "num_ret", "map", "P_5"}
    want, got = both(measures, relevance_level=level, judged_docs_only_flag=flag)
    assert got == want


@pytest.mark.parametrize(("make", "error"), [
    (lambda m: m.RelevanceEvaluator([("q1", "d1", 1)], {"map"}), AttributeError),
    (lambda m: m.RelevanceEvaluator(None, {"map"}), AttributeError),
    (lambda m: m.RelevanceEvaluator({"q1": [1]}, {"map"}), TypeError),
    (lambda m: m.RelevanceEvaluator({"q1": {"d1": "1"}}, {"map"}), TypeError),
    (lambda m: m.RelevanceEvaluator({"q1": {"d1": None}}, {"map"}), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {5}), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, None), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"ndgc_cut"}), ValueError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"dcg"}), ValueError),  # trec_eval 10.0's only
    (lambda m: m.RelevanceEvaluator(QRELS, {"unj_5"}), ValueError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}, relevance_level=0), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}, relevance_level=1.5), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}, relevance_level="2"), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}, relevance_level=2**31), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}, judged_docs_only_flag=None), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}, judged_docs_only_flag=0.5), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate([1]), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate({"q1": [1]}), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate({"q1": {"d1": "1"}}), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate({"q1": {"d1": None}}), TypeError),
    (lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate(RUN, RUN), TypeError),
    (lambda m: m.parse_run(["q1 Q0 d1 1 2.5 r", "q1 Q0 d1 2 1.5 r"]), AssertionError),
    (lambda m: m.parse_qrel(["q1 0 d1 1", "q1 0 d1 0"]), AssertionError),
    (lambda m: m.parse_run(["q1 Q0 d1 1 2.5"]), ValueError),
    (lambda m: m.parse_qrel(["q1 0 d1 x"]), ValueError),
])
def test_errors_have_pytrec_evals_types(make: object, error: type) -> None:
    with pytest.raises(error):
        make(pytrec_eval)  # type: ignore[operator]
    with pytest.raises(error) as caught:
        make(drop_in)  # type: ignore[operator]
    # and rankwise's own (a RankwiseError, with what was expected), but Python's own TypeError
    # for a call with too many arguments
    assert isinstance(caught.value, rw.RankwiseError) or "positional argument" in str(
        caught.value)


def test_what_pytrec_eval_refuses_and_the_drop_in_reads() -> None:
    """Integer query ids, fractional grades, numpy float32 scores and Mappings that are not
    dicts are refused by pytrec_eval (TypeError): the drop-in reads them, keys as given."""
    got = drop_in.RelevanceEvaluator({7: {"d": 1.5}}, {"P_1"}).evaluate(
        {7: {"d": np.float32(1.0)}})
    assert got == {7: {"P_1": 1.0}}
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator({7: {"d": 1}}, {"P_1"})


def test_compute_aggregated_measure_is_pytrec_evals_to_the_bit() -> None:
    rng = np.random.default_rng(5)
    for measure in ("map", "num_ret", "gm_map", "P_5"):
        for size in (1, 2, 7, 100, 1001):
            values = rng.random(size).tolist() if not measure.startswith("gm_") else np.log(
                rng.random(size) + 1e-5).tolist()
            want = pytrec_eval.compute_aggregated_measure(measure, values)
            got = drop_in.compute_aggregated_measure(measure, values)
            assert got == want and type(got) is type(want), (measure, size)
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        assert math.isnan(drop_in.compute_aggregated_measure("map", []))
    assert drop_in.compute_aggregated_measure("num_q", []) == 0.0


def test_parsers_are_pytrec_evals() -> None:
    lines = ["q1 Q0 d1 1 2.5 run", "q1 Q0 d2 2 1.5 run", "q2 Q0 d1 1 0.5 run"]
    assert drop_in.parse_run(lines) == pytrec_eval.parse_run(lines)
    assert type(drop_in.parse_run(lines)) is type(pytrec_eval.parse_run(lines))
    qrels = ["q1 0 d1 2", "q1 0 d2 0", "q2 0 d3 1"]
    assert drop_in.parse_qrel(qrels) == pytrec_eval.parse_qrel(qrels)


_ONE_EVALUATE = """
import json, sys
import pytrec_eval
qrels, run, measures = json.load(sys.stdin)
print(json.dumps(pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)))
"""


CRASHING = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"e1": -2}}
"""A query whose every grade is below -1 after another: trec_eval sets max_rel + 1 < 0 entries
of its grade counts (form_res_rels.c), and pytrec_eval's process ends (a segfault)."""


@pytest.mark.parametrize(("qrels", "measures", "answer"), [
    (CRASHING, ["map"], {"q1": {"map": 0.5}, "q2": {"map": 0.0}}),  # R = 2 in q1, 0 in q2
    (QRELS, ["P_0"], "cutoffs must be positive"),  # trec_eval: an abort
    (QRELS, ["P_5,05"], "duplicate cutoffs"),
    (QRELS, ["iprec_at_recall_0.5,0.50"], "duplicate cutoffs"),
    (QRELS, ["ndcg.5"], "grade=gain pairs"),
])
def test_where_pytrec_eval_crashes_the_drop_in_answers(
    qrels: dict, measures: list, answer: object
) -> None:
    """pytrec_eval ends the process (a failed assertion, a segfault): run in a fresh one."""
    run = {"q1": {"d1": 1.0, "d2": 0.5}, "q2": {"e1": 1.0, "e2": 0.5}}
    done = subprocess.run([sys.executable, "-c", _ONE_EVALUATE], capture_output=True,
                          text=True, input=json.dumps([qrels, run, measures]), check=False)
    assert done.returncode < 0  # killed by a signal (SIGABRT, SIGSEGV)
    if isinstance(answer, dict):
        assert drop_in.RelevanceEvaluator(qrels, set(measures)).evaluate(run) == answer
        alone = {"q1": qrels["q1"]}  # pytrec_eval's value where it does not crash
        assert pytrec_eval.RelevanceEvaluator(alone, {"map"}).evaluate(run) == {
            "q1": answer["q1"]}
    else:
        with pytest.raises(rw.MeasureSyntaxError, match=f"{answer}.*pytrec_eval aborts"):
            drop_in.RelevanceEvaluator(qrels, set(measures))


def test_a_utility_of_the_wrong_size_is_0_as_pytrec_evals() -> None:
    """trec_eval prints 'improper number of coefficients' and leaves every value 0."""
    with pytest.warns(rw.RankwiseWarning, match="improper number of coefficients"):
        want, got = both({"utility.2,3"})
    assert got == want == {"q2": {"utility": 0.0}, "q1": {"utility": 0.0}}
