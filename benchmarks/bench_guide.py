#!/usr/bin/env python3
"""How long ``rankwise guide`` takes: on the bundled demo data and on an MS MARCO-sized run.

The large collection is the synthetic MS MARCO passage dev-like run of
``gen_msmarco_like.py`` (6,980 queries x 1,000 passages, ~7M lines) and its
qrels, generated into ``benchmarks/.data`` (or ``--data-dir``) when missing,
as ``bench_msmarco.py`` does. Each row runs in a fresh process, best of
``--repeat`` runs, and the script records the wall time of the whole process
(start-up, imports, reading, the guide, printing) and its CPU time (user +
system, from ``os.wait4``). Next to the guide it times ``rankwise eval`` of the
same files with the measures the guide suggests, so the guide's own cost is
the difference, and the ratio holds on a loaded machine too.

Run from the repository root::

    python benchmarks/bench_guide.py

The target (issue 38): the guide under 2 s on both collections.
This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SRC = os.path.join(REPO, "src")
DEMO = os.path.join(SRC, "rankwise", "demo_data")
DEFAULT_DATA_DIR = os.path.join(HERE, ".data")
DEFAULT_GENERATOR = os.path.join(REPO, "..", "shared", "bench", "gen_msmarco_like.py")
PREFIX = "msmarco_like"
TARGET_S = 2.0


def run_child(cmd: list[str]) -> dict[str, Any]:
    """Run *cmd* in a fresh process; wall seconds (fork to reap) and CPU seconds."""
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        err.seek(0)
        out.seek(0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            sys.exit(f"{' '.join(cmd)} failed ({code}):\n{err.read().decode()}")
        return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
                "stdout": out.read().decode()}


def ensure_data(data_dir: str, generator: str) -> tuple[str, str]:
    qrels = os.path.join(data_dir, PREFIX + ".qrels")
    run = os.path.join(data_dir, PREFIX + ".run")
    if os.path.isfile(qrels) and os.path.isfile(run):
        return qrels, run
    if not os.path.isfile(generator):
        sys.exit(f"data missing in {data_dir} and generator not found: {generator} "
                 "(pass --generator PATH or --data-dir DIR)")
    os.makedirs(data_dir, exist_ok=True)
    ignore = os.path.join(data_dir, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w") as f:
            f.write("# generated benchmark data: never commit\n*\n")
    print(f"generating data into {data_dir} with {generator} ...", flush=True)
    subprocess.run([sys.executable, generator, "--outdir", data_dir, "--prefix", PREFIX],
                   check=True)
    return qrels, run


def best(cmd: list[str], repeat: int) -> dict[str, Any]:
    runs = [run_child(cmd) for _ in range(repeat)]
    return {"wall_s": min(r["wall_s"] for r in runs), "cpu_s": min(r["cpu_s"] for r in runs),
            "stdout": runs[0]["stdout"]}


def measure(label: str, qrels: str, run: str, repeat: int) -> dict[str, Any]:
    """The guide, then ``rankwise eval`` of what it suggests, on the same files."""
    with open(run, "rb") as f:  # the page cache holds the files for every row alike
        while f.read(1 << 24):
            pass
    guide = best([sys.executable, "-m", "rankwise", "guide", qrels, run], repeat)
    command = guide["stdout"].rstrip().splitlines()[-1].split()
    after = command[command.index("-m") + 1:]
    measures = list(itertools.takewhile(lambda word: not word.startswith("--"), after))
    evaluate = best([sys.executable, "-m", "rankwise", "eval", qrels, run, "-m", *measures],
                    repeat)
    return {"collection": label, "guide_wall_s": guide["wall_s"], "guide_cpu_s": guide["cpu_s"],
            "eval_wall_s": evaluate["wall_s"], "eval_cpu_s": evaluate["cpu_s"],
            "ratio_wall": guide["wall_s"] / evaluate["wall_s"],
            "measures": measures, "ok": guide["wall_s"] < TARGET_S}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=DEFAULT_DATA_DIR)
    parser.add_argument("--generator", default=os.environ.get("RANKWISE_BENCH_GEN",
                                                              DEFAULT_GENERATOR))
    parser.add_argument("--repeat", type=int, default=3, help="runs per row (best is kept)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    qrels, run = ensure_data(os.path.abspath(args.data_dir), args.generator)
    rows = [measure("demo (3 queries x 500)", os.path.join(DEMO, "qrels.test"),
                    os.path.join(DEMO, "results.test"), args.repeat),
            measure("msmarco-like (6,980 x 1,000)", qrels, run, args.repeat)]
    print(f"\nrankwise guide, best of {args.repeat}, whole process (load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)\n")
    print(f"{'collection':<30} {'guide wall':>10} {'guide cpu':>10} {'eval wall':>10} "
          f"{'eval cpu':>9} {'guide/eval':>10}  target < {TARGET_S:g} s")
    for row in rows:
        print(f"{row['collection']:<30} {row['guide_wall_s']:>9.2f}s {row['guide_cpu_s']:>9.2f}s "
              f"{row['eval_wall_s']:>9.2f}s {row['eval_cpu_s']:>8.2f}s "
              f"{row['ratio_wall']:>9.2f}x  {'ok' if row['ok'] else 'MISSED'}")
    print("\neval: rankwise eval of the same files with the measures the guide suggests "
          "(reading and evaluating alone)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
