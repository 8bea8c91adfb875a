#!/usr/bin/env python3
"""Benchmark each drop-in against its peer: the same call, the same inputs, warm.

For a peer (pytrec_eval; ir_measures' ``calc_aggregate`` and ``iter_calc``;
ranx's ``evaluate``; a new peer adds a :class:`Workload` to ``WORKLOADS``),
each size runs twice, each time in its own fresh process:
once with the peer itself (``import pytrec_eval``) and once with rankwise's
drop-in (``import rankwise.compat.pytrec_eval as pytrec_eval``). The process
builds the inputs (untimed), makes one call to warm up (imports, caches,
numba's or rankwise's lazy loading: timed apart as ``first``), then times
``--repeat`` more calls and keeps the best (``warm``), as wall and CPU time.
Peak RSS is the process's ``ru_maxrss`` after its calls (the inputs
included: both hold the same); ``inputs alone`` is the process before it
imports the tool, ``import`` what importing it adds, ``calls`` what the calls
add beyond. The report gives peer time / drop-in time against the issue's target
per size (5x at 10,000 queries x 1,000 documents, 2x at 1,000 x 100), the
memory ratio (target <= 1), and checks that both computed the same numbers.

pytrec_eval's workload is what BEIR and MTEB do:
``RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100", "map", "recip_rank",
"P.10"}).evaluate(run)`` on the dicts of ``bench_python_inputs.make_dicts``
(numeric string ids, 1-30 judgments a query, scores exact in float32 with
ties, each query's documents in random order); ir_measures' is its
``calc_aggregate`` (``--peer ir_measures``) and ``iter_calc``
(``--peer ir_measures-iter_calc``) of nDCG@10, P@10, R@100, AP and RR@10 on the
same dicts; ranx's is its ``evaluate(qrels, run, ["ndcg@10", "map@100",
"mrr@10", "precision@10", "recall@100"])`` on a ``Qrels`` and a ``Run`` built
from the same dicts by the first call (``--peer ranx``: the warm calls are
ranx's evaluation, as a user who builds them once pays it), or on the dicts
themselves (``--peer ranx-dicts``: ranx converts them in every call). ranx
compiles its kernels with numba: its first call in a fresh process reads
numba's cache (warm after any earlier run) or compiles. Run from the
repository root::

    python benchmarks/bench_dropins.py --peer pytrec_eval --json /tmp/dropins.json
    python benchmarks/bench_dropins.py --peer ir_measures --repeat 3
    python benchmarks/bench_dropins.py --peer ranx --repeat 3

This is a benchmark, not a test: nothing here is imported by pytest.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_python_inputs import RESULT_TAG, _rss_mib, environment, run_child  # noqa: E402

SIZES = {"10000x1000": (10_000, 1_000), "1000x100": (1_000, 100)}
TARGETS = {"10000x1000": 5.0, "1000x100": 2.0}
"""Peer time / drop-in time, warm, per size (issue 35)."""


@dataclass(frozen=True)
class Workload:
    """One peer's benchmark: its module, the drop-in's, the inputs and the call."""

    peer: str
    drop_in: str
    make: Callable[[int, int, int], Any]
    """(queries, documents a query, seed) -> the inputs, built once per process."""
    call: Callable[[Any, Any], Any]
    """(the module, the inputs) -> the output a user gets."""
    digest: Callable[[Any], dict[str, float]]
    """The output -> a few numbers both tools must agree on."""


def _pytrec_inputs(n_queries: int, n_docs: int, seed: int) -> Any:
    from bench_python_inputs import make_dicts

    return make_dicts(n_queries, n_docs, seed=seed)


PYTREC_MEASURES = {"ndcg_cut.10", "recall.100", "map", "recip_rank", "P.10"}


def _pytrec_call(module: Any, inputs: Any) -> Any:
    qrels, run = inputs
    return module.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run)


def _pytrec_digest(output: Any) -> dict[str, float]:
    """The mean of each key and the number of queries (the per-query values are checked bit
    for bit in tests/compat/test_pytrec_eval.py)."""
    keys = sorted(next(iter(output.values())))
    out = {key: sum(values[key] for values in output.values()) / len(output) for key in keys}
    out["queries"] = float(len(output))
    return out


IR_MEASURES = ["nDCG@10", "P@10", "R@100", "AP", "RR@10"]
"""ir_measures' default pipeline: pytrec_eval for nDCG@10, P@10, R@100 and AP, the MS MARCO
script for RR@10."""


def _ir_measures_aggregate(module: Any, inputs: Any) -> Any:
    qrels, run = inputs
    return module.calc_aggregate([module.parse_measure(m) for m in IR_MEASURES], qrels, run)


def _ir_measures_iter(module: Any, inputs: Any) -> Any:
    qrels, run = inputs
    return list(module.iter_calc([module.parse_measure(m) for m in IR_MEASURES], qrels, run))


def _ir_measures_means(output: Any) -> dict[str, float]:
    return {str(measure): float(value) for measure, value in output.items()}


def _ir_measures_rows(output: Any) -> dict[str, float]:
    """The number of rows and the sum of their values (the values are checked one by one in
    tests/compat/test_ir_measures_values.py)."""
    return {"rows": float(len(output)), "sum": float(sum(row.value for row in output))}


RANX_METRICS = ["ndcg@10", "map@100", "mrr@10", "precision@10", "recall@100"]


def _ranx_inputs(n_queries: int, n_docs: int, seed: int) -> Any:
    """The dicts, and a place for the Qrels and Run each tool builds from them once."""
    qrels, run = _pytrec_inputs(n_queries, n_docs, seed)
    return qrels, run, {}


def _ranx_evaluate(module: Any, inputs: Any) -> Any:
    """``evaluate(qrels, run, metrics)`` on a ``Qrels`` and a ``Run`` built from the dicts by
    the first call (which is timed apart: the warm calls evaluate, as a user does who
    builds them once)."""
    qrels, run, built = inputs
    if module.__name__ not in built:
        built[module.__name__] = (module.Qrels(qrels), module.Run(run))
    judged, ranked = built[module.__name__]
    return module.evaluate(judged, ranked, RANX_METRICS)


def _ranx_dicts(module: Any, inputs: Any) -> Any:
    """``evaluate(qrels_dict, run_dict, metrics)``: ranx converts (and sorts) the dicts in
    each call."""
    qrels, run, _ = inputs
    return module.evaluate(qrels, run, RANX_METRICS)


def _ranx_means(output: Any) -> dict[str, float]:
    """The means (the per-query values are checked one by one in tests/compat/
    test_ranx_values.py)."""
    return {metric: float(value) for metric, value in output.items()}


WORKLOADS: dict[str, Workload] = {
    "ranx": Workload("ranx", "rankwise.compat.ranx", _ranx_inputs, _ranx_evaluate,
                     _ranx_means),
    "ranx-dicts": Workload("ranx", "rankwise.compat.ranx", _ranx_inputs, _ranx_dicts,
                           _ranx_means),
    "pytrec_eval": Workload("pytrec_eval", "rankwise.compat.pytrec_eval", _pytrec_inputs,
                            _pytrec_call, _pytrec_digest),
    "ir_measures": Workload("ir_measures", "rankwise.compat.ir_measures", _pytrec_inputs,
                            _ir_measures_aggregate, _ir_measures_means),
    "ir_measures-iter_calc": Workload("ir_measures", "rankwise.compat.ir_measures",
                                      _pytrec_inputs, _ir_measures_iter, _ir_measures_rows),
}


def child(args: argparse.Namespace) -> dict[str, Any]:
    """One process: build the inputs, warm up, time the best of --repeat calls."""
    workload = WORKLOADS[args.peer]
    n_queries, n_docs = SIZES[args.size]
    inputs = workload.make(n_queries, n_docs, args.seed)
    gc.collect()
    before = _rss_mib()
    module = importlib.import_module(workload.peer if args.tool == "peer" else workload.drop_in)
    imported = _rss_mib()
    wall, cpu = time.perf_counter(), time.process_time()
    output = workload.call(module, inputs)
    first, first_cpu = time.perf_counter() - wall, time.process_time() - cpu
    walls, cpus = [], []
    for _ in range(args.repeat):
        output = None
        wall, cpu = time.perf_counter(), time.process_time()
        output = workload.call(module, inputs)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {"first_s": first, "first_cpu_s": first_cpu, "warm_s": min(walls or [first]),
            "warm_cpu_s": min(cpus or [first_cpu]), "peak_rss_mib": _rss_mib(),
            "inputs_rss_mib": before, "imported_rss_mib": imported,
            "digest": workload.digest(output)}


def report(peer: str, rows: list[dict[str, Any]]) -> list[str]:
    lines = [f"{peer}: the peer and its drop-in, the same call on the same inputs "
             "(one process each)", "",
             "| size | tool | first (s) | warm (s) | warm CPU (s) | peak RSS (MB) "
             "| inputs alone (MB) | import (MB) | calls (MB) |", "|---" * 9 + "|"]
    verdicts = []
    for row in rows:
        for tool in ("peer", "drop-in"):
            r = row[tool]
            if "error" in r:
                lines.append(f"| {row['size']} | {tool} | failed: {r['error']} | | | | | | |")
                continue
            lines.append(f"| {row['size']} | {tool} | {r['first_s']:.3f} | {r['warm_s']:.4f} | "
                         f"{r['warm_cpu_s']:.4f} | {r['peak_rss_mib']:.0f} | "
                         f"{r['inputs_rss_mib']:.0f} | "
                         f"{r['imported_rss_mib'] - r['inputs_rss_mib']:.1f} | "
                         f"{r['peak_rss_mib'] - r['imported_rss_mib']:.1f} |")
        theirs, ours = row["peer"], row["drop-in"]
        if "error" in theirs or "error" in ours:
            continue
        speed = theirs["warm_s"] / ours["warm_s"]
        cpu = theirs["warm_cpu_s"] / ours["warm_cpu_s"]
        memory = ours["peak_rss_mib"] / theirs["peak_rss_mib"]
        target = TARGETS[row["size"]]
        worst = max(abs(theirs["digest"][k] - ours["digest"][k]) for k in theirs["digest"])
        verdicts.append(
            f"{row['size']}: {peer} / drop-in = {speed:.1f}x warm, {cpu:.1f}x CPU, "
            f"{theirs['first_s'] / ours['first_s']:.1f}x first call (target >= {target:g}x "
            f"warm: {'met' if speed >= target else 'NOT met'}); peak RSS drop-in / {peer} = "
            f"{memory:.2f} (target <= 1: {'met' if memory <= 1 else 'NOT met'}); the means "
            f"differ by {worst:.1e}")
    return [*lines, "", *verdicts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", default="pytrec_eval", choices=sorted(WORKLOADS))
    parser.add_argument("--sizes", default=",".join(SIZES), help="comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="timed warm calls")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--json", help="save every figure here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tool", help=argparse.SUPPRESS)
    parser.add_argument("--size", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(RESULT_TAG + json.dumps(child(args)))
        return
    env = environment()
    rows = []
    for size in args.sizes.split(","):
        row: dict[str, Any] = {"size": size}
        for tool in ("peer", "drop-in"):
            print(f"{args.peer} {size}: {tool} ...", flush=True)
            row[tool] = run_child(
                [args.python, os.path.abspath(__file__), "--child", "--peer", args.peer,
                 "--tool", tool, "--size", size, "--repeat", str(args.repeat),
                 "--seed", str(args.seed)], env, args.timeout)
        rows.append(row)
    text = "\n".join(report(args.peer, rows))
    print("\n" + text)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"peer": args.peer, "rows": rows, "report": text}, handle, indent=1)


if __name__ == "__main__":
    main()
