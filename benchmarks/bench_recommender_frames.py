"""Recommendation lists as a long frame (issue 40): rankwise against hand-written pandas.

    python benchmarks/bench_recommender_frames.py [--users 20000 200000 1000000]
        [--top 100] [--items 100000] [--rounds 3]

Synthetic, seeded data (the lists of benchmarks/bench_recommenders.py): USERS
users x top-TOP items as a pandas frame ``user, item, score`` (int64, int64,
float64: 24 bytes a row), rows grouped by user and ordered by score descending
as a model writes them, with ties (scores rounded to 1/64: runs of tied rows
longer than 15); 5 held-out items per user (each one of the user's list or
any item, even odds; repeats possible). Three ways to ndcg@10, P@10 and
recall@10, each in a fresh process, alternating, ROUNDS times:

- ``pandas``: :func:`pandas_metrics`, the 15 lines a user would write;
- ``frame``: ``rw.evaluate_recommendations(test, frame, measures)``;
- ``matrix``: the same lists as a 2-D int64 array of item ids (rankwise's 2-D path).

Each process prints the CPU (user + system) of the call alone, its peak RSS
(``VmHWM``, reset before the call through ``/proc/self/clear_refs``) and the
bytes of the input. Before any timing, the per-user values of ``pandas`` and
``frame`` are compared (the benchmark fails if they differ by more than 1e-12
relative: the sums run in another order). Issue 40's targets: ``frame`` at
least 3x less CPU than ``pandas`` and within 1.5x of ``matrix``; peak memory
at most 1.5x the input frame.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

MEASURES = ["ndcg@10", "P@10", "recall@10"]


def pandas_metrics(recs: Any, test: Any, k: int = 10) -> Any:
    """ndcg@k, P@k and recall@k per user, by hand: rows grouped by user, best first."""
    import pandas as pd

    top = recs.groupby("user", sort=False).head(k)
    top = top.assign(rank=top.groupby("user", sort=False).cumcount() + 1)
    truth = test.drop_duplicates()
    top = top.merge(truth.assign(hit=1.0), on=["user", "item"], how="left")
    top["hit"] = top["hit"].fillna(0.0)
    top["gain"] = top["hit"] / np.log2(top["rank"] + 1)
    per_user = top.groupby("user").agg(dcg=("gain", "sum"), hits=("hit", "sum"))
    per_user = per_user.join(truth.groupby("user").size().rename("n_rel"), how="inner")
    ideal = np.cumsum(1 / np.log2(np.arange(2, k + 2)))[np.minimum(per_user["n_rel"], k) - 1]
    return pd.DataFrame({"ndcg@10": per_user["dcg"] / ideal, "P@10": per_user["hits"] / k,
                         "recall@10": per_user["hits"] / per_user["n_rel"]})


def data(users: int, items: int, top: int) -> tuple[Any, Any, np.ndarray]:
    """The frame (grouped by user, score descending, ties), the test frame, the 2-D lists."""
    import pandas as pd
    from bench_recommenders import lists

    rng = np.random.default_rng(0)
    matrix = lists(rng, users, items, top).astype(np.int64)
    score = np.repeat(rng.random(users), top)
    score -= np.tile(np.arange(top) / top, users)
    np.round(score * 64, out=score)  # ties: runs of equal scores, some over 15 rows
    score /= 64
    frame = pd.DataFrame({"user": np.repeat(np.arange(users, dtype=np.int64), top),
                          "item": matrix.reshape(-1), "score": score}, copy=False)
    del score
    held_user = np.repeat(np.arange(users, dtype=np.int64), 5)
    listed = matrix[held_user, rng.integers(0, top, 5 * users)]  # some in the list
    held_item = np.where(rng.random(5 * users) < 0.5, listed, rng.integers(0, items, 5 * users))
    test = pd.DataFrame({"user": held_user, "item": held_item})
    return frame, test, matrix


def _peak_reset() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def _status(field: str) -> int:
    """A /proc/self/status field in bytes (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def _cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def part(name: str, users: int, items: int, top: int, out: str | None) -> dict[str, Any]:
    """One way, timed in this process: CPU, peak RSS, input bytes; values to *out*."""
    import rankwise as rw

    frame, test, matrix = data(users, items, top)
    # imports and first calls outside the timing, each way on a few rows of its own input
    rw.evaluate_recommendations(test.head(20), frame.head(400), MEASURES)
    rw.evaluate_recommendations(test.head(20), matrix[:4], MEASURES)
    pandas_metrics(frame.head(400), test.head(20))
    if name != "matrix":
        del matrix
    size = int(matrix.nbytes if name == "matrix" else
               frame.memory_usage(index=False, deep=True).sum())
    if name == "matrix":
        del frame
    rss = _status("VmRSS")
    _peak_reset()
    cpu = _cpu()
    if name == "pandas":
        values = pandas_metrics(frame, test)
        ids, per_user = values.index.to_numpy(), {m: values[m].to_numpy() for m in MEASURES}
    else:
        result = rw.evaluate_recommendations(test, frame if name == "frame" else matrix,
                                             MEASURES)
        ids, per_user = np.asarray(result.users), result.per_user
    cpu = _cpu() - cpu
    peak = _status("VmHWM")
    if out:
        np.savez(out, ids=ids, **per_user)
    return {"part": name, "cpu": cpu, "peak": peak, "before": rss, "input": size,
            "means": {m: float(np.mean(per_user[m])) for m in MEASURES}}


def _run(name: str, users: int, args: argparse.Namespace, out: str | None = None
         ) -> dict[str, Any]:
    command = [sys.executable, __file__, "--part", name, "--users", str(users),
               "--items", str(args.items), "--top", str(args.top)]
    if out:
        command += ["--out", out]
    # the parts run in this folder: a relative PYTHONPATH (PYTHONPATH=src from the
    # repository) made absolute, or they would import another rankwise
    paths = os.environ.get("PYTHONPATH", "")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        str(Path(entry).resolve()) for entry in paths.split(os.pathsep) if entry))
    done = subprocess.run(command, check=True, capture_output=True, text=True,
                          cwd=Path(__file__).parent, env=env)
    return dict(json.loads(done.stdout.splitlines()[-1]))


