"""rankwise's public surface (issue 34, step 6): the public modules and exactly what each exports.

The public modules are ``rankwise`` itself and the modules below (the API
reference documents the same list: docs/_site/pages.py's ``PUBLIC_MODULES``).
Every other module is internal, whatever its name: it may change or move in
any release, the documentation never imports it, and a user never needs to.
The drop-ins' surfaces (``rankwise.compat.ir_measures`` and the submodules of
the ranx drop-in) are their peers' and are checked against them in
tests/compat/.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

import rankwise
from rankwise.exceptions import MissingDependencyError

ROOT = Path(__file__).resolve().parents[1]

PUBLIC: dict[str, set[str]] = {
    "rankwise.exceptions": {
        'DuplicateEntryError', 'InputFormatError', 'InvalidParameterError',
        'MeasureSyntaxError', 'MissingDependencyError', 'RankwiseError',
        'RankwiseWarning', 'UnknownMeasureError', 'UnsupportedMeasureError',
    },
    "rankwise.design": {
        'DESIGN_TESTS', 'DiscriminativePower', 'PowerRow', 'TopicSetSize',
        'TopicSetTable', 'discriminative_power', 'discriminative_power_results',
        'power', 'residual_variance', 'topic_set_size', 'topic_set_table',
    },
    "rankwise.stats": {
        'CORRECTIONS', 'MANY_SYSTEM_TESTS', 'PairedTestResult', 'TESTS', 'TEST_LABELS',
        'TukeyResult', 'TwoWayAnova', 'adjust_pvalues', 'bootstrap_test', 'cohens_dz',
        'compact_letters', 'paired_t_test', 'percentile_interval', 'randomization_test',
        'randomized_tukey_hsd', 'resolve_correction', 'resolve_test', 'sign_test',
        'stream', 't_interval', 'tukey_hsd', 'two_way_anova', 'wilcoxon_test',
        'wins_ties_losses',
    },
    "rankwise.report": {
        'CURVE_FAMILIES', 'ComparisonDisplay', 'CurvesDisplay', 'DifferencesDisplay',
        'DistributionDisplay', 'Report', 'comparison_figure', 'curves_figure',
        'differences_figure', 'distribution_figure', 'figure_to_svg', 'ndeval_csv',
        'ndeval_measures', 'plot_comparison', 'plot_results', 'save_figure',
    },
    "rankwise.metrics": {
        'average_precision', 'dcg_at_k', 'dcg_score', 'mean_average_precision',
        'mean_reciprocal_rank', 'ndcg_at_k', 'ndcg_score', 'reciprocal_rank',
    },
    "rankwise.spark": {
        'SparkRecommenderResults', 'SparkResults', 'check_executors', 'evaluate',
        'evaluate_paths', 'evaluate_recommendations', 'get_session', 'read_qrels',
        'read_run', 'ship',
    },
    "rankwise.integrations": {
        'GroupCache', 'evaluate_groups',
    },
    "rankwise.integrations.lightgbm": {
        'RankwiseEval', 'feval',
    },
    "rankwise.integrations.xgboost": {
        'CustomMetric', 'GroupMetric', 'custom_metric', 'eval_metric',
    },
    "rankwise.integrations.catboost": {
        'RankwiseMetric', 'metric',
    },
    "rankwise.integrations.sklearn": {
        'GroupScore', 'ranking_scorer',
    },
    "rankwise.compat.pytrec_eval": {
        'DuplicateLineError', 'PytrecEvalArgumentError', 'PytrecEvalTypeError',
        'RelevanceEvaluator', 'compute_aggregated_measure', 'parse_qrel', 'parse_run',
        'supported_measures', 'supported_nicknames',
    },
    "rankwise.compat.ranx": {
        'OptimizationReport', 'Qrels', 'Report', 'Run', 'compare', 'evaluate', 'fuse',
        'normalize', 'optimize_fusion',
    },
}
"""Each public module (besides ``rankwise``) and its ``__all__``, exactly."""

DROP_INS = ("rankwise.compat.ir_measures", "rankwise.compat.ranx")
"""Packages whose public submodules mirror a peer's module paths (``ranx.metrics``, ...)."""


