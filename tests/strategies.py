"""Shared generators of test data: Hypothesis strategies and seeded random collections.

Every test that needs judgments and runs with the awkward cases (ties,
negative grades, unjudged documents, queries on one side only, queries
without a relevant document) draws them from here, so a new case added here
reaches every property and differential test.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

__all__ = ["SPARK_KINDS", "collections", "dialect_collection", "dict_collections",
           "diversity_collection",
           "diversity_collections", "fusion_runs", "grouped_as_dicts", "random_collection",
           "random_tables",
           "ranked_lists", "ranking_data", "score_matrices", "significance_matrices",
           "small_collections"]


@st.composite
def collections(
    draw: st.DrawFn, ties: bool = True, grades: st.SearchStrategy[int] | None = None
) -> tuple[dict, dict]:
    """Up to 4 judged queries; grades -1..3 (or drawn from *grades*); unjudged documents
    retrieved; ties on request."""
    grade = st.integers(-1, 3) if grades is None else grades
    n_queries = draw(st.integers(1, 4))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
        qrels[f"q{q}"] = {d: draw(grade) for d in docs if draw(st.booleans())} or {
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


@st.composite
def dict_collections(draw: st.DrawFn, int_ids: bool | None = None) -> tuple[dict, dict]:
    """Judgments and run dicts as BEIR and MTEB hand them, with what ranking finds hard.

    Heavy ties (scores drawn from a few values, exact in float32), docnos that
    break them in byte order (shared prefixes, different lengths, non-ASCII),
    unjudged documents retrieved, judged documents not retrieved, grades
    -1..3, queries on one side only, empty entries ({} on either side), and
    ids of one kind per dict level: all str, or all int (*int_ids*, drawn
    when None) for query ids and for document ids.
    """
    query_ints = draw(st.booleans()) if int_ids is None else int_ids
    doc_ints = draw(st.booleans()) if int_ids is None else int_ids
    texts = ["d", "d1", "d10", "d2", "D1", "d1a", "\u00e9", "\u65e5\u672c", "x" * 9, "x" * 17,
             "x" * 18, "a\u00e9b", "0", "00"]
    pool: list[Any] = list(range(-3, 14)) if doc_ints else texts
    score = st.sampled_from([-1.5, 0.0, 0.25, 0.5, 0.5, 1.0, 1e-3, 3.0]).map(
        lambda v: float(np.float32(v))
    )
    qrels: dict[Any, dict[Any, int]] = {}
    run: dict[Any, dict[Any, float]] = {}
    for q in range(draw(st.integers(1, 6))):
        query: Any = q * 7 if query_ints else f"q{q}"
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side != "run":
            docs = draw(st.lists(st.sampled_from(pool), unique=True, max_size=10))
            qrels[query] = {d: draw(st.integers(-1, 3)) for d in docs}
        if side != "qrels":
            docs = draw(st.lists(st.sampled_from(pool), unique=True, max_size=14))
            run[query] = {d: draw(score) for d in docs}
    if not any(judged for judged in qrels.values()):
        qrels[0 if query_ints else "q0"] = {pool[0]: 1}
    if not run:  # an input holds data (docs/reading.md): a query that retrieved nothing
        run[0 if query_ints else "q0"] = {}
    return qrels, run


def dialect_collection(
    n_queries: int, seed: int, *, negative: bool = True, one_sided: bool = True
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """A seeded collection for comparing dialects with the tools they follow.

    Every awkward case of issue 17, by query number modulo 8: 0 every grade
    0 (judged); 1 heavy ties (scores rounded to one decimal); 2 a constant
    scorer; 3 negative and zero scores; 4 two scores equal in float32 but not
    in float64; 5 negative grades (with *negative*); 6 long lists (up to 40
    documents, beyond ranx's 15); 7 plain. Grades 0-4; lists of 1 to 25
    documents (shorter than the largest cutoff, 20, often); some retrieved
    documents unjudged, some judged ones not retrieved. The run's dict order
    is the input order (rows of a query are not in score order), which the
    tools that keep input order on ties follow. With *one_sided*, one query
    in 40 is judged but not retrieved, and 3 queries are retrieved but not
    judged.
    """
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        qid = f"q{q:04d}"
        kind = q % 8
        n = int(rng.integers(16, 41)) if kind == 6 else int(rng.integers(1, 26))
        docs = [f"d{i:03d}" for i in rng.choice(400, size=n + 5, replace=False)]
        retrieved, extra = docs[:n], docs[n:]
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3, 4], size=n)
        if kind == 0:
            grades = np.zeros(n, dtype=np.int64)
        if kind == 5 and negative:
            grades = np.where(rng.random(n) < 0.3, -rng.integers(1, 3, size=n), grades)
        if kind in (1, 6):
            scores = np.round(rng.random(n), 1)
        elif kind == 2:
            scores = np.full(n, 0.5)
        elif kind == 3:
            scores = np.round(rng.uniform(-1.0, 1.0, size=n), 2)
        else:
            scores = rng.random(n)
            if kind == 4 and n >= 2:
                scores[1] = scores[0] + 1e-12
        judged = {}
        for doc, grade in zip(retrieved, grades):
            if grade != 0 or rng.random() < 0.7:  # some grade-0 documents unjudged
                judged[doc] = int(grade)
        for doc in extra:  # judged, not retrieved
            if rng.random() < 0.5:
                judged[doc] = int(rng.choice([0, 1, 2, 3]))
        if not judged:
            judged[extra[0]] = 0
        qrels[qid] = judged
        if not (one_sided and q % 40 == 39):
            run[qid] = {doc: float(score) for doc, score in zip(retrieved, scores)}
    if one_sided:
        for extra_query in range(3):
            run[f"u{extra_query}"] = {f"d{i:03d}": float(rng.random()) for i in range(5)}
    return qrels, run


def ranking_data(groups: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Learning-to-rank data: features, labels 0-4 and group sizes 1-20, rows grouped.

    One group in nine has no relevant row (every label 0).
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 21, size=groups)
    n = int(sizes.sum())
    x = rng.normal(size=(n, 6))
    signal = x[:, 0] + 0.5 * x[:, 1] + rng.normal(scale=1.0, size=n)
    labels = np.clip(np.round(signal + 1.0), 0, 4)
    labels[np.repeat(np.arange(groups) % 9 == 0, sizes)] = 0
    return x, labels, sizes


def grouped_as_dicts(
    labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray
) -> tuple[dict, dict]:
    """Judgments and run of grouped rows (queries "0", "1", ...; a row's id is its
    zero-padded position in its group, so that id order is position order)."""
    qrels: dict = {}
    run: dict = {}
    start = 0
    for g, size in enumerate(sizes):
        rows = range(start, start + int(size))
        qrels[str(g)] = {f"d{i - start:04d}": float(labels[i]) for i in rows}
        run[str(g)] = {f"d{i - start:04d}": float(scores[i]) for i in rows}
        start += int(size)
    return qrels, run
# ------------------------------------------------------------------------------------------
# Python inputs as users hold them: dicts with keys and values of several types


def _id_values(draw: st.DrawFn) -> st.SearchStrategy:
    """Ids as users write them: str (ASCII, non-ASCII, long, shared prefixes), int, numpy."""
    text = st.sampled_from(["d1", "d10", "d2", "D1", "d1a", "é", "日本", "x" * 20, "x" * 21, ""])
    numbers = st.integers(-3, 12)
    return st.one_of(
        text,
        numbers,
        numbers.map(np.int64),
        numbers.map(np.int32),
        st.text(alphabet="ab\u00e9\U0001f600", max_size=10),
    )


def _numbers() -> st.SearchStrategy:
    """Scores and grades as users hold them: float, int, numpy floats and ints (tied often)."""
    small = st.integers(-2, 4)
    return st.one_of(
        small,
        small.map(lambda v: v / 2),
        small.map(lambda v: np.float32(v / 4)),
        small.map(lambda v: np.float64(v / 8)),
        small.map(np.int64),
        st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    )


@st.composite
def python_dicts(draw: st.DrawFn, max_queries: int = 5, max_docs: int = 12) -> dict:
    """``{query: {doc: number}}`` with ids and numbers of mixed types and empty entries.

    Ids of different types may print the same (``1`` and ``"1"``): such dicts
    may list a document twice for one query.
    """
    ids = _id_values(draw)
    out: dict = {}
    for _ in range(draw(st.integers(0, max_queries))):
        query = draw(ids)
        out[query] = draw(st.dictionaries(ids, _numbers(), max_size=max_docs))
    return out


@st.composite
def score_matrices(draw: st.DrawFn, max_systems: int = 6, max_topics: int = 12,
                   dyadic: bool = False) -> np.ndarray:
    """Systems x topics matrices of per-query values in [0, 1]: ties, constant rows, zeros.

    With *dyadic*, values are multiples of 1/8 (every sum is exact in floating point).
    """
    m = draw(st.integers(2, max_systems))
    n = draw(st.integers(2, max_topics))
    if dyadic:
        cells = st.integers(0, 8).map(lambda v: v / 8)
    else:
        cells = st.one_of(st.sampled_from([0.0, 0.5, 1.0]),
                          st.floats(0, 1, allow_nan=False, width=32))
    values = draw(st.lists(cells, min_size=m * n, max_size=m * n))
    return np.array(values, dtype=np.float64).reshape(m, n)


@st.composite
def significance_matrices(draw: st.DrawFn, max_systems: int = 9) -> tuple[np.ndarray, np.ndarray]:
    """Means and a symmetric matrix of which pairs differ (any pattern, not only consistent)."""
    m = draw(st.integers(1, max_systems))
    means = np.array(draw(st.lists(st.integers(0, 5).map(float), min_size=m, max_size=m)))
    flags = np.zeros((m, m), dtype=bool)
    for i in range(m):
        for j in range(i + 1, m):
            flags[i, j] = flags[j, i] = draw(st.booleans())
    return means, flags


@st.composite
def ranked_lists(draw: st.DrawFn, max_length: int = 12) -> tuple[list[str], list[str]]:
    """Two rankings without repeats from a small pool: overlaps, disjoint tails, unequal lengths."""
    pool = [f"d{i}" for i in range(draw(st.integers(1, 2 * max_length)))]
    first = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=max_length))
    second = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=max_length))
    return first, second


SPARK_KINDS = ("mixed", "unjudged", "deep", "ltr", "sparse", "unretrieved")


def random_tables(seed: int, kind: str | None = None) -> dict:
    """A seeded dataset as Arrow tables, for the engines' differential tests.

    ``kind`` (drawn when None): ``mixed`` (queries on one side only, some
    judged queries whose retrieved documents are all unjudged), ``unjudged``
    (no query of the run is judged), ``deep`` (most retrieved documents
    judged), ``ltr`` (one table with a score and a label on every row),
    ``sparse`` (one judgment per query or so), ``unretrieved`` (judged
    queries mostly absent from the run). Ids mix lengths, digits and
    non-ASCII bytes (the byte-order tie rule matters); scores have few
    distinct values (ties) or many; grades -1..3.

    Returns
    -------
    dict
        ``qrels`` and ``run`` (Arrow tables ``query_id, doc_id, relevance`` /
        ``score``), ``table`` (for ``ltr``: one table with both, else None)
        and ``kind``.
    """
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    if kind is None:
        kind = str(rng.choice(SPARK_KINDS))
    alphabet = ["a", "b", "Z", "\u00e9", "0", "~", "ab", "\u00df", "9"]
    ties = bool(rng.random() < 0.6)
    run_q: list[str] = []
    run_d: list[str] = []
    run_s: list[float] = []
    qrels_q: list[str] = []
    qrels_d: list[str] = []
    qrels_g: list[int] = []
    for i in range(int(rng.integers(1, 30))):
        query = f"q{i}" if i % 5 else f"Q{i}\u00e9"
        size = int(rng.integers(1, 50))
        pool = sorted(
            {"".join(rng.choice(alphabet, int(rng.integers(1, 4)))) + str(j) for j in range(size)}
        )
        in_run = kind != "unretrieved" or rng.random() < 0.3
        judged_query = {
            "unjudged": False,
            "unretrieved": True,
            "ltr": True,
        }.get(kind, bool(rng.random() < 0.8))
        retrieved: list[str] = []
        if in_run:
            retrieved = list(rng.permutation(pool)[: int(rng.integers(0, len(pool) + 1))])
            if ties:
                scores = rng.integers(0, 5, size=len(retrieved)) / 2.0
            else:
                scores = np.round(rng.normal(10, 5, size=len(retrieved)), 3)
            run_q += [query] * len(retrieved)
            run_d += retrieved
            run_s += scores.tolist()
        if not judged_query:
            continue
        if kind in ("deep", "ltr"):
            judged = list(retrieved)
            if kind == "deep":
                judged = [d for d in judged if rng.random() < 0.9] + [f"extra{i}"]
        elif kind == "sparse":
            judged = list(rng.permutation(pool)[:1])
        elif kind == "mixed" and rng.random() < 0.2:
            judged = [f"only-judged{i}-{j}" for j in range(3)]  # retrieved: all unjudged
        else:
            judged = list(rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))])
        if not judged:
            continue
        qrels_q += [query] * len(judged)
        qrels_d += judged
        qrels_g += rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged)).tolist()
    qrels = pa.table(
        {
            "query_id": pa.array(qrels_q, pa.string()),
            "doc_id": pa.array(qrels_d, pa.string()),
            "relevance": pa.array(qrels_g, pa.int64()),
        }
    )
    run = pa.table(
        {
            "query_id": pa.array(run_q, pa.string()),
            "doc_id": pa.array(run_d, pa.string()),
            "score": pa.array(run_s, pa.float64()),
        }
    )
    table = None
    if kind == "ltr":  # every retrieved document is judged: one table holds both
        grade = dict(zip(zip(qrels_q, qrels_d), qrels_g))
        table = run.append_column(
            "relevance", pa.array([grade[(q, d)] for q, d in zip(run_q, run_d)], pa.int64())
        )
        qrels = table.select(["query_id", "doc_id", "relevance"])
    return {"qrels": qrels, "run": run, "table": table, "kind": kind}

def diversity_collection(
    seed: int, *, ties: bool = True, negative: bool = False
) -> tuple[dict, dict]:
    """A seeded collection of diversity judgments ``{qid: {subtopic: {doc: grade}}}`` and a run.

    3 to 9 queries with numeric ids (ndeval reads only those); 1 to 6
    subtopics each (numeric ids, 0 allowed), each document judged for some
    of them with grades 0..3 (-2..3 with *negative*: ndeval refuses
    negatives); some queries without a relevant document, some judged
    queries not retrieved, some retrieved queries not judged; unjudged
    documents retrieved; ids of different lengths; scores exact in float32
    with many ties when *ties*.
    """
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, dict[str, int]]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(int(rng.integers(3, 10))):
        qid = str(q + 1)
        pool = [f"d{rng.integers(0, 10 ** rng.integers(1, 4))}x{i}" for i in range(30)]
        kind = rng.random()
        if kind > 0.1:
            judged = rng.choice(len(pool), size=int(rng.integers(2, 20)), replace=False)
            topics = rng.choice(7, size=int(rng.integers(1, 7)), replace=False)
            grades = [-2, 0, 0, 0, 1, 1, 2, 3] if negative else [0, 0, 0, 1, 1, 2, 3]
            qrels[qid] = {}
            for t in topics:
                docs = judged[rng.random(len(judged)) < 0.6]
                if len(docs) == 0:
                    continue
                levels = rng.choice(grades, size=len(docs))
                if kind < 0.2:
                    levels = np.minimum(levels, 0)  # no relevant document
                qrels[qid][str(int(t))] = {pool[i]: int(g) for i, g in zip(docs, levels)}
            if not qrels[qid]:
                qrels[qid] = {str(int(topics[0])): {pool[judged[0]]: 0}}
        if kind < 0.95:
            retrieved = rng.choice(len(pool), size=int(rng.integers(1, 30)), replace=False)
            if ties:
                scores = rng.integers(0, 6, size=len(retrieved)) / 4.0
            else:
                scores = rng.permutation(len(retrieved)) * 0.125 - 1.0
            run[qid] = {pool[i]: float(np.float32(s)) for i, s in zip(retrieved, scores)}
    if not any(q in run for q in qrels):
        first = next(iter(qrels))
        run[first] = {"dx": 1.0}
    return qrels, run


@st.composite
def diversity_collections(draw: st.DrawFn, ties: bool = True) -> tuple[dict, dict]:
    """Up to 3 queries of diversity judgments (1-3 subtopics, grades -1..2) and a run."""
    qrels: dict[str, dict[str, dict[str, int]]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(draw(st.integers(1, 3))):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 7)))]
        topics = {}
        for t in range(draw(st.integers(1, 3))):
            judged = {d: draw(st.integers(-1, 2)) for d in docs if draw(st.booleans())}
            if judged:
                topics[str(t)] = judged
        qrels[f"q{q}"] = topics or {"0": {docs[0]: 1}}
        retrieved = draw(
            st.lists(st.sampled_from([*docs, "u1", "u2"]), unique=True, min_size=1)
        )
        if ties:
            scores = [draw(st.integers(0, 3)) / 2 for _ in retrieved]
        else:
            scores = list(np.linspace(1, 0, len(retrieved)))
        run[f"q{q}"] = dict(zip(retrieved, scores))
    return qrels, run


def random_recommendations(seed: int, *, integer_ids: bool | None = None) -> dict:
    """Seeded recommender data as Arrow tables, for the Spark recommender differential.

    ``test`` (``user, item, rating``: graded 0..3, some pairs twice),
    ``recs`` (``user, item, score``: few distinct scores, so ties, broken by
    row order; no pair twice), ``train`` (``user, item``: some pairs twice;
    many recommended items seen) and ``catalogue`` (item ids). Some users
    are only in the test, some only in the recommendations, some only in
    training; ids are integers or text with non-ASCII bytes.

    Returns
    -------
    dict
        ``test``, ``recs``, ``train`` (Arrow tables) and ``catalogue`` (a list).
    """
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    if integer_ids is None:
        integer_ids = bool(rng.random() < 0.5)
    n_users, n_items = int(rng.integers(3, 25)), int(rng.integers(5, 40))

    def user(u: int):
        return u * 7 + 1 if integer_ids else f"u{u}" + ("\u00e9" if u % 3 == 0 else "")

    def item(i: int):
        return i * 3 + 10 if integer_ids else ("Z" if i % 4 == 0 else "a") + str(i)

    everyone = rng.permutation(n_users)
    test_users = everyone[: max(1, int(n_users * 0.8))]
    rec_users = everyone[int(n_users * 0.2):]
    rec_u, rec_i, rec_s = [], [], []
    for u in rec_users:
        chosen = rng.permutation(n_items)[: int(rng.integers(1, min(n_items, 15) + 1))]
        rec_u += [user(int(u))] * len(chosen)
        rec_i += [item(int(i)) for i in chosen]
        rec_s += (rng.integers(0, 4, len(chosen)) / 2.0).tolist()
    test_u, test_i, test_r = [], [], []
    for u in test_users:
        chosen = rng.choice(n_items, int(rng.integers(1, 6)))  # repeats: pairs twice
        test_u += [user(int(u))] * len(chosen)
        test_i += [item(int(i)) for i in chosen]
        test_r += rng.integers(0, 4, len(chosen)).tolist()
    train_u, train_i = [], []
    for u in range(n_users + 2):  # two users only in training
        chosen = rng.choice(n_items, int(rng.integers(0, 8)))
        train_u += [user(u)] * len(chosen)
        train_i += [item(int(i)) for i in chosen]
    ids = pa.int64() if integer_ids else pa.string()
    return {
        "test": pa.table({"user": pa.array(test_u, ids), "item": pa.array(test_i, ids),
                          "rating": pa.array(test_r, pa.int64())}),
        "recs": pa.table({"user": pa.array(rec_u, ids), "item": pa.array(rec_i, ids),
                          "score": pa.array(rec_s, pa.float64())}),
        "train": pa.table({"user": pa.array(train_u, ids), "item": pa.array(train_i, ids)}),
        "catalogue": [item(i) for i in range(n_items + 3)],
    }


def fusion_runs(seed: int, *, n_runs: int = 3) -> list[tuple[list[str], list[str], list[float]]]:
    """Seeded runs to fuse, as (query ids, document ids, scores) columns, one per run.

    The awkward cases of fusion: tied scores (most runs) or float noise;
    documents shared by some runs and not others, and some only one run has;
    ids of 0 bytes, up to 8 bytes (one 8 bytes ending in a byte below 8, next
    to its 7-byte prefix) and longer (sharing their first 9 bytes); queries
    some runs lack, a run with no rows at all now and then; runs whose rows
    are not grouped by query (interleaved); a query with many documents
    (hundreds, so hash tables grow).
    """
    rng = np.random.default_rng(seed)
    pool = ([f"d{i}" for i in range(12)] + ["x" * 9 + str(i) for i in range(4)]
            + ["abcdefg\x01", "abcdefg", "\x01abc", "", "12345678"])
    runs = []
    for r in range(n_runs):
        queries: list[str] = []
        docs: list[str] = []
        scores: list[float] = []
        if rng.random() < 0.08:  # a run that retrieved nothing
            runs.append((queries, docs, scores))
            continue
        for q in range(int(rng.integers(1, 6))):
            own = pool + [f"r{r}only{i}" for i in range(3)]
            if q == 0 and rng.random() < 0.3:  # a long list: its query's table grows
                own = own + [f"many{i}" for i in range(int(rng.integers(100, 700)))]
            n = int(rng.integers(0, len(own) + 1))
            chosen = rng.choice(len(own), size=n, replace=False)
            if rng.random() < 0.7:
                values = rng.integers(0, 4, size=n) * 0.5 - 0.5
            else:
                values = rng.normal(size=n)
            query = f"q{q + r % 2}"
            for c, value in zip(chosen.tolist(), values.tolist()):
                queries.append(query)
                docs.append(own[c])
                scores.append(float(value))
        if queries and rng.random() < 0.3:  # rows not grouped by query
            perm = rng.permutation(len(queries)).tolist()
            queries = [queries[i] for i in perm]
            docs = [docs[i] for i in perm]
            scores = [scores[i] for i in perm]
        runs.append((queries, docs, scores))
    return runs
