"""The front door ``evaluate_recommendations``: numpy, or Spark for Spark DataFrames.

:func:`rankwise.recommenders.evaluation.evaluate_recommendations` is the
numpy path; with an engine that evaluates recommendations on its own frames
(its capability ``recommenders``: ``engine="spark"``), or when the test
interactions, the recommendations, ``exclude=`` or ``train=`` are frames such
an engine takes (Spark DataFrames), the same call runs there
(:mod:`rankwise.recommenders.spark`) and its per-user values are collected
into the same :class:`RecommenderResults`.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from rankwise._validation import renamed
from rankwise.recommenders import evaluation, spark
from rankwise.recommenders.evaluation import RecommenderResults

__all__ = ["evaluate_recommendations"]

_SIGNATURE = inspect.signature(evaluation.evaluate_recommendations)
_FRAMES = ("held_out", "recommendations", "exclude", "train")


@functools.wraps(evaluation.evaluate_recommendations)
def evaluate_recommendations(*args: Any, **kwargs: Any) -> RecommenderResults:  # noqa: D103
    # the docstring and signature are the numpy path's (functools.wraps)
    given = dict(_SIGNATURE.bind(*args, **kwargs).arguments)
    if "test" in given:  # the old name of held_out= (said here: the warning names the caller)
        given["held_out"] = renamed("evaluate_recommendations", "test", "held_out",
                                    given.pop("test"), given.get("held_out"), None,
                                    note=evaluation.TEST_RENAMED)
    from rankwise.engines import engine_for

    backend, _ = engine_for(given.get("engine"), *(given.get(name) for name in _FRAMES))
    if backend.capabilities.recommenders:
        options = {name: value for name, value in given.items() if name != "engine"}
        return spark.evaluate_collected(**options)
    return evaluation.evaluate_recommendations(**given)


# functools.wraps gave it the numpy path's module and name: pickle (a process pool) must find
# this function, not that one
evaluate_recommendations.__module__ = __name__
