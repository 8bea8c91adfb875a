"""How measures are computed: numpy over all queries at once.

- :mod:`~rankwise.kernels.ranking`: from a run and judgments to the ranks of
  the judged documents (:class:`TiedRanking`), the input of every kernel;
- :mod:`~rankwise.kernels.context`: memoised arrays shared by the kernels;
- the kernels, by family: :mod:`~rankwise.kernels.precision`,
  :mod:`~rankwise.kernels.average_precision`, :mod:`~rankwise.kernels.dcg`,
  :mod:`~rankwise.kernels.rbp`, :mod:`~rankwise.kernels.counts`, and the
  expected values over tied orders, :mod:`~rankwise.kernels.tie_average`;
- :data:`KERNELS` maps each measure family to its kernel, and
  :data:`CUTOFF_KERNELS` the families that compute many cutoffs in one pass
  (:mod:`~rankwise.kernels.registry`).
"""

from __future__ import annotations

from rankwise.kernels.context import Context
from rankwise.kernels.ranking import RankedJudgments, TiedRanking, rank_all_ties, rank_judgments
from rankwise.kernels.registry import CUTOFF_KERNELS, KERNELS, CutoffKernel, Kernel

__all__ = [
    "CUTOFF_KERNELS",
    "KERNELS",
    "Context",
    "CutoffKernel",
    "Kernel",
    "RankedJudgments",
    "TiedRanking",
    "rank_all_ties",
    "rank_judgments",
]
