"""The intent-aware measures against ndeval and pyndeval (TREC Web track 2009-2014).

Checked-in vectors (tests/data/ndeval: TREC 2013 and 2014 diversity qrels with
tied runs, the examples of pyndeval and ir_measures) run everywhere; with
``RANKWISE_NDEVAL`` naming an ndeval binary, and with pyndeval installed, the
tools also judge random inputs with ties.
"""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import diversity_collection, diversity_collections

import rankwise as rw

DATA = Path(__file__).parents[1] / "data" / "ndeval"

NDEVAL_COLUMNS = [
    ("ERR-IA@5", "err_ia@5"), ("ERR-IA@10", "err_ia@10"), ("ERR-IA@20", "err_ia@20"),
    ("nERR-IA@5", "nerr_ia@5"), ("nERR-IA@10", "nerr_ia@10"), ("nERR-IA@20", "nerr_ia@20"),
    ("alpha-DCG@5", "alpha_dcg@5"), ("alpha-DCG@10", "alpha_dcg@10"),
    ("alpha-DCG@20", "alpha_dcg@20"), ("alpha-nDCG@5", "alpha_ndcg@5"),
    ("alpha-nDCG@10", "alpha_ndcg@10"), ("alpha-nDCG@20", "alpha_ndcg@20"),
    ("NRBP", "nrbp"), ("nNRBP", "nnrbp"), ("MAP-IA", "ap_ia"),
    ("P-IA@5", "p_ia@5"), ("P-IA@10", "p_ia@10"), ("P-IA@20", "p_ia@20"),
    ("strec@5", "strec@5"), ("strec@10", "strec@10"), ("strec@20", "strec@20"),
]


def measures(alpha: float = 0.5, beta: float = 0.5, rel: float = 1) -> list[str]:
    """rankwise's names of ndeval's 21 columns, with its parameters."""
    out = []
    for _, name in NDEVAL_COLUMNS:
        params = [f"rel={rel:g}"] if rel != 1 else []
        if not name.startswith(("ap_ia", "p_ia", "strec")):
            params += [f"alpha={alpha:g}"] if alpha != 0.5 else []
        if name.startswith("nrbp") or name.startswith("nnrbp"):
            params += [f"beta={beta:g}"] if beta != 0.5 else []
        out.append(name + (f"({','.join(params)})" if params else ""))
    return out


def read_output(text: str) -> tuple[dict[str, list[float]], int]:
    """ndeval's CSV: topic -> the 21 values (nan as printed), and the digits printed."""
    lines = text.strip().splitlines()
    header = lines[0].split(",")
    assert header[2:] == [label for label, _ in NDEVAL_COLUMNS]
    rows = {}
    digits = 0
    for line in lines[1:]:
        fields = line.split(",")
        rows[fields[1]] = [float(x.replace("-nan", "nan")) for x in fields[2:]]
        digits = max([digits, *(len(x.split(".")[-1]) for x in fields[2:] if "." in x)])
    return rows, digits


def tolerance(digits: int) -> float:
    return 1e-12 if digits >= 15 else 0.51 * 10.0 ** -digits + 1e-12


def assert_matches(results: rw.Results, names: list[str], text: str) -> None:
    """Every topic of the tool's output (and its amean) equals rankwise's values."""
    rows, digits = read_output(text)
    tol = tolerance(digits)
    amean = rows.pop("amean", None)
    evaluated = set(results.query_ids)
    checked = 0
    for topic, values in rows.items():
        if topic not in evaluated:  # a run topic without judgments: ndeval prints zeros
            assert all(v == 0 or math.isnan(v) for v in values), topic
            continue
        for (label, _), name, want in zip(NDEVAL_COLUMNS, names, values):
            got = results.value(name, topic)
            want = 0.0 if math.isnan(want) else want  # nNRBP without a relevant document
            assert got == pytest.approx(want, abs=tol), (label, topic)
            checked += 1
    if amean is not None:
        for (label, _), name, want in zip(NDEVAL_COLUMNS, names, amean):
            if not math.isnan(want):
                assert results.mean[name] == pytest.approx(want, abs=tol), label
    assert checked


@pytest.mark.parametrize("year", ["201-250", "251-300"])
@pytest.mark.parametrize(
    ("output", "ties"),
    [
        ("ndeval_fullprec_{year}.synth16.out", "rank"),
        ("ndeval_{year}.synth16.out", "rank"),
        ("ndeval_fullprec_traditional_{year}.synth16.out", "trec"),
        ("pyndeval_{year}.synth16.out", "ascending"),
    ],
)
def test_trec_web_diversity_qrels_match_ndeval(year: str, output: str, ties: str) -> None:
    qrels = rw.read_qrels(DATA / f"qrels.web.{year}.ndeval.txt.gz", subtopics=True)
    run = rw.read_run(DATA / f"run.web.{year}.synth16.gz", keep_rank=True)
    names = measures()
    results = rw.evaluate(qrels, run, names, ties=ties)
    assert_matches(results, names, (DATA / output.format(year=year)).read_text())


