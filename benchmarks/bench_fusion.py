"""Fusion speed: 5 runs of the 7M-line benchmark data (perturbed scores), rrf and combmnz+min-max.

    python benchmarks/bench_fusion.py [--run /tmp/bench-data/msmarco_like.run] [--runs 5]
        [--ranx-queries 1000]

Makes RUNS runs from the benchmark run (../shared/bench/gen_msmarco_like.py): seeded
normal noise on the scores, 10% of each run's rows dropped (documents partly disjoint),
written once as TREC files next to it (fusion_<i>.run) and read back as any run is.
Then times rankwise.fuse after reading, for rrf, combmnz (no normalisation: the same
one pass over the runs as rrf, without ranks), combmnz with min-max normalisation and the
rank-based methods that align the runs first (rbc, bordafuse), best of --repeat, with that
call's CPU time over all threads (and the least CPU time of the repeats: the steadier figure
on a loaded machine) and the load average, since the machine may be shared.
Twice: on the runs as read (in rank order: a row's rank is its position, but where scores
tie) and on the same runs in memory with the perturbed scores left in the base run's row
order (no longer in rank order: every row's rank comes from a sort, issue 40), with
rrf / combmnz, the ratio the issue targets (<= 1.5x); with --pairs N, also the median of
N per-pair ratios of rrf and combmnz called alternately (steadier under load).
--queries N keeps the first N queries only (e.g. 1000), --methods picks methods. Peak
memory (ru_maxrss) is printed after the runs are read and at the end. With
--ranx-queries N, ranx's fuse (its second, warm call) and rankwise's are timed in the same
process on the first N queries of the same runs, given as dicts, for the ratio.
"""


from __future__ import annotations

import argparse
import json
import time

import numpy as np

METHODS = {"rrf": ("rrf", None, {}), "combmnz": ("combmnz", None, {}),
           "combmnz + min-max": ("combmnz", "min-max", {}), "rbc": ("rbc", None, {"phi": 0.8}),
           "bordafuse": ("bordafuse", None, {})}
"""Label -> (method, normalisation, parameters)."""


def perturbed(run, seed: int):
    import rankwise as rw

    rng = np.random.default_rng(seed)
    keep = rng.random(len(run)) >= 0.1
    table = run.to_arrow().filter(keep)
    scores = table["score"].to_numpy() + rng.normal(0, 0.5, table.num_rows)
    return rw.Run.from_arrow(table["query_id"], table["doc_id"], scores, name=f"sys{seed}")


