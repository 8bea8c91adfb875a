"""An unknown measure is answered in the caller's language (issue 33, item 21).

The ir_measures drop-in suggested rankwise's names for ir_measures' typos (``nDGC@10``:
``ndcg@10``, which is rankwise's nDCG with the gain 2^grade - 1, not ir_measures' nDCG). Each
suggestion is now in the language the name was written in, and the proof is the reference tool:
ir_measures reads what the ir_measures drop-in suggests, pytrec_eval reads what the pytrec_eval
drop-in and ``rankwise trec-eval`` suggest, and the suggested measure gives the tool's value.
"""

from __future__ import annotations

import re

import pytest

import rankwise as rw
from rankwise.cli.app import main
from rankwise.compat import ir_measures as ir_drop_in
from rankwise.compat import pytrec_eval as pytrec_drop_in
from rankwise.exceptions import UnknownMeasureError

QRELS = {"q1": {"a": 3, "b": 0, "c": 1, "d": 2}, "q2": {"e": 1, "f": 2, "g": 0}}
RUN = {"q1": {"a": 0.2, "b": 0.9, "c": 0.7, "d": 0.1, "x": 0.5},
       "q2": {"e": 0.3, "f": 0.8, "g": 0.6, "y": 0.4}}


def _suggested(message: str) -> str:
    found = re.search(r"did you mean (['\"])(.+?)\1\?", message)  # repr's quotes
    assert found is not None, message
    return found[2]


@pytest.mark.parametrize(("typo", "meant"), [
    ("nDGC@10", "nDCG@10"), ("ndgc@10", "nDCG@10"), ("NDGC@3", "NDCG@3"),
    ("Precison@5", "Precision@5"), ("Sucess@1", "Success@1"), ("MPA", "MAP"),
    ("Judgd@10", "Judged@10"), ("Sucess(rel=2)@2", "Success(rel=2)@2"),
])
def test_the_ir_measures_drop_in_suggests_ir_measures_names(typo: str, meant: str) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    with pytest.raises(UnknownMeasureError) as caught:
        ir_drop_in.calc_aggregate([typo], QRELS, RUN)
    suggested = _suggested(str(caught.value))
    assert suggested == meant
    measure = ir_measures.parse_measure(suggested)  # ir_measures reads it
    theirs = ir_measures.calc_aggregate([measure], QRELS, RUN)[measure]
    assert ir_drop_in.calc_aggregate([suggested], QRELS, RUN)[suggested] == pytest.approx(
        theirs, abs=1e-12)


def test_the_ir_measures_drop_in_never_suggests_another_language() -> None:
    with pytest.raises(UnknownMeasureError) as caught:
        ir_drop_in.calc_aggregate(["RecipRank"], QRELS, RUN)  # nothing near in ir_measures'
    assert "did you mean" not in str(caught.value)
    assert "not one of ir_measures' names" in str(caught.value)


def test_an_ir_measures_style_string_gets_ir_measures_name_elsewhere_too() -> None:
    """rw.evaluate reads ir_measures' names: nDGC@10 is answered with nDCG@10 (ir_measures'
    nDCG, the grade as gain), ndgc@10 with rankwise's ndcg@10."""
    ir_measures = pytest.importorskip("ir_measures")
    for typo, meant in (("nDGC@10", "nDCG@10"), ("alpah_nDCG@10", "alpha_nDCG@10"),
                        ("nDGC(rel=2)@10", "nDCG"), ("ndgc@10", "ndcg@10")):
        with pytest.raises(UnknownMeasureError) as caught:
            rw.evaluate(QRELS, RUN, [typo])
        assert _suggested(str(caught.value)) == meant
    measure = ir_measures.parse_measure("nDCG@10")
    theirs = ir_measures.calc_aggregate([measure], QRELS, RUN)[measure]
    assert rw.evaluate(QRELS, RUN, ["nDCG@10"]).mean["ndcg@10(gain=linear)"] == pytest.approx(
        theirs, abs=1e-12)


@pytest.mark.parametrize(("typo", "meant"), [
    ("ndcg_ct_10", "ndcg_cut_10"), ("ndcg_ct.10", "ndcg_cut.10"), ("recip_rnk", "recip_rank"),
    ("P@5", "P_5"), ("map@10", "map_cut_10"), ("ndcg@10", "ndcg_cut_10"), ("mapp", "map"),
])
def test_the_pytrec_eval_drop_in_suggests_pytrec_eval_keys(typo: str, meant: str) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    with pytest.raises(UnknownMeasureError) as caught:
        pytrec_drop_in.RelevanceEvaluator(QRELS, {typo})
    suggested = _suggested(str(caught.value))
    assert suggested == meant
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, {suggested}).evaluate(RUN)  # it reads it
    ours = pytrec_drop_in.RelevanceEvaluator(QRELS, {suggested}).evaluate(RUN)
    assert list(theirs["q1"]) == list(ours["q1"]) and len(theirs["q1"]) == 1
    for query in QRELS:
        for key, value in theirs[query].items():
            assert ours[query][key] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize(("typo", "meant"), [
    ("ndcg_ct.10", "ndcg_cut.10"), ("nDCG@10", "ndcg_cut.10"), ("P@5", "P.5"),
    ("map@10", "map_cut.10"), ("recip_rnk", "recip_rank"), ("P_5", "P.5"),
])
def test_trec_eval_suggests_trec_eval_names(typo: str, meant: str, tmp_path, capsys) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")  # trec_eval's code reads -m arguments
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items()
                             for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, docs in RUN.items()
                           for d, s in docs.items()))
    assert main(["trec-eval", "-m", typo, str(qrels), str(run)]) == 1
    suggested = _suggested(capsys.readouterr().err)
    assert suggested == meant
    assert main(["trec-eval", "-m", suggested, str(qrels), str(run)]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, {suggested}).evaluate(RUN)
    key = next(iter(theirs["q1"]))
    mean = sum(theirs[q][key] for q in QRELS) / len(QRELS)
    assert [line[0] for line in lines] == [key]
    assert float(lines[0][2]) == pytest.approx(mean, abs=5e-5)  # printed with 4 decimals


def test_trec_eval_says_when_it_has_no_such_measure(capsys, tmp_path) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 1.0 r\n")
    assert main(["trec-eval", "-m", "mrr@10", str(qrels), str(run)]) == 1
    assert capsys.readouterr().err == (
        "rankwise trec-eval: unknown trec_eval measure 'mrr@10'; trec_eval has no measure for "
        "'mrr@10' (recip_rank is mrr without a cutoff)\n")
