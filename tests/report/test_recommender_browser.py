"""The recommender comparison's page (issue 37, item 2) in headless Chromium, offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rankwise as rw

PROBE = """JSON.stringify({
  sections: [...document.querySelectorAll("main > section")].map(s => s.id),
  rows: document.querySelectorAll("#comparison table.comparison tbody tr").length,
  markers: [...document.querySelectorAll("#comparison .sig")].map(m => m.textContent),
  plots: [...document.querySelectorAll("figure.plot")].map(f => {
    const box = f.querySelector("svg").getBoundingClientRect();
    return {key: f.dataset.plot, width: box.width, height: box.height,
            shapes: f.querySelectorAll("path, rect, circle").length};
  }),
  bins: [...document.querySelectorAll("#long-tail [data-series='pop']")].map(
    r => [r.dataset.bin, Number(r.dataset.share), r.getBoundingClientRect().height]),
  segments: [...document.querySelectorAll("#segments h3")].map(h => h.dataset.segment),
  curves: [...document.querySelectorAll("#curves [data-title]")].map(p => ({
    title: p.dataset.title,
    lines: [...p.querySelectorAll("polyline.series, path.series")].map(l => {
      const box = l.getBoundingClientRect();
      return {name: l.dataset.name, width: box.width,
              points: (l.getAttribute("points") || l.getAttribute("d") || "").trim()};
    }),
  })),
  panels: [...document.querySelectorAll("#segments [data-segment]")].filter(
    p => p.tagName.toLowerCase() === "g").map(p => ({
    segment: p.dataset.segment,
    models: [...p.querySelectorAll("[data-significant]")].map(
      m => [m.dataset.model, m.dataset.significant, Number(m.dataset.mean)]),
  })),
  assumed: document.querySelectorAll("#assumed li").length,
  resources: performance.getEntriesByType("resource").map(e => e.name),
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
})"""


def _data() -> tuple[dict, dict, dict]:
    rng = np.random.default_rng(0)
    items = [f"i{n:03d}" for n in range(300)]
    weights = 1 / np.arange(1, 301)  # a long tail of popularity
    weights /= weights.sum()
    train = {"user": [], "item": []}
    held = {"user": [], "item": []}
    for user in range(200):
        seen = 4 + user % 8  # 4 to 11 training interactions
        picked = rng.choice(300, seen + 4, replace=False, p=weights)
        train["user"] += [user] * seen
        train["item"] += [items[i] for i in picked[:seen]]
        held["user"] += [user] * 4
        held["item"] += [items[i] for i in picked[seen:]]
    pop = {user: items[:30] for user in range(200)}  # the 30 most popular
    personal = {user: [held["item"][4 * user + j] for j in range(2)]
                + [items[i] for i in rng.choice(300, 20, replace=False)]
                for user in range(200)}
    return held, train, {"pop": pop, "personal": personal}


def test_the_comparison_page_opens_offline_and_shows_its_figures(
        chromium: Any, tmp_path: Path) -> None:
    held, train, models = _data()
    page = tmp_path / "recommenders.html"
    rw.report_recommendations(held, models, ["ndcg@10", "recall@20", "arp@20", "coverage@20",
                                             "gini@20"], str(page), baseline="pop",
                              exclude=train, k=20, segments="activity", heavy=9, seed=0,
                              duplicates="first")
    session = chromium.open(page)
    dom = json.loads(chromium.evaluate(session, PROBE))
    errors, requests = chromium.problems(session)
    assert errors == [] and requests == [page.as_uri()]
    assert [url for url in dom["resources"] if not url.startswith(("file:", "data:"))] == []
    assert dom["sections"] == ["comparison", "whole-set", "bias", "long-tail", "curves",
                               "distribution", "differences", "segments", "assumptions",
                               "provenance"]
    assert dom["rows"] == 2
    # personal finds two held-out items in every list: significantly above pop
    assert "†▲" in dom["markers"]
    assert {p["key"] for p in dom["plots"]} == {"bias", "long-tail", "curves", "distribution",
                                                "differences", "segment-panels"}
    for plot in dom["plots"]:
        assert plot["width"] > 300 and plot["height"] > 150 and plot["shapes"] > 3, plot
    # pop recommends only the 30 most popular training items: every bar beyond rank 100
    # is empty, and the shares are the page's own numbers of the long tail
    shares = {label: share for label, share, _ in dom["bins"]}
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares["101-" + dom["bins"][-2][0].split("-")[-1]] == 0.0
    assert all(height > 0 for _, share, height in dom["bins"] if share > 0)
    assert dom["segments"] == ["light", "heavy"]  # 4 to 8, 9 to 11 training interactions
    # the curves: ndcg@k and recall@k, one drawn line per model across k = 1..20
    assert [c["title"] for c in dom["curves"]] == ["ndcg@k", "recall@k"]
    for curve in dom["curves"]:
        assert sorted(line["name"] for line in curve["lines"]) == ["personal", "pop"]
        assert all(line["width"] > 150 and line["points"] for line in curve["lines"]), curve
    # the per-segment panels: one per segment, each model's mean ndcg@10 as in the segment's
    # table (the page's own numbers), personal significantly above pop in both
    assert [p["segment"].split(" (")[0] for p in dom["panels"]] == ["light", "heavy"]
    for panel in dom["panels"]:
        marks = {model: (verdict, mean) for model, verdict, mean in panel["models"]}
        assert marks["personal"][0] == "higher" and marks["pop"][0] == "no"
        assert marks["personal"][1] > marks["pop"][1]
    assert dom["assumed"] >= 6
    assert dom["overflow"] <= 0
    width, height = chromium.screenshot(session, tmp_path / "recommenders.png", full=True)
    assert width == 1280 and height > 1500
