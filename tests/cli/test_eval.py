"""``rankwise eval``: golden outputs for each format, options, warnings, files."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

import rankwise as rw

GOLDEN = Path(__file__).parent / "golden"
FORMATS = ["table", "tsv", "csv", "json", "jsonl", "markdown", "latex"]
MEASURES = ["-m", "ndcg@3", "map", "mrr", "P@2", "num_ret"]
GAIN_NOTE = (  # the golden judgments are graded: said once, under the table
    "rankwise: note: ndcg@3 uses rankwise's gain 2^grade - 1 and the judgments have grades "
    "other than 0 and 1; trec_eval, pytrec_eval, ranx, ir_measures and scikit-learn use the "
    "grade itself as the gain: ndcg@3(gain=linear) gives their number\n"
)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", ["means", "per_query"])
def test_golden_output(fmt: str, layout: str, cli) -> None:
    extra = ["--per-query"] if layout == "per_query" else []
    outcome = cli(["eval", "qrels.txt", "a.run", "b.run", *MEASURES, *extra, "-f", fmt],
                  cwd=GOLDEN)
    assert outcome.status == 0, outcome.err
    assert outcome.err == GAIN_NOTE
    assert outcome.text == (GOLDEN / f"{layout}.{fmt}").read_text()


def test_json_values_are_exact(cli) -> None:
    outcome = cli(["eval", "qrels.txt", "a.run", *MEASURES, "-f", "json"], cwd=GOLDEN)
    record = json.loads(outcome.out)[0]
    expected = rw.evaluate(GOLDEN / "qrels.txt", GOLDEN / "a.run", MEASURES[1:]).mean
    assert {k: v for k, v in record.items() if k != "run"} == expected


def test_output_file_and_format_from_its_extension(cli, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    outcome = cli(["eval", "qrels.txt", "a.run", "b.run", *MEASURES, "-o", target], cwd=GOLDEN)
    written = f"rankwise: wrote {target} ({target.stat().st_size} B)\n"  # the one rule
    assert (outcome.status, outcome.out, outcome.err) == (0, b"", GAIN_NOTE + written)
    assert target.read_text() == (GOLDEN / "means.csv").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_explicit_format_wins_over_the_extension(cli, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    cli(["eval", "qrels.txt", "a.run", "b.run", *MEASURES, "-o", target, "-f", "tsv"], cwd=GOLDEN)
    assert target.read_text() == (GOLDEN / "means.tsv").read_text()


def test_output_to_a_directory_fails_cleanly(cli, tmp_path: Path) -> None:
    outcome = cli(["eval", "qrels.txt", "a.run", *MEASURES, "-o", tmp_path], cwd=GOLDEN)
    assert outcome.status == 1
    assert outcome.err == (
        f"rankwise: error: {tmp_path}: is a directory, expected a file name for -o\n"
    )


def test_output_to_a_missing_folder_fails_cleanly(cli, tmp_path: Path) -> None:
    target = tmp_path / "no" / "out.csv"
    outcome = cli(["eval", "qrels.txt", "a.run", *MEASURES, "-o", target], cwd=GOLDEN)
    assert outcome.status == 1
    assert outcome.err.startswith("rankwise: error: ")
    assert "no such file or directory" in outcome.err
    assert len(outcome.err.splitlines()) == 1


def test_run_from_standard_input(cli) -> None:
    outcome = cli(["eval", "qrels.txt", "-", "b.run", *MEASURES],
                  cwd=GOLDEN, stdin=(GOLDEN / "a.run").read_bytes())
    assert outcome.status == 0, outcome.err
    assert outcome.text == (GOLDEN / "means.table").read_text()


def test_qrels_from_standard_input(cli) -> None:
    outcome = cli(["eval", "-", "a.run", "b.run", *MEASURES],
                  cwd=GOLDEN, stdin=(GOLDEN / "qrels.txt").read_bytes())
    assert outcome.text == (GOLDEN / "means.table").read_text()


def test_compressed_and_table_inputs(cli, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "a.run.gz").write_bytes(gzip.compress((GOLDEN / "a.run").read_bytes()))
    pq.write_table(pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["d3", "d1", "d4"],
                             "score": [3.0, 2.0, 1.0]}), tmp_path / "b.parquet")
    (tmp_path / "qrels.tsv").write_text(
        "query_id\tdoc_id\trelevance\n"
        + "".join(f"{q}\t{d}\t{g}\n" for q, _, d, g in
                  (line.split() for line in (GOLDEN / "qrels.txt").read_text().splitlines()))
    )
    outcome = cli(["eval", "qrels.tsv", "a.run.gz", "b.parquet", *MEASURES, "-f", "csv"],
                  cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    want = (GOLDEN / "means.csv").read_text().replace("\nB,", "\nb,")
    assert outcome.text == want


def test_format_overrides(cli, tmp_path: Path) -> None:
    (tmp_path / "run.data").write_text("query_id,doc_id,score\nq1,d3,3\nq1,d1,2\nq2,d4,1\n")
    (tmp_path / "judgments.data").write_bytes((GOLDEN / "qrels.txt").read_bytes())
    outcome = cli(["eval", "judgments.data", "run.data", "-m", "map", "--run-format", "csv",
                   "--qrels-format", "trec", "-f", "tsv"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    assert outcome.text == "run\tmap\nrun\t1.0\n"


def test_options_are_passed_to_the_api(cli) -> None:
    for options, api in [
        (["--depth", "1"], {"depth": 1}),
        (["--rel", "2"], {"rel": 2}),
        (["--judged-only"], {"judged_only": True}),
        (["--missing", "zero"], {"missing": "zero"}),
    ]:
        outcome = cli(["eval", "qrels.txt", "a.run", "-m", "map", "P@2", "num_ret",
                       "-f", "json", *options], cwd=GOLDEN)
        assert outcome.status == 0, outcome.err
        got = json.loads(outcome.out)[0]
        want = rw.evaluate(GOLDEN / "qrels.txt", GOLDEN / "a.run", ["map", "P@2", "num_ret"],
                           **api).mean
        assert {k: v for k, v in got.items() if k != "run"} == want, options


def test_default_measures(cli) -> None:
    outcome = cli(["eval", "qrels.txt", "a.run", "-f", "csv"], cwd=GOLDEN)
    assert outcome.text.splitlines()[0] == "run,ndcg@10,map,mrr,P@10,recall@1000"


def test_measures_by_commas_repeats_and_trec_names(cli) -> None:
    outcome = cli(["eval", "qrels.txt", "a.run", "-m", "ndcg@3,map", "-m", "P.2,1",
                   "ndcg_cut.3", "NDCG@3(gain=exp)", "-f", "csv"], cwd=GOLDEN)
    assert outcome.status == 0, outcome.err
    assert outcome.text.splitlines()[0] == "run,ndcg@3,map,P@1,P@2,ndcg@3(gain=linear)"


def test_same_run_ids_are_numbered(cli, tmp_path: Path) -> None:
    (tmp_path / "copy.run").write_bytes((GOLDEN / "a.run").read_bytes())
    outcome = cli(["eval", "qrels.txt", "a.run", tmp_path / "copy.run", "-m", "map", "-f", "csv"],
                  cwd=GOLDEN)
    assert outcome.text == f"run,map\nA,{2 / 3!r}\nA#2,{2 / 3!r}\n"


def test_coverage_warnings_once_per_run_with_counts(cli, tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 1 r\nq8 Q0 d1 1 1 r\nq9 Q0 d1 1 1 r\nq9 Q0 d2 2 0 r\n")
    outcome = cli(["eval", "q", "r", "-m", "map"], cwd=tmp_path)
    assert outcome.status == 0
    assert outcome.err == (
        "rankwise: warning: run 'r': 2 queries of the run have no judgments (ignored); "
        "2 judged queries are not in the run (left out of the means; --missing zero scores "
        "them 0)\n"
    )
    outcome = cli(["eval", "q", "r", "-m", "map", "--missing", "zero", "-f", "csv"], cwd=tmp_path)
    assert outcome.err.endswith("2 judged queries are not in the run (scored 0)\n")
    assert outcome.text == f"run,map\nr,{1 / 3!r}\n"
    outcome = cli(["eval", "q", "r", "-m", "map", "--quiet"], cwd=tmp_path)
    assert outcome.err == ""
    outcome = cli(["--quiet", "eval", "q", "r", "-m", "map"], cwd=tmp_path)
    assert (outcome.status, outcome.err) == (0, "")


def test_no_query_in_common_is_an_error(cli, tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("x1 Q0 d1 1 1 r\n")
    outcome = cli(["eval", "q", "r", "-m", "map"], cwd=tmp_path)
    assert outcome.status == 1
    assert outcome.err == (
        "rankwise: error: run 'r' and the judgments have no query in common "
        "(run: 1 query, e.g. ['x1']; judgments: 1 query, e.g. ['q1'])\n"
    )


@pytest.mark.parametrize("arguments, message", [
    (["eval", "qrels.txt"], "the following arguments are required: RUN"),
    (["eval", "qrels.txt", "a.run", "--depth", "-1"],
     "argument -M/--depth: expected a non-negative integer"),
    (["eval", "qrels.txt", "a.run", "--rel", "high"],
     "argument --rel: expected a finite number, got 'high'"),
    (["eval", "qrels.txt", "a.run", "-f", "xml"], "argument -f/--format: invalid choice: 'xml'"),
    (["eval", "qrels.txt", "a.run", "--bogus"], "unrecognized arguments: --bogus"),
    (["nonsense"], "invalid choice: 'nonsense'"),
])
def test_command_line_errors_exit_with_2(arguments: list[str], message: str, cli) -> None:
    outcome = cli(arguments, cwd=GOLDEN)
    assert outcome.status == 2
    assert message in outcome.err.splitlines()[-1]
    assert outcome.out == b""


def test_no_command_prints_the_help(cli) -> None:
    outcome = cli([])
    assert outcome.status == 2
    assert "COMMAND" in outcome.err


def test_version(cli) -> None:
    outcome = cli(["--version"])  # then each C speed-up: tests/test_speedups.py
    assert outcome.status == 0
    assert outcome.text.startswith(f"rankwise {rw.__version__} (Python ")


def test_text_valued_measure_in_per_query_output(cli) -> None:
    outcome = cli(["eval", "qrels.txt", "a.run", "-m", "relstring@3", "--per-query", "-f", "csv"],
                  cwd=GOLDEN)
    assert outcome.status == 0, outcome.err
    assert outcome.text == "run,query,relstring@3\nA,q1,201\nA,q2,01\nA,all,\n"


def test_tie_warning_and_average(tmp_path, capsys) -> None:
    from rankwise.cli import main

    (tmp_path / "q").write_text("q 0 zz 1\n")
    lines = [f"q Q0 d{i} 1 0.0 r\n" for i in range(9)] + ["q Q0 zz 1 0.0 r\n"]
    (tmp_path / "r").write_text("".join(lines))
    args = ["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "mrr@10", "-f", "tsv"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "tied scores decide mrr@10 0.1000..1.0000" in captured.err
    assert "--ties average" in captured.err
    assert float(captured.out.splitlines()[1].split("\t")[1]) == 1.0
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "mrr@10", "-f", "tsv",
                 "--ties", "average"]) == 0
    captured = capsys.readouterr()
    assert "tied scores" not in captured.err
    assert float(captured.out.splitlines()[1].split("\t")[1]) == pytest.approx(0.29289682539)


def _trec_eval_order(qrels: str, run: str) -> list[str]:
    """The query order trec_eval -q prints (its files sorted by qid with strcmp)."""
    return sorted({line.split()[0] for line in run.splitlines()} &
                  {line.split()[0] for line in qrels.splitlines()},
                  key=lambda q: q.encode("utf-8"))


@pytest.mark.parametrize(
    ("ids", "want"),
    [
        # integers: numeric order (007 and 7 are both 7: by their text)
        (["10", "2", "1", "11", "007", "7", "-3"], ["-3", "1", "2", "007", "7", "10", "11"]),
        # anything else: byte order, trec_eval's (q10 before q2; upper case first)
        (["q10", "q2", "q1", "Q5", "q\u00e9"], ["Q5", "q1", "q10", "q2", "q\u00e9"]),
        # one id not an integer, or beyond 64 bits: byte order for all
        (["10", "2", "x"], ["10", "2", "x"]),
        (["10", "2", "99999999999999999999"], ["10", "2", "99999999999999999999"]),
        (["+1", "2", "10"], ["+1", "10", "2"]),  # ASCII digits only: '+1' is text
    ],
)
def test_per_query_rows_are_in_numeric_order_when_every_id_is_an_integer(
        cli, tmp_path: Path, ids: list[str], want: list[str]) -> None:
    qrels = "".join(f"{q} 0 d 1\n" for q in ids)
    run = "".join(f"{q} Q0 d 1 1.0 r\n" for q in reversed(ids))
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    outcome = cli(["eval", "q", "r", "-m", "P@1", "--per-query", "-f", "csv"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    shown = [line.split(",")[1] for line in outcome.text.splitlines()[1:]]
    assert shown == [*want, "all"]
    if not all(q.lstrip("-").isdigit() for q in ids) or "99999999999999999999" in ids:
        assert want == _trec_eval_order(qrels, run)
    # rankwise trec-eval -q keeps trec_eval's order, whatever the ids
    outcome = cli(["trec-eval", "-q", "-m", "P.1", "q", "r"], cwd=tmp_path)
    assert [line.split("\t")[1] for line in outcome.text.splitlines()] == [
        *_trec_eval_order(qrels, run), "all"]


def test_tie_warning_of_dialect_measures(tmp_path, capsys) -> None:
    """scikit-learn's tie rules (averaged nDCG, LRAP and coverage at the end of the tie
    group) give one value whatever the order: no bounds, no warning; an input-order
    dialect (LightGBM) has bounds, lowest first, and no --ties average to suggest."""
    from rankwise.cli import main

    (tmp_path / "q").write_text("1 0 a 0\n1 0 b 3\n1 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 c 3 1.0 r\n1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n")
    sklearn = ["ndcg(dialect=sklearn)", "coverage(dialect=sklearn)", "map(dialect=sklearn)"]
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", *sklearn]) == 0
    assert "tied scores" not in capsys.readouterr().err
    results = rw.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), sklearn)
    assert all(low == high == results.mean[name]
               for name, (low, high) in results.ties.bounds.items())
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m",
                 "ndcg(dialect=lightgbm)"]) == 0
    err = capsys.readouterr().err
    assert "tied scores decide ndcg(dialect=lightgbm) 0.5413..1.0000" in err
    assert "--ties average" not in err
