r"""Reproducibility and agreement: did a reproduction reproduce; how alike are two rankings.

- :func:`reproduce`: the measures of repro_eval (Breuer et al., "How to
  measure the reproducibility of system-oriented IR experiments", SIGIR
  2020): per topic, Kendall's tau union (KTU) and rank-biased overlap
  (RBO) between the original and the reproduced ranking; per measure, the
  RMSE of the per-topic values, the effect ratio (ER), the delta relative
  improvement (:math:`\Delta RI`), and a paired (reproducibility, same
  topics) or unpaired (replicability, another collection) t-test;
- :func:`rbo`: rank-biased overlap between any two runs, per query (Webber,
  Moffat & Zobel 2010, with their extrapolation);
- :func:`measure_agreement`: how two measures agree on the order of a set
  of systems: Kendall's :math:`\tau_b` and Spearman's :math:`\rho` of their means.

Rankings are put in rankwise's order (score descending, ties by document id
descending: trec_eval's and repro_eval's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from rankwise._tabular import Tabular
from rankwise._validation import (
    DEPRECATED,
    POSITIVE_INT,
    OneOf,
    check,
    optional,
    renamed,
)
from rankwise._wording import counted, plural
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.options import EvalOptions, Missing, Ties, Unjudged, options_from
from rankwise.stats.agreement import PERSISTENCE, PERSISTENCE_OR_ONE, RBO_METHODS

if TYPE_CHECKING:
    from rankwise.data import Run
    from rankwise.engines import Engine
    from rankwise.report.tables import Table

__all__ = [
    "DEFAULT_MEASURES",
    "Agreement",
    "MeasureAgreement",
    "Reproduction",
    "ktu",
    "measure_agreement",
    "rbo",
    "reproduce",
]

DEFAULT_MEASURES = ("map", "ndcg(gain=linear)", "ndcg@10(gain=linear)", "P@10", "mrr", "Rprec")
"""What :func:`reproduce` compares by default (repro_eval's AP, nDCG, nDCG@10, P@10, RR, Rprec)."""

RboMethod = Literal["ext", "truncated", "repro_eval"]
"""The variants of RBO (see :func:`rbo`)."""
_RBO_METHOD = OneOf(RBO_METHODS)



# ----------------------------------------------------------------------------
# rankings as arrays
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rankings:
    """Two runs' rankings over their common queries, as integer arrays with shared doc codes."""

    query_ids: list[str]
    sides: list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # (query, rank, doc) per run
    lengths: list[np.ndarray]
    only: list[int]  # queries found in one run only, per run


def _ranked(run: Run, depth: int | None) -> Any:
    """The run as an Arrow table in rank order, with 1-based ranks, cut at *depth*."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = run.to_arrow()
    order = pc.sort_indices(
        pa.table({"q": table["query_id"].cast(pa.binary()), "s": table["score"],
                  "d": table["doc_id"].cast(pa.binary())}),
        sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")],
    )
    table = table.take(order)
    queries = table["query_id"].combine_chunks()
    n = len(queries)
    if n:
        new = pc.not_equal(queries[1:], queries[:-1]).to_numpy(zero_copy_only=False)
        starts = np.concatenate(([0], np.flatnonzero(new) + 1))
    else:
        starts = np.zeros(0, dtype=np.int64)
    rank = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n))) + 1
    table = table.append_column("rank", pa.array(rank))
    if depth is not None:
        table = table.filter(pa.array(rank <= depth))
    return table


def _rankings(runs: list[Run], depth: int | None) -> _Rankings:
    import pyarrow as pa
    import pyarrow.compute as pc

    tables = [_ranked(run, depth) for run in runs]
    query_sets = [set(t["query_id"].to_pylist()) for t in tables]
    common = sorted(set.intersection(*query_sets), key=lambda q: q.encode("utf-8"))
    only = [len(s - set(common)) for s in query_sets]
    # documents coded in byte order of their ids (= Python's order of the strings)
    docs = pa.concat_arrays([t["doc_id"].combine_chunks() for t in tables])
    unique = pc.unique(docs)
    unique = unique.take(pc.sort_indices(unique.cast(pa.binary())))
    query_index = pa.array(common, pa.string())
    sides, lengths = [], []
    for table in tables:
        codes = pc.index_in(table["query_id"], value_set=query_index)
        keep = pc.is_valid(codes)
        table = table.filter(keep)
        query = np.asarray(pc.index_in(table["query_id"], value_set=query_index)
                           .to_numpy(zero_copy_only=False), dtype=np.int64)
        doc = np.asarray(pc.index_in(table["doc_id"], value_set=unique)
                         .to_numpy(zero_copy_only=False), dtype=np.int64)
        rank = np.asarray(table["rank"].to_numpy(), dtype=np.int64)
        sides.append((query, rank, doc))
        lengths.append(np.bincount(query, minlength=len(common)))
    return _Rankings(common, sides, lengths, only)


def _as_runs(*objects: Any) -> list[Run]:
    from rankwise.io.coerce import as_run

    return [as_run(obj) for obj in objects]


_DEPTH = optional(POSITIVE_INT)


# ----------------------------------------------------------------------------
# per-query agreement
# ----------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Agreement(Tabular):
    """One value per query: how alike two rankings are.

    Its :meth:`table` is one row per query; like every result it has
    ``to_dict`` (``{query_id: value}``), ``to_pandas``, ``to_polars``,
    ``to_table``, shows as a table in a notebook and pickles.

    Attributes
    ----------
    name : str
        What was computed, e.g. ``"rbo(p=0.9)"`` or ``"ktu"``.
    query_ids : tuple of str
        The queries of both runs, in byte order of their ids.
    values : numpy.ndarray
        One value per query.
    notes : tuple of str
        Queries left out (found in one run only).
    """

    name: str
    query_ids: tuple[str, ...]
    values: np.ndarray
    notes: tuple[str, ...] = ()

    @property
    def mean(self) -> float:
        """The mean over the queries (NaN values left out; NaN when there is none)."""
        finite = self.values[~np.isnan(self.values)]
        return float(finite.mean()) if len(finite) else math.nan

    def to_dict(self) -> dict[str, float]:
        """``{query_id: value}``."""
        return dict(zip(self.query_ids, self.values.tolist()))

    def table(self) -> Table:
        """One row per query: its id and its value (the column named by :attr:`name`)."""
        from rankwise.report.tables import Table

        return Table(["query_id", self.name], ["text", "float"],
                     [[q, v] for q, v in zip(self.query_ids, self.values.tolist())])

    def _caption(self) -> str:
        return (f"Agreement({self.name}, {counted(len(self.query_ids), 'query')}, "
                f"mean={self.mean:.4f})")


def _coverage_notes(rankings: _Rankings, names: Sequence[str]) -> tuple[str, ...]:
    return tuple(
        f"{count} quer{'y' if count == 1 else 'ies'} of {name} "
        f"{'is' if count == 1 else 'are'} not in the other run (left out)"
        for name, count in zip(names, rankings.only) if count
    )


def rbo(
    run_a: Any,
    run_b: Any,
    *,
    p: float = 0.9,
    depth: int | None = None,
    method: RboMethod = "ext",
) -> Agreement:
    r"""Rank-biased overlap of two runs, per query (Webber, Moffat & Zobel, TOIS 2010).

    RBO weighs the overlap of the two rankings' prefixes, depth *d* by
    :math:`p^{d-1}`: with :math:`p = 0.9` the first 10 ranks carry 86% of
    the weight. Ties within a run are broken as everywhere in rankwise.

    Parameters
    ----------
    run_a, run_b : Run, path, frame or dict
        The two runs.
    p : float
        Persistence, :math:`0 < p < 1`.
    depth : int, optional
        Cut both rankings at this depth first (for ``repro_eval``: the depth of
        the sum, default 1000).
    method : {"ext", "truncated", "repro_eval"}
        ``ext``: Webber's extrapolated RBO (their Eq. 32, for lists of any
        lengths: the ``rbo`` package's ``rbo_ext``); ``truncated``:
        :math:`(1-p)\sum_{d \le k} p^{d-1} X_d/d` at the shorter length *k*,
        a lower bound (the ``rbo`` package's ``rbo()``); ``repro_eval``: that
        sum normalised by its weight, to *depth* (repro_eval 0.5.0, where two
        identical 8-document lists score 0.61 at the default depth 1000).

    Returns
    -------
    Agreement
        Over the queries of both runs (the others are said in ``notes``).

    Examples
    --------
    >>> a = {"q1": {d: 8.0 - i for i, d in enumerate("abcdefgh")}}
    >>> b = {"q1": {d: 8.0 - i for i, d in enumerate("bacdefhg")}}
    >>> round(rbo(a, b, p=0.9).mean, 10)  # Webber's extrapolation, as rbo.rbo_ext
    0.8924079857
    """
    check("method", method, _RBO_METHOD)
    from rankwise.stats.agreement import overlaps, rbo_from_overlaps

    depth = check("depth", depth, _DEPTH)
    first, second = _as_runs(run_a, run_b)
    cut = None if method == "repro_eval" else depth
    rankings = _rankings([first, second], cut)
    n = len(rankings.query_ids)
    length_a, length_b = rankings.lengths
    width = int(max(length_a.max(initial=0), length_b.max(initial=0)))
    if method == "repro_eval":
        width = min(width, depth if depth is not None else 1000)
    x = overlaps(*rankings.sides[0], *rankings.sides[1], n, max(width, 1))
    values = rbo_from_overlaps(x, length_a, length_b, p, method, depth)
    label = f"rbo(p={p:g}" + (f", depth={depth}" if depth else "") + (
        f", {method})" if method != "ext" else ")")
    return Agreement(label, tuple(rankings.query_ids), values,
                     _coverage_notes(rankings, [first.name, second.name]))


def ktu(run_a: Any, run_b: Any, *, depth: int | None = None) -> Agreement:
    """Kendall's tau union per query, as repro_eval computes it.

    See :func:`rankwise.stats.agreement.kendall_tau_union`; *depth* cuts both
    rankings first.

    Examples
    --------
    >>> a = {"q1": {d: 8.0 - i for i, d in enumerate("abcdefgh")}}
    >>> b = {"q1": {d: 8.0 - i for i, d in enumerate("bacdefhg")}}
    >>> round(ktu(a, b).mean, 12)
    0.857142857143
    """
    from rankwise.stats.agreement import kendall_tau_union

    depth = check("depth", depth, _DEPTH)
    first, second = _as_runs(run_a, run_b)
    rankings = _rankings([first, second], depth)
    values = kendall_tau_union(*rankings.sides[0], *rankings.sides[1],
                               len(rankings.query_ids))
    return Agreement("ktu", tuple(rankings.query_ids), values,
                     _coverage_notes(rankings, [first.name, second.name]))


# ----------------------------------------------------------------------------
# reproduce
# ----------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Reproduction(Tabular):
    r"""How well a reproduction reproduced, as repro_eval measures it.

    The runs are ``"advanced"`` (the method reproduced) and, when given,
    ``"baseline"`` (what it was compared with), each original and reproduced.

    Attributes
    ----------
    kind : {"reproducibility", "replicability"}
        The same topics (paired tests, KTU, RBO, RMSE), or another collection
        (unpaired tests, ER and :math:`\Delta RI` only).
    measures : tuple of str
    ktu, rbo : dict
        ``{"advanced": Agreement, "baseline": Agreement}`` (reproducibility).
    rmse, nrmse : dict
        ``{run: {measure: value}}``: :math:`\sqrt{\mathrm{mean}_j (o_j - r_j)^2}`
        over the original's topics, and that over
        :math:`\sqrt{\mathrm{mean}_j \max(o_j, 1 - o_j)^2}`.
    p_values : dict
        ``{run: {measure: p}}``: paired t-test of original vs reproduced
        (reproducibility) or Student's unpaired t-test (replicability).
    effect_ratio : dict
        ``{measure: ER}``, :math:`\mathrm{mean}(a_r - b_r) / \mathrm{mean}(a_o - b_o)`
        (with a baseline).
    delta_ri : dict
        ``{measure: RI_o - RI_r}`` with :math:`RI = (\bar a - \bar b) / \bar b`.
    notes : tuple of str
    """

    kind: str
    measures: tuple[str, ...]
    ktu: dict[str, Agreement] = field(default_factory=dict)
    rbo: dict[str, Agreement] = field(default_factory=dict)
    rmse: dict[str, dict[str, float]] = field(default_factory=dict)
    nrmse: dict[str, dict[str, float]] = field(default_factory=dict)
    p_values: dict[str, dict[str, float]] = field(default_factory=dict)
    effect_ratio: dict[str, float] = field(default_factory=dict)
    delta_ri: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def table(self) -> Table:
        """One row per measure and run: RMSE, nRMSE, p-value; ER and Delta RI on the advanced."""
        from rankwise.report.tables import Table

        table = Table(["measure", "run", "rmse", "nrmse", "p_value", "effect_ratio",
                       "delta_ri"], ["text", "text", "float", "float", "float", "float",
                                     "float"])
        for measure in self.measures:
            for run in self.p_values:
                table.rows.append([
                    measure, run,
                    self.rmse.get(run, {}).get(measure),
                    self.nrmse.get(run, {}).get(measure),
                    self.p_values[run].get(measure),
                    self.effect_ratio.get(measure) if run == "advanced" else None,
                    self.delta_ri.get(measure) if run == "advanced" else None,
                ])
        return table

    def _caption(self) -> str:
        return f"Reproduction({self.kind}, {counted(len(self.measures), 'measure')})"

    def to_table(self, fmt: str = "table", *, digits: int = 4) -> str:
        """The :meth:`table` as text; in the people formats, the mean KTU and RBO under it."""
        from rankwise.report.tables import render

        text = render(self.table(), fmt, digits=digits)
        if fmt in ("table", "markdown"):
            lines = [f"{kind} {run}: mean {item.mean:.{digits}f} over "
                     f"{counted(len(item.query_ids), 'topic')}"
                     for kind, items in (("KTU", self.ktu), (self.rbo_name, self.rbo))
                     for run, item in items.items()]
            text += "\n" + "\n".join([f"{self.kind}", *lines]) + "\n"
        return text

    @property
    def rbo_name(self) -> str:
        """The RBO variant computed (e.g. ``rbo(p=0.95, depth=1000, repro_eval)``)."""
        first = next(iter(self.rbo.values()), None)
        return first.name if first is not None else "rbo"

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain values (per-topic KTU and RBO as ``{topic: value}``)."""
        return {
            "kind": self.kind,
            "measures": list(self.measures),
            "ktu": {run: item.to_dict() for run, item in self.ktu.items()},
            "ktu_mean": {run: item.mean for run, item in self.ktu.items()},
            "rbo": {run: item.to_dict() for run, item in self.rbo.items()},
            "rbo_mean": {run: item.mean for run, item in self.rbo.items()},
            "rmse": self.rmse,
            "nrmse": self.nrmse,
            "p_values": self.p_values,
            "effect_ratio": self.effect_ratio,
            "delta_ri": self.delta_ri,
            "notes": list(self.notes),
        }


def _values(results: Any, measure: Measure, ids: Sequence[str]) -> np.ndarray:
    index = {q: i for i, q in enumerate(results.query_ids)}
    column = np.asarray(results[measure])
    return np.array([column[index[q]] if q in index else 0.0 for q in ids])


def reproduce(
    qrels: Any,
    original: Any,
    reproduced: Any,
    measures: str | Measure | Iterable[str | Measure] = DEFAULT_MEASURES,
    *,
    original_baseline: Any = None,
    reproduced_baseline: Any = None,
    qrels_reproduced: Any = None,
    p: float = 0.95,
    rbo_depth: int | None = 1000,
    rbo_method: RboMethod = "repro_eval",
    run_length: int = 1000,
    rel: float | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    columns: Mapping[str, str | None] | None = None,
    options: EvalOptions | None = None,
    engine: str | Engine | None = None,
    depth: Any = DEPRECATED,
) -> Reproduction:
    r"""Measure how well a run was reproduced (or replicated), as repro_eval 0.5.0 does.

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        The judgments of the original collection.
    original, reproduced : Run, path, frame or dict
        The run as published ("advanced") and its reproduction.
    measures : str, Measure or list
        Default :data:`DEFAULT_MEASURES` (repro_eval's trec_eval measures:
        note ``ndcg(gain=linear)``, trec_eval's gain).
    original_baseline, reproduced_baseline : optional
        The baseline the original was compared with, and its reproduction:
        needed for the effect ratio and :math:`\Delta RI` (and then measured
        like the advanced run).
    qrels_reproduced : optional
        Judgments of another collection the reproduction ran on:
        replicability. KTU, RBO and RMSE then do not apply, and the t-tests
        are unpaired.
    p, rbo_depth, rbo_method : float, int, str
        RBO's persistence and depth (repro_eval: 0.95 and 1000) and method
        (see :func:`rbo`; default repro_eval's truncated, normalised sum).
    run_length : int
        Each ranking is cut at this depth first, for every number
        (repro_eval's ``trim``, 1000).
    rel, missing, judged_only, ties, exclude_self, unjudged, columns, options, engine
        As in :func:`rankwise.evaluate`. The evaluation depth is *run_length*
        unless ``options`` sets one.
    depth : int
        Deprecated: the old name of *rbo_depth* (a ``FutureWarning``); in a
        future release ``depth=`` will be the evaluation depth, as in
        :func:`rankwise.evaluate`.

    Returns
    -------
    Reproduction

    Notes
    -----
    Where rankwise and repro_eval differ: lists of different lengths get a
    KTU over their common length (repro_eval raises); a t-test whose
    differences are all zero gives p = 1 (repro_eval: NaN unless all are);
    a topic of the original the reproduction lacks scores 0 there (said in
    ``notes``; repro_eval raises).

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> original = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"c": 2.0, "y": 1.0}}
    >>> again = {"q1": {"a": 3.0, "b": 2.0, "x": 1.0}, "q2": {"y": 2.0, "c": 1.0}}
    >>> result = reproduce(qrels, original, again, ["map", "P@1"])
    >>> round(result.ktu["advanced"].mean, 4), round(result.rmse["advanced"]["P@1"], 4)
    (-0.3333, 0.7071)
    """
    from rankwise.engines.core import prepare_measures
    from rankwise.evaluation import evaluate_runs

    rbo_depth = renamed("reproduce", "depth", "rbo_depth", depth, rbo_depth, 1000,
                        note=" (RBO's depth; depth= will be the evaluation depth, as in "
                             "evaluate)")
    run_length = check("run_length", run_length, POSITIVE_INT)
    rbo_depth = check("rbo_depth", rbo_depth, _DEPTH)
    check("p (the persistence)", p,
          PERSISTENCE_OR_ONE if rbo_method == "truncated" else PERSISTENCE)
    check("rbo_method", rbo_method, _RBO_METHOD)
    if (original_baseline is None) != (reproduced_baseline is None):
        raise InvalidParameterError(
            "give both original_baseline and reproduced_baseline, or neither"
        )
    chosen = options_from(
        options, rel=rel, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self, unjudged=unjudged, columns=columns,
    )
    if chosen.depth is None:
        chosen = chosen.replace(depth=run_length)
    parsed = prepare_measures(measures, chosen)
    replicability = qrels_reproduced is not None
    pairs = {"advanced": (original, reproduced)}
    if original_baseline is not None:
        pairs["baseline"] = (original_baseline, reproduced_baseline)
    notes: list[str] = []
    scores: dict[str, tuple[Any, Any]] = {}
    ktu_values: dict[str, Agreement] = {}
    rbo_values: dict[str, Agreement] = {}
    for label, (first, second) in pairs.items():
        original_run, reproduced_run = _as_runs(first, second)
        evaluated_original = evaluate_runs(qrels, {label: original_run}, parsed,
                                           options=chosen, engine=engine)[label]
        reproduced_qrels = qrels_reproduced if replicability else qrels
        evaluated_reproduced = evaluate_runs(reproduced_qrels, {label: reproduced_run}, parsed,
                                             options=chosen, engine=engine)[label]
        scores[label] = (evaluated_original, evaluated_reproduced)
        if not replicability:
            lacking = set(evaluated_original.query_ids) - set(evaluated_reproduced.query_ids)
            if lacking:
                notes.append(f"{label}: {counted(len(lacking), 'topic')} of the original "
                             f"{plural('is', len(lacking))} not in the reproduction (scored 0 "
                             "there)")
            ktu_values[label], rbo_values[label] = _orderings(
                original_run, reproduced_run, p, rbo_depth, rbo_method, run_length)
            notes.extend(f"{label} (KTU, RBO): {note}" for note in ktu_values[label].notes)
    rmse, nrmse, p_values, means = _errors_and_tests(scores, parsed, replicability)
    effect_ratio, delta_ri = _effects(scores, parsed, means)
    return Reproduction(
        kind="replicability" if replicability else "reproducibility",
        measures=tuple(str(m) for m in parsed),
        ktu=ktu_values, rbo=rbo_values, rmse=rmse, nrmse=nrmse, p_values=p_values,
        effect_ratio=effect_ratio, delta_ri=delta_ri, notes=tuple(notes),
    )


def _orderings(original: Run, reproduced: Run, p: float, rbo_depth: int | None,
               rbo_method: RboMethod, run_length: int) -> tuple[Agreement, Agreement]:
    """KTU and RBO of the reproduced rankings against the original ones, as repro_eval."""
    if rbo_method == "repro_eval":
        overlap = rbo(original, reproduced, p=p, depth=rbo_depth, method=rbo_method)
    else:
        overlap = rbo(original, reproduced, p=p, method=rbo_method,
                      depth=min(rbo_depth, run_length) if rbo_depth else run_length)
    return ktu(original, reproduced, depth=run_length), overlap


Scores = Mapping[str, tuple[Any, Any]]
"""Each pair's label -> (the original's results, the reproduction's)."""
Means = dict[str, dict[str, tuple[float, float]]]


def _errors_and_tests(scores: Scores, parsed: Sequence[Measure], replicability: bool
                      ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]],
                                 dict[str, dict[str, float]], Means]:
    """RMSE, nRMSE (reproducibility only), the t-test's p-value and both means, per measure."""
    from rankwise.stats.parametric import paired_t_test, unpaired_t_test

    rmse: dict[str, dict[str, float]] = {}
    nrmse: dict[str, dict[str, float]] = {}
    p_values: dict[str, dict[str, float]] = {}
    means: Means = {}
    for label, (first_scores, second_scores) in scores.items():
        p_values[label], means[label] = {}, {}
        if not replicability:
            rmse[label], nrmse[label] = {}, {}
        ids = first_scores.query_ids
        for measure in parsed:
            name = str(measure)
            o = np.asarray(first_scores[measure])
            if replicability:
                r = np.asarray(second_scores[measure])
                p_values[label][name] = unpaired_t_test(o, r)[1]
            else:
                r = _values(second_scores, measure, ids)
                error = math.sqrt(float(np.mean((o - r) ** 2))) if len(o) else math.nan
                scale = math.sqrt(float(np.mean(np.maximum(o, 1 - o) ** 2))) if len(o) else \
                    math.nan
                rmse[label][name] = error
                nrmse[label][name] = error / scale if scale else math.nan
                p_values[label][name] = float(paired_t_test(o, r).p_value)
            means[label][name] = (float(np.mean(o)) if len(o) else math.nan,
                                  float(np.mean(r)) if len(r) else math.nan)
    return rmse, nrmse, p_values, means


