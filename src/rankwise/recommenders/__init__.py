"""Recommender evaluation: interactions as judgments, lists as runs, beyond accuracy.

:func:`evaluate_recommendations` takes held-out interactions and
recommendation lists (a table, ``{user: [item, ...]}`` or a 2-D array),
removes the items each user saw in training (``exclude=``), cuts at k, and
computes accuracy measures with rankwise's engine and beyond-accuracy
measures (coverage, Gini, entropy, novelty, EPC, ARP, APLT, PopREO, ILD,
serendipity, personalisation) over the whole set, per user and per segment.
The kernels are in :mod:`rankwise.recommenders.beyond`; Spark DataFrames
(or ``engine="spark"``) are evaluated on Spark by
:mod:`rankwise.recommenders.spark`.
"""

from __future__ import annotations

from rankwise.options import RecommenderOptions
from rankwise.recommenders.comparison import (
    RecommenderComparison,
    compare_recommendations,
    report_recommendations,
)
from rankwise.recommenders.evaluation import (
    BEYOND,
    RecommenderResults,
    SegmentResults,
)
from rankwise.recommenders.front import evaluate_recommendations

__all__ = ["BEYOND", "RecommenderComparison", "RecommenderOptions", "RecommenderResults",
           "SegmentResults", "compare_recommendations", "evaluate_recommendations",
           "report_recommendations"]
