"""A :class:`~rankwise.recommenders.comparison.RecommenderComparison` as text, in every format.

The wide formats (``table``, ``markdown``, ``latex``) stack, for all users
and then for each segment, the comparison of the per-user measures as
``rankwise compare`` prints it (a marker on significant differences, the
legend) and the whole-set measures, and end with the assumptions. The
machine formats give the long rows (``tsv``, ``csv``, ``jsonl``) or the
whole result (``json``).
"""

from __future__ import annotations

import math
from typing import Any

from rankwise.report.comparison_tables import render_comparison
from rankwise.report.json_text import json_text
from rankwise.report.tables import FORMATS, Table, latex_comment, markdown_escape, render

__all__ = ["render_recommender_comparison"]

_WIDE = ("table", "markdown", "latex")


def render_recommender_comparison(result: Any, fmt: str, *,
                                  long: bool = False, digits: int = 4,
                                  marker: str | None = None) -> str:
    """Render *result* in *fmt* (see :meth:`RecommenderComparison.to_table`).

    *result* is a :class:`~rankwise.recommenders.comparison.RecommenderComparison`
    (not imported: it imports this module).
    """
    if fmt not in FORMATS:  # the one wording of an unknown format
        render(Table([], []), fmt)
    if fmt == "json":
        return json_text(result.to_dict(), indent=2) + "\n"
    if fmt not in _WIDE:
        return render(result.table(), fmt, digits=digits)
    parts = []
    blocks = [(None, result.comparison, result.whole_set, None)]
    blocks += [(name, comparison, result.segment_whole_set.get(name, {}),
                result.segment_users.get(name, {}))
               for name, comparison in result.segments.items()]
    for segment, comparison, whole, users in blocks:
        if segment is not None:
            counts = ", ".join(f"{model} {n}" for model, n in (users or {}).items())
            parts.append(_heading(f"segment {segment} (users: {counts})", fmt))
        if comparison.measures:
            parts.append(render_comparison(comparison, fmt, long=long, digits=digits,
                                           marker=marker))
        if whole and next(iter(whole.values())):
            parts.append(_heading("whole-set measures (one value per model, no test)", fmt)
                         + render(_whole_table(whole, result.baseline), fmt, digits=digits))
    said = [f"assumed: {line}" for line in result.assumptions]
    said += [f"note: {line}" for line in _evaluation_notes(result)]
    parts.append(_lines(said, fmt))
    return "\n".join(part.rstrip("\n") + "\n" for part in parts if part)


def _whole_table(whole: dict[str, dict[str, float]], baseline: str | None) -> Table:
    """One row per model, one column per whole-set measure; the difference from the baseline."""
    measures = list(next(iter(whole.values())))
    header = ["system", *measures]
    kinds = ["text", *["float"] * len(measures)]
    if baseline is not None:
        header += [f"delta {m}" for m in measures]
        kinds += ["float"] * len(measures)
    rows: list[list[Any]] = []
    for model, values in whole.items():
        cells: list[Any] = [model, *(_cell(values[m]) for m in measures)]
        if baseline is not None:
            cells += [None if model == baseline else _cell(values[m] - whole[baseline][m])
                      for m in measures]
        rows.append(cells)
    return Table(header, kinds, rows)


def _cell(value: float) -> float | None:
    return None if math.isnan(value) else value


def _evaluation_notes(result: Any) -> list[str]:
    """The evaluations' notes (the comparisons' are under their tables already)."""
    notes = [note for r in result.results.values() for note in r.notes]
    return list(dict.fromkeys(notes))


def _heading(text: str, fmt: str) -> str:
    if fmt == "markdown":
        return f"\n### {markdown_escape(text)}\n\n"
    if fmt == "latex":
        return latex_comment(text) + "\n"
    return f"\n{text}\n"


def _lines(lines: list[str], fmt: str) -> str:
    if not lines:
        return ""
    if fmt == "latex":
        return "".join(latex_comment(line) + "\n" for line in lines)
    if fmt == "markdown":
        return "\n" + "".join(f"- {markdown_escape(line)}\n" for line in lines)
    return "\n" + "".join(line + "\n" for line in lines)
