"""ir_measures' providers (``ir_measures.providers``), computed by rankwise.

Examples
--------
>>> from rankwise.compat.ir_measures.providers import registry
>>> registry["pytrec_eval"].NAME, "trectools" in registry
('pytrec_eval', True)
"""

import sys

from rankwise.compat.ir_measures._base import (
    NOT_PROVIDED,
    Any,
    Choices,
    Evaluator,
    ParamSpec,
    Provider,
    register,
    registry,
)
from rankwise.compat.ir_measures._modules import PROVIDER_MODULES, add_submodules
from rankwise.compat.ir_measures._pipeline import FallbackEvaluator, FallbackProvider
from rankwise.compat.ir_measures._providers import (
    AccuracyProvider,
    CompatProvider,
    CwlEvalProvider,
    CwlMetric,
    GdevalProvider,
    JudgedProvider,
    MsMarcoProvider,
    PyNdEvalProvider,
    PytrecEvalProvider,
    RanxProvider,
    TrectoolsProvider,
)
from rankwise.compat.ir_measures._runtime import (
    RuntimeEvaluator,
    RuntimeProvider,
    define,
    define_byquery,
)

__all__ = [
    "NOT_PROVIDED", "AccuracyProvider", "Any", "Choices", "CompatProvider", "CwlEvalProvider",
    "CwlMetric", "Evaluator", "FallbackEvaluator", "FallbackProvider", "GdevalProvider",
    "JudgedProvider", "MsMarcoProvider", "ParamSpec", "Provider", "PyNdEvalProvider",
    "PytrecEvalProvider", "RanxProvider", "RuntimeEvaluator", "RuntimeProvider",
    "TrectoolsProvider", "define", "define_byquery", "register", "registry",
]

add_submodules(sys.modules[__name__], PROVIDER_MODULES, {name: globals()[name] for name in __all__})
