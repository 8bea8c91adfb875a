"""ir_measures' measures (``ir_measures.measures``): the classes, their objects, the registry.

Examples
--------
>>> from rankwise.compat.ir_measures.measures import nDCG, registry
>>> registry["NDCG"] is nDCG, nDCG@10
(True, nDCG@10)
"""

import sys

from rankwise.compat.ir_measures._measures import (
    INSTANCES,
    MEASURE_CLASSES,
    Agg,
    BaseMeasure,
    MeanAgg,
    Measure,
    ParamInfo,
    SumAgg,
    register,
    registry,
)
from rankwise.compat.ir_measures._modules import MEASURE_MODULES, add_submodules

_NAMES = {
    "Measure": Measure, "BaseMeasure": BaseMeasure, "ParamInfo": ParamInfo, "MeanAgg": MeanAgg,
    "SumAgg": SumAgg, "Agg": Agg, "registry": registry, "register": register,
    **INSTANCES, **{f"_{name}": cls for name, cls in MEASURE_CLASSES.items()},
}
globals().update(_NAMES)
add_submodules(sys.modules[__name__], MEASURE_MODULES, _NAMES)

__all__ = ["BaseMeasure", "Measure", "MeanAgg", "ParamInfo", "SumAgg", "register", "registry",
           *INSTANCES]
