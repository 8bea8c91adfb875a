"""The front door ``evaluate_recommendations``: in this process, or on an engine's own frames.

:func:`rankwise.recommenders.evaluation.evaluate_recommendations` is the
in-process path. An engine with the recommender capability
(:attr:`rankwise.engines.Capabilities.recommenders`: Spark's), chosen by
``engine=`` or because the test interactions, the recommendations,
``exclude=`` or ``train=`` are frames it takes (Spark DataFrames), is handed
the whole call through its :class:`~rankwise.engines.RecommenderPass`
(:func:`recommender_pass`), and its per-user values come back collected in
the same :class:`RecommenderResults`. Nothing here asks an engine's name.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import TYPE_CHECKING, Any, cast

from rankwise._validation import renamed
from rankwise.recommenders import evaluation
from rankwise.recommenders.evaluation import RecommenderResults

if TYPE_CHECKING:
    from rankwise.engines import Engine, RecommenderPass

__all__ = ["evaluate_recommendations", "recommender_pass"]

_SIGNATURE = inspect.signature(evaluation.evaluate_recommendations)
_FRAMES = ("held_out", "recommendations", "exclude", "train")


def recommender_pass(backend: Engine) -> RecommenderPass | None:
    """The recommender capability of *backend*, or None: evaluated in this process.

    Examples
    --------
    >>> from rankwise.engines import engine_class, get_engine
    >>> recommender_pass(get_engine("numpy")) is None
    True
    >>> type(recommender_pass(engine_class("spark")())).__name__
    'SparkRecommenderPass'
    """
    named = backend.capabilities.recommenders
    if not named:
        return None
    module, _, attribute = named.partition(":")
    return cast("RecommenderPass", getattr(importlib.import_module(module), attribute))


@functools.wraps(evaluation.evaluate_recommendations)
def evaluate_recommendations(*args: Any, **kwargs: Any) -> RecommenderResults:  # noqa: D103
    # the docstring and signature are the in-process path's (functools.wraps)
    given = dict(_SIGNATURE.bind(*args, **kwargs).arguments)
    if "test" in given:  # the old name of held_out= (said here: the warning names the caller)
        given["held_out"] = renamed("evaluate_recommendations", "test", "held_out",
                                    given.pop("test"), given.get("held_out"), None,
                                    note=evaluation.TEST_RENAMED)
    from rankwise.engines import engine_for

    if given.get("engine", "") is None:  # engine=None: chosen by the inputs
        del given["engine"]
    backend, _ = engine_for(given.get("engine"), *(given.get(name) for name in _FRAMES))
    capability = recommender_pass(backend)
    if capability is None:
        return evaluation.evaluate_recommendations(**given)
    given.pop("engine", None)
    return cast(RecommenderResults, capability.evaluate(
        backend, given.pop("held_out", None), given.pop("recommendations", None),
        given.pop("measures", None), **given))


# functools.wraps gave it the in-process path's module and name: pickle (a process pool) must
# find this function, not that one
evaluate_recommendations.__module__ = __name__
