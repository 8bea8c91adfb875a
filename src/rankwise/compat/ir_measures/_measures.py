"""ir_measures' measure objects: ``nDCG@10``, ``P(rel=2)@5``, ``AP``, ``SetF(beta=2)``, ...

A measure is a value: its name, and the parameters set on it (``params``).
``measure(**params)`` gives a copy with more set, ``measure@x`` sets the
parameter ``@`` stands for (``cutoff``; ``recall`` for ``IPrec``). Two
measures are equal when their ``repr`` is (``P@5 == P(cutoff=5)``; a
parameter given its default value is left out of the ``repr``), and hash
alike: as ir_measures 0.4 has them. ``validate_params()`` raises
``AssertionError`` for an unknown or invalid parameter, as there.

Every class here is ir_measures' (``_nDCG`` and its instance ``nDCG``),
with the parameters it declares (:class:`ParamInfo`); the values are
computed by rankwise (:mod:`rankwise.compat.ir_measures._providers`).

Examples
--------
>>> from rankwise.compat.ir_measures import nDCG, P, IPrec
>>> nDCG@10, P(rel=2)@5, IPrec@0.5
(nDCG@10, P(rel=2)@5, IPrec@0.5)
>>> P(cutoff=5) == P@5, nDCG(dcg="log2")@10 == nDCG@10
(True, True)
>>> (P@5)["rel"], (P@5).params
(1, {'cutoff': 5})
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from rankwise.compat.ir_measures._records import CalcResults

__all__ = [
    "MEASURE_CLASSES",
    "Agg",
    "BaseMeasure",
    "MeanAgg",
    "Measure",
    "ParamInfo",
    "SumAgg",
    "register",
    "registry",
]


_PIPELINE: list[Any] = []
"""The drop-in's ``DefaultPipeline``, which measures evaluate themselves with (set by it)."""


def default_pipeline() -> Any:
    """The pipeline a measure's own ``calc_aggregate`` and ``iter_calc`` use.

    The package's ``__init__`` (run before this module is) sets it.
    """
    return _PIPELINE[0]


class _NotProvided:
    """The value of a parameter not given (ir_measures' ``NOT_PROVIDED``)."""

    _instance: ClassVar[_NotProvided | None] = None

    def __new__(cls) -> _NotProvided:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_PROVIDED"

    def __reduce__(self) -> str:
        return "NOT_PROVIDED"


NOT_PROVIDED: Any = _NotProvided()
"""A parameter left out: ``measure["cutoff"]`` without a cutoff."""


class Agg:
    """How one measure's per-query values are aggregated: :meth:`add` each, then :meth:`result`."""

    def add(self, value: float) -> None:
        raise NotImplementedError

    def result(self) -> float:
        raise NotImplementedError


class MeanAgg(Agg):
    """The mean, summed in the order the values come (NaN, or *default*, for none).

    Examples
    --------
    >>> agg = MeanAgg()
    >>> agg.add(0.5); agg.add(1.0); agg.result()
    0.75
    """

    def __init__(self, default: float = float("nan")) -> None:
        self.sum = 0.0
        self.count = 0
        self.default = default

    def add(self, value: float) -> None:
        self.sum += value
        self.count += 1

    def result(self) -> float:
        if self.count == 0:
            return self.default
        return self.sum / self.count


class SumAgg(Agg):
    """The sum (the counts: ``NumQ``, ``NumRet``, ``NumRel``).

    Examples
    --------
    >>> agg = SumAgg()
    >>> agg.add(3.0); agg.add(2.0); agg.result()
    5.0
    """

    def __init__(self) -> None:
        self.sum: float = 0.0

    def add(self, value: float) -> None:
        self.sum += value

    def result(self) -> float:
        return self.sum


class ParamInfo:
    """One parameter a measure takes: its type, whether required, its choices and default.

    Examples
    --------
    >>> info = ParamInfo(dtype=int, default=1, desc="minimum relevance")
    >>> info.validate(2), info.validate(0.5), info.validate(NOT_PROVIDED)
    (True, False, True)
    """

    def __init__(self, dtype: Any = None, required: bool = False, choices: Any = NOT_PROVIDED,
                 default: Any = NOT_PROVIDED, desc: str | None = None) -> None:
        self.dtype = dtype
        self.required = required
        self.choices = choices
        self.default = default
        self.desc = desc

    def validate(self, value: Any) -> bool:
        """Whether *value* (or :data:`NOT_PROVIDED`) is acceptable."""
        if value is NOT_PROVIDED:
            return not self.required
        if self.dtype is not None and not isinstance(value, self.dtype):
            return False
        return self.choices is NOT_PROVIDED or value in self.choices

    def __repr__(self) -> str:
        return f"ParamInfo(dtype={getattr(self.dtype, '__name__', self.dtype)}, " \
               f"required={self.required}, default={self.default!r})"


