#!/usr/bin/env python3
"""Benchmark rankwise on the inputs Python users hold: dicts and data frames.

**Dicts** (``{query_id: {doc_id: value}}``, what BEIR, MTEB and
sentence-transformers hand to pytrec_eval): rankwise's
``rw.evaluate(qrels, run, measures).mean``, and the drop-in
``rankwise.compat.pytrec_eval`` (``drop-in``: the same code as for
pytrec_eval, per-query dicts averaged in Python), against pytrec_eval's
``RelevanceEvaluator(qrels, measures).evaluate(run)`` and the average of
each measure, on the same dicts, for ndcg_cut.10, recall.100, map,
recip_rank and P.10. Sizes: 10,000 queries x 1,000 documents (the issue's
workload), 1,000 x 100 (MTEB's) and 100,000 x 100. The dicts are synthetic
and deterministic (:func:`make_dicts`): numeric string ids, 1-30 judgments per
query (grades 0-2, about half of them retrieved), scores in steps of 1/4096
(exact in float32, so pytrec_eval ranks exactly as rankwise does; ties
occur), each query's documents in random order (dicts built from a sort are
the easy case: ``--sorted``).

**Frames**: the MS MARCO-sized TREC run of ``bench_msmarco.py`` (6,980
queries x 1,000 passages) as a pyarrow Table, a pandas DataFrame with object
columns, a pandas DataFrame with Arrow-backed strings, and a polars
DataFrame, each evaluated with ``rw.evaluate(qrels_path, frame, measures)``,
against the TREC file itself, ``rw.evaluate(qrels_path, run_path, measures)``.

Every tool and form runs in its own fresh process, which builds its input
(untimed), then times the evaluation: the first call (``first``) and the best
of ``--repeat`` further calls (``best``), as wall time and as CPU time of the
process (all threads). For dicts, each tool's one-time start-up is timed
apart, before its first call (``start-up``: importing the tool and evaluating
a one-query dict, which loads what the tool loads lazily), as issue 21 reports
the JVM's start-up apart; ``start-up + first`` is what a fresh process pays
for its first evaluation, and the report gives that ratio too. Peak RSS is ``ru_maxrss`` of the
process read right after the first evaluation (the input itself included:
both tools hold the same dicts). Run from the repository root::

    python benchmarks/bench_python_inputs.py --json /tmp/python_inputs.json

This is a benchmark, not a test: nothing here is imported by pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SRC = os.path.join(REPO, "src")
RESULT_TAG = "@@RESULT "

DICT_MEASURES = ["ndcg_cut.10", "recall.100", "map", "recip_rank", "P.10"]
PYTREC_KEYS = ["ndcg_cut_10", "recall_100", "map", "recip_rank", "P_10"]
FRAME_MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]
SIZES = {"10000x1000": (10_000, 1_000), "1000x100": (1_000, 100), "100000x100": (100_000, 100)}
FORMS = ["trec", "arrow", "pandas-object", "pandas-arrow", "polars"]
TOOLS = ("pytrec_eval", "rankwise", "drop-in")
"""pytrec_eval; rw.evaluate; rankwise.compat.pytrec_eval (per-query dicts, averaged alike)."""
DICT_TARGET = 5.0  # pytrec_eval time / rankwise time
FRAME_TARGET = 1.5  # frame time / TREC-file time


# ---------------------------------------------------------------------------
# the inputs
# ---------------------------------------------------------------------------


def make_dicts(
    n_queries: int, n_docs: int, *, seed: int = 0, sorted_scores: bool = False
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Synthetic qrels and run dicts (deterministic for a seed).

    Ids are numeric strings (as MS MARCO's); each query has 1-30 judgments
    (grades 0-2), about half of them among its retrieved documents; scores
    are multiples of 1/4096 in [0, 2) (exact in float32; about 6% tied).
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    corpus = 10 * n_queries * n_docs
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    judged_counts = rng.integers(1, 31, n_queries)
    for q in range(n_queries):
        query = str(1_000_000 + 7 * q)
        docs = np.unique(rng.integers(0, corpus, n_docs + n_docs // 8 + 8))
        rng.shuffle(docs)
        docs = docs[:n_docs]
        scores = rng.integers(0, 8192, n_docs) / 4096
        if sorted_scores:
            scores = -np.sort(-scores)
        names = [str(doc) for doc in docs.tolist()]
        run[query] = dict(zip(names, scores.tolist()))
        k = int(judged_counts[q])
        inside = rng.choice(n_docs, min(n_docs, (k + 1) // 2), replace=False)
        judged = [names[i] for i in inside.tolist()]
        judged += [str(doc) for doc in rng.integers(0, corpus, k - len(judged)).tolist()]
        qrels[query] = dict(zip(judged, rng.integers(0, 3, len(judged)).tolist()))
    return qrels, run


def load_frame(run_path: str, form: str) -> Any:
    """The TREC run as a table of the given form (query_id, doc_id, score)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(
        run_path,
        read_options=pacsv.ReadOptions(
            column_names=["query_id", "q0", "doc_id", "rank", "score", "tag"]
        ),
        parse_options=pacsv.ParseOptions(delimiter=" "),
        convert_options=pacsv.ConvertOptions(
            column_types={"query_id": pa.string(), "doc_id": pa.string(), "score": pa.float64()},
            include_columns=["query_id", "doc_id", "score"],
        ),
    )
    if form == "arrow":
        return table
    if form == "pandas-object":
        frame = table.to_pandas()
        return frame.astype({"query_id": object, "doc_id": object})
    if form == "pandas-arrow":
        import pandas as pd

        return table.to_pandas(types_mapper=pd.ArrowDtype)
    if form == "polars":
        import polars as pl

        return pl.from_arrow(table)
    raise SystemExit(f"unknown form {form}")


