"""Start-up cost of ``rankwise eval`` on small data (issue 13, item 21), and of a first
``rw.evaluate`` on dicts in a fresh process (issue 40).

Runs, interleaved and REPEAT times each, in fresh processes:

- ``python -c pass`` (the interpreter and its site packages),
- ``python -c "import numpy"`` (the floor of any numpy program),
- ``rankwise --help`` (``python -m rankwise --help``), once per source tree given,
- ``rankwise eval`` of the bundled demo data (3 queries, 1,500 run lines),
  once per source tree given (``--src``, default ``src`` of this repository),
- the first evaluation of 1,000 x 100 dicts (``bench_python_inputs.make_dicts``:
  1,000 queries of 100 scored documents, 1-30 judgments each; measures
  ndcg_cut.10, recall.100, map, recip_rank, P.10): ``import pytrec_eval`` +
  ``RelevanceEvaluator(qrels, measures).evaluate(run)``, against ``import
  rankwise`` + ``rw.evaluate(qrels, run, measures)`` per source tree. The child
  loads the dicts from a pickle (untimed, numpy not imported) and reports the
  CPU time from before the import to after the evaluation (``first eval CPU``),
  imports included; the whole process is timed as for the other cases,

and prints the median wall time and CPU time (user + system) of each. On a
loaded machine the wall time measures the load; the CPU time is steadier, and
the difference to ``import numpy`` is rankwise's own share.

Usage (from the repository root)::

    python benchmarks/bench_startup.py --repeat 15
    python benchmarks/bench_startup.py --src src --src /path/to/other/src   # compare two trees
    python benchmarks/bench_startup.py --repeat 20 --no-demo   # the dict case alone
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


DICT_MEASURES = ["ndcg_cut.10", "recall.100", "map", "recip_rank", "P.10"]

FIRST_EVALUATION = f"""
import pickle, resource, sys
with open(sys.argv[2], "rb") as stored:
    qrels, run = pickle.load(stored)
measures = {DICT_MEASURES!r}
def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
start = cpu()
if sys.argv[1] == "pytrec_eval":
    import pytrec_eval
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    found = len(per_query)
else:
    import rankwise as rw
    found = rw.evaluate(qrels, run, measures).n_queries
print(f"{{cpu() - start:.6f}} {{found}}")
"""
"""A child's script: the dicts read untimed, then the import and first evaluation timed."""


def _one(command: list[str], env: dict[str, str]) -> tuple[float, float, float | None]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    words = done.stdout.split()
    inside = float(words[0]) if command[1:2] == ["-c"] and command[2] == FIRST_EVALUATION \
        else None
    return wall, cpu, inside


def _dicts_file() -> str:
    """The 1,000 x 100 dicts, pickled once (made with numpy, read back without it)."""
    import pickle
    import tempfile

    sys.path.insert(0, HERE)
    from bench_python_inputs import make_dicts

    path = os.path.join(tempfile.gettempdir(), "rankwise_bench_dicts_1000x100.pickle")
    if not os.path.exists(path):
        with open(path, "wb") as out:
            pickle.dump(make_dicts(1_000, 100, seed=0), out)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--src", action="append", default=None,
                        help="a source tree to time (repeatable; default src of this repository)")
    parser.add_argument("--no-demo", action="store_true", help="leave out rankwise eval demo")
    parser.add_argument("--no-dicts", action="store_true", help="leave out the dict case")
    args = parser.parse_args()
    trees = args.src or [os.path.join(REPO, "src")]
    data = os.path.join(trees[0], "rankwise", "demo_data")
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cases: list[tuple[str, list[str], dict[str, str]]] = [
        ("python -c pass", [sys.executable, "-c", "pass"], base_env),
        ("python -c 'import numpy'", [sys.executable, "-c", "import numpy"], base_env),
    ]
    for tree in trees:
        cases.append((f"rankwise --help ({tree})", [sys.executable, "-m", "rankwise", "--help"],
                      {**base_env, "PYTHONPATH": os.path.abspath(tree)}))
    for tree in trees if not args.no_demo else []:
        command = [sys.executable, "-m", "rankwise", "eval", os.path.join(data, "qrels.test"),
                   os.path.join(data, "results.test"), "-m", "map", "ndcg@10", "P@10"]
        cases.append((f"rankwise eval demo ({tree})", command,
                      {**base_env, "PYTHONPATH": os.path.abspath(tree)}))
    if not args.no_dicts:
        dicts = _dicts_file()
        cases.append(("pytrec_eval first eval, 1,000 x 100 dicts",
                      [sys.executable, "-c", FIRST_EVALUATION, "pytrec_eval", dicts], base_env))
        for tree in trees:
            cases.append((f"rw.evaluate first call, 1,000 x 100 dicts ({tree})",
                          [sys.executable, "-c", FIRST_EVALUATION, "rankwise", dicts],
                          {**base_env, "PYTHONPATH": os.path.abspath(tree)}))
    times: dict[str, list[tuple[float, float, float | None]]] = {name: [] for name, _, _ in cases}
    for _ in range(args.repeat):
        for name, command, env in cases:
            times[name].append(_one(command, env))
    print(f"{'':<72} {'wall (s)':>9} {'CPU (s)':>9} {'first eval CPU':>15}   median of "
          f"{args.repeat}")
    firsts = {}
    for name, values in times.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        inside = [v[2] for v in values if v[2] is not None]
        first = statistics.median(inside) if inside else None
        shown = f"{first:15.3f}" if first is not None else ""
        print(f"{name:<72} {wall:9.3f} {cpu:9.3f} {shown}")
        if first is not None:
            firsts[name] = first
    floor = statistics.median(v[1] for v in times["python -c pass"])
    for name, values in times.items():
        if name.startswith("rankwise --help"):
            cpu = statistics.median(v[1] for v in values)
            print(f"{name}: {cpu / floor:.2f}x the CPU of python -c pass (issue 40: at most 2x)")
    peer = next((value for name, value in firsts.items() if name.startswith("pytrec_eval")), None)
    for name, value in firsts.items():
        if peer is not None and not name.startswith("pytrec_eval"):
            print(f"pytrec_eval / rankwise, first evaluation CPU: {peer / value:.2f}x  ({name})")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
