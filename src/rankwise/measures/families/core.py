"""trec_eval's measures and the common ones (nDCG, MAP, MRR, P@k, recall@k, ...).

Each family is data: its name and aliases, whether it takes a cutoff, its
parameters with their defaults, a summary, the formula and a reference.
The kernels of :mod:`rankwise.kernels` compute them.
"""

from __future__ import annotations

from rankwise.measures.dialects import DENOMINATOR, DIALECT, EMPTY
from rankwise.measures.family import Family
from rankwise.measures.params import (
    BINARY_REL,
    GAIN,
    GAINS,
    REL,
    Param,
    choice,
    coefficients,
    levels,
    number,
    probability,
)

__all__ = ["FAMILIES"]

ROUNDING = Param(
    "nearest", choice("nearest", "trec_eval9"),
    "how a recall level becomes a number of relevant documents: nearest, lround(level * R) "
    "(trec_eval 10.0), or trec_eval9, int(level * R + 0.9) (trec_eval 9, pytrec_eval)",
)
"""The rounding of iprec_at_recall's and 11pt_avg's recall levels to relevant documents."""

FAMILIES: list[Family] = [
    Family(
        "ndcg",
        "normalised discounted cumulative gain",
        "DCG@k / IDCG@k, IDCG@k being the DCG@k of all judged documents sorted by gain, "
        "descending; 0 when IDCG@k = 0",
        "optional",
        {"gain": GAIN, "gains": GAINS, "dialect": DIALECT, "empty": EMPTY},
        (),
        reference="Jarvelin & Kekalainen, TOIS 2002; Burges et al., ICML 2005",
    ),
    Family(
        "dcg",
        "discounted cumulative gain",
        "sum over the top k of gain(grade) / log2(rank + 1); gain 2^grade - 1 (gain=exp, the "
        "default) or the grade itself (gain=linear)",
        "optional",
        {"gain": GAIN, "gains": GAINS, "dialect": DIALECT},
        (),
        reference="Jarvelin & Kekalainen, TOIS 2002",
    ),
    Family(
        "map",
        "mean average precision",
        "(1/R) sum over relevant hits ranked <= k of (their index among relevant hits) / rank; "
        "map@k is trec_eval's map_cut.k",
        "optional",
        {"rel": REL, "dialect": DIALECT, "empty": EMPTY, "denominator": DENOMINATOR},
        ("ap",),
        reference="trec_eval map / map_cut",
    ),
    Family(
        "gm_map",
        "geometric mean of average precision",
        "per query AP; aggregated as exp(mean(log(max(AP, 1e-5))))",
        "none",
        {"rel": REL},
        aggregate="gmean",
        reference="Robertson, CIKM 2006; trec_eval gm_map",
    ),
    Family(
        "mrr",
        "mean reciprocal rank",
        "1 / rank of the first relevant document within the top k, else 0",
        "optional",
        {"rel": REL, "dialect": DIALECT, "empty": EMPTY},
        ("recip_rank", "rr"),
        reference="trec_eval recip_rank",
    ),
    Family(
        "P",
        "precision at k",
        "relevant in the top k / k (k even when fewer were retrieved)",
        "required",
        {"rel": REL, "dialect": DIALECT, "empty": EMPTY},
        ("precision", "p"),
        reference="trec_eval P",
    ),
    Family(
        "recall",
        "recall at k",
        "relevant in the top k / R; 0 when R = 0",
        "required",
        {"rel": REL, "dialect": DIALECT, "empty": EMPTY},
        ("R",),
        reference="trec_eval recall",
    ),
    Family(
        "Rprec",
        "R-precision",
        "relevant in the top c / c with c = int(mult * R + 0.9) (c = R by default; trec_eval "
        "Rprec, Rprec_mult)",
        "none",
        {"rel": REL, "mult": Param(1.0, number, "multiple of R as cutoff")},
        ("r-prec",),
        reference="trec_eval Rprec, Rprec_mult",
    ),
    Family(
        "bpref",
        "binary preference",
        "(1/R) sum over relevant hits r of 1 - min(n_r, R) / min(N, R): n_r judged non-relevant "
        "ranked above r, N judged non-relevant in the judgments (Buckley & Voorhees 2004)",
        "none",
        {"rel": REL, "dialect": DIALECT},
        reference="Buckley & Voorhees, SIGIR 2004",
    ),
    Family(
        "gm_bpref",
        "geometric mean of bpref",
        "per query bpref; aggregated as exp(mean(log(max(bpref, 1e-5))))",
        "none",
        {"rel": REL},
        aggregate="gmean",
        reference="trec_eval gm_bpref",
    ),
    Family(
        "hit",
        "hit rate (success) at k",
        "1 when a relevant document is in the top k, else 0",
        "required",
        {"rel": REL, "dialect": DIALECT, "empty": EMPTY},
        ("success", "HR"),
        reference="trec_eval success",
    ),
    Family(
        "rel_ret",
        "relevant documents retrieved in the top k",
        "relevant documents in the top k (every one retrieved without k): a count per query, "
        "averaged over the queries (num_rel_ret is the same count without k, summed); ranx's "
        "hits@k",
        "optional",
        {"rel": REL, "dialect": DIALECT},
        reference="ranx hits; trec_eval num_rel_ret",
    ),
    Family(
        "infAP",
        "inferred average precision",
        "inferred AP (Yilmaz & Aslam 2006) as trec_eval computes it: a document judged with a "
        "negative grade was pooled but not judged (left out: assumed relevant in the proportion "
        "of the judged ones); a document absent from the judgments was not pooled (counts as non-"
        "relevant)",
        "none",
        {"rel": REL},
        ("infap",),
        reference="Yilmaz & Aslam, CIKM 2006",
    ),
    Family(
        "judged",
        "judged at k",
        "judged documents (any grade) in the top k / k; denominator=retrieved: "
        "/ min(k, retrieved) (ir_measures' Judged); without k, k = retrieved",
        "optional",
        {
            "denominator": Param(
                "k",
                choice("k", "retrieved"),
                "what the judged count is divided by: k, or min(k, retrieved) (ir_measures)",
            )
        },
        aliases=("judged_at",),
        reference="Sakai & Kando 2008; ir_measures Judged",
    ),
    Family(
        "unj",
        "unjudged at k",
        "documents in the top k that are unjudged or have a negative grade / k (trec_eval unj)",
        "required",
        reference="trec_eval unj",
    ),
    Family(
        "set_P",
        "precision of the retrieved set",
        "relevant retrieved / retrieved",
        "none",
        {"rel": REL},
        reference="trec_eval set_P",
    ),
    Family(
        "set_recall",
        "recall of the retrieved set",
        "relevant retrieved / R",
        "none",
        {"rel": REL},
        reference="trec_eval set_recall",
    ),
    Family(
        "set_F",
        "F-measure of the retrieved set",
        "(1 + beta^2) P R / (beta^2 P + R) over the retrieved set",
        "none",
        {"rel": REL, "beta": Param(1.0, number, "weight of recall")},
        reference="van Rijsbergen 1979; trec_eval set_F",
    ),
    Family(
        "set_map",
        "set precision times set recall",
        "set_P * set_recall",
        "none",
        {"rel": REL},
        reference="trec_eval set_map",
    ),
    Family(
        "set_relative_P",
        "relative precision of the retrieved set",
        "relevant retrieved / min(retrieved, R)",
        "none",
        {"rel": REL},
        reference="trec_eval set_relative_P",
    ),
    Family(
        "relative_P",
        "relative precision at k",
        "relevant in the top k / min(k, R)",
        "required",
        {"rel": REL},
        reference="trec_eval relative_P",
    ),
    Family(
        "num_q",
        "number of queries evaluated",
        "1 per evaluated query (summed: the number of queries)",
        aggregate="sum",
        integer=True,
        reference="trec_eval num_q",
    ),
    Family(
        "num_ret",
        "number of documents retrieved",
        "documents retrieved (after the depth cut), summed over queries",
        aggregate="sum",
        integer=True,
        reference="trec_eval num_ret",
    ),
    Family(
        "num_rel",
        "number of relevant documents",
        "R, the relevant documents in the judgments, summed over queries",
        params={"rel": REL},
        aggregate="sum",
        integer=True,
        reference="trec_eval num_rel",
    ),
    Family(
        "num_rel_ret",
        "number of relevant documents retrieved",
        "relevant documents retrieved, summed over queries",
        params={"rel": REL},
        aggregate="sum",
        integer=True,
        reference="trec_eval num_rel_ret",
    ),
    Family(
        "num_nonrel_judged_ret",
        "number of judged non-relevant documents retrieved",
        "retrieved documents judged with a grade from 0 to below rel, summed over queries",
        params={"rel": REL},
        aggregate="sum",
        integer=True,
        reference="trec_eval num_nonrel_judged_ret",
    ),
    Family(
        "iprec_at_recall",
        "interpolated precision at a recall level",
        "highest precision at any relevant hit from the c-th on, c = lround(recall * R) "
        "(rounding=trec_eval9: int(recall * R + 0.9)); 0 when fewer than c relevant documents "
        "were retrieved",
        "none",
        {"rel": REL, "recall": Param(0.0, probability, "recall level in [0, 1]"),
         "rounding": ROUNDING},
        reference="trec_eval iprec_at_recall",
    ),
    Family(
        "11pt_avg",
        "interpolated precision averaged over recall levels",
        "mean of iprec_at_recall over the levels (0.0, 0.1, ..., 1.0)",
        "none",
        {"rel": REL, "levels": Param((), levels, "recall levels, default 0.0;0.1;...;1.0"),
         "rounding": ROUNDING},
        reference="trec_eval 11pt_avg",
    ),
    Family(
        "utility",
        "set utility",
        "a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret (collection size 0, as "
        "trec_eval without -N)",
        "none",
        {"rel": REL, "coefficients": Param((1.0, -1.0, 0.0, 0.0), coefficients, "a;b;c;d")},
        reference="trec_eval utility",
    ),
    Family(
        "rbp",
        "rank-biased precision",
        "(1 - p) sum_i gain_i p^(i-1), linear gains rescaled to [0, 1] per query when outside it, "
        "or with rel, 1 for a grade >= rel (Moffat & Zobel 2008; ir_measures' RBP(rel=...)); "
        "trec_eval's rbp is rbp(p=0.9)",
        "none",
        {"rel": BINARY_REL, "p": Param(0.8, probability, "persistence, in [0, 1]"),
         "dialect": DIALECT},
        reference="Moffat & Zobel, TOIS 2008",
    ),
    Family(
        "rbp_resid",
        "rank-biased precision residual",
        "p^retrieved + (1 - p) * sum of p^(i-1) over unjudged ranks i; 0 without unjudged "
        "documents",
        "none",
        {"p": Param(0.8, probability, "persistence, in [0, 1]")},
        reference="Moffat & Zobel, TOIS 2008; trec_eval rbp",
    ),
    Family(
        "ndcg_rel",
        "nDCG averaged over relevant documents",
        "trec_eval's nDCG averaged over the relevant documents: each retrieved one at rank r adds"
        " DCG@r / IDCG@r, each one not retrieved adds DCG / IDCG; divided by their number",
        "none",
        {"gains": GAINS},
        reference="trec_eval ndcg_rel",
    ),
    Family(
        "Rndcg",
        "nDCG averaged over the ends of the ideal gain levels",
        "mean of nDCG@i over the ranks i where the ideal gain drops (trec_eval Rndcg); 0 without "
        "a document relevant at level rel; NaN, as trec_eval's 0 / 0, when every gain is 0 "
        "(`gains={1: 0}`)",
        "none",
        {"gains": GAINS, "rel": REL},
        reference="trec_eval Rndcg",
    ),
    Family(
        "binG",
        "binary G",
        "(1/R) sum over relevant hits of 1 / log2(2 + rank - their index among relevant hits) "
        "(trec_eval binG)",
        "none",
        {"rel": REL},
        reference="trec_eval binG",
    ),
    Family(
        "G",
        "graded G",
        "binG with gains: sum over hits of gain / log2(2 + cost - gain retrieved through the "
        "hit), normalised by the sum of the ideal gains (trec_eval G)",
        "none",
        {"gains": GAINS},
        reference="trec_eval G",
    ),
    Family(
        "relstring",
        "relevance string of the top k",
        "one character per rank: the grade ('>' above 9), '-' unjudged, '.' negative grade",
        "optional",
        text_valued=True,
        aggregate="none",
        reference="trec_eval relstring",
    ),
]
