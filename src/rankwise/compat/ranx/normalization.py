"""ranx's score normalisations (``from ranx.normalization import min_max_norm``), by rankwise.

Each returns a new ``Run`` (the input is not changed) holding the same
documents in the same order with normalised scores, as ranx's do (not sorted
again, but for ``min-max-inverted``, whose order reverses: ranx sorts it).
The values are :func:`rankwise.fusion.normalise_runs`' (ranx's formulas, see
docs/fusion.md); ``rank`` and ``borda`` read each document's position in the
run, as ranx does.

Examples
--------
>>> from rankwise.compat.ranx import Run
>>> min_max_norm(Run({"q1": {"d1": 1.0, "d2": 3.0, "d3": 2.0}})).run
{'q1': {'d2': 1.0, 'd3': 0.5, 'd1': 0.0}}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rankwise.compat.ranx._table import Table
from rankwise.compat.ranx.data_structures import Run
from rankwise.exceptions import InvalidParameterError

__all__ = ["borda_norm", "max_norm", "min_max_norm", "norm_switch", "rank_norm", "sum_norm",
           "zmuv_norm"]


def _normalised(run: Run, norm: str) -> Run:
    """*run* with its scores normalised per query by rankwise's *norm* (not sorted again)."""
    from rankwise.compat.ranx.fusion._methods import rankwise_runs
    from rankwise.fusion import normalise_runs

    table = run._current()
    (normalised,) = normalise_runs(rankwise_runs([run], norm == "rank"), norm)
    out = Run(name=run.name)
    out._set_table(table.with_values(normalised.scores))  # the same rows, in the same order
    out.sorted = False
    return out


def min_max_norm(run: Run, invert: bool = False) -> Run:
    """(s - min) / (max - min) per query (``invert``: (max - s) / (max - min), then sorted)."""
    if not invert:
        return _normalised(run, "min-max")
    out = _normalised(run, "min-max-inverted")
    out.sort()
    return out


def max_norm(run: Run) -> Run:
    """S / max per query (1e-9 at least)."""
    return _normalised(run, "max")


def sum_norm(run: Run) -> Run:
    """(s - min) / (sum - n * min) per query."""
    return _normalised(run, "sum")


def zmuv_norm(run: Run) -> Run:
    """(s - mean) / std per query (zero mean, unit variance)."""
    return _normalised(run, "zmuv")


def rank_norm(run: Run) -> Run:
    """1 - i / n for the document at position i (from 0) of a query's n."""
    return _normalised(run, "rank")


def borda_norm(runs: list[Run]) -> list[Run]:
    """Borda normalisation: every run scores every candidate of the query.

    The candidates are the documents any run retrieved: 1 - i / |C| at
    position i, (|C| - n + 1) / (2 |C|) for a document the run did not
    retrieve, which it then holds after its own.
    """
    from rankwise.compat.ranx.fusion._methods import rankwise_runs
    from rankwise.fusion import normalise_runs

    out = []
    for run, result in zip(runs, normalise_runs(rankwise_runs(runs, True), "borda")):
        keys = list(run.keys())
        original = {str(key): key for key in keys}
        table = Table.from_run(result)
        keys = [original.get(key, key) for key in table.keys]
        normalised = Run(name=run.name)
        normalised._set_table(Table(keys, table.lengths, table.docs, table.values)
                              .with_keys(keys))
        normalised.sorted = False
        out.append(normalised)
    return out


def norm_switch(method: str = "min-max") -> Callable[[Any], Any]:
    """The normalisation of a name (``borda``'s takes the list of runs).

    ``min-max`` (``min_max``), ``min-max-inverted``, ``max``, ``sum``,
    ``zmuv``, ``rank``, ``borda``.

    Raises
    ------
    InvalidParameterError
        An unknown name.
    """
    chosen: dict[str, Callable[[Any], Any]] = {
        "borda": borda_norm, "max": max_norm, "min_max": min_max_norm, "min-max": min_max_norm,
        "min_max_inverted": lambda run: min_max_norm(run, invert=True),
        "min-max-inverted": lambda run: min_max_norm(run, invert=True),
        "rank": rank_norm, "sum": sum_norm, "zmuv": zmuv_norm,
    }
    if method not in chosen:
        from rankwise.suggest import did_you_mean

        raise InvalidParameterError(
            f"normalization {method!r} is not one of ranx's ({', '.join(chosen)})"
            + did_you_mean(str(method), list(chosen)))
    return chosen[method]