def _imported(module: str) -> object:
    """The module, or a skip where it needs a library not installed (the GBDT hooks)."""
    try:
        return importlib.import_module(module)
    except MissingDependencyError as error:
        pytest.skip(str(error))


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_each_public_module_exports_exactly_its_names(module: str) -> None:
    found: Any = _imported(module)
    assert set(found.__all__) == PUBLIC[module]
    assert len(found.__all__) == len(set(found.__all__)), "a name listed twice"
    for name in found.__all__:
        assert getattr(found, name) is not None, name


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_nothing_public_is_defined_outside_all(module: str) -> None:
    """A function or class a public module defines is exported or has a leading underscore."""
    found: Any = _imported(module)
    stray = [name for name, value in vars(found).items()
             if not name.startswith("_") and (inspect.isfunction(value) or inspect.isclass(value))
             and value.__module__ == module and name not in found.__all__]
    assert stray == []


def test_the_api_reference_documents_the_public_modules() -> None:
    pages_file = ROOT / "docs" / "_site" / "pages.py"
    if not pages_file.exists():  # an unpacked sdist or an installed package's tests
        pytest.skip("no docs/ here")
    listed = re.search(r"PUBLIC_MODULES = \((.*?)\)", pages_file.read_text(encoding="utf-8"), re.S)
    assert listed is not None
    documented = set(re.findall(r'"([\w.]+)"', listed.group(1)))
    assert documented == (set(PUBLIC) - {"rankwise.exceptions"}) | {"rankwise.compat.ir_measures"}


IMPORT = re.compile(
    r"^\s*(?:>>> |\.\.\. )?(?:from (rankwise[\w.]*) import ([^#\n]+)|import (rankwise[\w.]*))",
    re.M)


def _is_public(module: str) -> bool:
    if module in ("rankwise", "rankwise.compat") or module in PUBLIC or module in DROP_INS:
        return True
    return any(module.startswith(f"{drop_in}.") and "._" not in module for drop_in in DROP_INS)


def _imports(text: str) -> list[tuple[str, list[str]]]:
    found = []
    for match in IMPORT.finditer(text):
        if match.group(3):
            found.append((match.group(3), []))
        else:
            names = match.group(2).replace("(", " ").replace(")", " ").replace("\\", " ")
            found.append((match.group(1), [n.split(" as ")[0].strip()
                                           for n in names.split(",") if n.strip()]))
    return found


def test_the_documentation_imports_only_public_names() -> None:
    """The pages a user reads (not docs/architecture.md, which is about the internals)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    pages = [p for p in pages if p.exists() and "_site" not in p.parts
             and p.name != "architecture.md"]
    if len(pages) < 2:
        pytest.skip("no docs/ here")
    private = []
    for page in pages:
        for module, names in _imports(page.read_text(encoding="utf-8")):
            if not _is_public(module):
                private.append(f"{page.name}: {module}")
                continue
            try:
                exported = importlib.import_module(module)
            except MissingDependencyError:  # public by the list; its names need its library
                continue
            for name in names:
                if name == "*":
                    private.append(f"{page.name}: from {module} import *")
                elif name not in getattr(exported, "__all__", ()) and not _is_public(
                        f"{module}.{name}"):
                    private.append(f"{page.name}: {module}.{name}")
    assert private == []


def test_imports_are_found() -> None:
    """The scan above reads every form an example imports with."""
    text = (">>> from rankwise.compat import ir_measures\n"
            ">>> import rankwise.compat.pytrec_eval as pytrec_eval\n"
            "from rankwise.report import (CurvesDisplay,\n"
            "    x)\n>>> from rankwise.io._fast import available  # the C reader\n")
    assert _imports(text) == [("rankwise.compat", ["ir_measures"]),
                              ("rankwise.compat.pytrec_eval", []),
                              ("rankwise.report", ["CurvesDisplay"]),
                              ("rankwise.io._fast", ["available"])]
    assert not _is_public("rankwise.io._fast") and not _is_public("rankwise.io")
    assert _is_public("rankwise.compat.ranx.metrics")
    assert not _is_public("rankwise.compat.ranx._table")
    assert rankwise.__all__ == sorted(rankwise.__all__)
