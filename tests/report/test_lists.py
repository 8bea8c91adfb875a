"""The ranked lists of the query explorer (issue 39): each run's first documents per query.

The truth: an independent sort of each run (score descending, docno
descending in bytes: trec_eval's order), the judgments' grades, and
pytrec_eval's P@20 and reciprocal rank, which a list to depth 20 must give.
"""

from __future__ import annotations

import numpy as np
import pytest
from strategies import random_collection

from rankwise.data import Qrels, Run
from rankwise.options import EvalOptions
from rankwise.report.lists import (
    TIED_ABOVE,
    TIED_BELOW,
    ListCollector,
    gather_lists,
    query_table,
    top_lists,
)


def trec_order(run: dict[str, float]) -> list[str]:
    """trec_eval's order, independently of rankwise: score down, then docno down (bytes)."""
    return sorted(run, key=lambda doc: (-run[doc], tuple(-b for b in doc.encode())))


def shown(lists: object, query: str) -> list[str]:
    names = lists.query_ids  # type: ignore[attr-defined]
    at = np.flatnonzero(lists.query == names.index(query))  # type: ignore[attr-defined]
    return [lists.docs[int(i)].as_py() for i in at]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("ties", [False, True])
def test_lists_are_the_runs_first_documents_in_trec_eval_order(seed: int, ties: bool) -> None:
    qrels, run = random_collection(seed, ties=ties)
    lists = top_lists(Qrels.from_dict(qrels), Run.from_dict(run), 7)
    for query, scored in run.items():
        expected = trec_order(scored)[:7]
        assert shown(lists, query) == expected
        at = np.flatnonzero(lists.query == lists.query_ids.index(query))
        assert lists.rank[at].tolist() == list(range(1, len(expected) + 1))
        assert lists.score[at].tolist() == [scored[d] for d in expected]
        judged = qrels.get(query, {})
        grades = [judged.get(d) for d in expected]
        assert [None if np.isnan(g) else g for g in lists.grade[at].tolist()] == grades
        order = [scored[d] for d in trec_order(scored)]
        for place, index in enumerate(at):  # ties with the neighbours, shown or not
            above = place > 0 and order[place - 1] == order[place]
            below = place + 1 < len(order) and order[place + 1] == order[place]
            assert bool(lists.ties[index] & TIED_ABOVE) == above
            assert bool(lists.ties[index] & TIED_BELOW) == below
        assert lists.retrieved[lists.query_ids.index(query)] == len(scored)


