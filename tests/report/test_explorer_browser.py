"""The report's query explorer, used in headless Chromium as a researcher uses it (issue 39).

Each test drives the page with real mouse and keyboard events over the
DevTools protocol, asserts on what the page shows against what the data
says (the ranked lists against an independent sort of the runs, the values
against the evaluated results) and screenshots each step (set
``RANKWISE_SCREENSHOTS`` to a folder to keep them). No request may leave the
page, no error may be logged, no dialog may open.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rankwise.reporting import build_report

pytestmark = pytest.mark.peers

WORDS = ["apple", "banana", "cherry", "damson", "elder"]
SYSTEMS = ["bm25", "dense", "splade"]
DEPTH = 20


def make_data(names: list[str] = SYSTEMS, qids: list[str] | None = None,
              seed: int = 3) -> dict[str, Any]:
    """40 queries, 30 documents each; grades 0-3, some retrieved documents unjudged, ties."""
    rng = np.random.default_rng(seed)
    qids = qids or [f"q{i}" for i in range(40)]
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {name: {} for name in names}
    for i, qid in enumerate(qids):
        docs = [f"D{i:02d}-{j:02d}" for j in range(34)]
        judged = rng.choice(34, 24, replace=False)
        qrels[qid] = {docs[j]: int(rng.choice([0, 0, 1, 2, 3])) for j in judged}
        for s, name in enumerate(names):
            chosen = rng.choice(34, 30, replace=False)
            scores = np.round(rng.normal(size=30) * 2, 1)  # one decimal: ties happen
            for j, score in zip(chosen, scores):
                bonus = qrels[qid].get(docs[j], 0) * 0.6 * s
                runs[name].setdefault(qid, {})[docs[j]] = float(round(score + bonus, 1))
    topics = {qid: f"query {qid} about {WORDS[i % len(WORDS)]}" for i, qid in enumerate(qids)}
    documents = {doc: f"the text of {doc}" for qid in qids for doc in
                 [f"D{qids.index(qid):02d}-{j:02d}" for j in range(34)]}
    return {"qrels": qrels, "runs": runs, "topics": topics, "documents": documents}


def oracle_top(run: dict[str, float], depth: int = DEPTH) -> list[str]:
    """trec_eval's order, independently: score descending, then docno descending (bytes)."""
    return [doc for doc, _ in sorted(run.items(), key=lambda item: (-item[1],
                                     tuple(-b for b in item[0].encode())))][:depth]


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return make_data()


