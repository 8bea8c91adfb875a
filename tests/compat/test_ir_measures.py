"""ir_measures' language in rw.parse, and rankwise.compat.ir_measures, against ir_measures 0.4.

- Every measure ir_measures registers, with every parameter it takes, written
  as ir_measures writes it (``repr``), is read by ``rw.parse``: a measure, or
  UnsupportedMeasureError naming it when rankwise does not have it yet.
- Each measure read has ir_measures' values (its providers, run here), on
  random collections with ties: differences only where docs/compat.md says
  (RR@k's tie order, IPrec's cut-off rounding, gdeval's 5 decimals).
- The drop-in's calc_aggregate / iter_calc / evaluator equal ir_measures', and
  register() makes rankwise a provider of ir_measures' default pipeline.
"""

from __future__ import annotations

import itertools
import math
import re

import pytest
from strategies import random_collection

import rankwise as rw
from rankwise.compat import ir_measures as drop_in
from rankwise.measures.ir_measures_names import IR_MEASURES

irm = pytest.importorskip("ir_measures")

VALUES = {
    "cutoff": [5], "rel": [2], "judged_only": [True, False], "p": [0.5], "dcg": ["exp-log2"],
    "gains": [{0: 0, 1: 1, 2: 5, 3: 9}], "beta": [0.5, 4.0], "relative": [True],
    "recall": [0.3, 1.0], "alpha": [0.3], "T": [2.0], "min_rel": [1], "max_rel": [3],
    "normalize": [False],
}
"""Values tried for each ir_measures parameter (besides leaving it out)."""


def ir_measures_variants() -> list:
    """Every registered name with every subset of its parameters set, as ir_measures validates."""
    out = []
    for name, measure in sorted(irm.measures.registry.items()):
        params = list(measure.SUPPORTED_PARAMS)
        choices = [[None, *VALUES[p]] for p in params]
        for combo in itertools.product(*choices):
            given = {p: v for p, v in zip(params, combo) if v is not None}
            try:
                variant = measure(**given)
                variant.validate_params()
            except AssertionError:
                continue
            out.append((name, variant))
    return out


VARIANTS = ir_measures_variants()
PYNDEVAL = {"ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP", "AP_IA", "P_IA",
            "StRecall"}


def test_the_name_table_lists_every_ir_measures_name() -> None:
    assert set(IR_MEASURES) == set(irm.measures.registry)
    for name, measure in irm.measures.registry.items():
        assert set(IR_MEASURES[name].params) == set(measure.SUPPORTED_PARAMS), name
        assert IR_MEASURES[name].at == measure.AT_PARAM, name


