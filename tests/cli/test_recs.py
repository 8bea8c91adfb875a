"""``rankwise recs``: the API's numbers from files, column maps, per user, segments, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw

TRAIN = "user,item\n1,a\n1,b\n2,c\n3,a\n4,b\n"
TEST = "user,item\n1,c\n2,a\n2,d\n3,e\n4,a\n4,c\n"
RECS = ("user,item,score\n1,a,0.9\n1,c,0.8\n1,d,0.1\n2,a,0.5\n2,b,0.4\n2,c,0.3\n"
        "3,e,0.2\n3,b,0.9\n4,b,0.3\n4,e,0.2\n4,a,0.2\n")
SEGMENTS = "user,segment\n1,new\n2,active\n3,active\n4,new\n"
MEASURES = ["ndcg@10", "recall@2", "map@10(dialect=recommenders)", "coverage", "gini",
            "novelty"]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name, text in [("train.csv", TRAIN), ("test.csv", TEST), ("recs.csv", RECS),
                       ("segments.csv", SEGMENTS)]:
        (tmp_path / name).write_text(text)
    return tmp_path


def _api(files: Path, **kwargs: object) -> rw.recommenders.RecommenderResults:
    import pyarrow.csv as pcsv

    def read(name: str) -> object:
        return pcsv.read_csv(files / name, convert_options=pcsv.ConvertOptions(
            column_types={"user": "string", "item": "string"}))

    return rw.evaluate_recommendations(read("test.csv"), read("recs.csv"), MEASURES,
                                       exclude=read("train.csv"), catalogue=6, **kwargs)


def test_the_cells_are_the_api_s_numbers(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "recs.csv", "--exclude", "train.csv", "--catalogue", "6",
                   "-m", *MEASURES, "-f", "json"], cwd=files)
    assert outcome.status == 0, outcome.err
    [row] = json.loads(outcome.text)
    want = _api(files)
    assert row["run"] == "recs.csv" and row["users"] == 4
    for name in MEASURES:
        assert row[name] == want.mean[name]


def test_per_user_rows_and_the_means(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "recs.csv", "--exclude", "train.csv", "--catalogue", "6",
                   "-m", *MEASURES, "--per-user", "-f", "json"], cwd=files)
    assert outcome.status == 0, outcome.err
    rows = json.loads(outcome.text)
    want = _api(files)
    assert [row["user"] for row in rows] == [*want.users, "all"]
    for n, row in enumerate(rows[:-1]):
        assert row["ndcg@10"] == want.per_user["ndcg@10"][n]
        assert row["coverage"] is None  # a whole-set measure has no per-user value
    assert rows[-1]["gini"] == want.mean["gini"]


def test_segments_with_the_test_between_them(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "recs.csv", "--exclude", "train.csv", "--catalogue", "6",
                   "-m", *MEASURES, "--segments", "segments.csv", "--segment-test", "rank",
                   "-f", "json"], cwd=files)
    assert outcome.status == 0, outcome.err
    rows = json.loads(outcome.text)
    import pyarrow.csv as pcsv

    seg = pcsv.read_csv(files / "segments.csv", convert_options=pcsv.ConvertOptions(
        column_types={"user": "string"}))
    want = _api(files, segments=seg, segment_test="rank").segments
    assert want is not None
    assert [row["segment"] for row in rows] == ["active", "new", "p (Mann-Whitney U)"]
    for row, name in zip(rows, want.names):
        assert row["users"] == want.users[name]
        assert row["ndcg@10"] == want.mean[name]["ndcg@10"]
        assert row["gini"] == want.mean[name]["gini"]
    assert rows[-1]["ndcg@10"] == pytest.approx(want.p_values["ndcg@10"], abs=1e-15)


def test_column_map_and_parquet(cli, files: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    recs = pa.table({"uid": ["1", "1", "2", "3", "4"], "sku": ["c", "a", "a", "e", "a"],
                     "pos": [1, 2, 1, 1, 1]})
    pq.write_table(recs, files / "recs.parquet")
    outcome = cli(["recs", "test.csv", "recs.parquet", "--columns",
                   "user=uid,item=sku,rank=pos", "-m", "P@1", "-f", "json"], cwd=files)
    assert outcome.status == 0, outcome.err
    [row] = json.loads(outcome.text)
    assert row["P@1"] == 1.0  # every user's first item is a test interaction


def test_default_measures_and_output_file(cli, files: Path) -> None:
    outcome = cli(["recs", "test.csv", "recs.csv", "--exclude", "train.csv", "--catalogue", "6",
                   "-o", "out.tsv"], cwd=files)
    assert outcome.status == 0, outcome.err
    header = (files / "out.tsv").read_text().splitlines()[0].split("\t")
    assert header == ["run", "users", "ndcg@10", "recall@10", "P@10", "mrr@10", "coverage",
                      "gini", "novelty"]
    values = (files / "out.tsv").read_text().splitlines()[1].split("\t")
    assert np.isfinite([float(v) for v in values[2:]]).all()


def test_errors_are_one_line(cli, files: Path) -> None:
    bad_role = cli(["recs", "test.csv", "recs.csv", "--columns", "usr=x"], cwd=files)
    assert bad_role.status == 2 and "did you mean 'user'" in bad_role.err
    unknown = cli(["recs", "test.csv", "recs.csv", "-m", "ginni"], cwd=files)
    assert unknown.status == 1 and "gini" in unknown.err
    assert unknown.err.count("\n") == 1


def test_the_cli_writes_the_report(cli, tmp_path: Path) -> None:
    (tmp_path / "test.csv").write_text("user,item\n1,a\n2,b\n3,a\n4,c\n")
    (tmp_path / "recs.csv").write_text("user,item\n1,a\n1,b\n2,a\n2,b\n3,c\n3,a\n4,c\n4,b\n")
    (tmp_path / "seg.csv").write_text("user,segment\n1,x\n2,x\n3,y\n4,y\n")
    outcome = cli(["recs", "test.csv", "recs.csv", "-m", "mrr", "--segments", "seg.csv",
                   "--html", "r.html"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    page = (tmp_path / "r.html").read_text()
    body = re.search(r'<section id="segments".*?<tbody>(.*?)</tbody>', page, re.S)
    assert body is not None
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row)
            for row in re.findall(r"<tr>(.*?)</tr>", body.group(1))]
    assert [row[:3] for row in rows[:-1]] == [["x", "2", "0.7500"], ["y", "2", "0.7500"]]


def test_the_documented_command_gives_the_documented_numbers(cli, tmp_path: Path) -> None:
    """docs/recommenders.md: the worked example from files, by the command the page shows."""
    import shlex

    page = (Path(__file__).parents[2] / "docs" / "recommenders.md").read_text()
    line = re.search(r"^rankwise recs test\.csv recs\.csv .*?(?<!\\)$", page, re.M | re.S)
    assert line is not None
    argv = shlex.split(line.group(0).replace("\\\n", " "))[1:]
    train = {"user": ["ann", "ann", "ann", "bob", "bob", "cat", "dan", "dan", "dan", "dan"],
             "item": ["i1", "i2", "i3", "i1", "i4", "i1", "i1", "i2", "i5", "i6"]}
    test = {"user": ["ann", "ann", "bob", "cat", "cat", "dan"],
            "item": ["i4", "i7", "i2", "i5", "i8", "i3"]}
    items = ["i1", "i4", "i5", "i7", "i8", "i1", "i2", "i3", "i5", "i6",
             "i1", "i2", "i5", "i6", "i8", "i1", "i2", "i3", "i7", "i8"]
    recs = {"user": [u for u in ("ann", "bob", "cat", "dan") for _ in range(5)], "item": items,
            "score": [0.9, 0.8, 0.7, 0.6, 0.5] * 4}
    for name, table in [("train.csv", train), ("test.csv", test), ("recs.csv", recs)]:
        rows = zip(*table.values())
        (tmp_path / name).write_text(",".join(table) + "\n" + "".join(
            ",".join(map(str, row)) + "\n" for row in rows))
    outcome = cli([*argv, "-f", "json"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    [row] = json.loads(outcome.text)
    documented = {"ndcg@3": 0.8266, "recall@3": 0.875, "P@3": 0.4167, "coverage@3": 0.875,
                  "gini@3": 0.3571, "novelty@3": 1.8333}
    assert {k: round(row[k], 4) for k in documented} == documented
    assert "<td>gini@3</td>" in (tmp_path / "report.html").read_text()


def test_errors_name_the_option_the_user_gave(cli, files: Path) -> None:
    """From the command line the messages say --catalogue / --train; from Python, catalogue=."""
    import pyarrow.csv as pcsv

    from rankwise.exceptions import InvalidParameterError

    default = cli(["recs", "test.csv", "recs.csv", "-m", "coverage"], cwd=files)
    assert default.status == 0, default.err  # the default catalogue, said in a note
    assert "give --catalogue all items" in default.err and "catalogue=" not in default.err
    small = cli(["recs", "test.csv", "recs.csv", "-m", "gini", "--catalogue", "2"], cwd=files)
    assert small.status == 1 and "give --catalogue all items" in small.err
    assert "catalogue=" not in small.err
    popularity = cli(["recs", "test.csv", "recs.csv", "-m", "novelty"], cwd=files)
    assert popularity.status == 1
    assert "give --train (or --exclude)" in popularity.err and "train=" not in popularity.err

    def read(name: str) -> object:
        return pcsv.read_csv(files / name)

    for measure, catalogue, message in (
            ("coverage", None, "give catalogue= (item ids or their number) or train="),
            ("gini", 2, "give catalogue= all items"),
            ("novelty", None, "give train= (or exclude=)")):
        with pytest.raises(InvalidParameterError) as error:
            # only recommendations (no test): no default catalogue
            rw.evaluate_recommendations(None if measure == "coverage" else read("test.csv"),
                                        read("recs.csv"), [measure], catalogue=catalogue)
        assert message in str(error.value) and "--" not in str(error.value)


def test_per_user_rows_in_numeric_order(cli, tmp_path: Path) -> None:
    users = ["10", "2", "1", "11"]
    (tmp_path / "test.csv").write_text("user,item\n" + "".join(f"{u},a\n" for u in users))
    (tmp_path / "recs.csv").write_text("user,item,score\n" + "".join(
        f"{u},{'a' if u != '2' else 'b'},1.0\n" for u in users))
    outcome = cli(["recs", "test.csv", "recs.csv", "-m", "P@1", "--per-user", "-f", "csv",
                   "--quiet"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    lines = outcome.text.splitlines()[1:]
    assert [line.split(",")[1:3] for line in lines] == [
        ["1", "1.0"], ["2", "0.0"], ["10", "1.0"], ["11", "1.0"], ["all", "0.75"]]


def test_a_catalogue_smaller_than_the_lists_is_one_error_line(cli, tmp_path: Path) -> None:
    """Issue 33, item 6: coverage@2 of 3 distinct items over --catalogue 1 printed 3.0000."""
    (tmp_path / "test.csv").write_text("user,item\nu1,a\nu2,b\n")
    (tmp_path / "recs.csv").write_text("user,item,score\nu1,a,3\nu1,b,2\nu1,c,1\nu2,b,3\n"
                                       "u2,c,2\n")
    (tmp_path / "cat.csv").write_text("item\na\n")
    number = cli(["recs", "test.csv", "recs.csv", "-m", "coverage@2", "--catalogue", "1"],
                 cwd=tmp_path)
    assert number.status == 1 and number.out == b""
    assert number.err == ("rankwise: error: coverage@2: the catalogue given (1 item) is smaller "
                          "than the 3 distinct items recommended; give --catalogue all items "
                          "(their number or their ids), or leave it out: the default catalogue "
                          "is every item of the training, test and recommendation tables\n")
    ids = cli(["recs", "test.csv", "recs.csv", "-m", "coverage@2", "--catalogue", "cat.csv"],
              cwd=tmp_path)
    assert ids.status == 1 and ids.out == b"" and ids.err.count("\n") == 1
    assert "2 of the 3 distinct items recommended are not in the catalogue given (1 item): " \
           "'b', 'c'" in ids.err


def test_items_absent_from_training_are_in_the_default_catalogue(cli, tmp_path: Path) -> None:
    """Issue 33, item 22: the default measures with --exclude, a model recommending x and y."""
    (tmp_path / "train.csv").write_text("user,item\nu1,a\nu1,b\nu2,c\n")
    (tmp_path / "test.csv").write_text("user,item\nu1,c\nu2,d\n")
    (tmp_path / "recs.csv").write_text("user,item,score\nu1,x,3\nu1,c,2\nu1,d,1\nu2,y,3\n"
                                       "u2,d,2\nu2,a,1\n")
    outcome = cli(["recs", "test.csv", "recs.csv", "--exclude", "train.csv", "-f", "json"],
                  cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    [row] = json.loads(outcome.text)
    # items: training a b c, test c d, lists x c d y a (6); lists after the exclusion:
    # u1 x c d, u2 y d a (5 distinct)
    assert row["coverage"] == 5 / 6
    assert outcome.err == ("rankwise: note: coverage, gini: the catalogue is the 6 items of the "
                           "training, test and recommendation tables; give --catalogue all "
                           "items to count the ones in none of them\n")
    quiet = cli(["recs", "test.csv", "recs.csv", "--exclude", "train.csv", "--quiet"],
                cwd=tmp_path)
    assert quiet.status == 0 and quiet.err == ""


@pytest.mark.parametrize("fmt", ["table", "tsv", "csv", "json", "jsonl", "markdown", "latex"])
def test_a_measure_without_a_test_has_an_empty_p_cell(cli, files: Path, fmt: str) -> None:
    """Issue 33, item 24: coverage's p-value printed nan; docs/recommenders.md shows nothing."""
    outcome = cli(["recs", "test.csv", "recs.csv", "--exclude", "train.csv", "--catalogue", "6",
                   "-m", "ndcg@10", "coverage", "--segments", "segments.csv", "-f", fmt],
                  cwd=files)
    assert outcome.status == 0, outcome.err
    text = outcome.text
    assert "nan" not in text.lower()
    if fmt in ("json", "jsonl"):
        rows = json.loads(text) if fmt == "json" else [json.loads(x) for x in text.splitlines()]
        assert rows[-1]["segment"] == "p (Welch's t-test)"
        assert rows[-1]["coverage"] is None and rows[-1]["users"] is None
        assert 0 < rows[-1]["ndcg@10"] <= 1
        return
    line = next(x for x in text.splitlines() if "p (Welch" in x)
    if fmt in ("tsv", "csv"):
        cells = line.split("\t" if fmt == "tsv" else ",")
        assert cells[-1] == "" and cells[2] == "" and 0 < float(cells[3]) <= 1
    elif fmt == "markdown":
        assert [c.strip() for c in line.strip("|").split("|")][-1] == ""
    elif fmt == "latex":
        assert line.rstrip(" \\").split("&")[-1].strip() == ""
    else:  # the table: only ndcg@10's p-value after the label
        [p_value] = line.split(")", 1)[1].split()
        assert 0 < float(p_value) <= 1


