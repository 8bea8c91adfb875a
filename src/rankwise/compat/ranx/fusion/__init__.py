"""ranx's fusion functions (``from ranx.fusion import rrf``), fused by rankwise.

Every method of :func:`rankwise.compat.ranx.fuse` as a function with ranx's
signature (``rrf(runs, k=60)``, ``wsum(runs, weights)``, ...), the trainers of
the supervised ones (``probfuse_train(qrels, runs, n_segments)``, ...) and
:func:`fusion_switch`. See :mod:`rankwise.compat.ranx.fusion._methods`.

Examples
--------
>>> from rankwise.compat.ranx import Run
>>> from rankwise.compat.ranx.fusion import comb_sum
>>> fused = comb_sum([Run({"q1": {"d1": 1.0, "d2": 2.0}}), Run({"q1": {"d1": 3.0}})])
>>> fused.name, fused.run
('comb_sum', {'q1': {'d1': 4.0, 'd2': 2.0}})
"""

from collections.abc import Callable
from typing import Any

from rankwise.compat.ranx.fusion._methods import (
    bordafuse,
    comb_anz,
    comb_gmnz,
    comb_max,
    comb_med,
    comb_min,
    comb_mnz,
    comb_sum,
    isr,
    log_isr,
    logn_isr,
    mapfuse,
    mapfuse_train,
    mixed,
    posfuse,
    posfuse_train,
    probfuse,
    probfuse_train,
    rbc,
    rrf,
    segfuse,
    segfuse_train,
    slidefuse,
    slidefuse_train,
    switch,
    weighted_bordafuse,
    wmnz,
    wsum,
)
from rankwise.compat.ranx.fusion.bayesfuse import bayesfuse, bayesfuse_train
from rankwise.compat.ranx.fusion.condorcet import condorcet, weighted_condorcet

__all__ = [
    "bayesfuse", "bayesfuse_train", "bordafuse", "comb_anz", "comb_gmnz", "comb_max",
    "comb_med", "comb_min", "comb_mnz", "comb_sum", "condorcet", "fusion_switch", "isr",
    "log_isr", "logn_isr", "mapfuse", "mapfuse_train", "mixed", "posfuse", "posfuse_train",
    "probfuse", "probfuse_train", "rbc", "rrf", "segfuse", "segfuse_train", "slidefuse",
    "slidefuse_train", "weighted_bordafuse", "weighted_condorcet", "wmnz", "wsum",
]

METHODS: dict[str, Callable[..., Any]] = {
    "bayesfuse": bayesfuse, "bordafuse": bordafuse, "anz": comb_anz, "gmnz": comb_gmnz,
    "max": comb_max, "med": comb_med, "min": comb_min, "mnz": comb_mnz, "sum": comb_sum,
    "condorcet": condorcet, "isr": isr, "log_isr": log_isr, "logn_isr": logn_isr,
    "mapfuse": mapfuse, "mixed": mixed, "posfuse": posfuse, "probfuse": probfuse, "rbc": rbc,
    "rrf": rrf, "segfuse": segfuse, "slidefuse": slidefuse, "w_bordafuse": weighted_bordafuse,
    "w_condorcet": weighted_condorcet, "wmnz": wmnz, "wsum": wsum,
}
"""ranx's method names (``fuse(method=...)``) and their functions."""


def fusion_switch(method: str) -> Callable[..., Any]:
    """The fusion function of a method name (``"rrf"`` -> :func:`rrf`).

    Raises
    ------
    InvalidParameterError
        An unknown method.
    """
    return switch(METHODS, method)
