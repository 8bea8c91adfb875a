#!/usr/bin/env python3
"""Compressed runs: rankwise on a gzip'd, zstd'd and xz'd run against the decompressor alone.

Targets (issues 15 and 40): evaluating ``run.gz`` (and the same gzip data on
standard input), ``run.zst`` and ``run.xz`` end to end costs at most the CPU
time of evaluating the plain run plus that of ``gzip -dc`` (``zstd -dc``,
``xz -dc``) alone, and at most 1.1x the decompressor's wall time (decompression
and parsing overlapped; on a busy machine the wall times follow the CPU times);
peak memory within 10% of evaluating the uncompressed run. The zstd and xz rows
need the ``zstd`` and ``xz`` tools (the zstd row also the ``zstandard`` package).

Every row is its own fresh process; the script records its wall time (fork
to ``os.wait4``), its CPU time (user + system) and its peak RSS (its own
``ru_maxrss``), best of ``--repeat`` runs for times, the largest RSS. The
rows run in turn, round after round, so a busy machine slows them alike.

Run from the repository root (no install needed)::

    python benchmarks/bench_compressed.py --data-dir /tmp/bench-data

The data (``msmarco_like.run``, 7M lines, 290 MB, and its qrels) is made by
``gen_msmarco_like.py`` when missing (``--generator``, default
``../shared/bench/gen_msmarco_like.py`` beside the repository); the compressed
files are made once with ``gzip -6``, ``zstd -3`` and ``xz -1``. This is a
benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SRC = os.path.join(REPO, "src")
DEFAULT_GENERATOR = os.path.join(REPO, "..", "shared", "bench", "gen_msmarco_like.py")
MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]

EVALUATE = (
    "import sys, rankwise as rw\n"
    "results = rw.evaluate(sys.argv[1], sys.argv[2], {measures!r})\n"
    "print(round(results.mean['map'], 6))\n"
)
READ = (
    "import sys, rankwise as rw\n"
    "run = rw.read_trec_run(sys.argv[2])\n"
    "print(len(run))\n"
)


def _child(argv: list[str], stdin_path: str | None = None) -> tuple[float, float, int, str]:
    """Run one process: wall seconds, CPU seconds, peak RSS in MiB, its output."""
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, env=env)
        out = process.stdout.read() if process.stdout else b""
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    finally:
        if stdin_path:
            stdin.close()  # type: ignore[union-attr]
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    process.returncode = 0
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, out.decode().strip()


PACKERS = {"gz": ["gzip", "-6"], "zst": ["zstd", "-q", "-3"], "xz": ["xz", "-1", "-T1"]}
TOOLS = {"gz": "gzip", "zst": "zstd", "xz": "xz"}


def _data(args: argparse.Namespace) -> tuple[str, str, dict[str, str]]:
    qrels = os.path.join(args.data_dir, "msmarco_like.qrels")
    run = os.path.join(args.data_dir, "msmarco_like.run")
    if not (os.path.exists(qrels) and os.path.exists(run)):
        os.makedirs(args.data_dir, exist_ok=True)
        subprocess.run([sys.executable, args.generator, "--outdir", args.data_dir], check=True)
    packed = {}
    for suffix, packer in PACKERS.items():
        if shutil.which(packer[0]) is None or (suffix == "zst" and not _has("zstandard")):
            continue
        path = f"{run}.{suffix}"
        if not os.path.exists(path):
            # the run's real path (zstd skips a symbolic link), written whole or not at all
            partial = f"{path}.partial"
            with open(partial, "wb") as out:
                subprocess.run([*packer, "-c", os.path.realpath(run)], stdout=out, check=True)
            os.replace(partial, path)
        packed[suffix] = path
    return qrels, run, packed


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=os.path.join(HERE, ".data"))
    parser.add_argument("--generator", default=os.environ.get("RANKWISE_BENCH_GEN",
                                                               DEFAULT_GENERATOR))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if shutil.which("gzip") is None:
        raise SystemExit("gzip is needed")
    qrels, run, packed = _data(args)
    evaluate = [sys.executable, "-c", EVALUATE.format(measures=MEASURES), qrels]
    read = [sys.executable, "-c", READ, qrels]
    rows: dict[str, tuple[list[str], str | None]] = {
        "rankwise evaluate run": ([*evaluate, run], None),
        "rankwise read run": ([*read, run], None),
    }
    for suffix, path in packed.items():
        tool = TOOLS[suffix]
        rows[f"{tool} -dc run.{suffix} > /dev/null"] = (
            ["sh", "-c", f"{tool} -dc '{path}' > /dev/null"], None)
        rows[f"rankwise evaluate run.{suffix}"] = ([*evaluate, path], None)
        if suffix == "gz":
            rows["rankwise evaluate - < run.gz"] = ([*evaluate, "-"], path)
            rows["rankwise read run.gz"] = ([*read, path], None)
    best: dict[str, list[float]] = {name: [float("inf"), float("inf"), 0.0] for name in rows}
    outputs: dict[str, set[str]] = {name: set() for name in rows}
    for _ in range(args.repeat):
        for name, (argv, stdin) in rows.items():
            wall, cpu, rss, out = _child(argv, stdin)
            record = best[name]
            record[0], record[1], record[2] = min(record[0], wall), min(record[1], cpu), max(
                record[2], rss)
            outputs[name].add(out)
    plain_cpu, plain_rss = best["rankwise evaluate run"][1:]
    sizes = ", ".join(f"run.{suffix}: {os.path.getsize(path) / 1e6:.0f} MB"
                      for suffix, path in packed.items())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
          f", best of {args.repeat}; run: {os.path.getsize(run) / 1e6:.0f} MB, {sizes}")
    print(f"{'':32} {'wall s':>7} {'cpu s':>7} {'RSS MiB':>8} {'/ plain':>8}")
    for name, (wall, cpu, peak) in best.items():
        print(f"{name:32} {wall:7.2f} {cpu:7.2f} {peak:8.0f} "
              f"{peak / plain_rss if peak else 0:8.2f}")
    print(f"{'':32} {'wall / tool':>11} {'cpu s':>7} {'plain + tool':>12}")
    for suffix in packed:
        alone = best[f"{TOOLS[suffix]} -dc run.{suffix} > /dev/null"]
        wall, cpu, _ = best[f"rankwise evaluate run.{suffix}"]
        print(f"{'rankwise evaluate run.' + suffix:32} {wall / alone[0]:11.2f} {cpu:7.2f} "
              f"{plain_cpu + alone[1]:12.2f}")
    means = set().union(*(outputs[name] for name in rows if name.startswith("rankwise evaluate")))
    print(f"map of the evaluate rows: {sorted(means)} (one value: they agree)")
    print("targets: cpu <= plain + tool; wall / tool <= 1.1; RSS / plain <= 1.10")


if __name__ == "__main__":
    main()
