"""The report in a real browser: headless Chromium, offline, from a file:// URL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rankwise.reporting import build_report

PLOTS = {"comparison", "curves", "differences", "distributions"}
SECTIONS = ["summary", "explorer", "curves", "differences", "distributions", "queries",
            "provenance"]

PROBE = """JSON.stringify({
  title: document.title,
  sections: [...document.querySelectorAll("main > section")].map(s => s.id),
  headings: [...document.querySelectorAll("main > section > h2")].map(h => h.textContent),
  rows: document.querySelectorAll("#summary-table tbody tr").length,
  columns: document.querySelectorAll("#summary-table thead th").length,
  markers: document.querySelectorAll("#summary-table .sig").length,
  plots: [...document.querySelectorAll("figure.plot:not([hidden])")].map(f => {
    const svg = f.querySelector("svg");
    const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    return {key: f.dataset.plot, width: box.width, height: box.height,
            texts: svg ? svg.querySelectorAll("text").length : 0,
            shapes: svg ? svg.querySelectorAll("path, use, rect").length : 0};
  }),
  changes: document.querySelectorAll("#queries details table").length,
  files: document.querySelectorAll("#files tbody tr").length,
  definitions: document.querySelectorAll("#measures tbody tr").length,
  resources: performance.getEntriesByType("resource").map(e => e.name),
  scripts: [...document.scripts].map(s => [s.id, s.type, s.src]),
  explorer: document.getElementById("x-app").dataset.state,
  interactive: performance.getEntriesByName("rankwise-interactive").length,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
})"""


@pytest.mark.parametrize("systems", [3, 1], ids=["three-runs", "one-run"])
def test_report_opens_offline_without_errors(
    chromium: Any, trec_files: dict[str, Path], tmp_path: Path, systems: int
) -> None:
    runs = [trec_files["standard"], trec_files["noisy"], trec_files["shuffled"]][:systems]
    report = build_report(trec_files["qrels"], runs, ["ndcg@10", "map", "P@10"], seed=0)
    page = tmp_path / "report.html"
    report.save(page)

    session = chromium.open(page)
    chromium.wait_until(session, "performance.getEntriesByName('rankwise-interactive').length")
    dom = json.loads(chromium.evaluate(session, PROBE))
    errors, requests = chromium.problems(session)

    assert errors == []
    assert requests == [page.as_uri()]  # the page itself, nothing else
    assert [url for url in dom["resources"] if not url.startswith(("file:", "data:"))] == []
    # the explorer's data (JSON, never run) and the page's one script, inline
    assert dom["scripts"] == [["rankwise-data", "application/json", ""],
                              ["rankwise-script", "", ""]]
    assert dom["explorer"] == "ready" and dom["interactive"] == 1
    assert dom["overflow"] == 0  # nothing sticks out of a 1280 px window
    assert dom["title"] == report.title
    assert dom["sections"] == SECTIONS
    assert dom["rows"] == systems
    assert dom["columns"] == 2 + 3  # system, queries, one per measure
    assert dom["files"] == 1 + systems
    assert dom["definitions"] == 3 + 3  # the measures, and the three curves
    expected = PLOTS | {"scatter"} if systems > 1 else {"curves", "distributions"}
    if systems > 2:  # three runs or more: the ASL curves of discriminative power too
        expected = expected | {"asl"}
    assert {plot["key"] for plot in dom["plots"]} == expected
    for plot in dom["plots"]:  # drawn, with a real size, labelled
        assert plot["width"] > 300 and plot["height"] > 150, plot
        assert plot["texts"] > 5 and plot["shapes"] > 5, plot
    if systems > 1:
        assert dom["changes"] == 3 * (systems - 1) * 2  # per measure and system: gains, losses
    width, height = chromium.screenshot(session, tmp_path / f"report-{systems}.png", full=True)
    assert (tmp_path / f"report-{systems}.png").stat().st_size > 20_000
    assert width == 1280 and height > 1500
