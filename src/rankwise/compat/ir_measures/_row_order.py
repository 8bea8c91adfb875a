"""The order in which ir_measures' providers give their rows, as passes over the queries.

Each provider of ir_measures 0.4 runs its tool once per *invocation* (a group
of measures sharing a relevance level, a gain map, a cutoff...) and yields,
per invocation, each query's values, in the tool's order of measures; some
run once per measure. A pass here is one such run: a list of measures given,
for each query in turn, in that order. The drop-in's evaluators yield their
rows pass by pass, so that a program reading them (PyTerrier's tables take
their columns from the first query's rows of each system) sees ir_measures'
order, whichever provider computed a measure.

The measures come in the order the provider is handed them (ir_measures'
pipeline hands each provider a ``set``): invocations in the order their first
measure comes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from rankwise.compat.ir_measures._base import NOT_PROVIDED
from rankwise.compat.ir_measures._measures import Measure

__all__ = [
    "cwl_eval_passes",
    "gdeval_passes",
    "numeric_order",
    "one_pass",
    "one_pass_per_measure",
    "pyndeval_passes",
    "pytrec_eval_passes",
    "ranx_passes",
]

Passes = list[list[Measure]]


def one_pass(measures: list[Measure]) -> Passes:
    """Every measure of a query together, in the order given (judged's provider).

    Examples
    --------
    >>> from rankwise.compat.ir_measures import Judged
    >>> one_pass([Judged@10, Judged@5])
    [[Judged@10, Judged@5]]
    """
    return [list(measures)]


def one_pass_per_measure(measures: list[Measure]) -> Passes:
    """One measure after the other (msmarco's, compat's and accuracy's providers).

    Examples
    --------
    >>> from rankwise.compat.ir_measures import RR
    >>> one_pass_per_measure([RR@10, RR(rel=2)@10])
    [[RR@10], [RR(rel=2)@10]]
    """
    return [[measure] for measure in measures]


def _grouped(measures: list[Measure], key: Callable[[Measure], Hashable],
             name: Callable[[Measure], Hashable] | None = None) -> list[list[Measure]]:
    """*measures* by ``key`` in the order keys first come; one per ``name`` within a key.

    A second measure of the same name in a group takes the first one's place
    (ir_measures keeps them in a dict keyed by the tool's name of the measure).
    """
    groups: dict[Hashable, dict[Hashable, list[Measure]]] = {}
    for measure in measures:
        named = groups.setdefault(key(measure), {})
        named.setdefault(measure if name is None else name(measure), []).append(measure)
    return [[m for same in named.values() for m in same] for named in groups.values()]


def _frozen(gains: Any) -> Hashable:
    return tuple(sorted(gains.items())) if isinstance(gains, dict) else gains


_TREC_NAME: dict[str, str] = {
    "P": "P", "RR": "recip_rank", "Rprec": "Rprec", "infAP": "infAP", "R": "recall",
    "Bpref": "bpref", "NumQ": "num_q", "NumRel": "num_rel", "SetAP": "set_map",
    "SetF": "set_F", "SetR": "set_recall", "Success": "success", "IPrec": "iprec_at_recall",
}


def _trec_name(measure: Measure) -> tuple[str, float]:
    """trec_eval's name of a measure of pytrec_eval's provider, and its parameter."""
    name = str(measure.NAME)
    if name == "AP":
        base = "map" if measure["cutoff"] is NOT_PROVIDED else "map_cut"
    elif name == "nDCG":
        base = "ndcg" if measure["cutoff"] is NOT_PROVIDED else "ndcg_cut"
    elif name == "NumRet":
        base = "num_ret" if measure["rel"] is NOT_PROVIDED else "num_rel_ret"
    elif name == "SetP":
        base = "set_relative_P" if measure["relative"] else "set_P"
    else:
        base = _TREC_NAME[name]
    parameter = measure["recall"] if name == "IPrec" else (
        measure["cutoff"] if "cutoff" in measure.SUPPORTED_PARAMS else NOT_PROVIDED)
    try:
        value = float(parameter)
    except (TypeError, ValueError):
        value = float("-inf")
    return base, value


def pytrec_eval_passes(measures: list[Measure]) -> Passes:
    """pytrec_eval's provider: one pass per invocation, trec_eval's order of measures within.

    An invocation is one relevance level, gain map and judged-only flag (and
    one ``SetF`` each, pytrec_eval keeping only the first beta); ``NumQ``,
    ``NumRet`` and an ``nDCG`` without gains join the first; pytrec_eval gives
    a query's measures in trec_eval's order, a measure's cutoffs ascending.

    Examples
    --------
    >>> from rankwise.compat.ir_measures import AP, P, RR, nDCG
    >>> pytrec_eval_passes([nDCG@10, P(rel=2)@5, P@10, AP, P@5, RR])
    [[AP, RR, P@5, P@10, nDCG@10], [P(rel=2)@5]]
    """
    keys: dict[Measure, tuple[Any, ...]] = {}
    first: tuple[Any, ...] | None = None
    set_f = 0
    for measure in measures:
        name = str(measure.NAME)
        if name == "nDCG" and measure["gains"] is not NOT_PROVIDED:
            key: tuple[Any, ...] = (1, 0, _frozen(measure["gains"]), measure["judged_only"])
        elif name == "nDCG":
            key = ((1, 0, None, measure["judged_only"]) if first is None
                   else (*first[:3], measure["judged_only"]))
        elif name == "NumQ" or (name == "NumRet" and measure["rel"] is NOT_PROVIDED):
            key = (1, 0, None, False) if first is None else first
        elif name in ("infAP", "Bpref", "NumRet", "NumRel", "SetR"):
            key = (measure["rel"], 0, None, False)
        elif name == "SetF":
            key = (measure["rel"], set_f, None, measure["judged_only"])
            set_f += 1
        else:
            key = (measure["rel"], 0, None, measure["judged_only"])
        keys[measure] = key
        if first is None:
            first = key
    from rankwise.measures.trec_names import TREC_MEASURES

    order = {name: position for position, name in enumerate(TREC_MEASURES)}

    def trec_order(measure: Measure) -> tuple[int, float]:
        base, value = _trec_name(measure)
        return order[base], value

    def trec_key(measure: Measure) -> Hashable:
        base, value = _trec_name(measure)
        return "set_F" if base == "set_F" else (base, value)

    return [sorted(group, key=trec_order)
            for group in _grouped(measures, keys.__getitem__, trec_key)]


def cwl_eval_passes(measures: list[Measure]) -> Passes:
    """cwl_eval's provider: one pass; a query's measures by invocation (binary or graded gains).

    Examples
    --------
    >>> from rankwise.compat.ir_measures import INST, RBP, P
    >>> cwl_eval_passes([INST(max_rel=3), P@5, RBP(rel=1), INST(max_rel=2)])
    [[INST(max_rel=3), P@5, RBP(rel=1), INST(max_rel=2)]]
    >>> cwl_eval_passes([INST(max_rel=3), P@5, INST(max_rel=3, T=2)])
    [[INST(max_rel=3), INST(max_rel=3,T=2), P@5]]
    """

    def key(measure: Measure) -> Hashable:
        if measure.NAME in ("P", "RR", "AP", "RBP"):
            return (measure["rel"], None, None)
        return (None, measure["min_rel"], measure["max_rel"])

    return [[m for group in _grouped(measures, key) for m in group]]


def gdeval_passes(measures: list[Measure]) -> Passes:
    """Gdeval's provider: one pass per cutoff (``nDCG`` then ``ERR``), cutoffs as they come.

    Examples
    --------
    >>> from rankwise.compat.ir_measures import ERR, nDCG
    >>> gdeval_passes([ERR@10, nDCG(dcg="exp-log2")@5, nDCG(dcg="exp-log2")@10])
    [[nDCG(dcg='exp-log2')@10, ERR@10], [nDCG(dcg='exp-log2')@5]]
    """
    groups = _grouped(measures, lambda m: m["cutoff"], lambda m: str(m.NAME))
    return [sorted(group, key=lambda m: ("nDCG", "ERR").index(str(m.NAME))) for group in groups]


def pyndeval_passes(measures: list[Measure]) -> Passes:
    """Pyndeval's provider: one pass per invocation (relevance level, alpha, beta, judged only).

    Examples
    --------
    >>> from rankwise.compat.ir_measures import ERR_IA, NRBP, alpha_nDCG
    >>> pyndeval_passes([ERR_IA@5, alpha_nDCG(alpha=0.9)@5, NRBP])
    [[ERR_IA@5, NRBP], [alpha_nDCG(alpha=0.9)@5]]
    """

    def key(measure: Measure) -> Hashable:
        name = str(measure.NAME)
        if name in ("NRBP", "nNRBP"):
            return (measure["rel"], measure["alpha"], measure["beta"], False)
        if name in ("alpha_DCG", "alpha_nDCG"):
            return (measure["rel"], measure["alpha"], 0.5, measure["judged_only"])
        if name == "StRecall":
            return (measure["rel"], 0.5, 0.5, False)
        return (measure["rel"], 0.5, 0.5, measure["judged_only"])

    def name(measure: Measure) -> Hashable:
        cutoff = measure["cutoff"] if "cutoff" in measure.SUPPORTED_PARAMS else None
        return (str(measure.NAME), cutoff)

    return _grouped(measures, key, name)


def ranx_passes(measures: list[Measure]) -> Passes:
    """Ranx's provider: per invocation (relevance level; nDCG apart), one measure after another.

    Examples
    --------
    >>> from rankwise.compat.ir_measures import AP, P, nDCG
    >>> ranx_passes([nDCG@5, P@3, AP, P(rel=2)@3])
    [[nDCG@5], [P@3], [AP], [P(rel=2)@3]]
    """

    def key(measure: Measure) -> Hashable:
        return (None if measure.NAME == "nDCG" else measure["rel"], 0)

    return [[m] for group in _grouped(measures, key) for m in group]


def numeric_order(query_ids: list[Any]) -> list[int]:
    """The positions of *query_ids* in gdeval.pl's order: as numbers, ascending.

    gdeval.pl takes only ids that are numbers; ids that are not keep their
    place after those that are (ir_measures' gdeval fails on them).

    Examples
    --------
    >>> numeric_order(["10", "9", "x", "011"])
    [1, 0, 3, 2]
    """

    def key(position: int) -> tuple[int, float, int]:
        try:
            return (0, float(query_ids[position]), position)
        except (TypeError, ValueError):
            return (1, 0.0, position)

    return sorted(range(len(query_ids)), key=key)
