from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankwise.exceptions import MeasureSyntaxError, UnknownMeasureError, UnsupportedMeasureError
from rankwise.measures import FAMILIES, Measure, parse, parse_many
from rankwise.measures.ir_language import parse_ir_measures
from rankwise.measures.ir_measures_names import IR_MEASURES
from rankwise.measures.trec_names import (
    NICKNAMES,
    TREC_MEASURES,
    is_trec_syntax,
    parse_trec,
    parse_trec_list,
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ndcg@10", "ndcg@10"),
        ("Ndcg@10", "ndcg@10"),
        # spelled as ir_measures spells it (nDCG, NDCG): ir_measures' meaning, trec_eval's gain
        ("NDCG@10", "ndcg@10(gain=linear)"),
        ("nDCG@10", "ndcg@10(gain=linear)"),
        ("nDCG@10(gain=linear)", "ndcg@10(gain=linear)"),
        ("ndcg@10(gain=exp)", "ndcg@10"),
        ("ndcg@10(gain=exponential)", "ndcg@10"),
        ("map", "map"),
        ("AP", "map"),
        ("map(rel=2)", "map(rel=2)"),
        ("map@100", "map@100"),
        ("P@5(rel=2)", "P@5(rel=2)"),
        ("p@5", "P@5"),
        ("precision@5", "P@5"),
        ("recall@1000", "recall@1000"),
        ("R@100", "recall@100"),
        ("mrr", "mrr"),
        ("MRR@10", "mrr@10"),
        ("recip_rank", "mrr"),
        ("Rprec", "Rprec"),
        ("R-prec", "Rprec"),
        ("bpref", "bpref"),
        ("hit@10", "hit@10"),
        ("success@10", "hit@10"),
        ("infAP", "infAP"),
        ("judged@10", "judged@10"),
        ("gm_map", "gm_map"),
        ("set_F(beta=2)", "set_F(beta=2)"),
        ("num_rel_ret", "num_rel_ret"),
        ("ndcg(k=10)", "ndcg@10"),
        ("ndcg @ 10 ( gain = linear )", "ndcg@10(gain=linear)"),
        ("dcg@5(gains=2=9;1=3)", "dcg@5(gains=1=3;2=9)"),
    ],
)
def test_canonical_names(text: str, canonical: str) -> None:
    measure = parse(text)
    assert str(measure) == canonical
    assert parse(str(measure)) == measure


def test_gain_maps_round_trip() -> None:
    measure = parse("ndcg@5(gains=2=9;1=3)")
    assert measure.param("gains") == ((1.0, 3.0), (2.0, 9.0))
    assert parse(str(measure)) == measure


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndgc@10", "did you mean 'ndcg@10'?"),
        ("recal@100", "did you mean 'recall@100'?"),
        ("zzz", "unknown measure 'zzz'"),
    ],
)
def test_unknown_measures_suggest(text: str, message: str) -> None:
    with pytest.raises(UnknownMeasureError, match=message.replace("(", r"\(").replace("?", r"\?")):
        parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ndcg@10(k=5)", "two cutoffs"),
        ("ndcg@0", "positive integer"),
        ("ndcg@x", "positive integer"),
        ("ndcg@-1", "positive integer"),
        ("P", "needs a cutoff"),
        ("bpref@10", "takes no cutoff"),
        ("ndcg@10(foo=1)", "no parameter 'foo'"),
        ("ndcg@10(gain=cubic)", "expected 'exp', 'linear' or 'binary'"),
        ("map(rel=2,rel=3)", "given twice"),
        ("map(rel)", "key=value"),
        ("map(rel=x)", "expected a number"),
        ("@10", "cannot parse"),
    ],
)
def test_syntax_errors_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(MeasureSyntaxError, match=message):
        parse(text)


LONG = "9" * 5000  # more digits than Python's int() reads (4300)


@pytest.mark.parametrize("text", [f"ndcg@{LONG}", "ndcg@9223372036854775808",
                                  f"ndcg@10(k={LONG})"], ids=["5000 digits", "2^63", "k=..."])
def test_a_cutoff_beyond_64_bits_is_a_syntax_error(text: str) -> None:
    """Issue 33, item 13: not an OverflowError deep in a kernel, nor int()'s ValueError."""
    with pytest.raises(MeasureSyntaxError, match=r"too large: at most 9223372036854775807"):
        parse(text)
    assert parse("ndcg@9223372036854775807").cutoff == 2**63 - 1
    assert parse("ndcg@0010").cutoff == 10


