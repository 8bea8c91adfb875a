"""``KERNELS``: each measure family's kernel, gathered from the modules that hold them.

A kernel is a function ``(Context, Measure) -> ndarray`` of one value per
evaluated query. Each kernel module names its own in a ``KERNELS`` dict;
adding a module of kernels is one line here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels import (
    average_precision,
    counts,
    cwl,
    dcg,
    dialects,
    diversity,
    err,
    other,
    precision,
    rbp,
)
from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure

__all__ = [
    "CUTOFF_KERNELS", "DIALECT_KERNELS", "KERNELS", "OWN_FAMILIES", "CutoffKernel", "Kernel",
]

DIALECT_KERNELS = dialects.DIALECT_KERNELS
OWN_FAMILIES = dialects.OWN_FAMILIES
"""Measure family -> kernel following a :class:`~rankwise.measures.dialects.Conventions`
record (the measures of another tool's dialect)."""

Kernel = Callable[[Context, Measure], np.ndarray]
CutoffKernel = Callable[[Context, Measure, np.ndarray], np.ndarray]

KERNELS: dict[str, Kernel] = {
    **precision.KERNELS,
    **average_precision.KERNELS,
    **dcg.KERNELS,
    **rbp.KERNELS,
    **counts.KERNELS,
    **dialects.KERNELS,
    **err.KERNELS,
    **diversity.KERNELS,
    **cwl.KERNELS,
    **other.KERNELS,
}
"""Measure family -> kernel (the ``ties="trec"``, ``"worst"``, ``"best"`` and ``"rank"`` one;
``ties="average"`` has its own in :mod:`rankwise.kernels.tie_average`)."""

CUTOFF_KERNELS: dict[str, CutoffKernel] = {
    **precision.CUTOFF_KERNELS,
    **dcg.CUTOFF_KERNELS,
}
"""Measure family -> kernel of many cutoffs at once: ``(Context, Measure, cutoffs)`` -> one
row per cutoff, each row bit for bit what the family's :data:`KERNELS` entry gives at that
cutoff. The engine core uses it when a family is asked at several cutoffs (the curves of
a report: ``ndcg@1`` ... ``ndcg@100``), so the cost is one pass, not one per cutoff."""
