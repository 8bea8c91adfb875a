"""Kernels of trec_eval's less common measures (bpref, infAP, utility, rbp, G, ...)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankwise.kernels.context import Context
from rankwise.measures.spec import Measure

KERNELS: dict[str, Callable[[Context, Measure], np.ndarray]] = {}
