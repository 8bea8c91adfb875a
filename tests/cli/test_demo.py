"""``rankwise demo``: bundled data, the comparison it prints, and packaging of the data."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from rankwise.metrics import ndcg_score

ROOT = Path(__file__).parents[2]
CONFORMANCE = ROOT / "tests" / "data" / "trec_eval"


def test_demo_runs_and_compares(cli) -> None:
    outcome = cli(["demo"])
    assert outcome.status == 0, outcome.err
    assert outcome.err == ""
    text = outcome.text
    assert "run 'STANDARD', 3 topics, 1500 retrieved documents" in text
    for topic in ("301", "302", "303", "all"):
        assert re.search(rf"^STANDARD\s+{topic}\s", text, re.MULTILINE)
    assert "model A" in text and "model B" in text
    assert "gain=linear counts g itself" in text


def test_demo_numbers_match_the_api_and_scikit_learns_definition(cli) -> None:
    import rankwise.cli.commands.demo as demo

    text = cli(["demo"]).text
    rows = dict(re.findall(r"^(ndcg@\d+(?:\(gain=linear\))?)\s+(\S+\s+\S+)$", text, re.MULTILINE))
    y_true = [demo.TUTORIAL_GRADES]
    for k in (3, 5, 10):
        a, b = (float(x) for x in rows[f"ndcg@{k}(gain=linear)"].split())
        assert a == 1.0
        assert f"{b:.4f}" == f"{ndcg_score(y_true, [demo.TUTORIAL_SCORES['model B']], k=k):.4f}"
        a_exp, _ = (float(x) for x in rows[f"ndcg@{k}"].split())
        assert a_exp == 1.0
    # the tutorial's published values for model B (linear gain)
    assert rows["ndcg@3(gain=linear)"].split()[1] == "0.7654"
    assert rows["ndcg@5(gain=linear)"].split()[1] == "0.7113"
    assert rows["ndcg@10(gain=linear)"].split()[1] == "0.8923"


def test_demo_in_markdown(cli) -> None:
    outcome = cli(["demo", "--format", "markdown"])
    assert outcome.status == 0
    assert "| STANDARD | 301" in outcome.text


def test_bundled_data_is_trec_evals_test_collection() -> None:
    for name in ("qrels.test", "results.test"):
        bundled = files("rankwise").joinpath("demo_data", name).read_bytes()
        assert bundled == (CONFORMANCE / name).read_bytes()
    notice = files("rankwise").joinpath("demo_data", "NOTICE.md").read_text()
    assert "National Institute of Standards and Technology" in notice
    assert "trec_eval" in notice


def test_the_printed_commands_work_from_anywhere(cli, tmp_path: Path) -> None:
    """Issue 13, item 19: no site-packages path; the commands shown work as printed."""
    text = cli(["demo"]).text
    assert "site-packages" not in text and str(ROOT) not in text
    assert not re.search(r"\s/\S+", text)  # no absolute path at all
    save = re.search(r"^\s+(rankwise demo --save \S+)$", text, re.MULTILINE)
    trec = re.search(r"^\s+rankwise (trec-eval \S+ \S+)$", text, re.MULTILINE)
    assert save is not None and trec is not None
    outcome = cli(save.group(1).split()[1:], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == [
        "NOTICE.md", "qrels.test", "results.test"]
    outcome = cli(trec.group(1).split(), cwd=tmp_path)
    assert outcome.text == (CONFORMANCE / "out.test").read_text()


def test_each_step_says_in_plain_words_what_its_parts_are(cli) -> None:
    text = cli(["demo"]).text
    first, second = text.split("\n2. ")
    for words in ('("topics", or', 'the "judgments" (TREC calls them', 'a search engine (a "run")',
                  "ndcg@10", "map ", "mrr ", "P@10 ", "recall@1000 "):
        assert words in first, words
    assert "3 questions" in first and "301-303" in first and "500 documents each" in first
    assert "the judgments are the list of grades above" in second
    assert "sorted\n   by score, the documents make that model's ranking" in second


@pytest.mark.slow
def test_demo_data_and_cli_are_in_the_built_package(tmp_path: Path) -> None:
    # pyproject.toml's build-system: an older setuptools cannot read its license field
    pytest.importorskip("setuptools", minversion="77")
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "pyproject.toml", project)
    shutil.copy(ROOT / "README.md", project)
    shutil.copytree(ROOT / "src", project / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    done = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
         "--build-lib", str(tmp_path / "lib")],
        cwd=project, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    package = tmp_path / "lib" / "rankwise"
    for name in ("qrels.test", "results.test", "NOTICE.md"):
        assert (package / "demo_data" / name).is_file()
    for name in ("__main__.py", "cli/__init__.py", "cli/commands/demo.py"):
        assert (package / name).is_file()
