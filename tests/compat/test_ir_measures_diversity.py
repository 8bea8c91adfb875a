"""ir_measures' intent-aware measures (its pyndeval provider) read and computed by rankwise.

ir_measures 0.4.3 computes ``ERR_IA``, ``nERR_IA``, ``alpha_DCG``, ``alpha_nDCG``,
``NRBP``, ``nNRBP``, ``AP_IA``, ``P_IA`` and ``StRecall`` with pyndeval (ndeval.c),
the subtopic taken from the judgments' ``iteration`` field, tied scores ordered by
document id ascending. Here ir_measures itself (with pyndeval) is the reference,
on random subtopic judgments and runs with and without tied scores, one measure per
call: ir_measures 0.4.3 gives 0 for every query to a measure that needs a second
pyndeval invocation in the same call (its run iterator is consumed by the first).
``judged_only=True`` fails in ir_measures 0.4.3 (TypeError: its provider indexes a
generator); its meaning, the run without its unjudged documents, is checked by
handing ir_measures that run.
"""

from __future__ import annotations

import math

import pytest
from strategies import diversity_collection

import rankwise as rw
from rankwise.compat import ir_measures as drop_in

irm = pytest.importorskip("ir_measures")
pytest.importorskip("pyndeval")


def measures() -> list:
    return [
        irm.ERR_IA @ 5, irm.ERR_IA(rel=2) @ 10, irm.ERR_IA @ 20, irm.nERR_IA @ 3,
        irm.nERR_IA(rel=2) @ 20, irm.alpha_DCG @ 5, irm.alpha_DCG(alpha=0.3) @ 10,
        irm.alpha_nDCG @ 20, irm.alpha_nDCG(alpha=0.7, rel=2) @ 5, irm.NRBP,
        irm.NRBP(alpha=0.25, beta=0.75), irm.nNRBP, irm.nNRBP(beta=0.8, rel=2), irm.AP_IA,
        irm.MAP_IA(rel=2), irm.P_IA @ 5, irm.P_IA(rel=2) @ 20, irm.StRecall @ 2,
        irm.StRecall(rel=2) @ 10,
    ]


def qrels_rows(qrels: dict) -> list:
    """ir_measures' Qrel tuples, subtopic in ``iteration``, listed by subtopic: pyndeval
    numbers subtopics by first appearance, the order it sums a document's gains in."""
    rows = [irm.Qrel(q, d, g, t) for q, topics in qrels.items() for t, docs in topics.items()
            for d, g in docs.items()]
    return sorted(rows, key=lambda row: int(row.iteration))


def judged_run(qrels: dict, run: dict) -> dict:
    judged = {(q, d) for q, topics in qrels.items() for docs in topics.values() for d in docs}
    return {q: {d: s for d, s in docs.items() if (q, d) in judged} for q, docs in run.items()}


def reference(measure, qrels: list, run: dict, *, nan: bool = False) -> dict:
    """ir_measures' per-query values of one measure (pyndeval's nan for nNRBP: 0, rankwise's
    nnrbp without a relevant document; kept with *nan*, as the drop-in gives it)."""
    out = {}
    for metric in irm.iter_calc([measure], qrels, run):
        out[metric.query_id] = 0.0 if math.isnan(metric.value) and not nan else metric.value
    return out


@pytest.mark.parametrize("seed", range(16))
def test_values_are_ir_measures_values(seed: int) -> None:
    qrels, run = diversity_collection(seed, ties=seed % 2 == 0, negative=seed % 4 == 1)
    rows = qrels_rows(qrels)
    got = {(m.query_id, m.measure): m.value for m in drop_in.iter_calc(measures(), rows, run)}
    checked = 0
    for measure in measures():
        want = reference(measure, rows, run)
        assert want, measure
        for query, value in reference(measure, rows, run, nan=True).items():
            assert got[query, measure] == pytest.approx(value, abs=1e-12, nan_ok=True), (
                measure, query)
            checked += 1
        # the same through rw.parse of ir_measures' string, with pyndeval's tie order
        results = rw.evaluate(qrels, run, [repr(measure)], ties="ascending")
        for query, value in zip(results.query_ids, results[repr(measure)].tolist()):
            assert value == pytest.approx(want[query], abs=1e-12), (repr(measure), query)
    assert checked >= len(measures()) * 2


