"""ranx's ``OptimizationReport``: every configuration :func:`optimize_fusion` tried, scored.

Examples
--------
>>> from rankwise.compat.ranx.data_structures import OptimizationReport
>>> print(OptimizationReport("rrf", ["10", "20"], [0.41, 0.43], "ndcg@10"))
RRF
  k  NDCG@10
---  ---------
 10  0.410
 20  0.430 *
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.compat.ranx.data_structures.report import simple_table

__all__ = ["OptimizationReport"]

METHOD_LABELS = {
    "logn_isr": "LogN_ISR", "gmnz": "GMNZ", "mixed": "Mixed", "probfuse": "ProbFuse",
    "rbc": "RBC", "rrf": "RRF", "slidefuse": "SlideFuse", "w_bordafuse": "Weighted BordaFuse",
    "w_condorcet": "Weighted Condorcet", "wmnz": "WMNZ", "wsum": "Weighted SUM",
}
HYPERPARAMS_LABELS = {
    "logn_isr": "Sigma", "gmnz": "Gamma", "mixed": "Weights", "probfuse": "# Segments",
    "rbc": "phi", "rrf": "k", "slidefuse": "w", "w_bordafuse": "Weights",
    "w_condorcet": "Weights", "wmnz": "Weights", "wsum": "Weights",
}
METRIC_LABELS = {
    "hits": "Hits", "hit_rate": "Hit_Rate", "precision": "P", "recall": "Recall", "f1": "F1",
    "r-precision": "R-Prec", "mrr": "MRR", "map": "MAP", "ndcg": "NDCG",
    "ndcg_burges": "NDCG_Burges",
}


class OptimizationReport:
    """The configurations tried by :func:`~rankwise.compat.ranx.optimize_fusion`, scored.

    ranx's ``OptimizationReport``, printed as a plain table with the best
    marked ``*`` (ranx draws a rich table with the best in bold green).

    Examples
    --------
    >>> from rankwise.compat.ranx import Qrels, Run, optimize_fusion
    >>> qrels = Qrels({"q1": {"d3": 1}})
    >>> runs = [Run({"q1": {"d1": 2.0, "d3": 1.0}}), Run({"q1": {"d3": 2.0, "d2": 1.0}})]
    >>> best, report = optimize_fusion(qrels, runs, method="rrf", metric="precision@1",
    ...                                return_optimization_report=True)
    >>> best, report.configs[:3], report.results[:3]
    ({'k': 100}, ['10', '20', '30'], [np.float64(1.0), np.float64(1.0), np.float64(1.0)])
    """

    def __init__(self, method: str, configs: list[Any], results: list[float], metric: str,
                 rounding_digits: int = 3, show_percentages: bool = False) -> None:
        self.method = method
        self.configs = configs
        self.results = results
        self.metric = metric
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages

    def get_metric_label(self, m: str) -> str:
        """Ranx's label of the metric optimised."""
        name, _, cutoff = m.partition("@")
        return f"{METRIC_LABELS[name]}@{cutoff}" if cutoff else METRIC_LABELS[name]

    def format_score(self, score: float) -> str:
        """A score as the table shows it."""
        if self.show_percentages:
            digits = max(0, self.rounding_digits - 2)
            return f"%.{self.rounding_digits - 2}f" % round(score * 100, digits)
        return f"%.{self.rounding_digits}f" % round(score, self.rounding_digits)

    def to_table(self) -> str:
        """The table: one row per configuration, the best (the first highest) marked."""
        best = int(np.argmax(self.results)) if len(self.results) else -1
        rows = [[str(config), self.format_score(score) + (" *" if i == best else "")]
                for i, (config, score) in enumerate(zip(self.configs, self.results))]
        headers = [HYPERPARAMS_LABELS[self.method], self.get_metric_label(self.metric)]
        return METHOD_LABELS[self.method] + "\n" + simple_table(rows, headers)

    def __repr__(self) -> str:
        return self.to_table()

    def __str__(self) -> str:
        return self.to_table()
