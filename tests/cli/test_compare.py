"""``rankwise compare``: golden tables, the API's numbers, options, notes, errors, files."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.comparison import compare

GOLDEN = Path(__file__).parent / "golden" / "compare"
TREC = Path(__file__).parents[1] / "data" / "trec_eval"
SRC = Path(__file__).parents[2] / "src"

RUNS = ["qrels.txt", "bm25.run", "dense.run", "hybrid.run"]
COMMON = ["--names", "bm25", "dense", "hybrid", "-m", "mrr", "ndcg@10", "P@1", "--seed", "42"]


def _golden_cases() -> list[tuple[str, str]]:
    return sorted(
        (path.stem, path.suffix[1:]) for path in GOLDEN.iterdir()
        if path.stem in ("baseline", "pairs", "baseline_long", "pairs_tukey")
    )


def _arguments(layout: str, fmt: str) -> list[str]:
    extra = {"baseline": ["--baseline", "bm25"], "pairs": [],
             "baseline_long": ["--baseline", "bm25", "--long"],
             "pairs_tukey": ["--test", "tukey"]}[layout]
    return ["compare", *RUNS, *COMMON, *extra, "-f", fmt]


@pytest.mark.parametrize("layout, fmt", _golden_cases())
def test_golden_output(layout: str, fmt: str, cli) -> None:
    outcome = cli(_arguments(layout, fmt), cwd=GOLDEN)
    assert outcome.status == 0, outcome.err
    # P@1 on 12 queries: a few pairs cannot reach significance, and stderr says so
    notes = outcome.err.splitlines()
    assert all(line.startswith("rankwise: note: ") and
                         "no difference can be significant" in line for line in notes)
    assert outcome.text == (GOLDEN / f"{layout}.{fmt}").read_text(encoding="utf-8")


def test_the_golden_set_covers_every_format() -> None:
    cases = set(_golden_cases())
    for fmt in ("table", "markdown", "latex", "tsv", "csv", "json", "jsonl"):
        assert ("baseline", fmt) in cases
    for fmt in ("table", "markdown", "latex", "tsv", "json"):
        assert ("pairs", fmt) in cases


def test_wide_table_marks_significant_cells_and_their_direction(cli) -> None:
    outcome = cli(["compare", *RUNS, *COMMON, "--baseline", "dense"], cwd=GOLDEN)
    assert outcome.status == 0, outcome.err
    lines = outcome.text.splitlines()
    assert lines[2].split() == ["dense", "0.6903", "0.7675", "0.5000"]  # baseline first
    assert lines[3].split() == ["bm25", "0.4209", "†▼", "0.5596", "†▼", "0.1667"]
    assert lines[4].split() == ["hybrid", "0.6389", "0.7295", "0.4167"]
    assert lines[-2].startswith("† significant at alpha = 0.05 (p_adjusted <= alpha)")
    assert "against 'dense'" in lines[-2] and "seed 42" in lines[-2]
    assert lines[-1] == "▲ higher, ▼ lower than dense"


def test_the_cells_are_the_api_s_numbers(cli) -> None:
    outcome = cli(["compare", *RUNS, *COMMON, "--baseline", "bm25", "--digits", "6"],
                  cwd=GOLDEN)
    runs = {name: GOLDEN / f"{name}.run" for name in ("bm25", "dense", "hybrid")}
    result = compare(GOLDEN / "qrels.txt", runs, ["mrr", "ndcg@10", "P@1"],
                     baseline="bm25", seed=42)
    rows = {line.split()[0]: line.split()[1:] for line in outcome.text.splitlines()[2:5]}
    for system, cells in rows.items():
        numbers = [cell for cell in cells if cell[0].isdigit()]
        for measure, cell in zip(result.measures, numbers):
            assert cell == f"{result.row(measure, system).mean:.6f}"


def test_marker_option_and_latex_markers(cli) -> None:
    outcome = cli(["compare", *RUNS, *COMMON, "--baseline", "bm25", "--marker", "*"],
                  cwd=GOLDEN)
    assert "0.6903 *▲" in outcome.text
    assert outcome.text.splitlines()[-2].startswith("* significant at alpha")
    outcome = cli(["compare", *RUNS, *COMMON, "--baseline", "bm25", "--marker", "*",
                   "-f", "markdown"], cwd=GOLDEN)
    assert "\n\\* significant at alpha" in outcome.text  # not a list item
    outcome = cli(["compare", *RUNS, *COMMON, "--baseline", "bm25", "--marker", "‡",
                   "-f", "latex"], cwd=GOLDEN)
    assert "0.6903$^{\\ddagger\\blacktriangle}$" in outcome.text
    assert "% $^{\\ddagger}$ significant at alpha" in outcome.text


def test_json_is_the_comparison_s_dict(cli) -> None:
    outcome = cli(["compare", *RUNS, *COMMON, "--baseline", "bm25", "-f", "json"], cwd=GOLDEN)
    runs = {name: GOLDEN / f"{name}.run" for name in ("bm25", "dense", "hybrid")}
    want = compare(GOLDEN / "qrels.txt", runs, ["mrr", "ndcg@10", "P@1"],
                   baseline="bm25", seed=42).to_dict()
    got = json.loads(outcome.out)
    assert got.keys() == want.keys()
    for row, expected in zip(got["rows"], want["rows"]):
        assert row == {k: None if isinstance(v, float) and math.isnan(v) else v
                       for k, v in expected.items()}
    assert {k: v for k, v in got.items() if k != "rows"} == {
        k: v for k, v in want.items() if k != "rows"}


# --------------------------------------------------------------------------
# trec_eval's test collection, with two perturbed copies of its run
# --------------------------------------------------------------------------


@pytest.fixture
def trec_runs(tmp_path: Path) -> Path:
    """STANDARD, a copy with query 301 ranked backwards, a copy without query 303."""
    lines = (TREC / "results.test").read_text().splitlines()
    (tmp_path / "standard.run").write_text("\n".join(lines) + "\n")
    backwards = []
    for line in lines:
        qid, it, doc, rank, score, _ = line.split()
        if qid == "301":
            score = repr(-float(score))
        backwards.append(" ".join([qid, it, doc, rank, score, "BACK"]))
    (tmp_path / "backwards.run").write_text("\n".join(backwards) + "\n")
    partial = [line.replace("STANDARD", "PARTIAL") for line in lines
               if not line.startswith("303")]
    (tmp_path / "partial.run").write_text("\n".join(partial) + "\n")
    (tmp_path / "qrels.test").write_bytes((TREC / "qrels.test").read_bytes())
    return tmp_path


TREC_ARGS = ["qrels.test", "standard.run", "backwards.run", "partial.run"]


@pytest.mark.parametrize("options, api", [
    ([], {}),
    (["--baseline", "standard.run"], {"baseline": "standard.run"}),
    (["--test", "t-test", "--correction", "bonferroni"],
     {"test": "t-test", "correction": "bonferroni"}),
    (["--test", "wilcoxon", "--correction", "none", "--family", "all"],
     {"test": "wilcoxon", "correction": "none", "family": "all"}),
    (["--test", "bootstrap", "--n-resamples", "500", "--ci", "bootstrap", "--alpha", "0.1"],
     {"test": "bootstrap", "n_resamples": 500, "ci": "bootstrap", "alpha": 0.1}),
    (["--test", "sign", "--correction", "bh"], {"test": "sign", "correction": "bh"}),
    (["-c"], {"missing": "zero"}),
    (["--missing", "zero"], {"missing": "zero"}),
    (["-M", "20", "-J", "--rel", "1"], {"depth": 20, "judged_only": True, "rel": 1}),
])
def test_options_are_passed_to_the_api(options: list[str], api: dict, cli,
                                       trec_runs: Path) -> None:
    outcome = cli(["compare", *TREC_ARGS, "-m", "map", "P@10", "ndcg@10", "--seed", "7",
                   "-f", "json", "--quiet", *options], cwd=trec_runs)
    assert outcome.status == 0, outcome.err
    runs = [trec_runs / name for name in TREC_ARGS[1:]]  # named by run id, as the command
    want = compare(trec_runs / "qrels.test", runs, ["map", "P@10", "ndcg@10"], seed=7,
                   **api).to_dict()
    assert json.dumps(json.loads(outcome.out), sort_keys=True) == json.dumps(
        json.loads(json.dumps(want).replace("NaN", "null")), sort_keys=True)


def test_notes_go_to_standard_error(cli, trec_runs: Path) -> None:
    outcome = cli(["compare", *TREC_ARGS, "-m", "map", "--seed", "1"], cwd=trec_runs)
    assert outcome.status == 0
    notes = outcome.err.splitlines()
    assert notes == [
        "rankwise: note: PARTIAL vs STANDARD: compared on the 2 queries evaluated "
        "for both; 1 evaluated for only one was left out (missing='zero' scores a judged "
        "query a run missed as 0 and keeps it)",
        "rankwise: note: map: PARTIAL vs STANDARD: all 2 differences are zero; p = 1",
        "rankwise: note: PARTIAL vs BACK: compared on the 2 queries evaluated "
        "for both; 1 evaluated for only one was left out (missing='zero' scores a judged "
        "query a run missed as 0 and keeps it)",
        "rankwise: note: BACK vs STANDARD (map); PARTIAL vs BACK (map): no difference can be "
        "significant at alpha = 0.05: with 1 non-zero difference, the smallest p-value "
        "Fisher's randomization test can give is 2/2^1 = 1",
    ]
    # the table shows each run's mean over the most queries it was compared on
    lines = outcome.text.splitlines()
    assert [line.split()[:2] for line in lines[2:5]] == [
        ["STANDARD", "(a)"], ["BACK", "(b)"], ["PARTIAL", "(c)"]]
    quiet = cli(["compare", *TREC_ARGS, "-m", "map", "--seed", "1", "--quiet"], cwd=trec_runs)
    assert (quiet.status, quiet.err, quiet.out) == (0, "", outcome.out)
    zero = cli(["compare", *TREC_ARGS, "-m", "map", "--seed", "1", "-c"], cwd=trec_runs)
    assert zero.status == 0 and "left out" not in zero.err
    assert all("no difference can be significant" in line for line in zero.err.splitlines())


def test_aliases_of_tests_and_corrections(cli, trec_runs: Path) -> None:
    for test, correction in [("permutation", "BH"), ("t", "holm-bonferroni"),
                             ("signed-rank", "fdr")]:
        outcome = cli(["compare", *TREC_ARGS, "-m", "map", "--test", test,
                       "--correction", correction, "--quiet", "-f", "json"], cwd=trec_runs)
        assert outcome.status == 0, outcome.err
    assert json.loads(outcome.out)["test"] == "wilcoxon"
    assert json.loads(outcome.out)["correction"] == "benjamini-hochberg"


def test_default_measures_and_names(cli, trec_runs: Path) -> None:
    outcome = cli(["compare", *TREC_ARGS, "--quiet", "--seed", "0"], cwd=trec_runs)
    assert outcome.status == 0, outcome.err
    header = outcome.text.splitlines()[0].split()
    assert header == ["system", "ndcg@10", "map", "mrr", "P@10", "recall@1000"]


def test_repeated_names_are_numbered(cli, trec_runs: Path) -> None:
    (trec_runs / "other").mkdir()
    (trec_runs / "other" / "standard.run").write_bytes((trec_runs / "backwards.run").read_bytes())
    outcome = cli(["compare", "qrels.test", "standard.run", "other/standard.run",
                   "standard.run", "-m", "map", "-f", "json", "--seed", "0"], cwd=trec_runs)
    assert outcome.status == 0, outcome.err
    assert json.loads(outcome.out)["systems"] == ["STANDARD", "BACK", "STANDARD#2"]


def test_run_from_standard_input(cli) -> None:
    outcome = cli(["compare", "qrels.txt", "bm25.run", "-", "--names", "bm25", "dense",
                   "-m", "mrr", "--seed", "42", "--baseline", "bm25"],
                  cwd=GOLDEN, stdin=(GOLDEN / "dense.run").read_bytes())
    assert outcome.status == 0, outcome.err
    assert "dense   0.6903 †▲" in outcome.text
    outcome = cli(["compare", "qrels.txt", "bm25.run", "-", "-m", "mrr", "-f", "json"],
                  cwd=GOLDEN, stdin=(GOLDEN / "dense.run").read_bytes())
    assert json.loads(outcome.out)["systems"] == ["bm25", "dense"]  # their run ids


def test_baseline_by_its_file(cli) -> None:
    outcome = cli(["compare", *RUNS, *COMMON, "--baseline", "bm25.run", "-f", "json"],
                  cwd=GOLDEN)
    assert outcome.status == 0, outcome.err
    assert json.loads(outcome.out)["baseline"] == "bm25"


def test_output_file_and_format_from_its_extension(cli, tmp_path: Path) -> None:
    for name, golden in [("out.tex", "baseline.latex"), ("out.csv", "baseline.csv"),
                         ("out.md", "baseline.markdown")]:
        target = tmp_path / name
        outcome = cli(["compare", *RUNS, *COMMON, "--baseline", "bm25", "-o", target,
                       "--quiet"], cwd=GOLDEN)
        assert (outcome.status, outcome.out, outcome.err) == (0, b"", "")
        assert target.read_text(encoding="utf-8") == (GOLDEN / golden).read_text(
            encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.md", "out.tex"]


def test_output_to_a_directory_fails_cleanly(cli, tmp_path: Path) -> None:
    outcome = cli(["compare", *RUNS, *COMMON, "-o", tmp_path, "--quiet"], cwd=GOLDEN)
    assert outcome.status == 1
    assert outcome.err == (
        f"rankwise: error: {tmp_path}: is a directory, expected a file name for -o\n"
    )


# --------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize("arguments, message", [
    (["--baseline", "bm52"],
     "baseline 'bm52' is not one of the runs ['bm25', 'dense', 'hybrid']; "
     "did you mean 'bm25'?"),
    (["--test", "randomisaton"],
     "test must be one of 'randomization', 't-test', 'wilcoxon', 'bootstrap', 'sign', 'tukey', "
     "'randomized-tukey' (or an alias: 'randomisation', 'permutation', 'fisher', 't', 'ttest', "
     "'paired-t', 'student', 'signed-rank', 'sign-test', 'tukey-hsd', 'hsd', 'randomised-tukey', "
     "'randomized-tukey-hsd', 'randomised-tukey-hsd', 'random-tukey'), got 'randomisaton' "
     "(str); did you mean 'randomisation'?"),
    (["--correction", "holmes"],
     "correction must be one of 'auto', 'holm', 'bonferroni', 'benjamini-hochberg', 'none' (or "
     "an alias: 'holm-bonferroni', 'bh', 'fdr-bh', 'fdr') or None, got 'holmes' (str); did you "
     "mean 'holm'?"),
    (["-m", "ndgc@10"], "unknown measure 'ndgc@10'; did you mean 'ndcg@10'?"),
    (["-m", "gm_map"], "compare tests differences of arithmetic means"),
])
def test_bad_values_exit_with_1(arguments: list[str], message: str, cli) -> None:
    outcome = cli(["compare", *RUNS, *COMMON, *arguments], cwd=GOLDEN)
    assert outcome.status == 1
    assert outcome.out == b""
    assert outcome.err.startswith("rankwise: error: ")
    assert message in outcome.err
    assert len(outcome.err.splitlines()) == 1


@pytest.mark.parametrize("names, message", [
    (["a", "b", "a"], "--names gives 'a' twice; each run needs its own name"),
    (["a", "b"], "--names gives 2 names for 3 runs; give one per RUN, in order"),
])
def test_bad_names_exit_with_1(names: list[str], message: str, cli) -> None:
    outcome = cli(["compare", *RUNS, "-m", "mrr", "--names", *names], cwd=GOLDEN)
    assert (outcome.status, outcome.err) == (1, f"rankwise: error: {message}\n")


def test_other_bad_inputs_exit_with_1(cli, tmp_path: Path) -> None:
    outcome = cli(["compare", "qrels.txt", "-", "-", "-m", "mrr"], cwd=GOLDEN, stdin=b"")
    assert outcome.status == 1
    assert "'-' (standard input) is given 2 times" in outcome.err
    outcome = cli(["compare", "qrels.txt", "bm25.run", "nothing.run", "-m", "mrr"], cwd=GOLDEN)
    assert outcome.status == 1
    assert outcome.err.startswith("rankwise: error: nothing.run")
    (tmp_path / "elsewhere.run").write_text("x1 Q0 d1 1 1 r\n")
    outcome = cli(["compare", GOLDEN / "qrels.txt", GOLDEN / "bm25.run",
                   tmp_path / "elsewhere.run", "-m", "mrr"])
    assert outcome.status == 1
    assert outcome.err.startswith(
        f"rankwise: error: run 'r' ({tmp_path / 'elsewhere.run'}) and the judgments have no "
        "query in common")


@pytest.mark.parametrize("arguments, message", [
    (["compare", "qrels.txt", "bm25.run"], "the following arguments are required: RUN_B"),
    (["compare", "qrels.txt"], "the following arguments are required: RUN_A, RUN_B"),
    (["compare", *RUNS, "--alpha", "1.5"],
     "argument --alpha: expected a number in (0, 1), got '1.5'"),
    (["compare", *RUNS, "--n-resamples", "0"],
     "argument --n-resamples: expected a positive integer, got '0'"),
    (["compare", *RUNS, "--seed", "-3"],
     "argument --seed: expected a non-negative integer, got '-3'"),
    (["compare", *RUNS, "--family", "pairs"], "argument --family: invalid choice: 'pairs'"),
    (["compare", *RUNS, "-f", "xml"], "argument -f/--format: invalid choice: 'xml'"),
    (["compare", *RUNS, "--ties", "random"], "invalid choice: 'random'"),
])
def test_command_line_errors_exit_with_2(arguments: list[str], message: str, cli) -> None:
    outcome = cli(arguments, cwd=GOLDEN)
    assert outcome.status == 2
    assert message in outcome.err.splitlines()[-1]
    assert outcome.out == b""


HEAVY = ("pyarrow", "pandas", "scipy", "polars", "matplotlib", "pyspark", "sklearn")
PROBE = """
import sys
from rankwise.cli import main
try:
    status = main(sys.argv[1:])
