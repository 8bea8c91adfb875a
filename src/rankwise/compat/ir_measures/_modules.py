"""ir_measures' module paths, for code that imports them: ``ir_measures.measures.accuracy``.

The drop-in keeps its code in a few private modules; code written for
ir_measures imports names from its submodules (``from ir_measures.measures
import BaseMeasure``, ``from ir_measures.providers.base import Any``).
:func:`add_submodules` gives a package the leaf modules ir_measures has,
each holding the same objects, under the package's own name: so they are
there whether the drop-in is imported as ``rankwise.compat.ir_measures`` or
put in ``sys.modules["ir_measures"]``.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from typing import Any

__all__ = ["MEASURE_MODULES", "PROVIDER_MODULES", "add_submodules"]


def _measure_names(*names: str) -> tuple[str, ...]:
    return tuple(name for base in names for name in (base, f"_{base}"))


MEASURE_MODULES: dict[str, tuple[str, ...]] = {
    "base": ("Measure", "BaseMeasure", "ParamInfo", "MeanAgg", "SumAgg", "Agg", "registry",
             "register"),
    "accuracy": _measure_names("Accuracy"),
    "ap": (*_measure_names("AP"), "MAP"),
    "bpm": _measure_names("BPM"),
    "bpref": (*_measure_names("Bpref"), "BPref"),
    "compat": _measure_names("Compat"),
    "diversity": (*_measure_names("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "NRBP",
                                  "nNRBP", "AP_IA", "P_IA", "StRecall"),
                  "\u03b1_DCG", "\u03b1_nDCG", "MAP_IA"),
    "err": _measure_names("ERR"),
    "infap": _measure_names("infAP"),
    "inst": _measure_names("INST", "INSQ"),
    "iprec": _measure_names("IPrec"),
    "judged": _measure_names("Judged"),
    "ndcg": (*_measure_names("nDCG"), "NDCG"),
    "nerr": _measure_names("NERR8", "NERR9", "NERR10", "NERR11"),
    "numq": _measure_names("NumQ"),
    "numrel": _measure_names("NumRel"),
    "numret": (*_measure_names("NumRet"), "NumRelRet"),
    "p": (*_measure_names("P"), "Precision"),
    "r": (*_measure_names("R"), "Recall"),
    "rbp": _measure_names("RBP"),
    "rprec": (*_measure_names("Rprec"), "RPrec"),
    "rr": (*_measure_names("RR"), "MRR"),
    "sdcg": _measure_names("SDCG"),
    "set_measures": (*_measure_names("SetP", "SetR", "SetF", "SetAP"), "SetRelP"),
    "success": _measure_names("Success"),
}
"""ir_measures.measures' submodules and the names each holds."""

PROVIDER_MODULES: dict[str, tuple[str, ...]] = {
    "base": ("Provider", "Evaluator", "registry", "register", "Any", "Choices", "NOT_PROVIDED",
             "ParamSpec"),
    "accuracy_provider": ("AccuracyProvider",),
    "compat_provider": ("CompatProvider",),
    "cwl_eval": ("CwlEvalProvider", "CwlMetric"),
    "fallback_provider": ("FallbackProvider", "FallbackEvaluator"),
    "gdeval_provider": ("GdevalProvider",),
    "judged_provider": ("JudgedProvider",),
    "msmarco_provider": ("MsMarcoProvider",),
    "pyndeval_provider": ("PyNdEvalProvider",),
    "pytrec_eval_provider": ("PytrecEvalProvider",),
    "ranx_provider": ("RanxProvider",),
    "runtime_provider": ("RuntimeProvider", "RuntimeEvaluator", "define", "define_byquery"),
    "trectools_provider": ("TrectoolsProvider",),
}
"""ir_measures.providers' submodules and the names each holds."""


def add_submodules(package: types.ModuleType, modules: Mapping[str, tuple[str, ...]],
                   names: Mapping[str, Any]) -> None:
    """Give *package* a leaf module per entry of *modules*, holding those of *names*."""
    for leaf, held in modules.items():
        full = f"{package.__name__}.{leaf}"
        module = sys.modules.get(full)
        if module is None:
            module = types.ModuleType(full, f"ir_measures' {leaf} module (rankwise's drop-in).")
            for name in held:
                setattr(module, name, names[name])
            module.__all__ = list(held)  # type: ignore[attr-defined]
            sys.modules[full] = module
        setattr(package, leaf, module)