@pytest.fixture(scope="module")
def page(data: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    report = build_report(data["qrels"], data["runs"], ["ndcg@10", "P@10"], seed=0, max_k=10,
                          topics=data["topics"], documents=data["documents"],
                          n_resamples=200, discriminative_power=None)
    path = tmp_path_factory.mktemp("explorer") / "report.html"
    report.save(path)
    return report, path


def ready(chromium: Any, path: Path, query: str = "") -> str:
    """The page open, its explorer ready (and *query* opened, by the page's address)."""
    from urllib.parse import quote

    session = chromium.open(path, fragment=f"query={quote(query)}" if query else "")
    chromium.wait_until(session, "document.getElementById('x-app').dataset.state === 'ready'")
    return session


def visible_rows(chromium: Any, session: str) -> list[list[str]]:
    """Every row of the explorer's table, in order: scrolled through (rows are drawn as seen)."""
    found: dict[int, list[str]] = {}
    for step in range(200):
        rows = chromium.evaluate(session, f"""(() => {{
            const wrap = document.getElementById('x-wrap');
            wrap.scrollTop = {step} * 300; wrap.dispatchEvent(new Event('scroll'));
            return [wrap.scrollTop + wrap.clientHeight >= wrap.scrollHeight - 1,
                    [...document.querySelectorAll('#x-table tbody tr[data-q]')].map(
                        r => [Number(r.dataset.at), [...r.cells].map(c => c.textContent)])];
            }})()""")
        done, shown = rows
        found.update({at: cells for at, cells in shown})
        if done:
            break
    chromium.evaluate(session, """(() => { const wrap = document.getElementById('x-wrap');
        wrap.scrollTop = 0; wrap.dispatchEvent(new Event('scroll')); })()""")
    assert sorted(found) == list(range(len(found)))
    return [found[at] for at in sorted(found)]


def no_problems(chromium: Any, session: str, path: Path) -> None:
    errors, requests = chromium.problems(session)
    assert errors == []
    assert requests == [path.as_uri()]  # nothing but the page itself


def test_sort_filter_open_a_query(chromium: Any, page: tuple[Any, Path],
                                  data: dict[str, Any], tmp_path: Path) -> None:
    report, path = page
    session = ready(chromium, path)
    chromium.evaluate(session, "document.getElementById('explorer').scrollIntoView()")
    chromium.screenshot(session, tmp_path / "explorer-1-opened.png", selector="#explorer")
    rows = visible_rows(chromium, session)
    assert len(rows) == 40  # every query
    assert chromium.evaluate(session, "document.getElementById('x-count').textContent") \
        == "40 of 40 queries"

    # sort by dense's difference from bm25: the query dense lost most comes first
    x, y = chromium.center(session, "#x-table th[data-key='d1'] button")
    chromium.mouse(session, x, y)
    base, dense = report.results["bm25"], report.results["dense"]
    delta = dense["ndcg@10"] - base["ndcg@10"]
    order = sorted(range(40), key=lambda i: (delta[i], i))  # ties: the table's order
    shown = [row[0] for row in visible_rows(chromium, session)]
    assert shown == [str(base.query_ids[i]) for i in order]
    first = visible_rows(chromium, session)[0]
    worst = order[0]
    assert first[1] == data["topics"][str(base.query_ids[worst])]
    assert first[2] == f"{base['ndcg@10'][worst]:.4f}"
    assert first[3] == f"{dense['ndcg@10'][worst]:.4f}"
    assert first[4] == f"−{abs(delta[worst]):.4f}"
    assert chromium.evaluate(session, "document.querySelector(\"#x-table th[data-key='d1']\")"
                                      ".getAttribute('aria-sort')") == "ascending"
    chromium.screenshot(session, tmp_path / "explorer-2-sorted.png", selector="#explorer")

    # filter by a word of the topics
    x, y = chromium.center(session, "#x-search")
    chromium.mouse(session, x, y)
    chromium.type_text(session, "banana")
    expected = [qid for qid in (str(base.query_ids[i]) for i in order)
                if "banana" in data["topics"][qid]]
    assert [row[0] for row in visible_rows(chromium, session)] == expected
    assert chromium.evaluate(session, "document.getElementById('x-count').textContent") \
        == f"{len(expected)} of 40 queries"
    assert chromium.evaluate(session, "performance.getEntriesByName('rankwise-filter').length")
    chromium.screenshot(session, tmp_path / "explorer-3-filtered.png", selector="#explorer")

    # open the first: the three ranked lists side by side, as trec_eval orders them
    x, y = chromium.center(session, "#x-table tbody tr[data-q]")
    chromium.mouse(session, x, y)
    qid = expected[0]
    assert chromium.evaluate(session, "document.querySelector('#x-query-title code')"
                                      ".textContent") == qid
    lists = chromium.evaluate(session, """[...document.querySelectorAll('.x-list')].map(l =>
        [...l.children].map(li => [li.querySelector('.id').textContent,
                                   li.querySelector('.gr').textContent,
                                   li.classList.contains('tie-up'),
                                   li.classList.contains('tie-down'),
                                   li.querySelector('.rk').textContent]))""")
    assert len(lists) == 3
    for name, shown_list in zip(SYSTEMS, lists):
        run = data["runs"][name][qid]
        top = oracle_top(run)
        assert [item[0] for item in shown_list] == top
        assert [item[4] for item in shown_list] == [str(r) for r in range(1, DEPTH + 1)]
        grades = [str(data["qrels"][qid][doc]) if doc in data["qrels"][qid] else "?"
                  for doc in top]
        assert [item[1] for item in shown_list] == grades
        ordered = sorted(run.values(), reverse=True)
        for rank, item in enumerate(shown_list):
            assert item[2] == (rank > 0 and ordered[rank] == ordered[rank - 1])
            assert item[3] == (ordered[rank] == ordered[rank + 1])
    chromium.screenshot(session, tmp_path / "explorer-4-query.png", selector="#x-query")

    # the same document in the other lists lights up with the one pointed at
    shared = next(doc for doc in oracle_top(data["runs"]["bm25"][qid])
                  if doc in oracle_top(data["runs"]["dense"][qid]))
    selector = (".x-list li[data-s='0']:nth-child("
                f"{oracle_top(data['runs']['bm25'][qid]).index(shared) + 1})")
    x, y = chromium.center(session, selector)
    chromium.mouse(session, x, y)  # a click: points at it and picks it
    lit = chromium.evaluate(session, "[...document.querySelectorAll('.x-list li.hl')].map("
                                     "li => [li.dataset.s, li.querySelector('.id').textContent])")
    holders = [str(s) for s, name in enumerate(SYSTEMS)
               if shared in oracle_top(data["runs"][name][qid])]
    assert sorted(lit) == sorted([s, shared] for s in holders)
    doc_box = chromium.evaluate(session, "document.getElementById('x-doc').textContent")
    assert data["documents"][shared] in doc_box and shared in doc_box
    chromium.screenshot(session, tmp_path / "explorer-5-document.png", selector="#x-query")
    no_problems(chromium, session, path)


def test_relevant_documents_and_their_ranks(chromium: Any, page: tuple[Any, Path],
                                            data: dict[str, Any]) -> None:
    _, path = page
    qid = "q7"
    session = ready(chromium, path, qid)
    chromium.wait_until(session, "!document.getElementById('x-query').hidden")
    table = chromium.evaluate(session, """[...document.querySelectorAll(
        '.x-relevant tbody tr')].map(r => [...r.cells].map(c => c.textContent))""")
    relevant = {doc: grade for doc, grade in data["qrels"][qid].items() if grade >= 1}
    assert sorted(row[0] for row in table) == sorted(relevant)
    for doc, grade, *ranks in table:
        assert grade == str(relevant[doc])
        for name, rank in zip(SYSTEMS, ranks):
            run = data["runs"][name][qid]
            full = oracle_top(run, len(run))
            assert rank == (str(full.index(doc) + 1) if doc in full else "not retrieved")
    no_problems(chromium, session, path)


def test_a_scatter_dot_opens_its_query(chromium: Any, page: tuple[Any, Path]) -> None:
    report, path = page
    session = ready(chromium, path)
    panel = chromium.evaluate(session, """(() => {
        const g = document.querySelector("figure[data-plot='scatter']:not([hidden]) g.panel");
        return [g.dataset.measure, g.dataset.system, g.dataset.box, g.dataset.xlim,
                g.dataset.ylim]; })()""")
    measure, system, box, xlim, ylim = panel
    assert (measure, system) == ("ndcg@10", "dense")
    left, top, width, height = map(float, box.split())
    x0, x1 = map(float, xlim.split())
    y0, y1 = map(float, ylim.split())
    base, dense = report.results["bm25"][measure], report.results["dense"][measure]
    px = np.round(left + (base - x0) / (x1 - x0) * width)
    py = np.round(top + (1 - (dense - y0) / (y1 - y0)) * height)
    pixels = list(zip(px.tolist(), py.tolist()))
    # a query alone on its pixel, and far from the others (the click picks the nearest)
    alone = [i for i, p in enumerate(pixels)
             if min(np.hypot(p[0] - o[0], p[1] - o[1]) for j, o in enumerate(pixels) if j != i)
             > 8]
    target = alone[0]
    client = chromium.evaluate(session, f"""(() => {{
        const svg = document.querySelector("figure[data-plot='scatter']:not([hidden]) svg");
        svg.scrollIntoView({{block: "center", behavior: "instant"}});
        const p = svg.createSVGPoint(); p.x = {pixels[target][0]}; p.y = {pixels[target][1]};
        const q = p.matrixTransform(svg.getScreenCTM());
        return [q.x, q.y]; }})()""")
    chromium.mouse(session, *client)
    qid = str(report.results["bm25"].query_ids[target])
    assert chromium.evaluate(session, "document.querySelector('#x-query-title code')"
                                      ".textContent") == qid
    assert chromium.evaluate(session, "document.getElementById('x-measure').selectedOptions[0]"
                                      ".textContent") == "ndcg@10"
    assert chromium.evaluate(session, "document.querySelectorAll(\"figure[data-plot='scatter']"
                                      ":not([hidden]) .x-ring\").length") == 2  # each panel
    assert chromium.evaluate(session, "location.hash") == f"#query={qid}"
    no_problems(chromium, session, path)


def test_keyboard_alone(chromium: Any, page: tuple[Any, Path], tmp_path: Path) -> None:
    report, path = page
    session = ready(chromium, path)
    chromium.evaluate(session, "document.getElementById('x-search').focus()")
    seen = []
    for _ in range(30):  # Tab: the controls, the sort buttons, then the table's rows
        chromium.key(session, "Tab")
        seen.append(chromium.evaluate(session, """(() => { const e = document.activeElement;
            return e.tagName + (e.dataset.q ? ':' + e.dataset.at : '') +
                   (e.classList.contains('sort') ? ':sort' : ''); })()"""))
        if seen[-1].startswith("TR"):
            break
    assert seen[-1] == "TR:0", seen
    assert "SELECT" in seen and "BUTTON:sort" in seen
    assert seen.index("SELECT") < seen.index("BUTTON:sort")
    outline = chromium.evaluate(session,
                                "getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")  # focus is visible
    chromium.key(session, "ArrowDown")
    chromium.key(session, "ArrowDown")
    assert chromium.evaluate(session, "document.activeElement.dataset.at") == "2"
    chromium.key(session, "Enter")
    third = str(report.results["bm25"].query_ids[2])
    assert chromium.evaluate(session, "document.querySelector('#x-query-title code')"
                                      ".textContent") == third
    assert chromium.evaluate(session, "document.activeElement.id") == "x-query"
    for _ in range(12):  # on to the first document of the lists
        chromium.key(session, "Tab")
        if chromium.evaluate(session, "document.activeElement.classList.contains('x-item')"):
            break
    chromium.key(session, "ArrowDown")
    chromium.key(session, " ")
    doc = chromium.evaluate(session, "document.activeElement.querySelector('.id').textContent")
    assert doc in chromium.evaluate(session, "document.getElementById('x-doc').textContent")
    chromium.screenshot(session, tmp_path / "explorer-keyboard.png", selector="#x-query")
    chromium.key(session, "Escape")
    assert chromium.evaluate(session, "document.getElementById('x-query').hidden")
    assert chromium.evaluate(session, "document.activeElement.dataset.q") == "2"  # back
    chromium.key(session, " ")  # Space opens too
    assert chromium.evaluate(session, "document.querySelector('#x-query-title code')"
                                      ".textContent") == third
    no_problems(chromium, session, path)


HOSTILE_SYSTEMS = ["</script><script>alert(1)</script>", '"onmouseover=alert(2) x="',
                   "\u202eevil\u202c rtl", "ctl\x01\x1b[31m"]
HOSTILE_QUERIES = ["</script><img src=x onerror=alert(3)>", '"><svg onload=alert(4)>',
                   "\u202eq\u202c", "&amp;<!--"]


def test_hostile_names_and_texts_stay_text(chromium: Any, tmp_path: Path) -> None:
    data = make_data(HOSTILE_SYSTEMS[:3], HOSTILE_QUERIES + [f"q{i}" for i in range(6)])
    data["topics"][HOSTILE_QUERIES[0]] = "<img src=x onerror=alert(5)> </script>"
    data["documents"] = {doc: f"<script>alert(6)</script> {doc} \u202e reversed"
                         for doc in data["documents"]}
    data["runs"]["ctl\x01\x1b[31m"] = data["runs"].pop("\u202eevil\u202c rtl")
    names = list(data["runs"])
    report = build_report(data["qrels"], data["runs"], ["ndcg@10"], seed=0, max_k=5,
                          topics=data["topics"], documents=data["documents"],
                          n_resamples=200, title="<b>t</b>")
    path = tmp_path / "hostile.html"
    report.save(path)
    html = path.read_text(encoding="utf-8")
    assert "<script>alert" not in html and "<img" not in html and "onerror=alert" not in \
        html.replace("onerror=alert(3)&gt;", "").replace("onerror=alert(5)&gt;", "")
    data_script = html[html.index('id="rankwise-data">'):html.index("</script>",
                                                                   html.index('"rankwise-data"'))]
    assert "<" not in data_script.split(">", 1)[1]  # the data holds no markup character
    session = ready(chromium, path)
    head = chromium.evaluate(session, "[...document.querySelectorAll('#x-table thead th')]"
                                      ".map(th => th.textContent)")
    assert [name for name in names if name in head] == names
    qid = HOSTILE_QUERIES[0]
    texts = chromium.evaluate(session, "[...document.querySelectorAll('#x-table tbody "
                                       "td.qid')].map(td => td.textContent)")
    assert qid in texts and "\u202eq\u202c" in texts
    row = texts.index(qid)
    x, y = chromium.center(session, f"#x-table tbody tr[data-at='{row}']")
    chromium.mouse(session, x, y)
    assert chromium.evaluate(session, "document.querySelector('#x-query-title code')"
                                      ".textContent") == qid
    assert chromium.evaluate(session, "document.querySelector('.x-qtext').textContent") == \
        data["topics"][qid]
    chromium.evaluate(session, "document.querySelector('.x-list li[data-s=\"0\"]').click()")
    shown = chromium.evaluate(session, "document.querySelector('.x-text').textContent")
    assert shown.startswith("<script>alert(6)</script> D") and shown.endswith("\u202e reversed")
    chromium.screenshot(session, tmp_path / "explorer-hostile.png", selector="#explorer")
    counts = chromium.evaluate(session, """({img: document.querySelectorAll('img').length,
        scripts: document.scripts.length, svgs: document.querySelectorAll('svg svg').length,
        handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(
            a => a.name.startsWith('on'))).length})""")
    assert counts == {"img": 0, "scripts": 2, "svgs": 0, "handlers": 0}
    no_problems(chromium, session, path)  # no dialog, no CSP violation, no request


def _grey(png: bytes) -> Any:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.float64)


