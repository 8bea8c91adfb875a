"""A bare ndcg: its meaning said in the docs, by 'rankwise measures', and once when it matters
(issue 13, item 3)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.exceptions import RankwiseWarning

ROOT = Path(__file__).parents[2]
TOOLS = "trec_eval, pytrec_eval, ranx, ir_measures and scikit-learn"
GRADED = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d1": 1}}
BINARY = {"q1": {"d1": 1, "d2": 1, "d3": 0}, "q2": {"d1": 1}}
RUN = {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}, "q2": {"d1": 1.0}}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    graded = tmp_path / "graded.qrels"
    graded.write_text("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\n")
    binary = tmp_path / "binary.qrels"
    binary.write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\n")
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 d2 1 3.0 a\nq1 Q0 d1 2 2.0 a\nq1 Q0 d3 3 1.0 a\n")
    other = tmp_path / "b.run"
    other.write_text("q1 Q0 d1 1 3.0 b\nq1 Q0 d2 2 2.0 b\nq1 Q0 d3 3 1.0 b\n")
    return {"graded": graded, "binary": binary, "run": run, "other": other}


def note_for(names: str, linear: str) -> str:
    verb = "uses" if "," not in names else "use"
    return (f"rankwise: note: {names} {verb} rankwise's gain 2^grade - 1 and the judgments have "
            f"grades other than 0 and 1; {TOOLS} use the grade itself as the gain: {linear} "
            "gives their number\n")


def test_eval_says_it_once_under_the_table(cli, files) -> None:
    outcome = cli(["eval", files["graded"], files["run"], files["other"],
                   "-m", "ndcg", "ndcg@2", "map"])
    assert outcome.status == 0
    assert outcome.err == note_for("ndcg, ndcg@2", "ndcg(gain=linear)")


@pytest.mark.parametrize("case", [
    ["graded", "-m", "ndcg@2(gain=linear)", "map"],  # the linear gain
    ["graded", "-m", "ndcg_cut.2"],                  # trec_eval's name: trec_eval's meaning
    ["graded", "-m", "ndcg(gains=2=3)"],              # gains set by hand
    ["binary", "-m", "ndcg"],                         # 2^g - 1 = g for grades 0 and 1
    ["graded", "-m", "ndcg", "--quiet"],
])
def test_nothing_is_said_when_it_does_not_matter(cli, files, case: list[str]) -> None:
    outcome = cli(["eval", files[case[0]], files["run"], *case[1:]])
    assert outcome.status == 0
    assert outcome.err == ""


def test_compare_says_it_too(cli, files) -> None:
    outcome = cli(["compare", files["graded"], files["run"], files["other"], "-m", "ndcg@3",
                   "--quiet"])
    assert outcome.err == ""
    outcome = cli(["compare", files["graded"], files["run"], files["other"], "-m", "ndcg@3"])
    assert outcome.err.endswith(note_for("ndcg@3", "ndcg@3(gain=linear)"))
    assert outcome.err.count("rankwise's gain") == 1


def test_python_gives_one_rankwise_warning() -> None:
    with pytest.warns(RankwiseWarning) as caught:
        rw.evaluate(GRADED, RUN, ["ndcg@10", "map"])
    messages = [str(w.message) for w in caught if "gain" in str(w.message)]
    assert messages == [note_for("ndcg@10", "ndcg@10(gain=linear)")[len("rankwise: note: "):-1]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rw.evaluate(BINARY, RUN, ["ndcg@10"])
        rw.evaluate(GRADED, RUN, ["ndcg@10(gain=linear)", "map"])


def test_results_keep_the_note() -> None:
    with pytest.warns(RankwiseWarning):
        results = rw.evaluate(GRADED, RUN, ["ndcg"])
    assert len(results.notes) == 1 and TOOLS in results.notes[0]


def test_measures_ndcg_says_both_meanings(cli) -> None:
    text = " ".join(cli(["measures", "ndcg"]).text.split())
    assert "In rankwise's language ('rankwise eval', 'compare', the Python API) it is " \
           "ndcg(gain=exp): gain 2^grade - 1" in text
    assert "In trec_eval's ('rankwise trec-eval -m ndcg', and names with a dot such as " \
           "ndcg_cut.10) it is ndcg(gain=linear)" in text
    listing = cli(["measures"]).text
    assert "trec_eval's 'ndcg' (rankwise trec-eval, ndcg_cut.k) is ndcg(gain=linear)" in listing


def test_the_rule_is_one_sentence_in_the_docs(cli, files) -> None:
    sentence = ("A bare `ndcg` means `ndcg(gain=exp)` (gain 2^grade - 1) wherever rankwise's "
                "language is read")
    for page in ("docs/measures.md", "docs/cli.md"):
        assert sentence in " ".join((ROOT / page).read_text().split())
    # the note shown in docs/cli.md is the one printed
    shown = note_for("ndcg@10", "ndcg@10(gain=linear)")
    assert shown in (ROOT / "docs/cli.md").read_text()
