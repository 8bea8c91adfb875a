"""Rank fusion and score normalisation: several runs in, one :class:`~rankwise.Run` out.

:func:`fuse` combines runs with ranx's methods and normalisations (ranx's
names and definitions; ``combsum``, ``combmnz``, ... are accepted too),
vectorised over all queries. The fused run holds every candidate (the union
of the documents the runs retrieved for each query) and goes straight into
:func:`rankwise.evaluate`, :func:`rankwise.compare` or the report; written
with :meth:`Run.to_trec`, its ties are ordered as trec_eval orders them.
:func:`rankwise.optimize_fusion` searches a method's parameters on a measure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankwise._validation import reject
from rankwise._wording import counted
from rankwise.data import Run
from rankwise.exceptions import InvalidParameterError
from rankwise.fusion.align import Aligned, align, document_ids
from rankwise.fusion.align import align as _align
from rankwise.fusion.methods import ALIASES, METHODS, fused_scores, one_pass
from rankwise.fusion.normalise import NORMALISATIONS, resolve_norm
from rankwise.fusion.normalise import normalise as _normalise

# ``align`` and ``normalise`` are also the names of this package's modules: an
# import of the module (pytest's importlib mode does one) sets the package's
# attribute to the module. Calls here go through private names it leaves alone.
from rankwise.fusion.training import train
from rankwise.options import FusionMethod, FusionOptions, Normalisation, merged

__all__ = [
    "ALIASES",
    "METHODS",
    "NORMALISATIONS",
    "Aligned",
    "FusionOptions",
    "align",
    "as_runs",
    "fuse",
    "fused_run",
    "fusion_options",
    "normalise_runs",
    "train",
]


def as_runs(runs: Any) -> list[Run]:
    """Runs from any run inputs: Run objects, paths, frames, dicts; a dict of them is named."""
    from rankwise.io.coerce import as_run

    if isinstance(runs, Mapping) and runs and all(
        isinstance(value, (Run, str, dict)) or hasattr(value, "__fspath__")
        or hasattr(value, "columns") or hasattr(value, "schema")
        for value in runs.values()
    ) and not _looks_like_a_run_dict(runs):
        return [as_run(run, name=str(name)) for name, run in runs.items()]
    if isinstance(runs, (str, Run)) or not isinstance(runs, Sequence):
        reject("runs", runs, "a list of runs (Run objects, paths, frames or dicts) or a dict "
                             "{name: run}")
    return [as_run(run) for run in runs]


def _looks_like_a_run_dict(value: Mapping[Any, Any]) -> bool:
    """``{query: {doc: score}}`` (one run), not ``{name: run}``."""
    first = next(iter(value.values()))
    return isinstance(first, dict) and all(
        isinstance(score, (int, float)) and not isinstance(score, bool)
        for score in first.values()
    )


def fuse(
    runs: Any,
    method: FusionMethod = "rrf",
    *,
    norm: Normalisation | None = None,
    weights: Sequence[float] | None = None,
    qrels: Any = None,
    train_runs: Any = None,
    name: str | None = None,
    options: FusionOptions | None = None,
    **params: Any,
) -> Run:
    """Fuse runs into one.

    Parameters
    ----------
    runs : list or dict of runs
        Two or more runs: :class:`~rankwise.Run` objects, paths, frames or
        dicts ``{query: {doc: score}}`` (a dict ``{name: run}`` names them).
        Queries are the union of the runs' queries.
    method : str
        ``rrf`` (default), ``isr``, ``log_isr``, ``logn_isr``, ``sum``,
        ``mnz``, ``anz``, ``max``, ``min``, ``med``, ``gmnz``, ``wsum``,
        ``wmnz``, ``mixed``, ``bordafuse``, ``w_bordafuse``, ``condorcet``,
        ``w_condorcet``, ``rbc``, ``posfuse``, ``probfuse``, ``segfuse``,
        ``slidefuse``, ``mapfuse``, ``bayesfuse``; ``combsum``,
        ``combmnz``, ... are accepted as aliases. See
        :mod:`rankwise.fusion.methods` for each formula and its rule for a
        document some runs did not retrieve.
    norm : str, optional
        Normalise each run's scores per query first: ``min-max``,
        ``min-max-inverted``, ``max``, ``sum``, ``zmuv``, ``rank``,
        ``borda`` (default: none; ranx's default is min-max).
    weights : sequence of float, optional
        One per run, for ``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``,
        ``w_condorcet``.
    qrels : judgments, optional
        For the supervised methods (posfuse, probfuse, segfuse, slidefuse,
        mapfuse, bayesfuse): what they learn is learned from these
        judgments, on *train_runs* (default: the runs being fused; learning
        on the queries you evaluate on is optimistic).
    train_runs : list of runs, optional
        Training runs, one per run, in the same order.
    name : str, optional
        The fused run's name (default: the method's).
    options : FusionOptions, optional
        *method*, *norm*, *weights* and the parameters at once
        (:class:`~rankwise.options.FusionOptions`); keywords given as well
        override them (parameters given are added to its ``params``).
    **params
        The method's parameters: ``k`` (rrf, default 60), ``gamma`` (gmnz),
        ``sigma`` (logn_isr, default 0.01), ``phi`` (rbc), ``w``
        (slidefuse), ``n_segments`` (probfuse), or learned ones given
        directly: ``probs``, ``log_odds``, ``map_scores``.

    Returns
    -------
    Run
        Every candidate of every query with its fused score.

    Raises
    ------
    InvalidParameterError
        An unknown method, normalisation or parameter, a missing one, fewer
        than two runs.

    Examples
    --------
    >>> import rankwise as rw
    >>> bm25 = {"q1": {"d1": 12.0, "d2": 9.5, "d3": 7.0}}
    >>> dense = {"q1": {"d3": 0.91, "d1": 0.85, "d4": 0.80}}
    >>> fused = rw.fuse([bm25, dense], "rrf")
    >>> {doc: round(score, 6) for doc, score in fused.to_dict()["q1"].items()}
    {'d1': 0.032522, 'd2': 0.016129, 'd3': 0.032266, 'd4': 0.015873}
    >>> mnz = rw.fuse({"bm25": bm25, "dense": dense}, "combmnz", norm="min-max")
    >>> {doc: round(score, 4) for doc, score in mnz.to_dict()["q1"].items()}
    {'d1': 2.9091, 'd2': 0.5, 'd3': 2.0, 'd4': 0.0}
    """
    settings = fusion_options(options, method=method, norm=norm, weights=weights, params=params)
    chosen = METHODS[settings.method]
    loaded = as_runs(runs)
    if len(loaded) < 2:
        raise InvalidParameterError(f"fusion needs at least two runs, got {len(loaded)}")
    values = {**chosen.params, **settings.values()}
    if chosen.learns is not None and values.get(chosen.learns) is None:
        if qrels is None:
            raise InvalidParameterError(
                f"{chosen.name} learns {chosen.learns} from judgments: pass qrels= (and "
                f"train_runs=, or give {chosen.learns}= directly)"
            )
        from rankwise.io.coerce import as_qrels

        training = as_runs(train_runs) if train_runs is not None else loaded
        if len(training) != len(loaded):
            raise InvalidParameterError(
                f"train_runs has {counted(len(training), 'run')} for "
                f"{counted(len(loaded), 'run')} to fuse; "
                "give one per run, in the same order"
            )
        learned = train(chosen.name, as_qrels(qrels), training,
                        n_segments=values.get("n_segments"))
        values.update(learned)
    runs_in_order = tuple(loaded)
    canonical = settings.norm
    quick = one_pass(runs_in_order, chosen, values, canonical)
    if quick is not None:  # sums over runs, straight from the runs' rows
        found, scores = quick
        docs = document_ids(runs_in_order, found.source)
        _check_finite(found.layout.query_ids, found.segments(), docs, scores, chosen.name,
                      canonical, runs_in_order)
        return _as_run(found.layout.query_ids, found.segments(), docs, scores,
                       name or chosen.name)
    view = _normalise(_align(runs_in_order), canonical)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named just below
        scores = fused_scores(view, chosen, values)
    _check_finite(view.query_ids, view.candidate_query, view.doc_ids(), scores, chosen.name,
                  canonical, runs_in_order)
    return fused_run(view, scores, name or chosen.name)


def fusion_options(options: FusionOptions | None, *, method: str, norm: str | None,
                   weights: Sequence[float] | None, params: Mapping[str, Any]) -> FusionOptions:
    """The :class:`FusionOptions` of a call: *options*, with the keywords given over it.

    The parameters given are added to those of *options* (the same name: the keyword's).

    Examples
    --------
    >>> fusion_options(FusionOptions("rrf", params={"k": 10}), method="rrf", norm="max",
    ...                weights=None, params={}).describe()
    {'method': 'rrf', 'normalisation': 'max', 'parameters': 'k=10'}
    """
    if options is not None and params:
        params = {**(options.params or {}), **params}
    return merged(FusionOptions, options, method=method, norm=norm, weights=weights,
                  params=dict(params) or None)


def _check_finite(query_ids: list[str], queries: np.ndarray | tuple[np.ndarray, np.ndarray],
                  docs: Any, scores: np.ndarray, method: str, norm: str | None,
                  runs: Sequence[Run]) -> None:
    """Refuse a fused score that is not a finite number, naming its query, document and runs.

    Examples
    --------
    >>> fuse([{"q": {"a": 1e308}}, {"q": {"a": 1e308}}], "sum")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: the sum score of query 'q', document 'a' is \
inf, not a finite number: its scores are 1e+308 in run 'run', 1e+308 in run 'run#2'. Scale \
the runs' scores down or normalise them first (norm='min-max')
    """
    values = np.asarray(scores, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if not len(bad):
        return
    at = int(bad[0])
    if isinstance(queries, tuple):
        starts, codes = queries
        code = int(codes[np.searchsorted(starts, at, side="right") - 1])
    else:
        code = int(queries[at])
    query, doc = query_ids[code], docs[at].as_py()
    held = []
    for run, label in zip(runs, _run_names(runs)):
        if query not in run.query_ids:
            continue
        rows = np.flatnonzero(run.query_codes == run.query_ids.index(query))
        docs_of_query = run.doc_ids.take(rows).to_pylist()  # one query's rows: an error's cost
        for row, name in zip(rows.tolist(), docs_of_query):
            if name == doc:
                source = f" ({run.source})" if run.source and run.source[0] != "<" else ""
                held.append(f"{float(run.scores[row])!r} in run {label!r}{source}")
    normalised = f" ({norm}-normalised before fusing)" if norm else ""
    more = f" ({len(bad) - 1} other fused scores too)" if len(bad) > 1 else ""
    raise InvalidParameterError(
        f"the {method} score of query {query!r}, document {doc!r} is {float(values[at])!r}, not a "
        f"finite number{more}: its scores are {', '.join(held)}{normalised}. Scale the runs' "
        "scores down or normalise them first (norm='min-max')"
    )


def _run_names(runs: Sequence[Run]) -> list[str]:
    """The runs' names, told apart: the second 'bm25' is 'bm25#2' (as everywhere in rankwise)."""
    from rankwise.io.naming import unique_names

    return unique_names([run.name for run in runs])


def fused_run(view: Aligned, scores: np.ndarray, name: str,
              candidates: np.ndarray | None = None) -> Run:
    """A :class:`Run` of the candidates of *view* (all, or *candidates*) with *scores*."""
    from rankwise.data._arrow import numpy_to_array

    docs = view.doc_ids()
    queries = view.candidate_query
    if candidates is not None:
        docs = docs.take(numpy_to_array(candidates))
        queries = queries[candidates]
        scores = np.array(scores, dtype=np.float64)  # the run's own copy
    return _as_run(view.query_ids, queries, docs, scores, name)


def _as_run(query_ids: list[str], queries: np.ndarray | tuple[np.ndarray, np.ndarray],
            docs: Any, scores: np.ndarray, name: str) -> Run:
    """The fused run (its ids come from runs already checked: not checked again).

    *queries*: each row's query, or the rows' blocks of one query (first
    rows and queries).
    """
    import pyarrow as pa

    values = np.asarray(scores, dtype=np.float64)
    if isinstance(queries, tuple):
        starts, codes = queries
        lengths = np.diff(np.append(starts, len(values)))
        per_row = None
    else:
        per_row = queries.astype(np.int32)
    if not np.isfinite(values).all():  # Run.from_arrow says which row
        from rankwise.data._arrow import numpy_to_array

        if per_row is None:
            per_row = np.repeat(codes, lengths).astype(np.int32)
        column = pa.DictionaryArray.from_arrays(
            numpy_to_array(per_row), pa.array(query_ids, pa.string())
        )
        return Run.from_arrow(column, docs, values, name=name, check_duplicates=False)
    column = pa.chunked_array([docs], pa.string())
    if per_row is None:
        return Run(None, list(query_ids), column, values, name=name, segments=(starts, codes))
    return Run(per_row, list(query_ids), column, values, name=name)


def normalise_runs(runs: Any, norm: str) -> list[Run]:
    """Each run with its scores normalised per query (``borda``: over all runs' candidates).

    Examples
    --------
    >>> [run.to_dict() for run in normalise_runs([{"q": {"a": 1.0, "b": 3.0}}], "min-max")]
    [{'q': {'a': 0.0, 'b': 1.0}}]
    """
    loaded = as_runs(runs)
    view = _normalise(_align(loaded), resolve_norm(norm))
    return [
        fused_run(view, view.scores[r], run.name, view.candidates[r])
        for r, run in enumerate(loaded)
    ]