def _luminance(color: str) -> float:
    values = [int(v) / 255 for v in color[color.index("(") + 1:color.index(")")].split(",")[:3]]
    linear = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in values]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_grades_read_in_grey_and_text_has_contrast(chromium: Any, page: tuple[Any, Path],
                                                   tmp_path: Path) -> None:
    pytest.importorskip("PIL", reason="Pillow is not installed")
    _, path = page
    session = ready(chromium, path, "q1")
    chromium.wait_until(session, "!!document.querySelector('.x-grades')")
    chromium.evaluate(session, "document.querySelector('.x-grades').scrollIntoView("
                               "{block: 'center', behavior: 'instant'})")
    chips = chromium.evaluate(session, """[...document.querySelectorAll('.x-grades .gr')].map(
        c => { const r = c.getBoundingClientRect();
               const s = getComputedStyle(c);
               return [c.textContent, r.x, r.y, r.width, r.height, s.color, s.backgroundColor,
                       s.borderStyle]; })""")
    shot = tmp_path / "grades.png"
    chromium.screenshot(session, shot)
    grey = _grey(shot.read_bytes())
    levels = {}
    for text, x, y, _, h, color, background, border in chips:
        # the chip's background, beside its text: its grey level once printed without colour
        levels[text] = float(np.median(grey[int(y + 2):int(y + h - 2), int(x + 2):int(x + 4)]))
        fore, back = _luminance(color), _luminance(background)
        ratio = (max(fore, back) + 0.05) / (min(fore, back) + 0.05)
        assert ratio >= 4.5, (text, color, background, ratio)  # WCAG AA for small text
        if text == "?":
            assert border == "dashed"  # unjudged: a shape, not a colour
    ordered = [levels[g] for g in ("0", "1", "2", "3")]
    assert all(a - b >= 30 for a, b in itertools.pairwise(ordered)), levels  # darker: better
    assert levels["?"] > ordered[0]  # unjudged: white
    chromium.screenshot(session, tmp_path / "explorer-grades.png", selector="#x-query")
    no_problems(chromium, session, path)


