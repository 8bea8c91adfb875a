"""Intent-aware (diversity) measures: ndeval's, from the TREC Web track 2009-2014.

They read diversity judgments (a grade per subtopic of the query; plain
judgments count as one subtopic per query). A document is relevant to a
subtopic when its grade there is >= rel (ndeval: 1). M is the number of
subtopics of the query with a relevant document; g(i), the novelty gain at
rank i, is the sum over the subtopics the document is relevant to of
(1 - alpha)^(documents above it relevant to that subtopic). The ideal
ranking is ndeval's greedy one: at each rank the judged document of
greatest g (ties: the greatest docno).
"""

from __future__ import annotations

from rankwise.measures.family import Family
from rankwise.measures.params import REL, Param, probability

__all__ = ["FAMILIES"]

ALPHA = Param(0.5, probability, "probability that a relevant document fails a subtopic's user")
BETA = Param(0.5, probability, "persistence of NRBP's user (as RBP's p)")
_NDEVAL = "TREC Web track ndeval (2009-2014)"

FAMILIES: list[Family] = [
    Family(
        "alpha_ndcg",
        "alpha-nDCG (novelty- and diversity-aware nDCG)",
        "sum_{i<=k} g(i) / log2(i + 1) over the same sum of the greedy ideal ranking",
        "optional",
        {"alpha": ALPHA, "rel": REL},
        ("alpha-ndcg", "a_ndcg"),
        reference=f"Clarke et al., SIGIR 2008; {_NDEVAL}",
    ),
    Family(
        "alpha_dcg",
        "alpha-DCG, over the ideal-ideal gain",
        "sum_{i<=k} g(i) / log2(i + 1) / sum_{i<=k} M (1 - alpha)^(i-1) / log2(i + 1)",
        "required",
        {"alpha": ALPHA, "rel": REL},
        ("alpha-dcg",),
        reference=f"Clarke et al., SIGIR 2008; {_NDEVAL}",
    ),
    Family(
        "err_ia",
        "intent-aware expected reciprocal rank, over the ideal-ideal gain",
        "sum_{i<=k} g(i) / i / sum_{i<=k} M (1 - alpha)^(i-1) / i",
        "required",
        {"alpha": ALPHA, "rel": REL},
        ("err-ia",),
        reference=f"Chapelle et al., CIKM 2009; Clarke et al., ICTIR 2009; {_NDEVAL}",
    ),
    Family(
        "nerr_ia",
        "intent-aware ERR normalised by the greedy ideal ranking",
        "sum_{i<=k} g(i) / i over the same sum of the greedy ideal ranking",
        "optional",
        {"alpha": ALPHA, "rel": REL},
        ("nerr-ia",),
        reference=f"Clarke et al., ICTIR 2009; {_NDEVAL}",
    ),
    Family(
        "nrbp",
        "novelty- and rank-biased precision",
        "(1 - (1 - alpha) beta) / M * sum_i beta^(i-1) g(i), over the whole ranking",
        "none",
        {"alpha": ALPHA, "beta": BETA, "rel": REL},
        reference=f"Clarke, Kolla & Vechtomova, ICTIR 2009; {_NDEVAL}",
    ),
    Family(
        "nnrbp",
        "NRBP normalised by the greedy ideal ranking",
        "NRBP / NRBP of the greedy ideal ranking (0 when M = 0; ndeval: nan)",
        "none",
        {"alpha": ALPHA, "beta": BETA, "rel": REL},
        reference=f"Clarke, Kolla & Vechtomova, ICTIR 2009; {_NDEVAL}",
    ),
    Family(
        "ap_ia",
        "intent-aware average precision (MAP-IA)",
        "(1/M) sum_j (1/R_j) sum_{i relevant to j} n_j(i) / i; n_j(i): relevant to j in the "
        "top i, R_j: judged relevant to j",
        "none",
        {"rel": REL},
        ("map_ia", "map-ia"),
        reference=f"Agrawal et al., WSDM 2009; {_NDEVAL}",
    ),
    Family(
        "p_ia",
        "intent-aware precision at k",
        "(sum over the top k of the number of subtopics each is relevant to) / (k M)",
        "required",
        {"rel": REL},
        ("p-ia",),
        reference=f"Agrawal et al., WSDM 2009; {_NDEVAL}",
    ),
    Family(
        "strec",
        "subtopic recall at k",
        "(subtopics with a relevant document in the top k) / M",
        "required",
        {"rel": REL},
        ("subtopic_recall", "st_recall"),
        reference=f"Zhai, Cohen & Lafferty, SIGIR 2003; {_NDEVAL}",
    ),
]
