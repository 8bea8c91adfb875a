"""The HTML page: every section, no external URL, provenance, escaping."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rankwise._version import __version__
from rankwise.measures import FAMILIES
from rankwise.report.html import SECTIONS
from rankwise.reporting import build_report

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
MEASURES = ["ndcg@10", "map", "P@10"]


class Page(HTMLParser):
    """Every start tag with its attributes, and the text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [a for t, a in self.tags
                if t == tag and all(a.get(k.rstrip("_")) == v for k, v in attrs.items())]


@pytest.fixture(scope="module")
def three(trec_files: dict[str, Path]) -> tuple[Any, str]:
    runs = [trec_files["standard"], trec_files["noisy"], trec_files["shuffled"]]
    report = build_report(trec_files["qrels"], runs, MEASURES, seed=0, created=WHEN)
    return report, report.to_html()


def test_every_section_is_there_in_order(three: tuple[Any, str]) -> None:
    _, html = three
    page = Page(html)
    ids = [a["id"] for t, a in page.tags if t == "section"]
    assert ids == list(SECTIONS)
    for key, heading in SECTIONS.items():
        assert f'<section id="{key}" class="card"><h2>{heading}</h2>' in html
        assert f'href="#{key}"' in html  # the navigation links to it
    plots = {a["data-plot"] for a in page.find("figure") if "data-plot" in a}
    # three systems: the ASL curves of discriminative power join the comparison; the
    # explorer has a paired scatter of each system against the baseline
    assert plots == {"comparison", "curves", "differences", "distributions", "asl", "scatter"}
    assert html.count("<svg") == 5 + 2


def test_no_external_resource(three: tuple[Any, str]) -> None:
    _, html = three
    page = Page(html)
    for tag, attrs in page.tags:
        for name in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
            value = attrs.get(name, "")
            assert not re.match(r"\s*(https?:)?//", value, re.IGNORECASE), (tag, name, value)
    # two scripts: the explorer's data (JSON, never run) and the page's own, inline
    scripts = [a for t, a in page.tags if t == "script"]
    assert scripts == [{"type": "application/json", "id": "rankwise-data"},
                       {"id": "rankwise-script"}]
    assert not page.find("img")
    assert not page.find("link", rel="stylesheet")
    assert not page.find("iframe")
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", html, re.IGNORECASE)
    assert not re.search(r"@import", html)
    policy = page.find("meta", **{"http-equiv": "Content-Security-Policy"})
    assert policy and policy[0]["content"].startswith("default-src 'none'")


def test_comparison_table_and_markers(trec_files: dict[str, Path], synthetic: Any) -> None:
    qrels, runs = synthetic(120, 3, depth=30)
    report = build_report(qrels, runs, ["ndcg@10", "P@10"], seed=0, created=WHEN, max_k=20)
    html = report.to_html()
    table = html[html.index('id="summary-table"'):html.index("</table>", html.index(
        'id="summary-table"'))]
    assert table.count("<tr>") == 1 + 3
    assert 'sys0 <span class="tag">baseline</span>' in table
    # sys1 and sys2 are much better than sys0: significant on both measures
    assert table.count('class="sig up"') == 4
    assert 'class="sig down"' not in table
    assert "p_adj" in table  # the marker's tooltip
    assert report.comparison.legend in unescape(html)
    assert 'id="comparison-details"' in html


def test_top_changes_are_listed(three: tuple[Any, str]) -> None:
    report, html = three
    page = Page(html)
    assert len(page.find("details", class_="measure")) == len(MEASURES)
    gains = len([1 for t, a in page.tags if t == "table" and a.get("class") == "changes-gain"])
    assert gains == len(MEASURES) * 2  # per measure, each system against the baseline
    baseline = report.results[report.baseline]
    noisy = report.results["noisy"]
    best = max(zip(noisy["ndcg@10"] - baseline["ndcg@10"], noisy.query_ids))
    assert f'title="{best[1]}">{best[1]}</td>' in html


def test_provenance(three: tuple[Any, str], trec_files: dict[str, Path]) -> None:
    _, html = three
    for key in ("qrels", "standard", "noisy", "shuffled"):
        data = trec_files[key].read_bytes()
        assert hashlib.sha256(data).hexdigest() in html
        assert f"({len(data):,} B)" in html
        assert str(trec_files[key]) in html
    for name in ("ndcg", "map", "P", "recall"):
        assert FAMILIES[name].summary in html
    assert "ndcg@k, k = 1..100" in html and "recall@k, k = 1..100" in html
    assert f"rankwise {__version__}" in html
    assert "2026-01-02T03:04:05+00:00" in html
    assert "randomization" in html and "holm" in html
    assert ">seed</dt><dd>0</dd>" in html


