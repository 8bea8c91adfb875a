"""ranx's metric functions (``ranx.metrics``) on its arrays, computed by rankwise.

Each takes the judgments and the run as ranx's low-level form (per query, an
``(n, 2)`` array of ``[doc_id, value]`` rows: numba typed lists, lists or 3-d
arrays; ``Qrels.to_typed_list()`` and ``Run.to_typed_list()`` give them) and
returns one value per query, as ranx's do. See
:mod:`rankwise.compat.ranx._arrays` for how arrays are read.

Examples
--------
>>> import numpy as np
>>> from rankwise.compat.ranx import metrics
>>> qrels = [np.array([[1, 1], [4, 1]])]
>>> run = [np.array([[1, 1], [2, 1], [4, 1]])]
>>> metrics.precision(qrels, run, 2).tolist(), metrics.metric_switch("mrr")(qrels, run).tolist()
([0.5], [1.0])
"""

from collections.abc import Callable
from typing import Any

from rankwise.compat.ranx.metrics.average_precision import average_precision
from rankwise.compat.ranx.metrics.bpref import bpref
from rankwise.compat.ranx.metrics.f1 import f1
from rankwise.compat.ranx.metrics.get_hit_lists import get_hit_lists
from rankwise.compat.ranx.metrics.hit_rate import hit_rate
from rankwise.compat.ranx.metrics.hits import hits
from rankwise.compat.ranx.metrics.ndcg import dcg, dcg_burges, ndcg, ndcg_burges
from rankwise.compat.ranx.metrics.precision import precision
from rankwise.compat.ranx.metrics.r_precision import r_precision
from rankwise.compat.ranx.metrics.rank_biased_precision import rank_biased_precision
from rankwise.compat.ranx.metrics.recall import recall
from rankwise.compat.ranx.metrics.reciprocal_rank import reciprocal_rank

__all__ = [
    "average_precision", "bpref", "dcg", "dcg_burges", "f1", "get_hit_lists", "hit_rate",
    "hits", "metric_switch", "ndcg", "ndcg_burges", "precision", "r_precision",
    "rank_biased_precision", "recall", "reciprocal_rank",
]

_BY_NAME: dict[str, Callable[..., Any]] = {
    "hits": hits, "hit_rate": hit_rate, "precision": precision, "recall": recall, "f1": f1,
    "r-precision": r_precision, "mrr": reciprocal_rank, "map": average_precision, "dcg": dcg,
    "dcg_burges": dcg_burges, "ndcg": ndcg, "ndcg_burges": ndcg_burges, "bpref": bpref,
    "rbp": rank_biased_precision,
}


def metric_switch(metric: str) -> Callable[..., Any]:
    """The function of a ranx metric name (``"mrr"`` -> :func:`reciprocal_rank`).

    Raises
    ------
    UnknownMeasureError
        A name ranx does not have.
    """
    from rankwise.exceptions import UnknownMeasureError
    from rankwise.suggest import did_you_mean

    if metric not in _BY_NAME:
        raise UnknownMeasureError(
            f"metric {metric!r} is not one of ranx's ({', '.join(_BY_NAME)})"
            + did_you_mean(str(metric), list(_BY_NAME)))
    return _BY_NAME[metric]
