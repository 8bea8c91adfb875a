"""Kernels of the intent-aware (diversity) measures of ndeval (TREC Web track 2009-2014).

alpha-nDCG, ERR-IA, NRBP and their normalised forms, MAP-IA, P-IA and
subtopic recall, with ndeval's conventions (Clarke et al., SIGIR 2008;
Chapelle et al., CIKM 2009 / Clarke et al., ICTIR 2009 for ERR-IA and NRBP):

- a document's novelty gain at rank i is g(i) = sum over the subtopics j it
  is relevant to (grade >= rel) of (1 - alpha)^(documents above it relevant
  to j), summed in subtopic order;
- M is the number of subtopics of the query with a relevant document; a
  query with M = 0 scores 0 (ndeval prints nNRBP = nan there);
- alpha-DCG@k and ERR-IA@k are divided by the "ideal-ideal" gain: M
  documents' worth of gain at every rank (sum_{i<=k} M (1-alpha)^(i-1)
  discount(i)); alpha-nDCG, nERR-IA and nNRBP divide by the value of ndeval's
  greedy ideal ranking (:meth:`SubtopicView.ideal`).

Everything is a sum over (hit, subtopic) triples: no loop per query.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels._segments import per_query_sum, safe_divide
from rankwise.kernels.context import Context
from rankwise.kernels.subtopics import SubtopicView, novelty_powers, nrbp_depth
from rankwise.measures.spec import Measure


def _view(ctx: Context, m: Measure) -> SubtopicView:
    rel = float(m.param("rel"))
    view: SubtopicView = ctx.memo(("subtopics", rel), lambda: SubtopicView(ctx.data, rel))
    return view


def _discount(rank: np.ndarray) -> np.ndarray:
    """Ndeval's DCG discount: log 2 / log(rank + 1) (1 at rank 1)."""
    out: np.ndarray = np.log(2.0) / np.log(np.asarray(rank, dtype=np.float64) + 1.0)
    return out


