"""What the supervised fusion methods learn from judgments, as ranx learns it.

For each run, its *hit list* per query: position i (0-based, in the run's
order) is 1 when the document there is relevant (grade >= ``rel``, 1 by
default). Training uses the queries that are both judged and retrieved.

- posfuse, slidefuse: probs[i] = queries with a hit at i / queries whose list
  is longer than i;
- probfuse (S segments): per query, segment size ceil(n / S); probs[k] =
  sum over queries of the share of hits in segment k (0 for an empty
  segment), divided by the number of queries;
- segfuse: probs[k] = mean over queries of hits in the fixed segment k
  ([0, 5), [5, 15), ...) divided by the segment's width;
- bayesfuse: per bin of positions [0, 5), [5, 10), [10, 15), [15, 20),
  [20, 30), [30, 100), [100, 200), [200, 500), [500, 1000): p = mean over
  queries of hits / bin width; p = 0 becomes 0.001, and so does 1 - p = 0;
  every position of the bin has log(p / (1 - p));
- mapfuse: each run's MAP over the judged queries (a judged query a run
  did not retrieve counts 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._validation import POSITIVE_INT, check
from rankwise.exceptions import InvalidParameterError
from rankwise.fusion.methods import SEGFUSE_BOUNDS

if TYPE_CHECKING:
    from rankwise.data import Qrels, Run

__all__ = ["binned_log_odds", "train"]

BAYES_BINS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
"""bayesfuse's bins of 0-based positions (ranx's)."""


def _hit_matrix(qrels: Qrels, run: Run, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """Per training query: its list length, and hits as (query, 0-based position) pairs.

    Returns
    -------
    lengths : ndarray of int64, one per training query
    hits : ndarray of int64, shape (n_hits, 2): (training query, position)
    """
    from rankwise.fusion.align import rank_rows
    from rankwise.ranking.judged import judged_rows

    judged = set(qrels.query_ids)
    trained = [i for i, name in enumerate(run.query_ids) if name in judged]
    index = np.full(len(run.query_ids), -1, dtype=np.int64)
    index[trained] = np.arange(len(trained))
    lengths = np.bincount(run.query_codes, minlength=len(run.query_ids))[trained]
    rows, grades = judged_rows(qrels, run)
    relevant = rows[grades >= rel]
    query = index[run.query_codes_at(relevant)]
    position = rank_rows(run)[relevant] - 1
    keep = query >= 0
    return lengths.astype(np.int64), np.column_stack((query[keep], position[keep]))


def binned_log_odds(lengths: np.ndarray, hits: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Bayesfuse's log-odds of relevance of each position up to ``bounds[-1]``.

    Per bin of positions, p = mean over queries of hits / bin width (0 becomes
    0.001, and so does 1 - p = 0), and every position of the bin has
    log(p / (1 - p)).

    Examples
    --------
    >>> hits = np.array([[0, 0], [1, 2]])  # query 0 at position 0, query 1 at 2
    >>> binned_log_odds(np.array([4, 4]), hits, np.array([0, 2, 4])).round(4).tolist()
    [-1.0986, -1.0986, -1.0986, -1.0986]
    """
    p = _binned_probs(lengths, hits, bounds)
    p = np.where(p == 0, 0.001, p)
    q = 1.0 - p
    q = np.where(q == 0, 0.001, q)
    return np.repeat(np.log(p / q), np.diff(bounds))


LEARNING = {"posfuse": "probs", "probfuse": "probs", "segfuse": "probs", "slidefuse": "probs",
            "bayesfuse": "log_odds", "mapfuse": "map_scores"}
"""The supervised methods and what each learns."""


def _check_learnable(
    method: str, qrels: Qrels, runs: Sequence[Run],
    hit_lists: list[tuple[np.ndarray, np.ndarray]], rel: float,
) -> None:
    """Refuse to learn from no relevant document retrieved: every score would be the same.

    The one rule of every supervised method: what it learns comes from the
    relevant documents the training runs retrieve for judged queries; with
    none, posfuse, probfuse, segfuse and slidefuse learn zeros, bayesfuse one
    constant and mapfuse MAPs of 0, and the fused run is one tie.
    """
    if any(len(hits) for _, hits in hit_lists):
        return
    retrieved = set().union(*(run.query_ids for run in runs))
    trained = np.array([name in retrieved for name in qrels.query_ids], dtype=bool)
    shared = int(trained.sum())
    relevant = int(((qrels.grades >= rel) & trained[qrels.query_codes]).sum())
    where = f" ({qrels.source})" if qrels.source else ""
    if shared == 0:
        why = "the training runs retrieve none of the judged queries"
    elif relevant == 0:
        why = (
            f"the judgments{where} hold no relevant document (grade >= {rel:g}) for the "
            f"{shared} judged {'query' if shared == 1 else 'queries'} the training runs retrieve"
        )
    else:
        why = (
            f"the training runs retrieve none of the {relevant} relevant documents "
            f"(grade >= {rel:g}) of the {shared} judged "
            f"{'query' if shared == 1 else 'queries'} they retrieve"
        )
    raise InvalidParameterError(
        f"{method} learns {LEARNING[method]} from the relevant documents the training runs "
        f"retrieve, and {why}: every document would get the same fused score. Give "
        f"judgments with relevant documents for the runs' queries (or training runs that "
        f"retrieve them), or give {LEARNING[method]}= directly"
    )