finally:
    sys.stdout.flush()
heavy = sorted(m for m in {heavy!r} if m in sys.modules)
sys.stderr.write("HEAVY=" + ",".join(heavy) + "\\n")
"""


def test_help_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), "compare", "--help"],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0, done.stderr
    assert "RUN_A RUN_B [RUN ...]" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "HEAVY="


def test_the_examples_of_docs_cli_md_are_the_golden_outputs() -> None:
    page = Path(__file__).parents[2] / "docs" / "cli.md"
    if not page.exists():
        pytest.skip("docs/cli.md not present (installed package)")
    section = page.read_text(encoding="utf-8").split("## `rankwise compare`", 1)[1]
    blocks = [block.split("```", 1)[0] for block in section.split("```\n$ rankwise compare")[1:]]
    assert len(blocks) == 3
    for block, golden in zip(blocks, ["baseline.table", "pairs.table", "pairs_tukey.table"]):
        shown = block.split("\n", 2)[2]  # after the command's two lines
        assert shown == (GOLDEN / golden).read_text(encoding="utf-8")


def test_ties_option_reaches_the_comparison(tmp_path, capsys) -> None:
    from rankwise.cli import main

    (tmp_path / "q").write_text("".join(f"q{i} 0 good 1\n" for i in range(6)))
    (tmp_path / "tied").write_text(
        "".join(f"q{i} Q0 good 1 1.0 t\nq{i} Q0 bad 2 1.0 t\n" for i in range(6)))
    (tmp_path / "better").write_text(
        "".join(f"q{i} Q0 good 1 2.0 b\nq{i} Q0 bad 2 1.0 b\n" for i in range(6)))
    args = ["compare", str(tmp_path / "q"), str(tmp_path / "tied"), str(tmp_path / "better"),
            "-m", "mrr", "--baseline", "tied", "--long", "-f", "csv", "--seed", "1", "--quiet"]
    assert main(args) == 0
    trec = capsys.readouterr().out
    assert main([*args, "--ties", "average"]) == 0
    average = capsys.readouterr().out
    assert trec != average
    assert ",0.25," in average


def test_the_wide_table_s_legend_names_no_interval_it_does_not_show(cli) -> None:
    base = ["compare", "qrels.txt", "bm25.run", "dense.run", "-m", "mrr", "--seed", "42"]
    for fmt in ("table", "markdown", "latex"):
        wide = cli([*base, "-f", fmt, "--quiet"], cwd=GOLDEN)
        assert wide.status == 0, wide.err
        assert "CI" not in wide.text and "interval" not in wide.text, fmt
        long = cli([*base, "-f", fmt, "--long", "--quiet"], cwd=GOLDEN)
        assert "95% Student t confidence intervals" in long.text  # its ci_low, ci_high


def test_one_p_value_format_in_a_table() -> None:
    # 30 queries where three systems beat the baseline on every one: with 20,000 sign flips
    # the randomization test's p-value is about 1 / 20,001 (below the 4th decimal) and
    # Holm's adjusted one about 3 times that (above): one row printed 5.0e-05 next to 0.0001
    import re

    qrels = {f"q{i}": {"rel": 1} for i in range(30)}

    def run(rank: int) -> dict:
        return {q: {"rel": 10.0 - rank, **{f"d{j}": 10.0 - j for j in range(1, 8) if j != rank}}
                for q in qrels}

    runs = {"base": run(5), "a": run(1), "b": run(2), "c": run(3)}
    compared = rw.compare(qrels, runs, ["mrr"], baseline="base", seed=3, n_resamples=20_000)
    rows = [row for row in compared if row.baseline is not None]
    assert any(row.p_value < 1e-4 <= row.p_adjusted for row in rows)  # the mixed case
    for fmt in ("table", "markdown", "latex"):
        text = compared.to_table(fmt, long=True)
        assert not re.search(r"\de-\d\d", text), (fmt, text)
        for row in rows:
            line = next(line for line in text.splitlines() if f" {row.system} " in line)
            below = {"markdown": "&lt;", "latex": "\\textless{}"}.get(fmt, "<") + "0.0001"
            want = [f"{value:.4f}" if value >= 5e-5 else below
                    for value in (row.p_value, row.p_adjusted)]
            assert re.search(r" +(?:&|\|)? *".join(map(re.escape, want)), line), (line, want)
    assert not re.search(r"\de-\d\d", repr(compared))
