"""ir_measures' measures in rankwise: one entry per name ir_measures registers.

Data only. :mod:`rankwise.measures.ir_language` reads ir_measures' syntax
(``nDCG@10``, ``AP(rel=2)@100``, ``IPrec@0.5``, ``RBP(p=0.8)``) and builds
the rankwise :class:`~rankwise.measures.spec.Measure` an entry names, with
ir_measures' meaning: the value ir_measures 0.4 computes (through its first
provider for that measure, pytrec_eval for most).

An entry whose ``family`` is None is not available in rankwise yet: the
parser raises :class:`~rankwise.exceptions.UnsupportedMeasureError` naming
it, and ``planned`` says what it will be. To make one available when its
rankwise measure lands, set ``family`` (and ``params`` / ``fixed``) and add
it to the differential test's list (tests/compat/test_ir_measures.py).

Parameters
----------
Each entry maps every parameter ir_measures accepts for the measure to what
it becomes in rankwise:

- a rankwise parameter name (``"rel"``, ``"p"``, ``"gain"``, ...), its value
  converted by ``convert`` when one is given;
- ``"cutoff"``: the measure's cutoff;
- ``"judged_only"``: not a parameter of a rankwise measure but an option of
  the evaluation (``judged_only=True``, trec_eval ``-J``);
- ``None``: a parameter rankwise has no equivalent for yet (the measure is
  then not available with it given).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["IR_MEASURES", "IrName"]


@dataclass(frozen=True)
class IrName:
    """How one ir_measures measure reads in rankwise.

    Attributes
    ----------
    family : str or None
        The rankwise family computing it; None: not available yet.
    params : dict
        Each parameter ir_measures accepts -> the rankwise parameter, ``"cutoff"``,
        ``"judged_only"`` or None (see the module's docstring).
    at : str
        The parameter ``@`` sets (``cutoff``; ``recall`` for IPrec).
    fixed : dict
        Rankwise parameters always set (``gain="linear"`` for nDCG).
    convert : dict
        Per ir_measures parameter, the function turning its value into the
        rankwise one.
    variants : tuple
        ``(ir parameter, value, IrName)``: when the parameter is given with
        that value (``...`` for any value), that entry reads the measure
        instead (``SetP(relative=True)`` is ``set_relative_P``).
    planned : str
        What an entry not available yet will be (for the message).

    note : str
        How its value relates to ir_measures' (shown in docs/compat.md).
    """

    family: str | None
    params: Mapping[str, str | None] = field(default_factory=dict)
    at: str = "cutoff"
    fixed: Mapping[str, Any] = field(default_factory=dict)
    convert: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    variants: tuple[tuple[str, Any, IrName], ...] = ()
    planned: str = ""
    note: str = ""


def _gain_kind(value: Any) -> str:
    kinds = {"log2": "linear", "exp-log2": "exp"}
    if value not in kinds:
        raise ValueError(f"expected 'log2' or 'exp-log2', got {value!r}")
    return kinds[value]


def _gain_map(value: Any) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a dict of grade: gain, got {value!r}")
    # a grade not listed keeps its own value as gain: listing grade: grade changes nothing
    return tuple(sorted(
        (float(grade), float(gain)) for grade, gain in value.items() if grade != gain
    ))


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected True or False, got {value!r}")
    return value


def _f_beta(value: Any) -> float:
    # ir_measures hands beta to trec_eval's set_F.beta, which weighs recall by beta
    # itself, not beta squared: (beta + 1) P R / (beta P + R). rankwise's beta is the
    # textbook one (squared), so ir_measures' beta b is rankwise's sqrt(b).
    number = float(value)
    if number < 0:
        raise ValueError(f"expected a non-negative number, got {value!r}")
    return math.sqrt(number)


RANKED = {"cutoff": "cutoff", "rel": "rel", "judged_only": "judged_only"}
"""The parameters of most ranked measures (P, R, RR, AP, Success)."""
SET = {"rel": "rel", "judged_only": "judged_only"}
DIVERSITY = {"cutoff": "cutoff", "rel": "rel", "alpha": "alpha", "judged_only": "judged_only"}
GRADES = {"min_rel": None, "max_rel": None}
CWL = {"T": None, **GRADES}

_NDCG = IrName(
    "ndcg",
    {"cutoff": "cutoff", "dcg": "gain", "gains": "gains", "judged_only": "judged_only"},
    fixed={"gain": "linear"},
    convert={"dcg": _gain_kind, "gains": _gain_map},
    note="trec_eval's nDCG (the grade as gain) by default; dcg='exp-log2' is gdeval's "
    "2^grade - 1",
)
_SET_P = IrName("set_P", {"rel": "rel", "relative": None, "judged_only": "judged_only"})
_SET_RELATIVE_P = IrName(
    "set_relative_P", {"rel": "rel", "relative": None, "judged_only": "judged_only"}
)
_NUM_RET = IrName("num_ret", {"rel": None})
_NUM_REL_RET = IrName("num_rel_ret", {"rel": "rel"})
_RR = IrName(
    "mrr", RANKED,
    note="RR@k is computed by ir_measures with MS MARCO's script, which orders tied "
    "scores by document id ascending (trec_eval and rankwise: descending)",
)
_JUDGED = IrName(
    "judged", {"cutoff": "cutoff"}, fixed={"denominator": "retrieved"},
    note="divided by min(k, retrieved), as ir_measures; ir_measures orders tied scores by "
    "document id ascending: ties='ascending' gives its values",
)
_RBP_BINARY = IrName("rbp", {"cutoff": None, "p": "p", "rel": "rel"},
                     note="with rel, a grade >= rel has gain 1 (cwl_eval's RBP, which ranks "
                     "tied scores in input order)")
_RBP_CUT = IrName(None, {"cutoff": None, "p": "p", "rel": "rel"},
                  note="rankwise's rbp takes no cutoff (it sums over the whole ranking)")
_RBP = IrName(
    "rbp", {"cutoff": None, "p": "p", "rel": "rel"},
    variants=(("cutoff", ..., _RBP_CUT), ("rel", ..., _RBP_BINARY)),
    note="without rel, graded: the grade rescaled to [0, 1] per query (trec_eval's rbp)",
)
_PYNDEVAL = ("ndeval's (through pyndeval), which ranks tied scores by document id ascending: "
             "ties='ascending' gives its values")
_PYNDEVAL_CUT = (_PYNDEVAL + "; ir_measures needs a cutoff of at most 20 (pyndeval's limit), "
                 "rankwise takes any, and none for nERR_IA and alpha_nDCG (the whole ranking)")


def _pyndeval(family: str, params: Mapping[str, str | None]) -> IrName:
    return IrName(family, params, note=_PYNDEVAL_CUT if "cutoff" in params else _PYNDEVAL)


_AP_IA = _pyndeval("ap_ia", SET)
_ALPHA_DCG = _pyndeval("alpha_dcg", DIVERSITY)
_ALPHA_NDCG = _pyndeval("alpha_ndcg", DIVERSITY)
_CWL = "cwl_eval's, which ranks tied scores in input order"


def _cwl(family: str, extra: Mapping[str, str | None]) -> IrName:
    return IrName(family, {**extra, "min_rel": "min_grade", "max_rel": "max_grade"}, note=_CWL)


_NOT_PLANNED = "no rankwise measure planned"

IR_MEASURES: dict[str, IrName] = {
    "P": IrName("P", RANKED),
    "Precision": IrName("P", RANKED),
    "R": IrName("recall", RANKED),
    "Recall": IrName("recall", RANKED),
    "RR": _RR,
    "MRR": _RR,
    "AP": IrName("map", RANKED),
    "MAP": IrName("map", RANKED),
    "nDCG": _NDCG,
    "NDCG": _NDCG,
    "Rprec": IrName("Rprec", SET),
    "RPrec": IrName("Rprec", SET),
    "Bpref": IrName("bpref", {"rel": "rel"}),
    "BPref": IrName("bpref", {"rel": "rel"}),
    "infAP": IrName("infAP", {"rel": "rel"}),
    "Success": IrName("hit", RANKED),
    "IPrec": IrName(
        "iprec_at_recall", {"recall": "recall", "rel": "rel", "judged_only": "judged_only"},
        at="recall",
    ),
    "NumQ": IrName("num_q"),
    "NumRet": IrName("num_ret", {"rel": None}, variants=(("rel", ..., _NUM_REL_RET),)),
    "NumRelRet": _NUM_REL_RET,
    "NumRel": IrName("num_rel", {"rel": "rel"}),
    "SetP": IrName(
        "set_P", _SET_P.params, variants=(("relative", True, _SET_RELATIVE_P),)
    ),
    "SetRelP": _SET_RELATIVE_P,
    "SetR": IrName("set_recall", {"rel": "rel"}),
    "SetF": IrName(
        "set_F", {"rel": "rel", "beta": "beta", "judged_only": "judged_only"},
        convert={"beta": _f_beta},
        note="ir_measures' beta weighs recall as trec_eval's set_F.beta does: rankwise's "
        "beta is its square root",
    ),
    "SetAP": IrName("set_map", SET),
    "Judged": _JUDGED,
    "RBP": _RBP,
    "ERR": IrName("err", {"cutoff": "cutoff"}, note="gdeval's ERR@k (ir_measures prints its 5 "
                  "decimals)"),
    "ERR_IA": _pyndeval("err_ia", RANKED),
    "nERR_IA": _pyndeval("nerr_ia", RANKED),
    "alpha_DCG": _ALPHA_DCG,
    "\u03b1_DCG": _ALPHA_DCG,
    "alpha_nDCG": _ALPHA_NDCG,
    "\u03b1_nDCG": _ALPHA_NDCG,
    "NRBP": _pyndeval("nrbp", {"rel": "rel", "alpha": "alpha", "beta": "beta"}),
    "nNRBP": _pyndeval("nnrbp", {"rel": "rel", "alpha": "alpha", "beta": "beta"}),
    "AP_IA": _AP_IA,
    "MAP_IA": _AP_IA,
    "P_IA": _pyndeval("p_ia", RANKED),
    "StRecall": _pyndeval("strec", {"cutoff": "cutoff", "rel": "rel"}),
    "Compat": IrName(
        "compat", {"p": "p", "normalize": "normalize"}, fixed={"depth": "run", "ideal": "score"},
        convert={"normalize": _boolean},
        note="ir_measures' compat: depth max(len(run), len(ideal)) per query (the reference: "
        "1000), equal grades of the ideal by run score (unretrieved: 0); it ranks tied scores by "
        "document id ascending: ties='ascending' gives its values",
    ),
    "INST": _cwl("inst", {"T": "T"}),
    "INSQ": _cwl("insq", {"T": "T"}),
    "BPM": _cwl("bpm", {"T": "T", "cutoff": "K"}),
    "SDCG": IrName("sdcg", {"cutoff": "cutoff", "dcg": None, "min_rel": "min_grade",
                            "max_rel": "max_grade"}, note=_CWL),
    "NERR8": _cwl("nerr8", {"cutoff": "cutoff"}),
    "NERR9": _cwl("nerr9", {"cutoff": "cutoff"}),
    "NERR10": _cwl("nerr10", {"p": "p"}),
    "NERR11": _cwl("nerr11", {"T": "T"}),
    "Accuracy": IrName(None, {"cutoff": None, "rel": None}, planned=_NOT_PLANNED,
                       note="rankwise.compat.ir_measures' accuracy provider computes it (a "
                       "diagnosis of train/test agreement, ir_measures' own)"),
}
"""Every measure name ir_measures 0.4 registers (aliases included) -> its reading."""

IMPLIED: dict[str, dict[str, Any]] = {
    "NumRelRet": {"rel": 1},
    "SetRelP": {"relative": True},
}
"""Parameters an alias of ir_measures' carries (``NumRelRet`` is ``NumRet(rel=1)``)."""
