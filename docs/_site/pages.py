"""The pages of the documentation site made from the code, so they cannot drift from it.

- :func:`measures_page`: the measure catalogue, from ``rankwise.measures``'s
  catalogue as ``rankwise measures`` prints it (``describe_family``,
  ``list_trec_names``);
- :func:`cli_page`: the command line reference, from the argparse parsers of
  ``rankwise.cli.app`` (each command's ``--help``);
- :func:`api_pages`: the API reference, one page per group of :data:`GROUPS`,
  each public name rendered from its docstring by mkdocstrings, with the
  example of :data:`EXAMPLES` where the docstring has none.

Plain functions of the code (no MkDocs): ``hooks.py`` adds the pages to the
site, tests/test_docs_site.py checks them and runs their examples.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
from collections.abc import Iterator
from typing import Any

PUBLIC_MODULES = (
    "rankwise.design",
    "rankwise.stats",
    "rankwise.report",
    "rankwise.metrics",
    "rankwise.compat.pytrec_eval",
    "rankwise.compat.ir_measures",
    "rankwise.compat.ranx",
    "rankwise.integrations",
    "rankwise.integrations.lightgbm",
    "rankwise.integrations.xgboost",
    "rankwise.integrations.catboost",
    "rankwise.integrations.sklearn",
    "rankwise.spark",
)
"""The public subpackages and modules whose ``__all__`` the API reference documents,
besides ``rankwise.__all__``."""

GROUPS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("evaluate", "Evaluating", "Evaluate a run against judgments; the measures and options.",
     ("rankwise.evaluate", "rankwise.evaluate_runs", "rankwise.Results", "rankwise.EvalOptions",
      "rankwise.Measure", "rankwise.parse")),
    ("data", "Judgments and runs", "Read judgments and runs from files, frames and dicts.",
     ("rankwise.Qrels", "rankwise.Run", "rankwise.read_qrels", "rankwise.read_run",
      "rankwise.read_trec_qrels", "rankwise.read_trec_run", "rankwise.speedups")),
    ("guide", "The guide", "Which measures the judgments and runs support "
     "(see [Which measure fits](../../guide.md)).", ("rankwise.guide", "rankwise.Guide")),
    ("compare", "Comparing systems", "Paired significance tests, corrections, intervals.",
     ("rankwise.compare", "rankwise.compare_results", "rankwise.Comparison",
      "rankwise.CompareOptions")),
    ("design", "Study design", "How many topics; the power of a comparison; discriminative "
     "power (`rankwise.design`).",
     ("rankwise.design.topic_set_size", "rankwise.design.topic_set_table",
      "rankwise.design.residual_variance", "rankwise.design.power",
      "rankwise.design.discriminative_power", "rankwise.design.discriminative_power_results",
      "rankwise.design.TopicSetSize", "rankwise.design.TopicSetTable",
      "rankwise.design.PowerRow", "rankwise.design.DiscriminativePower",
      "rankwise.design.DESIGN_TESTS")),
    ("reproducibility", "Reproducibility and agreement", "Reproduction measures, rank-biased "
     "overlap, agreement between measures.",
     ("rankwise.reproduce", "rankwise.rbo", "rankwise.measure_agreement")),
    ("explain", "Why two tools disagree", "The difference between two dialects, convention "
     "by convention.", ("rankwise.explain",)),
    ("recommenders", "Recommenders", "Interactions as judgments, beyond-accuracy measures; "
     "models compared user by user, and their report.",
     ("rankwise.evaluate_recommendations", "rankwise.RecommenderOptions",
      "rankwise.compare_recommendations", "rankwise.report_recommendations")),
    ("fusion", "Fusion", "Combine runs; tune the fusion.",
     ("rankwise.fuse", "rankwise.optimize_fusion", "rankwise.FusionOptions")),
    ("statistics", "Statistics", "The paired tests, intervals, corrections and many-system "
     "tests under `compare`, on arrays of per-query values (`rankwise.stats`).",
     tuple(f"rankwise.stats.{name}" for name in (
         "paired_t_test", "wilcoxon_test", "sign_test", "randomization_test", "bootstrap_test",
         "PairedTestResult", "t_interval", "percentile_interval", "cohens_dz",
         "wins_ties_losses", "adjust_pvalues", "resolve_correction", "resolve_test",
         "two_way_anova", "TwoWayAnova", "tukey_hsd", "randomized_tukey_hsd", "TukeyResult",
         "compact_letters", "stream", "TESTS", "TEST_LABELS", "MANY_SYSTEM_TESTS",
         "CORRECTIONS"))),
    ("report", "Reports", "One self-contained HTML report; its figures for notebooks and "
     "files (`rankwise.report`).",
     ("rankwise.build_report", *(f"rankwise.report.{name}" for name in (
         "Report", "plot_results", "plot_comparison", "CurvesDisplay", "DifferencesDisplay",
         "DistributionDisplay", "ComparisonDisplay", "curves_figure", "differences_figure",
         "distribution_figure", "comparison_figure", "figure_to_svg", "save_figure",
         "CURVE_FAMILIES", "ndeval_csv", "ndeval_measures")))),
    ("errors", "Errors and warnings", "Every error rankwise raises is a `RankwiseError`.",
     ("rankwise.RankwiseError", "rankwise.InputFormatError", "rankwise.DuplicateEntryError",
      "rankwise.MeasureSyntaxError", "rankwise.UnknownMeasureError",
      "rankwise.UnsupportedMeasureError", "rankwise.InvalidParameterError",
      "rankwise.MissingDependencyError", "rankwise.RankwiseWarning")),
    ("metrics", "Tutorial metrics", "The classic tutorial's functions on plain lists "
     "(`rankwise.metrics`).",
     tuple(f"rankwise.metrics.{name}" for name in (
         "dcg_at_k", "ndcg_at_k", "average_precision", "mean_average_precision",
         "reciprocal_rank", "mean_reciprocal_rank", "ndcg_score", "dcg_score"))),
    ("pytrec_eval", "pytrec_eval drop-in", "`import rankwise.compat.pytrec_eval as pytrec_eval`.",
     tuple(f"rankwise.compat.pytrec_eval.{name}" for name in (
         "RelevanceEvaluator", "parse_qrel", "parse_run", "compute_aggregated_measure",
         "supported_measures", "supported_nicknames", "PytrecEvalTypeError",
         "PytrecEvalArgumentError", "DuplicateLineError"))),
    ("ir_measures", "ir_measures drop-in", "`from rankwise.compat import ir_measures`: "
     "ir_measures 0.4's names (its measure objects, providers and modules are ir_measures').",
     tuple(f"rankwise.compat.ir_measures.{name}" for name in (
         "calc_aggregate", "iter_calc", "calc", "evaluator", "Evaluator", "CalcResults",
         "Metric", "register", "unregister", "provider", "Measure", "ParamInfo", "MeanAgg",
         "SumAgg", "Provider", "Qrel", "ScoredDoc", "CwlMetric", "parse_measure",
         "parse_trec_measure", "read_trec_qrels", "read_trec_run", "define",
         "define_byquery"))),
    ("ranx", "ranx drop-in", "`from rankwise.compat.ranx import Qrels, Run, evaluate, compare, "
     "fuse, optimize_fusion`: ranx 0.3's names (its submodules `metrics`, `fusion`, "
     "`normalization` and `data_structures` too).",
     tuple(f"rankwise.compat.ranx.{name}" for name in (
         "Qrels", "Run", "evaluate", "compare", "Report", "fuse", "normalize",
         "optimize_fusion", "OptimizationReport"))),
    ("integrations", "Training hooks", "The same measures in LightGBM, XGBoost, CatBoost and "
     "scikit-learn (`rankwise.integrations`).",
     ("rankwise.integrations.evaluate_groups", "rankwise.integrations.GroupCache",
      "rankwise.integrations.lightgbm.feval", "rankwise.integrations.lightgbm.RankwiseEval",
      "rankwise.integrations.xgboost.custom_metric", "rankwise.integrations.xgboost.CustomMetric",
      "rankwise.integrations.xgboost.eval_metric", "rankwise.integrations.xgboost.GroupMetric",
      "rankwise.integrations.catboost.metric", "rankwise.integrations.catboost.RankwiseMetric",
      "rankwise.integrations.sklearn.ranking_scorer",
      "rankwise.integrations.sklearn.GroupScore")),
    ("spark", "Spark", "Evaluate on Spark DataFrames (`rankwise.spark`; needs pyspark and Java).",
     tuple(f"rankwise.spark.{name}" for name in (
         "evaluate", "evaluate_paths", "evaluate_recommendations", "get_session", "read_qrels",
         "read_run", "ship", "check_executors", "SparkResults", "SparkRecommenderResults"))),
)
"""API pages: (slug, title, what it covers, the public names it documents, in order)."""

EXAMPLES: dict[str, str] = {
    "rankwise.report.ndeval_csv": '''\
>>> import rankwise as rw
>>> from rankwise.report import ndeval_csv, ndeval_measures
>>> qrels = {"1": {"1": {"a": 1}, "2": {"b": 1}}, "2": {"1": {"c": 0}}}
>>> run = {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}}
>>> text = ndeval_csv(rw.evaluate(qrels, run, ndeval_measures()), run_name="r")
>>> [line.split(",")[1:3] for line in text.splitlines()]
[['topic', 'ERR-IA@5'], ['1', '0.544629'], ['2', '0.000000'], ['amean', '0.272315']]
''',
    "rankwise.stats.PairedTestResult": '''\
>>> from rankwise.stats import paired_t_test
>>> result = paired_t_test([0.5, 0.6, 0.7, 0.9], [0.4, 0.5, 0.65, 0.7])
>>> result.method, result.n, round(result.statistic, 4), round(result.p_value, 4)
('t distribution', 4, 3.5762, 0.0374)
''',
    "rankwise.stats.TwoWayAnova": '''\
>>> from rankwise.stats import two_way_anova
>>> anova = two_way_anova([[0.5, 0.6, 0.7, 0.9], [0.4, 0.5, 0.65, 0.7], [0.3, 0.6, 0.5, 0.6]])
>>> anova.df_systems, anova.df_topics, anova.df_residual, round(anova.p_systems, 4)
(2, 3, 6, 0.0385)
''',
    "rankwise.stats.TukeyResult": '''\
>>> from rankwise.stats import tukey_hsd
>>> tukey = tukey_hsd([[0.5, 0.6, 0.7, 0.9], [0.4, 0.5, 0.65, 0.7], [0.3, 0.6, 0.5, 0.6]])
>>> tukey.method, tukey.p_values.round(4).tolist()[0], round(tukey.critical_difference, 4)
('tukey', [1.0, 0.1544, 0.0341], 0.1587)
''',
    "rankwise.report.Report": '''\
>>> import os, tempfile
>>> import rankwise as rw
>>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> runs = {"bm25": {"q1": {"a": 2.0}, "q2": {"a": 1.0}, "q3": {"c": 1.0}},
...         "dense": {"q1": {"a": 1.0}, "q2": {"b": 2.0}, "q3": {"a": 1.0}}}
>>> report = rw.build_report(qrels, runs, ["map"], seed=0)
>>> report.systems, report.baseline
(['bm25', 'dense'], 'bm25')
>>> path = os.path.join(tempfile.mkdtemp(), "report.html")
>>> report.save(path)
>>> open(path, encoding="utf-8").read(15)
'<!DOCTYPE html>'
''',
    "rankwise.report.curves_figure": '''\
>>> import pytest
>>> _ = pytest.importorskip("matplotlib")
>>> import rankwise as rw
>>> from rankwise.report import curves_figure
>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> runs = {"bm25": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}, "q3": {"c": 1.0}},
...         "dense": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"b": 2.0}, "q3": {"a": 1.0}}}
>>> results = rw.evaluate_runs(qrels, runs, ["ndcg@5", "P@5", "map"])
>>> figure = curves_figure(results, ["ndcg@5"])
>>> type(figure).__name__, len(figure.axes)
('Figure', 1)
''',
    "rankwise.report.differences_figure": '''\
>>> import pytest
>>> _ = pytest.importorskip("matplotlib")
>>> import rankwise as rw
>>> from rankwise.report import differences_figure
>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> runs = {"bm25": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}, "q3": {"c": 1.0}},
...         "dense": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"b": 2.0}, "q3": {"a": 1.0}}}
>>> results = rw.evaluate_runs(qrels, runs, ["ndcg@5", "P@5", "map"])
>>> figure = differences_figure(results, ["map", "P@5"], "bm25")
>>> type(figure).__name__, len(figure.axes)
('Figure', 2)
''',
    "rankwise.report.distribution_figure": '''\
>>> import pytest
>>> _ = pytest.importorskip("matplotlib")
>>> import rankwise as rw
>>> from rankwise.report import distribution_figure
>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> runs = {"bm25": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}, "q3": {"c": 1.0}},
...         "dense": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"b": 2.0}, "q3": {"a": 1.0}}}
>>> results = rw.evaluate_runs(qrels, runs, ["ndcg@5", "P@5", "map"])
>>> figure = distribution_figure(results, ["map"])
>>> type(figure).__name__, len(figure.axes)
('Figure', 1)
''',
    "rankwise.report.comparison_figure": '''\
>>> import pytest
>>> _ = pytest.importorskip("matplotlib")
>>> import rankwise as rw
>>> from rankwise.report import comparison_figure
>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> runs = {"bm25": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}, "q3": {"c": 1.0}},
...         "dense": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"b": 2.0}, "q3": {"a": 1.0}}}
>>> results = rw.evaluate_runs(qrels, runs, ["ndcg@5", "P@5", "map"])
>>> comparison = rw.compare_results(results, ["map"], baseline="bm25", seed=0)
>>> figure = comparison_figure(comparison)
>>> type(figure).__name__
'Figure'
''',
    "rankwise.report.figure_to_svg": '''\
>>> import pytest
>>> _ = pytest.importorskip("matplotlib")
>>> import rankwise as rw
>>> from rankwise.report import curves_figure, figure_to_svg
>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> runs = {"bm25": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}, "q3": {"c": 1.0}},
...         "dense": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"b": 2.0}, "q3": {"a": 1.0}}}
>>> results = rw.evaluate_runs(qrels, runs, ["ndcg@5", "P@5", "map"])
>>> svg, width = figure_to_svg(curves_figure(results, ["ndcg@5"]), salt="curves")
>>> svg.startswith("<svg"), width > 0
(True, True)
''',
    "rankwise.report.save_figure": '''\
>>> import pytest
>>> _ = pytest.importorskip("matplotlib")
>>> import rankwise as rw
>>> from rankwise.report import curves_figure, save_figure
>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> runs = {"bm25": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}, "q3": {"c": 1.0}},
...         "dense": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"b": 2.0}, "q3": {"a": 1.0}}}
>>> results = rw.evaluate_runs(qrels, runs, ["ndcg@5", "P@5", "map"])
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "curves.svg")
>>> save_figure(curves_figure(results, ["ndcg@5"]), path)
>>> "<svg" in open(path, encoding="utf-8").read()
True
''',
    "rankwise.Results": '''\
>>> import rankwise as rw
>>> r = rw.evaluate({"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 2.0, "b": 1.0},
...                 "q2": {"a": 2.0, "b": 1.0}}, ["P@1", "mrr"])
>>> r
Results('run', 2 queries)
  P@1  0.5000
  mrr  0.7500
>>> r.query_ids, r["mrr"].tolist(), r.value("mrr", "q2")
(['q1', 'q2'], [1.0, 0.5], 0.5)
''',
    "rankwise.Comparison": '''\
>>> import rankwise as rw
>>> qrels = {f"q{i}": {"good": 1} for i in range(6)}
>>> first = {q: {"good": 2.0, "bad": 1.0} for q in qrels}
>>> second = {q: {"bad": 2.0, "good": 1.0} for q in qrels}
>>> c = rw.compare(qrels, {"first": first, "second": second}, "mrr", baseline="first", seed=0)
>>> row = c.row("mrr", "second")
>>> row.mean, row.delta, row.p_value
(0.5, -0.5, 0.03125)
''',
    "rankwise.read_run": '''\
>>> import os, tempfile
>>> import rankwise as rw
>>> path = os.path.join(tempfile.mkdtemp(), "bm25.run")
>>> with open(path, "w") as f:
...     _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
>>> run = rw.read_run(path)
>>> run, run.to_dict()
(Run('bm25', 1 query, 2 rows), {'q1': {'d1': 2.5, 'd2': 1.5}})
''',
    "rankwise.RankwiseError": '''\
>>> import rankwise as rw
>>> try:
...     rw.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["ndgc@10"])
... except rw.RankwiseError as error:  # every error rankwise raises
...     print(type(error).__name__, "-", error)
UnknownMeasureError - unknown measure 'ndgc@10'; did you mean 'ndcg@10'?
''',
    "rankwise.InputFormatError": '''\
>>> import os, tempfile
>>> import rankwise as rw
>>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
>>> with open(path, "w") as f:
...     _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2\\n")
>>> try:
...     rw.read_run(path)
... except rw.InputFormatError as error:
...     print(error.line, isinstance(error, ValueError))
2 True
''',
    "rankwise.DuplicateEntryError": '''\
>>> import os, tempfile
>>> import rankwise as rw
>>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
>>> with open(path, "w") as f:
...     _ = f.write("q1 0 d1 1\\nq1 0 d1 0\\n")
>>> try:
...     rw.read_qrels(path)
... except rw.DuplicateEntryError as error:
...     print(error.line, isinstance(error, rw.InputFormatError))
2 True
''',
    "rankwise.MeasureSyntaxError": '''\
>>> import rankwise as rw
>>> try:
...     rw.parse("ndcg@")
... except rw.MeasureSyntaxError as error:
...     print(isinstance(error, ValueError))
True
''',
    "rankwise.UnknownMeasureError": '''\
>>> import rankwise as rw
>>> try:
...     rw.parse("nDGC@10")
... except rw.UnknownMeasureError as error:
...     print("did you mean" in str(error), isinstance(error, ValueError))
True True
''',
    "rankwise.UnsupportedMeasureError": '''\
>>> import rankwise as rw
>>> issubclass(rw.UnsupportedMeasureError, rw.RankwiseError)
True
''',
    "rankwise.InvalidParameterError": '''\
>>> import rankwise as rw
>>> try:
...     rw.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["P@1"], missing="never")
... except rw.InvalidParameterError as error:
...     print(isinstance(error, ValueError))
True
''',
    "rankwise.MissingDependencyError": '''\
>>> import rankwise as rw
>>> issubclass(rw.MissingDependencyError, (rw.RankwiseError, ImportError))
True
''',
    "rankwise.RankwiseWarning": '''\
>>> import warnings
>>> import rankwise as rw
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     _ = rw.evaluate({"q1": {"a": 2}}, {"q1": {"a": 1.0}}, ["ndcg@10"])
>>> [issubclass(w.category, rw.RankwiseWarning) for w in caught]
[True]
''',
    "rankwise.design.DiscriminativePower": '''\
>>> from rankwise.design import discriminative_power
>>> qrels = {f"q{i}": {"good": 1} for i in range(8)}
>>> def run(k):  # finds the good document first on the first k queries
...     return {f"q{i}": {"good": 2.0, "bad": 1.0} if i < k else {"bad": 2.0, "good": 1.0}
...             for i in range(8)}
>>> power = discriminative_power(qrels, {"a": run(0), "b": run(8)}, ["P@1"], seed=0)
>>> power.pairs, power.fraction("P@1")
((('a', 'b'),), 1.0)
''',
    "rankwise.design.PowerRow": '''\
>>> import rankwise as rw
>>> from rankwise.design import power
>>> qrels = {f"q{i}": {"good": 1} for i in range(10)}
>>> base = {q: {"bad": 2.0, "good": 1.0} for q in qrels}
>>> better = {q: {"good": 2.0, "bad": 1.0} if int(q[1:]) < 5 else base[q] for q in qrels}
>>> row = power(rw.compare(qrels, {"base": base, "better": better}, "P@1", baseline="base"))[0]
>>> row.system, row.baseline, row.n_queries, row.topics_needed
('better', 'base', 10, 11)
''',
    "rankwise.design.TopicSetSize": '''\
>>> from rankwise.design import topic_set_size
>>> size = topic_set_size("t-test", 0.05, 0.01)
>>> size.n, size.test, round(size.achieved, 4)
(34, 't-test', 0.8078)
''',
    "rankwise.design.TopicSetTable": '''\
>>> from rankwise.design import topic_set_table
>>> table = topic_set_table("t-test", [0.05, 0.10], [0.01, 0.02])
>>> [[size.n for size in row] for row in table.sizes]
[[34, 65], [10, 18]]
''',
    "rankwise.design.topic_set_table": '''\
>>> from rankwise.design import topic_set_table
>>> print(topic_set_table("ci", [0.05, 0.1], {"ndcg@10": 0.01, "map": 0.02}).to_table(), end="")
width  ndcg@10  map
-----  -------  ---
 0.05       64  125
 0.10       18   33
''',
    "rankwise.compat.pytrec_eval.PytrecEvalTypeError": '''\
>>> import rankwise.compat.pytrec_eval as pytrec_eval
>>> try:  # judgments as a list: pytrec_eval raises a TypeError
...     pytrec_eval.RelevanceEvaluator([("q1", "d1", 1)], {"map"})
... except TypeError as error:
...     print(type(error).__name__, isinstance(error, pytrec_eval.PytrecEvalTypeError))
PytrecEvalTypeError True
''',
    "rankwise.compat.pytrec_eval.PytrecEvalArgumentError": '''\
>>> import rankwise.compat.pytrec_eval as pytrec_eval
>>> try:  # pytrec_eval raises a TypeError for a relevance level of 0
...     pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1}}, {"map"}, relevance_level=0)
... except TypeError as error:
...     print(str(error))
relevance_level should be positive (pytrec_eval: a TypeError), got 0
''',
    "rankwise.compat.pytrec_eval.DuplicateLineError": '''\
>>> import io
>>> import rankwise.compat.pytrec_eval as pytrec_eval
>>> try:  # a document listed twice: pytrec_eval's parse_run asserts
...     pytrec_eval.parse_run(io.StringIO("q1 Q0 d1 1 2.0 r\\nq1 Q0 d1 2 1.0 r\\n"))
... except AssertionError as error:
...     print(str(error))
<run>:2: document 'd1' appears twice for query 'q1'
''',
    "rankwise.compat.pytrec_eval.RelevanceEvaluator": '''\
>>> import rankwise.compat.pytrec_eval as pytrec_eval
>>> evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"P.1", "map"})
>>> evaluator.evaluate({"q1": {"d1": 0.5, "d2": 0.9}}) == {"q1": {"P_1": 0.0, "map": 0.5}}
True
''',
    "rankwise.compat.ir_measures.calc_aggregate": '''\
>>> from rankwise.compat import ir_measures
>>> qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
>>> ir_measures.calc_aggregate(["nDCG@10", "P@1"], qrels, {"q1": {"d1": 0.9, "d2": 0.8}})
{'nDCG@10': 0.5, 'P@1': 0.5}
''',
    "rankwise.compat.ir_measures.iter_calc": '''\
>>> from rankwise.compat import ir_measures
>>> for metric in ir_measures.iter_calc(["RR"], {"q1": {"d1": 1}}, {"q1": {"d2": 2.0, "d1": 1.0}}):
...     print(metric.query_id, metric.measure, metric.value)
q1 RR 0.5
''',
    "rankwise.compat.ir_measures.calc": '''\
>>> from rankwise.compat import ir_measures
>>> result = ir_measures.calc(["P@1"], {"q1": {"d1": 1}, "q2": {"d2": 1}},
...                           {"q1": {"d1": 1.0}, "q2": {"d3": 1.0}})
>>> result.aggregated, [m.value for m in result.per_query]
({'P@1': 0.5}, [1.0, 0.0])
''',
    "rankwise.compat.ir_measures.CalcResults": '''\
>>> from rankwise.compat import ir_measures
>>> result = ir_measures.calc(["P@1"], {"q1": {"d1": 1}}, {"q1": {"d1": 1.0}})
>>> isinstance(result, ir_measures.CalcResults), result.aggregated
(True, {'P@1': 1.0})
''',
    "rankwise.compat.ir_measures.Metric": '''\
>>> from rankwise.compat import ir_measures
>>> [metric] = ir_measures.iter_calc(["P@1"], {"q1": {"d1": 1}}, {"q1": {"d1": 1.0}})
>>> metric
Metric(query_id='q1', measure='P@1', value=1.0)
''',
    "rankwise.compat.ir_measures.evaluator": '''\
>>> from rankwise.compat import ir_measures
>>> evaluator = ir_measures.evaluator(["P@1", "RR"], {"q1": {"d1": 1}})
>>> evaluator.calc_aggregate({"q1": {"d2": 2.0, "d1": 1.0}})
{'P@1': 0.0, 'RR': 0.5}
''',
    "rankwise.compat.ir_measures.Evaluator": '''\
>>> from rankwise.compat import ir_measures
>>> evaluator = ir_measures.evaluator(["P@1"], {"q1": {"d1": 1}})
>>> isinstance(evaluator, ir_measures.Evaluator)
True
>>> [m.value for m in evaluator.iter_calc({"q1": {"d1": 1.0}})]
[1.0]
''',
    "rankwise.compat.ir_measures.unregister": '''\
>>> import pytest
>>> real = pytest.importorskip("ir_measures")
>>> from rankwise.compat import ir_measures
>>> _ = ir_measures.register()
>>> "rankwise" in real.providers.registry
True
>>> ir_measures.unregister()
>>> "rankwise" in real.providers.registry
False
''',
    "rankwise.integrations.lightgbm.feval": '''\
>>> import numpy as np
>>> import pytest
>>> _ = pytest.importorskip("lightgbm")
>>> from rankwise.integrations.lightgbm import feval
>>> metric = feval(["ndcg@3", "map"])
>>> [(name, round(value, 4)) for name, value, _ in
...  metric(np.array([3, 0, 2, 1]), np.array([.9, .8, .1, .2]), None, np.array([4]))]
[('rankwise.ndcg@3', 0.7985), ('rankwise.map', 0.8056)]
''',
    "rankwise.integrations.xgboost.custom_metric": '''\
>>> import numpy as np
>>> import pytest
>>> xgb = pytest.importorskip("xgboost")
>>> from rankwise.integrations.xgboost import custom_metric
>>> data = xgb.DMatrix(np.zeros((4, 1)), label=[1, 0, 1, 0], qid=[0, 0, 0, 0])
>>> custom_metric("P@2")(np.array([.9, .8, .1, .2]), data)
[('rankwise.P@2', 0.5)]
''',
    "rankwise.integrations.xgboost.eval_metric": '''\
>>> import numpy as np
>>> import pytest
>>> _ = pytest.importorskip("xgboost")
>>> from rankwise.integrations.xgboost import eval_metric
>>> metric = eval_metric("mrr")
>>> metric.__name__, metric(np.array([0, 1, 0]), np.array([.9, .8, .1]))
('rankwise.mrr', 0.5)
''',
    "rankwise.integrations.catboost.metric": '''\
>>> import numpy as np
>>> import pytest
>>> _ = pytest.importorskip("catboost")
>>> from rankwise.integrations.catboost import metric
>>> m = metric("mrr", group_id=np.array([0, 0, 1, 1]))
>>> total, weight = m.evaluate([np.array([.9, .8, .7, .6])], np.array([0, 1, 1, 0]), None)
>>> m.get_final_error(total, weight)
0.75
''',
    "rankwise.integrations.sklearn.ranking_scorer": '''\
>>> import numpy as np
>>> from sklearn.linear_model import LinearRegression
>>> from rankwise.integrations.sklearn import ranking_scorer
>>> X = np.array([[1, 0], [0, 0], [0, 1], [1, 1]], dtype=float)  # feature, query
>>> y = np.array([1, 0, 0, 1])
>>> scorer = ranking_scorer("mrr", groups=lambda X: X[:, 1])
>>> float(scorer(LinearRegression().fit(X, y), X, y))
1.0
''',    "rankwise.spark.get_session": '''\
>>> import rankwise.spark
>>> spark = rankwise.spark.get_session("local[1]", log_level="error")
>>> spark.range(3).count()
3
''',
    "rankwise.spark.evaluate_paths": '''\
>>> from importlib.resources import as_file, files
>>> import rankwise.spark
>>> data = files("rankwise") / "demo_data"
>>> with as_file(data / "qrels.test") as qrels, as_file(data / "results.test") as run:
...     results = rankwise.spark.evaluate_paths(str(qrels), str(run), ["P@10", "map"],
...                                             master="local[1]")
>>> {name: round(value, 4) for name, value in results.mean.items()}
{'P@10': 0.3, 'map': 0.1785}
''',
    "rankwise.spark.SparkResults": '''\
>>> import rankwise.spark
>>> spark = rankwise.spark.get_session("local[1]", log_level="error")
>>> qrels = spark.createDataFrame([("q1", "a", 1), ("q2", "b", 1)],
...                               "query_id string, doc_id string, relevance int")
>>> run = spark.createDataFrame([("q1", "a", 2.0), ("q2", "a", 1.0)],
...                             "query_id string, doc_id string, score double")
>>> results = rankwise.spark.evaluate(qrels, run, ["P@1"])
>>> results.mean, sorted(results.per_query.collect())
({'P@1': 0.5}, [Row(query_id='q1', P@1=1.0), Row(query_id='q2', P@1=0.0)])
''',
    "rankwise.spark.read_qrels": '''\
>>> from importlib.resources import as_file, files
>>> import rankwise.spark
>>> spark = rankwise.spark.get_session("local[1]", log_level="error")
>>> with as_file(files("rankwise") / "demo_data" / "qrels.test") as path:
...     qrels = rankwise.spark.read_qrels(spark, str(path))
...     qrels.count()
3681
''',
    "rankwise.spark.read_run": '''\
>>> from importlib.resources import as_file, files
>>> import rankwise.spark
>>> spark = rankwise.spark.get_session("local[1]", log_level="error")
>>> with as_file(files("rankwise") / "demo_data" / "results.test") as path:
...     run = rankwise.spark.read_run(spark, str(path))
...     run.count()
1500
''',
    "rankwise.spark.check_executors": '''\
>>> import rankwise.spark
>>> spark = rankwise.spark.get_session("local[1]", log_level="error")
>>> rankwise.spark.check_executors(spark)  # raises when executors cannot import rankwise
''',
    "rankwise.spark.SparkRecommenderResults": '''\
>>> import rankwise.spark
>>> spark = rankwise.spark.get_session("local[1]", log_level="error")
>>> test = spark.createDataFrame([("u1", "a"), ("u2", "b")], "user string, item string")
>>> recs = spark.createDataFrame([("u1", "a", 2.0), ("u2", "a", 1.0)],
...                              "user string, item string, score double")
>>> results = rankwise.spark.evaluate_recommendations(test, recs, ["hit@1"])
>>> type(results).__name__, results.mean
('SparkRecommenderResults', {'hit@1': 0.5})
''',
}
"""Examples for the public names whose docstring has none (each runs: tests/test_docs_site.py)."""


def public_names(modules: tuple[str, ...] = PUBLIC_MODULES) -> list[str]:
    """Every public name: ``rankwise.__all__`` and the ``__all__`` of *modules*.

    Of the ir_measures drop-in, its functions and classes: the values of
    ir_measures' namespace it also holds (measure objects, providers, modules,
    aliases and deprecated names, ``DefaultPipeline``'s methods) are ir_measures'.
    """
    import rankwise

    names = [f"rankwise.{name}" for name in rankwise.__all__
             if name not in ("__version__", "design")]
    for module in modules:
        found = importlib.import_module(module)
        names += [f"{module}.{name}" for name in found.__all__
                  if module != "rankwise.compat.ir_measures" or _ir_measures_api(found, name)]
    return names


def _ir_measures_api(module: Any, name: str) -> bool:
    """Whether a name of the ir_measures drop-in is its API (not one of ir_measures' values)."""
    value = getattr(module, name)
    aliases = {"BaseMeasure", "GenericQrel", "GenericScoredDoc", "convert_trec_name",
               "parse_trec_qrels", "parse_trec_run", "__version__"}
    return (name not in aliases and not inspect.ismodule(value)
            and not inspect.ismethod(value)
            and not isinstance(value, (module.Measure, module.Provider)))


def resolve(name: str) -> object:
    """The object a public name stands for."""
    module, _, attribute = name.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


def has_example(name: str) -> bool:
    """A docstring with a doctest, or an example in :data:`EXAMPLES`."""
    return name in EXAMPLES or ">>>" in (inspect.getdoc(resolve(name)) or "")


# -- the measure catalogue ------------------------------------------------------------------

_GROUP_TITLES = {"core": "Core measures (trec_eval's family)",
                 "label_ranking": "Label ranking", "err": "Cascade measures (ERR)",
                 "diversity": "Diversity measures (subtopics)",
                 "cwl": "C/W/L measures (user models)", "other": "Other measures"}


def measures_page() -> str:
    """The measure catalogue: every family, as ``rankwise measures NAME`` describes it."""
    from rankwise.cli.commands.measures import describe_family, list_trec_names
    from rankwise.measures.catalog import FAMILIES, GROUPS, group_of

    lines = [
        "# Measure catalogue", "",
        "Generated from the code's own catalogue (what `rankwise measures` lists), so it "
        "cannot drift from it. The definitions, conventions and references are explained in "
        "[Measures](../measures.md); the syntax is `NAME[@K][(KEY=VALUE,...)]`.", "",
    ]
    for group in GROUPS:
        families = [f for f in FAMILIES.values() if group_of(f.name) == group]
        if not families:
            continue
        lines += [f"## {_GROUP_TITLES.get(group, group)}", "",
                  "| measure | what it is |", "|---|---|"]
        for family in families:
            head = describe_family(family.name).splitlines()[0]
            signature, _, summary = head.partition(": ")
            lines.append(f"| `{signature}` | {summary} |")
        lines.append("")
        for family in families:
            text = describe_family(family.name)
            lines += [f"### {family.name}", "", "```text", text.rstrip("\n"), "```", ""]
    lines += ["## trec_eval's names", "",
              "`rankwise trec-eval`, `rankwise eval` and the Python API take trec_eval's "
              "names too, with trec_eval's meaning (`rankwise measures --trec`):", "",
              "```text", list_trec_names().rstrip("\n"), "```", ""]
    return "\n".join(lines)


# -- the command line reference -------------------------------------------------------------

@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before


def cli_page() -> str:
    """Every command's ``--help``, from the parsers of ``rankwise.cli.app``."""
    import argparse

    from rankwise.cli.app import COMMANDS, build_parser

    with _columns(90):
        parser = build_parser()
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        commands = actions[0].choices
        lines = ["# Command line reference", "",
                 "Generated from the argparse parsers of the `rankwise` command (each command's "
                 "`--help`). The commands are described, with examples and their outputs, in "
                 "[The command line](../cli.md).", "",
                 "## rankwise", "", "```text", parser.format_help().rstrip("\n"), "```", ""]
        for name in COMMANDS:
            lines += [f"## rankwise {name}", "", "```text",
                      commands[name].format_help().rstrip("\n"), "```", ""]
    return "\n".join(lines)


# -- the API reference ----------------------------------------------------------------------

def api_pages() -> dict[str, str]:
    """``{path under reference/api/: page}``: an index, then one page per group."""
    index = ["# API reference", "",
             "The public namespace: `import rankwise as rw` and the public subpackages "
             "(`rankwise.design`, `rankwise.stats`, `rankwise.report`, `rankwise.metrics`, "
             "`rankwise.compat.*`, "
             "`rankwise.integrations.*`, `rankwise.spark`). Everything else is internal "
             "and may change. Each page is generated from the docstrings.", "",
             "| page | names |", "|---|---|"]
    pages: dict[str, str] = {}
    for slug, title, intro, names in GROUPS:
        shown = ", ".join(f"`{name.removeprefix('rankwise.')}`" for name in names)
        index.append(f"| [{title}]({slug}.md) | {shown} |")
        lines = [f"# {title}", "", intro, ""]
        for name in names:
            lines += [f"::: {name}", ""]
            if name in EXAMPLES:
                lines += ["**Example**", "", "```python", EXAMPLES[name].rstrip("\n"), "```", ""]
        pages[f"{slug}.md"] = "\n".join(lines)
    pages["index.md"] = "\n".join(index) + "\n"
    return pages


def generated() -> dict[str, str]:
    """Every generated page: ``{path under docs/: markdown}``."""
    pages = {"reference/measures.md": measures_page(), "reference/cli.md": cli_page()}
    pages.update({f"reference/api/{path}": text for path, text in api_pages().items()})
    return pages
