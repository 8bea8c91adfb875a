"""trec_eval 10.0's own test cases through ``rankwise trec-eval``, byte for byte.

Inputs and expected outputs: tests/data/trec_eval (NIST trec_eval 10.0, test/).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TREC_EVAL_DATA = Path(__file__).parents[1] / "data" / "trec_eval"

META_PARAMS = [
    "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
    "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
    "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
]

# expected output file -> trec_eval's arguments (README.md of the data folder)
CASES = {
    "out.test": ("out.test", ["qrels.test", "results.test"]),
    "out.test (with comments)": ("out.test", ["qrels.test.with-comments", "results.test"]),
    "out.test.a": ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    "out.test.aq": ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    "out.test.aqc": ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    "out.test.aqcM": (
        "out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]
    ),
    "out.test.aql": (
        "out.test.aql",
        ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
    ),
    "out.test.meas_params": (
        "out.test.meas_params", ["-q", *META_PARAMS, "qrels.test", "results.test"]
    ),
    "out.comment.test": ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_output_is_byte_identical(case: str, cli) -> None:
    expected_file, arguments = CASES[case]
    outcome = cli(["trec-eval", *arguments], cwd=TREC_EVAL_DATA)
    assert outcome.status == 0, outcome.err
    expected = (TREC_EVAL_DATA / expected_file).read_bytes()
    if outcome.out != expected:
        got = outcome.text.splitlines()
        want = expected.decode().splitlines()
        diff = [f"line {i + 1}: got {g!r}, want {w!r}" for i, (g, w) in enumerate(zip(got, want))
                if g != w]
        pytest.fail(f"{len(diff)} lines differ (got {len(got)} lines, want {len(want)}):\n"
                    + "\n".join(diff[:20]))


def test_nothing_on_stderr_for_a_clean_case(cli) -> None:
    outcome = cli(["trec-eval", "qrels.test", "results.test"], cwd=TREC_EVAL_DATA)
    assert outcome.err == ""


def test_python_dash_m_gives_the_same_bytes(tmp_path: Path) -> None:
    src = Path(__file__).parents[2] / "src"
    done = subprocess.run(
        [sys.executable, "-m", "rankwise", "trec-eval", "-q", "-m", "all_trec",
         "qrels.test", "results.test"],
        cwd=TREC_EVAL_DATA, capture_output=True, check=False,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (TREC_EVAL_DATA / "out.test.aq").read_bytes()
