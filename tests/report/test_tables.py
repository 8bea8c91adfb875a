"""Text outputs: one alignment rule for numbers (item 15), text cells that stay text in
every format (item 28), LaTeX comments a name cannot end (item 33) — issue 13."""

from __future__ import annotations

import csv
import io
import re

import pytest

import rankwise as rw
from rankwise.report.tables import FORMATS, Table, render

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    '=HYPERLINK("http://evil.example","x")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3",
    "a\nb\\immediate\\write18{rm -rf /}",
    "tab\there\r",
    "[link](javascript:alert(1))",
    "`code` | pipe & amp",
    "\x1b[31mred",
    "50% $x^2$ #1 _u_ {b} ~t",
]
QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 0, "d3": 1}}
RUNS = {
    "bm25": {"q1": {"d1": 1.0, "d2": 0.5}, "q2": {"d1": 1.0, "d3": 0.5}},
    "dense": {"q1": {"d2": 1.0, "d1": 0.5}, "q2": {"d3": 1.0, "d1": 0.5}},
}


def hostile_results() -> dict[str, rw.Results]:
    qrels = {name: {"d1": 1, "d2": 0} for name in HOSTILE}
    run = {name: {"d1": 1.0 if i % 2 else 0.5, "d2": 0.75} for i, name in enumerate(HOSTILE)}
    out = {}
    for name in ("<b>bold</b>", "=1+1"):
        results = rw.evaluate(qrels, run, ["P@1", "ndcg@2", "num_ret"])
        results.run_name = name
        out[name] = results
    return out


def per_query_text(fmt: str) -> str:
    from rankwise.report.result_tables import results_table

    results = hostile_results()
    table = results_table(results, per_query=True)
    return render(table, fmt)


# -- item 15: numbers right-aligned everywhere ---------------------------------------------


def _markdown_alignment(text: str) -> list[str]:
    rule = text.splitlines()[1]
    return ["right" if cell.strip().endswith(":") and not cell.strip().startswith(":")
            else "left" for cell in rule.strip("|").split("|")]


def _latex_alignment(text: str) -> str:
    match = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", text)
    assert match is not None
    return match[1]


@pytest.fixture(scope="module")
def comparison() -> rw.Comparison:
    return rw.compare(QRELS, RUNS, ["P@1", "mrr"], baseline="bm25", seed=1)


@pytest.mark.parametrize("long", [False, True])
def test_compare_right_aligns_numbers_as_eval_does(comparison, long: bool) -> None:
    evaluated = rw.evaluate(QRELS, RUNS["bm25"], ["P@1", "mrr"])
    assert _markdown_alignment(evaluated.to_table("markdown")) == ["left", "right", "right"]
    assert _latex_alignment(evaluated.to_table("latex")) == "lrr"
    markdown = comparison.to_table("markdown", long=long)
    latex = comparison.to_table("latex", long=long)
    if not long:
        assert _markdown_alignment(markdown) == ["left", "right", "right"]
        assert _latex_alignment(latex) == "lrr"
    else:  # measure, system, baseline, method, significant are text; the rest numbers
        from rankwise.report.comparison_tables import long_table

        table = long_table(comparison)
        expected = ["left" if kind == "text" else "right" for kind in table.kinds]
        assert _markdown_alignment(markdown) == expected
        assert _latex_alignment(latex) == "".join("l" if k == "text" else "r" for k in table.kinds)


def test_compare_text_table_right_aligns_the_header_over_numbers(comparison) -> None:
    header, rule, *_ = comparison.to_table("table").splitlines()
    widths = [len(part) for part in rule.split("  ")]
    cells = header.split()
    # each measure's name ends where its column ends
    end = widths[0]
    for width, name in zip(widths[1:], cells[1:]):
        end += 2 + width
        assert header[:end].endswith(name)


# -- item 28: ids stay text ---------------------------------------------------------------


def test_markdown_holds_no_live_html_or_links() -> None:
    text = per_query_text("markdown")
    assert "<img" not in text and "<b>" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert not re.search(r"(?<!\\)\]\(javascript", text)
    assert "\x1b" not in text
    assert len(text.splitlines()) == 2 + 2 * (len(HOSTILE) + 1)
    for line in text.splitlines():
        # every row has as many unescaped pipes as the header: 5 columns
        assert len(re.findall(r"(?<!\\)\|", line)) == 6


def test_csv_neutralises_formulas_in_text_cells_only() -> None:
    rows = list(csv.reader(io.StringIO(per_query_text("csv"))))
    assert rows[0] == ["run", "query", "P@1", "ndcg@2", "num_ret"]
    for row in rows[1:]:
        for cell in row[:2]:
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
            if cell.startswith("-"):
                assert re.fullmatch(r"-[\d.]+", cell)
        for cell in row[2:]:
            float(cell)  # numbers are numbers
    queries = [row[1] for row in rows[1:]]
    assert "'=HYPERLINK(\"http://evil.example\",\"x\")" in queries
    assert "'-2+3" in queries and "'@SUM(1+1)" in queries
    assert "'=1+1" in [row[0] for row in rows[1:]]


def test_csv_leaves_negative_numbers_and_plain_number_ids_alone() -> None:
    table = Table(["query", "delta"], ["text", "float"], [["-1", -0.5], ["+2.5e3", -1e-05]])
    assert render(table, "csv") == "query,delta\n-1,-0.5\n+2.5e3,-1e-05\n"


