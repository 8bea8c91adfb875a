"""The C/W/L framework's measures (cwl_eval): INST, INSQ, BPM, TBG, U-measure, SDCG, NERR.

Each takes ``quantity`` (``eu``: expected utility per document, the value;
``etu``, ``ec``, ``etc``, ``ed``: expected total utility, expected cost per
document, expected total cost, expected depth), ``depth`` (the ranking is
padded or cut to it, cwl_eval's 1000), ``max_grade`` and ``min_grade`` (gains
are (grade - min_grade) / (max_grade - min_grade), clipped to [0, 1]) or ``rel``
(binary gains), ``cost`` (of each retrieved document,
1 past the end of the ranking: cwl_eval with a cost file for the run's one element
type). ``rbp`` (in the core group) is C/W/L's RBP as trec_eval computes it.
"""

from __future__ import annotations

from rankwise.measures.family import Family
from rankwise.measures.params import (
    BINARY_REL,
    Param,
    choice,
    integer,
    number,
    positive,
    probability,
)

__all__ = ["FAMILIES"]

_COMMON = {
    "quantity": Param(
        "eu",
        choice("eu", "etu", "ec", "etc", "ed"),
        "eu: expected utility per document (the value); etu: expected total utility; "
        "ec: expected cost per document; etc: expected total cost; ed: expected depth",
    ),
    "depth": Param(1000, integer, "the ranking is padded (gain 0) or cut to this many documents"),
    "max_grade": Param(
        1.0, positive, "gains are grade / max_grade, at most 1 (cwl_eval reads gains in [0, 1])"
    ),
    "min_grade": Param(
        0.0, number, "a grade at or below it gains 0: gains are (grade - min_grade) / "
        "(max_grade - min_grade), clipped to [0, 1] (ir_measures' min_rel)"
    ),
    "rel": BINARY_REL,
    "cost": Param(
        1.0, positive, "the cost of each retrieved document (cwl_eval's cost file entry for the "
        "run's element type, Q0); past the end of the ranking 1 (cwl_eval's max_cost)"
    ),
}
_CWL = (
    "Moffat, Bailey, Scholer & Thomas, TOIS 2017; "
    "Azzopardi, Thomas & Moffat, SIGIR 2019 (cwl_eval)"
)
_C_W_L = (
    "W_i = prod_{j<i} C_j / sum_{i<=N} prod_{j<i} C_j; value = sum_i W_i gain_i"
)

FAMILIES: list[Family] = [
    Family(
        "inst",
        "INST: adaptive, target-driven expected utility (C/W/L)",
        f"C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - (gain through rank i); {_C_W_L}",
        "none",
        {"T": Param(1.0, positive, "the gain the user wants"), **_COMMON},
        reference=f"Moffat, Bailey, Scholer & Thomas, ADCS 2015; {_CWL}",
    ),
    Family(
        "insq",
        "INSQ: target-driven expected utility, gain-independent continuation (C/W/L)",
        f"C_i = ((i + 2T - 1) / (i + 2T))^2; {_C_W_L}",
        "none",
        {"T": Param(1.0, positive, "the gain the user wants"), **_COMMON},
        reference=f"Moffat, Scholer & Thomas, ADCS 2012; {_CWL}",
    ),
    Family(
        "bpm",
        "bejewelled player model, static (C/W/L)",
        f"C_i = 1 while the gain through rank i is < T and the cost through rank i is < K, "
        f"then 0; {_C_W_L}",
        "none",
        {
            "T": Param(1.0, positive, "the gain the user wants"),
            "K": Param(10.0, positive, "the cost the user will spend (documents at cost 1)"),
            **_COMMON,
        },
        reference=f"Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017; {_CWL}",
    ),
    Family(
        "tbg",
        "time-biased gain (C/W/L)",
        "W_i proportional to h 2^(-K_(i-1)/h) / ln 2 (the decay after the cost K_(i-1) spent "
        "above rank i), normalised over N; C_i = W_(i+1) / W_i; value = sum_i W_i gain_i",
        "none",
        {"halflife": Param(224.0, positive, "half-life h of the decay, in cost units"), **_COMMON},
        reference=f"Smucker & Clarke, SIGIR 2012; {_CWL}",
    ),
    Family(
        "umeasure",
        "U-measure (C/W/L)",
        "W_i proportional to max(0, 1 - K_(i-1) / L) for i < N (K_(i-1): the cost spent "
        "above rank i), W_N = 0, normalised; "
        "value = sum_i W_i gain_i",
        "none",
        {"L": Param(1000.0, positive, "the cost after which the user has stopped"), **_COMMON},
        ("u_measure", "u-measure"),
        reference=f"Sakai & Dou, SIGIR 2013; {_CWL}",
    ),
    Family(
        "sdcg",
        "scaled DCG at k: DCG@k over the DCG of k fully relevant documents (C/W/L)",
        f"C_i = log2(i + 1) / log2(i + 2) for i < k, then 0: W_i = (1 / log2(i + 1)) / "
        f"sum_(j<=k) 1 / log2(j + 1); {_C_W_L}",
        "required",
        dict(_COMMON),
        reference=f"Jarvelin & Kekalainen, TOIS 2002 (DCG); {_CWL} (NDCG-k)",
    ),
    Family(
        "nerr8",
        "not (but nearly) ERR, eq. 8: gain-based stopping, truncated at k (C/W/L)",
        f"C_i = 1 - gain_i for i < k, then 0; {_C_W_L}",
        "required",
        dict(_COMMON),
        reference=f"Azzopardi, Mackenzie & Moffat, ICTIR 2021; {_CWL}",
    ),
    Family(
        "nerr9",
        "not (but nearly) ERR, eq. 9: gain-based stopping and a rank discount, truncated at "
        "k (C/W/L)",
        f"C_i = i / (i + 1) (1 - gain_i) for i < k, then 0; {_C_W_L}",
        "required",
        dict(_COMMON),
        reference=f"Azzopardi, Mackenzie & Moffat, ICTIR 2021; {_CWL}",
    ),
    Family(
        "nerr10",
        "not (but nearly) ERR, eq. 10: gain-based stopping with RBP's persistence (C/W/L)",
        f"C_i = p (1 - gain_i); {_C_W_L}",
        "none",
        {"p": Param(0.9, probability, "persistence"), **_COMMON},
        reference=f"Azzopardi, Mackenzie & Moffat, ICTIR 2021; {_CWL}",
    ),
    Family(
        "nerr11",
        "not (but nearly) ERR, eq. 11: gain-based stopping with INSQ's target (C/W/L)",
        f"C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - gain_i); {_C_W_L}",
        "none",
        {"T": Param(1.0, positive, "the gain the user wants"), **_COMMON},
        reference=f"Azzopardi, Mackenzie & Moffat, ICTIR 2021; {_CWL}",
    ),
]
