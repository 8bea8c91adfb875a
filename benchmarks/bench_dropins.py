#!/usr/bin/env python3
"""Benchmark the drop-ins against the tools they replace, on the same data (issue 35).

One mode per peer (``--peer``); each tool runs in its own fresh process,
which builds the input (untimed), evaluates once (the first call, which
loads what the tool loads lazily), then times ``--repeat`` more calls and
keeps the best (warm, same process), as wall time. Peak RSS is ``ru_maxrss``
of the process after the timed calls, next to the RSS before the first call
(the input itself: both tools hold the same dicts).

``--peer ir_measures``: ``ir_measures.calc_aggregate(measures, qrels, run)``
and ``list(ir_measures.iter_calc(...))`` with ir_measures 0.4.3 (its default
pipeline: pytrec_eval for nDCG@10, P@10, R@100 and AP, the MS MARCO script
for RR@10) against ``rankwise.compat.ir_measures``, on the dicts of
``bench_python_inputs.make_dicts`` (numeric ids, 1-30 judgments per query,
tied scores): 10,000 queries x 1,000 documents and 1,000 x 100. Run from the
repository root::

    python benchmarks/bench_dropins.py --peer ir_measures --repeat 3

This is a benchmark, not a test: nothing here is imported by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
RESULT_TAG = "@@RESULT "
SIZES = {"10000x1000": (10_000, 1_000), "1000x100": (1_000, 100)}
TARGETS = {"10000x1000": 5.0, "1000x100": 2.0}  # the peer's time / the drop-in's
IR_MEASURES = ["nDCG@10", "P@10", "R@100", "AP", "RR@10"]


def _rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _current_rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def child_ir_measures(args: argparse.Namespace) -> dict[str, Any]:
    """One tool, one size, one call kind: timings and memory."""
    sys.path.insert(0, HERE)
    from bench_python_inputs import make_dicts

    qrels, run = make_dicts(*SIZES[args.size], seed=args.seed)
    if args.tool == "ir_measures":
        import ir_measures as tool
    else:
        from rankwise.compat import ir_measures as tool  # type: ignore[no-redef]
    measures = [tool.parse_measure(text) for text in IR_MEASURES]

    def call() -> Any:
        if args.call == "calc_aggregate":
            return tool.calc_aggregate(measures, qrels, run)
        return list(tool.iter_calc(measures, qrels, run))

    before = _current_rss_mib()
    start = time.perf_counter()
    value = call()
    first = time.perf_counter() - start
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - start)
    if args.call == "calc_aggregate":
        summary = {str(m): v for m, v in value.items()}
    else:
        summary = {"rows": len(value)}
    return {"first_s": first, "best_s": min(times or [first]), "rss_before_mib": before,
            "peak_rss_mib": _rss_mib(), "result": summary}


def run_child(**options: Any) -> dict[str, Any]:
    command = [sys.executable, os.path.abspath(__file__), "--child"]
    for key, value in options.items():
        command += [f"--{key.replace('_', '-')}", str(value)]
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    line = next(x for x in done.stdout.splitlines() if x.startswith(RESULT_TAG))
    return json.loads(line[len(RESULT_TAG):])


def bench_ir_measures(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for size in args.sizes.split(","):
        for call in ("calc_aggregate", "iter_calc"):
            got = {tool: run_child(peer="ir_measures", tool=tool, size=size, call=call,
                                   repeat=args.repeat, seed=args.seed)
                   for tool in ("ir_measures", "drop-in")}
            theirs, ours = got["ir_measures"], got["drop-in"]
            if call == "calc_aggregate":
                for key, value in theirs["result"].items():
                    assert abs(value - ours["result"][key]) <= 1e-12, (size, key)
            else:
                assert theirs["result"] == ours["result"], size
            ratio = theirs["best_s"] / ours["best_s"]
            rows.append({"size": size, "call": call, "ir_measures_s": theirs["best_s"],
                         "drop_in_s": ours["best_s"], "ratio": ratio,
                         "target": TARGETS[size],
                         "ir_measures_peak_mib": theirs["peak_rss_mib"],
                         "drop_in_peak_mib": ours["peak_rss_mib"],
                         "input_mib": ours["rss_before_mib"],
                         "ir_measures_first_s": theirs["first_s"],
                         "drop_in_first_s": ours["first_s"]})
            print(f"{size:>11} {call:<15} ir_measures {theirs['best_s']:8.3f} s  drop-in "
                  f"{ours['best_s']:7.3f} s  {ratio:5.1f}x (target {TARGETS[size]:.0f}x)  "
                  f"peak RSS {theirs['peak_rss_mib']:7.0f} / {ours['peak_rss_mib']:7.0f} MiB "
                  f"(input {ours['rss_before_mib']:.0f})", flush=True)
    return rows


PEERS = {"ir_measures": (bench_ir_measures, child_ir_measures)}
"""Each peer's benchmark: (the parent's loop, the child's timed work)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", choices=sorted(PEERS), default="ir_measures")
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the rows to this file")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tool", help=argparse.SUPPRESS)
    parser.add_argument("--size", help=argparse.SUPPRESS)
    parser.add_argument("--call", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    bench, child = PEERS[args.peer]
    if args.child:
        print(RESULT_TAG + json.dumps(child(args)), flush=True)
        return 0
    rows = bench(args)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
