#!/usr/bin/env python3
"""Benchmark ``rankwise report`` and ``rankwise plot`` end to end (issue 13, item 20).

Each case runs the command in a fresh process (``python -m rankwise ...``),
so the figure is what a user waits for: start-up, imports, reading the
files, evaluating (the measures of the table and every cutoff of the
curves: ndcg@1..100, P@1..100, recall@1..100), the paired tests, drawing
(SVG written by rankwise for the report and ``.svg`` files; matplotlib for
PNG) and writing the page.

| case | data | target |
|---|---|---|
| report-small | 4 runs x 3 queries x 500 documents, 5 measures | < 1.5 s |
| report-500 | 3 runs x 500 queries x 100 documents, 5 measures | (reported) |
| report-large | 5 runs x 7,000 queries x 100 documents, 4 measures, lists to depth 20 | < 5 s |
| report-large-ids | the same, documents no two queries share (MS MARCO-like ids) | < 5 s, < 8 MB |
| plot-curves | 2 runs x 3 queries x 500 documents, ``--kind curves`` (PNG: matplotlib) | < 1.5 s |
| plot-curves-svg | the same to ``.svg`` (drawn by rankwise, no matplotlib) | (reported) |
| plot-differences | 3 runs x 500 queries, ``--kind differences`` (SVG) | (reported) |

The data is synthetic and deterministic (numpy, fixed seeds), written as
TREC files into ``benchmarks/.data/report/`` on first use (never committed).
Each timing is the best of ``--repeat`` runs: wall time, and CPU time (user +
system) of the process, which a busy machine inflates less. With ``--browser``
each report is also opened in headless Chromium (the DevTools client of the
report's browser tests): the page's own Performance API marks say when it is
interactive and how long filtering the explorer's 7,000 queries takes
(targets: < 2 s and < 100 ms). ``--profile CASE`` runs one case
in this process under cProfile and prints where the time goes.

Run from the repository root::

    python benchmarks/bench_report.py [--repeat 3] [--only report-large] [--depth 1000]
    python benchmarks/bench_report.py --only report-large,report-large-ids --browser
    python benchmarks/bench_report.py --src /path/to/other/checkout/src   # before a change

This is a benchmark, not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
DATA = HERE / ".data" / "report"

SMALL_MEASURES = ["ndcg@10", "map", "mrr", "P@10", "recall@1000"]
LARGE_MEASURES = ["ndcg@10", "map", "mrr@10", "recall@1000"]


def write_collection(folder: Path, n_queries: int, n_runs: int, depth: int,
                     seed: int, distinct_ids: bool = False) -> tuple[Path, list[Path]]:
    """Judgments (about 12 judged, ~2.5 relevant per query) and *n_runs* runs of *depth* documents.

    The runs get better with their index: the score of a relevant document
    is raised by 0.4 x index standard deviations. Documents are named
    ``d0`` .. ``d149`` in every query, or with *distinct_ids* by numbers of
    7 digits that no two queries share (as MS MARCO's passage ids): the
    explorer's shared document table then holds a document per row shown.
    """
    folder.mkdir(parents=True, exist_ok=True)
    (folder.parent / ".gitignore").write_text("*\n")
    qrels_path = folder / "qrels.txt"
    runs = [folder / f"run{s}.txt" for s in range(n_runs)]
    if qrels_path.exists() and all(p.exists() for p in runs):
        return qrels_path, runs
    rng = np.random.default_rng(seed)
    pool = depth + 50  # judged documents are drawn from a pool a bit wider than the runs
    judged = 12
    q = np.repeat(np.arange(n_queries), judged)
    docs = np.concatenate([rng.choice(pool, judged, replace=False) for _ in range(n_queries)])
    grade = rng.choice([0, 0, 0, 0, 1, 1, 2, 3], size=len(q))
    names = np.char.add("d", np.arange(pool).astype(str))
    if distinct_ids:  # each query's pool: its own block of 7-digit numbers, shuffled
        names = (1_000_000 + rng.permutation(n_queries * pool)).astype(str).reshape(
            n_queries, pool)
    name = (lambda i, d: names[i, d]) if distinct_ids else (lambda i, d: names[d])
    with qrels_path.open("w") as stream:
        stream.writelines(f"q{a} 0 {name(a, b)} {g}\n" for a, b, g in zip(q, docs, grade))
    gain = np.zeros((n_queries, pool))
    gain[q, docs] = grade
    for s, path in enumerate(runs):
        noise = rng.normal(size=(n_queries, pool)) + gain * 0.4 * (s + 1)
        top = np.argsort(-noise, axis=1)[:, :depth]
        scores = np.take_along_axis(noise, top, axis=1)
        lines = []
        for i in range(n_queries):
            lines.extend(
                f"q{i} Q0 {name(i, d)} {r} {v:.6f} run{s}\n"
                for r, (d, v) in enumerate(zip(top[i], scores[i]), start=1)
            )
        path.write_text("".join(lines))
    return qrels_path, runs


def cases(depth: int) -> dict[str, tuple[list[str], str]]:
    small_q, small_runs = write_collection(DATA / "small", 3, 4, 500, seed=1)
    mid_q, mid_runs = write_collection(DATA / "q500", 500, 3, 100, seed=2)
    big_q, big_runs = write_collection(DATA / f"large-d{depth}", 7000, 5, depth, seed=3)
    ids_q, ids_runs = write_collection(DATA / f"large-ids-d{depth}", 7000, 5, depth, seed=3,
                                       distinct_ids=True)
    out = Path(tempfile.mkdtemp(prefix="rankwise-bench-report-"))
    return {
        "report-small": (["report", str(small_q), *map(str, small_runs), "-m", *SMALL_MEASURES,
                          "--seed", "0", "-o", str(out / "small.html")], "< 1.5 s"),
        "report-500": (["report", str(mid_q), *map(str, mid_runs), "-m", *SMALL_MEASURES,
                        "--seed", "0", "-o", str(out / "q500.html")], "(reported)"),
        "report-large": (["report", str(big_q), *map(str, big_runs), "-m", *LARGE_MEASURES,
                          "--seed", "0", "-o", str(out / "large.html")], "< 5 s"),
        "report-large-ids": (["report", str(ids_q), *map(str, ids_runs), "-m",
                              *LARGE_MEASURES, "--seed", "0", "-o", str(out / "ids.html")],
                             "< 5 s, < 8 MB"),
        "plot-curves": (["plot", str(small_q), *map(str, small_runs[:2]), "--kind", "curves",
                         "-o", str(out / "curves.png")], "< 1.5 s"),
        "plot-curves-svg": (["plot", str(small_q), *map(str, small_runs[:2]), "--kind",
                             "curves", "-o", str(out / "curves.svg")], "(reported)"),
        "plot-differences": (["plot", str(mid_q), *map(str, mid_runs), "--kind", "differences",
                              "-o", str(out / "differences.svg")], "(reported)"),
    }


def run_once(argv: list[str], src: Path = SRC) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one fresh process."""
    env = dict(os.environ, PYTHONPATH=str(src), MPLBACKEND="Agg")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "rankwise", *argv, "--quiet"], env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


