"""``rankwise eval --format ndeval`` and ``rankwise.report.ndeval``: ndeval's CSV, byte for byte.

Against outputs ndeval v4.5 printed (tests/data/ndeval: the TREC 2013 and 2014 Web
track diversity qrels with tied runs, ir_measures' example, and a small file of
ndeval's corner cases: a topic without a relevant document, whose nNRBP is -nan; a
topic of the run without judgments, a row of zeros; a judged topic the run misses),
and, with ``RANKWISE_NDEVAL`` naming an ndeval binary, on random inputs.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from strategies import diversity_collection

import rankwise as rw
from rankwise.report.ndeval import ndeval_csv, ndeval_measures

DATA = Path(__file__).parents[1] / "data" / "ndeval"
NDEVAL = os.environ.get("RANKWISE_NDEVAL")


@pytest.mark.parametrize(
    ("qrels", "run", "output"),
    [
        ("qrels.web.201-250.ndeval.txt.gz", "run.web.201-250.synth16.gz",
         "ndeval_201-250.synth16.out"),
        ("qrels.web.251-300.ndeval.txt.gz", "run.web.251-300.synth16.gz",
         "ndeval_251-300.synth16.out"),
        ("pyndeval_test.qrels", "pyndeval_test.run", "ndeval_irm.out"),
        ("pyndeval_basic.qrels", "pyndeval_basic.run", "ndeval_pyndeval_basic.out"),
        ("edge.qrels", "edge.run", "ndeval_edge.out"),
    ],
)
def test_the_command_prints_what_ndeval_printed(cli, qrels: str, run: str, output: str) -> None:
    done = cli(["eval", DATA / qrels, DATA / run, "--qrels-format", "diversity",
                "--ties", "rank", "--format", "ndeval"])
    assert done.status == 0, done.err
    assert done.out == (DATA / output).read_bytes()


def test_traditional_order_and_the_python_writer() -> None:
    # ndeval -traditional (score desc, docno desc) is rankwise's default order
    qrels = rw.read_qrels(DATA / "pyndeval_test.qrels", subtopics=True)
    run = rw.read_run(DATA / "pyndeval_test.run")
    results = rw.evaluate(qrels, run, ndeval_measures())
    text = ndeval_csv(results, run_query_ids=run.query_ids)
    assert text == (DATA / "ndeval_irm_traditional.out").read_text()


def test_edge_cases_line_by_line() -> None:
    lines = (DATA / "ndeval_edge.out").read_text().splitlines()
    # topic 2: no relevant document; topic 4: not judged; topic 5: judged, not retrieved
    assert lines[2].split(",")[15] == "-nan" and lines[-1].split(",")[15] == "-nan"
    assert set(lines[4].split(",")[2:]) == {"0.000000"}
    assert [line.split(",")[1] for line in lines[1:]] == ["1", "2", "3", "4", "amean"]


def test_parameters_from_the_measures(cli, tmp_path: Path) -> None:
    args = ["eval", DATA / "pyndeval_test.qrels", DATA / "pyndeval_test.run",
            "--qrels-format", "diversity", "--format", "ndeval"]
    done = cli([*args, "-m", "alpha_ndcg@20(alpha=0.25)", "nrbp(alpha=0.25,beta=0.75)"])
    qrels = rw.read_qrels(DATA / "pyndeval_test.qrels", subtopics=True)
    run = rw.read_run(DATA / "pyndeval_test.run")
    results = rw.evaluate(qrels, run, ndeval_measures(alpha=0.25, beta=0.75))
    assert done.text == ndeval_csv(results, run_query_ids=run.query_ids)
    bad = cli([*args, "-m", "alpha_ndcg@20(alpha=0.25)", "nrbp"])
    assert bad.status == 1 and "alpha [0.25, 0.5]" in bad.err
    other = cli([*args, "-m", "ndcg@10"])
    assert other.status == 1 and "not one of them" in other.err


def test_missing_measures_are_named() -> None:
    results = rw.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ndeval_measures()[:-2])
    with pytest.raises(rw.InvalidParameterError, match="miss strec@20, num_rel"):
        ndeval_csv(results)


def write_inputs(tmp_path: Path, qrels: dict, run: dict, seed: int) -> tuple[Path, Path]:
    """ndeval's qrels, and a TREC run whose rank column orders tied scores at random."""
    rng = np.random.default_rng(seed)
    qpath, rpath = tmp_path / "qrels.ndeval", tmp_path / "run.trec"
    qpath.write_text("".join(
        f"{q} {t} {d} {g}\n" for q, topics in qrels.items() for t, docs in topics.items()
        for d, g in docs.items()
    ))
    lines = []
    for q, docs in run.items():
        ordered = sorted(docs.items(), key=lambda item: (-item[1], rng.random()))
        for rank, (doc, score) in enumerate(ordered, start=1):
            lines.append(f"{q} Q0 {doc} {rank} {score!r} r{seed}\n")
    rpath.write_text("".join(lines))
    return qpath, rpath


@pytest.mark.skipif(not NDEVAL, reason="set RANKWISE_NDEVAL to an ndeval binary")
@pytest.mark.parametrize("seed", range(40))
def test_random_inputs_byte_for_byte(cli, seed: int, tmp_path: Path) -> None:
    qrels, run = diversity_collection(seed, ties=seed % 2 == 0)
    qpath, rpath = write_inputs(tmp_path, qrels, run, seed)
    alpha, beta = [(0.5, 0.5), (0.3, 0.8), (0.75, 0.25)][seed % 3]
    traditional = seed % 4 >= 2
    command = [str(NDEVAL), "-alpha", str(alpha), "-beta", str(beta)]
    command += ["-traditional"] if traditional else []
    want = subprocess.run([*command, str(qpath), str(rpath)], capture_output=True,
                          check=True).stdout
    measures = [f"nrbp(alpha={alpha},beta={beta})"]
    done = cli(["eval", qpath, rpath, "--qrels-format", "diversity", "--format", "ndeval",
                "-m", *measures, *([] if traditional else ["--ties", "rank"])])
    assert done.status == 0, done.err
    assert done.out == want
