"""The report's per-segment panels: each model's main measure inside each segment (issue 37)."""

from __future__ import annotations

import re

import rankwise as rw

HELD = {"user": [1, 2, 3, 4, 5, 6], "item": ["a", "a", "c", "a", "b", "c"]}
MODELS = {"x": {u: ["a", "b"] for u in range(1, 7)}, "y": {u: ["b", "c"] for u in range(1, 7)},
          "z": {u: ["c", "a"] for u in range(1, 7)}}
SEGMENTS = {"user": [1, 2, 3, 4, 5, 6], "segment": ["s", "s", "s", "t", "t", "t"]}
POINT = re.compile(r'data-model="(\w)" data-mean="([^"]+)" data-significant="(\w+)"')


def _panels(page: str) -> dict[str, dict[str, tuple[float, str]]]:
    figure = re.search(r'<figure[^>]*data-plot="segment-panels".*?</figure>', page, re.S)
    assert figure is not None
    out = {}
    for part in re.split(r'(?=<g [^>]*data-segment=")', figure.group(0))[1:]:
        name = re.search(r'data-segment="([^"]+)"', part).group(1)
        out[name] = {m: (float(v), s) for m, v, s in POINT.findall(part)}
    return out


def test_every_model_in_every_segment_all_pairs() -> None:
    result = rw.compare_recommendations(HELD, MODELS, ["P@1"], segments=SEGMENTS, seed=0,
                                        test="t-test")
    panels = _panels(result.to_html())
    # P@1 by hand: s = users 1-3 (a, a, c), t = users 4-6 (a, b, c); x lists a first, y b,
    # z c; all pairs: no baseline, nothing marked (the first model too has its point)
    expected = {"s (3 users)": {"x": 2 / 3, "y": 0.0, "z": 1 / 3},
                "t (3 users)": {"x": 1 / 3, "y": 1 / 3, "z": 1 / 3}}
    assert {seg: {m: round(v, 5) for m, (v, _) in p.items()} for seg, p in panels.items()} == {
        seg: {m: round(v, 5) for m, v in p.items()} for seg, p in expected.items()}
    assert {s for p in panels.values() for _, s in p.values()} == {"no"}


def test_no_panels_without_a_per_user_measure() -> None:
    result = rw.compare_recommendations(HELD, MODELS, ["coverage"], segments=SEGMENTS, seed=0,
                                        test="t-test", baseline="x")
    page = result.to_html()
    assert 'id="segments"' in page and 'data-plot="segment-panels"' not in page
