from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from rankwise.data import Qrels, Run


def make_collection(
    n_queries: int = 60,
    systems: tuple[str, ...] = ("bm25", "dense", "hybrid"),
    seed: int = 0,
    skip: dict[str, int] | None = None,
) -> tuple[Qrels, dict[str, Run]]:
    """Judgments and runs with real differences between systems.

    ``skip[name] = k`` leaves the first k queries out of that run.
    """
    rng = np.random.default_rng(seed)
    judged = 12
    q = np.repeat(np.arange(n_queries), judged).astype(str)
    d = np.tile(np.arange(judged), n_queries).astype(str)
    grades = rng.integers(0, 3, size=len(q)) * (rng.random(len(q)) < 0.4)
    qrels = Qrels.from_arrow(q, d, grades)
    runs = {}
    depth = 30
    for k, name in enumerate(systems):
        first = (skip or {}).get(name, 0)
        kept = np.arange(first, n_queries)
        qq = np.repeat(kept, depth).astype(str)
        position = np.tile(np.arange(depth), len(kept))
        boost = 0.25 * k * (position < judged) * rng.random(len(qq))
        runs[name] = Run.from_arrow(qq, position.astype(str), rng.random(len(qq)) + boost,
                                    name=name)
    return qrels, runs


@pytest.fixture
def make() -> Callable[..., tuple[Qrels, dict[str, Run]]]:
    """The collection builder, for tests that need other sizes or systems."""
    return make_collection


@pytest.fixture
def collection() -> tuple[Qrels, dict[str, Run]]:
    return make_collection()
