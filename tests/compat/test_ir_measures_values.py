"""rankwise.compat.ir_measures against ir_measures 0.4.3: every per-query value, every provider.

Random collections of 300 queries with what makes evaluation hard: tied
scores (and float64 scores that tie once read as float32, as pytrec_eval
reads them), negative grades, queries with no relevant document, judged
queries the run misses, retrieved queries with no judgment, empty judgments
(``{"q": {}}``) and empty rankings. For each provider ir_measures runs here
(pytrec_eval, judged, msmarco, gdeval, compat, pyndeval, accuracy; cwl_eval
and ranx do not run here: tests/kernels/test_cwl.py and the ir_measures
suite cover them) and its default pipeline, the drop-in yields the same rows
(query, measure) with values equal to 1e-12, and the same aggregates.
Together more than 100,000 values (:func:`test_the_values_compared_add_up`).
"""

from __future__ import annotations

import json
import math
import os
import subprocess

import numpy as np
import pytest

from rankwise.compat import ir_measures as drop_in

irm = pytest.importorskip("ir_measures")

COMPARED: list[int] = []
"""The number of values each test compared (summed by the last test)."""


def collection(seed: int, n_queries: int = 300, *, ties: bool = True, gdeval: bool = False,
               subtopics: bool = False) -> tuple[object, dict]:
    """Judgments and a run, as ir_measures takes them (a dict, or Qrel rows with subtopics).

    *gdeval*: every judged query retrieved has a relevant document and grades
    are 0..4 (gdeval.pl divides by the ideal DCG and reads no negative grade
    as rankwise does: docs/compat.md).
    """
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    rows: list = []
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        query = str(1000 + q)
        pool = [f"d{rng.integers(0, 10 ** int(rng.integers(1, 4)))}x{i}" for i in range(40)]
        kind = rng.random()
        if kind > 0.08:  # a judged query (8%: retrieved, never judged)
            judged = rng.choice(len(pool), size=int(rng.integers(1, 20)), replace=False)
            grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
            if gdeval:
                grades = np.abs(grades)
                grades[0] = max(int(grades[0]), 1)
            elif kind < 0.16:
                grades = np.minimum(grades, 0)  # no relevant document
            qrels[query] = {pool[i]: int(g) for i, g in zip(judged, grades)}
            if not gdeval and 0.16 < kind < 0.19:
                qrels[query] = {}  # empty judgments
            for i, g in zip(judged, grades):
                for topic in range(int(rng.integers(1, 3)) if subtopics else 1):
                    rows.append(irm.Qrel(query, pool[i], int(g) if topic == 0 else
                                         int(rng.integers(0, 3)), str(topic)))
        if kind < 0.93:  # a retrieved query (7%: judged, never retrieved)
            size = int(rng.integers(2, 40))
            retrieved = rng.choice(len(pool), size=size, replace=False)
            if ties:
                scores = rng.integers(0, 6, size=size) / 4.0
            else:  # distinct float64 scores, some equal once read as float32
                scores = 1.0 + rng.integers(0, 10 ** 6, size=size) * 1e-9
            ranking = {pool[i]: float(s) for i, s in zip(retrieved, scores)}
            ranking[f"unjudged{q}"] = 9.0  # a non-relevant document first (Accuracy's N > 0)
            if not gdeval and 0.9 < kind < 0.93:
                ranking = {}  # an empty ranking
            run[query] = ranking
    if subtopics:
        return rows, run
    return qrels, run


def same(got: float, want: float) -> bool:
    """Equal to 1e-12, or both NaN (ndeval's nNRBP of a query with nothing relevant)."""
    return (math.isnan(got) and math.isnan(want)) or math.isclose(got, want, rel_tol=0,
                                                                   abs_tol=1e-12)


def compare(measure: object, theirs: object, ours: object, qrels: object, run: dict) -> int:
    """Rows of both for one measure: same (query, measure) rows, values equal to 1e-12."""
    want = {(m.query_id, str(m.measure)): m.value for m in theirs.iter_calc([measure], qrels,
                                                                           run)}
    mine = drop_in.parse_measure(repr(measure))
    got = {(m.query_id, str(m.measure)): m.value for m in ours.iter_calc([mine], qrels, run)}
    assert set(got) == set(want), measure
    for key, value in want.items():
        assert same(got[key], value), (key, value, got[key])
    aggregate = theirs.calc_aggregate([measure], qrels, run)[measure]
    assert same(ours.calc_aggregate([mine], qrels, run)[mine], aggregate), measure
    return len(want)