# ---------------------------------------------------------------------------
# the child processes
# ---------------------------------------------------------------------------


def _rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _timed(call: Any, repeat: int) -> dict[str, Any]:
    """Time the first call and the best of *repeat* more (wall and CPU)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    out: dict[str, Any] = {
        "first_s": time.perf_counter() - wall,
        "first_cpu_s": time.process_time() - cpu,
        "peak_rss_mib": _rss_mib(),
    }
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        value = call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    out.update(best_s=min(walls or [out["first_s"]]), best_cpu_s=min(cpus or [out["first_cpu_s"]]))
    out["means"] = value
    return out


def child_dicts(args: argparse.Namespace) -> dict[str, Any]:
    n_queries, n_docs = SIZES[args.size]
    qrels, run = make_dicts(n_queries, n_docs, seed=args.seed, sorted_scores=args.sorted)
    import gc

    gc.collect()
    before = _rss_mib()
    if args.tool in ("pytrec_eval", "drop-in"):

        def evaluate(qrels: Any, run: Any) -> dict[str, float]:
            if args.tool == "drop-in":
                import rankwise.compat.pytrec_eval as pytrec_eval
            else:
                import pytrec_eval

            evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(DICT_MEASURES))
            per_query = evaluator.evaluate(run)
            n = len(per_query)
            return {key: sum(v[key] for v in per_query.values()) / n for key in PYTREC_KEYS}

    else:

        def evaluate(qrels: Any, run: Any) -> dict[str, float]:
            import rankwise as rw

            means = rw.evaluate(qrels, run, DICT_MEASURES).mean
            return dict(zip(PYTREC_KEYS, means.values()))

    wall, cpu = time.perf_counter(), time.process_time()
    evaluate({"q": {"d": 1}}, {"q": {"d": 1.0, "e": 0.5}})  # the one-time start-up
    startup = {"startup_s": time.perf_counter() - wall, "startup_cpu_s": time.process_time() - cpu}
    out = {**startup, **_timed(lambda: evaluate(qrels, run), args.repeat)}
    out["dicts_rss_mib"] = before
    return out


def child_frames(args: argparse.Namespace) -> dict[str, Any]:
    import rankwise as rw

    run: Any = args.run if args.form == "trec" else load_frame(args.run, args.form)
    out = _timed(lambda: rw.evaluate(args.qrels, run, FRAME_MEASURES).mean, args.repeat)
    from rankwise.io import _fast

    out["c_modules"] = _fast.available()
    return out


# ---------------------------------------------------------------------------
# the parent
# ---------------------------------------------------------------------------


def run_child(argv: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except KeyboardInterrupt:
            proc.kill()
            raise
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_TAG):
            result = json.loads(line[len(RESULT_TAG) :])
            result["process_s"] = wall
            peak = usage.ru_maxrss
            result["process_peak_rss_mib"] = (
                peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
            )
            return result
    tail = (stderr or stdout).strip().splitlines()[-3:]
    return {"error": f"exit code {code}: " + " | ".join(tail)}


def child_argv(args: argparse.Namespace, **extra: Any) -> list[str]:
    argv = [args.python, os.path.abspath(__file__), "--child", "--repeat", str(args.repeat)]
    for key, value in extra.items():
        if value is True:
            argv.append("--" + key.replace("_", "-"))
        elif value not in (None, False):
            argv += ["--" + key.replace("_", "-"), str(value)]
    return argv


def environment() -> dict[str, str]:
    """The children's environment: this checkout's rankwise, its bytecode compiled.

    ``pip install`` compiles every module's bytecode; a checkout run with
    ``PYTHONDONTWRITEBYTECODE`` set (or edited since) would compile stale
    modules inside the first timed call instead, ~12 ms that no user pays.
    """
    import compileall

    compileall.compile_dir(os.path.join(SRC, "rankwise"), quiet=1)
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def fmt(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.3f}"


def bench_dicts(args: argparse.Namespace, env: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for size in args.sizes:
        results = {}
        for tool in TOOLS:
            print(f"dicts {size}: {tool} ...", flush=True)
            results[tool] = run_child(
                child_argv(args, part="dicts", tool=tool, size=size, seed=args.seed,
                           sorted=args.sorted),
                env,
                args.timeout,
            )
            if "error" in results[tool]:
                print(f"  FAILED: {results[tool]['error']}", flush=True)
        rows.append({"size": size, **results})
    return rows


def bench_frames(args: argparse.Namespace, env: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for form in args.forms:
        print(f"frames: {form} ...", flush=True)
        result = run_child(
            child_argv(args, part="frames", form=form, qrels=args.qrels, run=args.run),
            env,
            args.timeout,
        )
        if "error" in result:
            print(f"  FAILED: {result['error']}", flush=True)
        rows.append({"form": form, **result})
    return rows


def report_dicts(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "Dicts: rw.evaluate(qrels, run, 5 measures) vs pytrec_eval (same dicts, one process each)",
        "",
        "| size | tool | start-up (s) | first (s) | best (s) | best CPU (s) | peak RSS (MB) "
        "| dicts alone (MB) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    verdicts = []
    for row in rows:
        for tool in TOOLS:
            r = row.get(tool, {})
            if "error" in r:
                lines.append(f"| {row['size']} | {tool} | failed: {r['error']} | | | | | |")
                continue
            lines.append(
                f"| {row['size']} | {tool} | {fmt(r.get('startup_s'))} | {fmt(r['first_s'])} | "
                f"{fmt(r['best_s'])} | "
                f"{fmt(r['best_cpu_s'])} | {r['peak_rss_mib']:.0f} | {r['dicts_rss_mib']:.0f} |"
            )
        peer = row.get("pytrec_eval", {})
        for tool in TOOLS[1:]:
            verdicts += _verdict(row["size"], tool, peer, row.get(tool, {}))
    return [*lines, "", *verdicts]


def _verdict(size: str, tool: str, peer: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """The ratio of *tool* to pytrec_eval: time (target 5x) and peak memory (target <= 1)."""
    if "first_s" not in peer or "first_s" not in ours:
        return []
    first = peer["first_s"] / ours["first_s"]
    best = peer["best_s"] / ours["best_s"]
    cpu = peer["best_cpu_s"] / ours["best_cpu_s"]
    memory = ours["peak_rss_mib"] / peer["peak_rss_mib"]
    worst = max(abs(peer["means"][k] - ours["means"][k]) for k in PYTREC_KEYS)
    fresh = ""
    if "startup_s" in peer and "startup_s" in ours:
        fresh = (
            f"; start-up once per process {1e3 * peer['startup_s']:.1f} ms vs "
            f"{1e3 * ours['startup_s']:.1f} ms, start-up + first call "
            f"{(peer['startup_s'] + peer['first_s']) / (ours['startup_s'] + ours['first_s']):.1f}x"
        )
    return [
        f"{size}: pytrec_eval / {tool} = {first:.1f}x first call, "
        f"{best:.1f}x best, {cpu:.1f}x CPU (target >= {DICT_TARGET:.0f}x: "
        f"{'met' if min(first, best) >= DICT_TARGET else 'NOT met'}){fresh}; peak RSS "
        f"{tool} / pytrec_eval = {memory:.2f} (target <= 1: "
        f"{'met' if memory <= 1 else 'NOT met'}); means differ by <= {worst:.1e}"
    ]


def report_frames(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "Frames: rw.evaluate(qrels_path, run, 5 measures), the 7M-line run in each form",
        "",
        "| form | first (s) | best (s) | best CPU (s) | peak RSS (MB) | best / TREC file |",
        "|---|---|---|---|---|---|",
    ]
    trec = next((r for r in rows if r["form"] == "trec" and "best_s" in r), None)
    verdicts = []
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['form']} | failed: {row['error']} | | | | |")
            continue
        ratio = row["best_s"] / trec["best_s"] if trec else None
        lines.append(
            f"| {row['form']} | {fmt(row['first_s'])} | {fmt(row['best_s'])} | "
            f"{fmt(row['best_cpu_s'])} | {row['peak_rss_mib']:.0f} | "
            f"{'-' if ratio is None else f'{ratio:.2f}x'} |"
        )
        if trec and row is not trec:
            same = all(abs(row["means"][k] - trec["means"][k]) < 1e-12 for k in trec["means"])
            verdicts.append(
                f"{row['form']}: {ratio:.2f}x the TREC file (target <= {FRAME_TARGET}x: "
                f"{'met' if ratio <= FRAME_TARGET else 'NOT met'}); CPU "
                f"{row['best_cpu_s'] / trec['best_cpu_s']:.2f}x; means "
                f"{'identical' if same else 'DIFFER'}"
            )
    return [*lines, "", *verdicts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="dicts,frames", help="dicts, frames or both")
    parser.add_argument("--sizes", default=",".join(SIZES), help="dict sizes, comma-separated")
    parser.add_argument("--forms", default=",".join(FORMS), help="frame forms, comma-separated")
    parser.add_argument("--sorted", action="store_true", help="dict runs in rank order")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="timed calls after the first")
    parser.add_argument("--data-dir", default="/tmp/bench-data",
                        help="holds msmarco_like.qrels and msmarco_like.run (bench_msmarco.py)")
    parser.add_argument("--qrels")
    parser.add_argument("--run")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--json", help="save every figure here")
    # child mode
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--part", help=argparse.SUPPRESS)
    parser.add_argument("--tool", help=argparse.SUPPRESS)
    parser.add_argument("--size", help=argparse.SUPPRESS)
    parser.add_argument("--form", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        result = child_dicts(args) if args.part == "dicts" else child_frames(args)
        print(RESULT_TAG + json.dumps(result))
        return

    args.qrels = args.qrels or os.path.join(args.data_dir, "msmarco_like.qrels")
    args.run = args.run or os.path.join(args.data_dir, "msmarco_like.run")
    args.sizes = [s for s in args.sizes.split(",") if s]
    args.forms = [f for f in args.forms.split(",") if f]
    parts = set(args.only.split(","))
    env = environment()
    report: dict[str, Any] = {"load_average": os.getloadavg(), "cores": os.cpu_count()}
    lines: list[str] = []
    if "dicts" in parts:
        report["dicts"] = bench_dicts(args, env)
        lines += [*report_dicts(report["dicts"]), ""]
    if "frames" in parts:
        if not (os.path.isfile(args.qrels) and os.path.isfile(args.run)):
            sys.exit(
                f"frames: no {args.qrels} / {args.run}: make them with "
                "benchmarks/bench_msmarco.py (or pass --data-dir, --qrels and --run)"
            )
        report["frames"] = bench_frames(args, env)
        lines += report_frames(report["frames"])
    report["load_average_after"] = os.getloadavg()
    print()
    print("\n".join(lines))
    print(f"\nload average before {report['load_average'][0]:.1f}, after "
          f"{report['load_average_after'][0]:.1f} on {report['cores']} cores")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=2)


if __name__ == "__main__":
    main()