def test_every_ir_measures_string_is_read() -> None:
    read, unsupported = 0, 0
    assert len(VARIANTS) > 200
    for _name, variant in VARIANTS:
        text = repr(variant)
        assert irm.parse_measure(text) == variant  # ir_measures itself accepts the string
        try:
            measure = rw.parse(text)
        except rw.UnsupportedMeasureError as error:
            assert f"ir_measures' {text} is not available in rankwise" in str(error)
            unsupported += 1
            continue
        except rw.MeasureSyntaxError as error:
            if "needs a cutoff" in str(error):  # ERR_IA: ir_measures' pyndeval needs one too
                assert variant.NAME in PYNDEVAL, text
                continue
            if variant.NAME in ("NRBP", "nNRBP"):  # beta=4: ndeval's beta is a probability
                assert "parameter 'beta'" in str(error), text
                continue
            assert variant["judged_only"] is True and "judged_only" in str(error), text
            continue
        assert isinstance(measure, rw.Measure)
        assert rw.parse(variant) == measure  # the object reads as its string
        assert rw.parse(str(measure)) == measure  # and canonically in rankwise's language
        read += 1
    assert read > 270 and unsupported < 10  # RBP(rel=..)@k, Accuracy (the drop-in's)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("nDCG@10", "ndcg@10(gain=linear)"),
        ("NDCG@10", "ndcg@10(gain=linear)"),
        ("nDCG(dcg=exp-log2)@10", "ndcg@10"),
        ("nDCG(dcg='exp-log2')@10", "ndcg@10"),
        ("AP", "map"),
        ("AP(rel=2)@100", "map@100(rel=2)"),
        ("P(rel=2)@5", "P@5(rel=2)"),
        ("RR@10", "mrr@10"),
        ("R@1000", "recall@1000"),
        ("Rprec", "Rprec"),
        ("Bpref", "bpref"),
        ("infAP", "infAP"),
        ("SetP", "set_P"),
        ("SetR", "set_recall"),
        ("SetF", "set_F"),
        ("NumRet", "num_ret"),
        ("NumRel", "num_rel"),
        ("NumRelRet", "num_rel_ret"),
        ("IPrec@0.5", "iprec_at_recall(recall=0.5)"),
        ("Success@5", "hit@5"),
        ("RBP(p=0.8)", "rbp"),
        ("SetF(beta=4)", "set_F(beta=2)"),
        ("ndcg_cut_10", "ndcg@10(gain=linear)"),
        ("P_10", "P@10"),
        ("map_cut_100", "map@100"),
        ("recip_rank", "mrr"),
        ("iprec_at_recall_0.10", "iprec_at_recall(recall=0.1)"),
        ("ndcg@10", "ndcg@10"),  # rankwise's own spelling keeps rankwise's meaning
    ],
)
def test_strings_of_the_issue(text: str, canonical: str) -> None:
    assert str(rw.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ERR@20", "err@20"),
        ("Judged@10", "judged@10(denominator=retrieved)"),
        ("RBP(rel=1)", "rbp(rel=1)"),
        ("INST(T=2,max_rel=3)", "inst(T=2,max_grade=3)"),
        ("BPM(T=2,max_rel=1)@5", "bpm(K=5,T=2)"),
    ],
)
def test_measures_beyond_trec_eval(text: str, canonical: str) -> None:
    assert str(rw.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("SDCG(max_rel=3)@10", "sdcg@10(max_grade=3)"),
        ("NERR8(max_rel=1)@5", "nerr8@5"),
        ("NERR9(max_rel=2)@5", "nerr9@5(max_grade=2)"),
        ("NERR10(p=0.8,max_rel=2)", "nerr10(max_grade=2,p=0.8)"),
        ("NERR11(T=2.0,max_rel=1)", "nerr11(T=2)"),
        ("INST(min_rel=1,max_rel=3)", "inst(max_grade=3,min_grade=1)"),
    ],
)
def test_the_measures_refused_before_issue_35(text: str, canonical: str) -> None:
    assert str(rw.parse(text)) == canonical


@pytest.mark.parametrize("text", ["RBP(rel=1)@10", "Accuracy@5"])
def test_measures_not_available_yet_say_so(text: str) -> None:
    with pytest.raises(rw.UnsupportedMeasureError, match=re.escape(f"ir_measures' {text} is")):
        rw.parse(text)


def numeric_ids(qrels: dict, run: dict) -> tuple[dict, dict]:
    """Query ids as digits: gdeval, ir_measures' nDCG(dcg='exp-log2') provider, needs them."""
    rename = {query: str(100 + int(query[1:])) for query in {*qrels, *run}}
    return ({rename[q]: docs for q, docs in qrels.items()},
            {rename[q]: docs for q, docs in run.items()})


def ir_values(measure, qrels: dict, run: dict) -> dict | None:
    """ir_measures' per-query values of one measure, None when no provider of it runs here."""
    try:
        return {m.query_id: m.value for m in irm.iter_calc([measure], qrels, run)}
    except (ValueError, RuntimeError, AssertionError):  # ranx's provider fails on pandas 3
        return None


def tie_free_ascending(run: dict) -> dict:
    """The run with tied scores ordered by document id ascending (MS MARCO's script order)."""
    out = {}
    for query, docs in run.items():
        order = sorted(docs, key=lambda doc: (-docs[doc], doc))
        out[query] = {doc: float(len(order) - rank) for rank, doc in enumerate(order)}
    return out


ASCENDING = {"Judged"}