def test_one_system_has_every_section(trec_files: dict[str, Path]) -> None:
    report = build_report(trec_files["qrels"], [trec_files["standard"]], MEASURES,
                          created=WHEN)
    html = report.to_html()
    page = Page(html)
    assert [a["id"] for t, a in page.tags if t == "section"] == list(SECTIONS)
    assert report.comparison is None and report.baseline is None
    assert html.count("<svg") == 2  # curves and distributions
    assert html.count("One system") == 3


def test_names_are_escaped(synthetic: Any) -> None:
    qrels, runs = synthetic(20, 2, depth=10)
    evil = '<script>alert("x")</script>'
    named = {evil: runs["sys0"], "b&b": runs["sys1"]}
    report = build_report(qrels, named, ["ndcg@10"], seed=0, max_k=5, title="<i>t</i>")
    html = report.to_html()
    assert "<script>" not in html and "<i>t</i>" not in html
    assert "&lt;script&gt;" in html and "b&amp;b" in html


def test_report_size_stays_small_for_many_queries(synthetic: Any) -> None:
    qrels, runs = synthetic(1500, 3, depth=40)
    html = build_report(qrels, runs, ["ndcg@10"], seed=0, max_k=40).to_html()
    # the sorted differences are sampled: the page does not grow with the queries
    assert len(html.encode()) < 600_000


def test_save_writes_utf8(tmp_path: Path, synthetic: Any) -> None:
    qrels, runs = synthetic(20, 2, depth=10)
    report = build_report(qrels, runs, ["ndcg@10"], seed=0, max_k=5)
    target = tmp_path / "r.html"
    report.save(target)
    text = target.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "Δ" in text
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left


# ----------------------------------------------------------------------------
# issue 13, item 13: the curves stop where the page says they stop
# ----------------------------------------------------------------------------


def figure_svg(html: str, key: str) -> str:
    """The ``<svg>`` element of the figure *key* of the page."""
    start = html.index(f'id="plot-{key}"')
    start = html.index("<svg", start)
    return html[start:html.index("</svg>", start) + len("</svg>")]


@pytest.mark.parametrize("max_k", [20, 100])
def test_curves_run_to_max_k_even_with_recall_at_1000(synthetic: Any, max_k: int) -> None:
    from svgdata import panels, parse, points

    qrels, runs = synthetic(30, 2, depth=200)
    report = build_report(qrels, runs, ["ndcg@10", "recall@1000", "P@200"], seed=0,
                          max_k=max_k)
    html = report.to_html()
    drawn = {panel.title: panel for panel in panels(parse(figure_svg(html, "curves")))}
    assert set(drawn) == {"ndcg@k", "P@k", "recall@k"}
    for title, panel in drawn.items():
        lines = panel.find("path", "series")
        assert len(lines) == 2, title
        for line in lines:
            k = panel.data_x(points(line.get("d"))[:, 0])
            np.testing.assert_allclose(k, np.arange(1, max_k + 1), rtol=1e-3)
        assert panel.xlim == (1, max_k), title
    assert f"k = 1 … {max_k}." in html and f"k = 1 .. {max_k}" in html
    assert f"recall@k, k = 1..{max_k}" in html
    assert report.results["sys0"].mean["recall@1000"] >= 0  # the table keeps recall@1000


# ----------------------------------------------------------------------------
# issue 13, item 24: names that matplotlib would read as math
# ----------------------------------------------------------------------------

HOSTILE = ["$\\foo$", "$x^$", "<script>alert(1)</script>", "long " + "y" * 400]


def test_report_with_hostile_run_names(synthetic: Any) -> None:
    qrels, runs = synthetic(40, 4, depth=20)
    named = dict(zip(HOSTILE, runs.values()))
    report = build_report(qrels, named, ["ndcg@10", "map"], seed=0, max_k=10,
                          baseline="$x^$")
    html = report.to_html()
    assert "<script>alert" not in html
    page = unescape(re.sub(r"<[^>]+>", "\n", html))
    for name in HOSTILE:
        assert name in page  # whole in the tables
    figures = unescape(re.sub(r"<[^>]+>", "\n", "".join(re.findall(r"<svg.*?</svg>", html,
                                                                   re.DOTALL))))
    for name in HOSTILE[:3]:
        assert name in figures  # drawn literally
    assert "long yyyyyyyyyy" in figures and "y" * 100 not in figures  # shortened


# ----------------------------------------------------------------------------
# issue 13, item 33: inputs that are pipes
# ----------------------------------------------------------------------------


