"""Run dicts read and ranked in one C pass (rank_run_dict) against the general path.

``rw.evaluate(qrels_dict, run_dict, ...)`` ranks a run dict without building
the run (:func:`rankwise.ranking.from_dict.rank_run_dict`, the C function
``rankwise.ranking._cdict.run_dict_ranks``). Every number, query list, coverage
count and error must be what the general path gives (the dict read into a
Run, then ranked), and what pytrec_eval gives where it computes the measure.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from strategies import dict_collections, random_collection

import rankwise as rw
from rankwise._compiled import enabled, load
from rankwise.exceptions import DuplicateEntryError, InputFormatError
from rankwise.io.coerce import as_qrels
from rankwise.ranking import _counted, from_dict
from rankwise.ranking.from_dict import rank_run_dict

needs_c = pytest.mark.skipif(
    load("rankwise.ranking._cdict") is None or not enabled(),
    reason="the C module is not built or turned off",
)

MEASURES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "P@1", "P@3", "P@10", "recall@5", "ndcg",
    "ndcg@3", "ndcg@10(gain=linear)", "mrr", "Rprec", "bpref", "success@2", "judged@5",
    "err@5", "rbp(p=0.8)",
]
TIED_MEASURES = ["P@3", "map", "ndcg@3", "mrr", "recall@5", "num_rel_ret"]
"""Measures every tie policy computes."""
DIALECT_MEASURES = ["ndcg@3(dialect=sklearn)", "ndcg@3(dialect=lightgbm)"]


def general_path(*args: Any, **kwargs: Any) -> rw.Results:
    """``rw.evaluate`` with run dicts on the general path (built into a Run, then ranked)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(from_dict, "rank_run_dict", lambda *a, **k: None)
        return rw.evaluate(*args, **kwargs)


def same_results(fused: rw.Results, general: rw.Results) -> None:
    assert fused.query_ids == general.query_ids
    assert [type(q) for q in fused.query_ids] == [type(q) for q in general.query_ids]
    assert (fused.missing_queries, fused.unjudged_queries) == (
        general.missing_queries, general.unjudged_queries)
    assert list(fused.mean) == list(general.mean)
    for name in general.mean:
        np.testing.assert_array_equal(fused[name], general[name], err_msg=name)


def fused_is_taken(qrels: dict, run: dict) -> bool:
    return rank_run_dict(as_qrels(qrels), run) is not None


@needs_c
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dict_collections())
def test_the_one_pass_ranks_as_the_general_path(data: tuple) -> None:
    qrels, run = data
    assert fused_is_taken(qrels, run)  # ids of one kind per level: never declined
    for options in ({}, {"depth": 3}, {"missing": "zero"}, {"rel": 2}, {"unjudged": "bounds"},
                    {"ties": "average"}, {"ties": "worst", "depth": 2}):
        measures = TIED_MEASURES if "ties" in options else MEASURES
        fused = rw.evaluate(qrels, run, measures, **options)
        general = general_path(qrels, run, measures, **options)
        same_results(fused, general)
        if options.get("unjudged") == "bounds":
            assert fused.unjudged is not None and general.unjudged is not None
            assert fused.unjudged.mean == general.unjudged.mean


@needs_c
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dict_collections(int_ids=False))
def test_other_dialects_rank_the_run_built_when_asked(data: tuple) -> None:
    qrels, run = data
    same_results(rw.evaluate(qrels, run, MEASURES + DIALECT_MEASURES),
                 general_path(qrels, run, MEASURES + DIALECT_MEASURES))


