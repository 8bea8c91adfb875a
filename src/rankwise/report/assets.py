"""The style sheet of the HTML report, inlined in the page (no external file, no font download)."""

from __future__ import annotations

__all__ = ["CSS"]

CSS = """
:root {
  --ink: #1f2328; --muted: #59636e; --line: #d8dee4; --soft: #f6f8fa;
  --accent: #0b5cad; --up: #1a7f37; --down: #cf222e; --card: #ffffff;
}
* { box-sizing: border-box; }
html { scroll-behavior: smooth; }
body {
  margin: 0; color: var(--ink); background: #eef1f4;
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
        "DejaVu Sans", sans-serif;
}
.wrap { max-width: 1240px; margin: 0 auto; padding: 0 20px; }
header.top { background: #0f2236; color: #fff; padding: 22px 0 18px; }
header.top h1 { margin: 0 0 4px; font-size: 22px; font-weight: 650; letter-spacing: .2px; }
header.top .meta { margin: 0; color: #c4d1de; font-size: 13px; }
header.top .meta b { color: #fff; font-weight: 600; }
nav.toc { position: sticky; top: 0; z-index: 5; background: #ffffffee;
  border-bottom: 1px solid var(--line); backdrop-filter: blur(4px); }
nav.toc .wrap { display: flex; flex-wrap: wrap; gap: 4px 18px; padding-top: 9px;
  padding-bottom: 9px; }
nav.toc a { color: var(--accent); text-decoration: none; font-weight: 550; font-size: 13px; }
nav.toc a:hover { text-decoration: underline; }
main { padding-top: 18px; padding-bottom: 32px; }
main [id] { scroll-margin-top: 52px; }  /* what a link or a script scrolls to stays below nav.toc */
section.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 22px 20px; margin: 0 0 18px; box-shadow: 0 1px 2px #0000000d; }
section.card > h2 { margin: 0 0 4px; font-size: 18px; font-weight: 650; }
section.card > p.lead { margin: 0 0 14px; color: var(--muted); max-width: 900px; }
h3 { font-size: 14.5px; margin: 18px 0 8px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 6px 0 10px; }
th, td { padding: 5px 11px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }
thead th { background: var(--soft); font-weight: 600; border-bottom: 2px solid var(--line);
  white-space: nowrap; }
tbody tr:hover td, tbody tr:hover th { background: #f3f7fb; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.best .v { font-weight: 700; }
.d { display: block; font-size: 11.5px; color: var(--muted); }
.sig { font-size: 11px; margin-left: 3px; }
.cld { font-size: 10.5px; margin-left: 2px; color: var(--muted); }
.sig.up { color: var(--up); } .sig.down { color: var(--down); }
.pos { color: var(--up); } .neg { color: var(--down); }
.tag { display: inline-block; font-size: 10.5px; font-weight: 600; color: var(--accent);
  border: 1px solid #b6cde6; background: #eef5fc; border-radius: 9px; padding: 0 7px;
  margin-left: 6px; vertical-align: 1px; }
.legend { color: var(--muted); font-size: 12.5px; max-width: 1000px; }
figure.plot { margin: 10px auto 4px; }
figure.plot svg { display: block; width: 100%; height: auto; }
figure.plot figcaption { color: var(--muted); font-size: 12.5px; margin-top: 4px;
  text-align: center; }
details { border: 1px solid var(--line); border-radius: 8px; margin: 8px 0; background: #fff; }
details > summary { cursor: pointer; padding: 8px 12px; font-weight: 600; }
details[open] > summary { border-bottom: 1px solid var(--line); }
details > .body { padding: 6px 12px 10px; }
.changes { display: grid; grid-template-columns: minmax(0, 1fr); gap: 4px; }
.changes h4 { margin: 10px 0 2px; font-size: 13.5px; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px 28px; }
.pair > table { width: 100%; font-size: 12.5px; }
.pair th, .pair td { padding: 4px 8px; }
.pair thead th { white-space: normal; overflow-wrap: anywhere; }
.pair caption { text-align: left; font-weight: 600; padding: 2px 0; }
.pair caption.gain { color: var(--up); } .pair caption.loss { color: var(--down); }
td.qid { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; word-break: break-all; }
td.mono .note { display: block; font-family: system-ui, sans-serif; font-size: 11.5px;
  color: var(--muted); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; }
td.hash { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 11.5px; word-break: break-all; min-width: 260px; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 3px 18px; margin: 6px 0; }
dl.kv dt { color: var(--muted); } dl.kv dd { margin: 0; }
ul.notes { margin: 6px 0; padding-left: 20px; color: var(--ink); }
p.empty { color: var(--muted); font-style: italic; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 6px 0 26px; }
@media (max-width: 700px) { .pair { grid-template-columns: minmax(0, 1fr); } }
:focus-visible { outline: 3px solid #1f6feb; outline-offset: 1px; }
button { font: inherit; }
th > button.sort { all: unset; cursor: pointer; display: inline-flex; gap: 4px;
  align-items: center; }
th > button.sort::after { content: "↕"; color: #8c959f; font-size: 11px; }
th[aria-sort="ascending"] > button.sort::after { content: "▲"; color: var(--ink); }
th[aria-sort="descending"] > button.sort::after { content: "▼"; color: var(--ink); }
th > button.sort:focus-visible { outline: 3px solid #1f6feb; outline-offset: 2px; }
th.num > button.sort { justify-content: flex-end; width: 100%; }
fieldset.show-switch { border: 0; margin: 0 0 4px; padding: 0; display: flex;
  flex-wrap: wrap; gap: 4px 14px; font-size: 12.5px; color: var(--muted); }
fieldset.show-switch legend { float: left; padding: 0; margin-right: 4px;
  font-weight: 600; color: var(--ink); }
.summary .d:not(.d-delta) { display: none; }
#summary:has(input[value="padj"]:checked) .summary .d-delta,
#summary:has(input[value="dz"]:checked) .summary .d-delta,
#summary:has(input[value="ci"]:checked) .summary .d-delta { display: none; }
#summary:has(input[value="padj"]:checked) .summary .d-padj,
#summary:has(input[value="dz"]:checked) .summary .d-dz,
#summary:has(input[value="ci"]:checked) .summary .d-ci { display: block; }
table.conventions { font-size: 12.5px; margin-top: 4px; }
table.conventions caption { text-align: left; font-weight: 600; padding: 2px 0 4px; }
table.conventions td, table.conventions th { padding: 3px 9px; }
p.filter { margin: 2px 0 6px; font-size: 12.5px; }
input[type="search"], select { font: inherit; font-size: 13px; padding: 4px 8px;
  border: 1px solid #8c959f; border-radius: 6px; background: #fff; color: var(--ink); }
.x-app { margin-top: 6px; }
.x-status { color: var(--muted); }
.x-controls { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center;
  margin: 0 0 10px; font-size: 13px; }
.x-controls label { display: inline-flex; gap: 6px; align-items: center; font-weight: 600; }
.x-search input { width: 260px; }
.x-count { color: var(--muted); font-size: 12.5px; }
.x-wrap { max-height: 450px; overflow: auto; border: 1px solid var(--line); border-radius: 8px;
  margin: 6px 0 12px; background: #fff; }
.x-table { margin: 0; width: 100%; font-size: 12.5px; table-layout: auto; }
.x-table thead th { position: sticky; top: 0; z-index: 1; }
.x-table tbody tr { height: 30px; cursor: pointer; }
.x-table tbody tr.spacer { cursor: default; }
.x-table tbody tr.spacer td { padding: 0; border: 0; }
.x-table td { padding: 0 10px; height: 30px; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; max-width: 420px; }
.x-table td, li.x-item .id, .x-lhead, .x-qhead code, .x-relevant td, table.x-values th {
  unicode-bidi: isolate; }
.x-table td.qid { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  max-width: 220px; }
.x-table td.qtext { max-width: 360px; color: var(--ink); }
.x-table tr.open td { background: #ddf4ff; }
.x-table tr:focus-visible { outline: 3px solid #1f6feb; outline-offset: -3px; }
.x-table td.empty { color: var(--muted); font-style: italic; cursor: default; }
.x-query { border: 2px solid #0969da; border-radius: 10px; padding: 10px 14px 14px;
  margin: 6px 0 8px; background: #fbfdff; }
.x-query:focus { outline: none; }
.x-query:focus-visible { outline: 3px solid #1f6feb; }
.x-qhead { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 8px;
  align-items: center; }
.x-qhead h3 { margin: 2px 0; font-size: 16px; }
.x-qhead code { font-size: 15px; }
.x-nav { display: flex; gap: 6px; }
.x-nav button, #x-clear { border: 1px solid #8c959f; border-radius: 6px; background: #fff;
  padding: 3px 10px; cursor: pointer; color: var(--ink); }
.x-nav button:disabled { color: #8c959f; cursor: default; }
.x-qtext { margin: 2px 0 8px; font-size: 14px; overflow-wrap: anywhere; }
table.x-values { font-size: 12.5px; }
table.x-values tr.current th, table.x-values tr.current td { background: #fff8c5; }
.x-relevant { margin-top: 10px; }
.x-relevant table { font-size: 12.5px; }
.x-more { border: 1px solid #8c959f; border-radius: 6px; background: #fff; padding: 2px 10px;
  cursor: pointer; margin: 4px 12px 8px; }
.x-relevant td.missed { color: var(--down); font-weight: 600; }
.x-relevant td.deep { color: #9a6700; }
.x-grades { margin: 8px 0; }
.x-lists { display: grid; grid-template-columns: repeat(var(--columns), minmax(210px, 1fr));
  gap: 12px; overflow-x: auto; padding-bottom: 4px; }
.x-col { min-width: 0; }
.x-lhead { margin: 6px 0 4px; font-size: 13px; display: flex; gap: 6px; align-items: center;
  overflow-wrap: anywhere; }
.swatch { width: 12px; height: 12px; border-radius: 3px; flex: none;
  print-color-adjust: exact; -webkit-print-color-adjust: exact; }
ol.x-list { list-style: none; margin: 0; padding: 0; border-top: 3px solid var(--system, #999);
  print-color-adjust: exact; -webkit-print-color-adjust: exact; }
li.x-item { display: grid; grid-template-columns: 2.1em auto minmax(0, 1fr) auto;
  gap: 6px; align-items: center; padding: 2px 4px 2px 6px; font-size: 12.5px;
  border-left: 4px solid transparent; border-bottom: 1px solid #eef1f4; cursor: pointer;
  min-height: 24px; }
li.x-item .rk { color: var(--muted); text-align: right; font-variant-numeric: tabular-nums; }
li.x-item .id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
li.x-item .sc { font-variant-numeric: tabular-nums; color: var(--muted); }
li.x-item.tie-up, li.x-item.tie-down { border-left-color: #6e7781; }
li.x-item.tie-up .sc, li.x-item.tie-down .sc { color: var(--ink); font-weight: 600; }
li.x-item.tie-up { border-top-color: transparent; }
li.x-item.hl { background: #fff8c5; box-shadow: inset 0 0 0 2px #bf8700; }
li.x-item.pick { background: #ffe58f; box-shadow: inset 0 0 0 3px #000000; }
li.x-item:focus-visible { outline: 3px solid #1f6feb; outline-offset: -2px; }
.x-foot { margin: 4px 0 0; font-size: 11.5px; color: var(--muted); }
.gr { display: inline-block; min-width: 1.9em; padding: 0 4px; border-radius: 4px;
  text-align: center; font-size: 11px; font-weight: 700; line-height: 17px;
  border: 1px solid transparent; print-color-adjust: exact; -webkit-print-color-adjust: exact; }
.gr.g-unjudged { background: #ffffff; color: #57606a; border: 1px dashed #57606a; }
.gr.g-neg { background: #ffffff; color: #82071e; border: 1px solid #82071e; }
.gr.g-0 { background: #eef0f2; color: #24292f; border-color: #c4cbd2; }
.gr.g-1 { background: #9ecae1; color: #0b2545; }
.gr.g-2 { background: #4292c6; color: #04162b; }
.gr.g-3 { background: #1d5b99; color: #ffffff; }
.gr.g-4 { background: #08306b; color: #ffffff; }
.tie-demo { display: inline-block; border-left: 4px solid #6e7781; padding-left: 4px;
  font-weight: 600; }
.x-doc { margin-top: 10px; border-top: 1px solid var(--line); padding-top: 6px; }
.x-doc h4 { margin: 4px 0; }
blockquote.x-text { margin: 4px 0; padding: 6px 12px; border-left: 4px solid var(--line);
  background: #f6f8fa; white-space: pre-wrap; overflow-wrap: anywhere; max-width: 900px; }
figure.plot[data-plot="scatter"] svg { cursor: crosshair; }
.x-ring { fill: none; stroke: #000000; stroke-width: 2.5; pointer-events: none; }
figure.plot[hidden] { display: none; }
@media print {
  nav.toc, .x-controls, #x-clear, .x-nav, fieldset.show-switch, p.filter, .x-status,
  th > button.sort::after { display: none !important; }
  body { background: #fff; font-size: 12px; }
  header.top { background: #fff; color: #000; border-bottom: 2px solid #000; }
  header.top .meta, header.top .meta b { color: #000; }
  section.card { box-shadow: none; border: 0; padding: 0; break-inside: auto; }
  .x-wrap { height: auto; max-height: none; overflow: visible; border: 0; }
  .x-wrap tr.spacer { display: none; }
  .x-lists { grid-template-columns: repeat(var(--columns), minmax(0, 1fr)); overflow: visible; }
  li.x-item, tr { break-inside: avoid; }
  .x-query { border: 1px solid #000; break-before: page; }
  .scroll { overflow: visible; }
  a { color: inherit; text-decoration: none; }
}
"""