def test_a_text_score_is_one_error_line_naming_file_and_line(cli, tmp_path: Path) -> None:
    """Issue 33, item 13: a text score was a ValueError traceback."""
    (tmp_path / "test.csv").write_text("user,item\nu1,a\n")
    (tmp_path / "recs.csv").write_text("user,item,score\nu1,a,3\nu1,b,high\n")
    (tmp_path / "ranks.csv").write_text("user,item,rank\nu1,a,1\n\nu1,b,\n")
    (tmp_path / "recs.jsonl").write_text('{"user": "u1", "item": "a", "score": "hi"}\n')
    (tmp_path / "graded.csv").write_text("user,item,rating\nu1,a,good\n")
    for argv, message in (
            (["test.csv", "recs.csv"], "recs.csv:3: score must be a number, got 'high'\n"),
            (["test.csv", "ranks.csv"], "ranks.csv:4: rank is missing (null)\n"),
            (["test.csv", "recs.jsonl"], "recs.jsonl:1: score must be a number, got 'hi' (the "
                                         "column holds text); convert the column to numbers "
                                         "first\n"),
            (["graded.csv", "recs.csv", "--relevance", "rating"],
             "graded.csv:2: rating must be a number, got 'good'\n")):
        outcome = cli(["recs", *argv, "-m", "P@1"], cwd=tmp_path)
        assert outcome.status == 1 and outcome.out == b""
        assert outcome.err == f"rankwise: error: {message}", argv