@pytest.mark.parametrize(
    ("output", "ties", "rel"),
    [
        ("ndeval_irm.out", "rank", 1),
        ("ndeval_irm_traditional.out", "trec", 1),
        ("ndeval_fullprec_irm_traditional.out", "trec", 1),
        ("pyndeval_irm.out", "ascending", 1),
        ("pyndeval_irm_rel2.out", "ascending", 2),
    ],
)
def test_ir_measures_example(output: str, ties: str, rel: int) -> None:
    qrels = rw.read_qrels(DATA / "pyndeval_test.qrels", fmt="diversity")
    run = rw.read_run(DATA / "pyndeval_test.run", keep_rank=True)
    names = measures(rel=rel)
    results = rw.evaluate(qrels, run, names, ties=ties)
    assert_matches(results, names, (DATA / output).read_text())
    if rel == 1:  # ir_measures' own expectation (tests/test_pyndeval.py)
        assert results["err_ia@20"].round(4).tolist() == [0.4659, 0.1803]


def test_pyndeval_example() -> None:
    qrels = rw.read_qrels(DATA / "pyndeval_basic.qrels", fmt="diversity")
    run = rw.read_run(DATA / "pyndeval_basic.run", keep_rank=True)
    results = rw.evaluate(qrels, run, measures(), ties="rank")
    assert_matches(results, measures(), (DATA / "ndeval_pyndeval_basic.out").read_text())
    # pyndeval's tests/test_pyndeval.py, to 4 decimals
    expected = {"err_ia@5": 0.3933, "err_ia@10": 0.3907, "nerr_ia@5": 0.8297,
                "alpha_dcg@5": 0.4052, "alpha_dcg@10": 0.3998, "alpha_ndcg@5": 0.7868,
                "nrbp": 0.3906, "nnrbp": 0.8620, "ap_ia": 0.5, "p_ia@5": 0.2, "p_ia@10": 0.1,
                "strec@5": 0.6666}
    for name, value in expected.items():
        assert results.mean[name] == pytest.approx(value, abs=1e-4), name


# -- the tools on random inputs ---------------------------------------------------------------


def write_inputs(tmp_path: Path, qrels: dict, run: dict, seed: int) -> tuple[Path, Path]:
    """ndeval's qrels (``topic subtopic docno grade``) and a TREC run whose rank column
    follows trec_eval's order with each group of tied scores shuffled."""
    rng = np.random.default_rng(seed + 1000)
    qpath, rpath = tmp_path / "qrels.ndeval", tmp_path / "run.trec"
    qpath.write_text("".join(
        f"{q} {t} {d} {g}\n" for q, topics in qrels.items() for t, docs in topics.items()
        for d, g in docs.items()
    ))
    lines = []
    for q, docs in run.items():
        ordered = sorted(docs.items(), key=lambda item: item[0].encode(), reverse=True)
        ordered.sort(key=lambda item: -item[1])
        scores = np.array([s for _, s in ordered])
        keys = scores * 0 + rng.random(len(scores))
        order = np.lexsort((keys, -scores)) if seed % 2 else np.arange(len(scores))
        for rank, i in enumerate(order, start=1):
            lines.append(f"{q} Q0 {ordered[i][0]} {rank} {ordered[i][1]!r} r\n")
    rpath.write_text("".join(lines))
    return qpath, rpath


NDEVAL = os.environ.get("RANKWISE_NDEVAL")


@pytest.mark.skipif(not NDEVAL, reason="set RANKWISE_NDEVAL to an ndeval binary")
@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("traditional", [False, True])
def test_random_inputs_match_ndeval(seed: int, traditional: bool, tmp_path: Path) -> None:
    qrels, run = diversity_collection(seed, ties=seed % 3 != 0)
    qpath, rpath = write_inputs(tmp_path, qrels, run, seed)
    alpha, beta = [(0.5, 0.5), (0.3, 0.8), (0.75, 0.25)][seed % 3]
    command = [str(NDEVAL), "-alpha", str(alpha), "-beta", str(beta)]
    command += ["-traditional"] if traditional else []
    output = subprocess.run([*command, str(qpath), str(rpath)], capture_output=True, text=True,
                            check=True).stdout
    names = measures(alpha, beta)
    results = rw.evaluate(rw.read_qrels(qpath, subtopics=True), rw.read_run(rpath, keep_rank=True),
                          names, ties="trec" if traditional else "rank")
    assert_matches(results, names, output)