@pytest.mark.parametrize("text", [f"nDCG@{LONG}", "nDCG@9223372036854775808",
                                  f"P(rel={LONG})@5"], ids=["5000 digits", "2^63", "rel=..."])
def test_an_ir_measures_number_beyond_64_bits_is_a_syntax_error(text: str) -> None:
    with pytest.raises(MeasureSyntaxError, match="too large"):
        parse_ir_measures(text)


def test_trec_eval_cutoffs_beyond_a_c_long_are_clamped_as_atol_does() -> None:
    """trec_eval reads cutoffs with atol: glibc gives LONG_MAX beyond it."""
    (entry,) = parse_trec(f"ndcg_cut.{LONG}")
    assert entry.measure is not None and entry.measure.cutoff == 2**63 - 1
    (entry,) = parse_trec("P.99999999999999999999")
    assert entry.label == "P_9223372036854775807"


def test_cutoffs_beyond_a_c_long_give_trec_evals_labels_and_values() -> None:
    """pytrec_eval (trec_eval's code) reads them as LONG_MAX: the same labels and values."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from rankwise.compat import pytrec_eval as dropin

    qrels = {"q1": {"d1": 1, "d2": 0}}
    run = {"q1": {"d1": 1.0, "d2": 2.0}}
    measures = {"P.99999999999999999999", f"ndcg_cut.{LONG[:40]}"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = dropin.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert ours == theirs  # {'P_9223372036854775807': 2^-63, 'ndcg_cut_9223372036854775807': ...}


def test_parse_many_mixes_languages_and_drops_duplicates() -> None:
    measures = parse_many(["ndcg@10", "map", "P.5,10", "P@5", "ndcg_cut.10"])
    assert [str(m) for m in measures] == ["ndcg@10", "map", "P@5", "P@10", "ndcg@10(gain=linear)"]
    assert [str(m) for m in parse_many("ndcg@10(gain=linear), map")] == [
        "ndcg@10(gain=linear)",
        "map",
    ]


def test_trec_eval_ndcg_keeps_linear_gain() -> None:
    (entry,) = parse_trec("ndcg")
    assert str(entry.measure) == "ndcg(gain=linear)"
    assert [e.label for e in parse_trec("ndcg_cut.10,20,23.4")] == [
        "ndcg_cut_10",
        "ndcg_cut_20",
        "ndcg_cut_23",
    ]


def test_trec_eval_labels() -> None:
    labels = [
        e.label
        for e in parse_trec_list(
            [
                "P.5,7,3",
                "iprec_at_recall..10,.20",
                "utility.2,-1,0,0",
                "Rprec_mult.0.5",
                "11pt_avg..25,.5",
                "ndcg.1=3,2=9",
            ]
        )
    ]
    assert labels == [
        "iprec_at_recall_0.10",
        "iprec_at_recall_0.20",
        "P_3",
        "P_5",
        "P_7",
        "Rprec_mult_0.50",
        "utility_2,-1,0,0",
        "11pt_avg_.25,.5",
        "ndcg_1=3,2=9",
    ]


def test_trec_eval_first_parameters_win_and_nicknames_expand() -> None:
    entries = parse_trec_list(["P.5", "P.10", "official"])
    assert [e.label for e in entries if e.label.startswith("P_")] == ["P_5"]
    assert len(parse_trec_list(["all_trec"])) > 90
    assert set(NICKNAMES["official"]) <= set(TREC_MEASURES)


def test_trec_syntax_detection() -> None:
    assert is_trec_syntax("ndcg_cut.10")
    assert is_trec_syntax("all_trec")
    assert is_trec_syntax("P")
    assert not is_trec_syntax("ndcg@10")
    assert not is_trec_syntax("map")
    assert not is_trec_syntax("ndcg")


def test_unknown_trec_measure_suggests() -> None:
    with pytest.raises(UnknownMeasureError, match="ndcg_cut"):
        parse_trec("ndcg_cutt.10")


def test_every_family_is_documented_and_computable() -> None:
    from rankwise.kernels import KERNELS

    for name, family in FAMILIES.items():
        assert family.summary and family.formula and family.reference, name
        assert name in KERNELS, name


names = st.sampled_from(sorted(n for n, f in FAMILIES.items() if f.cutoff != "required"))


@given(names, st.one_of(st.none(), st.integers(1, 10_000)))
def test_canonical_string_round_trips(name: str, cutoff: int | None) -> None:
    family = FAMILIES[name]
    if family.cutoff == "none":
        cutoff = None
    measure = Measure(name, cutoff)
    assert parse(str(measure)) == measure
    shouted = str(measure).upper() if name.islower() else str(measure)
    ir_name = IR_MEASURES.get(shouted.partition("@")[0])
    if ir_name is not None and ir_name.family is None:  # NRBP: ir_measures', not mapped yet
        with pytest.raises(UnsupportedMeasureError, match=f"planned: rankwise's {name}"):
            parse(shouted)
    elif ir_name is not None:  # NDCG: ir_measures' name, its meaning
        assert parse(shouted) == parse_ir_measures(shouted).measure
    else:
        assert parse(shouted) == measure


def _parameter_values(family_name: str) -> list[Measure]:
    """The family's measure with each parameter set to a value other than its default."""
    family = FAMILIES[family_name]
    cutoff = 5 if family.cutoff != "none" else None
    out = []
    for key, param in family.params.items():
        for text in ("2", "0.5", "linear", "exp", "1;2"):
            try:
                value = param.convert(text)
            except (ValueError, TypeError):
                continue
            if value != param.default:
                out.append(Measure(family_name, cutoff, ((key, value),)))
                break
    return out


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_canonical_strings_with_parameters_round_trip(name: str) -> None:
    """What rankwise's own parser reads, rw.parse reads alike, also where ir_measures spells
    a measure the same (Rprec(mult=0.5): ir_measures' Rprec has no mult)."""
    from rankwise.measures.parser import parse as parse_rankwise

    for measure in _parameter_values(name):
        try:
            own = parse_rankwise(str(measure))
        except (MeasureSyntaxError, UnknownMeasureError):
            continue  # a value this family refuses (checked elsewhere)
        assert parse(str(own)) == own
        assert parse(str(measure)) == own
    assert str(parse("Rprec(mult=0.5)")) == "Rprec(mult=0.5)"
    with pytest.raises(MeasureSyntaxError, match="ir_measures' Rprec has no parameter 'x'"):
        parse("Rprec(x=1)")


