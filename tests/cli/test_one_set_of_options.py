"""Every entry point takes the same options, with the same rules, and names runs the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rankwise as rw
from rankwise.comparison import compare

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 a 1\nq2 0 d 2\n"
# every document of q1 is tied: trec_eval's order (docno descending) ranks the relevant c
# first; the expected value over all orders differs
TIED = "q1 Q0 a 1 1.0 tied\nq1 Q0 b 2 1.0 tied\nq1 Q0 c 3 1.0 tied\nq2 Q0 d 1 2.0 tied\n" \
       "q2 Q0 a 2 1.0 tied\n"
OTHER = "q1 Q0 b 1 3.0 other\nq1 Q0 a 2 2.0 other\nq2 Q0 a 1 2.0 other\nq2 Q0 x 2 1.0 other\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "first.run").write_text(TIED)
    (tmp_path / "second.run").write_text(OTHER)
    (tmp_path / "copy.run").write_text(TIED)
    return tmp_path


def test_depth_zero_means_empty_rankings_everywhere(files: Path, cli) -> None:
    qrels, run = files / "qrels.txt", files / "first.run"
    library = rw.evaluate(qrels, run, ["num_ret", "P@2", "map"], depth=0)
    assert library["num_ret"].tolist() == [0, 0]
    assert library["P@2"].tolist() == [0, 0] and library["map"].tolist() == [0, 0]
    with_options = rw.evaluate(qrels, run, ["num_ret"], options=rw.EvalOptions(depth=0))
    assert with_options["num_ret"].tolist() == [0, 0]
    outcome = cli(["eval", qrels, run, "-m", "num_ret", "map", "--depth", "0", "-f", "csv"])
    assert outcome.status == 0, outcome.err
    assert outcome.text == "run,num_ret,map\ntied,0,0.0\n"
    compared = compare(qrels, [run, files / "second.run"], ["map"], depth=0, seed=0)
    assert {row.mean for row in compared} == {row.baseline_mean for row in compared} == {0.0}
    outcome = cli(["compare", qrels, run, files / "second.run", "-m", "map", "-M", "0",
                   "-f", "json", "--seed", "0"])
    assert outcome.status == 0, outcome.err
    assert {row["mean"] for row in json.loads(outcome.out)["rows"]} == {0.0}
    outcome = cli(["trec-eval", "-M", "0", "-m", "num_ret", qrels, run])
    assert outcome.text.split() == ["num_ret", "all", "0"]
    with pytest.raises(rw.InvalidParameterError, match="non-negative integer"):
        rw.evaluate(qrels, run, ["map"], depth=-1)
    outcome = cli(["eval", qrels, run, "--depth", "-1"])
    assert outcome.status == 2 and "expected a non-negative integer" in outcome.err


def test_huge_depths_and_nan_levels_are_handled(files: Path) -> None:
    qrels, run = files / "qrels.txt", files / "first.run"
    deep = rw.evaluate(qrels, run, ["num_ret", "map"], depth=2**70)
    plain = rw.evaluate(qrels, run, ["num_ret", "map"])
    assert deep.mean == plain.mean
    with pytest.raises(rw.InvalidParameterError,
                       match=r"^rel must be a number or None, got nan \(float\); no grade is "
                             r">= nan$"):
        rw.evaluate(qrels, run, ["map"], rel=float("nan"))


def test_the_same_run_gets_the_same_name_in_every_command(
        files: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = [files / "first.run", files / "second.run", files / "copy.run"]
    want = ["tied", "other", "tied#2"]
    outcome = cli(["eval", files / "qrels.txt", *runs, "-m", "map", "-f", "csv", "--quiet"])
    assert [line.split(",")[0] for line in outcome.text.splitlines()[1:]] == want
    outcome = cli(["compare", files / "qrels.txt", *runs, "-m", "map", "-f", "json", "--quiet"])
    assert json.loads(outcome.out)["systems"] == want
    seen: dict[str, Any] = {}

    def capture(kind: str, real: Any) -> Any:
        def wrapper(results: Any, *args: Any, **kwargs: Any) -> Any:
            seen[kind] = list(results)
            return real(results, *args, **kwargs)
        return wrapper

    from rankwise.report import distribution, html

    monkeypatch.setattr(distribution, "distribution_svg",
                        capture("plot", distribution.distribution_svg))
    outcome = cli(["plot", files / "qrels.txt", *runs, "--kind", "distribution", "-m", "map",
                   "-o", files / "p.svg", "--quiet"])
    assert outcome.status == 0, outcome.err
    real_render = html.render_html
    monkeypatch.setattr(html, "render_html",
                        lambda report: seen.setdefault("report", report.systems)
                        and real_render(report))
    outcome = cli(["report", files / "qrels.txt", *runs, "-m", "map", "-o", files / "r.html",
                   "--quiet", "--seed", "0"])
    assert outcome.status == 0, outcome.err
    assert seen == {"plot": want, "report": want}
    # and a run is found by its name, its path, its file name or its stem
    for baseline in ("other", str(files / "second.run"), "second.run", "second"):
        outcome = cli(["compare", files / "qrels.txt", *runs, "-m", "map", "-f", "json",
                       "--quiet", "--baseline", baseline])
        assert json.loads(outcome.out)["baseline"] == "other", baseline


def test_plot_draws_the_values_of_the_tie_policy_asked_for(
        files: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from rankwise.report import distribution

    drawn: dict[str, np.ndarray] = {}
    real = distribution.distribution_svg

    def capture(results: Any, measures: Any, **kwargs: Any) -> Any:
        drawn["P@1"] = results["tied"]["P@1"].copy()
        return real(results, measures, **kwargs)

    monkeypatch.setattr(distribution, "distribution_svg", capture)
    qrels, run = files / "qrels.txt", files / "first.run"
    average = rw.evaluate(qrels, run, ["P@1"], ties="average")["P@1"]
    trec = rw.evaluate(qrels, run, ["P@1"])["P@1"]
    assert not np.allclose(average, trec)  # the test means something only if they differ
    for ties, want in (("average", average), ("trec", trec)):
        outcome = cli(["plot", qrels, run, "--kind", "distribution", "-m", "P@1",
                       "--ties", ties, "-o", files / f"{ties}.svg", "--quiet"])
        assert outcome.status == 0, outcome.err
        np.testing.assert_allclose(drawn["P@1"], want, atol=1e-15)


def test_options_are_one_value_validated_once() -> None:
    options = rw.EvalOptions(rel=2, depth=10, missing="zero", judged_only=True, ties="worst")
    assert options.replace(depth=None).depth is None
    with pytest.raises(rw.InvalidParameterError, match="ties must be one of"):
        rw.EvalOptions(ties="random")
    with pytest.raises(rw.InvalidParameterError, match="missing must be 'skip' or 'zero'"):
        options.replace(missing="drop")
    with pytest.raises(TypeError, match=r"^unknown EvalOptions option\(s\): dpeth; its options are "
                                        r"rel, depth, .*; did you mean 'depth'\?$"):
        from rankwise.options import options_from

        options_from(dpeth=3)
    qrels = {"q": {"a": 2, "b": 1}}
    run = {"q": {"a": 1.0, "b": 2.0}}
    by_keywords = rw.evaluate(qrels, run, ["P@1", "map"], rel=2)
    by_object = rw.evaluate(qrels, run, ["P@1", "map"], options=rw.EvalOptions(rel=2))
    assert by_keywords.mean == by_object.mean == {"P@1(rel=2)": 0.0, "map(rel=2)": 0.5}


EVALUATING = ("eval", "compare", "report", "plot", "explain", "design", "fuse")


def _positionals(command: str) -> list[str]:
    """The file arguments (not read: the command line is only parsed)."""
    return {"compare": ["q", "a", "b"], "explain": ["q", "a"], "design": ["a"],
            "fuse": ["a", "b"]}.get(command, ["q", "a"])


@pytest.mark.parametrize("command", EVALUATING)
def test_every_evaluating_command_takes_the_same_evaluation_options(command: str) -> None:
    from rankwise.cli.app import build_parser
    from rankwise.cli.options import evaluation_options

    parser = build_parser(only=command)
    extra = {"explain": ["-m", "map", "--measured", "0.5"], "report": ["-o", "r.html"],
             "plot": ["-o", "p.svg"]}.get(command, [])
    letters = parser.parse_args([command, *_positionals(command), *extra,
                                 "-M", "7", "-J", "-c", "--rel", "2", "--ties", "worst"])
    words = parser.parse_args([command, *_positionals(command), *extra, "--depth", "7",
                               "--judged-only", "--missing", "zero", "--rel", "2",
                               "--ties", "worst"])
    want = rw.EvalOptions(rel=2, depth=7, missing="zero", judged_only=True, ties="worst")
    assert evaluation_options(letters) == evaluation_options(words) == want


def test_trec_eval_letters_give_trec_eval_numbers_in_eval(files: Path, cli) -> None:
    # by hand: -M 1 keeps one document per query (num_ret 1 + 1); -J drops the unjudged x
    # of q2 (num_ret 2 + 1); -c scores q3, judged and absent from the run, as empty
    qrels = files / "qrels.txt"
    qrels.write_text(QRELS + "q3 0 z 1\n")
    run = files / "second.run"
    for flags, want in ((["-M", "1"], "2"), (["-J"], "3"), ([], "4")):
        outcome = cli(["eval", qrels, run, "-m", "num_ret", "-f", "csv", "--quiet", *flags])
        assert outcome.status == 0, outcome.err
        assert outcome.text == f"run,num_ret\nother,{want}\n", flags
    outcome = cli(["eval", qrels, run, "-m", "num_q", "-f", "csv", "--quiet", "-c"])
    assert outcome.text == "run,num_q\nother,3\n"


def test_an_unknown_option_is_reported_by_the_command(files: Path, cli) -> None:
    outcome = cli(["eval", files / "qrels.txt", files / "first.run", "--depht", "3"])
    assert outcome.status == 2
    assert outcome.err.startswith("usage: rankwise eval ")
    assert outcome.err.endswith("rankwise eval: error: unrecognized arguments: --depht 3\n")


def _help_of(parser: Any, command: str, option: str) -> str:
    from rankwise.cli.app import _command_parser

    for action in _command_parser(parser, command)._actions:
        if option in action.option_strings:
            return str(action.help)
    raise AssertionError(f"{command} has no {option}")


def test_one_vocabulary_of_tests_and_corrections(files: Path, cli) -> None:
    from rankwise.cli.app import build_parser
    from rankwise.cli.options import CORRECTION_NAMES, TEST_NAMES
    from rankwise.stats import CORRECTIONS, MANY_SYSTEM_TESTS, TESTS, resolve_correction

    parser = build_parser()
    for option in ("--test", "--correction", "--alpha", "--n-resamples", "--seed"):
        assert _help_of(parser, "compare", option) == _help_of(parser, "report", option)
    assert set(CORRECTION_NAMES) == set(CORRECTIONS)  # the library's canonical names
    assert set(TEST_NAMES) == set(TESTS) | set(MANY_SYSTEM_TESTS)
    help_text = _help_of(parser, "compare", "--correction")
    assert "benjamini-hochberg" in help_text
    for alias in ("bh", "fdr_bh", "holm-bonferroni"):  # the aliases the help names
        assert alias in help_text and resolve_correction(alias) in CORRECTIONS
    # and every command takes every spelling, to the same numbers
    qrels, runs = files / "qrels.txt", [files / "first.run", files / "second.run"]
    shown = set()
    for name in ("bh", "benjamini-hochberg", "fdr_bh"):
        outcome = cli(["compare", qrels, *runs, "-m", "map", "P@1", "-f", "json", "--seed", "0",
                       "--correction", name, "--quiet"])
        data = json.loads(outcome.out)
        assert data["correction"] == "benjamini-hochberg"
        shown.add(json.dumps(data["rows"]))
        outcome = cli(["report", qrels, *runs, "-m", "map", "-o", files / f"{name}.html",
                       "--seed", "0", "--correction", name, "--quiet"])
        assert outcome.status == 0, outcome.err
        assert "Benjamini-Hochberg" in (files / f"{name}.html").read_text()
    assert len(shown) == 1


def test_docs_cli_md_says_what_the_commands_do() -> None:
    page = Path(__file__).parents[2] / "docs" / "cli.md"
    if not page.exists():
        pytest.skip("docs/cli.md not present (installed package)")
    text = " ".join(page.read_text(encoding="utf-8").split())
    # runs sharing a name are numbered (test_the_same_run_gets_the_same_name_in_every_command)
    assert "paths name them" not in text
    assert "`bm25`, `bm25#2`, `bm25#3`" in text
    # fractional grades are read as gains by eval, refused by trec-eval (tests/cli/
    # test_trec_eval_options.py::test_a_fractional_grade_is_refused_where_trec_eval_...)
    assert "a grade that is not an integer, a document listed twice" not in text
    assert "Grades are numbers, fractional ones included" in text
