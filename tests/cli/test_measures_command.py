"""``rankwise measures``: the catalog, one family in full, trec_eval's names."""

from __future__ import annotations

from rankwise.measures import FAMILIES
from rankwise.measures.trec_names import TREC_MEASURES


def test_lists_every_family_with_parameters_and_defaults(cli) -> None:
    outcome = cli(["measures"])
    assert outcome.status == 0
    text = outcome.text
    for name, family in FAMILIES.items():
        assert family.summary in text, name
        for key in family.params:
            assert f"{key}=" in text, (name, key)
    assert "ndcg[@k]" in text and "P@k" in text
    assert "gain=exp" in text
    assert "trec_eval's names work too" in text


def test_one_family_in_full(cli) -> None:
    outcome = cli(["measures", "ndcg", "recip_rank", "P@10"])
    assert outcome.status == 0
    text = outcome.text
    assert text.startswith("ndcg[@k]: normalised discounted cumulative gain\n")
    assert "definition: " in text and "reference: " in text
    assert "mrr[@k]: mean reciprocal rank" in text
    assert "P@k: precision at k" in text


def test_unknown_family_suggests(cli) -> None:
    outcome = cli(["measures", "ndgc"])
    assert outcome.status == 1
    assert outcome.err == "rankwise: error: unknown measure 'ndgc'; did you mean 'ndcg'?\n"


def test_trec_names(cli) -> None:
    outcome = cli(["measures", "--trec"])
    assert outcome.status == 0
    text = outcome.text
    for name in TREC_MEASURES:
        assert any(line.startswith(name + " ") for line in text.splitlines()), name
    assert "ndcg@k(gain=linear), default k = 5,10,15,20,30,100,200,500,1000" in text
    assert "all_trec:" in text and "official:" in text