def _position_probs(lengths: np.ndarray, hits: np.ndarray) -> np.ndarray:
    depth = int(lengths.max()) if len(lengths) else 0
    with_hit = np.bincount(hits[:, 1], minlength=depth).astype(np.float64)[:depth]
    longer = np.bincount(lengths, minlength=depth + 1)[::-1].cumsum()[::-1][1:depth + 1]
    result: np.ndarray = np.divide(with_hit, longer, out=np.zeros(depth), where=longer > 0)
    return result


def _probfuse_probs(lengths: np.ndarray, hits: np.ndarray, segments: int) -> np.ndarray:
    n_queries = len(lengths)
    if n_queries == 0:
        return np.zeros(segments)
    size = -(-lengths // segments)
    query, position = hits[:, 0], hits[:, 1]
    segment = position // np.maximum(size[query], 1)
    counts = np.zeros((n_queries, segments))
    np.add.at(counts, (query, segment), 1.0)
    starts = np.arange(segments)[None, :] * size[:, None]
    widths = np.clip(lengths[:, None] - starts, 0, size[:, None])
    share = np.divide(counts, widths, out=np.zeros_like(counts), where=widths > 0)
    result: np.ndarray = share.sum(axis=0) / n_queries
    return result


def _binned_probs(lengths: np.ndarray, hits: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    n_queries = len(lengths)
    if n_queries == 0:
        return np.zeros(len(bounds) - 1)
    inside = hits[:, 1] < bounds[-1]
    segment = np.searchsorted(bounds, hits[inside, 1], side="right") - 1
    counts = np.bincount(segment, minlength=len(bounds) - 1).astype(np.float64)
    return counts / n_queries / np.diff(bounds)


def train(
    method: str,
    qrels: Qrels,
    runs: Sequence[Run],
    *,
    n_segments: int | None = None,
    rel: float = 1.0,
) -> dict[str, Any]:
    """Learn the parameters of a supervised fusion method from judgments.

    Parameters
    ----------
    method : {"posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse"}
        The supervised method.
    qrels : Qrels
        Training judgments.
    runs : sequence of Run
        The training runs, in the order of the runs to fuse.
    n_segments : int, optional
        probfuse's number of segments (required for probfuse).
    rel : float
        Minimum grade that is relevant.

    Returns
    -------
    dict
        ``{"probs": [...]}``, ``{"log_odds": [...]}`` or ``{"map_scores": [...]}``,
        one entry per run, to pass to :func:`rankwise.fuse`.

    Examples
    --------
    >>> from rankwise.data import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    >>> runs = [Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}})]
    >>> train("posfuse", qrels, runs)["probs"][0].tolist()
    [0.5, 0.5]
    """
    if method not in LEARNING:
        raise InvalidParameterError(f"fusion method {method!r} learns nothing")
    if method == "probfuse":
        check("n_segments", n_segments, POSITIVE_INT, where="probfuse",
              remedy="probfuse needs n_segments=, the number of segments (e.g. 10)")
    hit_lists = [_hit_matrix(qrels, run, rel) for run in runs]
    _check_learnable(method, qrels, runs, hit_lists, rel)
    if method == "mapfuse":
        from rankwise.engines.core import prepare_measures
        from rankwise.engines.numpy import NumpyEngine
        from rankwise.options import EvalOptions

        options = EvalOptions(rel=rel, missing="zero")
        measures = prepare_measures(["map"], options)
        engine = NumpyEngine()
        return {"map_scores": [
            float(engine.evaluate(qrels, run, measures, options).mean[str(measures[0])])
            for run in runs
        ]}
    out = []
    for lengths, hits in hit_lists:
        if method in ("posfuse", "slidefuse"):
            out.append(_position_probs(lengths, hits))
        elif method == "probfuse":
            out.append(_probfuse_probs(lengths, hits, int(n_segments)))  # type: ignore[arg-type]
        elif method == "segfuse":
            out.append(_binned_probs(lengths, hits, SEGFUSE_BOUNDS))
        else:  # bayesfuse
            out.append(binned_log_odds(lengths, hits, BAYES_BINS))
    return {"log_odds" if method == "bayesfuse" else "probs": out}