def test_values_are_ir_measures_values() -> None:
    """Each measure rw.parse reads from ir_measures' string has ir_measures' values."""
    collections = [numeric_ids(*random_collection(seed, ties=seed % 2 == 0)) for seed in range(6)]
    compared, no_provider = set(), set()
    for _, variant in VARIANTS:
        text = repr(variant)
        if variant.NAME in PYNDEVAL or variant.NAME in ("Compat", "Accuracy"):
            continue  # test_ir_measures_diversity.py, _compat.py; Accuracy's ties: _values.py
        try:
            measure = rw.parse(text.replace("judged_only=True", "judged_only=False"))
        except rw.UnsupportedMeasureError:
            continue
        judged_only = variant["judged_only"] is True if "judged_only" in variant.params else False
        for qrels, run in collections:
            qrels = {q: {d: min(g, 4) for d, g in docs.items()} for q, docs in qrels.items()}
            want = ir_values(variant, qrels, run)
            if want is None:
                no_provider.add(text)
                break
            # ir_measures' pyndeval and judged providers order tied scores by docno ascending
            ties = "ascending" if variant.NAME in ASCENDING else "trec"
            results = rw.evaluate(qrels, run, [measure], judged_only=judged_only, ties=ties)
            got = dict(zip(results.query_ids, results[measure].tolist()))
            gdeval = variant.NAME == "ERR" or (variant.NAME == "nDCG"
                                               and variant["dcg"] == "exp-log2")
            tolerance = 5e-6 if gdeval else 1e-9  # gdeval prints 5 decimals
            for query, value in got.items():
                if variant.NAME == "RR" and "cutoff" in variant.params:
                    continue  # tie order: test_rr_at_k_differs_only_by_the_tie_order
                if variant.NAME == "IPrec":
                    continue  # trec_eval 9's cut-off rounding: tests/compat/test_pytrec_eval.py
                assert math.isclose(value, want[query], abs_tol=tolerance), (text, query)
            compared.add(text)
    assert len(compared) > 60
    assert "RBP" in no_provider  # ir_measures' RBP needs cwl_eval, not installed here


def test_rr_at_k_differs_only_by_the_tie_order() -> None:
    """ir_measures computes RR@k with MS MARCO's script, which orders tied scores by document
    id ascending: with ties broken that way beforehand, rankwise's mrr@k is the same."""
    differ = 0
    for seed in range(6):
        qrels, run = random_collection(seed, ties=True)
        for k in (1, 5, 10):
            want = ir_values(irm.RR @ k, qrels, run)
            ordered = ir_values(irm.RR @ k, qrels, tie_free_ascending(run))
            results = rw.evaluate(qrels, tie_free_ascending(run), [f"RR@{k}"])
            assert want == ordered
            for query, value in zip(results.query_ids, results[f"mrr@{k}"]):
                assert value == want[query]
            plain = rw.evaluate(qrels, run, [f"RR@{k}"])
            differ += sum(v != want[q] for q, v in zip(plain.query_ids, plain[f"mrr@{k}"]))
    assert differ > 0


def drop_in_measures() -> list:
    return [irm.P @ 5, irm.P(rel=2) @ 3, irm.R @ 10, irm.RR, irm.AP, irm.AP @ 10, irm.nDCG,
            irm.nDCG @ 10, irm.nDCG(gains={0: 0, 1: 1, 2: 5, 3: 9}) @ 5, irm.Rprec, irm.Bpref,
            irm.infAP, irm.NumQ, irm.NumRet, irm.NumRelRet, irm.NumRel, irm.SetP, irm.SetRelP,
            irm.SetR, irm.SetF(beta=0.5), irm.SetAP, irm.Success @ 5, irm.P(judged_only=True) @ 5,
            irm.AP(judged_only=True), irm.nDCG(judged_only=True) @ 10]