def test_one_model_may_be_named(cli, files: Path) -> None:
    """``NAME=PATH`` names one model as it names each of several (it was read as a file name)."""
    outcome = cli(["recs", "test.csv", "als=recs.csv", "-m", "ndcg@10", "-f", "json"], cwd=files)
    assert outcome.status == 0, outcome.err
    [row] = json.loads(outcome.text)
    assert row["run"] == "als"
    assert row["ndcg@10"] == rw.evaluate_recommendations(
        str(files / "test.csv"), str(files / "recs.csv"), ["ndcg@10"]).mean["ndcg@10"]


def test_compressed_tables_are_read_and_named_by_their_stem(cli, files: Path) -> None:
    """``a.csv.zst`` is a CSV table (it was refused: "unknown table format None") named ``a``."""
    import gzip

    zstandard = pytest.importorskip("zstandard")
    (files / "a.csv.zst").write_bytes(zstandard.ZstdCompressor().compress(RECS.encode()))
    (files / "b.csv.gz").write_bytes(gzip.compress(RECS.encode()))
    outcome = cli(["recs", "test.csv", "a.csv.zst", "b.csv.gz", "-m", "ndcg@10", "-f", "json"],
                  cwd=files)
    assert outcome.status == 0, outcome.err
    report = json.loads(outcome.text)
    assert report["models"] == ["a", "b"]
    [row] = report["comparison"]["rows"]  # b against a: the same lists, the same value
    assert (row["system"], row["baseline"]) == ("b", "a")