class Measure:
    """A measure with its parameters (ir_measures' ``Measure``; ``BaseMeasure`` is an alias).

    Attributes
    ----------
    NAME : str
        The name (``"nDCG"``).
    AT_PARAM : str
        The parameter ``measure@x`` sets.
    SUPPORTED_PARAMS : dict
        ``{name: ParamInfo}``.
    DEFAULT : float
        The value of a query the run does not hold.
    params : dict
        The parameters set on this measure.

    Examples
    --------
    >>> from rankwise.compat.ir_measures import nDCG
    >>> measure = nDCG(dcg="exp-log2")@10
    >>> measure, measure.params, measure["judged_only"], measure == nDCG(cutoff=10)
    (nDCG(dcg='exp-log2')@10, {'dcg': 'exp-log2', 'cutoff': 10}, False, False)
    >>> measure.calc_aggregate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 2.0}})  # gdeval's
    0.63093
    """

    NAME: str | None = None
    AT_PARAM = "cutoff"
    SUPPORTED_PARAMS: ClassVar[dict[str, ParamInfo]] = {}
    DEFAULT = 0.0
    PRETTY_NAME: str | None = None
    SHORT_DESC: str | None = None
    __name__: str | None = None

    def __init__(self, **params: Any) -> None:
        self.params = params
        self.validated = False
        self._key: tuple[Any, str] | None = None

    def validate_params(self) -> None:
        """Raise ``AssertionError`` for a parameter the measure does not take or a bad value."""
        if self.validated:
            return
        if not isinstance(self.params, dict):
            raise AssertionError("params must be dict")
        unsupported = list(self.params.keys() - self.SUPPORTED_PARAMS.keys())
        if unsupported:
            raise AssertionError(f"unsupported params found: {unsupported}")
        for name, info in self.SUPPORTED_PARAMS.items():
            value = self.params.get(name, NOT_PROVIDED)
            if not info.validate(value):
                raise AssertionError(f"invalid param {name}={value!r}")
        self.validated = True

    def __call__(self, **kwargs: Any) -> Measure:
        return type(self)(**{**self.params, **kwargs})

    def __matmul__(self, at_param: Any) -> Measure:
        return self(**{self.AT_PARAM: at_param})

    def __getitem__(self, key: str) -> Any:
        return self.params.get(key, self.SUPPORTED_PARAMS[key].default)

    def iter_calc(self, qrels: Any, run: Any) -> Iterator[Any]:
        """Per-query values of this measure (``Metric`` rows), with the default pipeline."""
        self.validate_params()
        rows: Iterator[Any] = default_pipeline().iter_calc([self], qrels, run)
        return rows

    def calc_aggregate(self, qrels: Any, run: Any) -> float:
        """The aggregate value of this measure (the mean over queries; a sum for counts)."""
        value: float = default_pipeline().calc_aggregate([self], qrels, run)[self]
        return value

    def calc(self, qrels: Any, run: Any) -> Any:
        """``CalcResults(aggregate value, per-query Metric rows)``."""
        aggregated, per_query = default_pipeline().calc([self], qrels, run)
        return CalcResults(aggregated[self], per_query)

    def evaluator(self, qrels: Any) -> Any:
        """An evaluator of this measure against *qrels*."""
        return default_pipeline().evaluator([self], qrels)

    def __str__(self) -> str:
        return repr(self)

    def __repr__(self) -> str:
        key = self._key  # (the params it was made from, its text): a measure is a value
        if key is not None and key[0] == self.params:
            return key[1]
        result = self._text()
        self._key = (dict(self.params), result)
        return result

    def _text(self) -> str:
        result = str(self.__name__)
        shown = ",".join(
            f"{key}={self._param_repr(value)}" for key, value in self.params.items()
            if key != self.AT_PARAM and value != self.SUPPORTED_PARAMS[key].default
        )
        if shown:
            result = f"{result}({shown})"
        if self.AT_PARAM in self.params:
            result = f"{result}@{self.params[self.AT_PARAM]}"
        return result

    @staticmethod
    def _param_repr(value: Any) -> str:
        if isinstance(value, dict):  # a gain map: its pairs sorted, grade: grade left out
            return "{" + ",".join(f"{k}:{v}" for k, v in sorted(value.items()) if k != v) + "}"
        return repr(value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Measure) or _looks_like_measure(other):
            return repr(self) == repr(other)
        return False

    def __hash__(self) -> int:
        return hash(repr(self))

    def aggregator(self) -> Agg:
        """A fresh aggregator of this measure's values."""
        return MeanAgg()


