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


def test_the_printed_trec_eval_command_works(cli) -> None:
    text = cli(["demo"]).text
    command = re.search(r"rankwise trec-eval (\S+) (\S+)", text)
    assert command is not None
    outcome = cli(["trec-eval", command.group(1), command.group(2)])
    assert outcome.text == (CONFORMANCE / "out.test").read_text()


@pytest.mark.slow
def test_demo_data_and_cli_are_in_the_built_package(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")
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
