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
@media print { nav.toc { display: none; } body { background: #fff; }
  section.card { box-shadow: none; break-inside: avoid-page; } }
"""