BaseMeasure = Measure


def _looks_like_measure(other: object) -> bool:
    """An ir_measures measure object (of the real package): equal by ``repr`` too."""
    return isinstance(getattr(other, "NAME", None), str) and isinstance(
        getattr(other, "params", None), dict) and hasattr(other, "SUPPORTED_PARAMS")


class _SummedMeasure(Measure):
    """A count: its aggregate is the sum over queries."""

    def aggregator(self) -> Agg:
        return SumAgg()


registry: dict[str, Measure] = {}
"""Every measure name (aliases too) -> its measure object, as :func:`register` fills it."""


def register(measure: Measure, aliases: list[str] | tuple[str, ...] = (),
             name: str | None = None) -> dict[str, Measure]:
    """Add *measure* to :data:`registry` under its name (or *name*) and *aliases*."""
    name = measure.__name__ if name is None else name
    if not name or name in registry:
        raise AssertionError(f"measure name {name!r} is missing or already registered")
    registry[name] = measure
    for alias in aliases:
        if alias in registry:
            raise AssertionError(f"measure name {alias!r} is already registered")
        registry[alias] = measure
    return registry


# ---------------------------------------------------------------------------
# the measures: name -> (parameters, @, summed, pretty name, description)
# ---------------------------------------------------------------------------

def _cutoff(required: bool = False) -> ParamInfo:
    return ParamInfo(dtype=int, required=required, desc="ranking cutoff threshold")


def _rel(desc: str = "minimum relevance score to be considered relevant (inclusive)",
         default: Any = 1) -> ParamInfo:
    return ParamInfo(dtype=int, default=default, desc=desc)


def _judged_only() -> ParamInfo:
    return ParamInfo(dtype=bool, default=False,
                     desc="ignore returned documents that do not have relevance judgments")


def _grades() -> dict[str, ParamInfo]:
    return {"min_rel": ParamInfo(dtype=int, default=0, desc="minimum relevance score"),
            "max_rel": ParamInfo(dtype=int, required=True, desc="maximum relevance score")}


def _target() -> ParamInfo:
    return ParamInfo(dtype=float, default=1.0, desc="total desired gain (normalized)")


def _ranked() -> dict[str, ParamInfo]:
    return {"cutoff": _cutoff(), "rel": _rel(), "judged_only": _judged_only()}


def _alpha() -> ParamInfo:
    return ParamInfo(dtype=float, default=0.5, desc="redundancy intolerance")