def _effects(scores: Scores, parsed: Sequence[Measure], means: Means
             ) -> tuple[dict[str, float], dict[str, float]]:
    """The effect ratio and delta RI of each measure, when a baseline was given (else empty)."""
    effect_ratio: dict[str, float] = {}
    delta_ri: dict[str, float] = {}
    if "baseline" not in scores:
        return effect_ratio, delta_ri
    (a_orig, a_rep), (b_orig, b_rep) = scores["advanced"], scores["baseline"]
    for measure in parsed:
        name = str(measure)
        orig_gain = _mean_improvement(a_orig, b_orig, measure)
        rep_gain = _mean_improvement(a_rep, b_rep, measure)
        with np.errstate(divide="ignore", invalid="ignore"):
            effect_ratio[name] = float(np.float64(rep_gain) / orig_gain)
            a_o, a_r = means["advanced"][name]
            b_o, b_r = means["baseline"][name]
            ri_orig = float((np.float64(a_o) - b_o) / b_o)
            ri_rep = float((np.float64(a_r) - b_r) / b_r)
        delta_ri[name] = ri_orig - ri_rep
    return effect_ratio, delta_ri


def _mean_improvement(advanced: Any, baseline: Any, measure: Measure) -> float:
    """Mean over the topics of both of (advanced - baseline)."""
    ids = [q for q in advanced.query_ids if q in set(baseline.query_ids)]
    if not ids:
        return math.nan
    return float(np.mean(_values(advanced, measure, ids) - _values(baseline, measure, ids)))


