"""Statistics guidance (issue 13, item 17): say when significance is out of reach, and when
no judged document reaches a measure's ``rel`` (once)."""

from __future__ import annotations

import warnings

import pytest

import rankwise as rw
from rankwise.comparison import compare
from rankwise.exceptions import RankwiseWarning


def collection(n: int, systems: int = 2) -> tuple[dict, dict]:
    """n queries; system k finds the relevant document at rank 1 on the first k*n/3 queries."""
    qrels = {f"q{i}": {"good": 1, "bad": 0} for i in range(n)}
    runs = {}
    for k in range(systems):
        runs[f"s{k}"] = {
            f"q{i}": ({"good": 2.0, "bad": 1.0} if i < k * n // max(1, systems - 1)
                      else {"bad": 2.0, "good": 1.0})
            for i in range(n)
        }
    return qrels, runs


def impossible(result: rw.Comparison) -> list[str]:
    return [note for note in result.notes if "no difference can be significant" in note]


def test_three_queries_cannot_be_significant() -> None:
    qrels, runs = collection(3)
    result = compare(qrels, runs, "P@1", baseline="s0", seed=0)
    row = result.row("P@1", "s1")
    assert (row.wins, row.p_value) == (3, 0.25)  # the smallest p the exact test has
    [note] = impossible(result)
    assert note == ("s1 vs s0 (P@1): no difference can be significant at alpha = 0.05: with 3 "
                    "non-zero differences, the smallest p-value Fisher's randomization test "
                    "can give is 2/2^3 = 0.25")


def test_the_correction_can_put_significance_out_of_reach() -> None:
    qrels, runs = collection(6, systems=4)
    result = compare(qrels, runs, "P@1", baseline="s0", seed=0, correction="bonferroni")
    notes = impossible(result)
    # s3 differs on all 6 queries: 2/64 = 0.03125 <= 0.05, but Bonferroni over 3: 0.094
    assert any("s3 vs s0 (P@1)" in note and "2/2^6 = 0.03125 (0.09375 after the Bonferroni "
               "correction over 3 comparisons)" in note for note in notes)
    for correction in ("none", "holm"):  # Holm multiplies the largest p-value by 1
        plain = compare(qrels, runs, "P@1", baseline="s0", seed=0, correction=correction)
        assert not any("s3 vs s0" in note for note in impossible(plain))


def test_a_row_holm_makes_significant_gets_no_out_of_reach_note() -> None:
    """Holm over two rows: B (p = 2/2^6 = 0.03125) comes second, its p multiplied by 1."""
    qrels = {f"q{i}": {"good": 1} for i in range(20)}

    def run(wins: set[int]) -> dict:
        return {f"q{i}": ({"good": 2.0, "bad": 1.0} if i in wins else {"bad": 2.0, "good": 1.0})
                for i in range(20)}

    result = compare(qrels, {"base": run(set()), "A": run(set(range(20))),
                             "B": run(set(range(6)))}, "P@1", baseline="base", seed=0)
    row = result.row("P@1", "B")
    assert row.p_value == 0.03125 and row.p_adjusted == 0.03125 and row.significant
    assert not any("B vs base" in note for note in impossible(result))


def test_too_few_resamples_and_other_tests() -> None:
    qrels, runs = collection(30)
    few = compare(qrels, runs, "P@1", baseline="s0", seed=0, n_resamples=10)
    assert "with 10 resamples, the smallest p-value Fisher's randomization test can give is " \
           "1/11 = 0.09091" in impossible(few)[0]
    sign = compare(*collection(4), "P@1", baseline="s0", test="sign")
    assert "the smallest p-value the sign test can give is 2/2^4 = 0.125" in impossible(sign)[0]
    boot = compare(qrels, runs, "P@1", baseline="s0", test="bootstrap", n_resamples=19, seed=1)
    assert "1/20 = 0.05" not in " ".join(impossible(boot))  # 0.05 <= alpha: reachable
    assert compare(qrels, runs, "P@1", baseline="s0", test="t-test").notes == ()


def test_reachable_significance_says_nothing() -> None:
    qrels, runs = collection(12)
    result = compare(qrels, runs, "P@1", baseline="s0", seed=0)
    assert impossible(result) == []


def binary_collection() -> tuple[dict, dict]:
    qrels = {f"q{i}": {"d1": 1, "d2": 0, "d3": 1} for i in range(5)}
    runs = {name: {f"q{i}": {"d1": 3.0 - k, "d2": 2.0, "d3": 1.0 + k} for i in range(5)}
            for k, name in enumerate(["a", "b", "c"])}
    return qrels, runs


def test_no_document_reaches_rel_is_said_once_by_compare() -> None:
    qrels, runs = binary_collection()
    result = compare(qrels, runs, ["P@5(rel=2)", "map"], seed=0)
    said = [note for note in result.notes if "grade of 2 or more" in note]
    assert said == ["no judged document has a grade of 2 or more (the highest is 1): "
                    "P@5(rel=2) counts nothing as relevant and is 0 for every query"]
    # instead of one "all differences are zero" note per pair
    assert not any(note.startswith("P@5(rel=2):") for note in result.notes)


def test_no_document_reaches_rel_warns_once_in_evaluate() -> None:
    qrels, runs = binary_collection()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rw.evaluate(qrels, runs["a"], ["P@5(rel=2)", "recall@5(rel=2)", "map", "P@5(rel=1)"])
    said = [w for w in caught if issubclass(w.category, RankwiseWarning)]
    assert len(said) == 1
    assert str(said[0].message) == (
        "no judged document has a grade of 2 or more (the highest is 1): P@5(rel=2), "
        "recall@5(rel=2) count nothing as relevant and are 0 for every query")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rw.evaluate(qrels, runs["a"], ["P@5", "map"])  # nothing to say


def test_no_document_reaches_rel_is_said_once_by_the_cli(tmp_path, capsys) -> None:
    from rankwise.cli import main

    qrels, runs = binary_collection()
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                            for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} 1 {s} {name}\n" for q, docs in run.items()
                                for d, s in docs.items()))
        paths.append(str(path))
    assert main(["eval", str(tmp_path / "q.txt"), *paths, "-m", "P@5", "--rel", "2"]) == 0
    err = capsys.readouterr().err
    assert err.count("grade of 2 or more") == 1


@pytest.mark.parametrize("measure", ["P@5(rel=2)"])
def test_no_note_when_a_document_reaches_rel(measure: str) -> None:
    qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rw.evaluate(qrels, {"q1": {"d1": 1.0}, "q2": {"d1": 1.0}}, measure)
