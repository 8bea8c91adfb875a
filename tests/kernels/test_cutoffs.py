"""Many cutoffs in one pass (``CUTOFF_KERNELS``): bit for bit the one-cutoff kernels' numbers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import collections, random_collection

import rankwise as rw
from rankwise.engines import core
from rankwise.io import as_qrels, as_run
from rankwise.kernels import CUTOFF_KERNELS, KERNELS, Context
from rankwise.kernels._segments import per_query_sum, sums_through_cutoffs
from rankwise.measures import parse
from rankwise.ranking.rank import rank_all_ties

TEMPLATES = ["ndcg", "ndcg(gain=linear)", "ndcg(gains=1=0.5;3=-2)", "dcg",
             "dcg(gain=linear)", "P", "P(rel=2)", "recall", "recall(rel=3)", "hit", "hit(rel=2)"]
CUTOFFS = np.array([1, 2, 3, 5, 7, 10, 20, 1000, 4, 2**40])


def contexts(qrels: dict, run: dict, depth: int | None):
    ranking = rank_all_ties(as_qrels(qrels), as_run(run), depth=depth, missing="zero",
                            judged_only=False, by_rank=False)
    for ties in ("trec", "worst", "best"):
        yield ties, Context(ranking.view(ties))


def check_bitwise(qrels: dict, run: dict, depth: int | None) -> None:
    for ties, context in contexts(qrels, run, depth):
        for text in TEMPLATES:
            template = parse(f"{text.split('(')[0]}@1" + text[len(text.split("(")[0]):])
            template = template.replace(cutoff=None)
            rows = CUTOFF_KERNELS[template.name](context, template, CUTOFFS)
            assert rows.shape == (len(CUTOFFS), context.n_queries)
            for k, row in zip(CUTOFFS, rows):
                measure = template.replace(cutoff=int(k))
                expected = KERNELS[measure.name](context, measure)
                # the same bits, not merely close: tobytes compares every bit
                assert row.tobytes() == expected.tobytes(), (ties, str(measure), row, expected)


def test_every_family_with_cutoffs_has_a_one_pass_kernel_or_none() -> None:
    # the curves of the report (ndcg, P, recall) are computed in one pass
    assert {"ndcg", "P", "recall"} <= set(CUTOFF_KERNELS)
    assert set(CUTOFF_KERNELS) <= set(KERNELS)


@settings(max_examples=150, deadline=None)
@given(collections(), st.sampled_from([None, 1, 3, 6]))
def test_one_pass_matches_one_cutoff_bit_for_bit(data, depth) -> None:
    qrels, run = data
    check_bitwise(qrels, run, depth)


@pytest.mark.parametrize("seed", range(12))
def test_one_pass_matches_on_random_collections(seed: int) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    check_bitwise(qrels, run, None)


def test_many_queries_in_several_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # a small block limit makes the running sums go through many slices of queries
    from rankwise.kernels import _segments

    monkeypatch.setattr(_segments, "_DENSE_LIMIT", 7)
    rng = np.random.default_rng(5)
    qrels, run = {}, {}
    for q in range(40):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 30)))]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in docs}
        run[f"q{q}"] = {d: float(rng.integers(0, 8)) for d in docs if rng.random() < 0.8} \
            or {"x": 1.0}
    check_bitwise(qrels, run, None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 12),
                          st.floats(-1e3, 1e3, allow_nan=False)), max_size=30),
       st.lists(st.integers(1, 15), min_size=1, max_size=6))
def test_sums_through_cutoffs_is_per_query_sum(entries, cutoffs) -> None:
    entries = sorted({(q, r): w for q, r, w in entries}.items())  # one entry per (query, rank)
    query = np.array([q for (q, _), _ in entries], dtype=np.int64)
    rank = np.array([r for (_, r), _ in entries], dtype=np.int64)
    weight = np.array([w for _, w in entries], dtype=np.float64)
    got = sums_through_cutoffs(query, rank, weight, 5, np.array(cutoffs))
    counts = sums_through_cutoffs(query, rank, None, 5, np.array(cutoffs))
    for k, row, count in zip(cutoffs, got, counts):
        top = rank <= k
        assert row.tobytes() == per_query_sum(query[top], weight[top], 5).tobytes()
        assert count.tobytes() == per_query_sum(query[top], None, 5).tobytes()


def test_evaluate_uses_one_pass_and_matches_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, run = random_collection(3, ties=True)
    measures = [f"ndcg@{k}" for k in range(1, 30)] + [f"P@{k}" for k in range(1, 30)] + ["map"]
    calls: list[str] = []
    original = dict(CUTOFF_KERNELS)
    for name, kernel in original.items():
        def spy(context, measure, cutoffs, _kernel=kernel, _name=name):
            calls.append(_name)
            return _kernel(context, measure, cutoffs)
        monkeypatch.setitem(CUTOFF_KERNELS, name, spy)
    together = rw.evaluate(qrels, run, measures, ties="trec")
    assert sorted(calls) == ["P", "ndcg"]  # the values; the tie report waits until asked
    assert together.ties.policy == "trec"
    # then twice more for the tie report's bounds (worst and best orders)
    assert sorted(calls) == ["P"] * 3 + ["ndcg"] * 3
    assert core.MIN_CUTOFFS_AT_ONCE == 2
    for text in measures:
        alone = rw.evaluate(qrels, run, [text], ties="trec")
        assert together[text].tobytes() == alone[text].tobytes()
        assert together.ties.bounds[text] == alone.ties.bounds[text]
    assert together.ties.queries_straddling_cutoff >= \
        rw.evaluate(qrels, run, ["ndcg@5"]).ties.queries_straddling_cutoff


@pytest.mark.parametrize("ties", ["average", "rank"])
def test_other_tie_policies_give_the_same_values_together(ties: str, tmp_path) -> None:
    qrels, run = random_collection(8, ties=True)
    path = tmp_path / "run.trec"  # ranks that disagree with the scores, some repeated
    rng = np.random.default_rng(0)
    path.write_text("".join(
        f"{q} Q0 {d} {int(rng.integers(1, 30))} {s} r\n"
        for q, docs in run.items() for d, s in docs.items()
    ))
    measures = [f"recall@{k}" for k in range(1, 12)] + [f"ndcg@{k}" for k in (1, 3, 10)]
    together = rw.evaluate(qrels, path, measures, ties=ties)
    for text in measures:
        alone = rw.evaluate(qrels, path, [text], ties=ties)
        assert together[text].tobytes() == alone[text].tobytes()


# the tie report's bounds, computed on the queries with ties only, are those of the whole

def _every_family() -> list[str]:
    from rankwise.measures import FAMILIES

    texts = []
    for name in KERNELS:
        cutoff = FAMILIES[name].cutoff
        texts.append(f"{name}@3" if cutoff != "none" else name)
        if cutoff == "optional":
            texts.append(name)
    curves = [f"{family}@{k}{params}"
              for family, params in (("ndcg", ""), ("P", ""), ("recall", ""), ("hit", ""),
                                     ("dcg", ""), ("ndcg", "(gain=linear)"), ("P", "(rel=2)"))
              for k in (1, 2, 4, 9)]  # computed in one pass (and their bounds on tied queries)
    return texts + curves + ["iprec_at_recall(recall=0.5)"]


BOUND_MEASURES = _every_family()


def full_bounds(qrels: dict, run: dict, measures: list, depth: int | None) -> dict:
    from rankwise.results import aggregate

    ranking = rank_all_ties(as_qrels(qrels), as_run(run), depth=depth, missing="zero",
                            judged_only=False, by_rank=False)
    out = {}
    for text in measures:
        measure = parse(text)
        if measure.family.text_valued or measure.name not in KERNELS:
            continue
        low = KERNELS[measure.name](Context(ranking.view("worst")), measure)
        high = KERNELS[measure.name](Context(ranking.view("best")), measure)
        out[str(measure)] = (aggregate(measure, low), aggregate(measure, high))
    return out


@settings(max_examples=120, deadline=None)
@given(collections(), st.sampled_from([None, 1, 2, 5]), st.sampled_from(["trec", "worst",
                                                                         "best"]))
def test_tie_bounds_from_the_tied_queries_only(data, depth, ties) -> None:
    qrels, run = data
    measures = BOUND_MEASURES
    results = rw.evaluate(qrels, run, measures, depth=depth, missing="zero", ties=ties)
    expected = full_bounds(qrels, run, [str(m) for m in results.measures], depth)
    if not results.ties.bounds:  # no tie at all
        assert all(low == high for low, high in expected.values()) or not expected
        return
    assert set(results.ties.bounds) == set(expected)
    for name, (low, high) in expected.items():
        got = results.ties.bounds[name]
        assert np.array_equal(np.array(got), np.array((low, high)), equal_nan=True), name
