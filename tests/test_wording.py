"""Counts and their nouns agree in every message ("1 query", never "1 queries").

A count in an f-string is worded by ``rankwise._wording.counted`` (or an
explicit ``'y' if n == 1 else 'ies'``); this scan finds ``f"{n} queries"``
anywhere in the package, so a new message cannot print "1 queries" again.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

import rankwise as rw
from rankwise._wording import counted, format_p, plural

SOURCE = Path(__file__).resolve().parents[1] / "src" / "rankwise"

NOUNS = ("queries", "runs", "documents", "rows", "items", "users", "judgments", "topics",
         "pairs", "systems", "measures", "files", "partitions", "subtopics", "values",
         "differences", "decimals", "ids", "groups", "folds", "columns", "lines", "scores",
         "grades", "labels", "resamples", "trials", "random", "bytes", "fields", "digits",
         "dimensions", "kinds", "samples", "times", "means", "cutoffs", "levels", "entries",
         "topic(s)")

ALLOWED = {
    # (module, the count's expression): why it is never 1
    ("report/html.py", "MAX_POINTS"): "a constant (thousands)",
    ("stats/topic_sets.py", "_LARGEST"): "a constant",
    ("cli/commands/demo.py", "topics"): "the bundled data: 3 topics",
    ("cli/commands/demo.py", "per_topic"): "the bundled data: 500 documents",
    ("cli/commands/demo.py", "results.n_queries"): "the bundled data",
    ("cli/commands/demo.py", "len(run)"): "the bundled data",
    ("cli/commands/compare.py", "len(paths)"): "compare takes two runs or more",
    ("cli/commands/compare.py", "len(results)"): "compare takes two runs or more",
    ("io/naming.py", "len(matches)"): "said only when several runs match",
    ("integrations/xgboost.py", "len(parsed)"): "said only for more than one measure",
    ("comparison.py", "len(self.systems)"): "a comparison has two systems or more",
    ("cli/commands/design.py", "len(args.runs)"): "the variance needs two runs or more",
    ("cli/commands/design.py", "grid.sizes[0][0].n_systems"): "ANOVA over two systems or more",
    ("report/tables.py", "len(self.header)"): "a mismatch of two numbers, never 1 and 1",
    ("io/trec.py", "layout.kind"): "not a count: 'qrels' or 'run' lines",
    ("io/trec.py", "MAX_LINE_BYTES"): "a constant",
    ("io/trec.py", "len(layout.names)"): "a layout's fields: 4 to 6",
    ("io/tables.py", "len(names)"): "a layout's fields: 3 or more",
    ("engines/spark/paths.py", "expected"): "a layout's fields: 4 to 6",
    ("engines/spark/strategies.py", "offered"): "a mean (a float), not a count",
    ("data/_dicts.py", "len(str(abs(value)))"): "integers beyond a float: 309 digits or more",
    ("data/_values.py", "len(str(abs(value)))"): "said of integers beyond a float",
    ("report/tables.py", "len(self.kinds)"): "a mismatch of two numbers, never 1 and 1",
    ("cli/options.py", "uses"): "said when '-' is given twice or more",
    ("engines/core.py", "remedy"): "not a count: an option, '--missing zero scores ...'",
    ("stats/letters.py", "m"): "a square matrix of m means: m >= 2 to compare",
    ("io/trec.py", "kind"): "not a count: 'qrels' or 'run' lines",
    ("comparison.py", "factor"): "a correction over two comparisons or more",
    ("fusion/optimize.py", "folds"): "cross-validation takes two folds or more",
    ("guidance/rules.py", "power.runs"): "a residual variance of two runs or more",
    ("measures/elsewhere.py", "name"): "not a count: '<name> means ...' (a verb)",
    ("measures/parser.py", "name"): "not a count: '<name> means ...' (a verb)",
    ("measures/parser.py", "len(digits)"): "said of cutoffs beyond 2^63: 19 digits or more",
    ("measures/ir_language.py", "len(raw)"): "said of cutoffs beyond 2^63: 19 digits or more",
    ("stats/topic_sets.py", "m"): "ANOVA over two systems or more",
    ("recommenders/inputs.py", "self.kind"): "not a count: 'user' or 'item' ids",
    ("integrations/catboost.py", "known"): "not a count: the sizes known, as a list",
    ("report/differences.py", "unit"): "not a count: 'Per-query' or 'Per-user' (the unit)",
    ("report/distribution.py", "unit"): "not a count: 'Per-query' or 'Per-user' (the unit)",
}
"""Counts that cannot be 1, with the reason."""

PENDING: set[str] = set()
"""Modules whose messages another change is rewriting (none now)."""


def _counts_before_plural_nouns(path: Path) -> list[tuple[int, str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for value, after in itertools.pairwise(parts):
            if not (isinstance(value, ast.FormattedValue) and isinstance(after, ast.Constant)):
                continue
            text = str(after.value)
            word = text[1:].split(" ", 1)[0].rstrip(",.;:)") if text.startswith(" ") else ""
            if word in NOUNS:
                found.append((node.lineno, ast.unparse(value.value), word))
    return found


def test_no_message_counts_with_a_plural_noun_alone() -> None:
    wrong = []
    for path in sorted(SOURCE.rglob("*.py")):
        module = path.relative_to(SOURCE).as_posix()
        if any(module.startswith(prefix) for prefix in PENDING):
            continue
        for line, expression, noun in _counts_before_plural_nouns(path):
            if (module, expression) not in ALLOWED:
                wrong.append(f"{module}:{line}: {{{expression}}} {noun}")
    assert wrong == [], "use rankwise._wording.counted:\n" + "\n".join(wrong)


def test_the_wording_helpers() -> None:
    assert [counted(n, "query") for n in (0, 1, 2)] == ["0 queries", "1 query", "2 queries"]
    assert counted(1, "judged query") == "1 judged query"
    assert counted(1_234_567, "row", grouped=True) == "1,234,567 rows"
    assert [plural("has", 1), plural("has", 2), plural("run", 1), plural("run", 3)] == [
        "has", "have", "run", "runs"]
    assert [format_p(p) for p in (0.5, 0.00015, 0.00004, 0.0)] == [
        "0.5000", "0.0001", "<0.0001", "<0.0001"]


def test_one_query_is_one_query() -> None:
    results = rw.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, ["map"])
    assert repr(results).splitlines()[0] == "Results('run', 1 query)"
    assert "run: 1 query" in results._repr_html_()
    assert repr(rw.read_trec_run(b"q1 Q0 d1 1 1.0 r\n")) == "Run('r', 1 query, 1 row)"
    assert repr(rw.read_trec_qrels(b"q1 0 d1 1\n")) == "Qrels(1 query, 1 judgment)"
    assert repr(rw.read_trec_qrels(b"q1 2 d1 1\n", subtopics=True)) == (
        "Qrels(1 query, 1 judgment, 1 subtopic)")
    with pytest.raises(rw.InvalidParameterError, match=r"\(run: 1 query, e\.g\. \[.x.\]; "
                                                  r"judgments: 1 query, e\.g\. \['q1'\]\)"):
        rw.evaluate_runs({"q1": {"d1": 1}}, {"a": {"x": {"d1": 1.0}}}, ["map"])
