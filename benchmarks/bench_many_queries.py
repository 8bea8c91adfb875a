"""Many small queries: ``rankwise eval`` on a run of a million queries of ten documents.

A recommender's users written as a TREC run (or MS MARCO's training queries): the
costs that grow with the number of queries, not of rows. Writes, once, a
deterministic run of QUERIES queries x DOCS documents (ids ``u<n>`` and
``i<item>_<k>``, 100,000 items, scores descending) and judgments (one judged
document per query, drawn from the same items: most run documents are judged for
some query, few for their own), then times in fresh processes, interleaved,
REPEAT times each:

- ``rankwise eval --quiet qrels run -m ndcg@10 -m map -m mrr@10 -m P@10 -m recall@10``,
- the same with ``--per-query -f tsv`` (a million lines written), and with ``-f json``
  (``--format``, repeatable: any of eval's formats, e.g. ``table``, ``markdown``),

once per source tree given (``--src``; e.g. this repository's ``src`` and a copy of
an older commit's, for a paired comparison), and with ``--trec-eval PATH`` the
same measures by trec_eval on the first ``--trec-eval-queries`` queries (its cost
grows with the square of the number of queries: 76 s for 100,000 here). Prints
the median CPU time (user + system, all threads) and peak RSS of each, and the
load average. The per-query outputs of every tree are compared byte for byte.

Usage (from the repository root)::

    python benchmarks/bench_many_queries.py --repeat 3
    python benchmarks/bench_many_queries.py --src src --src /tmp/old/src --repeat 3
    python benchmarks/bench_many_queries.py --trec-eval /path/to/trec_eval \\
        --trec-eval-queries 100000
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@10"]
TREC_MEASURES = ["ndcg_cut.10", "map", "recip_rank", "P.10", "recall.10"]
ITEMS = 100_000


def write_data(folder: str, queries: int, docs: int, seed: int = 0) -> tuple[str, str]:
    """The run and judgments files (written once per size and seed, then reused)."""
    run = os.path.join(folder, f"many_{queries}x{docs}_{seed}.run")
    qrels = os.path.join(folder, f"many_{queries}x{docs}_{seed}.qrels")
    if os.path.exists(run) and os.path.exists(qrels):
        return run, qrels
    rng = np.random.default_rng(seed)
    with open(run + ".tmp", "w") as out:
        for start in range(0, queries, 10_000):
            block = min(10_000, queries - start)
            items = rng.integers(0, ITEMS, size=(block, docs))
            scores = -np.sort(-rng.random((block, docs)), axis=1)
            lines = [f"u{start + q} Q0 i{items[q, k]}_{k} {k + 1} {scores[q, k]:.6f} r\n"
                     for q in range(block) for k in range(docs)]
            out.write("".join(lines))
    os.replace(run + ".tmp", run)
    with open(qrels + ".tmp", "w") as out:
        items = rng.integers(0, ITEMS, size=queries)
        slots = rng.integers(0, docs, size=queries)
        out.write("".join(f"u{q} 0 i{items[q]}_{slots[q]} 1\n" for q in range(queries)))
    os.replace(qrels + ".tmp", qrels)
    return run, qrels


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """CPU seconds (user + system) and peak RSS (MB) of one child, and its output."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode:
            raise SystemExit(f"{command[:4]} ... exited with {child.returncode}")
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--docs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--src", action="append", help="a rankwise source tree (repeatable)")
    parser.add_argument("--data-dir", default=tempfile.gettempdir())
    parser.add_argument("--trec-eval", help="a trec_eval binary, run on the first queries")
    parser.add_argument("--trec-eval-queries", type=int, default=100_000)
    parser.add_argument("--format", action="append",
                        help="a per-query output format (repeatable; default tsv and json)")
    args = parser.parse_args()
    trees = [os.path.abspath(tree) for tree in (args.src or [os.path.join(REPO, "src")])]
    run, qrels = write_data(args.data_dir, args.queries, args.docs)
    cases: list[tuple[str, list[str], dict[str, str]]] = []
    for tree in trees:
        env = dict(os.environ, PYTHONPATH=tree)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        base = [sys.executable, "-m", "rankwise", "eval", qrels, run, "-m", *MEASURES]
        cases.append((f"eval ({tree})", [*base, "--quiet"], env))
        cases += [(f"eval --per-query -f {fmt} ({tree})", [*base, "--per-query", "-f", fmt], env)
                  for fmt in args.format or ["tsv", "json"]]
    if args.trec_eval:
        head = os.path.join(args.data_dir, f"many_head_{args.trec_eval_queries}")
        with open(run) as full, open(head + ".run", "w") as out:
            for number, line in enumerate(full):
                if number >= args.trec_eval_queries * args.docs:
                    break
                out.write(line)
        with open(qrels) as full, open(head + ".qrels", "w") as out:
            out.writelines(line for number, line in enumerate(full)
                           if number < args.trec_eval_queries)
        trec = [args.trec_eval, *[f"-m{m}" for m in TREC_MEASURES], head + ".qrels",
                head + ".run"]
        cases.append((f"trec_eval, first {args.trec_eval_queries:,} queries", trec,
                      dict(os.environ)))
    for _, command, env in cases:  # .pyc files written, page cache warm
        if "trec_eval" not in command[0]:
            timed(command, env)
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in cases}
    outputs: dict[str, set[str]] = {}
    for _ in range(args.repeat):
        for name, command, env in cases:
            cpu, rss, out = timed(command, env)
            figures[name].append((cpu, rss))
            kind = name.split(" (")[0]
            outputs.setdefault(kind, set()).add(hashlib.sha256(out).hexdigest())
    print(f"{args.queries:,} queries x {args.docs} documents; median of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'':72} {'CPU s':>7} {'RSS MB':>7}")
    for name, rows in figures.items():
        print(f"{name:72} {statistics.median(c for c, _ in rows):7.2f} "
              f"{max(r for _, r in rows):7.0f}")
    for kind, digests in outputs.items():
        if "--per-query" in kind:
            same = "the same output from every tree" if len(digests) == 1 else "OUTPUTS DIFFER"
            print(f"{kind}: {same}")


if __name__ == "__main__":
    main()
