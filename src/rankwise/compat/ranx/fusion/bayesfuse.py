"""ranx's BayesFuse (``ranx.fusion.bayesfuse``), learned and fused by rankwise.

Per run, the log-odds of relevance of each rank's bin (positions [0, 5), [5, 10),
[10, 15), [15, 20), [20, 30), [30, 100), [100, 200), [200, 500), [500, 1000)),
learned from the judgments; a document's fused score is the sum over runs of its
rank's log-odds (Aslam & Montague, SIGIR 2001).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rankwise.compat.ranx.data_structures import Qrels, Run
from rankwise.compat.ranx.fusion._methods import fused, trained

__all__ = ["_estimate_log_odds", "bayesfuse", "bayesfuse_train"]


def _estimate_log_odds(hit_lists: Sequence[Any], cut_offs: Sequence[int]) -> np.ndarray:
    """Per position up to the last cut-off, the log-odds of its bin over *hit_lists*.

    *hit_lists*: per query, 1 at each position holding a relevant document
    (:func:`rankwise.compat.ranx.metrics.get_hit_lists`); *cut_offs*: the bins'
    bounds. ranx's private helper, kept for code that calls it.

    Examples
    --------
    >>> odds = _estimate_log_odds([np.array([1.0, 0.0, 0.0, 0.0])], [0, 2, 4])
    >>> odds.round(4).tolist()
    [0.0, 0.0, -6.9068, -6.9068]
    """
    from rankwise.fusion.training import binned_log_odds

    bounds = np.asarray(list(cut_offs), dtype=np.int64)
    lengths = np.array([len(hits) for hits in hit_lists], dtype=np.int64)
    query = np.repeat(np.arange(len(hit_lists)), lengths)
    flat = np.concatenate([np.asarray(hits, dtype=np.float64) for hits in hit_lists]) \
        if len(hit_lists) else np.zeros(0)
    position = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    hits = np.column_stack((query, position))[flat > 0]
    return binned_log_odds(lengths, hits, bounds)


def bayesfuse(runs: list[Run], log_odds: list[np.ndarray], name: str = "bayesfuse") -> Run:
    """BayesFuse: the sum over runs of the log-odds of the document's rank."""
    return fused(runs, "bayesfuse", name, log_odds=log_odds)


def bayesfuse_train(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    """Per run, the log-odds of relevance of each position (up to 1000)."""
    return trained("bayesfuse", qrels, runs)
