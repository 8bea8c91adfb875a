"""Unknown measures get a suggestion of the same meaning, or none (issue 13, item 11)."""

from __future__ import annotations

import pytest

import rankwise as rw
from rankwise.exceptions import MeasureSyntaxError, UnknownMeasureError
from rankwise.measures import parse_many
from rankwise.measures.catalog import lookup
from rankwise.measures.elsewhere import ELSEWHERE
from rankwise.suggest import closest


def message_of(text: str) -> str:
    with pytest.raises(MeasureSyntaxError) as caught:
        parse_many([text])
    return str(caught.value)


def test_hr_is_hit_rate() -> None:
    assert str(rw.parse("HR@10")) == "hit@10"
    assert str(rw.parse("hr@5(rel=2)")) == "hit@5(rel=2)"


def test_err_never_suggests_reciprocal_rank() -> None:
    if lookup("ERR") is not None:  # added since: then it is simply read
        assert rw.parse("ERR@10").name != "mrr"
        return
    with pytest.raises(rw.RankwiseError) as caught:
        rw.parse("ERR@10")
    message = str(caught.value)
    assert "rr@10" not in message and "did you mean" not in message
    assert "ERR@10 is not available in rankwise yet" in message


def test_iprec_is_interpolated_precision_not_rprec() -> None:
    """ir_measures' IPrec@0.5 is read as what it means (main's ir_measures language)."""
    assert str(rw.parse("IPrec@0.5")) == "iprec_at_recall(recall=0.5)"
    assert rw.parse("IPrec@0.5").param("recall") == 0.5


@pytest.mark.parametrize(("key", "spelled"), [
    ("P_10", "P.10"),
    ("ndcg_cut_10", "ndcg_cut.10"),
    ("map_cut_100", "map_cut.100"),
    ("iprec_at_recall_0.10", "iprec_at_recall.0.10"),
    ("recall_5", "recall.5"),
])
def test_pytrec_eval_keys_are_read_as_trec_evals_names(key: str, spelled: str) -> None:
    """pytrec_eval's output keys are accepted (main's language), with trec_eval's meaning."""
    assert parse_many([key]) == parse_many([spelled])


def test_a_pytrec_eval_key_with_an_at_suggests_trec_evals_spelling() -> None:
    message = message_of("ndcg_cut@10")
    assert "did you mean 'ndcg_cut.10'?" in message
    assert parse_many(["ndcg_cut.10"])  # the suggestion is read


@pytest.mark.parametrize("name", sorted(ELSEWHERE))
def test_other_tools_names_are_not_ours(name: str) -> None:
    """The table holds only names rankwise does not read (else it would never be consulted)."""
    assert lookup(name) is None


@pytest.mark.parametrize(("name", "rankwise"), [
    (name, target) for name, (_, target) in ELSEWHERE.items() if target is not None
])
def test_other_tools_names_suggest_measures_that_parse(name: str, rankwise: str) -> None:
    family = lookup(rankwise.split("(")[0])
    assert family is not None
    takes_cutoff = "{cutoff}" in rankwise or family.cutoff != "none"
    level = "0.5" if name == "iprec" else "3"  # a recall level is in [0, 1]
    message = message_of(f"{name}@{level}" if takes_cutoff else name)
    suggested = message.split("did you mean '")[1].split("'?")[0]
    assert rw.parse(suggested).name == family.name


def test_suggestions_prefer_names_of_the_same_family() -> None:
    measures = ["Rprec", "recall", "recip_rank", "rr", "R", "P", "map", "ndcg"]
    assert closest("rec", measures) == "recall"  # not Rprec
    assert closest("ERR", measures) is None      # not rr
    assert closest("HR", measures) is None       # not R
    assert closest("ndgc", measures) == "ndcg"   # a typo still finds its word
    assert closest("mapp", measures) == "map"


def test_an_unknown_name_still_gets_the_nearest_spelling() -> None:
    with pytest.raises(UnknownMeasureError, match=r"did you mean 'precision@5'\?"):
        rw.parse("precison@5")
    with pytest.raises(UnknownMeasureError, match=r"did you mean 'recall@10'\?"):
        rw.parse("rec@10")
