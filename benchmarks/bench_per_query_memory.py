"""Peak memory of per-query output: does it grow with the number of queries?

Generates judgments and a run of N queries (default 1,000,000; 5 judged and
10 retrieved documents each) and runs, each in its own process under
``/usr/bin/time -v``, with the output sent to ``/dev/null``:

* ``rankwise eval QRELS RUN -m ndcg@10 map --per-query -f FORMAT`` for every format;
* ``rankwise eval QRELS RUN -m all_trec --per-query -f tsv``;
* ``rankwise trec-eval -q -m all_trec QRELS RUN``;

and, for comparison, the same evaluation without per-query output (``eval -f
tsv`` of the means only): the difference is what writing the per-query rows
costs. Peak RSS (``Maximum resident set size``) and wall time are printed as
a table, and written as JSON with ``--json``.

Usage (from the repository root)::

    python benchmarks/bench_per_query_memory.py [--queries 1000000] [--src src]
        [--formats json tsv] [--json out.json]

``--src`` chooses the rankwise source tree to measure (``PYTHONPATH``), so
two checkouts can be compared: before and after a change.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ["table", "tsv", "csv", "json", "jsonl", "markdown", "latex"]


def generate(folder: Path, queries: int) -> tuple[Path, Path]:
    """Write qrels and run files of *queries* queries (deterministic)."""
    qrels = folder / f"q{queries}.qrels"
    run = folder / f"q{queries}.run"
    if qrels.exists() and run.exists():
        return qrels, run
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".gitignore").write_text("*\n")
    with open(qrels, "w") as judged, open(run, "w") as ranked:
        for q in range(queries):
            qid = f"q{q}"
            judged.write("".join(f"{qid} 0 d{d} {(q + d) % 3}\n" for d in range(5)))
            ranked.write("".join(
                f"{qid} Q0 d{(d * 7 + q) % 12} {d + 1} {10 - d} r\n" for d in range(10)
            ))
    return qrels, run


def measure(command: list[str], src: Path) -> dict[str, float]:
    """Peak RSS (MB) and wall seconds of *command* under /usr/bin/time -v."""
    env = dict(os.environ, PYTHONPATH=str(src))
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command], env=env, capture_output=True,
                          text=True, check=False)
    wall = time.perf_counter() - started
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if done.returncode != 0 or match is None:
        tail = done.stderr.strip().splitlines()[-3:]
        return {"rss_mb": float("nan"), "seconds": wall, "error": " | ".join(tail)}  # type: ignore[dict-item]
    return {"rss_mb": int(match[1]) / 1024, "seconds": wall}


def all_trec_cases(rankwise: list[str], qrels: Path, run: Path) -> dict[str, list[str]]:
    """trec_eval's whole set, per query: in eval's TSV and as trec-eval -q."""
    return {
        "eval -m all_trec (means only)": [
            *rankwise, "eval", str(qrels), str(run), "-m", "all_trec", "-f", "tsv",
            "-o", os.devnull, "--quiet",
        ],
        "eval -m all_trec --per-query -f tsv": [
            *rankwise, "eval", str(qrels), str(run), "-m", "all_trec", "--per-query", "-f",
            "tsv", "-o", os.devnull, "--quiet",
        ],
        "trec-eval -q -m all_trec": [
            *rankwise, "trec-eval", "-q", "-m", "all_trec", str(qrels), str(run),
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "benchmarks" / ".data")
    parser.add_argument("--formats", nargs="+", default=FORMATS, choices=FORMATS)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--no-all-trec", action="store_true",
                        help="skip the all_trec cases (the slowest, and before streaming the "
                             "largest: about 15 GB at 1M queries)")
    args = parser.parse_args()

    qrels, run = generate(args.data_dir, args.queries)
    rankwise = [sys.executable, "-m", "rankwise"]
    cases: dict[str, list[str]] = {
        "eval means only (baseline)": [*rankwise, "eval", str(qrels), str(run), "-m", "ndcg@10",
                                       "map", "-f", "tsv", "-o", os.devnull, "--quiet"],
    }
    for fmt in args.formats:
        cases[f"eval --per-query -f {fmt}"] = [
            *rankwise, "eval", str(qrels), str(run), "-m", "ndcg@10", "map", "--per-query",
            "-f", fmt, "-o", os.devnull, "--quiet",
        ]
    if not args.no_all_trec:
        cases.update(all_trec_cases(rankwise, qrels, run))
    figures: dict[str, dict[str, float]] = {}
    print(f"{args.queries:,} queries, rankwise from {args.src}")
    print(f"{'case':<40} {'peak RSS MB':>12} {'seconds':>9}")
    for name, command in cases.items():
        if name.startswith("trec-eval"):
            command = ["sh", "-c", " ".join(command) + " > /dev/null"]
        figures[name] = measure(command, args.src)
        row = figures[name]
        print(f"{name:<40} {row['rss_mb']:>12.0f} {row['seconds']:>9.1f}"
              + (f"  ({row['error']})" if "error" in row else ""), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"queries": args.queries, "src": str(args.src),
                                         "figures": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
