"""The 7M-line run against the floor and trec_eval -O3, in CPU time (issue 40's first target).

Issue 40 asks the whole ``rankwise eval`` process on the MS MARCO-like run (7M
lines, 5 measures) to cost at most 4x the floor, ``cat run > /dev/null`` plus
``python -c pass``, and at least 20x less CPU than trec_eval built with -O3.
Each round times, in fresh processes and in this order:

- the floor: ``cat RUN`` (output to /dev/null) and ``python -c pass``, their CPU added;
- ``python -m rankwise eval --quiet QRELS RUN -m ndcg@10 -m map -m mrr@10 -m P@10
  -m recall@1000``, once per source tree (``--src``, repeatable);
- with ``--trec-eval PATH``: ``trec_eval -m ndcg_cut.10 -m map -m recip_rank -m P.10
  -m recall.1000 QRELS RUN``.

CPU is user + system of the child and all its threads (``os.wait4``); the peak
RSS is the child's. ``python`` is this interpreter (``sys.executable``), never
a launcher on PATH: a pyenv shim, say, is a shell script that costs about as
much as the interpreter's own start-up and would be added to both sides,
flattering the ratio. Prints each round, the medians, and the median of the
per-round ratios, with the load average (the ratios of one round are taken
minutes apart from no other round's: paired).

Usage (from the repository root; the data as ``gen_msmarco_like.py`` writes it)::

    python benchmarks/bench_floor.py --run RUN --qrels QRELS --repeat 9 \\
        [--trec-eval /path/to/trec_eval-O3] [--src src --src /tmp/old/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]
TREC_MEASURES = ["ndcg_cut.10", "map", "recip_rank", "P.10", "recall.1000"]


def cpu_of(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """CPU seconds (user + system, every thread) and peak RSS (MB) of one child."""
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise SystemExit(f"{' '.join(command[:4])} ... exited with {code}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True)
    parser.add_argument("--qrels", required=True)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--src", action="append", help="a rankwise source tree (repeatable)")
    parser.add_argument("--trec-eval", help="a trec_eval binary (built with -O3)")
    args = parser.parse_args()
    trees = [os.path.abspath(tree) for tree in (args.src or [os.path.join(REPO, "src")])]
    cases: list[tuple[str, list[list[str]], dict[str, str] | None]] = [
        ("floor: cat run > /dev/null; python -c pass",
         [["cat", args.run], [sys.executable, "-c", "pass"]], None)]
    for tree in trees:
        env = dict(os.environ, PYTHONPATH=tree)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # .pyc files as an installed package has
        command = [sys.executable, "-m", "rankwise", "eval", "--quiet", args.qrels, args.run]
        for measure in MEASURES:
            command += ["-m", measure]
        cases.append((f"rankwise eval ({tree})", [command], env))
    if args.trec_eval:
        command = [args.trec_eval]
        for measure in TREC_MEASURES:
            command += ["-m", measure]
        cases.append(("trec_eval", [[*command, args.qrels, args.run]], None))
    for _, commands, env in cases:  # page cache warm, .pyc files written: untimed
        for command in commands:
            if command[0] != args.trec_eval:
                cpu_of(command, env)
    rounds: list[dict[str, tuple[float, float]]] = []
    for number in range(args.repeat):
        figures = {}
        for name, commands, env in cases:
            timed = [cpu_of(command, env) for command in commands]
            figures[name] = (sum(cpu for cpu, _ in timed), max(rss for _, rss in timed))
        rounds.append(figures)
        print(f"round {number + 1}: " + ", ".join(f"{cpu:.3f}" for cpu, _ in figures.values())
              + f" s (load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"\nmedian of {args.repeat} rounds, load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores; python {sys.executable}")
    print(f"{'':76} {'CPU s':>7} {'RSS MB':>7}")
    for name, _, _ in cases:
        print(f"{name:76} {statistics.median(r[name][0] for r in rounds):7.3f} "
              f"{max(r[name][1] for r in rounds):7.0f}")
    floor = cases[0][0]
    for name, _, _ in cases[1:]:
        if name.startswith("rankwise"):
            ratios = [r[name][0] / r[floor][0] for r in rounds]
            print(f"{name}: median {statistics.median(ratios):.2f}x the floor "
                  f"(rounds {min(ratios):.2f}-{max(ratios):.2f}x; target at most 4x)")
            if args.trec_eval:
                less = [r["trec_eval"][0] / r[name][0] for r in rounds]
                print(f"  trec_eval's CPU / rankwise's: median {statistics.median(less):.1f}x "
                      f"(rounds {min(less):.1f}-{max(less):.1f}x; target at least 20x)")


if __name__ == "__main__":
    main()
