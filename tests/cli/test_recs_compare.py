"""``rankwise recs TEST RECS RECS ... --baseline NAME``: the API's comparison, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw

scipy_stats = pytest.importorskip("scipy.stats")

TRAIN = "user,item\n1,x\n1,y\n1,z\n2,x\n3,y\n3,z\n5,x\n5,y\n5,z\n5,w\n"
TEST = "user,item\n1,a\n2,b\n3,c\n4,a\n5,b\n6,c\n7,a\n8,b\n"
POP = "user,item,score\n" + "".join(f"{u},a,5\n{u},b,4\n{u},c,3\n{u},x,2\n"
                                    for u in range(1, 9))
PERSONAL = ("user,item,score\n1,a,2\n1,b,1\n2,b,2\n2,a,1\n3,c,2\n3,a,1\n4,a,2\n4,c,1\n"
            "5,b,2\n5,c,1\n6,c,2\n6,a,1\n7,a,2\n7,b,1\n8,b,2\n8,c,1\n")
RANDOM = ("user,item,score\n1,c,2\n1,a,1\n2,a,2\n2,b,1\n3,a,2\n3,c,1\n4,b,2\n4,a,1\n"
          "5,c,2\n5,b,1\n6,a,2\n6,c,1\n7,c,2\n7,a,1\n8,a,2\n8,b,1\n")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name, text in [("train.csv", TRAIN), ("test.csv", TEST), ("pop.csv", POP),
                       ("personal.csv", PERSONAL), ("random.csv", RANDOM)]:
        (tmp_path / name).write_text(text)
    return tmp_path


def _read(files: Path, name: str) -> object:
    import pyarrow.csv as pcsv

    return pcsv.read_csv(files / name, convert_options=pcsv.ConvertOptions(
        column_types={"user": "string", "item": "string"}))


def test_json_is_the_api_s_comparison(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "pop.csv", "personal.csv", "rnd=random.csv",
                   "--baseline", "pop", "--exclude", "train.csv", "-m", "mrr", "ndcg@2",
                   "coverage", "--test", "t", "--seed", "4", "-f", "json"], cwd=files)
    assert outcome.status == 0, outcome.err
    got = json.loads(outcome.text)
    models = {name: _read(files, f) for name, f in
              [("pop", "pop.csv"), ("personal", "personal.csv"), ("rnd", "random.csv")]}
    want = rw.compare_recommendations(_read(files, "test.csv"), models,
                                      ["mrr", "ndcg@2", "coverage"], baseline="pop",
                                      exclude=_read(files, "train.csv"), test="t", seed=4)
    assert got["models"] == ["pop", "personal", "rnd"] and got["baseline"] == "pop"
    assert got["comparison"]["rows"] == json.loads(want.to_table("json"))["comparison"]["rows"]
    assert got["whole_set"] == want.whole_set
    # the p-value of the t-test is scipy's on the per-user reciprocal ranks, by hand: once
    # the training items are out, pop ranks a, b, c first, second, third for everyone;
    # personal puts each user's held-out item first
    pop = np.array([1, 1 / 2, 1 / 3, 1, 1 / 2, 1 / 3, 1, 1 / 2])
    personal = np.ones(8)
    row = next(r for r in got["comparison"]["rows"]
               if r["measure"] == "mrr" and r["system"] == "personal")
    assert row["p_value"] == pytest.approx(scipy_stats.ttest_rel(personal, pop).pvalue,
                                           rel=1e-12)
    assert row["n_queries"] == 8


def test_the_table_marks_significance_as_compare_does(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "pop.csv", "personal.csv", "--baseline", "pop",
                   "--exclude", "train.csv", "-m", "mrr", "gini", "--test", "t"], cwd=files)
    assert outcome.status == 0, outcome.err
    lines = outcome.text.splitlines()
    assert lines[0].split() == ["system", "mrr"]
    assert lines[3].split() == ["personal", "1.0000", "†▲"]  # scipy: p = 0.0127 < 0.05
    assert lines[5].startswith("† significant at alpha = 0.05 (p_adjusted <= alpha): two-sided "
                               "paired t-test, against 'pop'")
    assert "whole-set measures (one value per model, no test)" in outcome.text
    assert "assumed: items seen in training: removed from each list before the cut" in \
        outcome.text
    assert "assumed: catalogue: not given" in outcome.text


def test_activity_segments_and_csv(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "pop.csv", "personal.csv", "--baseline", "pop",
                   "--exclude", "train.csv", "-m", "mrr", "--segments", "activity",
                   "--heavy", "3", "-f", "csv"], cwd=files)
    assert outcome.status == 0, outcome.err
    rows = outcome.text.splitlines()
    assert rows[0].startswith("segment,measure,system,baseline,n_queries")
    segments = [row.split(",")[0] for row in rows[1:]]
    assert segments == ["all", "all", "new", "new", "light", "light", "heavy", "heavy"]
    # training counts: 1 -> 3, 2 -> 1, 3 -> 2, 5 -> 4; users 4, 6, 7, 8 are new
    users = {row.split(",")[0]: int(row.split(",")[4]) for row in rows[1:]}
    assert users == {"all": 8, "new": 4, "light": 2, "heavy": 2}
    assert "rankwise: assumed: segments by training activity: new (no training interaction), " \
           "light (1 to 2), heavy (3 or more; given)" in outcome.err


def test_names_from_stems_and_name_equals_path(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "pop.csv", "als=personal.csv", "-m", "mrr",
                   "-f", "jsonl"], cwd=files)
    assert outcome.status == 0, outcome.err
    rows = [json.loads(line) for line in outcome.text.splitlines()]
    assert [(r["system"], r["baseline"]) for r in rows] == [("als", "pop")]


@pytest.mark.parametrize(("extra", "message"), [
    (["--baseline", "bm25"], "baseline 'bm25' is not one of the runs ['pop', 'personal']"),
    (["--per-user"], "--per-user prints one model's users: give one RECS"),
    (["--heavy", "3"], "--heavy applies to --segments activity, which was not given"),
    (["--segments", "activity"], "--segments activity counts each user's training "
                                 "interactions: give --train or --exclude"),
    (["--test", "anova"], "test must be one of"),
])
def test_errors_are_one_line(cli, files: Path, extra: list[str], message: str) -> None:
    outcome = cli(["recs", "test.csv", "pop.csv", "personal.csv", "-m", "mrr", *extra],
                  cwd=files)
    assert outcome.status == 1
    assert outcome.err.startswith("rankwise: error: ") and message in outcome.err
    assert len(outcome.err.strip().splitlines()) == 1 and "Traceback" not in outcome.err


def test_per_user_and_segments_are_not_given_together(cli, files: Path) -> None:
    """--per-user was ignored without a word when --segments was given (a review)."""
    outcome = cli(["recs", "test.csv", "pop.csv", "--per-user", "--segments", "activity",
                   "--exclude", "test.csv"], cwd=files)
    assert outcome.status == 1
    assert outcome.err == ("rankwise: error: --per-user and --segments print different tables "
                           "(one row per user, one per segment): give one of them\n")


def test_one_recs_keeps_its_table_and_refuses_a_baseline(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "pop.csv", "--baseline", "pop"], cwd=files)
    assert outcome.status == 1
    assert "--baseline 'pop' needs several RECS to compare; one was given" in outcome.err
    outcome = cli(["recs", "test.csv", "pop.csv", "-m", "mrr", "-f", "json"], cwd=files)
    assert outcome.status == 0, outcome.err
    [row] = json.loads(outcome.text)
    assert row["run"] == "pop.csv" and row["mrr"] == pytest.approx(
        (1 + 1 / 2 + 1 / 3 + 1 + 1 / 2 + 1 / 3 + 1 + 1 / 2) / 8)


def test_a_missing_model_file_is_one_line(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "pop.csv", "nope.csv"], cwd=files)
    assert outcome.status == 1
    assert "nope.csv: no such file" in outcome.err and len(outcome.err.splitlines()) == 1


@pytest.mark.parametrize("target", ["test.csv", "personal.csv"])
def test_an_output_that_is_an_input_is_refused(cli, files: Path, target: str) -> None:
    """TEST is the argument held_out now (--test is the statistical test): still an input."""
    before = (files / target).read_text()
    outcome = cli(["recs", "test.csv", "pop.csv", "personal.csv", "-m", "mrr", "-o", target],
                  cwd=files)
    assert outcome.status == 1
    assert f"-o {target} is the input {target}" in outcome.err
    assert (files / target).read_text() == before


def test_one_recs_with_activity_segments(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "personal.csv", "--exclude", "train.csv", "-m", "mrr",
                   "--segments", "activity", "-f", "json"], cwd=files)
    assert outcome.status == 0, outcome.err
    rows = json.loads(outcome.text)
    # training counts 3, 1, 2, 4 (users 1, 2, 3, 5): median 2.5, heavy from 3
    assert [(row["segment"], row["users"]) for row in rows[:-1]] == [
        ("heavy", 2), ("light", 2), ("new", 4)]
    assert "heavy (3 or more; the default: above the median of the training users, 2.5)" in \
        outcome.err
