"""``rankwise guide``: prints what rw.guide says, in every format; errors are one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rankwise as rw

ROOT = Path(__file__).parents[2]
DEMO = ROOT / "src" / "rankwise" / "demo_data"
QRELS, RUN = DEMO / "qrels.test", DEMO / "results.test"


def test_guide_prints_what_the_api_says(cli) -> None:
    outcome = cli(["guide", QRELS, RUN])
    assert outcome.status == 0, outcome.err
    assert outcome.err == ""
    assert outcome.text == str(rw.guide(str(QRELS), [str(RUN)]))
    assert outcome.text.rstrip().endswith(
        f"rankwise eval {QRELS} {RUN} -m map P@10 recall@1000")


def test_guide_of_judgments_alone(cli) -> None:
    outcome = cli(["guide", QRELS])
    assert outcome.status == 0
    assert "No run given" in outcome.text
    assert outcome.text.rstrip().endswith(f"rankwise eval {QRELS} RUN -m map P@10 recall@1000")


def test_options_reach_the_guide(cli) -> None:
    outcome = cli(["guide", QRELS, RUN, "-k", "5", "--min-diff", "0.1", "--rel", "1",
                   "-f", "json"])
    data = json.loads(outcome.text)
    assert (data["cutoff"], data["min_diff"]) == (5, 0.1)
    assert "P@5" in data["measures"]


def test_output_file_and_its_format(cli, tmp_path: Path) -> None:
    target = tmp_path / "guide.csv"
    outcome = cli(["guide", QRELS, RUN, "-o", target])
    assert outcome.status == 0 and outcome.text == ""
    assert target.read_text().startswith("scope,run,topic,rule,text\n")
    assert outcome.err.startswith(f"rankwise: wrote {target} (")


def test_an_output_that_is_an_input_is_refused(cli, tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS.read_bytes())
    outcome = cli(["guide", qrels, "-o", qrels])
    assert outcome.status == 1 and "would replace a file being read" in outcome.err
    assert qrels.read_bytes() == QRELS.read_bytes()


def test_formats_of_the_inputs_go_into_the_suggestion(cli, tmp_path: Path) -> None:
    qrels = tmp_path / "judgments.txt"
    qrels.write_text("query_id,doc_id,relevance\nq1,a,1\nq2,b,1\n")
    outcome = cli(["guide", qrels, "--qrels-format", "csv"])
    assert outcome.status == 0, outcome.err
    assert f"rankwise eval {qrels} RUN -m mrr@10 recall@1000 --qrels-format csv" in outcome.text


def test_bad_input_is_one_line(cli, tmp_path: Path) -> None:
    outcome = cli(["guide", tmp_path / "absent.txt"])
    assert outcome.status == 1
    assert outcome.err.count("\n") == 1 and "absent.txt" in outcome.err
    assert cli(["guide", QRELS, "-k", "0"]).status == 2
    for value in ("2", "0"):  # an invalid value is a usage error, as -k 0 is (it exited 1)
        outcome = cli(["guide", QRELS, "--min-diff", value])
        assert outcome.status == 2
        assert outcome.err.endswith(
            f"argument --min-diff: expected a number in (0, 1], got '{value}'\n")


def test_help_imports_nothing_heavy() -> None:
    probe = ("import sys\nfrom rankwise.cli import main\nstatus = main(['guide', '--help'])\n"
             "print(sorted(m for m in ('pyarrow', 'numpy', 'scipy', 'pandas') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False, env={"PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr
    assert "rankwise guide" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "tsv", "csv", "jsonl", "latex"])
def test_every_format(cli, fmt: str) -> None:
    outcome = cli(["guide", QRELS, RUN, "-f", fmt])
    assert outcome.status == 0, outcome.err
    assert outcome.text == rw.guide(str(QRELS), str(RUN)).to_table(fmt)