def feed_fifo(path: Path, data: bytes) -> Any:
    """A FIFO at *path* that a thread fills with *data* once it is opened."""
    import os
    import threading

    os.mkfifo(path)

    def write() -> None:
        with open(path, "wb") as stream:
            stream.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_pipes_are_recorded_with_the_size_and_hash_of_what_was_read(
        trec_files: dict[str, Path], tmp_path: Path) -> None:
    judgments = trec_files["qrels"].read_bytes()
    run = trec_files["noisy"].read_bytes()
    threads = [feed_fifo(tmp_path / "qrels", judgments), feed_fifo(tmp_path / "piped", run)]
    report = build_report(tmp_path / "qrels", [tmp_path / "piped", trec_files["standard"]],
                          ["map"], seed=0, max_k=5)
    for thread in threads:
        thread.join(5)
    records = {record.path: record for record in report.files}
    for name, data in (("qrels", judgments), ("piped", run)):
        record = records[str(tmp_path / name)]
        assert record.size == len(data)
        assert record.sha256 == hashlib.sha256(data).hexdigest()
        assert record.note.startswith("a pipe")
    assert report.systems[0] == "noisy"  # named by its run id, as a file would be
    html = report.to_html()
    assert hashlib.sha256(run).hexdigest() in html and "a pipe: size and SHA-256" in html
    assert "in memory" not in html
    assert sorted(p.name for p in tmp_path.iterdir()) == ["piped", "qrels"]  # copies removed


def test_errors_in_a_pipe_name_the_pipe(trec_files: dict[str, Path], tmp_path: Path) -> None:
    from rankwise.exceptions import InputFormatError

    feed_fifo(tmp_path / "bad", b"q1 Q0 d1 1 not-a-score r\n")
    with pytest.raises(InputFormatError) as caught:
        build_report(trec_files["qrels"], [tmp_path / "bad"], ["map"], max_k=5)
    assert str(caught.value).startswith(f"{tmp_path / 'bad'}:1: ")
    assert caught.value.path == str(tmp_path / "bad")


def test_objects_read_elsewhere_are_named_by_their_source(trec_files: dict[str, Path]) -> None:
    import rankwise as rw

    run = rw.read_run(trec_files["noisy"])
    in_memory = {"301": {"d": 1.0}}
    report = build_report(trec_files["qrels"], {"a": run, "b": in_memory}, ["map"],
                          max_k=5)
    records = {record.system: record for record in report.files}
    assert records["a"].path == str(trec_files["noisy"]) and records["a"].size
    assert records["b"].path == "<dict in memory>" and records["b"].size is None


# ----------------------------------------------------------------------------
# issue 39, item 4: each measure's conventions by its table; p_adj and d_z one click away
# ----------------------------------------------------------------------------


def test_conventions_are_stated_next_to_the_table(synthetic: Any) -> None:
    qrels, runs = synthetic(30, 2, depth=20)
    measures = ["ndcg@10", "ndcg@5(gain=linear)", "P@10(rel=2)", "map"]
    for missing, rule in (("skip", "left out of the means"), ("zero", "counted as 0")):
        report = build_report(qrels, runs, measures, seed=0, max_k=5, missing=missing,
                              n_resamples=100)
        html = report.to_html()
        start = html.index('id="conventions"')
        assert start < html.index('id="plot-comparison"')  # by the table, before the figure
        table = Page(html[start - 30:html.index("</table>", start)])
        cells = [t for t in table.text if t.strip()]
        rows = [cells[i:i + 4] for i in range(6, len(cells), 4)]
        ties = "score descending, then document id descending (trec_eval)"
        assert rows == [["ndcg@10", "gain 2^grade − 1", ties, rule],
                        ["ndcg@5(gain=linear)", "gain = grade", ties, rule],
                        ["P@10(rel=2)", "relevant: grade ≥ 2", ties, rule],
                        ["map", "relevant: grade ≥ 1", ties, rule]]


def test_every_mean_carries_its_p_value_effect_size_and_interval(synthetic: Any) -> None:
    from rankwise.report.comparison_display import format_p

    qrels, runs = synthetic(60, 3, depth=20)
    report = build_report(qrels, runs, ["ndcg@10", "P@10"], seed=0, max_k=5, n_resamples=200)
    html = report.to_html()
    table = html[html.index('id="summary-table"'):html.index("</table>",
                                                            html.index('id="summary-table"'))]
    for row in report.comparison.rows:
        if row.baseline is None:
            continue
        assert f'<span class="d d-padj">p_adj {format_p(row.p_adjusted)}</span>' in table
        dz = f"{row.effect_size:+.3f}".replace("-", "−")
        assert f'<span class="d d-dz">d<sub>z</sub> {dz}</span>' in table
        low = f"{row.delta_ci_low:+.4f}".replace("-", "−")
        assert f'<span class="d d-ci">95% [{low}, ' in table
    switch = Page(html[html.index('id="summary-show"') - 40:html.index("</fieldset>")])
    assert [a["value"] for a in switch.find("input")] == ["delta", "padj", "dz", "ci"]
    assert 'id="comparison-details" open>' in html  # every number, unfolded
