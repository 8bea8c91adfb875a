"""Shared generators of test data: Hypothesis strategies and seeded random collections.

Every test that needs judgments and runs with the awkward cases (ties,
negative grades, unjudged documents, queries on one side only, queries
without a relevant document) draws them from here, so a new case added here
reaches every property and differential test.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

__all__ = ["collections", "random_collection", "small_collections"]


@st.composite
def collections(draw: st.DrawFn, ties: bool = True) -> tuple[dict, dict]:
    """Up to 4 judged queries; grades -1..3; unjudged documents retrieved; ties on request."""
    n_queries = draw(st.integers(1, 4))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
        qrels[f"q{q}"] = {d: draw(st.integers(-1, 3)) for d in docs if draw(st.booleans())} or {
            docs[0]: 1
        }
        retrieved = draw(
            st.lists(st.sampled_from([*docs, "u1", "u2", "u3"]), unique=True, min_size=1)
        )
        if ties:
            scores = [draw(st.integers(0, 3)) / 2 for _ in retrieved]
        else:
            scores = list(np.linspace(1, 0, len(retrieved)))
        run[f"q{q}"] = dict(zip(retrieved, scores))
    return qrels, run


@st.composite
def small_collections(draw: st.DrawFn) -> tuple[dict, dict]:
    """At most 2 queries of at most 6 documents: small enough to enumerate every tie order."""
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 2))):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 6)))]
        qrels[f"q{q}"] = {d: draw(st.integers(-1, 3)) for d in docs}
        retrieved = draw(
            st.lists(st.sampled_from([*docs, "u1", "u2"]), unique=True, min_size=1, max_size=6)
        )
        run[f"q{q}"] = {d: float(draw(st.integers(0, 2))) for d in retrieved}
    return qrels, run


def random_collection(seed: int, *, ties: bool) -> tuple[dict, dict]:
    """A seeded collection for differential tests against other tools.

    3 to 11 queries; ids of different lengths; grades -1..3 (some queries
    with no relevant document); some judged queries not retrieved and some
    retrieved queries not judged; scores exact in float32 (tools that read
    scores as float32 agree), with many ties when *ties*.
    """
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    n_queries = int(rng.integers(3, 12))
    for q in range(n_queries):
        qid = f"q{q}"
        pool = [f"d{rng.integers(0, 10 ** rng.integers(1, 4))}x{i}" for i in range(40)]
        kind = rng.random()
        if kind > 0.1:  # judged query
            judged = rng.choice(len(pool), size=int(rng.integers(1, 25)), replace=False)
            grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
            if kind < 0.2:
                grades = np.minimum(grades, 0)  # no relevant document
            qrels[qid] = {pool[i]: int(g) for i, g in zip(judged, grades)}
        if kind < 0.95:  # retrieved query
            retrieved = rng.choice(len(pool), size=int(rng.integers(1, 40)), replace=False)
            if ties:
                scores = rng.integers(0, 6, size=len(retrieved)) / 4.0
            else:
                scores = rng.permutation(len(retrieved)) * 0.125 - 1.0
            run[qid] = {pool[i]: float(np.float32(s)) for i, s in zip(retrieved, scores)}
    if not any(q in run for q in qrels):
        run[next(iter(qrels))] = {"dx": 1.0}
    return qrels, run
