"""ranx's ``Report``: the means, tests and wins of a comparison, as ranx presents them.

The text table (``print(report)``) is laid out as ranx's (tabulate's ``simple``
format: a numeric column right-aligned on its decimal point, numbers as
``%g``), the LaTeX table is ranx's, character for character, superscript
letters included: a model's score carries the letter of every model it beats
significantly (``0.320ᵇᶜ``; ``$^{bc}$`` in LaTeX).

Examples
--------
>>> from rankwise.compat.ranx.data_structures import FrozensetDict, Report
>>> comparisons = FrozensetDict({("bm25", "dense"): {"ndcg@10": {"p_value": 0.004,
...                                                              "significant": True}}})
>>> report = Report(["bm25", "dense"], {"bm25": {"ndcg@10": 0.41}, "dense": {"ndcg@10": 0.52}},
...                 comparisons, ["ndcg@10"], 0.01, {})
>>> print(report)
#    Model    NDCG@10
---  -------  ---------
a    bm25     0.410
b    dense    0.520ᵃ
"""

from __future__ import annotations

import json
from typing import Any

from rankwise._files import write_file

__all__ = ["METRIC_LABELS", "Report", "simple_table"]

CHARS = list("abcdefghijklmnopqrstuvwxyz")
SUPER_CHARS = list("ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ")
"""ranx's superscript letters (its ``q`` is an Arabic-Indic nine: Unicode had no
superscript q when ranx chose them)."""

METRIC_LABELS: dict[str, str] = {
    "hits": "Hits", "hit_rate": "Hit Rate", "precision": "P", "recall": "Recall",
    "f1": "F1", "r-precision": "R-Prec", "mrr": "MRR", "map": "MAP", "dcg": "DCG",
    "dcg_burges": "DCG Burges", "ndcg": "NDCG", "ndcg_burges": "NDCG Burges",
    "bpref": "BPref", **{f"rbp.{i}": f"RBP.{i}" for i in range(1, 100)},
}
"""ranx's column labels of its metrics."""

STAT_TEST_LABELS = {
    "fisher": "Fisher's randomization test",
    "student": "paired Student's t-test",
    "tukey": "Tukey's HSD test",
}


def _number_kind(text: str) -> type:
    for kind in (int, float):
        try:
            kind(text)
        except ValueError:
            continue
        return kind
    return str


def _decimals(text: str) -> int:
    point = text.rfind(".")
    if point < 0:
        point = text.lower().rfind("e")
    return len(text) - point - 1 if point >= 0 else -1


def simple_table(rows: list[list[str]], headers: list[str]) -> str:
    """Rows as tabulate's ``simple`` format lays them out (ranx's ``print(report)``).

    A column whose cells all read as numbers is numeric: each printed as
    ``%g``, aligned on the decimal point, right-aligned with its header;
    other columns are left-aligned. Columns are two spaces apart, at least
    two characters wider than their header.

    Examples
    --------
    >>> print(simple_table([["a", "0.500"], ["b", "0.125"]], ["#", "MAP"]))
    #        MAP
    ---  -----
    a    0.5
    b    0.125
    """
    columns = [list(column) for column in zip(*rows)] if rows else [[] for _ in headers]
    laid_out, numeric = [], []
    for cells in columns:
        kinds = {_number_kind(cell) for cell in cells}
        is_number = bool(cells) and str not in kinds
        if is_number:
            as_float = float in kinds
            cells = [format(float(cell), "g") if as_float else str(int(cell)) for cell in cells]
            most = max(_decimals(cell) for cell in cells)
            cells = [cell + " " * (most - _decimals(cell)) for cell in cells]
            widest = max(map(len, cells))
            cells = [cell.rjust(widest) for cell in cells]
        laid_out.append(cells)
        numeric.append(is_number)
    widths = [max([len(header) + 2, *map(len, cells)])
              for header, cells in zip(headers, laid_out)]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.rjust(width) if is_number else cell.ljust(width)
                         for cell, width, is_number in zip(cells, widths, numeric)).rstrip()

    lines = [line(headers), "  ".join("-" * width for width in widths).rstrip()]
    lines += [line(list(row)) for row in zip(*laid_out)]
    return "\n".join(lines)