@pytest.mark.parametrize("name", ["P.", "ndcg_cut.", "recall.", "map_cut.", "success."])
def test_a_dot_with_no_parameters_is_refused_as_trec_eval_and_pytrec_eval_do(name: str) -> None:
    """``P.`` is not ``P`` (its default cutoffs): trec_eval and pytrec_eval both refuse it."""
    import rankwise as rw
    from rankwise.exceptions import MeasureSyntaxError

    with pytest.raises(MeasureSyntaxError, match=f"empty parameter list in measure '{name}'"):
        rw.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name])


def test_measures_given_as_one_object_or_a_wrong_type() -> None:
    """An int was a bare TypeError; one ir_measures object (not in a list) a KeyError."""
    import rankwise as rw
    from rankwise.exceptions import MeasureSyntaxError

    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.4}, "q2": {"d3": 1.0, "d4": 0.2}}
    with pytest.raises(MeasureSyntaxError, match="a measure must be a string, got int"):
        rw.evaluate(qrels, run, 5)
    with pytest.raises(MeasureSyntaxError, match="a measure must be a string, got int"):
        rw.compare(qrels, {"a": run, "b": run}, 5)
    ir_measures = pytest.importorskip("ir_measures")
    assert rw.evaluate(qrels, run, ir_measures.AP).mean == rw.evaluate(qrels, run, ["map"]).mean
    assert (rw.evaluate(qrels, run, ir_measures.nDCG @ 10).mean["ndcg@10(gain=linear)"]
            == rw.evaluate(qrels, run, ["ndcg@10(gain=linear)"]).mean["ndcg@10(gain=linear)"])


def test_a_rel_written_in_the_measure_is_kept_when_rel_is_given() -> None:
    """``map(rel=1)`` with ``rel=2``: the measure's own level (the default value) stays."""
    import rankwise as rw

    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.4}, "q2": {"d3": 1.0, "d4": 0.2}}
    assert rw.evaluate(qrels, run, ["map(rel=1)"], rel=2).mean == {"map": 1.0}
    assert rw.evaluate(qrels, run, ["map"], rel=2).mean == {"map(rel=2)": 0.25}
    assert rw.evaluate(qrels, run, ["map(rel=3)"], rel=2).mean == {"map(rel=3)": 0.0}


@pytest.mark.parametrize("text", ["rbp(p=1.5)", "rbp(p=-0.5)", "rbp_resid(p=2)",
                                  "iprec_at_recall(recall=2)", "iprec_at_recall(recall=-0.5)"])
def test_probabilities_and_recall_levels_are_in_zero_one(text: str) -> None:
    import rankwise as rw
    from rankwise.exceptions import MeasureSyntaxError

    with pytest.raises(MeasureSyntaxError, match="expected a number from 0 to 1"):
        rw.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [text])
