"""How measures are computed: numpy over all queries at once.

:data:`KERNELS` maps each measure family to its kernel, a function
``(Context, Measure) -> ndarray`` of one value per evaluated query.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels import core, trec
from rankwise.kernels.context import Context
from rankwise.kernels.ranking import RankedJudgments, rank_all_ties, rank_judgments
from rankwise.measures.spec import Measure

Kernel = Callable[[Context, Measure], np.ndarray]

KERNELS: dict[str, Kernel] = {
    "ndcg": core.ndcg,
    "dcg": core.dcg,
    "map": core.average_precision,
    "gm_map": core.average_precision,
    "mrr": core.reciprocal_rank,
    "P": core.precision,
    "recall": core.recall,
    "Rprec": core.r_precision,
    "hit": core.hit,
    "judged": core.judged_at,
    "set_P": core.set_precision,
    "set_recall": core.set_recall,
    "set_F": core.set_f,
    "set_map": core.set_map,
    "set_relative_P": core.set_relative_precision,
    "relative_P": core.relative_precision,
    "num_q": core.num_q,
    "num_ret": core.num_ret,
    "num_rel": core.num_rel,
    "num_rel_ret": core.num_rel_ret,
    "num_nonrel_judged_ret": core.num_nonrel_judged_ret,
    "iprec_at_recall": core.iprec_at_recall,
    "11pt_avg": core.eleven_point_average,
    **trec.KERNELS,
}

__all__ = ["KERNELS", "Context", "RankedJudgments", "rank_all_ties", "rank_judgments"]