def test_latex_rows_stay_rows_and_specials_are_escaped() -> None:
    text = per_query_text("latex")
    lines = text.splitlines()
    body = lines[5:-2]
    assert len(body) == 2 * (len(HOSTILE) + 1)
    for line in body:
        assert line.endswith(" \\\\")
        assert line.count(" & ") == 4
        # no TeX special character is left unescaped
        stripped = re.sub(r"\\(textbackslash|textasciitilde|textasciicircum|textless|"
                          r"textgreater|textbar)\{\}|\\[&%$#_{}]", "", line[:-3])
        assert not re.search(r"[\\&%$#_{}~^<>|]", stripped.replace(" & ", "")), line
    assert "\x1b" not in text


def test_the_terminal_table_shows_control_characters() -> None:
    text = per_query_text("table")
    assert "\x1b" not in text and "\r" not in text and "\t" not in text
    assert len(text.splitlines()) == 2 + 2 * (len(HOSTILE) + 1)
    assert "a\\nb\\immediate" in text and "\\x1b[31mred" in text


@pytest.mark.parametrize("fmt", ["json", "jsonl", "tsv"])
def test_machine_formats_keep_ids_exact(fmt: str) -> None:
    """Exact in JSON; in TSV too but for the formula cells a spreadsheet would run, which
    get a leading ' as in CSV (issue 33, item 18)."""
    import json

    text = per_query_text(fmt)
    if fmt == "json":
        queries = [record["query"] for record in json.loads(text)]
    elif fmt == "jsonl":
        queries = [json.loads(line)["query"] for line in text.splitlines()]
    else:
        rows = [line.split("\t") for line in text.splitlines()[1:]]
        unescape = {"\\t": "\t", "\\n": "\n", "\\r": "\r", "\\\\": "\\"}
        queries = [re.sub(r"\\[tnr\\]", lambda m: unescape[m.group()], row[1]) for row in rows]
        formulas = HOSTILE[1:5]  # =HYPERLINK, +cmd, @SUM, -2+3 (not a plain number)
        assert sorted({q for q in queries if q.startswith("'")}) == sorted(
            "'" + formula for formula in formulas)
        queries = [q[1:] if q.startswith("'") else q for q in queries]
    assert sorted(set(queries) - {"all"}) == sorted(HOSTILE)


def test_every_format_survives_hostile_names_in_compare() -> None:
    runs = {name: RUNS["bm25"] for name in ("<script>x</script>", "=2*3", "a\nb")}
    runs["dense"] = RUNS["dense"]
    comparison = rw.compare(QRELS, runs, ["P@1"], baseline="dense", seed=1)
    assert "<script>" not in comparison.to_table("markdown")
    assert "<script>" not in comparison.to_table("markdown", long=True)
    rows = list(csv.reader(io.StringIO(comparison.to_table("csv"))))
    assert all(not cell.startswith("=") for row in rows for cell in row)
    for fmt in FORMATS:
        assert comparison.to_table(fmt)


# -- item 33: LaTeX comments --------------------------------------------------------------


def _live_lines(latex: str) -> list[str]:
    """Lines LaTeX reads as code: outside the tabular, everything must be a comment."""
    lines = latex.splitlines()
    end = lines.index("\\end{tabular}")
    return [line for line in lines[end + 1:] if line.strip() and not line.startswith("%")]


@pytest.mark.parametrize("long", [False, True])
def test_compare_latex_comments_cannot_be_ended_by_a_name(long: bool) -> None:
    evil = "x\n\\immediate\\write18{touch pwned}\n"
    runs = {evil: RUNS["bm25"], "dense": RUNS["dense"]}
    for baseline in (evil, None):
        comparison = rw.compare(QRELS, runs, ["P@1"], baseline=baseline, seed=1)
        latex = comparison.to_table("latex", long=long)
        assert _live_lines(latex) == []
        assert not any(line.startswith("\\immediate") for line in latex.splitlines())


@pytest.mark.parametrize("odd", ["a\tb", "a\nb", "a\rb", "a\\b", "=1+1", "@x", "+x", "-x",
                                 "a,b", 'a"b'])
@pytest.mark.parametrize("where", [0, 499, 999])
def test_one_cell_to_escape_among_many_plain_ones_is_escaped(odd: str, where: int) -> None:
    # a text column is searched once for anything to escape: one such cell anywhere counts
    ids = [f"q{i}" for i in range(1000)]
    ids[where] = odd
    table = Table(header=["query", "v"], kinds=["text", "float"],
                  rows=[[name, 0.5] for name in ids])
    tsv_cells = [line.split("\t")[0] for line in render(table, "tsv").splitlines()[1:]]
    tsv_expected = odd.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n") \
        .replace("\r", "\\r")
    if odd[0] in "=@+-":
        tsv_expected = "'" + tsv_expected
    assert len(tsv_cells) == 1000 and tsv_cells[where] == tsv_expected
    assert tsv_cells[:where] + tsv_cells[where + 1:] == ids[:where] + ids[where + 1:]
    rows = list(csv.reader(io.StringIO(render(table, "csv"), newline="")))[1:]
    assert rows[where][0] == ("'" + odd if odd[0] in "=@+-" else odd)
    assert [row[0] for row in rows[:where]] == ids[:where]
