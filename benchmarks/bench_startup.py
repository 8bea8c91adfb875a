"""Start-up cost of ``rankwise eval`` on small data (issue 13, item 21).

Runs, interleaved and REPEAT times each, in fresh processes:

- ``python -c pass`` (the interpreter and its site packages),
- ``python -c "import numpy"`` (the floor of any numpy program),
- ``rankwise eval`` of the bundled demo data (3 queries, 1,500 run lines),
  once per source tree given (``--src``, default ``src`` of this repository),

and prints the median wall time and CPU time (user + system) of each. On a
loaded machine the wall time measures the load; the CPU time is steadier, and
the difference to ``import numpy`` is rankwise's own share.

Usage (from the repository root)::

    python benchmarks/bench_startup.py --repeat 15
    python benchmarks/bench_startup.py --src src --src /path/to/other/src   # compare two trees
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def _one(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--src", action="append", default=None,
                        help="a source tree to time (repeatable; default src of this repository)")
    args = parser.parse_args()
    trees = args.src or [os.path.join(REPO, "src")]
    data = os.path.join(trees[0], "rankwise", "demo_data")
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cases: list[tuple[str, list[str], dict[str, str]]] = [
        ("python -c pass", [sys.executable, "-c", "pass"], base_env),
        ("python -c 'import numpy'", [sys.executable, "-c", "import numpy"], base_env),
    ]
    for tree in trees:
        command = [sys.executable, "-m", "rankwise", "eval", os.path.join(data, "qrels.test"),
                   os.path.join(data, "results.test"), "-m", "map", "ndcg@10", "P@10"]
        cases.append((f"rankwise eval demo ({tree})", command,
                      {**base_env, "PYTHONPATH": os.path.abspath(tree)}))
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in cases}
    for _ in range(args.repeat):
        for name, command, env in cases:
            times[name].append(_one(command, env))
    print(f"{'':<60} {'wall (s)':>9} {'CPU (s)':>9}   median of {args.repeat}")
    for name, values in times.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        print(f"{name:<60} {wall:9.3f} {cpu:9.3f}")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
