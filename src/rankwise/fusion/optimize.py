"""``optimize_fusion``: search a fusion method's parameters on a measure, with cross-validation.

The grids are ranx's (``ranx.optimize_fusion``): weights in steps of 0.1
that sum to 1 (all of them: counted in whole steps, so none is lost to
floating-point sums, as some are in ranx), rrf's k in 10, 20, ..., 100,
gmnz's gamma, logn_isr's sigma and rbc's phi in 0.01, 0.02, ..., 1,
probfuse's segments and slidefuse's window in 1..100. The supervised
methods learn what they learn on the training queries. Among equal scores
the first parameters in grid order win (ranx keeps the last).

With ``folds=k`` the judged queries are split into k folds (by the seed);
each fold is evaluated with the parameters chosen on the other folds, so
its :class:`~rankwise.Results` say how the method does on queries it was
not tuned on.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._tabular import Tabular
from rankwise._validation import NON_NEGATIVE_INT, Integer, Number, check, optional, reject
from rankwise.engines.core import prepare_measures
from rankwise.engines.numpy import NumpyEngine
from rankwise.exceptions import InvalidParameterError
from rankwise.fusion import as_runs, fused_run, fusion_options
from rankwise.fusion.align import Aligned, align
from rankwise.fusion.methods import METHODS, Method, check_params, fused_scores, resolve_method
from rankwise.fusion.normalise import normalise, resolve_norm
from rankwise.fusion.training import train
from rankwise.options import (
    EvalOptions,
    FusionMethod,
    FusionOptions,
    Missing,
    Normalisation,
    Ties,
    Unjudged,
    check_fusion_params,
    options_from,
    split_options,
)
from rankwise.results import Results

if TYPE_CHECKING:
    from rankwise.report.tables import Table

__all__ = ["FoldResult", "FusionOptimization", "default_grid", "optimize_fusion"]

_WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
_UNIT_GRID = [round(0.01 * i, 2) for i in range(1, 101)]
_STEP = Number(0, 1, closed="right")


def weight_grid(n_runs: int, step: float = 0.1) -> list[tuple[float, ...]]:
    """Every n-tuple of multiples of *step* that sums to 1 (counted in whole steps).

    Examples
    --------
    >>> len(weight_grid(3)), weight_grid(2, 0.5)
    (66, [(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)])
    """
    step = check("step", step, _STEP)
    units = round(1.0 / step)
    if abs(units * step - 1.0) > 1e-9:
        reject("step", step, "a number in (0, 1] that divides 1 into whole steps",
               remedy="e.g. 0.1, 0.05 or 0.25")
    out = []
    for combination in itertools.product(range(units + 1), repeat=n_runs):
        if sum(combination) == units:
            out.append(tuple(round(c / units, 10) for c in combination))
    return out


def default_grid(method: str, n_runs: int, *, step: float = 0.1) -> dict[str, list[Any]]:
    """The parameters *method* is searched over (empty: nothing to search).

    Examples
    --------
    >>> default_grid("rrf", 2)["k"][:3]
    [10, 20, 30]
    """
    name = resolve_method(method).name
    if name in _WEIGHTED:
        return {"weights": [list(w) for w in weight_grid(n_runs, step)]}
    grids: dict[str, dict[str, list[Any]]] = {
        "rrf": {"k": list(range(10, 101, 10))},
        "gmnz": {"gamma": _UNIT_GRID},
        "logn_isr": {"sigma": _UNIT_GRID},
        "rbc": {"phi": _UNIT_GRID},
        "probfuse": {"n_segments": list(range(1, 101))},
        "slidefuse": {"w": list(range(1, 101))},
    }
    return grids.get(name, {})


@dataclass(frozen=True)
class FoldResult:
    """One fold of a cross-validation: parameters chosen on the other folds, results on this one."""

    queries: list[str]
    params: dict[str, Any]
    train_score: float
    results: Results


@dataclass(frozen=True, repr=False)
class FusionOptimization(Tabular):
    """What :func:`optimize_fusion` found.

    Its :meth:`table` is one row per parameter setting tried, with its score;
    like every result it has ``to_dict``, ``to_pandas``, ``to_polars``,
    ``to_table``, shows as a table in a notebook and pickles.

    Attributes
    ----------
    method, norm, measure : str
    params : dict
        The best parameters on all judged queries (pass them to :func:`rankwise.fuse`).
    score : float
        The measure's mean with them.
    trials : list of (dict, float)
        Every parameter setting tried on all queries, with its score, in grid order.
    folds : list of FoldResult
        With ``folds=k``: per fold, the parameters chosen on the other folds
        and the :class:`~rankwise.Results` on this fold.
    """

    method: str
    norm: str | None
    measure: str
    params: dict[str, Any]
    score: float
    trials: list[tuple[dict[str, Any], float]] = field(default_factory=list)
    folds: list[FoldResult] = field(default_factory=list)

    def table(self) -> Table:
        """One row per setting tried on all queries: its parameters, then the measure's mean."""
        from rankwise.report.tables import Table

        names = list(dict.fromkeys(name for params, _ in self.trials for name in params))
        kinds = ["float" if all(isinstance(params.get(name), (int, float)) and
                                not isinstance(params.get(name), bool)
                                for params, _ in self.trials) else "text" for name in names]
        table = Table([*names, self.measure], [*kinds, "float"])
        for params, score in self.trials:
            table.rows.append([
                params.get(name) if kind == "float" else _text(params.get(name))
                for name, kind in zip(names, kinds)
            ] + [score])
        return table

    def _caption(self) -> str:
        shown = ", ".join(f"{k}={_text(v)}" for k, v in self.params.items())
        return (f"FusionOptimization({self.method}, {self.measure} = {self.score:.4f} "
                f"with {shown or 'the defaults'})")

    @property
    def cross_validated_mean(self) -> float:
        """The measure's mean over all folds' queries, each with its out-of-fold parameters."""
        values = np.concatenate([fold.results[self.measure] for fold in self.folds])
        return float(values.mean()) if len(values) else float("nan")