def test_print_stylesheet(chromium: Any, page: tuple[Any, Path]) -> None:
    _, path = page
    session = ready(chromium, path, "q2")
    chromium.send("Emulation.setEmulatedMedia", {"media": "print"}, session=session)
    shown = chromium.evaluate(session, """Object.fromEntries(
        ['nav.toc', '#x-controls', '#summary-show', '.x-nav', '#x-query', '.x-lists'].map(
            s => [s, getComputedStyle(document.querySelector(s)).display]))""")
    assert shown["nav.toc"] == shown["#x-controls"] == shown["#summary-show"] == "none"
    assert shown[".x-nav"] == "none"
    assert shown["#x-query"] != "none" and shown[".x-lists"] == "grid"
    pdf = chromium.send("Page.printToPDF", {"printBackground": True}, session=session)
    assert json.dumps(pdf)[:10] and pdf["data"][:6] == "JVBERi"  # %PDF-
    no_problems(chromium, session, path)


def test_summary_table_sorts_and_shows_p_values_in_one_click(
        chromium: Any, page: tuple[Any, Path], tmp_path: Path) -> None:
    from rankwise.report.comparison_display import format_p

    report, path = page
    session = ready(chromium, path)
    x, y = chromium.center(session, "#summary-table thead th:nth-child(3) button")  # ndcg@10
    chromium.mouse(session, x, y)
    chromium.mouse(session, x, y)  # again: descending
    names = chromium.evaluate(session, "[...document.querySelectorAll('#summary-table tbody "
                                       "th')].map(th => th.firstChild.textContent.trim())")
    means = {name: report.results[name].mean["ndcg@10"] for name in SYSTEMS}
    assert names == sorted(SYSTEMS, key=lambda n: -means[n])
    under = "[...document.querySelectorAll('#summary-table .d')].filter(" \
            "d => getComputedStyle(d).display !== 'none').map(d => d.textContent)"
    deltas = chromium.evaluate(session, under)
    assert all(text[0] in "+−±" for text in deltas) and len(deltas) == 2 * 2
    x, y = chromium.center(session, "#summary-show input[value='padj']")
    chromium.mouse(session, x, y)
    shown = chromium.evaluate(session, under)
    rows = {(r.system, r.measure): r for r in report.comparison.rows if r.baseline}
    expected = [f"p_adj {format_p(rows[(name, measure)].p_adjusted)}"
                for name in names if name != "bm25" for measure in ("ndcg@10", "P@10")]
    assert shown == expected
    chromium.screenshot(session, tmp_path / "explorer-summary.png", selector="#summary")
    # the table of every number filters as one types
    x, y = chromium.center(session, "input[data-filter='details-table']")
    chromium.mouse(session, x, y)
    chromium.type_text(session, "splade")
    rows_left = chromium.evaluate(session, "[...document.querySelectorAll('#details-table "
                                           "tbody tr')].filter(r => !r.hidden).length")
    assert rows_left == 2  # splade's rows, one per measure
    no_problems(chromium, session, path)