def _ideal_ideal(
    m: Measure, subtopics: np.ndarray, weight: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """M documents' worth of gain at each rank 1..k: sum_{i<=k} M (1 - alpha)^(i-1) weight(i)."""
    k = int(m.cutoff)  # type: ignore[arg-type]
    ranks = np.arange(1, k + 1, dtype=np.float64)
    powers = novelty_powers(float(m.param("alpha")), k - 1)
    return subtopics * float(np.sum(powers * weight(ranks)))


def _run_sum(
    ctx: Context, m: Measure, weight: Callable[[np.ndarray], np.ndarray], cutoff: int | None
) -> np.ndarray:
    """Sum over the hits ranked within *cutoff* of g(rank) * weight(rank)."""
    d = ctx.data
    view = _view(ctx, m)
    alpha = float(m.param("alpha"))
    gains = ctx.memo(("novelty", view.rel, alpha), lambda: view.gains(alpha))
    top = d.hit_rank <= cutoff if cutoff is not None else np.ones(len(gains), dtype=bool)
    return per_query_sum(d.hit_query[top], gains[top] * weight(d.hit_rank[top]), ctx.n_queries)


def _ideal_sum(ctx: Context, m: Measure, weight: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The same sum over ndeval's greedy ideal ranking."""
    ideal = _view(ctx, m).ideal(float(m.param("alpha")), m.cutoff)
    keep = ideal.position <= (m.cutoff if m.cutoff is not None else np.inf)
    return per_query_sum(
        ideal.query[keep], ideal.gain[keep] * weight(ideal.position[keep]), ctx.n_queries
    )


def _reciprocal(rank: np.ndarray) -> np.ndarray:
    return 1.0 / np.asarray(rank, dtype=np.float64)


def alpha_dcg(ctx: Context, m: Measure) -> np.ndarray:
    """alpha-DCG@k: sum g(i) discount(i) over the top k, over the ideal-ideal's (ndeval)."""
    subtopics = _view(ctx, m).subtopics
    return safe_divide(
        _run_sum(ctx, m, _discount, m.cutoff), _ideal_ideal(m, subtopics, _discount)
    )


def alpha_ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """alpha-nDCG@k: the run's alpha-DCG@k over that of the greedy ideal ranking."""
    return safe_divide(_run_sum(ctx, m, _discount, m.cutoff), _ideal_sum(ctx, m, _discount))


def err_ia(ctx: Context, m: Measure) -> np.ndarray:
    """ERR-IA@k: sum g(i) / i over the top k, over the ideal-ideal's (ndeval)."""
    subtopics = _view(ctx, m).subtopics
    return safe_divide(
        _run_sum(ctx, m, _reciprocal, m.cutoff), _ideal_ideal(m, subtopics, _reciprocal)
    )


def nerr_ia(ctx: Context, m: Measure) -> np.ndarray:
    """nERR-IA@k: the run's ERR-IA@k over that of the greedy ideal ranking."""
    return safe_divide(_run_sum(ctx, m, _reciprocal, m.cutoff), _ideal_sum(ctx, m, _reciprocal))


def _nrbp_sums(ctx: Context, m: Measure, ideal: bool) -> np.ndarray:
    view = _view(ctx, m)
    beta = float(m.param("beta"))

    def weight(rank: np.ndarray) -> np.ndarray:
        return beta ** (np.asarray(rank, dtype=np.float64) - 1.0)

    if not ideal:
        return _run_sum(ctx, m, weight, None)
    depth = nrbp_depth(beta, float(view.subtopics.max()) if len(view.subtopics) else 1.0)
    best = view.ideal(float(m.param("alpha")), depth)
    keep = best.position <= depth if depth is not None else np.ones(len(best.gain), dtype=bool)
    return per_query_sum(
        best.query[keep], best.gain[keep] * weight(best.position[keep]), ctx.n_queries
    )


def nrbp(ctx: Context, m: Measure) -> np.ndarray:
    """NRBP = (1 - (1 - alpha) beta) / M * sum_i beta^(i-1) g(i), over the whole ranking."""
    alpha, beta = float(m.param("alpha")), float(m.param("beta"))
    scale = safe_divide(
        np.full(ctx.n_queries, 1.0 - (1.0 - alpha) * beta), _view(ctx, m).subtopics
    )
    out: np.ndarray = scale * _nrbp_sums(ctx, m, ideal=False)
    return out


def nnrbp(ctx: Context, m: Measure) -> np.ndarray:
    """nNRBP: NRBP over that of the greedy ideal ranking (0 when M = 0; ndeval: nan)."""
    return safe_divide(_nrbp_sums(ctx, m, ideal=False), _nrbp_sums(ctx, m, ideal=True))


def ap_ia(ctx: Context, m: Measure) -> np.ndarray:
    """MAP-IA: (1/M) sum over subtopics j of (1/R_j) sum_{i relevant to j} n_j(i) / i.

    n_j(i): documents relevant to j at ranks 1..i; R_j: relevant to j in the judgments.
    """
    d = ctx.data
    view = _view(ctx, m)
    hit, topic, seen = view.triples
    terms = (seen + 1.0) / d.hit_rank[hit] / view.relevant_per_topic[topic]
    return safe_divide(per_query_sum(d.hit_query[hit], terms, ctx.n_queries), view.subtopics)


def p_ia(ctx: Context, m: Measure) -> np.ndarray:
    """P-IA@k: (subtopic relevance of the top k, summed) / (k M)."""
    d = ctx.data
    view = _view(ctx, m)
    hit, _, _ = view.triples
    k = int(m.cutoff)  # type: ignore[arg-type]
    top = d.hit_rank[hit] <= k
    return safe_divide(
        per_query_sum(d.hit_query[hit[top]], None, ctx.n_queries), k * view.subtopics
    )


def subtopic_recall(ctx: Context, m: Measure) -> np.ndarray:
    """strec@k: subtopics with a relevant document in the top k, over M."""
    d = ctx.data
    view = _view(ctx, m)
    hit, _, seen = view.triples
    k = int(m.cutoff)  # type: ignore[arg-type]
    first = (seen == 0) & (d.hit_rank[hit] <= k)
    return safe_divide(
        per_query_sum(d.hit_query[hit[first]], None, ctx.n_queries), view.subtopics
    )


KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {
    "alpha_dcg": alpha_dcg,
    "alpha_ndcg": alpha_ndcg,
    "err_ia": err_ia,
    "nerr_ia": nerr_ia,
    "nrbp": nrbp,
    "nnrbp": nnrbp,
    "ap_ia": ap_ia,
    "p_ia": p_ia,
    "strec": subtopic_recall,
}
"""Measure family -> kernel."""
