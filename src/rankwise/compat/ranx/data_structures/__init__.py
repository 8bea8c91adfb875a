"""ranx's data structures: ``Qrels``, ``Run``, ``Report``, ``OptimizationReport``."""

from rankwise.compat.ranx.data_structures.frozenset_dict import FrozensetDict
from rankwise.compat.ranx.data_structures.optimization_report import OptimizationReport
from rankwise.compat.ranx.data_structures.qrels import Qrels
from rankwise.compat.ranx.data_structures.report import Report
from rankwise.compat.ranx.data_structures.run import Run

__all__ = ["FrozensetDict", "OptimizationReport", "Qrels", "Report", "Run"]
