"""Read the report's SVG figures back: panels, their data limits, and drawn shapes as data.

Each panel of a figure is a ``<g class="panel">`` whose ``data-box`` (plot area in
pixels: x y width height), ``data-xlim``, ``data-ylim``, ``data-xscale`` and
``data-yorder`` say how data maps to pixels; these helpers invert that map so a test
can compare what is drawn with the numbers it was drawn from.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = r"(-?\d+(?:\.\d+)?)"


def parse(svg: str) -> ET.Element:
    """The ``<svg>`` element (raises if it is not well-formed XML)."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


@dataclass
class Panel:
    element: ET.Element
    title: str
    box: tuple[float, float, float, float]
    xlim: tuple[float, float]
    ylim: tuple[float, float]
    xlog: bool
    down: bool

    def data_x(self, px: object) -> np.ndarray:
        left, _, width, _ = self.box
        low, high = (math.log10(v) for v in self.xlim) if self.xlog else self.xlim
        value = low + (np.asarray(px, dtype=float) - left) / width * (high - low)
        return 10 ** value if self.xlog else value

    def data_y(self, py: object) -> np.ndarray:
        _, top, _, height = self.box
        low, high = self.ylim
        share = (np.asarray(py, dtype=float) - top) / height
        return low + (share if self.down else 1 - share) * (high - low)

    def pixel_tolerance_y(self) -> float:
        """The data size of the 0.01 px rounding of coordinates (plus a margin)."""
        return 0.02 / self.box[3] * (self.ylim[1] - self.ylim[0])

    def pixel_tolerance_x(self) -> float:
        return 0.02 / self.box[2] * (self.xlim[1] - self.xlim[0])

    def find(self, tag: str, css: str) -> list[ET.Element]:
        return [e for e in self.element.iter(f"{SVG}{tag}")
                if css in (e.get("class") or "").split()]

    def texts(self, css: str) -> list[str]:
        return ["".join(e.itertext()) for e in self.find("text", css)]


def panels(root: ET.Element) -> list[Panel]:
    found = []
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "panel":
            continue
        box = tuple(float(v) for v in g.get("data-box", "").split())
        xlim = tuple(float(v) for v in g.get("data-xlim", "").split())
        ylim = tuple(float(v) for v in g.get("data-ylim", "").split())
        found.append(Panel(g, g.get("data-title", ""), box, xlim, ylim,  # type: ignore[arg-type]
                           g.get("data-xscale") == "log", g.get("data-yorder") == "down"))
    return found


def points(d: str) -> np.ndarray:
    """The ``x,y`` pairs of a polyline or polygon path, shape (n, 2)."""
    return np.array([(float(x), float(y)) for x, y in re.findall(f"{NUMBER},{NUMBER}", d)])


def rectangles(d: str) -> np.ndarray:
    """``(x, y, width, height)`` of each rectangle of a path of rectangles."""
    found = re.findall(f"M{NUMBER} {NUMBER}h{NUMBER}v{NUMBER}h", d)
    return np.array([tuple(map(float, f)) for f in found]).reshape(-1, 4)


def marker_centres(d: str) -> np.ndarray:
    """Centres of the markers of a path of markers (circles, diamonds, triangles)."""
    centres = []
    for x, y, r in re.findall(f"M{NUMBER} {NUMBER}a{NUMBER} ", d):  # circles: start at left
        centres.append((float(x) + float(r), float(y)))
    for x, y, r in re.findall(f"M{NUMBER} {NUMBER}l{NUMBER} ", d):  # diamonds: at the top
        centres.append((float(x), float(y) + float(r)))
    for x, y, w in re.findall(f"M{NUMBER} {NUMBER}h{NUMBER}l", d):  # triangles: top left
        r = float(w) / 2
        centres.append((float(x) + r, float(y) + 0.85 * r))
    return np.array(centres).reshape(-1, 2)


def all_text(root: ET.Element) -> str:
    """Every text of the figure (title and description included), one per line."""
    return "\n".join("".join(e.itertext()) for e in root.iter()
                     if e.tag in (f"{SVG}text", f"{SVG}title", f"{SVG}desc"))