# ----------------------------------------------------------------------------
# how measures agree on the order of systems
# ----------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class MeasureAgreement(Tabular):
    r"""How pairs of measures agree on the order of a set of systems.

    Attributes
    ----------
    systems : tuple of str
    measures : tuple of str
    means : numpy.ndarray
        Shape ``(systems, measures)``: each system's mean.
    kendall, spearman : numpy.ndarray
        Shape ``(measures, measures)``: Kendall's :math:`\tau_b` and
        Spearman's :math:`\rho` between the columns of *means*.
    """

    systems: tuple[str, ...]
    measures: tuple[str, ...]
    means: np.ndarray
    kendall: np.ndarray
    spearman: np.ndarray

    def table(self) -> Table:
        """One row per pair of measures."""
        from rankwise.report.tables import Table

        table = Table(["measure_a", "measure_b", "kendall_tau", "spearman_rho"],
                      ["text", "text", "float", "float"])
        k = len(self.measures)
        for i in range(k):
            for j in range(i + 1, k):
                table.rows.append([self.measures[i], self.measures[j],
                                   float(self.kendall[i, j]), float(self.spearman[i, j])])
        return table

    def _caption(self) -> str:
        return (f"MeasureAgreement({counted(len(self.measures), 'measure')} over "
                f"{counted(len(self.systems), 'system')})")