def _text(value: Any) -> str | None:
    """A parameter's value as table text (None stays missing)."""
    if value is None:
        return None
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_text(v) or "" for v in value) + "]"
    return str(value)


class _Search:
    """One alignment of the runs, fused and evaluated under many parameter settings."""

    def __init__(self, view: Aligned, method: Method, measure: Any, options: EvalOptions) -> None:
        self.view = view
        self.method = method
        self.measure = measure
        self.options = options
        self.engine = NumpyEngine()

    def evaluate(self, params: dict[str, Any], qrels: Any) -> Results:
        run = fused_run(self.view, fused_scores(self.view, self.method, params), self.method.name)
        return self.engine.evaluate(qrels, run, [self.measure], self.options)

    def score(self, params: dict[str, Any], qrels: Any) -> float:
        return float(self.evaluate(params, qrels).mean[str(self.measure)])


def _settings(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def _subset_qrels(qrels: Any, queries: Iterable[str]) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data import Qrels

    table = qrels.to_arrow()
    keep = pc.is_in(table["query_id"], value_set=pa.array(list(queries), pa.string()))
    kept = table.filter(keep)
    return Qrels.from_arrow(kept["query_id"], kept["doc_id"], kept["relevance"])


def _best(
    search: _Search, settings: list[dict[str, Any]], fixed: dict[str, Any], qrels: Any,
    runs: list[Any], trials: list[tuple[dict[str, Any], float]] | None = None,
) -> tuple[dict[str, Any], float]:
    best: tuple[dict[str, Any], float] | None = None
    method = search.method
    for setting in settings:
        params = check_params(method, {**fixed, **setting})
        if method.learns is not None and fixed.get(method.learns) is None:
            params.update(train(method.name, qrels, runs, n_segments=params.get("n_segments")))
        score = search.score(params, qrels)
        shown = {key: params[key] for key in setting}
        if method.learns is not None and method.learns not in setting:
            shown[method.learns] = params[method.learns]
        if trials is not None:
            trials.append((shown, score))
        if best is None or score > best[1]:
            best = (shown, score)
    return best  # type: ignore[return-value]


def optimize_fusion(
    qrels: Any,
    runs: Any,
    method: FusionMethod = "wsum",
    *,
    measure: str = "ndcg@10",
    norm: Normalisation | None = None,
    grid: Mapping[str, Sequence[Any]] | None = None,
    step: float = 0.1,
    folds: int | None = None,
    seed: int = 0,
    rel: float | None = None,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    columns: Mapping[str, str | None] | None = None,
    options: EvalOptions | FusionOptions | tuple[EvalOptions | FusionOptions, ...]
    | None = None,
    **fixed: Any,
) -> FusionOptimization:
    """Search *method*'s parameters for the best mean of *measure*.

    Parameters
    ----------
    qrels : judgments
        Any form :func:`rankwise.evaluate` takes.
    runs : list or dict of runs
        The runs to fuse, as for :func:`rankwise.fuse`.
    method : str
        A fusion method with something to search or learn (``wsum``,
        ``rrf``, ``rbc``, ``probfuse``, ``posfuse``, ...).
    measure : str
        What to maximise, e.g. ``"ndcg@10"`` or ``"map"``.
    norm : str, optional
        Normalisation before fusing, as for :func:`rankwise.fuse`.
    grid : dict, optional
        ``{parameter: values}`` instead of the default grid.
    step : float
        Step of the weight grid (default 0.1).
    folds : int, optional
        Cross-validate over this many folds of the judged queries.
    seed : int
        Seed of the split into folds.
    rel, depth, missing, judged_only, ties, exclude_self, unjudged, columns
        Options of the evaluation, as in :func:`rankwise.evaluate`.
    options : EvalOptions, FusionOptions, or a tuple of both, optional
        The evaluation's options and the fusion's (its method, normalisation
        and parameters held fixed) at once; keywords given as well override them.
    **fixed
        Parameters held fixed (e.g. ``k=60`` while searching nothing else).

    Returns
    -------
    FusionOptimization

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"d2": 1}, "q2": {"d2": 1}}
    >>> a = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 2.0, "d2": 1.0}}
    >>> b = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d2": 2.0, "d1": 1.0}}
    >>> found = rw.optimize_fusion(qrels, [a, b], "wsum", measure="P@1", step=0.5)
    >>> found.params, found.score, [score for _, score in found.trials]
    ({'weights': [0.0, 1.0]}, 1.0, [1.0, 1.0, 0.0])
    """
    given_evaluation, given_fusion = split_options(options, EvalOptions, FusionOptions)
    evaluation = options_from(
        given_evaluation, rel=rel, depth=depth, missing=missing, judged_only=judged_only,
        ties=ties, exclude_self=exclude_self, unjudged=unjudged, columns=columns,
    )
    if given_fusion is not None and method == "wsum":  # this function's default method
        method = given_fusion.method
    fusion = fusion_options(given_fusion, method=method, norm=norm, weights=None, params=fixed)
    check("folds", folds, optional(Integer(low=2)))
    check("seed", seed, NON_NEGATIVE_INT)
    chosen = METHODS[fusion.method]
    norm = fusion.norm
    fixed = fusion.values()
    loaded = as_runs(runs)
    if len(loaded) < 2:
        raise InvalidParameterError(f"fusion needs at least two runs, got {len(loaded)}")
    measures = prepare_measures([measure], evaluation)
    if len(measures) != 1:
        raise InvalidParameterError(f"optimize one measure at a time, got {measure!r}")
    from rankwise.io.coerce import as_qrels

    judgments = as_qrels(qrels)
    space = dict(grid) if grid is not None else default_grid(chosen.name, len(loaded), step=step)
    check_fusion_params(chosen.name, dict.fromkeys(space))  # names only: values are searched
    if not space and chosen.learns is None:
        raise InvalidParameterError(
            f"fusion method {chosen.name!r} has nothing to search or learn; "
            "fuse it with rankwise.fuse"
        )
    settings = _settings(space) if space else [{}]
    search = _Search(normalise(align(loaded), resolve_norm(norm)), chosen, measures[0],
                     evaluation)
    trials: list[tuple[dict[str, Any], float]] = []
    params, score = _best(search, settings, fixed, judgments, loaded, trials)
    fold_results: list[FoldResult] = []
    if folds is not None:
        fold_results = _cross_validate(search, settings, fixed, judgments, loaded, folds, seed)
    return FusionOptimization(
        chosen.name, resolve_norm(norm), str(measures[0]), params, score, trials, fold_results
    )


def _cross_validate(
    search: _Search, settings: list[dict[str, Any]], fixed: dict[str, Any], qrels: Any,
    runs: list[Any], folds: int, seed: int,
) -> list[FoldResult]:
    retrieved = set(search.view.query_ids)
    # the queries the measure's mean counts: with missing="zero" the judged queries no run
    # retrieved too (scored 0), as in the search over all queries
    every = search.options.missing == "zero"
    judged = sorted(q for q in qrels.query_ids if every or q in retrieved)
    if len(judged) < folds:
        raise InvalidParameterError(
            f"{folds} folds need at least {folds} judged queries"
            f"{'' if every else ' the runs retrieved'}, got {len(judged)}"
        )
    order = np.random.default_rng(seed).permutation(len(judged))
    parts = [sorted(judged[i] for i in order[f::folds]) for f in range(folds)]
    out = []
    for f, held_out in enumerate(parts):
        training = [q for g, part in enumerate(parts) if g != f for q in part]
        train_qrels = _subset_qrels(qrels, training)
        params, train_score = _best(search, settings, fixed, train_qrels, runs)
        full = check_params(search.method, {**fixed, **params})
        results = search.evaluate(full, _subset_qrels(qrels, held_out))
        out.append(FoldResult(held_out, params, train_score, results))
    return out