@needs_c
@pytest.mark.parametrize("seed", range(12))
def test_massive_ties_past_the_budget_take_the_general_path(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    qrels, run = random_collection(seed, ties=True)
    expected = general_path(qrels, run, MEASURES)
    monkeypatch.setattr(_counted, "TIE_BUDGET_BASE", 0)
    monkeypatch.setattr(_counted, "TIE_BUDGET_PER_ROW", 0)
    assert not fused_is_taken(qrels, run)  # every tie costs: declined
    same_results(rw.evaluate(qrels, run, MEASURES), expected)


@needs_c
def test_ranks_follow_trec_eval_order_by_docno_descending() -> None:
    qrels = {"q": {"b": 1, "ab": 1, "a": 1, "\u00e9": 1, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "ab": 1.0, "\u00e9": 1.0, "z": 2.0, "c": 0.5, "u": 1.0}}
    fused = rank_run_dict(as_qrels(qrels), run)
    assert fused is not None
    view = fused[0].view("trec")
    # z (2.0); then the tie at 1.0 by docno descending: é (0xC3 0xA9), u, b, ab, a; then c
    ranks = dict(zip(view.hit_grade.tolist(), view.hit_rank.tolist()))
    assert view.hit_rank.tolist() == [2, 4, 5, 6, 7]
    assert view.tie_above.tolist() == [1, 1, 1, 1, 6]
    assert view.tie_size.tolist() == [5, 5, 5, 5, 1]
    assert ranks[0.0] == 7
    assert view.num_ret.tolist() == [7]


@needs_c
@pytest.mark.parametrize(
    ("qrels", "run"),
    [
        ({"q": {"a": 1}}, {"q": {1: 1.0, "1": 0.5}}),  # the same document twice
        ({"q": {"1": 1}}, {"q": {"a": 1.0}, 5: {"1": 1.0}, "5": {"2": 1.0}}),  # one query twice
    ],
)
def test_ids_that_may_collide_take_the_general_path(qrels: dict, run: dict) -> None:
    assert not fused_is_taken(qrels, run)
    if any(len({str(d) for d in docs}) < len(docs) for docs in run.values()):
        with pytest.raises(DuplicateEntryError, match="1 and '1' are the same id"):
            rw.evaluate(qrels, run, ["P@1"])
    else:
        with pytest.raises(InputFormatError, match="query keys 5 and '5' are the same query"):
            rw.evaluate(qrels, run, ["P@1"])


@needs_c
@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"q": {"a": float("nan")}}, "must be a finite number"),
        ({"q": {"a": "0.5"}}, "must be a number"),
        ({"q": {"a": True}}, "must be a number"),
        ({"q": {("a",): 1.0}}, "must be a str or an int"),
        ({"q": {"a": 1.0}, "r": [1.0]}, "must be a dict"),
        ({"q": {"a": 10**400}}, "too large for a 64-bit float"),
    ],
)
def test_bad_runs_raise_what_the_general_path_raises(run: dict, message: str) -> None:
    assert not fused_is_taken({"q": {"a": 1}}, run)
    with pytest.raises(InputFormatError, match=message):
        rw.evaluate({"q": {"a": 1}}, run, ["P@1"])


@needs_c
def test_bad_grades_are_refused_before_the_run_is_read() -> None:
    with pytest.raises(InputFormatError, match=r"query .q., document .a.: grade must be a number"):
        rw.evaluate({"q": {"a": "1"}}, {"q": {"a": float("nan")}}, ["P@1"])


@needs_c
def test_integer_query_ids_keep_their_type() -> None:
    results = rw.evaluate({3: {"a": 1}, 20: {"b": 1}}, {20: {"b": 1.0}, 3: {"c": 2.0}}, ["P@1"])
    assert results.query_ids == [3, 20]
    assert results.to_dict() == {"P@1": {3: 0.0, 20: 1.0}}


@needs_c
def test_numpy_numbers_and_dict_subclasses_are_read() -> None:
    from collections import OrderedDict

    qrels = {"q": {"a": np.int64(2), "b": 1}}
    run = OrderedDict(q={"a": np.float32(0.5), "b": np.float64(0.5), "c": 1})
    assert fused_is_taken(qrels, run)
    same_results(rw.evaluate(qrels, run, MEASURES), general_path(qrels, run, MEASURES))


pytrec_eval = pytest.importorskip("pytrec_eval")

# bpref is left out: pytrec_eval 0.5's bpref reads memory its previous evaluate() freed
# (valgrind: te_calc_bpref, m_bpref.c:50, a block freed by te_form_res_rels_cleanup), which
# crashed this test now and then; it is checked against trec_eval's own outputs instead
PYTREC = {"map": "map", "P@3": "P_3", "ndcg@10(gain=linear)": "ndcg_cut_10", "mrr": "recip_rank",
          "recall@5": "recall_5", "num_rel_ret": "num_rel_ret", "Rprec": "Rprec"}


@needs_c
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dict_collections(int_ids=False))
def test_the_one_pass_gives_pytrec_evals_numbers(data: tuple) -> None:
    qrels, run = data
    assert fused_is_taken(qrels, run)
    # pytrec_eval crashes on empty entries (rankwise reads them as absent): left out
    qrels = {query: judged for query, judged in qrels.items() if judged}
    run = {query: ranking for query, ranking in run.items() if ranking}
    assume(any(query in qrels for query in run))
    results = rw.evaluate(qrels, run, list(PYTREC))
    ours = {query: {name: float(results[name][i]) for name in PYTREC}
            for i, query in enumerate(results.query_ids)}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values())).evaluate(run)
    assert set(ours) == set(theirs)
    for query, values in theirs.items():
        for name, key in PYTREC.items():
            assert ours[query][name] == pytest.approx(values[key], abs=1e-12), (query, name)


