"""Hypothesis properties of the engine."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import collections

import rankwise as rw

BOUNDED = [
    "ndcg@5",
    "ndcg",
    "ndcg@3(gain=linear)",
    "map",
    "map@5",
    "mrr",
    "mrr@3",
    "P@3",
    "recall@5",
    "Rprec",
    "bpref",
    "hit@2",
    "infAP",
    "judged@3",
    "set_P",
    "set_recall",
    "set_F",
    "relative_P@3",
    "iprec_at_recall(recall=0.5)",
    "11pt_avg",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
    "rbp",
    "unj@3",
    # beyond trec_eval (plain judgments are one subtopic per query)
    "rbp(p=0.5,rel=2)",
    "err@5",
    "nerr",
    "ncg@3",
    "compat",
    "compat(p=0.5,depth=4,normalize=false)",
    "judged(denominator=retrieved)",
    "alpha_ndcg@3",
    "nerr_ia",
    "nnrbp",
    "nrbp",
    "ap_ia",
    "p_ia@3",
    "strec@2",
    "inst(rel=1)",
    "insq(rel=1,depth=5)",
    "bpm(rel=1)",
    "tbg(rel=2)",
    "umeasure(rel=1,L=3)",
]


@settings(max_examples=150, deadline=None)
@given(collections())
def test_values_lie_in_zero_one(data) -> None:
    qrels, run = data
    results = rw.evaluate(qrels, run, BOUNDED)
    for name in results:
        values = results[name]
        assert np.all(values >= -1e-12) and np.all(values <= 1 + 1e-12), name


@settings(max_examples=100, deadline=None)
@given(collections())
def test_a_perfect_ranking_scores_one(data) -> None:
    qrels, _ = data
    run = {q: {d: float(g) + 10 for d, g in docs.items()} for q, docs in qrels.items()}
    results = rw.evaluate(qrels, run, ["ndcg", "ndcg@3", "map", "mrr", "Rprec", "bpref"])
    has_rel = np.array([max(qrels[q].values()) >= 1 for q in results.query_ids])
    for name in results:
        assert np.allclose(results[name][has_rel], 1.0), name


@settings(max_examples=100, deadline=None)
@given(collections(), st.randoms(use_true_random=False))
def test_line_order_does_not_matter(data, random) -> None:
    qrels, run = data
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    random.shuffle(rows)
    shuffled: dict[str, dict[str, float]] = {}
    for q, d, s in rows:
        shuffled.setdefault(q, {})[d] = s
    a = rw.evaluate(qrels, run, BOUNDED).to_dict()
    b = rw.evaluate(qrels, shuffled, BOUNDED).to_dict()
    assert a == b


@settings(max_examples=100, deadline=None)
@given(collections(ties=False), st.randoms(use_true_random=False))
def test_renaming_documents_changes_nothing_without_ties(data, random) -> None:
    qrels, run = data
    names = sorted(
        {d for docs in run.values() for d in docs} | {d for docs in qrels.values() for d in docs}
    )
    renamed = dict(zip(names, random.sample([f"x{i}" for i in range(len(names))], len(names))))
    qrels2 = {q: {renamed[d]: g for d, g in docs.items()} for q, docs in qrels.items()}
    run2 = {q: {renamed[d]: s for d, s in docs.items()} for q, docs in run.items()}
    a = rw.evaluate(qrels, run, BOUNDED).to_dict()
    b = rw.evaluate(qrels2, run2, BOUNDED).to_dict()
    for name in a:
        for q in a[name]:
            assert abs(a[name][q] - b[name][q]) < 1e-12, (name, q)


@settings(max_examples=60, deadline=None)
@given(collections())
def test_dict_frame_and_file_forms_agree(data) -> None:
    import pyarrow as pa

    qrels, run = data
    qrows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    rrows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    qt = pa.table(
        {
            "query_id": [r[0] for r in qrows],
            "doc_id": [r[1] for r in qrows],
            "relevance": [r[2] for r in qrows],
        }
    )
    rt = pa.table(
        {
            "query_id": [r[0] for r in rrows],
            "doc_id": [r[1] for r in rrows],
            "score": [r[2] for r in rrows],
        }
    )
    trec_q = "".join(f"{q} 0 {d} {g}\n" for q, d, g in qrows).encode()
    trec_r = "".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, d, s in rrows).encode()
    a = rw.evaluate(qrels, run, BOUNDED).to_dict()
    b = rw.evaluate(qt, rt, BOUNDED).to_dict()
    c = rw.evaluate(rw.read_trec_qrels(trec_q), rw.read_trec_run(trec_r), BOUNDED).to_dict()
    assert a == b == c