def measure_agreement(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure],
    *,
    rel: float | None = None,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    columns: Mapping[str, str | None] | None = None,
    options: EvalOptions | None = None,
    engine: str | Engine | None = None,
) -> MeasureAgreement:
    r"""Kendall's :math:`\tau_b` and Spearman's :math:`\rho` between the system orders of measures.

    Each run is evaluated; each measure orders the systems by their means;
    two measures agree when they order them alike (Voorhees 2000; Sakai 2006
    uses Kendall's tau). Ties in the means are handled by :math:`\tau_b`
    and by average ranks (equal to :func:`scipy.stats.kendalltau` and
    :func:`scipy.stats.spearmanr`).

    Parameters
    ----------
    qrels, runs, measures
        As in :func:`rankwise.compare` (at least two runs).
    rel, depth, missing, judged_only, ties, exclude_self, unjudged, columns, options, engine
        As in :func:`rankwise.evaluate`.

    Returns
    -------
    MeasureAgreement

    Examples
    --------
    >>> qrels = {f"q{i}": {"a": 1, "b": 2} for i in range(3)}
    >>> runs = {"x": {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(3)},
    ...         "y": {f"q{i}": {"b": 2.0, "a": 1.0} for i in range(3)},
    ...         "z": {f"q{i}": {"c": 2.0, "b": 1.0} for i in range(3)}}
    >>> result = measure_agreement(qrels, runs, ["P@1", "ndcg@1"])
    >>> result.kendall[0, 1], result.spearman[0, 1]
    (np.float64(0.8164965809277261), np.float64(0.8660254037844387))
    """
    from rankwise.engines.core import prepare_measures
    from rankwise.evaluation import evaluate_runs
    from rankwise.stats.agreement import kendall_tau_b, spearman_rho

    chosen = options_from(
        options, rel=rel, depth=depth, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self, unjudged=unjudged, columns=columns,
    )
    parsed = prepare_measures(measures, chosen)
    results = evaluate_runs(qrels, runs, parsed, options=chosen, engine=engine)
    if len(results) < 2:
        raise InvalidParameterError(f"measure_agreement needs at least two runs, "
                                    f"got {len(results)}")
    names = [str(m) for m in parsed]
    means = np.array([[item.mean[name] for name in names] for item in results.values()])
    k = len(names)
    kendall, spearman = np.eye(k), np.eye(k)
    for i in range(k):
        for j in range(i + 1, k):
            kendall[i, j] = kendall[j, i] = kendall_tau_b(means[:, i], means[:, j])
            spearman[i, j] = spearman[j, i] = spearman_rho(means[:, i], means[:, j])
    return MeasureAgreement(tuple(results), tuple(names), means, kendall, spearman)
