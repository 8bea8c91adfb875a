"""7,000 queries x 5 systems: the report stays small and light to render."""

from __future__ import annotations

import re
from typing import Any

import pytest

from rankwise.reporting import build_report

LIMIT = 5_000_000
"""Without ranked lists: the tables and figures alone."""

EXPLORER_LIMIT = 8_000_000
"""With every system's first 20 documents of every query (issue 39)."""


@pytest.mark.slow
def test_report_of_7000_queries_and_5_systems(synthetic: Any, tmp_path: Any) -> None:
    qrels, runs = synthetic(7000, 5, depth=100)
    report = build_report(qrels, runs, ["ndcg@10", "map", "mrr@10", "P@10", "recall@100"],
                          seed=0, n_resamples=2000, list_depth=0)
    target = tmp_path / "report.html"
    report.save(target)
    html = target.read_text(encoding="utf-8")
    size = target.stat().st_size
    assert size < LIMIT
    assert report.n_queries == 7000 and len(report.systems) == 5
    # few elements: the per-query plots are aggregated, not one shape per query
    elements = len(re.findall(r"<[a-zA-Z]", html))
    assert elements < 40_000, elements
    differences = html[html.index('id="plot-differences"'):]
    differences = differences[:differences.index("</figure>")]
    assert len(differences) < 1_500_000
    assert differences.count("<path") < 2_000  # 5 measures x 4 systems panels


@pytest.mark.slow
def test_report_with_ranked_lists_of_7000_queries_stays_under_8_mb(
        synthetic: Any, tmp_path: Any) -> None:
    """5 runs x 7,000 queries x 4 measures, lists to depth 20, documents no two queries share."""
    qrels, runs = synthetic(7000, 5, depth=100, distinct_ids=True)
    report = build_report(qrels, runs, ["ndcg@10", "map", "mrr@10", "recall@100"], seed=0,
                          n_resamples=1000, list_depth=20)
    target = tmp_path / "report.html"
    report.save(target)
    assert report.lists is not None and len(report.lists.doc) == 5 * 7000 * 20
    assert target.stat().st_size < EXPLORER_LIMIT
    html = target.read_text(encoding="utf-8")
    scatter = sum(len(m) for m in re.findall(r'<figure class="plot" id="plot-scatter.*?</figure>',
                                             html, re.DOTALL))
    assert scatter < 1_500_000  # 4 figures of 4 panels: a dot per occupied pixel