def large_collection(seed: int, n_queries: int = 1300, n_docs: int = 1000) -> tuple[dict, dict]:
    """A run of ~500 documents a query (the C reader's ranking thread starts from 65,536
    documents, in batches of a sixteenth of them, 4,096 to 32,768): ties, unjudged
    queries, judged documents retrieved or not, queries of the run in random order."""
    rng = np.random.default_rng(seed)
    run: dict = {}
    qrels: dict = {}
    for q in rng.permutation(n_queries).tolist():
        docs = [f"d{d}" for d in rng.choice(10 * n_docs, int(rng.integers(1, n_docs)),
                                              replace=False).tolist()]
        run[f"q{q}"] = dict(zip(docs, (rng.integers(0, 40, len(docs)) / 8).tolist()))
        if q % 7:  # every seventh query is not judged
            judged = docs[: int(rng.integers(0, 30))] + [f"x{i}" for i in range(q % 5)]
            qrels[f"q{q}"] = dict(zip(judged, rng.integers(-1, 4, len(judged)).tolist()))
    qrels["only judged"] = {"d1": 1}
    assert sum(map(len, run.values())) >= 1 << 16  # the ranking thread is started
    return qrels, run


def raw_ranks(qrels: dict, run: dict, threads: int, budget: int | None = None) -> Any:
    """What the C function gives for the dicts, with *threads*."""
    from rankwise.data._dicts import ID_TYPES, NUMBER_TYPES

    judgments = as_qrels(qrels)
    grouped = _counted.judgments_by_query(judgments)
    assert grouped is not None
    per_row, base = (_counted.TIE_BUDGET_PER_ROW, _counted.TIE_BUDGET_BASE) if budget is None \
        else (0, budget)
    read = load("rankwise.ranking._cdict").run_dict_ranks(
        run, ID_TYPES, NUMBER_TYPES, list(judgments.query_ids), grouped.query_offsets,
        grouped.judgments, grouped.judged_doc, grouped.ids.offsets, grouped.ids.data,
        per_row, base, threads)
    return None if read is None else (read[0], [bytes(block) for block in read[1:]])


@needs_c
@pytest.mark.parametrize(("seed", "n_queries"), [(0, 1300), (1, 1300), (2, 160), (3, 160)])
def test_the_ranking_thread_ranks_as_one_thread_and_as_the_general_path(
    seed: int, n_queries: int
) -> None:
    qrels, run = large_collection(seed, n_queries)  # batches of 32,768, or of ~5,000
    alone = raw_ranks(qrels, run, threads=1)
    assert alone is not None and raw_ranks(qrels, run, threads=2) == alone
    for options in ({}, {"depth": 50}, {"missing": "zero", "ties": "average"}):
        measures = TIED_MEASURES if "ties" in options else MEASURES
        same_results(rw.evaluate(qrels, run, measures, **options),
                     general_path(qrels, run, measures, **options))


@needs_c
def test_ties_past_the_budget_in_the_ranking_thread_decline() -> None:
    qrels, run = large_collection(7)
    assert raw_ranks(qrels, run, threads=1, budget=0) is None
    assert raw_ranks(qrels, run, threads=2, budget=0) is None
    assert raw_ranks(qrels, run, threads=2, budget=10**9) == raw_ranks(qrels, run, threads=1)


def _with(run: dict, first: dict | None = None, last: dict | None = None) -> dict:
    """*run* with entries put before all of its own (*first*) and after them (*last*)."""
    return {**(first or {}), **run, **(last or {})}


SECOND_HALF_CASES = {
    "non-ASCII documents": {"q_late": {"d\u00e91": 1.0, "d2": 0.5, "d3": 0.5}},
    "integer scores": {"q_late": {"d1": 3, "d2": 1, "d3": 2}},
    "integer documents": {"q_late": {1: 0.3, 2: 0.9, 3: 0.9}},
    "a non-ASCII query": {"q\u00e9": {"d1": 0.2, "d2": 0.5}},
    "an integer query": {12345: {"d1": 0.2, "d2": 0.5}},
    "a str subclass": {"q_late": {type("Doc", (str,), {})("d1"): 0.1, "d2": 0.5}},
}


@needs_c
@pytest.mark.parametrize("case", sorted(SECOND_HALF_CASES))
def test_what_the_second_reader_does_not_read_is_read_by_the_first(case: str) -> None:
    """The second thread reads the run's second half; on a key or score it cannot read
    without the GIL it stops, and the GIL holder reads that half itself."""
    qrels, run = large_collection(11, 400)
    late = SECOND_HALF_CASES[case]
    for query, docs in late.items():
        qrels[query] = {doc: 1 for doc in list(docs)[:2]}
    run = _with(run, last=late)
    alone = raw_ranks(qrels, run, threads=1)  # None: the general path (keys of a subclass)
    assert (alone is None) == (case == "a str subclass")
    assert raw_ranks(qrels, run, threads=2) == alone
    same_results(rw.evaluate(qrels, run, MEASURES), general_path(qrels, run, MEASURES))