@pytest.mark.parametrize("seed", range(8))
def test_judged_only_is_the_run_without_unjudged_documents(seed: int) -> None:
    qrels, run = diversity_collection(seed, ties=seed % 2 == 1)
    rows = qrels_rows(qrels)
    with pytest.raises(TypeError):  # ir_measures 0.4.3's provider fails with judged_only
        list(irm.iter_calc([irm.ERR_IA(judged_only=True) @ 5], rows, run))
    only = judged_run(qrels, run)
    for measure in [irm.ERR_IA(judged_only=True) @ 5, irm.nERR_IA(judged_only=True) @ 10,
                    irm.alpha_nDCG(judged_only=True, alpha=0.25) @ 5,
                    irm.AP_IA(judged_only=True), irm.P_IA(judged_only=True, rel=2) @ 10]:
        plain = type(measure)(**{k: v for k, v in measure.params.items() if k != "judged_only"})
        want = reference(plain, rows, {q: docs for q, docs in only.items() if docs})
        got = {m.query_id: m.value for m in drop_in.iter_calc([measure], rows, run)}
        for query, value in want.items():
            assert got[query] == pytest.approx(value, abs=1e-12), (measure, query)


def test_aggregates_and_named_tuples_of_ir_datasets() -> None:
    qrels, run = diversity_collection(3, ties=True)
    rows = qrels_rows(qrels)
    plain = [m for m in measures() if m.NAME != "nNRBP"]  # pyndeval's nan without relevant docs
    want = {m: v for measure in plain for m, v in irm.calc_aggregate([measure], rows,
                                                                       run).items()}
    got = drop_in.calc_aggregate([*plain, irm.P @ 5], iter(rows), run)
    for measure in plain:
        assert got[measure] == pytest.approx(want[measure], abs=1e-12), measure
    # a plain measure in the same call reads each document's greatest grade
    collapsed: dict = {}
    for q, topics in qrels.items():
        for docs in topics.values():
            for d, g in docs.items():
                collapsed.setdefault(q, {})[d] = max(g, collapsed.get(q, {}).get(d, g))
    assert got[irm.P @ 5] == pytest.approx(drop_in.calc_aggregate([irm.P @ 5], collapsed,
                                                                   run)[irm.P @ 5])


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ERR_IA@20", "err_ia@20"), ("nERR_IA(rel=2)@5", "nerr_ia@5(rel=2)"),
        ("alpha_DCG(alpha=0.3)@10", "alpha_dcg@10(alpha=0.3)"), ("α_nDCG@20", "alpha_ndcg@20"),
        ("NRBP(beta=0.8)", "nrbp(beta=0.8)"), ("nNRBP(alpha=0.3,rel=2)", "nnrbp(alpha=0.3,rel=2)"),
        ("AP_IA", "ap_ia"), ("MAP_IA(rel=2)", "ap_ia(rel=2)"), ("P_IA@10", "p_ia@10"),
        ("StRecall@20", "strec@20"),
    ],
)
def test_ir_measures_names(text: str, canonical: str) -> None:
    assert str(rw.parse(text)) == canonical


def test_a_cutoff_is_needed_as_by_pyndeval_or_the_whole_ranking() -> None:
    with pytest.raises(ValueError):  # ir_measures 0.4.3: pyndeval reads 'ERR-IA@<object>'
        list(irm.iter_calc([irm.ERR_IA], [irm.Qrel("1", "a", 1, "0")], {"1": {"a": 1.0}}))
    with pytest.raises(rw.MeasureSyntaxError, match="needs a cutoff"):
        drop_in.calc_aggregate(["ERR_IA"], {"1": {"a": 1}}, {"1": {"a": 1.0}})
    # alpha_nDCG and nERR_IA without one (not computed by ir_measures): the whole ranking
    assert rw.parse("alpha_nDCG") == rw.parse(irm.alpha_nDCG) == rw.parse("alpha_ndcg")
    assert rw.parse(irm.nERR_IA(rel=2)) == rw.parse("nerr_ia(rel=2)")
