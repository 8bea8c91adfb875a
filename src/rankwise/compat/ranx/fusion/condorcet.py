"""ranx's Condorcet fusion (``ranx.fusion.condorcet``), fused by rankwise.

Candidates are sorted by the pairwise majority of the runs (ties and documents
missing from both count for the second, as in ranx), from a deterministic
start: ranx's result depends on Python's set order (see docs/fusion.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rankwise.compat.ranx.data_structures import Run
from rankwise.compat.ranx.fusion._methods import fused

__all__ = ["condorcet", "get_candidates", "get_results", "weighted_condorcet"]


def get_candidates(runs: Sequence[Any]) -> list[list[Any]]:
    """Per query of the first run, the documents any run retrieved for it (each once).

    *runs* are ``{query: {doc: score}}`` mappings (``run.run``).

    Examples
    --------
    >>> get_candidates([{"q": {"a": 1.0, "b": 0.5}}, {"q": {"c": 2.0, "a": 1.0}}])
    [['a', 'b', 'c']]
    """
    return [list(dict.fromkeys(doc for run in runs for doc in run[query]))
            for query in runs[0]]


def get_results(runs: Sequence[Any]) -> list[list[list[Any]]]:
    """Per query of the first run, per run, its documents in the order it holds them.

    Examples
    --------
    >>> get_results([{"q": {"a": 1.0, "b": 0.5}}, {"q": {"c": 2.0}}])
    [[['a', 'b'], ['c']]]
    """
    return [[list(run[query]) for run in runs] for query in runs[0]]


def condorcet(runs: list[Run], name: str = "condorcet") -> Run:
    """Condorcet fusion (Montague & Aslam, CIKM 2002): |C| - position in the majority order."""
    return fused(runs, "condorcet", name)


def weighted_condorcet(runs: list[Run], weights: list[float],
                       name: str = "weighted_condorcet") -> Run:
    """Condorcet fusion with weighted votes."""
    return fused(runs, "w_condorcet", name, weights=weights)