@needs_c
def test_python_code_run_in_the_first_half_voids_the_second_readers_work() -> None:
    """A key whose reading may run Python code (a str subclass) in the first half: the
    GIL holder waits for the second thread first, then reads the second half itself
    (what the second thread read may have changed since)."""
    qrels, run = large_collection(12, 400)
    early = {"q_early": {type("Doc", (str,), {})("d1"): 0.4, "d2": 0.5}}
    qrels["q_early"] = {"d1": 2, "d2": 1}
    first = next(iter(run))  # the second entry: the first looks plain, so the half starts
    run = _with(run, first={first: run[first], **early})
    alone = raw_ranks(qrels, run, threads=1)
    assert alone is None and raw_ranks(qrels, run, threads=2) is None
    same_results(rw.evaluate(qrels, run, MEASURES), general_path(qrels, run, MEASURES))


@needs_c
def test_a_query_id_in_both_halves_as_int_and_str_is_refused_on_the_general_path() -> None:
    qrels, run = large_collection(13, 400)
    run = _with(run, first={5: {"d1": 0.5}}, last={"5": {"d2": 0.5}})
    assert raw_ranks(qrels, run, threads=1) is None
    assert raw_ranks(qrels, run, threads=2) is None
    with pytest.raises(InputFormatError, match="query keys 5 and '5' are the same query"):
        rw.evaluate(qrels, run, MEASURES)


@needs_c
def test_a_run_whose_last_query_holds_half_its_documents_is_ranked_by_the_pipeline() -> None:
    """No second half to read (the entry that passes half the documents is the last):
    the second thread ranks the batches the GIL holder reads instead."""
    qrels, run = large_collection(14, 140)
    big = {f"b{i}": float(i % 97) / 8 for i in range(sum(map(len, run.values())) + 10)}
    qrels["q_big"] = {"b1": 1, "b50": 2, "b96": 1, "nowhere": 1}
    run = _with(run, last={"q_big": big})
    alone = raw_ranks(qrels, run, threads=1)
    assert alone is not None and raw_ranks(qrels, run, threads=2) == alone
    same_results(rw.evaluate(qrels, run, MEASURES), general_path(qrels, run, MEASURES))


@needs_c
def test_a_run_of_integer_ids_is_ranked_by_the_pipeline() -> None:
    """Integer ids are not read by the second reader: the run keeps the batch pipeline."""
    qrels, run = large_collection(15, 300)
    number = {name: i for i, name in enumerate(sorted(set(run) | set(qrels)))}
    docs = {d for ranking in run.values() for d in ranking} | {
        d for judged in qrels.values() for d in judged}
    doc_number = {name: i for i, name in enumerate(sorted(docs))}
    run = {number[q]: {doc_number[d]: s for d, s in r.items()} for q, r in run.items()}
    qrels = {number[q]: {doc_number[d]: g for d, g in j.items()} for q, j in qrels.items()}
    alone = raw_ranks(qrels, run, threads=1)
    assert alone is not None and raw_ranks(qrels, run, threads=2) == alone
    same_results(rw.evaluate(qrels, run, MEASURES), general_path(qrels, run, MEASURES))


@needs_c
def test_empty_rankings_in_both_halves_are_queries_with_nothing_retrieved() -> None:
    """Empty entries, judged or not, first, at the split and in the second thread's half:
    each is a query of the run with nothing retrieved (num_ret 0), as pytrec_eval says."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = large_collection(16, 400)
    names = list(run)
    half = len(names) // 2
    emptied = [names[0], names[half - 1], names[half], names[half + 1], names[-1]]
    emptied += names[half + 5 : half + 40 : 7]
    for query in emptied:
        run[query] = {}
    run = _with(run, first={"empty first": {}}, last={"empty last": {}})
    qrels["empty last"] = {"d1": 1}
    alone = raw_ranks(qrels, run, threads=1)
    assert alone is not None and raw_ranks(qrels, run, threads=2) == alone
    fused = rw.evaluate(qrels, run, MEASURES)
    same_results(fused, general_path(qrels, run, MEASURES))
    judged_empty = [q for q in [*emptied, "empty last"] if q in qrels]
    assert len(judged_empty) >= 4
    want = pytrec_eval.RelevanceEvaluator(
        {q: qrels[q] for q in judged_empty}, {"num_ret", "map", "ndcg_cut.10"}
    ).evaluate({q: run[q] for q in judged_empty})
    rows = [fused.query_ids.index(q) for q in judged_empty]
    assert fused["num_ret"][rows].tolist() == [want[q]["num_ret"] for q in judged_empty]
    assert fused["map"][rows].tolist() == [want[q]["map"] for q in judged_empty]
    assert not fused["map"][rows].any()
    assert fused.missing_queries == sum(q not in run for q in qrels)