@pytest.mark.parametrize("seed", range(25))
def test_random_inputs_match_pyndeval(seed: int) -> None:
    pyndeval = pytest.importorskip("pyndeval")
    qrels, run = diversity_collection(seed, negative=seed % 2 == 0)
    rel = 1 + seed % 2
    alpha, beta = [(0.5, 0.5), (0.25, 0.8), (0.75, 0.5)][seed % 3]
    # pyndeval numbers subtopics by first appearance: list them in numeric order
    lines = sorted(
        ((q, t, d, g) for q, topics in qrels.items() for t, docs in topics.items()
         for d, g in docs.items()),
        key=lambda line: int(line[1]),
    )
    judged = [pyndeval.SubtopicQrel(q, t, d, g) for q, t, d, g in lines]
    scored = [pyndeval.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    evaluator = pyndeval.RelevanceEvaluator(
        judged, pyndeval.DEFAULT_MEASURES, relevance_level=rel, alpha=alpha, beta=beta
    )
    names = measures(alpha, beta, rel)
    results = rw.evaluate(qrels, run, names, ties="ascending")
    checked = 0
    for record in evaluator.evaluate_iter(scored):
        query = record["query_id"]
        for (label, _), name in zip(NDEVAL_COLUMNS, names):
            want = record[label]
            want = 0.0 if math.isnan(want) else want
            assert results.value(name, query) == pytest.approx(want, abs=1e-12), (label, query)
            checked += 1
    assert checked == 21 * len(results.query_ids)


# -- definitions that can be checked without a tool -------------------------------------------


def test_cutoff_one_is_divided_by_the_ideal_ideal() -> None:
    # pyndeval returns the raw g(1) = 2 at cutoff 1 (an off-by-one in ndeval.c that
    # ndeval never prints); rankwise divides every cutoff, so ERR-IA@1 = g(1) / M
    qrels = {"1": {"1": {"a": 1}, "2": {"a": 1}, "3": {"b": 1}}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    results = rw.evaluate(qrels, run, ["err_ia@1", "alpha_dcg@1", "p_ia@1", "err_ia@2"])
    assert results.mean["err_ia@1"] == pytest.approx(2 / 3)
    assert results.mean["alpha_dcg@1"] == pytest.approx(2 / 3)
    assert results.mean["p_ia@1"] == pytest.approx(2 / 3)
    assert results.mean["err_ia@2"] == pytest.approx((2 + 1 / 2) / (3 + 1.5 / 2))


def test_a_query_without_a_relevant_document_scores_zero() -> None:
    qrels = {"1": {"1": {"a": 0}}, "2": {"1": {"a": 1}}}
    run = {"1": {"a": 1.0}, "2": {"a": 1.0}}
    results = rw.evaluate(qrels, run, measures())
    for name in measures():  # ndeval: 0, but nNRBP = nan (0 / 0)
        assert results[name][0] == 0.0 and results[name][1] > 0.0, name
    assert results["alpha_ndcg@5"][1] == results["nnrbp"][1] == 1.0


def binary_one_subtopic(qrels: dict) -> tuple[dict, dict]:
    flat: dict[str, dict[str, int]] = {q: {} for q in qrels}
    for q, topics in qrels.items():
        for docs in topics.values():
            for d, g in docs.items():
                flat[q][d] = max(int(g >= 1), flat[q].get(d, 0))
    return {q: {"1": docs} for q, docs in flat.items()}, flat


@settings(max_examples=80, deadline=None)
@given(diversity_collections())
def test_one_subtopic_without_novelty_is_the_one_topic_measure(data) -> None:
    qrels, run = data
    diverse, plain = binary_one_subtopic(qrels)
    pairs = {"alpha_ndcg@3(alpha=0)": "ndcg@3", "alpha_ndcg(alpha=0)": "ndcg",
             "p_ia@3": "P@3", "strec@2": "hit@2", "ap_ia": "map"}
    a = rw.evaluate(diverse, run, list(pairs))
    b = rw.evaluate(plain, run, list(pairs.values()))
    for div, one in pairs.items():
        np.testing.assert_allclose(a[div], b[one], atol=1e-12, err_msg=div)


@settings(max_examples=80, deadline=None)
@given(diversity_collections())
def test_values_lie_in_zero_one_and_inputs_agree(data) -> None:
    import pyarrow as pa

    qrels, run = data
    names = [*measures(), "alpha_ndcg", "nerr_ia", "alpha_ndcg@3(alpha=0.3,rel=2)"]
    results = rw.evaluate(qrels, run, names)
    for name in names:
        values = results[name]
        assert np.all(values >= 0) and np.all(values <= 1 + 1e-12), name
    rows = [(q, t, d, g) for q, topics in qrels.items() for t, docs in topics.items()
            for d, g in docs.items()]
    frame = pa.table({"query_id": [r[0] for r in rows], "subtopic": [r[1] for r in rows],
                      "doc_id": [r[2] for r in rows], "relevance": [r[3] for r in rows]})
    trec = "".join(f"{q} {t} {d} {g}\n" for q, t, d, g in rows).encode()
    from_frame = rw.evaluate(frame, run, names).to_dict()
    from_text = rw.evaluate(rw.read_trec_qrels(trec, subtopics=True), run, names).to_dict()
    assert results.to_dict() == from_frame == from_text


@settings(max_examples=60, deadline=None)
@given(diversity_collections())
def test_plain_measures_read_the_maximum_grade_over_subtopics(data) -> None:
    qrels, run = data
    collapsed = {q: {} for q in qrels}
    for q, topics in qrels.items():
        for docs in topics.values():
            for d, g in docs.items():
                collapsed[q][d] = max(g, collapsed[q].get(d, g))
    names = ["ndcg@5", "map", "P@3", "err@5", "rbp"]
    assert rw.evaluate(qrels, run, names).to_dict() == rw.evaluate(collapsed, run, names).to_dict()
