"""rankwise: exact, fast evaluation of rankings.

The public names are loaded on first use (PEP 562), so ``import rankwise``
and ``rankwise --help`` stay fast: numpy and pyarrow are imported only when
something is computed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankwise._version import __version__
from rankwise.exceptions import (
    DuplicateEntryError,
    InputFormatError,
    InvalidParameterError,
    MeasureSyntaxError,
    MissingDependencyError,
    RankwiseError,
    RankwiseWarning,
    UnknownMeasureError,
    UnsupportedMeasureError,
)

if TYPE_CHECKING:
    from rankwise._compiled import speedups
    from rankwise.comparison import Comparison, compare, compare_results
    from rankwise.data import Qrels, Run
    from rankwise.evaluation import evaluate, evaluate_runs
    from rankwise.explanation import explain
    from rankwise.fusion import fuse
    from rankwise.fusion.optimize import optimize_fusion
    from rankwise.guidance import Guide, guide
    from rankwise.io import read_qrels, read_run, read_trec_qrels, read_trec_run
    from rankwise.measures import Measure, parse
    from rankwise.options import CompareOptions, EvalOptions, FusionOptions, RecommenderOptions
    from rankwise.recommenders import (
        compare_recommendations,
        evaluate_recommendations,
        report_recommendations,
    )
    from rankwise.reporting import build_report
    from rankwise.reproducibility import measure_agreement, rbo, reproduce
    from rankwise.results import Results

_LAZY = {
    "Comparison": "rankwise.comparison",
    "compare": "rankwise.comparison",
    "compare_results": "rankwise.comparison",
    "CompareOptions": "rankwise.options",
    "EvalOptions": "rankwise.options",
    "FusionOptions": "rankwise.options",
    "RecommenderOptions": "rankwise.options",
    "evaluate_runs": "rankwise.evaluation",
    "evaluate_recommendations": "rankwise.recommenders",
    "compare_recommendations": "rankwise.recommenders",
    "report_recommendations": "rankwise.recommenders",
    "fuse": "rankwise.fusion",
    "optimize_fusion": "rankwise.fusion.optimize",
    "Guide": "rankwise.guidance",
    "guide": "rankwise.guidance",
    "build_report": "rankwise.reporting",
    "Qrels": "rankwise.data",
    "Run": "rankwise.data",
    "evaluate": "rankwise.evaluation",
    "explain": "rankwise.explanation",
    "read_qrels": "rankwise.io",
    "read_run": "rankwise.io",
    "read_trec_qrels": "rankwise.io",
    "read_trec_run": "rankwise.io",
    "Measure": "rankwise.measures",
    "parse": "rankwise.measures",
    "Results": "rankwise.results",
    "design": "rankwise.design",
    "measure_agreement": "rankwise.reproducibility",
    "rbo": "rankwise.reproducibility",
    "reproduce": "rankwise.reproducibility",
    "speedups": "rankwise._compiled",
}
"""Public name -> the module that defines it (a module itself when the names are the same)."""

__all__ = [
    "CompareOptions",
    "Comparison",
    "DuplicateEntryError",
    "EvalOptions",
    "FusionOptions",
    "Guide",
    "InputFormatError",
    "InvalidParameterError",
    "Measure",
    "MeasureSyntaxError",
    "MissingDependencyError",
    "Qrels",
    "RankwiseError",
    "RankwiseWarning",
    "RecommenderOptions",
    "Results",
    "Run",
    "UnknownMeasureError",
    "UnsupportedMeasureError",
    "__version__",
    "build_report",
    "compare",
    "compare_recommendations",
    "compare_results",
    "design",
    "evaluate",
    "evaluate_recommendations",
    "evaluate_runs",
    "explain",
    "fuse",
    "guide",
    "measure_agreement",
    "optimize_fusion",
    "parse",
    "rbo",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "report_recommendations",
    "reproduce",
    "speedups",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rankwise' has no attribute {name!r}")
    value = importlib.import_module(module)
    if module.rpartition(".")[2] != name:  # a name defined in the module, not the module
        value = getattr(value, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
