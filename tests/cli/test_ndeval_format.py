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


# ndeval reads topics as numbers (C's naturalNumber, printed with %d): "007" and "7" are
# one topic to it, a text topic is a syntax error in its judgments. rankwise's queries are
# text, so its ndeval output is exact only when every id is such a number, each spelt once.
SUBTOPICS = "7 1 a 1\n7 2 b 1\n8 1 c 1\n"


def _ndeval_inputs(tmp_path: Path, qrels: str, run: str) -> tuple[Path, Path]:
    qpath, rpath = tmp_path / "qrels.ndeval", tmp_path / "run.trec"
    qpath.write_text(qrels)
    rpath.write_text(run)
    return qpath, rpath


@pytest.mark.parametrize(
    ("qrels", "run", "named"),
    [
        # ndeval merges the run's 007 and 7 into topic 7 (one row); rankwise had two rows "7"
        (SUBTOPICS, "007 Q0 a 1 2.0 r\n7 Q0 b 2 1.0 r\n8 Q0 c 1 1.0 r\n", "'007', '7'"),
        # ndeval evaluates the run's 007 against the judged 7; rankwise had a row of zeros
        (SUBTOPICS, "007 Q0 a 1 2.0 r\n8 Q0 c 1 1.0 r\n", "'007', '7'"),
        (SUBTOPICS, "07 Q0 a 1 2.0 r\n007 Q0 b 1 1.0 r\n", "'007', '07', '7'"),
    ],
)
def test_two_spellings_of_one_topic_are_refused(cli, tmp_path: Path, qrels: str, run: str,
                                                named: str) -> None:
    qpath, rpath = _ndeval_inputs(tmp_path, qrels, run)
    done = cli(["eval", qpath, rpath, "--qrels-format", "diversity", "--ties", "rank",
                "--format", "ndeval"])
    assert done.status == 1 and done.out == b""
    assert done.err == (
        f"rankwise: error: query ids {named} are one topic (7) to ndeval, which reads topics "
        "as numbers, and different queries to rankwise: give each query one spelling (the "
        "same in the judgments and the run), or use another output format\n"
    )


@pytest.mark.parametrize(
    ("qrels", "run", "named"),
    [
        (SUBTOPICS, "abc Q0 a 1 2.0 r\n7 Q0 b 1 1.0 r\n", "id 'abc' is"),
        (SUBTOPICS, "wt09-7 Q0 a 1 2.0 r\n", "id 'wt09-7' is"),  # ndeval strips 'wt09-'
        ("q7 1 a 1\n7 1 b 1\n", "7 Q0 b 1 1.0 r\n", "id 'q7' is"),  # ndeval: syntax error
        (SUBTOPICS, "-7 Q0 a 1 2.0 r\n1000010 Q0 b 1 1.0 r\n",
         "ids '-7', '1000010' are"),
        (SUBTOPICS, "\u00b2 Q0 a 1 2.0 r\n\u0667 Q0 b 1 1.0 r\n",  # digits, not ASCII ones
         "ids '\u00b2', '\u0667' are"),
    ],
)
def test_topics_ndeval_cannot_read_are_refused(cli, tmp_path: Path, qrels: str, run: str,
                                               named: str) -> None:
    qpath, rpath = _ndeval_inputs(tmp_path, qrels, run)
    done = cli(["eval", qpath, rpath, "--qrels-format", "diversity", "--ties", "rank",
                "--format", "ndeval"])
    assert done.status == 1 and done.out == b"" and "Traceback" not in done.err
    assert done.err.startswith(
        f"rankwise: error: ndeval's topics are numbers from 0 to 1000009; query {named} not, "
        "so ndeval's output cannot show"
    )


def test_one_spelling_with_leading_zeros_is_printed_as_ndeval_prints_it(
        cli, tmp_path: Path) -> None:
    # 007 everywhere is topic 7 to ndeval: the output of "7" everywhere, byte for byte
    zeros = tmp_path / "zeros"
    plain = tmp_path / "plain"
    zeros.mkdir()
    plain.mkdir()
    run = "{t} Q0 a 1 2.0 r\n{t} Q0 b 2 1.0 r\n8 Q0 c 1 1.0 r\n1000009 Q0 c 1 1.0 r\n"
    args = ["--qrels-format", "diversity", "--ties", "rank", "--format", "ndeval"]
    outputs = []
    for folder, topic in ((zeros, "007"), (plain, "7")):
        qpath, rpath = _ndeval_inputs(folder, SUBTOPICS.replace("7 ", f"{topic} ", 2),
                                      run.format(t=topic))
        done = cli(["eval", qpath, rpath, *args])
        assert done.status == 0, done.err
        outputs.append(done.out)
    assert outputs[0] == outputs[1]
    assert [line.split(b",")[1] for line in outputs[0].splitlines()[1:]] == [
        b"7", b"8", b"1000009", b"amean"]


@pytest.mark.skipif(not NDEVAL, reason="set RANKWISE_NDEVAL to an ndeval binary")
def test_leading_zeros_against_ndeval(cli, tmp_path: Path) -> None:
    qpath, rpath = _ndeval_inputs(tmp_path, SUBTOPICS.replace("7 ", "007 ", 2),
                                  "007 Q0 a 1 2.0 r\n007 Q0 b 2 1.0 r\n8 Q0 c 1 1.0 r\n")
    want = subprocess.run([str(NDEVAL), str(qpath), str(rpath)], capture_output=True,
                          check=True).stdout
    done = cli(["eval", qpath, rpath, "--qrels-format", "diversity", "--ties", "rank",
                "--format", "ndeval"])
    assert done.out == want


def test_the_python_writer_checks_the_judged_queries_too() -> None:
    qrels = {"7": {"1": {"a": 1}}, "8": {"1": {"c": 1}}}
    run = {"007": {"a": 1.0}, "8": {"c": 1.0}}
    results = rw.evaluate(qrels, run, ndeval_measures())
    with pytest.raises(rw.InvalidParameterError, match=r"'007', '7' are one topic \(7\)"):
        ndeval_csv(results, run_query_ids=run, qrels_query_ids=qrels)
