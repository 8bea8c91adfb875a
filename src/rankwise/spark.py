"""Evaluate rankings on Spark: :func:`evaluate` over Spark DataFrames.

Needs the optional extra ``pip install 'rankwise[spark]'`` and Java 17 or
later. Importing this module does not import pyspark.

Examples
--------
>>> from rankwise.spark import evaluate  # doctest: +SKIP
>>> results = evaluate(qrels_df, run_df, ["ndcg@10", "map", "mrr@10"])  # doctest: +SKIP
>>> results.mean  # doctest: +SKIP
{'ndcg@10': 0.41, 'map': 0.35, 'mrr@10': 0.33}

:func:`evaluate_recommendations` is the recommender front door
(:func:`rankwise.evaluate_recommendations`) on Spark DataFrames.
"""

from rankwise.engines.spark import (
    SparkResults,
    check_executors,
    evaluate,
    evaluate_paths,
    get_session,
    read_qrels,
    read_run,
    ship,
)
from rankwise.recommenders.spark import SparkRecommenderResults, evaluate_recommendations

__all__ = [
    "SparkRecommenderResults",
    "SparkResults",
    "check_executors",
    "evaluate",
    "evaluate_paths",
    "evaluate_recommendations",
    "get_session",
    "read_qrels",
    "read_run",
    "ship",
]
