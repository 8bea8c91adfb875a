"""The catalog of measure families: names, aliases, parameters, definitions.

Each family is data: what it is called, whether it takes a cutoff, which
parameters it accepts with their defaults, a one-line summary, the formula
and a reference. The kernels (``rankwise.kernels``) compute them; nothing
here computes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rankwise.exceptions import MeasureSyntaxError

__all__ = ["FAMILIES", "Family", "Param", "lookup", "normalise_params"]


@dataclass(frozen=True)
class Param:
    """A measure parameter: its default, how to read it from text, and what it means."""

    default: Any
    convert: Callable[[str], Any]
    doc: str


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None


def _gain(text: str) -> str:
    value = text.lower()
    aliases = {"exp": "exp", "exponential": "exp", "linear": "linear", "lin": "linear"}
    if value not in aliases:
        raise ValueError(f"expected 'exp' or 'linear', got {text!r}")
    return aliases[value]


def _gain_map(text: str) -> tuple[tuple[float, float], ...]:
    """Read ``1=3;2=9`` (or with commas) into sorted (grade, gain) pairs."""
    pairs = []
    for item in text.replace(",", ";").split(";"):
        if not item:
            continue
        grade, sep, gain = item.partition("=")
        if not sep:
            raise ValueError(f"expected grade=gain pairs like '1=3;2=9', got {text!r}")
        pairs.append((float(grade), float(gain)))
    return tuple(sorted(pairs))


def _levels(text: str) -> tuple[float, ...]:
    return tuple(sorted(float(item) for item in text.replace(",", ";").split(";") if item))


def _coefficients(text: str) -> tuple[float, ...]:
    values = tuple(float(item) for item in text.replace(",", ";").split(";") if item)
    if len(values) != 4:
        raise ValueError(f"expected four numbers a;b;c;d, got {text!r}")
    return values


_REL = Param(1.0, _number, "minimum grade that counts as relevant")
_GAIN = Param("exp", _gain, "gain of a grade g: 'exp' = 2^g - 1, 'linear' = g")
_GAINS = Param((), _gain_map, "explicit gains per grade, '1=3;2=9' (trec_eval's ndcg.1=3,2=9)")


@dataclass(frozen=True)
class Family:
    """A family of measures (``ndcg``, ``P``, ``map``, ...)."""

    name: str
    summary: str
    formula: str
    cutoff: str = "none"  # "none", "optional" or "required"
    params: dict[str, Param] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    aggregate: str = "mean"  # "mean", "gmean" or "sum"
    integer: bool = False
    reference: str = ""
    text_valued: bool = False


def _families() -> dict[str, Family]:
    items = [
        Family(
            "ndcg",
            "normalised discounted cumulative gain",
            "DCG@k / IDCG@k, DCG@k = sum_{i<=k} gain(rel_i) / log2(i + 1); "
            "IDCG from all judged grades sorted descending; 0 when IDCG = 0",
            "optional",
            {"gain": _GAIN, "gains": _GAINS},
            (),
            reference="Jarvelin & Kekalainen, TOIS 2002; Burges et al., ICML 2005",
        ),
        Family(
            "dcg",
            "discounted cumulative gain",
            "sum_{i<=k} gain(rel_i) / log2(i + 1)",
            "optional",
            {"gain": _GAIN, "gains": _GAINS},
            (),
            reference="Jarvelin & Kekalainen, TOIS 2002",
        ),
        Family(
            "map",
            "mean average precision",
            "(1/R) sum_{relevant d ranked <= k} P@rank(d); R = relevant judged documents",
            "optional",
            {"rel": _REL},
            ("ap",),
            reference="trec_eval map / map_cut",
        ),
        Family(
            "gm_map",
            "geometric mean of average precision",
            "exp(mean(log(max(AP, 1e-5))))",
            "none",
            {"rel": _REL},
            aggregate="gmean",
            reference="Robertson, CIKM 2006; trec_eval gm_map",
        ),
        Family(
            "mrr",
            "mean reciprocal rank",
            "1 / rank of the first relevant document within the top k, else 0",
            "optional",
            {"rel": _REL},
            ("recip_rank", "rr"),
            reference="trec_eval recip_rank",
        ),
        Family(
            "P",
            "precision at k",
            "(relevant in the top k) / k (k even when fewer retrieved)",
            "required",
            {"rel": _REL},
            ("precision", "p"),
            reference="trec_eval P",
        ),
        Family(
            "recall",
            "recall at k",
            "(relevant in the top k) / R; 0 when R = 0",
            "required",
            {"rel": _REL},
            ("R",),
            reference="trec_eval recall",
        ),
        Family(
            "Rprec",
            "R-precision",
            "(relevant in the top round(mult * R)) / round(mult * R)",
            "none",
            {"rel": _REL, "mult": Param(1.0, _number, "multiple of R as cutoff")},
            ("r-prec",),
            reference="trec_eval Rprec, Rprec_mult",
        ),
        Family(
            "bpref",
            "binary preference",
            "(1/R) sum_{relevant retrieved r} (1 - min(N_above(r), R) / min(R, N)); "
            "N = judged non-relevant, N_above = judged non-relevant ranked above r",
            "none",
            {"rel": _REL},
            reference="Buckley & Voorhees, SIGIR 2004",
        ),
        Family(
            "gm_bpref",
            "geometric mean of bpref",
            "exp(mean(log(max(bpref, 1e-5))))",
            "none",
            {"rel": _REL},
            aggregate="gmean",
            reference="trec_eval gm_bpref",
        ),
        Family(
            "hit",
            "hit rate (success) at k",
            "1 if a relevant document is in the top k, else 0",
            "required",
            {"rel": _REL},
            ("success", "hits"),
            reference="trec_eval success",
        ),
        Family(
            "infAP",
            "inferred average precision",
            "AP estimated from a sampled pool: unjudged documents are unsampled",
            "none",
            {"rel": _REL},
            ("infap",),
            reference="Yilmaz & Aslam, CIKM 2006",
        ),
        Family(
            "judged",
            "judged at k",
            "(judged documents in the top k) / k",
            "required",
            aliases=("judged_at",),
            reference="Sakai & Kando 2008; ir_measures Judged",
        ),
        Family(
            "unj",
            "unjudged at k",
            "(unjudged documents in the top k) / k",
            "required",
            reference="trec_eval unj",
        ),
        Family(
            "set_P",
            "precision of the retrieved set",
            "(relevant retrieved) / retrieved",
            "none",
            {"rel": _REL},
            reference="trec_eval set_P",
        ),
        Family(
            "set_recall",
            "recall of the retrieved set",
            "(relevant retrieved) / R",
            "none",
            {"rel": _REL},
            reference="trec_eval set_recall",
        ),
        Family(
            "set_F",
            "F-measure of the retrieved set",
            "(1 + beta^2) P R / (beta^2 P + R)",
            "none",
            {"rel": _REL, "beta": Param(1.0, _number, "weight of recall")},
            reference="van Rijsbergen 1979; trec_eval set_F",
        ),
        Family(
            "set_map",
            "set precision times set recall",
            "set_P * set_recall",
            "none",
            {"rel": _REL},
            reference="trec_eval set_map",
        ),
        Family(
            "set_relative_P",
            "relative precision of the retrieved set",
            "(relevant retrieved) / min(retrieved, R)",
            "none",
            {"rel": _REL},
            reference="trec_eval set_relative_P",
        ),
        Family(
            "relative_P",
            "relative precision at k",
            "(relevant in the top k) / min(k, R)",
            "required",
            {"rel": _REL},
            reference="trec_eval relative_P",
        ),
        Family(
            "num_q",
            "number of queries evaluated",
            "count of queries",
            aggregate="sum",
            integer=True,
            reference="trec_eval num_q",
        ),
        Family(
            "num_ret",
            "number of documents retrieved",
            "documents in the ranking (after depth)",
            aggregate="sum",
            integer=True,
            reference="trec_eval num_ret",
        ),
        Family(
            "num_rel",
            "number of relevant documents",
            "R, counted in the judgments",
            params={"rel": _REL},
            aggregate="sum",
            integer=True,
            reference="trec_eval num_rel",
        ),
        Family(
            "num_rel_ret",
            "number of relevant documents retrieved",
            "relevant documents in the ranking",
            params={"rel": _REL},
            aggregate="sum",
            integer=True,
            reference="trec_eval num_rel_ret",
        ),
        Family(
            "num_nonrel_judged_ret",
            "number of judged non-relevant documents retrieved",
            "judged documents below the relevance level in the ranking",
            params={"rel": _REL},
            aggregate="sum",
            integer=True,
            reference="trec_eval num_nonrel_judged_ret",
        ),
        Family(
            "iprec_at_recall",
            "interpolated precision at a recall level",
            "max precision at any rank whose recall >= level",
            "none",
            {"rel": _REL, "recall": Param(0.0, _number, "recall level in [0, 1]")},
            reference="trec_eval iprec_at_recall",
        ),
        Family(
            "11pt_avg",
            "interpolated precision averaged over recall levels",
            "mean over levels of iprec_at_recall(level)",
            "none",
            {"rel": _REL, "levels": Param((), _levels, "recall levels, default 0.0;0.1;...;1.0")},
            reference="trec_eval 11pt_avg",
        ),
        Family(
            "utility",
            "set utility",
            "a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret",
            "none",
            {"rel": _REL, "coefficients": Param((1.0, -1.0, 0.0, 0.0), _coefficients, "a;b;c;d")},
            reference="trec_eval utility",
        ),
        Family(
            "rbp",
            "rank-biased precision",
            "(1 - p) sum_i rel_i p^(i - 1)",
            "none",
            {"rel": _REL, "p": Param(0.8, _number, "persistence")},
            reference="Moffat & Zobel, TOIS 2008",
        ),
        Family(
            "rbp_resid",
            "rank-biased precision residual",
            "p^(retrieved) plus the weight of unjudged retrieved documents",
            "none",
            {"rel": _REL, "p": Param(0.8, _number, "persistence")},
            reference="trec_eval rbp",
        ),
        Family(
            "ndcg_rel",
            "nDCG averaged over relevant documents",
            "trec_eval ndcg_rel",
            "none",
            {"gains": _GAINS},
            reference="trec_eval ndcg_rel",
        ),
        Family(
            "Rndcg",
            "nDCG averaged over the ends of the ideal gain levels",
            "mean of nDCG@i over the ranks i where the ideal gain drops (trec_eval Rndcg); "
            "0 without a document relevant at level rel",
            "none",
            {"gains": _GAINS, "rel": _REL},
            reference="trec_eval Rndcg",
        ),
        Family(
            "binG", "binary G", "trec_eval binG", "none", {"rel": _REL}, reference="trec_eval binG"
        ),
        Family("G", "graded G", "trec_eval G", "none", {"gains": _GAINS}, reference="trec_eval G"),
        Family(
            "relstring",
            "relevance string of the top k",
            "one character per rank: the grade, '.' unjudged, '-' judged below zero",
            "optional",
            text_valued=True,
            aggregate="none",
            reference="trec_eval relstring",
        ),
    ]
    return {family.name: family for family in items}


FAMILIES: dict[str, Family] = _families()

_BY_LOWER: dict[str, str] = {}
for _family in FAMILIES.values():
    for _label in (_family.name, *_family.aliases):
        _BY_LOWER.setdefault(_label.lower(), _family.name)


def lookup(name: str) -> Family | None:
    """Return the family called *name* (case-insensitive, aliases too), or None."""
    canonical = _BY_LOWER.get(name.lower())
    return FAMILIES[canonical] if canonical is not None else None


def all_labels() -> list[str]:
    """Every name and alias, as written in the catalog."""
    return sorted({label for f in FAMILIES.values() for label in (f.name, *f.aliases)})


def normalise_params(name: str, params: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Drop parameters equal to their defaults and sort the rest by name."""
    family = FAMILIES[name]
    kept = []
    for key in sorted(params):
        if key not in family.params:
            accepted = ", ".join(sorted(family.params)) or "none"
            raise MeasureSyntaxError(
                f"measure {name!r} has no parameter {key!r}; accepted parameters: {accepted}"
            )
        value = params[key]
        if value != family.params[key].default:
            kept.append((key, value))
    return tuple(kept)