def first_queries(run, n_queries: int):
    """The rows of *run*'s first *n_queries* queries (a run grouped by query), as read.

    A new run: that its rows are in rank order is not known to it (as for a run made in
    memory), so rank-based methods check each query's order.
    """
    if n_queries <= 0 or n_queries >= len(run.query_ids):
        return run
    import rankwise as rw

    starts, _ = run.query_blocks
    table = run.to_arrow().slice(0, int(starts[n_queries]))
    return rw.Run.from_arrow(table["query_id"], table["doc_id"], table["score"].to_numpy(),
                             name=run.name)


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def reset_peak() -> float | None:
    """Resets this process's peak resident memory (Linux); its resident memory now, in MB."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        return None
    return _status_mb("VmRSS")


def time_methods(label: str, runs, labels, repeat: int, figures: dict,
                 pairs: int = 0) -> None:
    import os

    import rankwise as rw

    cpu_of = {}
    for name in labels:
        method, norm, params = METHODS[name]
        load = os.getloadavg()[0]
        resident = reset_peak()
        seconds, cpu, least = timed_cpu(repeat, lambda m=method, n=norm, p=params: rw.fuse(
            runs, m, norm=n, **p))
        peak = _status_mb("VmHWM")
        extra = None if resident is None or peak is None else peak - resident
        figures[f"{label}: {name}"] = {"wall": seconds, "cpu": cpu, "least cpu": least,
                                       "load": load, "memory above the runs MB": extra}
        cpu_of[name] = cpu, least
        memory = "" if extra is None else f"; peak {extra:.0f} MB above the runs"
        print(f"{label}, rankwise {name}: {seconds:.2f} s (best of {repeat}; CPU {cpu:.3f} s, "
              f"least CPU of the {repeat} {least:.3f} s; load average {load:.1f} before{memory})")
    if "rrf" in cpu_of and "combmnz" in cpu_of:
        ratio = cpu_of["rrf"][0] / cpu_of["combmnz"][0]
        least_ratio = cpu_of["rrf"][1] / cpu_of["combmnz"][1]
        figures[f"{label}: rrf / combmnz cpu"] = ratio
        figures[f"{label}: rrf / combmnz least cpu"] = least_ratio
        print(f"{label}: rrf / combmnz CPU {ratio:.2f}x (of the least CPU: {least_ratio:.2f}x)")
        if pairs:
            paired = paired_ratio(runs, pairs)
            figures[f"{label}: rrf / combmnz paired"] = paired
            print(f"{label}: rrf / combmnz CPU, {pairs} calls of each alternating: median "
                  f"{paired['median ratio']:.2f}x of the per-pair ratios (rounds "
                  f"{paired['low']:.2f}-{paired['high']:.2f}x); medians rrf "
                  f"{paired['rrf']:.3f} s, combmnz {paired['combmnz']:.3f} s")


def paired_ratio(runs, pairs: int) -> dict:
    """rrf and combmnz called alternately *pairs* times: the ratio of each pair's CPU times.

    The steadier figure on a shared machine: a pair's two calls are seconds apart, so a
    slow spell of the machine slows both.
    """
    import statistics

    import rankwise as rw

    rrf, combmnz = [], []
    for _ in range(pairs):
        for method, into in (("rrf", rrf), ("combmnz", combmnz)):
            cpu = time.process_time()
            rw.fuse(runs, method)
            into.append(time.process_time() - cpu)
    ratios = [a / b for a, b in zip(rrf, combmnz)]
    return {"median ratio": statistics.median(ratios), "low": min(ratios), "high": max(ratios),
            "rrf": statistics.median(rrf), "combmnz": statistics.median(combmnz)}


def best_of(repeat: int, action) -> float:
    return timed(repeat, action)[0]


def timed(repeat: int, action) -> tuple[float, float]:
    """The best wall time of *repeat* calls, and the CPU time of that call (all threads)."""
    return timed_cpu(repeat, action)[:2]


def timed_cpu(repeat: int, action) -> tuple[float, float, float]:
    """:func:`timed`, and the least CPU time of the *repeat* calls (steadier under load)."""
    times = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        action()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return (*min(times), min(cpu for _, cpu in times))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", default="/tmp/bench-data/msmarco_like.run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ranx-queries", type=int, default=0)
    parser.add_argument("--queries", type=int, default=0)
    parser.add_argument("--pairs", type=int, default=0,
                        help="also call rrf and combmnz alternately this many times each and "
                             "print the median of the per-pair CPU ratios")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    import os

    import rankwise as rw

    paths = [os.path.join(os.path.dirname(args.run), f"fusion_{seed}.run")
             for seed in range(args.runs)]
    if not all(os.path.exists(path) for path in paths):
        base = rw.read_run(args.run)
        for seed, path in enumerate(paths):
            perturbed(base, seed).to_trec(path)
    start = time.perf_counter()
    runs = [first_queries(rw.read_run(path), args.queries) for path in paths]
    print(f"read {args.runs} runs of {len(runs[0]):,} rows: {time.perf_counter() - start:.1f} s; "
          f"peak memory {peak_mb():.0f} MB")
    base = runs[0]
    figures = {"rows_per_run": len(runs[0]), "runs": args.runs, "queries": args.queries}
    time_methods("as read (rank order)", runs, args.methods, args.repeat, figures, args.pairs)
    # the same runs, perturbed in memory: scores no longer descend within each query
    source = first_queries(rw.read_run(args.run), args.queries)
    shuffled = [perturbed(source, seed) for seed in range(args.runs)]
    del source
    time_methods("not in rank order", shuffled, args.methods, args.repeat, figures,
                 args.pairs)
    del shuffled
    figures["peak memory MB"] = peak_mb()
    print(f"peak memory {peak_mb():.0f} MB")
    if args.ranx_queries:
        import ranx

        keep = set(base.query_ids[: args.ranx_queries])
        small = []
        for run in runs:
            d = {q: docs for q, docs in run.to_dict().items() if q in keep}
            small.append(d)
        ranx_runs = [ranx.Run(d, name=f"r{i}") for i, d in enumerate(small)]
        rows = sum(len(docs) for docs in small[0].values())
        for label, method, norm, rnorm in (("rrf", "rrf", None, None),
                                           ("combmnz + min-max", "combmnz", "min-max", "min-max")):
            ranx_method = "mnz" if method == "combmnz" else method
            ranx.fuse(ranx_runs, norm=rnorm, method=ranx_method)  # numba's first call compiles
            theirs = best_of(args.repeat, lambda n=rnorm, m=ranx_method: ranx.fuse(
                ranx_runs, norm=n, method=m))
            ours = best_of(args.repeat, lambda m=method, n=norm: rw.fuse(small, m, norm=n))
            figures[f"subset {label}"] = {"rows_per_run": rows, "ranx": theirs, "rankwise": ours}
            print(f"{args.ranx_queries} queries ({rows:,} rows per run), {label}: "
                  f"ranx {theirs:.2f} s, rankwise from dicts {ours:.2f} s, "
                  f"ratio {theirs / ours:.1f}x")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=2)


if __name__ == "__main__":
    main()