FILTERS = ("q1", "q12", "q123", "q1234", "", "q9")
"""What the browser benchmark types into the explorer's search box, one after the other."""


def browse(page: Path, repeat: int) -> dict[str, float]:
    """The page in headless Chromium: when it is interactive, how long filtering takes (ms).

    Read in the page with the Performance API (the marks and measures the
    page's script makes) through the DevTools client of the report's browser
    tests (tests/report/conftest.py). Best of *repeat* fresh loads.
    """
    sys.path.insert(0, str(HERE.parent / "tests" / "report"))
    from conftest import DevTools, find_chromium

    executable = find_chromium()
    if executable is None:
        raise SystemExit("--browser needs Chromium (apt-get install chromium, or "
                         "RANKWISE_CHROMIUM=/path/to/chrome)")
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="rankwise-bench-chromium-") as profile_dir:
        browser = DevTools(executable, profile_dir)
        try:
            for _ in range(repeat):
                session = browser.open(page)
                browser.wait_until(session, "performance.getEntriesByName("
                                            "'rankwise-interactive').length", 60)
                found = {"interactive": browser.evaluate(
                    session, "performance.getEntriesByName('rankwise-interactive')[0]"
                             ".startTime")}
                for text in FILTERS:
                    browser.evaluate(session, f"""(() => {{
                        const box = document.getElementById('x-search');
                        box.value = {text!r}; box.dispatchEvent(new Event('input')); }})()""")
                browser.drain(0.1)  # the paint after each
                filters = browser.evaluate(session, "performance.getEntriesByName("
                                                    "'rankwise-filter').map(e => e.duration)")
                painted = browser.evaluate(session, "performance.getEntriesByName("
                                                    "'rankwise-filter-paint').map(e => e.duration)")
                found["filter (max)"] = max(filters)
                found["filter + paint (max)"] = max(painted)
                for key, value in found.items():
                    best[key] = min(best.get(key, float("inf")), value)
        finally:
            browser.close()
    return best


def profile(argv: list[str], top: int) -> None:
    sys.path.insert(0, str(SRC))
    from rankwise.cli import main

    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.runcall(main, [*argv, "--quiet"])
    print(f"in-process wall time {time.perf_counter() - start:.2f} s (imports excluded "
          "when already loaded)")
    stats = pstats.Stats(profiler).strip_dirs().sort_stats("cumulative")
    stats.print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--depth", type=int, default=100,
                        help="documents per query of the large case (default 100)")
    parser.add_argument("--profile", metavar="CASE", help="profile one case in-process")
    parser.add_argument("--top", type=int, default=40, help="rows of the profile")
    parser.add_argument("--browser", action="store_true",
                        help="also open each report in headless Chromium: when the page is "
                             "interactive, how long filtering 7,000 queries takes (ms, "
                             "measured in the page), and the size of the file")
    parser.add_argument("--src", type=Path, default=SRC,
                        help="the rankwise sources to time (default: this checkout's src; "
                             "another tree's src gives the figures before a change)")
    args = parser.parse_args()
    table = cases(args.depth)
    if args.profile:
        profile(table[args.profile][0], args.top)
        return
    wanted = args.only.split(",") if args.only else list(table)
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}, best of {args.repeat}")
    print(f"{'case':<18} {'wall s':>7} {'cpu s':>6}  target      all wall times")
    for name in wanted:
        argv, target = table[name]
        runs = [run_once(argv, args.src) for _ in range(args.repeat)]
        wall = min(w for w, _ in runs)
        cpu = min(c for _, c in runs)
        print(f"{name:<18} {wall:7.2f} {cpu:6.2f}  {target:<10}  "
              f"{', '.join(f'{w:.2f}' for w, _ in runs)}", flush=True)
        if args.browser and argv[0] == "report":
            page = Path(argv[argv.index("-o") + 1])
            timings = browse(page, args.repeat)
            print(f"{'':<18} {page.stat().st_size / 1e6:.2f} MB; in Chromium: " + ", ".join(
                f"{key} {value:.0f} ms" for key, value in timings.items()), flush=True)


if __name__ == "__main__":
    main()