@pytest.mark.parametrize("seed", range(8))
def test_drop_in_calc_aggregate_and_iter_calc(seed: int) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    measures = drop_in_measures()
    # ir_measures is asked one measure at a time: its pytrec_eval provider groups measures
    # into evaluators in set order, so with judged_only measures in the same call NumRet or
    # AP may be computed judged-only or not depending on PYTHONHASHSEED (ir_measures 0.4.3)
    want = {m: v for measure in measures for m, v in irm.calc_aggregate([measure], qrels,
                                                                         run).items()}
    got = drop_in.calc_aggregate(measures, qrels, run)
    assert list(got) == measures
    for measure in measures:
        assert got[measure] == pytest.approx(want[measure], abs=1e-12), measure
    want_rows = {(m.query_id, m.measure): m.value
                 for measure in measures for m in irm.iter_calc([measure], qrels, run)}
    got_rows = {(m.query_id, m.measure): m.value for m in drop_in.iter_calc(measures, qrels, run)}
    assert set(got_rows) == set(want_rows)  # every judged query, the run's missing ones too
    for key, value in want_rows.items():
        assert got_rows[key] == pytest.approx(value, abs=1e-12), key
    evaluator = drop_in.evaluator(measures, qrels)
    assert evaluator.calc_aggregate(run) == got
    aggregated, per_query = evaluator.calc(run)
    assert aggregated == got and len(per_query) == len(got_rows)


def test_drop_in_takes_strings_frames_and_named_tuples() -> None:
    pd = pytest.importorskip("pandas")
    qrels, run = random_collection(2, ties=True)
    qrels_rows = [irm.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    run_frame = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    want = irm.calc_aggregate([irm.nDCG @ 10, irm.AP(rel=2)], qrels, run)
    got = drop_in.calc_aggregate(["nDCG@10", "AP(rel=2)"], iter(qrels_rows), run_frame)
    assert got == {"nDCG@10": pytest.approx(want[irm.nDCG @ 10]),
                   "AP(rel=2)": pytest.approx(want[irm.AP(rel=2)])}


@pytest.mark.parametrize("form", ["dict", "frame", "list", "generator"])
def test_an_empty_run_is_scored_as_ir_measures_scores_it(form: str) -> None:
    # rankwise refuses an input with no data (issue 33, item 19); ir_measures reads an empty
    # run as one that retrieved nothing, and the drop-in does as ir_measures does
    pd = pytest.importorskip("pandas")
    qrels, _ = random_collection(3, ties=False)
    make = {"dict": dict, "list": list, "generator": lambda: iter([]),
            "frame": lambda: pd.DataFrame({"query_id": [], "doc_id": [], "score": []})}[form]
    measures = [irm.nDCG @ 10, irm.AP, irm.P @ 5, irm.RR, irm.NumRet]
    want = irm.calc_aggregate(measures, qrels, make())
    got = drop_in.calc_aggregate(measures, qrels, make())
    assert got == want
    want_rows = {(m.query_id, m.measure): m.value for m in irm.iter_calc(measures, qrels,
                                                                          make())}
    got_rows = {(m.query_id, m.measure): m.value for m in drop_in.iter_calc(measures, qrels,
                                                                             make())}
    assert got_rows == want_rows


def test_register_puts_rankwise_first_in_the_default_pipeline() -> None:
    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 2}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}
    with pytest.raises(ValueError, match="Unsupported measures"):
        irm.calc_aggregate([irm.NumRel(rel=2)], qrels, run)  # no provider of ir_measures' has it
    try:
        provider = drop_in.register()
        assert irm.providers.registry["rankwise"] is provider
        assert irm.DefaultPipeline.providers[1] is provider  # after runtime (define)
        assert irm.calc_aggregate([irm.NumRel(rel=2), irm.P @ 1], qrels, run) == {
            irm.NumRel(rel=2): 2, irm.P @ 1: 1.0}
        # what rankwise does not have falls through to ir_measures' own providers
        assert irm.calc_aggregate([irm.Judged @ 2], qrels, run) == {irm.Judged @ 2: 1.0}
        assert provider.supports(irm.nDCG @ 10) and provider.supports(irm.SDCG(max_rel=1) @ 10)
        assert not provider.supports(irm.RBP(rel=1) @ 10)  # rankwise's rbp takes no cutoff
    finally:
        drop_in.unregister()
    assert "rankwise" not in irm.providers.registry
    assert all(p.NAME != "rankwise" for p in irm.DefaultPipeline.providers)