class Report:
    r"""The result of :func:`~rankwise.compat.ranx.compare` (ranx's ``Report``).

    Attributes
    ----------
    model_names : list of str
    results : dict
        ``{model: {metric: mean}}``.
    comparisons : FrozensetDict
        ``comparisons[model_a, model_b][metric]``: ``{"p_value": ..., "significant": ...}``.
    metrics : list of str
    max_p : float
        The significance level.
    win_tie_loss : dict
        ``{(model_a, model_b): {metric: {"W": ..., "T": ..., "L": ...}}}`` (queries).
    rounding_digits : int
    show_percentages : bool
    stat_test : str
        ``"student"``, ``"fisher"`` or ``"tukey"``.

    Examples
    --------
    >>> from rankwise.compat.ranx import Qrels, Run, compare
    >>> qrels = Qrels({f"q{i}": {"a": 1} for i in range(4)})
    >>> good = Run({f"q{i}": {"a": 2.0, "b": 1.0} for i in range(4)}, name="good")
    >>> bad = Run({f"q{i}": {"a": 1.0, "b": 2.0} for i in range(4)}, name="bad")
    >>> report = compare(qrels, [good, bad], "mrr")
    >>> report.to_dict()["good"]["win_tie_loss"]["bad"]["mrr"]
    {'W': 4, 'T': 0, 'L': 0}
    >>> print(report.to_latex().splitlines()[-9])  # beats b significantly: superscript b
    \textbf{1.000}$^{b}$\hphantom{} \\
    """

    def __init__(self, model_names: list[str], results: dict[str, dict[str, float]],
                 comparisons: Any, metrics: list[str], max_p: float,
                 win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]],
                 rounding_digits: int = 3, show_percentages: bool = False,
                 stat_test: str = "student") -> None:
        self.model_names = model_names
        self.results = results
        self.comparisons = comparisons
        self.metrics = metrics
        self.max_p = max_p
        self.win_tie_loss = win_tie_loss
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages
        self.stat_test = stat_test

    # pieces -------------------------------------------------------------------------
    def format_score(self, score: float) -> str:
        """A mean as the report shows it (``rounding_digits`` decimals, or a percentage)."""
        if self.show_percentages:
            digits = max(0, self.rounding_digits - 2)
            return f"%.{self.rounding_digits - 2}f" % round(score * 100, digits)
        return f"%.{self.rounding_digits}f" % round(score, self.rounding_digits)

    def _beaten(self, model: str, metric: str) -> list[int]:
        """The positions of the models *model* beats significantly on *metric*."""
        return [j for j, other in enumerate(self.model_names)
                if other != model and self.comparisons[model, other][metric]["significant"]
                and self.results[model][metric] > self.results[other][metric]]

    def get_superscript_for_table(self, model: str, metric: str) -> str:
        """The superscript letters of the models *model* beats significantly."""
        return "".join(SUPER_CHARS[j] for j in self._beaten(model, metric))

    def get_superscript_for_latex(self, model: str, metric: str) -> str:
        """The letters of the models *model* beats significantly."""
        return "".join(CHARS[j] for j in self._beaten(model, metric))

    def get_phantoms_for_latex(self, model: str, metric: str) -> str:
        """The letters of the other models (kept as LaTeX phantoms for alignment)."""
        beaten = set(self._beaten(model, metric))
        return "".join(CHARS[j] for j, other in enumerate(self.model_names)
                       if other != model and j not in beaten)

    def get_metric_label(self, m: str) -> str:
        """Ranx's label of a metric (``ndcg@10`` -> ``NDCG@10``, ``map-l2`` -> ``MAP-l2``)."""
        level = ""
        if "-l" in m:
            m, rel_lvl = m.split("-l")
            level = f"-l{rel_lvl}"
        name, _, cutoff = m.partition("@")
        label = METRIC_LABELS[name]
        return f"{label}@{cutoff}{level}" if cutoff else f"{label}{level}"

    def get_stat_test_label(self, stat_test: str) -> str:
        """The name of a test as the LaTeX caption says it."""
        return STAT_TEST_LABELS[stat_test]

    # outputs ------------------------------------------------------------------------
    def to_table(self) -> str:
        """The text table ``print(report)`` shows."""
        rows = []
        for i, (model, scores) in enumerate(self.results.items()):
            rows.append([CHARS[i], model] + [
                self.format_score(score) + self.get_superscript_for_table(model, metric)
                for metric, score in scores.items()])
        return simple_table(rows, ["#", "Model"] + [self.get_metric_label(m)
                                                    for m in self.metrics])

    def to_latex(self) -> str:
        """The comparison as a LaTeX table (ranx's, with its preamble note)."""
        best = {}
        for m in self.metrics:
            best_model, best_score = None, 0.0
            for model in self.model_names:
                score = round(self.results[model][m], self.rounding_digits)
                if best_score < score:
                    best_model, best_score = model, score
            best[m] = best_model
        preamble = ("========================\n% Add in preamble\n\\usepackage{graphicx}\n"
                    "\\usepackage{booktabs}\n========================\n\n")
        prefix = (
            "% To change the table size, act on the resizebox argument `0.8`.\n"
            "\\begin{table*}[ht]\n\\centering\n\\caption{\nOverall effectiveness of the models."
            "\nThe best results are highlighted in boldface.\nSuperscripts denote significant "
            f"differences in {self.get_stat_test_label(self.stat_test)} with $p \\le "
            f"{self.max_p}$.\n}}\n\\resizebox{{0.8\\textwidth}}{{!}}{{\n\\begin{{tabular}}{{c|l"
            + "|c" * len(self.metrics) + "}\n\\toprule\n\\textbf{\\#}\n& \\textbf{Model}"
            + "".join(f"\n& \\textbf{{{self.get_metric_label(m)}}}" for m in self.metrics)
            + " \\\\ \n\\midrule"
        )
        body = []
        for i, model in enumerate(self.model_names):
            cells = []
            for m in self.metrics:
                text = self.format_score(self.results[model][m])
                text = f"\\textbf{{{text}}}" if best[m] == model else text
                cells.append(f"{text}$^{{{self.get_superscript_for_latex(model, m)}}}$"
                             f"\\hphantom{{$^{{{self.get_phantoms_for_latex(model, m)}}}$}} &")
            cells[-1] = cells[-1][:-1]
            body.append(f"{CHARS[i]} &\n{model} &\n" + "\n".join(cells) + "\\\\")
        content = "\n".join(body).replace("_", "\\_").replace("$^{}$", "")
        suffix = "\\bottomrule\n\\end{tabular}\n}\n\\label{tab:results}\n\\end{table*}"
        return preamble + "\n" + prefix + "\n" + content + "\n" + suffix

    def to_dict(self) -> dict[str, Any]:
        """The report as a dict: means, p-values and wins per model, other model and metric.

        ``{"stat_test", "metrics", "model_names", model: {"scores",
        "comparisons", "win_tie_loss"}}``.
        """
        out: dict[str, Any] = {"stat_test": self.stat_test, "metrics": self.metrics,
                               "model_names": self.model_names}
        for a in self.model_names:
            out[a] = {"scores": self.results[a], "comparisons": {}, "win_tie_loss": {}}
            for b in self.model_names:
                if a != b:
                    out[a]["comparisons"][b] = {
                        m: self.comparisons[{a, b}][m]["p_value"] for m in self.metrics}
                    out[a]["win_tie_loss"][b] = {
                        m: self.win_tie_loss[(a, b)][m] for m in self.metrics}
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame: a ``model_names`` column, then one column per metric."""
        import pandas as pd

        report = self.to_dict()
        scores = {name: report[name]["scores"] for name in report["model_names"]}
        frame = pd.DataFrame.from_dict(scores, orient="index")
        return frame.reset_index().rename(columns={"index": "model_names"})

    def save(self, path: str) -> None:
        """Write :meth:`to_dict` as JSON (four-space indent)."""
        write_file(json.dumps(self.to_dict(), indent=4), path)

    def print_results(self) -> None:
        """Print the means as JSON."""
        print(json.dumps(self.results, indent=4))

    def __repr__(self) -> str:
        return self.to_table()

    def __str__(self) -> str:
        return self.to_table()
