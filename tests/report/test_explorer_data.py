"""The explorer's data in the page, read back as the page's script reads it (issue 39).

The JSON inside ``<script id="rankwise-data">`` is unpacked here the way
explorer.js unpacks it (byte planes, DEFLATE, per-list score differences),
and compared with the report's results and lists; the page's one script is
allowed by the hash its Content-Security-Policy names, and nothing in the
data can end the element it sits in.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html import unescape
from typing import Any

import numpy as np
import pytest

from rankwise.report.explorer import script
from rankwise.report.explorer_data import MAX_DOCUMENT_CHARS, pack, unpack
from rankwise.report.lists import query_table
from rankwise.reporting import build_report

HOSTILE = ["</script><script>alert(1)</script>", '"onmouseover=alert(2) x="',
           "\u202eevil\u202c", "ctl\x01\x1b", "\u2028line\u2029", "<!--", "é 漢字 🙂"]


def page_data(html: str) -> dict[str, Any]:
    start = html.index('<script type="application/json" id="rankwise-data">')
    body = html[html.index(">", start) + 1:html.index("</script>", start)]
    return json.loads(body)


def strings(arrays: dict[str, np.ndarray], name: str) -> list[str]:
    lengths, data = arrays[f"{name}.len"], arrays[f"{name}.utf8"].tobytes()
    ends = np.cumsum(lengths)
    starts = np.concatenate([[0], ends[:-1]])
    return [data[int(a):int(b)].decode("utf-8") for a, b in zip(starts, ends)]


def scores(deltas: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The float32 scores back from their 24-bit values, given as differences per list."""
    out = np.zeros(len(deltas), np.uint32)
    at = 0
    for count in counts:
        out[at:at + count] = np.cumsum(deltas[at:at + count].astype(np.int64)) << 8
        at += count
    return out.view(np.float32)


@pytest.fixture(scope="module")
def hostile_report(synthetic: Any) -> tuple[Any, str]:
    qrels, runs = synthetic(30, 3, depth=40)
    named = dict(zip(HOSTILE, runs.values()))
    topics = {f"q{i}": HOSTILE[i % len(HOSTILE)] + f" {i}" for i in range(30)}
    documents = {f"d{j}": (HOSTILE[j % len(HOSTILE)] + " ") * (j * 10) for j in range(40)}
    report = build_report(qrels, named, ["ndcg@10", "P@10"], seed=0, max_k=5, topics=topics,
                          documents=documents, n_resamples=200, list_depth=15)
    return report, report.to_html()


def test_the_data_holds_the_results_and_the_lists(hostile_report: tuple[Any, str]) -> None:
    report, html = hostile_report
    meta = page_data(html)
    arrays = unpack(meta["layout"], base64.b64decode(meta["data"]))
    queries = query_table(report.results)
    assert meta["systems"] == HOSTILE[:3] and meta["measures"] == ["ndcg@10", "P@10"]
    assert meta["baseline"] == 0 and meta["queries"] == len(queries) == 30
    assert strings(arrays, "qid") == queries
    assert strings(arrays, "qtext") == [HOSTILE[int(q[1:]) % len(HOSTILE)] + " " + q[1:]
                                        for q in queries]
    values = arrays["val"].reshape(2, 3, 30)
    for s, system in enumerate(report.systems):
        results = report.results[system]
        order = [list(map(str, results.query_ids)).index(q) for q in queries]
        for m, measure in enumerate(["ndcg@10", "P@10"]):
            np.testing.assert_array_equal(values[m, s], results[measure][order])
    lists = report.lists
    counts = arrays["cnt"].astype(np.int64)
    np.testing.assert_array_equal(np.concatenate([[0], np.cumsum(counts)]), lists.offsets)
    entry_query = np.repeat(np.tile(np.arange(30), 3), counts)
    np.testing.assert_array_equal(arrays["dbase"][entry_query] + arrays["doc"], lists.doc)
    assert strings(arrays, "did") == lists.doc_ids.to_pylist()
    grades = arrays["grades"]
    decoded = np.where(arrays["grade"] > 0, grades[np.maximum(arrays["grade"], 1) - 1], np.nan)
    np.testing.assert_array_equal(decoded, lists.grade)
    np.testing.assert_array_equal(arrays["tie"], lists.ties)
    shown = scores(arrays["score"], counts)
    np.testing.assert_allclose(shown, lists.score, rtol=2.0 ** -16)  # 4 digits are exact
    np.testing.assert_array_equal(arrays["rrank"].reshape(-1, 3), lists.relevant_rank)
    texts = strings(arrays, "dtext")
    for doc, text in zip(lists.doc_ids.to_pylist(), texts):
        full = report.documents[doc]
        assert text == (full if len(full) <= MAX_DOCUMENT_CHARS
                        else full[:MAX_DOCUMENT_CHARS - 1] + "…")


def test_nothing_in_the_data_can_end_its_element(hostile_report: tuple[Any, str]) -> None:
    _, html = hostile_report
    start = html.index('id="rankwise-data">') + len('id="rankwise-data">')
    body = html[start:html.index("</script>", start)]
    assert not set(body) & {"<", ">", "&", "\u2028", "\u2029"}
    assert "<script>alert" not in html and "</script><script" not in html
    # everywhere else the name is escaped: the figures, the tables
    for found in re.finditer(re.escape("alert(1)"), html):
        before = html[found.start() - 6:found.start()]
        assert before.endswith("&gt;") or before == "\\u003e", before


def test_the_page_runs_its_own_script_only() -> None:
    text = script()
    assert "</script" not in text.lower() and "<!--" not in text  # it cannot end early
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
    from rankwise.reporting import build_report as build

    html = build({"q": {"a": 1}}, {"x": {"q": {"a": 1.0}}}, ["P@1"], max_k=2).to_html()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)[1]
    assert unescape(policy) == ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                                f"script-src 'sha256-{digest}'")
    assert html.count("<script") == 2 and f'<script id="rankwise-script">{text}</script>' in html


def test_pack_round_trips_every_type() -> None:
    sections = [("a", np.array([1, 2, 250], np.uint8)), ("b", np.array([1, 65535], np.uint16)),
                ("c", np.array([-5, 2**31 - 1], np.int32)), ("d", np.array([2**32 - 1], np.uint32)),
                ("e", np.array([np.nan, -0.0, 1e300])), ("f", b"\x00\xff")]
    layout, data = pack(sections)
    assert [row[:2] for row in layout] == [["a", "u8"], ["b", "u16"], ["c", "i32"], ["d", "u32"],
                                           ["e", "f64"], ["f", "u8"]]
    out = unpack(layout, data)
    for name, value in sections[:-1]:
        np.testing.assert_array_equal(out[name], value)
    assert out["f"].tobytes() == b"\x00\xff"


def test_a_report_of_results_has_values_and_no_lists(synthetic: Any) -> None:
    import rankwise as rw

    qrels, runs = synthetic(12, 2, depth=10)
    results = {name: rw.evaluate(qrels, run, ["P@5"]) for name, run in runs.items()}
    report = build_report(qrels, results, ["P@5"], seed=0, max_k=3, n_resamples=100)
    assert report.lists is not None and not report.lists.has_lists.any()
    meta = page_data(report.to_html())
    assert meta["lists"] == [False, False] and meta["depth"] == 20
    none = build_report(qrels, runs, ["P@5"], seed=0, max_k=3, n_resamples=100, list_depth=0)
    assert none.lists is None and page_data(none.to_html())["depth"] == 0