_SPECS: list[tuple[str, dict[str, ParamInfo], str, bool, str, str]] = [
    ("Accuracy", {"cutoff": _cutoff(), "rel": _rel()}, "cutoff", False, "Accuracy",
     "The share of (relevant, non-relevant) pairs of retrieved documents ranked in order."),
    ("AP", _ranked(), "cutoff", False, "(Mean) Average Precision",
     "The mean of the precision at each relevant document retrieved."),
    ("BPM", {"cutoff": _cutoff(True), "T": _target(), **_grades()}, "cutoff", False,
     "Bejeweled Player Model", "A C/W/L measure: stop at a gain target or a cost budget."),
    ("Bpref", {"rel": _rel()}, "cutoff", False, "Binary Preference",
     "How many judged non-relevant documents rank above each relevant one."),
    ("Compat", {"p": ParamInfo(dtype=float, default=0.95, desc="persistence"),
                "normalize": ParamInfo(dtype=bool, default=True,
                                       desc="apply normalization for finite ideal rankings")},
     "cutoff", False, "Compatibility", "Rank-biased overlap with an ideal ranking."),
    ("ERR_IA", {"cutoff": _cutoff(), "rel": _rel(), "judged_only": _judged_only()}, "cutoff",
     False, "Intent-Aware Expected Reciprocal Rank", "ERR averaged over the query's intents."),
    ("nERR_IA", {"cutoff": _cutoff(), "rel": _rel(), "judged_only": _judged_only()}, "cutoff",
     False, "Intent-Aware Normalised Expected Reciprocal Rank",
     "ERR-IA normalised by an ideal ranking."),
    ("alpha_DCG", {"cutoff": _cutoff(), "rel": _rel(), "alpha": _alpha(),
                   "judged_only": _judged_only()}, "cutoff", False,
     "Alpha Discounted Cumulative Gain", "DCG rewarding novelty across intents."),
    ("alpha_nDCG", {"cutoff": _cutoff(), "rel": _rel(), "alpha": _alpha(),
                    "judged_only": _judged_only()}, "cutoff", False,
     "Alpha Normalised Discounted Cumulative Gain", "alpha-DCG normalised by an ideal ranking."),
    ("NRBP", {"rel": _rel(), "alpha": _alpha(),
              "beta": ParamInfo(dtype=float, default=0.5, desc="patience")}, "cutoff", False,
     "Novelty- and Rank-Biased Precision", "RBP rewarding novelty across intents."),
    ("nNRBP", {"rel": _rel(), "alpha": _alpha(),
               "beta": ParamInfo(dtype=float, default=0.5, desc="patience")}, "cutoff", False,
     "Normalised Novelty- and Rank-Biased Precision", "NRBP normalised by an ideal ranking."),
    ("AP_IA", {"rel": _rel(), "judged_only": _judged_only()}, "cutoff", False,
     "Intent-Aware (Mean) Average Precision", "AP averaged over the query's intents."),
    ("P_IA", {"cutoff": _cutoff(), "rel": _rel(), "judged_only": _judged_only()}, "cutoff",
     False, "Intent-Aware Precision@k", "P@k averaged over the query's intents."),
    ("StRecall", {"cutoff": _cutoff(), "rel": _rel()}, "cutoff", False, "Subtopic Recall at k",
     "The share of the query's intents covered in the top k."),
    ("ERR", {"cutoff": _cutoff()}, "cutoff", False, "Expected Reciprocal Rank",
     "The expected reciprocal of the rank where a cascading user stops."),
    ("INST", {"T": _target(), **_grades()}, "cutoff", False, "INST",
     "A C/W/L measure whose user adapts to the gain still wanted."),
    ("INSQ", {"T": _target(), **_grades()}, "cutoff", False, "INSQ",
     "A C/W/L measure whose continuation depends on the rank and the target."),
    ("infAP", {"rel": _rel()}, "cutoff", False, "Inferred Average Precision",
     "AP estimated from sampled judgments (-1: pooled, not judged)."),
    ("IPrec", {"recall": ParamInfo(dtype=float, required=True, desc="recall threshold"),
               "rel": _rel(), "judged_only": _judged_only()}, "recall", False,
     "Interpolated Precision@recall", "The best precision at a recall level or above."),
    ("Judged", {"cutoff": _cutoff()}, "cutoff", False, "Judgment Rate at k",
     "The share of the top k documents that are judged."),
    ("nDCG", {"cutoff": _cutoff(),
              "dcg": ParamInfo(dtype=str, choices=["log2", "exp-log2"], default="log2",
                               desc="DCG formulation"),
              "gains": ParamInfo(dtype=dict, desc="custom gain mapping (int-to-int)"),
              "judged_only": _judged_only()}, "cutoff", False,
     "Normalised Discounted Cumulative Gain", "DCG divided by the DCG of an ideal ranking."),
    ("NERR8", {"cutoff": _cutoff(True), **_grades()}, "cutoff", False,
     "Nearly Expected Reciprocal Rank Eq 8", "A C/W/L form of ERR, truncated at k."),
    ("NERR9", {"cutoff": _cutoff(True), **_grades()}, "cutoff", False,
     "Nearly Expected Reciprocal Rank Eq 9", "A C/W/L form of ERR with a rank discount, "
     "truncated at k."),
    ("NERR10", {"p": ParamInfo(dtype=float, default=0.9, desc="persistence"), **_grades()},
     "cutoff", False, "Nearly Expected Reciprocal Rank Eq 10",
     "A C/W/L form of ERR with RBP's persistence."),
    ("NERR11", {"T": _target(), **_grades()}, "cutoff", False,
     "Nearly Expected Reciprocal Rank Eq 11", "A C/W/L form of ERR with INST's target."),
    ("NumQ", {}, "cutoff", True, "Number of Queries", "The number of judged queries."),
    ("NumRel", {"rel": _rel("minimum relevance score to be counted (inclusive)")}, "cutoff",
     True, "Number of Relevant Documents", "The number of relevant documents judged."),
    ("NumRet", {"rel": ParamInfo(dtype=int, required=False, desc="minimum relevance score to be "
                                 "counted (inclusive), or all documents returned if "
                                 "NOT_PROVIDED")}, "cutoff", True,
     "Number of Retrieved Documents", "The number of documents retrieved (relevant ones with "
     "rel)."),
    ("P", {"cutoff": _cutoff(True), "rel": _rel(), "judged_only": _judged_only()}, "cutoff",
     False, "Precision at k", "The share of the top k documents that are relevant."),
    ("R", {"cutoff": _cutoff(True), "rel": _rel(), "judged_only": _judged_only()}, "cutoff",
     False, "Recall at k", "The share of the relevant documents found in the top k."),
    ("RBP", {"cutoff": _cutoff(), "p": ParamInfo(dtype=float, default=0.8, desc="persistence"),
             "rel": ParamInfo(dtype=int, required=False, desc="minimum relevance score to be "
                              "considered relevant (inclusive), or NOT_PROVIDED to use graded "
                              "relevance")}, "cutoff", False, "Rank-Biased Precision",
     "The gain of a user who goes on to the next rank with probability p."),
    ("Rprec", {"rel": _rel(), "judged_only": _judged_only()}, "cutoff", False, "Precision at R",
     "The precision at R, R the number of relevant documents."),
    ("RR", _ranked(), "cutoff", False, "(Mean) Reciprocal Rank",
     "The reciprocal of the rank of the first relevant document."),
    ("SDCG", {"cutoff": _cutoff(True),
              "dcg": ParamInfo(dtype=str, choices=["log2"], default="log2",
                               desc="DCG formulation"), **_grades()}, "cutoff", False,
     "Scaled Discounted Cumulative Gain", "DCG@k scaled as if k fully relevant documents "
     "existed."),
    ("SetP", {"rel": _rel(), "relative": ParamInfo(dtype=bool, default=False,
                                                    desc="divide by the best possible SetP"),
              "judged_only": _judged_only()}, "cutoff", False, "Set Precision",
     "The share of the retrieved documents that are relevant."),
    ("SetR", {"rel": _rel()}, "cutoff", False, "Set Recall",
     "The share of the relevant documents that are retrieved."),
    ("SetF", {"rel": _rel(), "beta": ParamInfo(dtype=float, default=1.0,
                                                desc="relative importance of R to P"),
              "judged_only": _judged_only()}, "cutoff", False, "Set F1",
     "The weighted harmonic mean of SetP and SetR."),
    ("SetAP", {"rel": _rel(), "judged_only": _judged_only()}, "cutoff", False,
     "Set Average Precision", "SetP times SetR."),
    ("Success", {"cutoff": _cutoff(True), "rel": _rel(), "judged_only": _judged_only()},
     "cutoff", False, "Success at k", "1 when a relevant document is in the top k, else 0."),
]


