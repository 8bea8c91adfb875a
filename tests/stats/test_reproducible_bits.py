"""Same seed, same bits: whatever the order of the runs, BLAS's thread count or the chunk.

Regression tests for issue 13, items 14 (a drawn seed is short and reproduces
the result when passed back) and 34 (bootstrap intervals differed in the last
bit with the order of the runs or the thread count).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import rankwise as rw
from rankwise.stats.resampling import bootstrap_sums, count_sums, exact_pieces

from .conftest import make_collection

MEASURES = ["ndcg@10", "map", "P@5"]
ROOT = Path(__file__).resolve().parents[2]


def _bits(comparison: rw.Comparison) -> dict[tuple[str, str, str], list[str]]:
    out = {}
    for row in comparison.rows:
        if row.baseline is None:
            continue
        out[(row.measure, row.system, row.baseline)] = [
            float(v).hex() for v in (row.ci_low, row.ci_high, row.delta_ci_low,
                                     row.delta_ci_high, row.p_value)
        ]
    return out


def test_all_pairs_bootstrap_intervals_are_exact_negations_whatever_the_order() -> None:
    qrels, runs = make_collection(n_queries=150, systems=("a", "b", "c"))
    kwargs = dict(ci="bootstrap", seed=5, n_resamples=1500)
    forward = rw.compare(qrels, runs, MEASURES, **kwargs)
    backward = rw.compare(qrels, dict(reversed(list(runs.items()))), MEASURES, **kwargs)
    for row in forward.rows:
        if row.baseline is None:
            continue
        other = backward.row(row.measure, row.baseline, row.system)
        assert other.delta_ci_low == -row.delta_ci_high
        assert other.delta_ci_high == -row.delta_ci_low
        assert other.delta == -row.delta
        assert other.p_value == row.p_value
        # the mean interval of a system is the same whichever pair computed it
        assert other.baseline_mean == row.mean


def test_baseline_bootstrap_intervals_do_not_depend_on_the_order() -> None:
    qrels, runs = make_collection(n_queries=120, systems=("a", "b", "c"))
    kwargs = dict(ci="bootstrap", seed=9, n_resamples=1000, baseline="b", test="bootstrap")
    forward = rw.compare(qrels, runs, MEASURES, **kwargs)
    backward = rw.compare(qrels, dict(reversed(list(runs.items()))), MEASURES, **kwargs)
    assert _bits(forward) == _bits(backward)


_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
from stats.conftest import make_collection
import rankwise as rw
qrels, runs = make_collection(n_queries=300, systems=("a", "b", "c"))
result = rw.compare(qrels, runs, ["ndcg@10", "map", "P@5"], ci="bootstrap", seed=5,
                    n_resamples=2000, test="bootstrap")
print(json.dumps([[float(v).hex() for v in (r.ci_low, r.ci_high, r.delta_ci_low,
                   r.delta_ci_high, r.p_value)] for r in result.rows]))
"""


def test_bootstrap_intervals_do_not_depend_on_blas_threads() -> None:
    outputs = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads,
                   MKL_NUM_THREADS=threads)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
        out = subprocess.run([sys.executable, "-c", _SCRIPT.format(tests=str(ROOT / "tests"))],
                             capture_output=True, text=True, check=True, env=env)
        outputs.append(json.loads(out.stdout))
    assert outputs[0] == outputs[1]


def test_bootstrap_sums_are_exact_per_column_and_chunk() -> None:
    rng = np.random.default_rng(4)
    values = np.column_stack([rng.random(257), rng.normal(0, 1e-3, 257), rng.random(257) * 1e6,
                              np.zeros(257), rng.integers(0, 3, 257).astype(float)])
    whole = bootstrap_sums(values, 300, seed=2)
    np.testing.assert_array_equal(whole, bootstrap_sums(values, 300, seed=2, chunk_size=1000))
    for j in range(values.shape[1]):  # a column's sums do not depend on the others
        alone = bootstrap_sums(values[:, [j]], 300, seed=2)[:, 0]
        np.testing.assert_array_equal(whole[:, j], alone)
    # and they are the sums, to the last bits (fsum is correctly rounded)
    import math

    counts = rng.integers(0, 4, size=(20, 257)).astype(float)
    exact = np.array([[math.fsum(np.repeat(values[:, j], c.astype(int)))
                       for j in range(values.shape[1])] for c in counts])
    np.testing.assert_allclose(count_sums(counts, exact_pieces(values, 4 * 257)), exact,
                               rtol=1.2e-16, atol=1e-300)


def test_a_drawn_seed_is_short_and_reproduces_the_result() -> None:
    qrels, runs = make_collection(n_queries=60)
    first = rw.compare(qrels, runs, MEASURES, baseline="bm25", ci="bootstrap",
                       n_resamples=500)
    assert 0 <= first.seed < 2**32
    assert f"seed {first.seed})" in first.legend and len(str(first.seed)) <= 10
    again = rw.compare(qrels, runs, MEASURES, baseline="bm25", ci="bootstrap",
                       n_resamples=500, seed=first.seed)
    assert _bits(again) == _bits(first)


def test_cli_prints_a_short_seed(tmp_path: Path) -> None:
    from rankwise.cli import main

    qrels, runs = make_collection(n_queries=20, systems=("a", "b"))
    qrels_path = tmp_path / "q.txt"
    qrels.to_trec(qrels_path)
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        run.to_trec(path)
        paths.append(str(path))
    out = tmp_path / "out.json"
    assert main(["compare", str(qrels_path), *paths, "-m", "map", "--test", "bootstrap",
                 "-f", "json", "-o", str(out), "--quiet"]) == 0
    drawn = json.loads(out.read_text())["seed"]
    assert 0 <= drawn < 2**32
