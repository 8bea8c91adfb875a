"""How measures are computed: numpy over all queries at once.

Every kernel reads the ranks of the judged documents that
:mod:`rankwise.ranking` computes (a :class:`~rankwise.ranking.tied.RankedJudgments`,
one view of a :class:`~rankwise.ranking.tied.TiedRanking`); this package holds
the kernels only:

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
from rankwise.kernels.registry import CUTOFF_KERNELS, KERNELS, CutoffKernel, Kernel

__all__ = [
    "CUTOFF_KERNELS",
    "KERNELS",
    "Context",
    "CutoffKernel",
    "Kernel",
]