PYTREC_EVAL = [
    irm.P @ 1, irm.P @ 5, irm.P @ 10, irm.P @ 20, irm.P(rel=2) @ 5, irm.P(judged_only=True) @ 5,
    irm.R @ 5, irm.R @ 100, irm.R(rel=2) @ 10, irm.RR, irm.RR(rel=2), irm.Rprec,
    irm.Rprec(rel=2), irm.AP, irm.AP @ 10, irm.AP(rel=2), irm.AP(judged_only=True), irm.nDCG,
    irm.nDCG @ 10, irm.nDCG @ 3, irm.nDCG(gains={0: 0, 1: 1, 2: 5, 3: 9}) @ 5,
    irm.nDCG(judged_only=True) @ 10, irm.Bpref, irm.Bpref(rel=2), irm.infAP, irm.NumQ,
    irm.NumRet, irm.NumRelRet, irm.NumRet(rel=2), irm.NumRel, irm.SetP, irm.SetRelP, irm.SetR,
    irm.SetF, irm.SetF(beta=2.0), irm.SetF(beta=0.5), irm.SetAP, irm.Success @ 1,
    irm.Success @ 5, irm.Success(rel=2) @ 10,
]
"""pytrec_eval's measures (IPrec: trec_eval 9.0.8's recall rounding, below)."""


IPREC = [irm.IPrec @ 0.0, irm.IPrec @ 0.25, irm.IPrec @ 0.5, irm.IPrec(rel=2) @ 0.7]


@pytest.mark.parametrize("seed", range(8))
def test_pytrec_eval_provider(seed: int) -> None:
    qrels, run = collection(seed, ties=seed % 2 == 0)
    measures = PYTREC_EVAL + IPREC
    COMPARED.append(sum(compare(m, irm.pytrec_eval, drop_in.pytrec_eval, qrels, run)
                        for m in measures))


@pytest.mark.parametrize("seed", range(3))
def test_the_default_pipeline(seed: int) -> None:
    """ir_measures.iter_calc / calc_aggregate: each measure to its first provider."""
    qrels, run = collection(100 + seed, ties=True)
    run = {query: ranking for query, ranking in run.items() if ranking}  # Judged's 0 / 0
    measures = [irm.P @ 5, irm.nDCG @ 10, irm.RR @ 10, irm.Judged @ 10, irm.Compat(p=0.8),
                irm.AP, irm.NumRel, irm.Accuracy @ 10]
    COMPARED.append(sum(compare(m, irm, drop_in, qrels, run) for m in measures))


@pytest.mark.parametrize("seed", range(4))
def test_judged_msmarco_compat_accuracy_providers(seed: int) -> None:
    """Ties by document id ascending (judged, msmarco, compat) or in input order (accuracy)."""
    qrels, run = collection(200 + seed, ties=seed % 2 == 0)
    cases = [
        (irm.judged, drop_in.judged, [irm.Judged @ 1, irm.Judged @ 5, irm.Judged @ 20]),
        (irm.msmarco, drop_in.msmarco, [irm.RR, irm.RR @ 1, irm.RR @ 10, irm.RR(rel=2) @ 5]),
        (irm.compat, drop_in.compat, [irm.Compat, irm.Compat(p=0.8),
                                      irm.Compat(normalize=False)]),
        (irm.accuracy, drop_in.accuracy, [irm.Accuracy, irm.Accuracy @ 5,
                                          irm.Accuracy(rel=2) @ 10]),
    ]
    # Judged divides by the length of an empty ranking: ZeroDivisionError
    run = {query: ranking for query, ranking in run.items() if ranking}
    COMPARED.append(sum(compare(m, theirs, ours, qrels, run)
                        for theirs, ours, measures in cases for m in measures))


