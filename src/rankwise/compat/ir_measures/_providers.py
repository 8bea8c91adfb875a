"""ir_measures' providers, computed by rankwise: each with its conventions.

Every provider of ir_measures 0.4 is here under its name, taking the measures
it takes there (``SUPPORTED_MEASURES``, ``supports``) and giving its values:

- ``pytrec_eval``: trec_eval's measures; ties by document id descending,
  scores compared as float32 (trec_eval's ``float``);
- ``cwl_eval``: C/W/L measures (``P``, ``RR``, ``AP``, ``RBP``, ``BPM``,
  ``SDCG``, ``NERR8``-``NERR11``, ``INST``, ``INSQ``) as :class:`CwlMetric`
  rows with the four other C/W/L quantities; ties in input order, depth 1000;
- ``compat``, ``judged``, ``msmarco``, ``pyndeval``: ties by document id
  ascending (pyndeval reads the judgments' ``iteration`` as the subtopic);
- ``gdeval``: ``nDCG(dcg='exp-log2')@k`` and ``ERR@k`` to 5 decimals;
- ``accuracy``: the share of (relevant, non-relevant) pairs of the top k
  ranked in order, only for queries that retrieved a relevant document;
- ``ranx``: ranx's measures, with its tie order;
- ``runtime``: the measures of :func:`define` and :func:`define_byquery`
  (pandas, as there);
- ``trectools``: not available (rankwise does not follow trectools).

Rows come in the order of ir_measures' provider: in its passes (pytrec_eval's
invocations, one per measure for msmarco, compat, accuracy and ranx, one per
cutoff for gdeval), each per query in the run's order, the measures of a query
in the provider's order (trec_eval's for pytrec_eval); then the judged queries
the run misses (value 0), as ir_measures yields them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any as AnyType
from typing import NamedTuple

import numpy as np

from rankwise.compat.ir_measures._base import (
    NOT_PROVIDED,
    Any,
    Choices,
    Evaluator,
    Provider,
)
from rankwise.compat.ir_measures._compute import Job, Judgments, Ranking, RunData, evaluate
from rankwise.compat.ir_measures._measures import (
    MEASURE_CLASSES,
    MeanAgg,
    Measure,
    SumAgg,
)
from rankwise.compat.ir_measures._row_order import (
    cwl_eval_passes,
    gdeval_passes,
    numeric_order,
    one_pass_per_measure,
    pyndeval_passes,
    pytrec_eval_passes,
    ranx_passes,
)
from rankwise.compat.ir_measures._util import Metric

__all__ = [
    "AccuracyProvider",
    "CompatProvider",
    "CwlEvalProvider",
    "CwlMetric",
    "GdevalProvider",
    "JudgedProvider",
    "MsMarcoProvider",
    "PyNdEvalProvider",
    "PytrecEvalProvider",
    "RankwiseEvaluator",
    "RankwiseProvider",
    "RanxProvider",
    "TrectoolsProvider",
]


class CwlMetric(NamedTuple):
    """A C/W/L value and its other quantities (cwl_eval's rows).

    Examples
    --------
    >>> from rankwise.compat import ir_measures
    >>> [row] = ir_measures.cwl_eval.iter_calc([ir_measures.P@2], {"q": {"a": 1}},
    ...                                        {"q": {"a": 1.0, "b": 2.0}})
    >>> row
    CwlMetric(query_id='q', measure=P@2, value=0.5, expected_total_utility=1.0, \
expected_cost=1.0, expected_total_cost=2.0, expected_items=2.0)
    """

    query_id: str
    measure: AnyType
    value: float
    expected_total_utility: float
    expected_cost: float
    expected_total_cost: float
    expected_items: float


def _spec(name: str, **params: AnyType) -> Measure:
    return MEASURE_CLASSES[name](**params)


def _reading(measure: Measure, ignored: Iterable[str] = ()) -> AnyType:
    """Rankwise's reading of an ir_measures measure (ir_measures' meaning).

    *ignored*: parameters the provider does not read (gdeval's nDCG is
    ``exp-log2`` whatever ``dcg`` says).
    """
    from rankwise.measures.ir_language import from_ir_params

    params = {k: v for k, v in measure.params.items() if k not in set(ignored)}
    return from_ir_params(str(measure.NAME), params, repr(measure))


class RankwiseEvaluator(Evaluator):
    """Evaluates runs with rankwise, one :class:`Job` per measure.

    Parameters
    ----------
    measures : list of measures
    judgments : Judgments
    jobs : dict
        measure -> :class:`Job`.
    row : callable, optional
        ``(query_id, measure, arrays, position) -> row`` (default: a
        :class:`Metric` of the first array).
    rows_only : bool
        Whether a query whose judgments are empty (``{"q": {}}``) is left out
        (the providers that read judgments row by row) or scores 0.
    defaults : bool
        Whether a judged query the run misses gets the measure's default
        (ir_measures' evaluators), or no row (its accuracy provider).
    passes : list of lists of measures, optional
        The order of the rows: each pass over the queries gives, per query,
        its measures in the pass's order (default: one pass, *measures*).
    query_order : callable, optional
        ``query ids -> positions``: the order of the queries in a pass
        (default: the run's).
    """

    def __init__(self, measures: list[Measure], judgments: Judgments, jobs: dict[AnyType, Job],
                 row: Callable[..., AnyType] | None = None, defaults: bool = True,
                 rows_only: bool = False, passes: list[list[Measure]] | None = None,
                 query_order: Callable[[list[AnyType]], list[int]] | None = None) -> None:
        super().__init__(measures, judgments.judged_qids if rows_only else judgments.qids)
        self.judgments = judgments
        self.jobs = jobs
        self.row = row
        self.defaults = defaults
        self._measure_list = list(dict.fromkeys(measures))
        self._passes = [self._measure_list] if passes is None else passes
        self._query_order = query_order
        if sorted(map(repr, (m for p in self._passes for m in p))) != sorted(
                map(repr, self._measure_list)):
            raise ValueError(f"passes {self._passes} are not the measures {self._measure_list}")

    def values(self, run: AnyType) -> tuple[list[AnyType], dict[AnyType, AnyType]]:
        """The evaluated queries and, per measure, ``(arrays, has a row)`` over them."""
        data = run if isinstance(run, RunData) else RunData(run)
        measures = self._measure_list
        queries, arrays = evaluate(self.judgments, data, [self.jobs[m] for m in measures])
        return queries, dict(zip(measures, arrays))

    def _iter_calc(self, run: AnyType) -> Iterator[AnyType]:
        queries, values = self.values(run)
        columns = {}
        for measure in self._measure_list:
            arrays, rows = values[measure]
            columns[measure] = (measure, arrays, arrays[0].tolist() if arrays else [],
                                rows.tolist())
        row = self.row
        order = (range(len(queries)) if self._query_order is None
                 else self._query_order(list(queries)))
        for measures in self._passes:
            pass_columns = [columns[m] for m in measures]
            for position in order:
                query = queries[position]
                for measure, arrays, first, rows in pass_columns:
                    if not rows[position]:
                        continue
                    if row is None:
                        yield Metric(query, measure, first[position])
                    else:
                        yield row(query, measure, arrays, position)

    def iter_calc(self, run: AnyType) -> Iterator[AnyType]:
        if self.defaults:
            return super().iter_calc(run)
        return self._iter_calc(run)

    def calc_aggregate(self, run: AnyType) -> dict[AnyType, float]:
        """``{measure: aggregate}``: summed in the order the rows come, as ir_measures does."""
        if not all(type(m.aggregator()) in (MeanAgg, SumAgg) for m in self._measure_list):
            return super().calc_aggregate(run)
        _, values = self.values(run)
        judged = len(set(self.qrel_qids)) if self.defaults else 0
        out = {}
        for measure in self.measures:
            arrays, rows = values[measure]
            column = arrays[0][rows] if arrays else np.zeros(0)
            count = max(judged, len(column))
            total = float(np.cumsum(column)[-1]) if len(column) else 0.0
            if isinstance(measure.aggregator(), SumAgg):
                out[measure] = total if count else 0.0  # a float, as ir_measures gives
            else:
                out[measure] = total / count if count else math.nan
        return out


class RankwiseProvider(Provider):
    """A provider whose measures rankwise computes: ``_job(measure)`` says how."""

    NAME = "rankwise"
    ROW: Callable[..., AnyType] | None = None
    DEFAULTS = True
    ROWS_ONLY = False
    QUERY_ORDER: Callable[[list[AnyType]], list[int]] | None = None

    def _job(self, measure: Measure) -> Job:
        raise NotImplementedError

    def _passes(self, measures: list[Measure]) -> list[list[Measure]]:
        """The order of the rows of ir_measures' provider (see :class:`RankwiseEvaluator`)."""
        return [measures]

    def _evaluator(self, measures: Iterable[Measure], qrels: AnyType) -> Evaluator:
        measures = list(dict.fromkeys(measures))
        names = {m.NAME for m in self.SUPPORTED_MEASURES}
        jobs = {}
        for measure in measures:  # as ir_measures' providers: by name, whatever supports says
            if names and measure.NAME not in names:
                raise ValueError(f"unsupported measure {measure}")
            jobs[measure] = self._job(measure)
        return RankwiseEvaluator(measures, Judgments(qrels), jobs, row=self.ROW,
                                 defaults=self.DEFAULTS, rows_only=self.ROWS_ONLY,
                                 passes=self._passes(measures), query_order=self.QUERY_ORDER)


_TREC = Ranking()


def _one(measure: AnyType, ranking: Ranking = _TREC, **extra: AnyType) -> Job:
    return Job((measure,), ranking, **extra)


class PytrecEvalProvider(RankwiseProvider):
    """trec_eval's measures as pytrec_eval computes them (ties by id descending, float32)."""

    NAME = "pytrec_eval"
    SUPPORTED_MEASURES = [  # noqa: RUF012 - ir_measures' attribute
        _spec("P", cutoff=Any(), rel=Any(), judged_only=Any()),
        _spec("RR", cutoff=Choices(NOT_PROVIDED), rel=Any(), judged_only=Any()),
        _spec("Rprec", rel=Any(), judged_only=Any()),
        _spec("AP", cutoff=Any(), rel=Any(), judged_only=Any()),
        _spec("nDCG", cutoff=Any(), dcg=Choices("log2"), gains=Any(), judged_only=Any()),
        _spec("R", cutoff=Any(), judged_only=Any()),
        _spec("Bpref", rel=Any()),
        _spec("NumRet", rel=Any()),
        _spec("NumQ"),
        _spec("NumRel", rel=Choices(1)),
        _spec("SetAP", rel=Any(), judged_only=Any()),
        _spec("SetF", rel=Any(), beta=Any(), judged_only=Any()),
        _spec("SetP", rel=Any(), relative=Any(), judged_only=Any()),
        _spec("SetR", rel=Any()),
        _spec("Success", rel=Any(), cutoff=Any(), judged_only=Any()),
        _spec("IPrec", recall=Any(), judged_only=Any()),
        _spec("infAP", rel=Any()),
    ]

    _passes = staticmethod(pytrec_eval_passes)

    def _job(self, measure: Measure) -> Job:
        reading = _reading(measure, ignored=("dcg",))
        rw = reading.measure
        if rw.name == "iprec_at_recall" and "rounding" in rw.family.params:
            rw = rw.replace(rounding="trec_eval9")  # pytrec_eval bundles trec_eval 9.0.8
        return _one(rw, Ranking(float32=True, judged_only=reading.judged_only))

    def install_instructions(self) -> str:
        return "pip install rankwise"


class GdevalProvider(RankwiseProvider):
    """gdeval.pl's nDCG@k (gain 2^g - 1) and ERR@k, printed to 5 decimals."""

    NAME = "gdeval"
    ROWS_ONLY = True
    SUPPORTED_MEASURES = [  # noqa: RUF012
        _spec("nDCG", cutoff=Any(required=True), dcg=Choices("exp-log2"),
              gains=Choices(NOT_PROVIDED), judged_only=Choices(False)),
        _spec("ERR", cutoff=Any(required=True)),
    ]

    _passes = staticmethod(gdeval_passes)
    QUERY_ORDER = staticmethod(numeric_order)

    def _job(self, measure: Measure) -> Job:
        if measure.NAME == "nDCG":
            measure = MEASURE_CLASSES["nDCG"](cutoff=measure["cutoff"], dcg="exp-log2")
        # gdeval.pl prints no row for a query without a judgment above 0: ir_measures'
        # default comes after the others
        return _with_relevant(_one(_reading(measure, ignored=("judged_only", "gains")).measure,
                                   combine=_five_decimals), 1)


def _with_relevant(job: Job, rel: AnyType) -> Job:
    """*job*, with a row only for the queries judging a document of grade >= *rel*."""
    from rankwise.measures import parse

    inner = job.combine

    def combine(arrays: list[np.ndarray]) -> list[np.ndarray]:
        return inner(arrays[:-1]) if inner is not None else arrays[:-1]

    def keep(arrays: list[np.ndarray]) -> np.ndarray:
        out: np.ndarray = arrays[-1] > 0
        return out

    return replace(job, measures=(*job.measures, parse(f"num_rel(rel={rel})")),
                   combine=combine, keep=keep)


def _five_decimals(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """gdeval.pl prints ``%.5f``: the value read back from that text."""
    return [np.array([float(f"{v:.5f}") if v == v else v for v in arrays[0].tolist()])]


class JudgedProvider(RankwiseProvider):
    """The share of the top k documents that are judged (ties by id ascending)."""

    NAME = "judged"
    SUPPORTED_MEASURES = [_spec("Judged", cutoff=Any())]  # noqa: RUF012

    def _job(self, measure: Measure) -> Job:
        return _one(_reading(measure).measure, Ranking(ascending=True))


class MsMarcoProvider(RankwiseProvider):
    """MS MARCO's reciprocal rank (ties by id ascending)."""

    NAME = "msmarco"
    ROWS_ONLY = True
    SUPPORTED_MEASURES = [  # noqa: RUF012
        _spec("RR", cutoff=Any(), rel=Any(), judged_only=Choices(False)),
    ]

    _passes = staticmethod(one_pass_per_measure)

    def _job(self, measure: Measure) -> Job:
        # a query without a document of grade >= rel has no row of MS MARCO's script: it
        # gets ir_measures' default, after the others
        return _with_relevant(_one(_reading(measure).measure, Ranking(ascending=True)),
                              measure["rel"])


class CompatProvider(RankwiseProvider):
    """Clarke et al.'s compatibility (ties by id ascending)."""

    NAME = "compat"
    SUPPORTED_MEASURES = [_spec("Compat", p=Any(), normalize=Any())]  # noqa: RUF012

    _passes = staticmethod(one_pass_per_measure)

    def _job(self, measure: Measure) -> Job:
        return _one(_reading(measure).measure, Ranking(ascending=True))


def _nan_without_relevant(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The nNRBP of ndeval for a ranking (not empty) with no relevant judgment: 0 / 0."""
    return [np.where((arrays[1] > 0) | (arrays[2] == 0), arrays[0], np.nan)]


class PyNdEvalProvider(RankwiseProvider):
    """ndeval's diversity measures (pyndeval): subtopics from ``iteration``, ties ascending."""

    NAME = "pyndeval"
    ROWS_ONLY = True
    SUPPORTED_MEASURES = [  # noqa: RUF012
        _spec("ERR_IA", cutoff=Any(), rel=Any(), judged_only=Any()),
        _spec("nERR_IA", cutoff=Any(), rel=Any(), judged_only=Any()),
        _spec("alpha_DCG", cutoff=Any(), alpha=Any(), rel=Any(), judged_only=Any()),
        _spec("alpha_nDCG", cutoff=Any(), alpha=Any(), rel=Any(), judged_only=Any()),
        _spec("NRBP", alpha=Any(), beta=Any(), rel=Any()),
        _spec("nNRBP", alpha=Any(), beta=Any(), rel=Any()),
        _spec("AP_IA", rel=Any(), judged_only=Any()),
        _spec("P_IA", cutoff=Any(), rel=Any(), judged_only=Any()),
        _spec("StRecall", cutoff=Any(), rel=Any()),
    ]

    _passes = staticmethod(pyndeval_passes)

    def _job(self, measure: Measure) -> Job:
        from rankwise.measures import parse

        reading = _reading(measure)
        ranking = Ranking(ascending=True, judged_only=reading.judged_only, subtopics=True)
        if measure.NAME == "nNRBP":  # ndeval divides by an ideal of 0: NaN (its "-nan")
            counted = parse(f"num_rel(rel={measure['rel']})"), parse("num_ret")
            return Job((reading.measure, *counted), ranking, combine=_nan_without_relevant)
        return _one(reading.measure, ranking)


def _accuracy(rel: float, cutoff: int | None) -> Callable[[AnyType], list[np.ndarray]]:
    """ir_measures' Accuracy of each query of a ranking (NaN where it has no value).

    Over the top n = min(k, retrieved) documents, with R relevant ones (grade
    >= rel; unjudged documents are not relevant) at ranks r_j and N = n - R
    others: 1 - S / (N R), S = sum_j (r_j - j) the non-relevant documents
    above each relevant one: the share of (relevant, non-relevant) pairs
    ranked in order. No value when R or N is 0.
    """

    def direct(ranking: AnyType) -> list[np.ndarray]:
        from rankwise.kernels._segments import per_query_sum, rank_within_query

        data = ranking.view("trec")
        n_queries = len(data.num_ret)
        relevant = data.hit_grade >= rel
        query, rank = data.hit_query[relevant], data.hit_rank[relevant]
        n = data.num_ret.astype(np.float64)
        if cutoff is not None:
            n = np.minimum(n, float(cutoff))
            query, rank = query[rank <= cutoff], rank[rank <= cutoff]
        found = per_query_sum(query, None, n_queries)
        above = per_query_sum(query, (rank - rank_within_query(query)).astype(np.float64),
                              n_queries)
        others = n - found
        with np.errstate(divide="ignore", invalid="ignore"):
            value = 1.0 - above / (others * found)
        return [np.where((found > 0) & (others > 0), value, np.nan)]

    return direct


def _defined(arrays: list[np.ndarray]) -> np.ndarray:
    out: np.ndarray = ~np.isnan(arrays[0])
    return out


class AccuracyProvider(RankwiseProvider):
    """The share of (relevant, non-relevant) pairs of the top k ranked in order (input ties).

    A query gets a value only when it retrieved a relevant document (and a
    non-relevant one); no default for the others, as ir_measures' provider.
    """

    NAME = "accuracy"
    SUPPORTED_MEASURES = [_spec("Accuracy", cutoff=Any(), rel=Any())]  # noqa: RUF012
    DEFAULTS = False

    _passes = staticmethod(one_pass_per_measure)

    def _job(self, measure: Measure) -> Job:
        cutoff = measure["cutoff"]
        return Job((), Ranking(tie_order="input"), keep=_defined, direct=_accuracy(
            float(measure["rel"]), None if cutoff is NOT_PROVIDED else int(cutoff)))


class RanxProvider(RankwiseProvider):
    """ranx's measures (its tie order; grades >= rel as 1, nDCG graded)."""

    NAME = "ranx"
    ROWS_ONLY = True
    SUPPORTED_MEASURES = [  # noqa: RUF012
        _spec("P", cutoff=Any(), rel=Any(), judged_only=Choices(False)),
        _spec("SetP", rel=Any(), judged_only=Choices(False)),
        _spec("RR", cutoff=Choices(NOT_PROVIDED), rel=Any(), judged_only=Choices(False)),
        _spec("Rprec", rel=Any(), judged_only=Choices(False)),
        _spec("AP", cutoff=Any(), rel=Any(), judged_only=Choices(False)),
        _spec("nDCG", cutoff=Any(), dcg=Choices("log2", "exp-log2"), gains=Choices(NOT_PROVIDED),
              judged_only=Choices(False)),
        _spec("R", cutoff=Any(), judged_only=Choices(False)),
        _spec("SetR", rel=Any()),
        _spec("NumRet", rel=Any(required=True)),
        _spec("Success", cutoff=Any(required=True), rel=Any(), judged_only=Choices(False)),
    ]

    _passes = staticmethod(ranx_passes)

    def _job(self, measure: Measure) -> Job:
        from rankwise.measures import parse

        cutoff = (measure["cutoff"] if "cutoff" in measure.SUPPORTED_PARAMS else NOT_PROVIDED)
        at = "" if cutoff is NOT_PROVIDED else f"@{cutoff}"
        rel = measure["rel"] if "rel" in measure.SUPPORTED_PARAMS else 1
        name = {"P": "P", "RR": "mrr", "AP": "map", "R": "recall", "NumRet": "rel_ret",
                "Success": "hit", "nDCG": "ndcg"}.get(str(measure.NAME))
        if measure.NAME == "nDCG":
            gain = "exp" if measure["dcg"] == "exp-log2" else "linear"
            text = f"ndcg{at}(dialect=ranx,gain={gain})"
        elif name is None:  # the set measures, R-precision: no tie order matters
            name = {"SetP": "set_P", "SetR": "set_recall", "Rprec": "Rprec"}[str(measure.NAME)]
            text = f"{name}(rel={rel})"
        else:
            text = f"{name}{at}(dialect=ranx,rel={rel})"
        return _one(parse(text), Ranking(tie_order="ranx"))


class TrectoolsProvider(Provider):
    """trectools' measures: not computed by rankwise (the provider is not available)."""

    NAME = "trectools"
    SUPPORTED_MEASURES = [  # noqa: RUF012
        _spec("P", cutoff=Any(), rel=Choices(1), judged_only=Choices(False)),
        _spec("RR", cutoff=Choices(NOT_PROVIDED), rel=Choices(1), judged_only=Choices(False)),
        _spec("Rprec", rel=Choices(1), judged_only=Choices(False)),
        _spec("AP", cutoff=Any(), rel=Choices(1), judged_only=Choices(False)),
        _spec("nDCG", cutoff=Any(), dcg=Any(), gains=Choices(NOT_PROVIDED),
              judged_only=Choices(False)),
        _spec("Bpref", rel=Choices(1)),
        _spec("RBP", cutoff=Any(), p=Any(), rel=Any()),
    ]

    def initialize(self) -> None:
        raise RuntimeError("rankwise does not compute trectools' measures")

    def install_instructions(self) -> str:
        return "use ir_measures itself (pip install ir-measures[trectools]) for trectools"


def _cwl_row(query: AnyType, measure: AnyType, arrays: list[np.ndarray], position: int
             ) -> CwlMetric:
    return CwlMetric(query, measure, *(float(a[position]) for a in arrays))


_CWL_DEPTH = 1000  # cwl_eval's max_n, as ir_measures' provider sets it


def _cwl_direct(
    rule: str, params: dict[str, float], gain_of: Callable[[np.ndarray], np.ndarray]
) -> Callable[[AnyType], list[np.ndarray]]:
    """The five C/W/L quantities of each query of a ranking, a block of queries at a time."""

    def direct(ranking: AnyType) -> list[np.ndarray]:
        from rankwise.kernels.cwl import BLOCK, cwl_quantities, gain_matrix

        data = ranking.view("trec")
        n = len(data.num_ret)
        out = [np.zeros(n) for _ in range(5)]
        block = max(1, BLOCK // _CWL_DEPTH)
        for first in range(0, n, block):
            rows = slice(first, min(n, first + block))
            values = cwl_quantities(rule, params, gain_matrix(data, rows, _CWL_DEPTH, gain_of))
            for column, name in zip(out, ("eu", "etu", "ec", "etc", "ed")):
                column[rows] = values[name]
        return out

    return direct


class CwlEvalProvider(RankwiseProvider):
    """cwl_eval's C/W/L measures (ties in input order, depth 1000), as :class:`CwlMetric` rows.

    ``P``, ``RR``, ``AP`` and ``RBP`` read binary gains (grade >= ``rel``);
    the others (grade - ``min_rel``) / (``max_rel`` - ``min_rel``), clipped to
    [0, 1], negative grades first taken as 0.
    """

    NAME = "cwl_eval"
    ROWS_ONLY = True
    SUPPORTED_MEASURES = [  # noqa: RUF012
        _spec("P", cutoff=Any(), rel=Any(), judged_only=Choices(False)),
        _spec("RR", cutoff=Choices(NOT_PROVIDED), rel=Any(), judged_only=Choices(False)),
        _spec("AP", cutoff=Choices(NOT_PROVIDED), rel=Any(), judged_only=Choices(False)),
        _spec("RBP", cutoff=Choices(NOT_PROVIDED), rel=Any(required=True), p=Any()),
        _spec("BPM", cutoff=Any(), T=Any(), min_rel=Any(), max_rel=Any(required=True)),
        _spec("SDCG", cutoff=Any(required=True), dcg=Choices("log2"), min_rel=Any(),
              max_rel=Any(required=True)),
        _spec("NERR8", cutoff=Any(required=True), min_rel=Any(), max_rel=Any(required=True)),
        _spec("NERR9", cutoff=Any(required=True), min_rel=Any(), max_rel=Any(required=True)),
        _spec("NERR10", p=Any(), min_rel=Any(), max_rel=Any(required=True)),
        _spec("NERR11", T=Any(), min_rel=Any(), max_rel=Any(required=True)),
        _spec("INST", T=Any(), min_rel=Any(), max_rel=Any(required=True)),
        _spec("INSQ", T=Any(), min_rel=Any(), max_rel=Any(required=True)),
    ]
    ROW = staticmethod(_cwl_row)

    _passes = staticmethod(cwl_eval_passes)

    def _job(self, measure: Measure) -> Job:
        from rankwise.kernels.cwl import scaled_gains

        name = str(measure.NAME)
        if name in ("P", "RR", "AP", "RBP"):
            rel = float(measure["rel"])

            def gain_of(grades: np.ndarray) -> np.ndarray:
                out: np.ndarray = (np.maximum(grades, 0.0) >= rel).astype(np.float64)
                return out
        else:
            low, high = float(measure["min_rel"]), float(measure["max_rel"])
            if not low < high:
                raise AssertionError("min_rel must be less than max_rel")

            def gain_of(grades: np.ndarray) -> np.ndarray:
                return scaled_gains(grades, low, high)
        rule = {"BPM": "bpm", "SDCG": "sdcg", "NERR8": "nerr8", "NERR9": "nerr9",
                "NERR10": "nerr10", "NERR11": "nerr11", "INST": "inst", "INSQ": "insq"}.get(
            name, name)
        params: dict[str, float] = {key: float(measure[key]) for key in ("T", "p")
                                     if key in measure.SUPPORTED_PARAMS}
        if "cutoff" in measure.SUPPORTED_PARAMS and measure["cutoff"] is not NOT_PROVIDED:
            params["k"] = params["K"] = float(measure["cutoff"])
        return Job((), Ranking(tie_order="input"), direct=_cwl_direct(rule, params, gain_of))


class ExtrasProvider(RankwiseProvider):
    """What rankwise computes beyond ir_measures' providers, with trec_eval's conventions.

    A measure of ir_measures' none of its providers takes (``NumRel(rel=2)``,
    ``RBP`` graded), or a measure string in rankwise's language or a
    pytrec_eval key (``"ndcg@10"``, ``"ndcg_cut_10"``) given to the drop-in.
    """

    NAME = "rankwise"

    def supports(self, measure: Measure) -> bool:
        measure.validate_params()
        if getattr(measure, "rankwise_measure", None) is not None:
            return True
        from rankwise.exceptions import RankwiseError

        try:
            _reading(measure)
        except (RankwiseError, KeyError):
            return False
        return True

    def _job(self, measure: Measure) -> Job:
        given = getattr(measure, "rankwise_measure", None)
        if given is not None:
            return _one(given)
        reading = _reading(measure)
        return _one(reading.measure, Ranking(judged_only=reading.judged_only))


class RankwiseString(Measure):
    """A measure given to the drop-in as a string of rankwise's language (``"ndcg@10"``).

    Its ``repr`` is the string as given; :class:`ExtrasProvider` computes it.
    """

    NAME = "rankwise"

    def __init__(self, text: str = "", rankwise_measure: AnyType = None) -> None:
        super().__init__()
        self.text = text
        self.rankwise_measure = rankwise_measure

    def validate_params(self) -> None:
        return None

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RankwiseString) and other.text == self.text

    def __hash__(self) -> int:
        return hash(("rankwise", self.text))

    def aggregator(self) -> AnyType:
        if self.rankwise_measure is not None and self.rankwise_measure.family.aggregate == "sum":
            return SumAgg()
        return MeanAgg()