def test_a_table_without_a_known_ending_is_refused_with_what_is_expected(cli, files: Path) -> None:
    (files / "held_out").write_text(TEST)
    outcome = cli(["recs", "held_out", "recs.csv"], cwd=files)
    assert outcome.status != 0
    assert "held_out: cannot tell the table's format from its name" in outcome.err
    assert ".parquet, .csv, .tsv or .jsonl" in outcome.err and "None" not in outcome.err


def test_a_repeated_pair_and_a_missing_column_name_their_file(cli, tmp_path: Path) -> None:
    """With two models, the message says which file holds the repeated pair."""
    (tmp_path / "test.csv").write_text("user,item\nu1,i1\nu2,i3\n")
    (tmp_path / "a.csv").write_text("user,item,score\nu1,i1,0.9\nu2,i3,0.7\n")
    (tmp_path / "b.csv").write_text("user,item,score\nu1,i1,0.9\nu2,i3,0.7\nu1,i1,0.1\n")
    (tmp_path / "c.csv").write_text("user,thing,score\nu1,i1,0.9\n")
    outcome = cli(["recs", "test.csv", "a.csv", "b.csv", "-m", "P@1"], cwd=tmp_path)
    assert outcome.status == 1
    assert outcome.err.startswith("rankwise: error: b.csv: item 'i1' is recommended twice to "
                                  "user 'u1'; give each pair once, or keep the best-ranked one")
    assert "--duplicates first" in outcome.err
    outcome = cli(["recs", "test.csv", "c.csv", "-m", "P@1"], cwd=tmp_path)
    assert outcome.status == 1 and outcome.err.startswith("rankwise: error: c.csv: no item column")
