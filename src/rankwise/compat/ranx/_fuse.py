"""ranx's ``fuse``, ``normalize`` and ``optimize_fusion``, over rankwise's fusion.

``optimize_fusion`` searches ranx's grids with ranx's rules (weights in steps
of 0.1 kept when they sum to exactly 1.0 in floating point, as ranx's filter
keeps them; a later setting replaces the best on an equal score), each trial
fused and evaluated by the drop-in, so the chosen parameters are ranx's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from typing import Any

import numpy as np

from rankwise.compat.ranx._evaluate import check_keys, evaluate
from rankwise.compat.ranx.data_structures import OptimizationReport, Qrels, Run
from rankwise.compat.ranx.fusion import (
    bayesfuse_train,
    comb_gmnz,
    fusion_switch,
    logn_isr,
    mapfuse_train,
    mixed,
    posfuse_train,
    probfuse,
    probfuse_train,
    rbc,
    rrf,
    segfuse_train,
    slidefuse,
    slidefuse_train,
    weighted_bordafuse,
    weighted_condorcet,
    wmnz,
    wsum,
)
from rankwise.compat.ranx.fusion._methods import same_queries
from rankwise.compat.ranx.normalization import norm_switch
from rankwise.exceptions import InvalidParameterError

__all__ = ["fuse", "normalize", "optimize_fusion"]


def _normalised(runs: Sequence[Run], norm: str | None) -> list[Run]:
    if norm is None:
        return list(runs)
    if norm == "borda":
        return list(norm_switch(norm)(list(runs)))
    return [norm_switch(norm)(run) for run in runs]


def normalize(run: Run, norm: str = "min-max") -> Run:
    """See :func:`rankwise.compat.ranx.normalize`."""
    normalised: Run = norm_switch(norm)(run)
    return normalised


def fuse(runs: Sequence[Run], norm: str | None = "min-max", method: str = "wsum",
         params: dict[str, Any] | None = None) -> Run:
    """See :func:`rankwise.compat.ranx.fuse`."""
    for index, run in enumerate(runs):
        if not isinstance(run, Run):  # ranx fails on .name; a clear word instead
            from rankwise.exceptions import InvalidParameterError

            raise InvalidParameterError(
                f"fuse takes ranx Runs; run {index} is a {type(run).__name__}: wrap it as "
                "Run(...)")
    same_queries(runs)
    fused: Run = fusion_switch(method)(_normalised(runs, norm), **(params or {}))
    return fused


# the grids and searches ---------------------------------------------------------------
def _grid(low: float, high: float, step: float) -> list[float]:
    digits = str(step)[::-1].find(".")
    return [round(x, digits) for x in np.arange(low, high + step, step)]


def _weights(n_runs: int, step: float) -> list[tuple[float, ...]]:
    return [seq for seq in product(_grid(0, 1, step), repeat=n_runs) if sum(seq) == 1.0]


def _search(qrels: Qrels, trials: Sequence[Any], fused: Callable[[Any], Run], metric: str
            ) -> tuple[Any, dict[str, Any]]:
    best_score: Any = 0.0
    best: Any = []
    report: dict[str, Any] = {}
    for trial in trials:
        score = evaluate(qrels, fused(trial), metric, save_results_in_run=False)
        report[str(trial)] = score
        if score >= best_score:
            best_score, best = score, trial
    return best, report


_WEIGHTED: dict[str, Callable[..., Run]] = {
    "wsum": wsum, "wmnz": wmnz, "mixed": mixed, "w_bordafuse": weighted_bordafuse,
    "w_condorcet": weighted_condorcet}
_ONE_PARAMETER: dict[str, tuple[str, Callable[..., Run]]] = {
    "rrf": ("k", rrf), "gmnz": ("gamma", comb_gmnz), "logn_isr": ("sigma", logn_isr),
    "rbc": ("phi", rbc)}
_TRAINED: dict[str, tuple[str, Callable[..., Any]]] = {
    "bayesfuse": ("log_odds", bayesfuse_train), "mapfuse": ("map_scores", mapfuse_train),
    "posfuse": ("probs", posfuse_train), "segfuse": ("probs", segfuse_train)}


def _optimize(qrels: Qrels, runs: list[Run], method: str, metric: str, options: dict[str, Any]
              ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The best parameters of *method* and every trial's score (None: nothing searched)."""
    if method in _TRAINED:
        key, train = _TRAINED[method]
        return {key: train(qrels, runs)}, None
    if method in _WEIGHTED:
        weighted = _WEIGHTED[method]
        best, report = _search(qrels, _weights(len(runs), options.get("step", 0.1)),
                               lambda weights: weighted(runs, weights), metric)
        return {"weights": best}, report
    if method in _ONE_PARAMETER:
        key, function = _ONE_PARAMETER[method]
        if method == "rrf":
            trials: list[Any] = list(range(options.get("min_k", 10), options.get("max_k", 100) + 1,
                                           options.get("step", 10)))
        else:
            trials = _grid(options.get(f"min_{key}", 0.01), options.get(f"max_{key}", 1.0),
                           options.get("step", 0.01))
        best, report = _search(qrels, trials, lambda value: function(runs, value), metric)
        return {key: best}, report
    if method == "probfuse":
        trials = list(range(options.get("min_n_segments", 1),
                            options.get("max_n_segments", 100) + 1))
        learned = {n: probfuse_train(qrels, runs, n) for n in trials}
        best, report = _search(qrels, trials, lambda n: probfuse(runs, learned[n]), metric)
        return {"probs": learned[best] if best != [] else None}, report
    if method == "slidefuse":
        probs = slidefuse_train(qrels, runs)
        trials = list(range(options.get("min_w", 1), options.get("max_w", 100) + 1))
        best, report = _search(qrels, trials, lambda w: slidefuse(runs, probs, w), metric)
        return {"probs": probs, "w": best}, report
    raise InvalidParameterError(
        f"{method} does not support optimization: the methods with parameters to search are "
        f"{', '.join([*_WEIGHTED, *_ONE_PARAMETER, 'probfuse', 'slidefuse'])}, and "
        f"{', '.join(_TRAINED)} learn theirs")


def optimize_fusion(qrels: Qrels, runs: Sequence[Run], norm: str | None = "min-max",
                    method: str = "wsum", metric: str = "ndcg",
                    return_optimization_report: bool = False, rounding_digits: int = 3,
                    show_percentages: bool = False, **kwargs: Any) -> Any:
    """See :func:`rankwise.compat.ranx.optimize_fusion`."""
    kwargs.pop("show_progress", None)  # ranx draws a progress bar; the drop-in does not
    kwargs.pop("description", None)
    same_queries(runs)
    for run in runs:
        check_keys(qrels, run)
    best, report = _optimize(qrels, _normalised(runs, norm), method, metric, kwargs)
    if not return_optimization_report:
        return best
    if report is None:
        raise InvalidParameterError(f"{method} does not support optimization report.")
    return best, OptimizationReport(method=method, configs=list(report),
                                    results=list(report.values()), metric=metric,
                                    rounding_digits=rounding_digits,
                                    show_percentages=show_percentages)
