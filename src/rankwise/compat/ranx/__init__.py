"""A drop-in for ranx 0.3: ``from rankwise.compat.ranx import Qrels, Run, evaluate, ...``.

ranx's public API with ranx's names, arguments, output types and numbers,
computed by rankwise: :class:`Qrels` and :class:`Run` (their constructors,
readers, writers and properties), :func:`evaluate`, :func:`compare` and its
:class:`Report`, :func:`fuse`, :func:`normalize` and :func:`optimize_fusion`;
the submodules ranx's users import (``metrics``, ``fusion``,
``normalization``, ``data_structures``) too.

ranx ranks each query's documents by score with numba's quicksort, which
keeps tied documents in their order up to 15 documents only, sorts a run
again after ``make_comparable``, and evaluates that order. The drop-in keeps
the same order (:mod:`rankwise.compat.ranx._table`), so its values are
ranx's, ties beyond 15 documents included; docs/compat.md lists where they
differ (ranx's defects, its arrays' duplicates, random permutations).

Examples
--------
>>> from rankwise.compat.ranx import Qrels, Run, evaluate
>>> qrels = Qrels({"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}})
>>> run = Run({"q_1": {"d_12": 0.9, "d_23": 0.8, "d_25": 0.7},
...            "q_2": {"d_12": 0.9, "d_11": 0.8, "d_22": 0.7}}, name="bm25")
>>> evaluate(qrels, run, ["map@5", "mrr"])
{'map@5': np.float64(0.7083333333333333), 'mrr': np.float64(0.75)}
>>> run.scores["mrr"]
{'q_1': np.float64(1.0), 'q_2': np.float64(0.5)}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rankwise.compat.ranx import _compare, _evaluate, _fuse
from rankwise.compat.ranx import metrics as _metrics  # noqa: F401 (ranx.metrics, as in ranx)
from rankwise.compat.ranx.data_structures import OptimizationReport, Qrels, Report, Run

__all__ = ["OptimizationReport", "Qrels", "Report", "Run", "compare", "evaluate", "fuse",
           "normalize", "optimize_fusion"]


def evaluate(qrels: Any, run: Any, metrics: str | Sequence[str], return_mean: bool = True,
             return_std: bool = False, threads: int = 0, save_results_in_run: bool = True,
             make_comparable: bool = False) -> Any:
    """Compute metrics for a run, as ranx's ``evaluate``.

    Parameters
    ----------
    qrels : Qrels, dict, or ranx's arrays
        The judgments: a :class:`Qrels`, ``{query: {doc: grade}}``, or per
        query an ``(n, 2)`` array of ``[doc_id, grade]`` rows.
    run : Run, dict, or ranx's arrays
        The run, in the same form (arrays: rows in rank order).
    metrics : str or list of str
        ranx's metric names: ``hits@k`` (relevant documents in the top k),
        ``hit_rate@k``, ``precision@k``, ``recall@k``, ``f1@k``,
        ``r-precision``, ``mrr@k``, ``map@k``, ``dcg@k``, ``dcg_burges@k``,
        ``ndcg@k``, ``ndcg_burges@k``, ``bpref``, ``rbp.95``; ``@k`` absent
        or 0: the whole list; ``-lN`` sets the relevance level
        (``ndcg@10-l2``). See :mod:`rankwise.compat.ranx._names`.
    return_mean : bool
        Means (``numpy.float64``); else the per-query values (numpy arrays,
        in the judgments' query order).
    return_std : bool
        With the means, ``{"mean": ..., "std": ...}`` per metric.
    threads : int
        Accepted for ranx's signature; rankwise chooses its threads.
    save_results_in_run : bool
        Store the values in ``run.scores``, ``run.mean_scores`` (and
        ``run.std_scores``) when *run* is a :class:`Run`.
    make_comparable : bool
        Give the run an empty ranking for each judged query it lacks and
        drop the queries the judgments lack (in place, sorting it again, as
        ranx); without it, the queries must be the same.

    Returns
    -------
    numpy.float64, dict, numpy.ndarray
        One metric: its mean (or values, or ``{"mean", "std"}``); several: a
        dict of them by metric name.

    Raises
    ------
    InputFormatError
        The judgments' and the run's queries differ (without
        *make_comparable*), or the inputs are not of ranx's forms.
    UnknownMeasureError
        A metric ranx does not have.

    Examples
    --------
    >>> import numpy as np
    >>> qrels = {"q1": {"a": 2, "b": 1}}
    >>> evaluate(qrels, {"q1": {"a": 1.0, "b": 1.0, "c": 2.0}}, ["ndcg@3", "mrr"],
    ...          return_mean=False)  # a plain dict's ties come in reverse order, as in ranx
    {'ndcg@3': array([0.61990623]), 'mrr': array([0.5])}
    >>> evaluate([np.array([[1, 1]])], [np.array([[2, 1], [1, 1]])], "mrr")
    np.float64(0.5)
    """
    return _evaluate.evaluate(qrels, run, metrics, return_mean=return_mean,
                              return_std=return_std, threads=threads,
                              save_results_in_run=save_results_in_run,
                              make_comparable=make_comparable)


def compare(qrels: Qrels, runs: Sequence[Run], metrics: str | Sequence[str],
            stat_test: str = "student", n_permutations: int = 1000, max_p: float = 0.01,
            random_seed: int = 42, threads: int = 0, rounding_digits: int = 3,
            show_percentages: bool = False, make_comparable: bool = False) -> Report:
    """Evaluate runs and test every pair, as ranx's ``compare``.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    runs : list of Run
        Named by ``run.name`` (``run_1``, ``run_2``, ... when None).
    metrics : str or list of str
        ranx's metric names (see :func:`evaluate`).
    stat_test : {"student", "fisher", "tukey"}
        The paired t-test, Fisher's randomization test (*n_permutations*,
        *random_seed*), or ranx's one-way Tukey HSD (see
        :mod:`rankwise.compat.ranx._compare`).
    n_permutations : int
        The sign flips of Fisher's test.
    max_p : float
        A difference is significant at p <= *max_p*.
    random_seed : int
        The seed of Fisher's test.
    threads : int
        Accepted for ranx's signature.
    rounding_digits, show_percentages
        How the report shows the means.
    make_comparable : bool
        As in :func:`evaluate`, for every run.

    Returns
    -------
    Report
        ``print(report)``, ``report.to_latex()`` (superscript letters: the
        models a score beats significantly), ``report.to_dict()``,
        ``report.to_dataframe()``, ``report.save(path)``.

    Examples
    --------
    >>> qrels = Qrels({f"q{i}": {"a": 1} for i in range(4)})
    >>> good = Run({f"q{i}": {"a": 2.0, "b": 1.0} for i in range(4)}, name="good")
    >>> bad = Run({f"q{i}": {"a": 1.0, "b": 2.0} for i in range(4)}, name="bad")
    >>> print(compare(qrels, [good, bad], ["mrr", "precision@1"]))
    #    Model    MRR     P@1
    ---  -------  ------  ------
    a    good     1.000ᵇ  1.000ᵇ
    b    bad      0.500   0.000
    """
    return _compare.compare(qrels, runs, metrics, stat_test=stat_test,
                            n_permutations=n_permutations, max_p=max_p,
                            random_seed=random_seed, threads=threads,
                            rounding_digits=rounding_digits,
                            show_percentages=show_percentages, make_comparable=make_comparable)


def fuse(runs: Sequence[Run], norm: str | None = "min-max", method: str = "wsum",
         params: dict[str, Any] | None = None) -> Run:
    """Fuse runs into one, as ranx's ``fuse`` (rankwise's fusion, ranx's ranks).

    Parameters
    ----------
    runs : list of Run
        Two or more runs of the same queries.
    norm : str or None
        ``min-max`` (default), ``min-max-inverted``, ``max``, ``sum``,
        ``zmuv``, ``rank``, ``borda``, or None.
    method : str
        ranx's method: ``wsum`` (default), ``rrf``, ``sum``, ``mnz``,
        ``anz``, ``max``, ``min``, ``med``, ``gmnz``, ``wmnz``, ``mixed``,
        ``isr``, ``log_isr``, ``logn_isr``, ``bordafuse``, ``w_bordafuse``,
        ``condorcet``, ``w_condorcet``, ``rbc``, ``posfuse``, ``probfuse``,
        ``segfuse``, ``slidefuse``, ``mapfuse``, ``bayesfuse``.
    params : dict, optional
        The method's parameters (``{"weights": [0.3, 0.7]}``, ``{"k": 60}``, ...).

    Returns
    -------
    Run
        Named after the method (``"rrf"``, ``"weighted_sum"``, ...), sorted.

    Examples
    --------
    >>> bm25 = Run({"q1": {"d1": 12.0, "d2": 9.5, "d3": 7.0}})
    >>> dense = Run({"q1": {"d3": 0.91, "d1": 0.85, "d4": 0.80}})
    >>> fused = fuse([bm25, dense], norm=None, method="rrf")
    >>> fused.name, [doc for doc in fused["q1"]]
    ('rrf', ['d1', 'd3', 'd2', 'd4'])
    """
    return _fuse.fuse(runs, norm=norm, method=method, params=params)


def normalize(run: Run, norm: str = "min-max") -> Run:
    """A run with its scores normalised per query (ranx's ``normalize``).

    Examples
    --------
    >>> normalize(Run({"q1": {"d1": 2.0, "d2": 4.0}}), "max").run
    {'q1': {'d2': 1.0, 'd1': 0.5}}
    """
    return _fuse.normalize(run, norm)


def optimize_fusion(qrels: Qrels, runs: Sequence[Run], norm: str | None = "min-max",
                    method: str = "wsum", metric: str = "ndcg",
                    return_optimization_report: bool = False, rounding_digits: int = 3,
                    show_percentages: bool = False, **kwargs: Any) -> Any:
    """Search a fusion method's parameters on a metric, as ranx's ``optimize_fusion``.

    The grids and rules are ranx's (weights in steps of 0.1 summing to 1,
    rrf's k in 10..100, gamma, sigma and phi in 0.01..1, probfuse's segments
    and slidefuse's window in 1..100; a later setting wins a tie); the
    supervised methods (posfuse, segfuse, mapfuse, bayesfuse) return what
    they learn. ``**kwargs`` change a grid (``step``, ``min_k``, ``max_k``, ...).

    Returns
    -------
    dict, or (dict, OptimizationReport)
        The best parameters (``{"weights": (0.3, 0.7)}``), and with
        *return_optimization_report* every trial's score.

    Examples
    --------
    >>> qrels = Qrels({"q1": {"d3": 1}})
    >>> bm25 = Run({"q1": {"d1": 12.0, "d2": 9.5, "d3": 7.0}})
    >>> dense = Run({"q1": {"d3": 0.91, "d1": 0.85, "d4": 0.80}})
    >>> optimize_fusion(qrels, [bm25, dense], method="wsum", metric="precision@1")
    {'weights': (np.float64(0.3), np.float64(0.7))}
    """
    return _fuse.optimize_fusion(qrels, runs, norm=norm, method=method, metric=metric,
                                 return_optimization_report=return_optimization_report,
                                 rounding_digits=rounding_digits,
                                 show_percentages=show_percentages, **kwargs)
