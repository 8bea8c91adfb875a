"""Dialects: the conventions of other tools, as data.

A *dialect* is a named set of :class:`Conventions`, one record per measure
family the tool has: how a tool ranks tied or float32-equal scores, which
gain and ideal DCG it uses, what an empty query scores, how it divides
MAP@k, and so on. ``ndcg@10(dialect=lightgbm)`` is rankwise's ``ndcg@10``
computed with LightGBM's conventions; the kernels of
:mod:`rankwise.kernels.dialects` read the record and nothing else, and
:func:`rankwise.explain` switches the conventions of one dialect to
another's one at a time, in the order of :data:`ORDER`.

Each record was read from the tool's source (file and line in
docs/dialects.md) and is tested against the tool's own output.

Examples
--------
>>> from rankwise.measures import parse
>>> c = conventions_of(parse("ndcg@10(dialect=lightgbm)"))
>>> c.gain, c.ties, c.ideal, c.empty
('exp', 'input', 'list', '1')
>>> str(parse("ndcg@10(dialect=trec_eval)"))
'ndcg@10(gain=linear)'
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Protocol

from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError, MeasureSyntaxError
from rankwise.measures.params import Param

__all__ = [
    "CHOICES",
    "DEFAULT_DIALECT",
    "DENOMINATOR",
    "DIALECT",
    "DIALECTS",
    "DIALECT_FAMILIES",
    "EMPTY",
    "ORDER",
    "Conventions",
    "Dialect",
    "MeasureLike",
    "conventions_of",
    "describe",
    "dialect_of",
    "dialect_param_default",
    "normalise_dialect",
    "ranking_key",
    "read_denominator",
    "read_dialect",
    "read_empty",
    "spelled",
    "uses_default_kernel",
]

DEFAULT_DIALECT = "rankwise"
"""The dialect of a measure that names none: rankwise's contract (trec_eval's
conventions, with the textbook exponential gain for ``ndcg`` and ``dcg``)."""


@dataclass(frozen=True)
class Conventions:
    """Every convention of one measure family in one tool.

    The fields are listed in the order they apply (:data:`ORDER`), which is
    the order :func:`rankwise.explain` switches them in. A field that does
    not concern a family keeps its default.

    Attributes
    ----------
    self_docs : {"keep", "drop"}
        A retrieved document whose id is its query's id is kept, or dropped
        before anything else (BEIR's ``ignore_identical_ids``).
    missing : {"skip", "zero"}
        A judged query the run does not hold is left out of the mean, or
        counts as an empty ranking (BEIR's MRR divides by every judged query).
    scores : {"float64", "float64"}
        Scores compared as read, or after rounding to float32 (two scores
        equal in float32 then tie).
    ties : {"docno", "input", "ranx", "average", "low_first", "high_first", "group_end"}
        The order of documents with equal scores: document id descending
        (trec_eval); the order of the run's rows (a stable sort); ranx's
        (numba's quicksort of the run's rows: input order up to 15 documents
        only, see :mod:`rankwise.ranking._quicksort`); the
        expected value over all orders (McSherry & Najork); lower grade first
        (CatBoost's pessimistic order; "high_first" is the optimistic one);
        every tied document at the last rank of its group (scikit-learn's
        label ranking measures).
    cutoff : int or None
        The cutoff of a measure written without one: none (the whole list),
        or XGBoost's 32.
    relevant : {"rel", "above_half"}
        A document is relevant when its grade is >= ``rel`` (1 unless the
        measure gives ``rel=``), or, unless it gives one, when its grade is
        > 0.5 (LightGBM's ``map``: ``label > 0.5``, fractional labels too).
    nonpositive : {"count", "ignore"}
        A relevant document with a score <= 0 counts as relevant, or not
        (torchmetrics >= 1.8 for MAP, MRR, P and recall).
    gain : {"exp", "linear", "binary", "scaled"}
        Gain of a grade g: 2^g - 1, g, or 1 for a relevant document (grade
        >= 1); "scaled" is trec_eval's RBP gain (g, rescaled to [0, 1]).
    gains : tuple of (grade, gain)
        Explicit gains per grade (LightGBM's ``label_gain``), over ``gain``.
    negative : {"zero", "raw"}
        A negative grade has gain 0, or its own (negative) gain; for bpref,
        a negative grade is unjudged (trec_eval's "not in the pool"), or
        judged non-relevant (ranx).
    ideal : {"judgments", "list"}
        Where the ideal DCG and R (the relevant documents) come from: all
        judgments of the query, or the retrieved list only (the tools that
        see one list of labelled rows per query).
    past_list : {"k", "n"}
        P@k divides by k, or by min(k, n) when fewer than k were retrieved.
    denominator : {"R", "capped", "retrieved"}
        Average precision divides by R, by min(R, k) ("capped"), or by the
        relevant documents retrieved in the top k.
    empty : {"0", "1", "skip"}
        The value of a query with nothing relevant: 0, 1, or left out of the
        mean (the per-query value is NaN).
    empty_when : {"zero", "nonpositive", "label_sum"}
        What makes a query empty: an ideal DCG (or R) of 0; an ideal DCG
        <= 0 (CatBoost); a sum of the list's labels of 0 (torchmetrics).
    no_nonrel : {"1", "nan"}
        bpref of a query whose judgments hold no non-relevant document: each
        relevant document retrieved counts 1 (trec_eval), or the query is
        NaN, 0/0 in bpref's formula, and so is the mean (ranx).
    arithmetic : {"float64", "float32"}
        The precision nDCG is computed in.
    round : int or None
        The mean is rounded to this many decimals (BEIR, MTEB).
    """

    self_docs: str = "keep"
    missing: str = "skip"
    scores: str = "float64"
    ties: str = "docno"
    cutoff: int | None = None
    relevant: str = "rel"
    nonpositive: str = "count"
    gain: str = "linear"
    gains: tuple[tuple[float, float], ...] = ()
    negative: str = "zero"
    ideal: str = "judgments"
    past_list: str = "k"
    denominator: str = "R"
    empty: str = "0"
    empty_when: str = "zero"
    no_nonrel: str = "1"
    arithmetic: str = "float64"
    round: int | None = None

    def changes(self, other: Conventions) -> list[str]:
        """The fields where *other* differs from this record, in :data:`ORDER`."""
        return [name for name in ORDER if getattr(self, name) != getattr(other, name)]


ORDER: tuple[str, ...] = tuple(f.name for f in fields(Conventions))
"""The conventions in the order they apply: which documents and queries, how
scores compare and ties break, what is relevant and what it gains, the ideal,
the divisions, the empty query, the arithmetic, the rounding of the mean."""

CHOICES: dict[str, tuple[Any, ...]] = {
    # ``cutoff``, ``gains`` and ``round`` take numbers
    "self_docs": ("keep", "drop"),
    "missing": ("skip", "zero"),
    "scores": ("float64", "float32"),
    "ties": ("docno", "input", "ranx", "average", "low_first", "high_first", "group_end"),
    "relevant": ("rel", "above_half"),
    "nonpositive": ("count", "ignore"),
    "gain": ("exp", "linear", "binary", "scaled"),
    "negative": ("zero", "raw"),
    "ideal": ("judgments", "list"),
    "past_list": ("k", "n"),
    "denominator": ("R", "capped", "retrieved"),
    "empty": ("0", "1", "skip"),
    "empty_when": ("zero", "nonpositive", "label_sum"),
    "no_nonrel": ("1", "nan"),
    "arithmetic": ("float64", "float32"),
}
"""The values each convention takes (``gains`` and ``round`` are open)."""

_WORDS: dict[str, dict[Any, str]] = {
    "self_docs": {"keep": "a document with the query's id is kept",
                  "drop": "a document with the query's id is dropped"},
    "missing": {"skip": "a judged query absent from the run is left out",
                "zero": "a judged query absent from the run scores as an empty ranking"},
    "scores": {"float64": "scores compared as float64", "float32": "scores compared as float32"},
    "ties": {"docno": "ties by document id descending", "input": "ties in input order",
             "ranx": "ties in ranx's order (numba's quicksort: input order up to 15 documents)",
             "average": "ties averaged over all orders",
             "low_first": "ties: lower grade first (pessimistic)",
             "high_first": "ties: higher grade first (optimistic)",
             "group_end": "tied documents all at the end of their group"},
    "relevant": {"rel": "relevant: grade >= rel",
                 "above_half": "relevant: grade > 0.5 (unless rel= is given)"},
    "nonpositive": {"count": "a relevant document counts whatever its score",
                    "ignore": "a document scored <= 0 is never relevant"},
    "gain": {"exp": "gain 2^g - 1", "linear": "gain g", "binary": "gain 1 if relevant",
             "scaled": "gain g, rescaled to [0, 1] when a gain is outside it (trec_eval)"},
    "negative": {"zero": "negative grades gain 0", "raw": "negative grades keep their gain"},
    "ideal": {"judgments": "ideal and R from all judgments",
              "list": "ideal and R from the retrieved list"},
    "past_list": {"k": "P@k divides by k", "n": "P@k divides by min(k, n)"},
    "denominator": {"R": "AP divides by R", "capped": "AP divides by min(R, k)",
                    "retrieved": "AP divides by the relevant retrieved"},
    "empty": {"0": "a query with nothing relevant scores 0",
              "1": "a query with nothing relevant scores 1",
              "skip": "a query with nothing relevant is left out"},
    "empty_when": {"zero": "empty: ideal (or R) is 0", "nonpositive": "empty: ideal <= 0",
                   "label_sum": "empty: the labels sum to 0"},
    "no_nonrel": {"1": "no judged non-relevant document: each relevant retrieved counts 1",
                  "nan": "no judged non-relevant document: the query is NaN (0/0)"},
    "arithmetic": {"float64": "computed in float64", "float32": "computed in float32"},
}


_BPREF_NEGATIVE = {"zero": "negative grades are unjudged (not in the pool)",
                   "raw": "negative grades are judged non-relevant"}


def describe(name: str, value: Any, family: str = "") -> str:
    """One convention's value in words (for the measure *family*, where it matters).

    Examples
    --------
    >>> describe("denominator", "capped")
    'AP divides by min(R, k)'
    >>> describe("round", 5)
    'mean rounded to 5 decimals'
    >>> describe("negative", "raw", "bpref")
    'negative grades are judged non-relevant'
    """
    if name == "negative" and family == "bpref":
        return _BPREF_NEGATIVE[value]
    if name == "round":
        if value is None:
            return "mean not rounded"
        return f"mean rounded to {counted(value, 'decimal')}"
    if name == "cutoff":
        return "no cutoff: the whole list" if value is None else f"no cutoff: the top {value}"
    if name == "gains":
        return "no explicit gains" if not value else "gains " + ";".join(
            f"{g:g}={v:g}" for g, v in value
        )
    return _WORDS[name][value]


@dataclass(frozen=True)
class Dialect:
    """One tool's conventions, per measure family.

    Attributes
    ----------
    name : str
        The value of the ``dialect`` parameter.
    tool : str
        The tool and the version whose behaviour the dialect follows.
    families : dict
        Measure family -> :class:`Conventions`.
    names : dict
        Measure family -> how the tool names that measure.
    notes : dict
        Measure family -> what rankwise cannot follow, or follows by choice.
    cutoff : dict
        Measure family -> "none" when the tool's measure takes no cutoff.
    options : dict
        Measure family -> the tool's own options rankwise follows, as
        (the tool's spelling, the measure's parameters): XGBoost's
        ``ndcg@k-`` is ``empty=0``.
    spellings : dict
        The tool's measure names that rankwise's language reads otherwise or
        not at all (lowercase) -> (the family, its parameters): read so in a
        measure that names this dialect (ranx's ``hits@10(dialect=ranx)``
        is ``rel_ret@10(dialect=ranx)``, the number of relevant documents in
        the top 10, not the hit rate).
    """

    name: str
    tool: str
    families: dict[str, Conventions]
    names: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    cutoff: dict[str, str] = field(default_factory=dict)
    options: dict[str, tuple[tuple[str, dict[str, str]], ...]] = field(default_factory=dict)
    spellings: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)


DIALECT_FAMILIES = (
    "ndcg", "dcg", "map", "mrr", "P", "recall", "hit", "rel_ret", "bpref", "rbp", "coverage",
    "err",
)
"""The measure families that take a ``dialect`` parameter."""

_C = Conventions
_RANKWISE = {
    "ndcg": _C(gain="exp"),
    "dcg": _C(gain="exp"),
    "map": _C(),
    "mrr": _C(),
    "P": _C(),
    "recall": _C(),
    "hit": _C(),
    "rel_ret": _C(),
    "bpref": _C(),
    "rbp": _C(gain="scaled"),
    "coverage": _C(),
    "err": _C(),  # ERR's stop probability is its own (2^g - 1) / 2^max_grade: no gain here
}
_TREC = {**{f: c for f, c in _RANKWISE.items() if f != "err"}, "ndcg": _C(), "dcg": _C()}


def _list(**changes: Any) -> Conventions:
    """A list-based tool: it sees one labelled list per query."""
    return _C(ideal="list", **changes)


def _pytrec(family: str, **changes: Any) -> Conventions:
    """trec_eval as pytrec_eval runs it: scores read as float32."""
    return replace(_TREC[family], scores="float32", **changes)


ABOVE_HALF = 0.5000000000000001
"""The least double above 0.5: ``grade >= ABOVE_HALF`` is ``grade > 0.5`` (LightGBM's map)."""

DIALECTS: dict[str, Dialect] = {
    d.name: d
    for d in [
        Dialect(
            "rankwise",
            "rankwise (trec_eval's conventions, gain 2^g - 1 for ndcg and dcg)",
            dict(_RANKWISE),
        ),
        Dialect(
            "trec_eval",
            "trec_eval 10.0",
            dict(_TREC),
            names={"ndcg": "ndcg_cut.k", "dcg": "(none)", "map": "map, map_cut.k",
                   "mrr": "recip_rank", "P": "P.k", "recall": "recall.k", "hit": "success.k",
                   "rel_ret": "num_rel_ret (no cutoff; summed over queries)",
                   "bpref": "bpref", "rbp": "(rankwise's rbp)", "coverage": "(none)"},
        ),
        Dialect(
            "sklearn",
            "scikit-learn 1.9.1",
            {
                "ndcg": _list(ties="average", negative="raw"),
                "dcg": _list(ties="average", negative="raw"),
                "map": _list(ties="group_end", empty="1"),
                "coverage": _list(ties="group_end"),
            },
            names={"ndcg": "ndcg_score(k=k)", "dcg": "dcg_score(k=k)",
                   "map": "label_ranking_average_precision_score",
                   "coverage": "coverage_error"},
            notes={"ndcg": "ndcg_score refuses negative grades and lists of one document; "
                           "rankwise computes dcg_score's formula for them",
                   "map": "LRAP: binary labels (grade >= rel), one row per query"},
            cutoff={"map": "none", "coverage": "none"},
        ),
        Dialect(
            "lightgbm",
            "LightGBM 4.7.0",
            {
                "ndcg": _list(ties="input", gain="exp", empty="1"),
                "map": _list(ties="input", denominator="capped", empty="1",
                             relevant="above_half"),
            },
            names={"ndcg": "ndcg@k (metric ndcg, eval_at)", "map": "map@k (metric map)"},
            notes={"ndcg": "LightGBM refuses negative, fractional and > 30 labels; "
                           "rankwise gives negative grades gain 0",
                   "map": "relevant: label > 0.5, fractional labels too (LightGBM takes "
                          "any label for map with objectives other than lambdarank); "
                          "rel= sets grade >= rel instead"},
        ),
        Dialect(
            "xgboost",
            "XGBoost 3.2.0",
            {
                "ndcg": _list(scores="float32", ties="input", cutoff=32, gain="exp",
                              negative="raw", empty="1", empty_when="nonpositive"),
                "map": _list(scores="float32", ties="input", cutoff=32, denominator="capped",
                             empty="1"),
                "P": _list(scores="float32", ties="input", cutoff=32, past_list="n"),
            },
            names={"ndcg": "ndcg@k (ndcg@k- is empty=0; ndcg_exp_gain=false is gain=linear)",
                   "map": "map@k (map@k- is empty=0)", "P": "pre@k"},
            options={
                "ndcg": (("ndcg@k-", {"empty": "0"}),
                         ("ndcg_exp_gain=false", {"gain": "linear"}),
                         ("ndcg@k- with ndcg_exp_gain=false", {"gain": "linear", "empty": "0"})),
                "map": (("map@k-", {"empty": "0"}),),
            },
            notes={"ndcg": "with the exponential gain XGBoost refuses negative grades; "
                           "ndcg without @k is ndcg@32 (as map and pre)",
                   "map": "XGBoost >= 2.0 refuses graded labels: rankwise uses grade >= rel",
                   "P": "XGBoost >= 2.0 refuses graded labels: rankwise uses grade >= rel"},
        ),
        Dialect(
            "catboost",
            "CatBoost 1.2.10",
            {
                "ndcg": _list(ties="low_first", negative="raw", empty="1",
                              empty_when="nonpositive"),
                "dcg": _list(ties="low_first", negative="raw"),
                "map": _list(ties="low_first", denominator="capped"),
                "mrr": _list(ties="low_first"),
                "P": _list(ties="low_first", past_list="n"),
                "recall": _list(ties="low_first", empty="1"),
            },
            options={"ndcg": (("type=Exp", {"gain": "exp"}),),
                     "dcg": (("type=Exp", {"gain": "exp"}),)},
            names={"ndcg": "NDCG:top=k (type=Exp is gain=exp)", "dcg": "DCG:top=k",
                   "map": "MAP:top=k", "mrr": "MRR:top=k", "P": "PrecisionAt:top=k",
                   "recall": "RecallAt:top=k"},
            notes={"map": "relevant: target > border 0.5 (grade >= rel)",
                   "ndcg": "denominator=Position is not followed (LogPosition, the default, is)"},
        ),
        Dialect(
            "torchmetrics",
            "torchmetrics 1.9.0",
            {
                "ndcg": _list(scores="float32", ties="average", negative="raw",
                              empty_when="label_sum", arithmetic="float32"),
                "map": _list(scores="float32", ties="input", nonpositive="ignore",
                             denominator="retrieved"),
                "mrr": _list(scores="float32", ties="input", nonpositive="ignore"),
                "P": _list(scores="float32", ties="input", nonpositive="ignore"),
                "recall": _list(scores="float32", ties="input", nonpositive="ignore"),
                "hit": _list(scores="float32", ties="input"),
            },
            options={
                f: (("empty_target_action='pos'", {"empty": "1"}),
                    ("empty_target_action='skip'", {"empty": "skip"}))
                for f in ("ndcg", "map", "mrr", "P", "recall", "hit")
            },
            names={"ndcg": "RetrievalNormalizedDCG(top_k=k)", "map": "RetrievalMAP(top_k=k)",
                   "mrr": "RetrievalMRR(top_k=k)", "P": "RetrievalPrecision(top_k=k)",
                   "recall": "RetrievalRecall(top_k=k)", "hit": "RetrievalHitRate(top_k=k)"},
            notes={f: "ties follow torch.topk / argsort, whose order is not specified: "
                      "rankwise uses input order, equal to torchmetrics where no relevant "
                      "document is tied" for f in ("map", "mrr", "P", "recall", "hit")},
        ),
        Dialect(
            "spark",
            "Spark MLlib 4.3.0 (PySpark RankingMetrics)",
            {
                "ndcg": _C(ties="input", gain="binary"),
                "map": _C(ties="input", denominator="capped"),
                "P": _C(ties="input"),
                "recall": _C(ties="input"),
            },
            options={"ndcg": (("Scala, relevance given, labels by grade", {"gain": "exp"}),)},
            names={"ndcg": "ndcgAt(k)", "map": "meanAveragePrecision, meanAveragePrecisionAt(k)",
                   "P": "precisionAt(k)", "recall": "recallAt(k)"},
            notes={"no mrr": "Spark MLlib 4.3 has no reciprocal rank",
                   "ndcg": "PySpark drops the relevance array: ndcgAt is binary from Python; "
                           "Scala's graded ndcgAt with the labels sorted by grade is "
                           "gain=exp",
                   "map": "Spark takes ranked ids, not scores: rankwise ranks them by score, "
                          "ties in input order"},
        ),
        Dialect(
            "recommenders",
            "Microsoft Recommenders 1.2.1 (python_evaluation)",
            {
                "ndcg": _C(missing="zero", ties="input", gain="binary", empty="skip"),
                "map": _C(ties="input", denominator="capped", empty="skip"),
                "P": _C(ties="input", empty="skip"),
                "recall": _C(ties="input", empty="skip"),
            },
            options={
                "ndcg": (("score_type='raw'", {"gain": "linear"}),
                         ("score_type='exp'", {"gain": "exp"})),
                "map": (("map (not map_at_k)", {"denominator": "R"}),),
            },
            names={"ndcg": "ndcg_at_k (score_type=raw is gain=linear, exp is gain=exp)",
                   "map": "map_at_k (map is denominator=R)", "P": "precision_at_k",
                   "recall": "recall_at_k"},
            notes={"map": "rating_true = the judgments with grade >= rel (recommenders counts "
                          "every row it is given as relevant)"},
        ),
        Dialect(
            "ranx",
            "ranx 0.3.21",
            {
                "ndcg": _C(missing="zero", ties="ranx"),
                "map": _C(missing="zero", ties="ranx"),
                "mrr": _C(missing="zero", ties="ranx"),
                "P": _C(missing="zero", ties="ranx"),
                "recall": _C(missing="zero", ties="ranx"),
                "hit": _C(missing="zero", ties="ranx"),
                "rel_ret": _C(missing="zero", ties="ranx"),
                "bpref": _C(missing="zero", ties="ranx", negative="raw", no_nonrel="nan"),
                "rbp": _C(missing="zero", ties="ranx", gain="linear"),
            },
            options={"ndcg": (("ndcg_burges", {"gain": "exp"}),)},
            names={"ndcg": "ndcg@k (ndcg_burges@k is gain=exp)", "map": "map, map@k",
                   "mrr": "mrr@k", "P": "precision@k", "recall": "recall@k",
                   "hit": "hit_rate@k", "rel_ret": "hits@k", "bpref": "bpref",
                   "rbp": "rbp.p"},
            spellings={"hits": ("rel_ret", {}), "hit_rate": ("hit", {}),
                       "ndcg_burges": ("ndcg", {"gain": "exp"})},
            notes={f: "ties as ranx orders them: sorted once when the run holds exactly the "
                      "judged queries, twice (make_comparable=True) otherwise"
                   for f in ("ndcg", "map", "mrr", "P", "recall", "hit", "rel_ret", "bpref",
                             "rbp")},
        ),
        Dialect(
            "beir",
            "BEIR 2.2.0 (EvaluateRetrieval, on pytrec_eval)",
            {
                "ndcg": _pytrec("ndcg", self_docs="drop", round=5),
                "map": _pytrec("map", self_docs="drop", round=5),
                "recall": _pytrec("recall", self_docs="drop", round=5),
                "P": _pytrec("P", self_docs="drop", round=5),
                "mrr": _C(self_docs="drop", missing="zero", ties="input", round=5),
            },
            names={"ndcg": "NDCG@k", "map": "MAP@k", "recall": "Recall@k", "P": "P@k",
                   "mrr": "MRR@k (evaluate_custom)"},
            notes={"mrr": "evaluate_custom does not drop a document with the query's id, but "
                          "evaluate() called first removes it from the results it is given"},
        ),
        Dialect(
            "mteb",
            "MTEB 2.26.24 (>= 2.18.19; retrieval on pytrec_eval)",
            {
                "ndcg": _pytrec("ndcg", round=5),
                "map": _pytrec("map", round=5),
                "recall": _pytrec("recall", round=5),
                "P": _pytrec("P", round=5),
                "hit": _pytrec("hit", round=5),
                "mrr": _C(),
            },
            names={"ndcg": "ndcg_at_k", "map": "map_at_k", "recall": "recall_at_k",
                   "P": "precision_at_k", "hit": "success (hit rate)", "mrr": "mrr_at_k"},
            notes={"mrr": "before 2.18.19 MTEB broke MRR ties in input order"},
        ),
        Dialect(
            "gdeval",
            "gdeval.pl 1.3 (TREC Web track 2010-2014)",
            {
                "ndcg": _C(cutoff=20, gain="exp", empty="skip"),
                "err": _C(cutoff=20, empty="skip"),
            },
            names={"ndcg": "ndcg@k (-k k; 20 without)", "err": "err@k (-k k; 20 without)"},
            notes={"ndcg": "gdeval refuses grades above 4, non-integer grades and non-numeric "
                           "topics; it scores duplicate documents twice (rankwise refuses them); "
                           "-c (mean over every judged query) is missing='zero'",
                   "err": "stop probability (2^g - 1) / 2^4 (err's max_grade=4); gdeval "
                          "refuses grades above 4 (rankwise: above max_grade)"},
        ),
    ]
}
"""Every dialect, by name."""


def read_dialect(text: str) -> str:
    """Read a dialect name (case-insensitive; '-' and '_' alike).

    Raises
    ------
    InvalidParameterError
        Not a dialect's name (a ``ValueError`` too); the message suggests the nearest.

    Examples
    --------
    >>> read_dialect("LightGBM"), read_dialect("trec-eval")
    ('lightgbm', 'trec_eval')
    >>> read_dialect("sklearnn")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: unknown dialect 'sklearnn'; did you mean 'sklearn'?
    """
    if not isinstance(text, str):
        raise InvalidParameterError(f"a dialect is a name, got {type(text).__name__}")
    value = text.strip().lower().replace("-", "_")
    aliases = {"scikit_learn": "sklearn", "pytrec_eval": "trec_eval", "catboost": "catboost"}
    value = aliases.get(value, value)
    if value not in DIALECTS:
        from rankwise.suggest import did_you_mean

        hint = did_you_mean(value, sorted(DIALECTS))
        raise InvalidParameterError(
            f"unknown dialect {text!r}" + (hint or f"; dialects: {', '.join(sorted(DIALECTS))}")
        )
    return value


def spelled(name: str, dialect: str) -> tuple[str, dict[str, str]] | None:
    """What *dialect*'s tool means by the measure name *name*, where rankwise reads it otherwise.

    Returns (family, parameters), or None when the tool's name means what
    rankwise's does (or the dialect is unknown: the parser says so).

    Examples
    --------
    >>> spelled("hits", "ranx"), spelled("HIT_RATE", "ranx"), spelled("hits", "trec_eval")
    (('rel_ret', {}), ('hit', {}), None)
    """
    try:
        value = read_dialect(dialect)
    except ValueError:
        return None
    return DIALECTS[value].spellings.get(name.lower())


def read_empty(text: str) -> str:
    """Read the value of an empty query: ``0``, ``1`` or ``skip``."""
    value = text.strip().lower()
    value = {"0.0": "0", "1.0": "1", "nan": "skip", "left_out": "skip"}.get(value, value)
    if value not in CHOICES["empty"]:
        raise ValueError(f"expected 0, 1 or skip, got {text!r}")
    return value


def read_denominator(text: str) -> str:
    """Read an average precision denominator: ``R``, ``capped`` (min(R, k)) or ``retrieved``."""
    value = text.strip()
    lowered = value.lower()
    aliases = {"r": "R", "capped": "capped", "min_r_k": "capped", "retrieved": "retrieved"}
    if lowered not in aliases:
        raise ValueError(f"expected R, capped (min(R, k)) or retrieved, got {text!r}")
    return aliases[lowered]


def dialect_param_default(family: str, dialect: str, key: str) -> Any:
    """The default of parameter *key* of *family* in *dialect* (a convention it sets).

    ``gain`` follows the dialect's gain (``ndcg`` and ``dcg``), ``empty``
    its empty-query value, ``denominator`` its average precision divisor,
    ``rel`` the least grade above 0.5 where a grade > 0.5 is relevant
    (LightGBM's ``map``); None for a parameter no dialect sets.

    Examples
    --------
    >>> dialect_param_default("ndcg", "catboost", "gain")
    'linear'
    >>> dialect_param_default("ndcg", "lightgbm", "empty")
    '1'
    >>> dialect_param_default("map", "lightgbm", "rel") > 0.5
    True
    """
    record = DIALECTS[dialect].families.get(family)
    if record is not None and key == "rel" and record.relevant == "above_half":
        return ABOVE_HALF
    if record is None or key not in ("gain", "empty", "denominator"):
        return None
    return getattr(record, key)


class MeasureLike(Protocol):
    """What reading a measure's conventions needs of it (a :class:`~rankwise.Measure` has it).

    This module sits below the measure values (their parameters are checked
    here), so it names what it reads instead of importing them.
    """

    @property
    def name(self) -> str:
        """The family's name."""

    @property
    def family(self) -> Any:
        """The measure's family (its catalog entry)."""

    def param(self, key: str) -> Any:
        """The value of parameter *key* (the default when not set)."""


def dialect_of(measure: MeasureLike) -> str:
    """The dialect of *measure* (``rankwise`` when it names none)."""
    if "dialect" not in measure.family.params:
        return DEFAULT_DIALECT
    return str(measure.param("dialect"))


def normalise_dialect(family: str, params: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Check the dialect of a measure's parameters; spell ``trec_eval`` as rankwise does.

    ``dialect=trec_eval`` is rankwise's measure with trec_eval's gain, so it
    is written ``gain=linear`` for ``ndcg`` and ``dcg`` and dropped for the
    others: one measure, one canonical name.

    Returns
    -------
    (params, dialect)
        The parameters to keep, and the dialect whose defaults apply.

    Raises
    ------
    MeasureSyntaxError
        A dialect that does not have the family.
    """
    params = dict(params)
    dialect = params.get("dialect", DEFAULT_DIALECT)
    if dialect not in DIALECTS:
        raise MeasureSyntaxError(f"unknown dialect {dialect!r}")
    if family not in DIALECTS[dialect].families:
        having = sorted(name for name, d in DIALECTS.items() if family in d.families)
        why = DIALECTS[dialect].notes.get(f"no {family}", "")
        raise MeasureSyntaxError(
            f"dialect {dialect!r} ({DIALECTS[dialect].tool}) has no {family!r}"
            + (f" ({why})" if why else "")
            + f"; dialects with {family!r}: {', '.join(having)}"
        )
    if dialect == "trec_eval":
        del params["dialect"]
        if family in ("ndcg", "dcg"):
            params.setdefault("gain", "linear")
        dialect = DEFAULT_DIALECT
    return params, dialect


def conventions_of(measure: MeasureLike) -> Conventions:
    """The conventions *measure* is computed with: its dialect's, and its own parameters.

    The parameters ``gain``, ``gains``, ``empty`` and ``denominator`` of the
    measure override the dialect's record.
    """
    family = measure.family
    record = DIALECTS[dialect_of(measure)].families.get(measure.name)
    if record is None:
        record = _RANKWISE.get(measure.name, Conventions())
    changes: dict[str, Any] = {}
    for key in ("gain", "gains", "empty", "denominator"):
        if key in family.params:
            changes[key] = measure.param(key)
    return replace(record, **changes)


def ranking_key(c: Conventions) -> tuple[str, bool, bool]:
    """What the ranking of the run needs: (tie order, float32 scores, drop self documents).

    Tie rules computed from the tie groups (average, low_first, ...) use the
    default docno ranking.
    """
    order = c.ties if c.ties in ("input", "ranx") else "docno"
    return order, c.scores == "float32", c.self_docs == "drop"


_KERNEL_FIELDS = tuple(
    name for name in ORDER
    if name not in ("self_docs", "scores", "missing", "gain", "gains", "round")
)


def uses_default_kernel(family: str, c: Conventions) -> bool:
    """Whether rankwise's own kernel computes the family under *c*.

    It does, on the ranking of :func:`ranking_key`, when every convention but
    the ranking, the gain and the queries counted is rankwise's
    (``ties="input"`` and ``"ranx"`` are rankings, so they qualify too).
    """
    base = _RANKWISE.get(family)
    if base is None:
        return True
    if family == "rbp":
        if c.gain != base.gain:
            return False
    elif c.gain not in ("exp", "linear") and c.gain != base.gain:
        return False
    probe = replace(c, ties="docno") if c.ties in ("input", "ranx") else c
    return all(getattr(probe, name) == getattr(base, name) for name in _KERNEL_FIELDS)


DIALECT = Param(
    DEFAULT_DIALECT,
    read_dialect,
    "the tool whose conventions to follow: " + ", ".join(sorted(DIALECTS)),
)
EMPTY = Param("0", read_empty, "value of a query with nothing relevant: 0, 1 or skip")
DENOMINATOR = Param(
    "R", read_denominator, "average precision divides by R, capped (min(R, k)) or retrieved"
)