def _make_class(name: str, params: dict[str, ParamInfo], at: str, summed: bool, pretty: str,
                desc: str) -> type[Measure]:
    base = _SummedMeasure if summed else Measure
    return type(f"_{name}", (base,), {
        "__name__": name, "NAME": name, "AT_PARAM": at, "SUPPORTED_PARAMS": params,
        "PRETTY_NAME": pretty, "SHORT_DESC": desc,
        "__doc__": f"{pretty}: {desc}\n\nExamples\n--------\n"
                   f">>> from rankwise.compat.ir_measures import {name}\n>>> {name}\n{name}\n",
        "__module__": __name__, "__qualname__": f"_{name}",
    })


MEASURE_CLASSES: dict[str, type[Measure]] = {spec[0]: _make_class(*spec) for spec in _SPECS}
"""ir_measures' measure classes by name (``_nDCG`` is ``MEASURE_CLASSES["nDCG"]``)."""

ALIASES: dict[str, tuple[str, ...]] = {
    "AP": ("MAP",), "Bpref": ("BPref",), "alpha_DCG": ("\u03b1_DCG",),
    "alpha_nDCG": ("\u03b1_nDCG",), "AP_IA": ("MAP_IA",), "nDCG": ("NDCG",),
    "P": ("Precision",), "R": ("Recall",), "Rprec": ("RPrec",), "RR": ("MRR",),
}
"""ir_measures' other names of a measure."""

INSTANCES: dict[str, Measure] = {}
"""Every public measure object by name (aliases, ``NumRelRet`` and ``SetRelP`` too)."""

for _name, _cls in MEASURE_CLASSES.items():
    _instance = _cls()
    INSTANCES[_name] = _instance
    register(_instance, ALIASES.get(_name, ()))
    for _alias in ALIASES.get(_name, ()):
        INSTANCES[_alias] = _instance
INSTANCES["NumRelRet"] = INSTANCES["NumRet"](rel=1)
register(INSTANCES["NumRelRet"], name="NumRelRet")
INSTANCES["SetRelP"] = INSTANCES["SetP"](relative=True)
register(INSTANCES["SetRelP"], name="SetRelP")
del _name, _cls, _instance
