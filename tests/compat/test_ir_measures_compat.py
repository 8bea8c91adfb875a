"""ir_measures' ``Compat`` (its compat provider) read and computed by rankwise.

ir_measures 0.4.3's Compat(p=0.95, normalize=True) is the reference
implementation's compatibility with two changes: the overlap goes to depth
max(len(ranking), len(ideal)) per query (the reference: 1000), and equal grades
in the ideal are ordered by the run's score (unretrieved documents at 0.0, then
the judgments' order) instead of retrieved-first. rankwise's
``compat(depth=run,ideal=score)`` is that; ir_measures itself is the reference here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from strategies import random_collection

import rankwise as rw
from rankwise.compat import ir_measures as drop_in

irm = pytest.importorskip("ir_measures")

DATA = Path(__file__).parents[1] / "data" / "compat"


def variants() -> list:
    return [irm.Compat, irm.Compat(p=0.8), irm.Compat(p=0.5, normalize=False),
            irm.Compat(normalize=False), irm.Compat(p=0.99)]


def collection(seed: int, ties: bool) -> tuple[dict, dict]:
    """Random judgments listed in document id order, and a run with negative scores and
    none of 0.0 (ir_measures orders an ideal's equal scores by the judgments' order, and
    puts a retrieved document of score 0.0 among the unretrieved ones)."""
    qrels, run = random_collection(seed, ties=False)
    rng = np.random.default_rng(seed)
    for docs in run.values():
        values = (rng.integers(0, 6, len(docs)) - 2.5) / 4 if ties else \
            (rng.permutation(len(docs)) - len(docs) / 2 - 0.5) / 8
        for doc, value in zip(list(docs), values):
            docs[doc] = float(value)
    return {q: dict(sorted(docs.items())) for q, docs in qrels.items()}, run


@pytest.mark.parametrize("seed", range(24))
def test_values_are_ir_measures_values(seed: int) -> None:
    qrels, run = collection(seed, ties=seed % 2 == 1)
    for measure in variants():
        want = {m.query_id: m.value for m in irm.iter_calc([measure], qrels, run)}
        assert want
        results = rw.evaluate(qrels, run, [repr(measure)], ties="ascending")
        got = dict(zip(results.query_ids, results[repr(measure)].tolist()))
        assert set(got) <= set(want) and len(got) >= 2
        for query, value in want.items():  # ir_measures: 0 for a judged query not retrieved
            assert got.get(query, 0.0) == pytest.approx(value, abs=1e-12), (repr(measure), query)
        aggregate = drop_in.calc_aggregate([measure], qrels, run)[measure]
        assert aggregate == pytest.approx(irm.calc_aggregate([measure], qrels, run)[measure],
                                          abs=1e-12)


def test_negative_scores_put_unretrieved_documents_first() -> None:
    # grade 1: a (retrieved, score -1) and b (unretrieved): ir_measures' ideal is b, a
    qrels, run = {"q": {"a": 1, "b": 1}}, {"q": {"a": -1.0, "x": -2.0}}
    want = irm.calc_aggregate([irm.Compat(p=0.5)], qrels, run)[irm.Compat(p=0.5)]
    # depth 2: run a, x; ideal b, a: overlap 0 at 1, {a} at 2; ideal-ideal 1 + 2/2 * 0.5
    assert want == pytest.approx((0.5 * 1 / 2) / (1 + 0.5))
    assert rw.evaluate(qrels, run, ["Compat(p=0.5)"]).mean["compat(depth=run,ideal=score,p=0.5)"] \
        == pytest.approx(want, abs=1e-15)
    # the reference's ideal is a, b: a's overlap counts from depth 1
    assert rw.evaluate(qrels, run, ["compat(p=0.5,depth=2)"]).mean["compat(depth=2,p=0.5)"] \
        == pytest.approx((1 + 0.5 * 1 / 2) / (1 + 0.5))


def test_ir_measures_test_data() -> None:
    # ir_measures' tests/test_compat.py: aggregate 0.268097611 at p = 0.95
    qrels = rw.read_qrels(DATA / "compat.qrels")
    run = rw.read_run(DATA / "compat.run")
    results = rw.evaluate(qrels, run, ["Compat", "Compat(p=0.8)"], ties="ascending")
    assert results.mean["compat(depth=run,ideal=score)"] == pytest.approx(0.268097611, abs=1e-9)
    irm_qrels = list(irm.read_trec_qrels(str(DATA / "compat.qrels")))
    irm_run = list(irm.read_trec_run(str(DATA / "compat.run")))
    for measure in (irm.Compat, irm.Compat(p=0.8)):
        want = {m.query_id: m.value for m in irm.iter_calc([measure], irm_qrels, irm_run)}
        for query, value in want.items():
            assert results.value(repr(measure), query) == pytest.approx(value, abs=1e-12)
    drop = drop_in.calc_aggregate([irm.Compat], qrels, run)[irm.Compat]
    assert drop == pytest.approx(0.268097611, abs=1e-9)


def test_names() -> None:
    assert str(rw.parse("Compat")) == "compat(depth=run,ideal=score)"
    assert str(rw.parse("Compat(p=0.8,normalize=False)")) == \
        "compat(depth=run,ideal=score,normalize=false,p=0.8)"
    # rankwise's own spelling keeps the reference's meaning
    assert str(rw.parse("compat(p=0.8)")) == "compat(p=0.8)"
