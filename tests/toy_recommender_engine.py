"""A toy engine with the recommender capability, for tests/recommenders/test_engine_capability.py.

What a new engine that evaluates recommendations on its own frames writes:
its class (the toy engine of ``toy_engine``, with ``Capabilities.recommenders``
naming its pass) and the pass, an object with ``evaluate`` and ``catalogue``
(:class:`rankwise.engines.RecommenderPass`). The pass computes in this
process and notes every call, so a test can tell the front doors reached it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from toy_engine import ToyEngine

from rankwise.engines import Capabilities

CALLS: list[tuple[str, Any]] = []
"""Each call of the pass: (method, the engine or the models' names)."""

CATALOGUE = ["a", "b", "c", "d", "e", "f", "g", "h"]
"""The catalogue the toy pass gives every model of a comparison (8 items)."""


class RecommenderToyEngine(ToyEngine):
    """The toy engine, with the recommender capability."""

    name = "rectoy"
    capabilities: ClassVar[Capabilities] = Capabilities(
        recommenders="toy_recommender_engine:PASS", title="Recommender toy",
        summary="a toy engine that evaluates recommendations (tests)",
    )


class ToyPass:
    """The toy engine's recommender pass: the in-process evaluation, each call noted."""

    def evaluate(self, engine: Any, held_out: Any, recommendations: Any, measures: Any,
                 **arguments: Any) -> Any:
        from rankwise.recommenders.evaluation import evaluate_recommendations

        CALLS.append(("evaluate", engine))
        return evaluate_recommendations(held_out, recommendations, measures, **arguments)

    def catalogue(self, held_out: Any, models: Mapping[str, Any], history: Any, *,
                  users: Any = None, columns: Mapping[str, str] | None = None
                  ) -> tuple[Any, int]:
        CALLS.append(("catalogue", sorted(models)))
        return CATALOGUE, len(CATALOGUE)


PASS = ToyPass()
