"""The report in a real browser: headless Chromium, offline, from a file:// URL."""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path
from typing import Any

import pytest

from rankwise.reporting import build_report

PLOTS = {"comparison", "curves", "differences", "distributions"}
SECTIONS = ["summary", "curves", "differences", "distributions", "queries", "provenance"]

PROBE = """JSON.stringify({
  title: document.title,
  sections: [...document.querySelectorAll("main > section")].map(s => s.id),
  headings: [...document.querySelectorAll("main > section > h2")].map(h => h.textContent),
  rows: document.querySelectorAll("#summary-table tbody tr").length,
  columns: document.querySelectorAll("#summary-table thead th").length,
  markers: document.querySelectorAll("#summary-table .sig").length,
  plots: [...document.querySelectorAll("figure.plot")].map(f => {
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
  scripts: document.scripts.length,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
})"""


def _open(chromium: Any, page: Path) -> tuple[str, dict[str, Any]]:
    target = chromium.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = chromium.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        chromium.send(f"{domain}.enable", session=session)
    chromium.send("Network.emulateNetworkConditions",
                  {"offline": True, "latency": 0, "downloadThroughput": -1,
                   "uploadThroughput": -1}, session=session)
    chromium.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                  session=session)
    chromium.send("Page.navigate", {"url": page.as_uri()}, session=session)
    chromium.wait_for("Page.loadEventFired", session)
    chromium.drain(0.5)  # late console messages
    probe = chromium.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                          session=session)
    return session, json.loads(probe["result"]["value"])


def _problems(chromium: Any, session: str) -> tuple[list[str], list[str]]:
    errors, requests = [], []
    for event in chromium.events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append(json.dumps(params.get("exceptionDetails", {}))[:300])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(json.dumps(params.get("args", []))[:300])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            errors.append(f"{params['entry'].get('source')}: {params['entry'].get('text')}")
        elif method == "Network.requestWillBeSent":
            requests.append(params["request"]["url"])
    return errors, requests


def _screenshot(chromium: Any, session: str, path: Path) -> tuple[int, int]:
    metrics = chromium.send("Page.getLayoutMetrics", session=session)
    height = int(min(metrics["cssContentSize"]["height"], 16_000))
    chromium.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=session)
    shot = chromium.send("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": True}, session=session)
    data = base64.b64decode(shot["data"])
    path.write_bytes(data)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, tall = struct.unpack(">II", data[16:24])
    return width, tall


@pytest.mark.parametrize("systems", [3, 1], ids=["three-runs", "one-run"])
def test_report_opens_offline_without_errors(
    chromium: Any, trec_files: dict[str, Path], tmp_path: Path, systems: int
) -> None:
    runs = [trec_files["standard"], trec_files["noisy"], trec_files["shuffled"]][:systems]
    report = build_report(trec_files["qrels"], runs, ["ndcg@10", "map", "P@10"], seed=0)
    page = tmp_path / "report.html"
    report.save(page)

    session, dom = _open(chromium, page)
    errors, requests = _problems(chromium, session)

    assert errors == []
    assert [url for url in requests if not url.startswith(("file:", "data:"))] == []
    assert [url for url in dom["resources"] if not url.startswith(("file:", "data:"))] == []
    assert dom["scripts"] == 0
    assert dom["overflow"] == 0  # nothing sticks out of a 1280 px window
    assert dom["title"] == report.title
    assert dom["sections"] == SECTIONS
    assert dom["rows"] == systems
    assert dom["columns"] == 2 + 3  # system, queries, one per measure
    assert dom["files"] == 1 + systems
    assert dom["definitions"] == 3 + 3  # the measures, and the three curves
    expected = PLOTS if systems > 1 else {"curves", "distributions"}
    if systems > 2:  # three runs or more: the ASL curves of discriminative power too
        expected = expected | {"asl"}
    assert {plot["key"] for plot in dom["plots"]} == expected
    for plot in dom["plots"]:  # drawn, with a real size, labelled
        assert plot["width"] > 300 and plot["height"] > 150, plot
        assert plot["texts"] > 5 and plot["shapes"] > 5, plot
    if systems > 1:
        assert dom["changes"] == 3 * (systems - 1) * 2  # per measure and system: gains, losses
    width, height = _screenshot(chromium, session, tmp_path / "report.png")
    assert (tmp_path / "report.png").stat().st_size > 20_000
    assert width == 1280 and height > 1500
