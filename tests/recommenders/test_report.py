"""The recommender HTML report: every measure, per segment, the test between segments."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import rankwise as rw
from rankwise.report.comparison_display import format_p


def _result() -> rw.recommenders.RecommenderResults:
    rng = np.random.default_rng(3)
    users = [f"u{n}" for n in range(40)]
    test = {"user": users, "item": [f"i{n % 7}" for n in range(40)]}
    recs: dict[str, list[str]] = {}
    for n, user in enumerate(users):
        others = [f"i{m}" for m in rng.permutation(7) if m != n % 7][:4]
        # the "good" segment finds its item near the top, the other one deeper
        recs[user] = [f"i{n % 7}", *others] if n % 2 else [*others, f"i{n % 7}"]
    groups = {user: "good" if n % 2 else "poor" for n, user in enumerate(users)}
    return rw.evaluate_recommendations(test, recs, ["ndcg@5", "mrr", "coverage"],
                                       catalogue=7, segments=groups)


def _cells(page: str, section: str) -> list[list[str]]:
    body = re.search(rf'<section id="{section}".*?<tbody>(.*?)</tbody>', page, re.S)
    assert body is not None
    return [re.findall(r"<td[^>]*>(.*?)</td>", row)
            for row in re.findall(r"<tr>(.*?)</tr>", body.group(1))]


def test_the_page_shows_every_measure_per_segment_and_the_test(tmp_path: Path) -> None:
    r = _result()
    seg = r.segments
    assert seg is not None and seg.p_values["ndcg@5"] < 0.05
    page = r.to_html(str(tmp_path / "r.html"), title="demo")
    assert (tmp_path / "r.html").read_text() == page
    assert "default-src 'none'" in page and "<script" not in page
    means = _cells(page, "means")
    assert [row[0] for row in means] == ["ndcg@5", "mrr", "coverage"]
    assert [row[1] for row in means] == [f"{r.mean[m]:.4f}" for m in r.mean]
    rows = _cells(page, "segments")
    assert [row[0] for row in rows[:-1]] == ["good", "poor"]
    for row, name in zip(rows, seg.names):
        assert row[1] == str(seg.users[name])
        assert row[2:] == [f"{seg.mean[name][m]:.4f}" for m in r.mean]
    p_row = rows[-1]
    assert p_row[0] == "p (Welch&#x27;s t-test)"
    assert p_row[2] == format_p(seg.p_values["ndcg@5"]) + " *"  # marked: below 0.05
    assert p_row[4] == ""  # coverage: one value per segment, no test (empty, as the docs show)