@pytest.mark.parametrize("seed", range(2))
def test_gdeval_provider(seed: int) -> None:
    """gdeval.pl's nDCG@k and ERR@k, to its 5 decimals (grades 0..4, a relevant one each)."""
    qrels, run = collection(300 + seed, ties=seed == 0, gdeval=True)
    measures = [irm.nDCG(dcg="exp-log2") @ 5, irm.nDCG(dcg="exp-log2") @ 20, irm.ERR @ 5,
                irm.ERR @ 20]
    COMPARED.append(sum(compare(m, irm.gdeval, drop_in.gdeval, qrels, run) for m in measures))


@pytest.mark.parametrize("seed", range(2))
def test_pyndeval_provider(seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    """ndeval's diversity measures, the subtopic in the judgments' iteration field."""
    rows, run = collection(400 + seed, subtopics=True)
    measures = [irm.ERR_IA @ 5, irm.ERR_IA(rel=2) @ 10, irm.nERR_IA @ 10, irm.alpha_DCG @ 10,
                irm.alpha_nDCG @ 5, irm.alpha_nDCG(alpha=0.3) @ 20, irm.P_IA @ 5,
                irm.StRecall @ 10, irm.AP_IA, irm.NRBP, irm.nNRBP(beta=0.8)]
    COMPARED.append(sum(compare(m, irm.pyndeval, drop_in.pyndeval, rows, run)
                        for m in measures))
    capsys.readouterr()  # pyndeval's warnings


def test_the_values_compared_add_up() -> None:
    """Run last (file order): the tests above compared more than 100,000 values."""
    if len(COMPARED) < 19:
        pytest.skip("only part of this file ran")
    assert sum(COMPARED) > 100_000, sum(COMPARED)


CWL_PYTHON = os.environ.get("RANKWISE_CWL_PYTHON")

_CWL_DRIVER = """
import json, sys
import ir_measures
job = json.load(sys.stdin)
qrels = [ir_measures.Qrel(*row) for row in job["qrels"]]
rows = []
for text in job["measures"]:
    measure = ir_measures.parse_measure(text)
    for m in ir_measures.cwl_eval.iter_calc([measure], qrels, job["run"]):
        rows.append([m.query_id, text, *m[2:]])
json.dump(rows, sys.stdout)
"""


@pytest.mark.skipif(not CWL_PYTHON, reason="set RANKWISE_CWL_PYTHON to a Python with cwl-eval")
@pytest.mark.parametrize("seed", range(3))
def test_cwl_eval_provider(seed: int) -> None:
    """ir_measures' cwl_eval provider (run in RANKWISE_CWL_PYTHON): every C/W/L quantity."""
    qrels, run = collection(500 + seed, n_queries=60, ties=seed % 2 == 0)
    rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    texts = ["P@5", "P(rel=2)@10", "RR", "RR(rel=2)", "AP", "AP(rel=2)", "RBP(rel=1)",
             "RBP(p=0.5,rel=2)", "BPM(max_rel=3)@10", "BPM(T=2.0,max_rel=3)@5",
             "SDCG(max_rel=3)@10", "SDCG(min_rel=1,max_rel=3)@5", "NERR8(max_rel=3)@10",
             "NERR9(max_rel=3)@5", "NERR10(max_rel=3)", "NERR10(p=0.5,max_rel=2)",
             "NERR11(max_rel=3)", "NERR11(T=2.0,min_rel=1,max_rel=3)", "INST(max_rel=3)",
             "INSQ(T=2.0,max_rel=3)"]
    job = {"qrels": rows, "run": run, "measures": texts}
    done = subprocess.run([CWL_PYTHON, "-c", _CWL_DRIVER], input=json.dumps(job),
                          capture_output=True, text=True, check=True)
    want = {(q, text): values for q, text, *values in json.loads(done.stdout)}
    qrel_rows = [drop_in.Qrel(q, d, g) for q, d, g in rows]
    got = {}
    for text in texts:
        for m in drop_in.cwl_eval.iter_calc([drop_in.parse_measure(text)], qrel_rows, run):
            got[m.query_id, text] = list(m[2:])
    assert set(got) == set(want)
    for key, values in want.items():
        assert got[key] == pytest.approx(values, abs=1e-11, nan_ok=True), key
    COMPARED.append(5 * len(want))