def _check_equal(users: int, args: argparse.Namespace) -> None:
    """The per-user values of hand-written pandas and rankwise's frame path agree."""
    with tempfile.TemporaryDirectory() as tmp:
        runs = {name: _run(name, users, args, f"{tmp}/{name}.npz") for name in ("pandas", "frame")}
        got = {name: np.load(f"{tmp}/{name}.npz") for name in runs}
        order = {name: np.argsort(got[name]["ids"]) for name in runs}
        assert np.array_equal(got["pandas"]["ids"][order["pandas"]],
                              got["frame"]["ids"][order["frame"]]), "different users"
        for m in MEASURES:
            np.testing.assert_allclose(got["frame"][m][order["frame"]],
                                       got["pandas"][m][order["pandas"]], rtol=1e-12, atol=0)
        print(f"{users:,} users: per-user {', '.join(MEASURES)} equal to pandas' "
              f"({len(order['frame']):,} users); means " + ", ".join(
                  f"{m}={runs['frame']['means'][m]:.6f}" for m in MEASURES))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, nargs="+", default=[20_000, 200_000, 1_000_000])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--top", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part", choices=["pandas", "frame", "matrix"])
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.part:
        print(json.dumps(part(args.part, args.users[0], args.items, args.top, args.out)))
        return
    for users in args.users:
        _check_equal(users, args)
        runs: dict[str, list[dict[str, Any]]] = {"pandas": [], "frame": [], "matrix": []}
        start = time.perf_counter()
        for _ in range(args.rounds):
            for name in runs:
                runs[name].append(_run(name, users, args))
        best = {name: min(r["cpu"] for r in rows) for name, rows in runs.items()}
        print(f"{users:,} users x top-{args.top} ({time.perf_counter() - start:.0f} s wall, "
              f"{args.rounds} rounds; CPU best of rounds, user + system)")
        for name, rows in runs.items():
            row = rows[0]
            each = ", ".join(f"{r['cpu']:.2f}" for r in rows)
            print(f"  {name:<7} CPU {best[name]:7.2f} s ({each})"
                  f", peak RSS {max(r['peak'] for r in rows) / 1e9:5.2f} GB "
                  f"({max(r['peak'] for r in rows) / row['input']:.2f}x the input's "
                  f"{row['input'] / 1e9:.2f} GB; RSS before the call "
                  f"{row['before'] / 1e9:.2f} GB)")
        print(f"  frame: {best['pandas'] / best['frame']:.1f}x less CPU than pandas, "
              f"{best['frame'] / best['matrix']:.2f}x the matrix path's")


if __name__ == "__main__":
    main()