@pytest.mark.peers
@pytest.mark.parametrize("seed", range(8))
def test_lists_to_depth_20_give_pytrec_evals_precision_and_reciprocal_rank(seed: int) -> None:
    """P@20 is the share of relevant grades in the list; RR, 1 / the first relevant's rank."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_collection(seed, ties=True)
    lists = top_lists(Qrels.from_dict(qrels), Run.from_dict(run), 20)
    judged = {q: docs for q, docs in qrels.items() if q in run}
    reference = pytrec_eval.RelevanceEvaluator(judged, {"P_20", "recip_rank"}).evaluate(
        {q: run[q] for q in judged})
    compared = 0
    for query, values in reference.items():
        at = np.flatnonzero(lists.query == lists.query_ids.index(query))
        relevant = np.nan_to_num(lists.grade[at], nan=0.0) >= 1
        assert relevant.sum() / 20 == pytest.approx(values["P_20"], abs=1e-12)
        first = lists.rank[at][relevant]
        if len(first) or len(run[query]) <= 20:  # a first relevant past 20: not in the list
            rr = 1.0 / first[0] if len(first) else 0.0
            assert rr == pytest.approx(values["recip_rank"], abs=1e-12)
            compared += 1
        compared += 1
    assert compared >= len(reference)


def test_ties_rules_order_tied_documents_as_the_evaluation_does() -> None:
    qrels = Qrels.from_dict({"q": {"b": 0, "c": 2, "e": 1}})
    run = Run.from_dict({"q": {"a": 3.0, "b": 1.0, "c": 1.0, "d": 1.0, "e": 1.0, "f": 0.5}})
    orders = {ties: shown(top_lists(qrels, run, 6, EvalOptions(ties=ties)), "q")
              for ties in ("trec", "average", "ascending", "worst", "best")}
    assert orders["trec"] == orders["average"] == ["a", "e", "d", "c", "b", "f"]
    assert orders["ascending"] == ["a", "b", "c", "d", "e", "f"]
    # worst: unjudged first, then judged by grade up; best: judged by grade down first
    assert orders["worst"] == ["a", "d", "b", "e", "c", "f"]
    assert orders["best"] == ["a", "c", "e", "b", "d", "f"]


def test_the_cut_keeps_a_straddling_tie_group_whole_before_choosing() -> None:
    """best: the relevant document at trec rank 4 of a group that starts at rank 2 comes in."""
    qrels = Qrels.from_dict({"q": {"a": 3}})
    run = Run.from_dict({"q": {"z": 2.0, "y": 1.0, "x": 1.0, "a": 1.0}})
    assert shown(top_lists(qrels, run, 2, EvalOptions(ties="trec")), "q") == ["z", "y"]
    best = top_lists(qrels, run, 2, EvalOptions(ties="best"))
    assert shown(best, "q") == ["z", "a"]
    assert best.ties.tolist() == [0, TIED_BELOW]  # tied with the documents below the cut


def test_rank_column_depth_judged_only_and_self_documents() -> None:
    import pyarrow as pa

    qrels = Qrels.from_dict({"q": {"a": 1, "c": 0, "q": 1, "d": -1}})
    run = Run.from_arrow(pa.array(["q"] * 5), pa.array(["a", "b", "c", "q", "d"]),
                         pa.array([1.0, 5.0, 3.0, 4.0, 2.0]), ranks=pa.array(
                             ["5", "1", "2", "3", "4"]))
    assert shown(top_lists(qrels, run, 9), "q") == ["b", "q", "c", "d", "a"]
    assert shown(top_lists(qrels, run, 9, EvalOptions(ties="rank")), "q") == \
        ["b", "c", "q", "d", "a"]
    assert shown(top_lists(qrels, run, 9, EvalOptions(depth=2)), "q") == ["b", "q"]
    assert shown(top_lists(qrels, run, 9, EvalOptions(exclude_self=True)), "q") == \
        ["b", "c", "d", "a"]
    # -J: judged documents only, negative grades out; with -M 3 the cut comes first
    assert shown(top_lists(qrels, run, 9, EvalOptions(judged_only=True)), "q") == \
        ["q", "c", "a"]
    assert shown(top_lists(qrels, run, 9, EvalOptions(judged_only=True, depth=3)), "q") == \
        ["q", "c"]


def test_relevant_documents_are_found_at_any_depth() -> None:
    qrels = Qrels.from_dict({"q": {"a": 2, "b": 1, "n": 1, "x": 0}})
    run = Run.from_dict({"q": {d: float(10 - i) for i, d in enumerate("pqrstab")}})
    lists = top_lists(qrels, run, 3)
    assert shown(lists, "q") == ["p", "q", "r"]
    found = dict(zip(lists.found_docs.to_pylist(), lists.found_rank.tolist()))
    assert found == {"a": 6, "b": 7}  # "n" was not retrieved; "x" is not relevant
    level = top_lists(qrels, run, 3, EvalOptions(rel=2))
    assert level.found_docs.to_pylist() == ["a"]


def test_gathered_lists_align_on_the_reports_queries() -> None:
    """A run whose queries come in another order than the report's table keeps its lists."""
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"c": 2}, "q3": {"e": 1}})
    first = top_lists(qrels, Run.from_dict({"q3": {"e": 1.0}, "q1": {"b": 2.0, "a": 1.0}}), 5)
    second = top_lists(qrels, Run.from_dict({"q2": {"c": 3.0}, "q1": {"a": 3.0}}), 5)
    lists = gather_lists(["q1", "q2", "q3"], {"x": first, "y": second, "z": None}, qrels, 5)
    docs = lists.doc_ids.to_pylist()

    def listed(system: int, query: int) -> list[str]:
        return [docs[i] for i in lists.doc[lists.entries(system, query)]]

    assert [listed(0, q) for q in range(3)] == [["b", "a"], [], ["e"]]
    assert [listed(1, q) for q in range(3)] == [["a"], ["c"], []]
    assert [listed(2, q) for q in range(3)] == [[], [], []]
    assert lists.retrieved.tolist() == [[2, 0, 1], [1, 1, 0], [-1, -1, -1]]
    assert lists.has_lists.tolist() == [True, True, False]
    # each query's documents sit together in the shared table, first seen first
    assert docs == ["b", "a", "c", "e"]
    relevant = [docs[i] for i in lists.relevant_doc]
    assert relevant == ["a", "c", "e"]
    assert lists.relevant_rank.tolist() == [[2, 1, -1], [0, 1, -1], [1, 0, -1]]


def test_the_collector_keeps_one_runs_lists_at_a_time(trec_files: dict) -> None:
    from rankwise.evaluation import evaluate_runs

    collector = ListCollector(10, EvalOptions())
    runs = [trec_files["standard"], trec_files["noisy"]]
    results = evaluate_runs(trec_files["qrels"], runs, ["P@10"], each_run=collector)
    assert sorted(collector.lists) == [0, 1]
    fields = collector.finish(results, {name: i for i, name in enumerate(results)}, None, None)
    lists = fields["lists"]
    assert lists.systems == list(results) and fields["topics"] is None
    assert collector.lists == {}  # handed over
    # P@10 from the lists' grades, as evaluated
    for s, name in enumerate(results):
        for q, query in enumerate(query_table(results)):
            grades = np.nan_to_num(lists.grade[lists.entries(s, q)], nan=0.0)
            position = list(map(str, results[name].query_ids)).index(query)
            assert (grades >= 1).sum() / 10 == results[name]["P@10"][position]
