#!/usr/bin/env python3
"""Benchmark rankwise against trec_eval, pytrec_eval and ranx on MS MARCO-sized data.

The data is a synthetic MS MARCO passage dev-like run (6,980 queries x 1,000
passages = ~7M run lines) and its qrels, made by ``gen_msmarco_like.py``
(deterministic); it is generated into ``benchmarks/.data`` (or ``--data-dir``)
when missing.  Every tool computes ndcg@10, map, mrr@10, P@10 and recall@1000
together, each in its own fresh process, and the script records the wall time
of the whole process and its peak RSS (``ru_maxrss`` of that child, read with
``os.wait4``).  See ``benchmarks/README.md``.

Run from the repository root::

    python benchmarks/bench_msmarco.py --trec-eval /path/to/trec_eval

This is a benchmark, not a test: nothing here is meant to be imported by pytest.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SRC = os.path.join(REPO, "src")
DEFAULT_DATA_DIR = os.path.join(HERE, ".data")
DEFAULT_GENERATOR = os.path.join(REPO, "..", "shared", "bench", "gen_msmarco_like.py")
PREFIX = "msmarco_like"
RESULT_TAG = "@@RESULT "

RW_MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]
# untimed, for the cross-check only (computed in the "evaluation alone" process)
RW_EXTRA_MEASURES = ["ndcg@10(gain=linear)", "mrr"]
TREC_EVAL_MEASURES = ["ndcg_cut.10", "map", "recip_rank", "P.10", "recall.1000"]
RANX_METRICS = ["ndcg@10", "map", "mrr@10", "precision@10", "recall@1000"]

TOOLS = ["trec_eval", "pytrec_eval", "ranx", "rankwise", "rankwise-eval", "rankwise-cli"]
PEERS = {"trec_eval", "pytrec_eval", "ranx"}

# ---------------------------------------------------------------------------
# child programs: what a user would write; each prints RESULT_TAG + json of means
# ---------------------------------------------------------------------------

PYTREC_EVAL_CODE = r"""
import json, sys
import pytrec_eval
qrels_path, run_path = sys.argv[1], sys.argv[2]
if hasattr(pytrec_eval, "parse_qrel") and hasattr(pytrec_eval, "parse_run"):
    with open(qrels_path) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
else:
    qrel, run = {}, {}
    with open(qrels_path) as f:
        for line in f:
            q, _, d, r = line.split()
            qrel.setdefault(q, {})[d] = int(r)
    with open(run_path) as f:
        for line in f:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
evaluator = pytrec_eval.RelevanceEvaluator(
    qrel, {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.1000"})
per_query = evaluator.evaluate(run)
names = ["ndcg_cut_10", "map", "recip_rank", "P_10", "recall_1000"]
n = len(per_query)
means = {m: sum(v[m] for v in per_query.values()) / n for m in names}
print("@@RESULT " + json.dumps({"means": means, "queries": n}))
"""

RANX_CODE = r"""
import json, sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
means = evaluate(qrels, run, ["ndcg@10", "map", "mrr@10", "precision@10", "recall@1000"])
print("@@RESULT " + json.dumps({"means": {k: float(v) for k, v in means.items()}}))
"""

RANKWISE_CODE = r"""
import json, sys
import rankwise as rw
results = rw.evaluate(sys.argv[1], sys.argv[2], ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"])
print(results.mean)
print("@@RESULT " + json.dumps({"means": results.mean, "queries": len(results.query_ids),
                                "version": rw.__version__}))
"""

RANKWISE_EVAL_CODE = r"""
import json, sys, time
t0 = time.perf_counter()
import rankwise as rw
t1 = time.perf_counter()
qrels = rw.read_qrels(sys.argv[1])
t2 = time.perf_counter()
run = rw.read_run(sys.argv[2])
t3 = time.perf_counter()
measures = json.loads(sys.argv[3])
extra = json.loads(sys.argv[4])
repeat = int(sys.argv[5])
results = rw.evaluate(qrels, run, measures)  # warm-up
t4 = time.perf_counter()
times = []
for _ in range(repeat):
    t = time.perf_counter()
    results = rw.evaluate(qrels, run, measures)
    times.append(time.perf_counter() - t)
extra_means = rw.evaluate(qrels, run, extra).mean if extra else {}  # untimed cross-check
from rankwise.io import _fast
from rankwise.ranking import _join
c_modules = _fast.available() and _join._native() is not None
print("@@RESULT " + json.dumps({
    "c_modules": c_modules,
    "means": results.mean, "extra_means": extra_means, "queries": len(results.query_ids),
    "import_s": t1 - t0, "read_qrels_s": t2 - t1, "read_run_s": t3 - t2,
    "load_s": t3 - t1, "warmup_eval_s": t4 - t3, "eval_times_s": times,
    "eval_best_s": min(times), "version": rw.__version__}))
"""


# ---------------------------------------------------------------------------
# running a child: wall time of the whole process and its peak RSS
# ---------------------------------------------------------------------------


def maxrss_mib(ru_maxrss: int) -> float:
    """ru_maxrss is in KiB on Linux and the BSDs, in bytes on macOS."""
    if sys.platform == "darwin":
        return ru_maxrss / (1024 * 1024)
    return ru_maxrss / 1024


def run_child(cmd: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Run *cmd*; return wall seconds, peak RSS (MiB), exit code, stdout, stderr.

    Wall time runs from just before the fork to the moment ``os.wait4`` reaps
    the child; the peak RSS is the child's own ``ru_maxrss`` from ``wait4``
    (not RUSAGE_CHILDREN of this process, which is a maximum over all children).
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        killed = []

        def kill() -> None:
            killed.append(True)
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return {
        "wall_s": wall,
        "peak_rss_mib": maxrss_mib(usage.ru_maxrss),
        "user_s": usage.ru_utime,
        "sys_s": usage.ru_stime,
        "returncode": proc.returncode,
        "timed_out": bool(killed),
        "stdout": stdout,
        "stderr": stderr,
    }


def tagged_result(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG) :])
    return None


def parse_trec_eval(stdout: str) -> dict[str, float]:
    means = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            value = _float(parts[2])
            if value is not None:
                means[parts[0]] = value
    return means


def _float(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_cli_output(stdout: str, wanted: list[str]) -> dict[str, float]:
    """Best-effort reading of the rankwise CLI's means (its format is not fixed yet).

    Accepts JSON (``{measure: value}``, possibly nested under "mean"/"means"),
    trec_eval-like lines (``measure [all] value``) and a header row of measure
    names followed (maybe after a rule such as ``-----``) by a row of values.
    """
    text = stdout.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for key in ("mean", "means"):
                if isinstance(data.get(key), dict):
                    data = data[key]
            found = {
                k: float(v) for k, v in data.items() if k in wanted and isinstance(v, (int, float))
            }
            if found:
                return found
    lines = [line.replace("|", " ").replace(",", " ").split() for line in text.splitlines()]
    means: dict[str, float] = {}
    for parts in lines:
        if parts and parts[0] in wanted and len(parts) >= 2:
            value = _float(parts[-1])
            if value is not None:
                means[parts[0]] = value
    if means:
        return means
    for i, parts in enumerate(lines):
        names = [p for p in parts if p in wanted]
        if len(names) < 2:
            continue
        for below in lines[i + 1 :]:  # first row below the header with enough numbers
            values = [v for v in (_float(p) for p in below) if v is not None]
            if len(values) >= len(names):
                return dict(zip(names, values[-len(names) :], strict=True))
    return means


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def ensure_data(args: argparse.Namespace) -> tuple[str, str]:
    if args.qrels or args.run:
        if not (args.qrels and args.run):
            sys.exit("give both --qrels and --run, or neither")
        for path in (args.qrels, args.run):
            if not os.path.isfile(path):
                sys.exit(f"no such file: {path}")
        return os.path.abspath(args.qrels), os.path.abspath(args.run)
    data_dir = os.path.abspath(args.data_dir)
    qrels = os.path.join(data_dir, PREFIX + ".qrels")
    run = os.path.join(data_dir, PREFIX + ".run")
    if os.path.isfile(qrels) and os.path.isfile(run):
        return qrels, run
    generator = args.generator
    if not os.path.isfile(generator):
        sys.exit(
            f"data missing in {data_dir} and generator not found: {generator}\n"
            "(pass --generator PATH, set RANKWISE_BENCH_GEN, or give --qrels/--run)"
        )
    os.makedirs(data_dir, exist_ok=True)
    ignore = os.path.join(data_dir, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w") as f:
            f.write("# generated benchmark data: never commit\n*\n")
    print(f"generating data into {data_dir} with {generator} ...", flush=True)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, generator, "--outdir", data_dir, "--prefix", PREFIX], check=True
    )
    print(f"generated in {time.perf_counter() - start:.1f} s", flush=True)
    return qrels, run


def prime_page_cache(*paths: str) -> None:
    """Read the files once so that no tool pays for the first read from disk."""
    for path in paths:
        with open(path, "rb") as f:
            while f.read(1 << 24):
                pass


# ---------------------------------------------------------------------------
# the tools
# ---------------------------------------------------------------------------


def find_trec_eval(option: str | None) -> str | None:
    path = option or os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if path and os.path.isfile(path) and os.access(path, os.X_OK):
        return os.path.abspath(path)
    return None


def trec_eval_command(exe: str, qrels: str, run: str) -> dict[str, Any]:
    cmd = [exe]
    for m in TREC_EVAL_MEASURES:
        cmd += ["-m", m]
    return {"cmd": [*cmd, qrels, run], "parse": "trec_eval", "note": exe}


def rankwise_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def describe_failure(res: dict[str, Any]) -> str:
    if res.get("timed_out"):
        return "timed out"
    lines = (res.get("stderr") or res.get("stdout") or "").strip().splitlines()
    return f"exit code {res['returncode']}: " + (lines[-1].strip() if lines else "no output")


def plan(args: argparse.Namespace, qrels: str, run: str) -> list[dict[str, Any]]:
    """One entry per benchmark row: how to build the command for each repetition."""
    py = args.python
    rows: list[dict[str, Any]] = []
    want = set(args.only)
    if "trec_eval" in want:
        exe = find_trec_eval(args.trec_eval)
        row: dict[str, Any] = {"tool": "trec_eval", "label": "trec_eval (C reference)"}
        if exe is None:
            row["skip"] = (
                "not found: pass --trec-eval PATH or set TREC_EVAL "
                f"(given: {args.trec_eval or os.environ.get('TREC_EVAL')})"
            )
        else:
            row.update(trec_eval_command(exe, qrels, run))
        rows.append(row)
        if args.trec_eval_o3:
            exe = find_trec_eval(args.trec_eval_o3)
            row = {"tool": "trec_eval", "label": "trec_eval -O3 (C reference)"}
            if exe is None:
                row["skip"] = f"not an executable: {args.trec_eval_o3}"
            else:
                row.update(trec_eval_command(exe, qrels, run))
            rows.append(row)
    if "pytrec_eval" in want:
        rows.append(
            {
                "tool": "pytrec_eval",
                "label": "pytrec_eval",
                "cmd": [py, "-c", PYTREC_EVAL_CODE, qrels, run],
            }
        )
    if "ranx" in want:
        # numba caches ranx's compiled kernels (cache=True); a fresh NUMBA_CACHE_DIR gives the
        # first run a user ever makes (compiles), the same dir afterwards every later run.
        rows.append(
            {
                "tool": "ranx",
                "label": "ranx (cold numba cache)",
                "numba": "cold",
                "cmd": [py, "-c", RANX_CODE, qrels, run],
            }
        )
        rows.append(
            {
                "tool": "ranx",
                "label": "ranx (warm numba cache)",
                "numba": "warm",
                "cmd": [py, "-c", RANX_CODE, qrels, run],
            }
        )
    if "rankwise" in want:
        rows.append(
            {
                "tool": "rankwise",
                "label": "rankwise rw.evaluate(paths)",
                "cmd": [py, "-c", RANKWISE_CODE, qrels, run],
                "env": "rankwise",
            }
        )
    if "rankwise-eval" in want:
        rows.append(
            {
                "tool": "rankwise-eval",
                "label": "rankwise load + eval (1 process)",
                "cmd": [
                    py,
                    "-c",
                    RANKWISE_EVAL_CODE,
                    qrels,
                    run,
                    json.dumps(RW_MEASURES),
                    json.dumps(RW_EXTRA_MEASURES),
                    str(args.inner_repeat),
                ],
                "env": "rankwise",
            }
        )
    if "rankwise-cli" in want:
        row = {
            "tool": "rankwise-cli",
            "label": "rankwise CLI (python -m rankwise eval)",
            "cmd": [py, "-m", "rankwise", "eval", qrels, run, "-m", *RW_MEASURES],
            "env": "rankwise",
            "parse": "cli",
        }
        pkg = os.path.join(SRC, "rankwise")
        if not (
            os.path.exists(os.path.join(pkg, "cli.py")) or os.path.isdir(os.path.join(pkg, "cli"))
        ):
            row["skip"] = "not available (no rankwise.cli in src/rankwise yet)"
        elif not os.path.exists(os.path.join(pkg, "__main__.py")):
            row["skip"] = "not available (no rankwise/__main__.py: python -m rankwise fails)"
        rows.append(row)
    return rows


def execute(row: dict[str, Any], repeat: int, timeout: float, scratch: str) -> None:
    row["runs"] = []
    if "skip" in row:
        print(f"  {row['label']}: skipped: {row['skip']}", flush=True)
        return
    base_env = rankwise_env() if row.get("env") == "rankwise" else dict(os.environ)
    for i in range(repeat):
        env = dict(base_env)
        if row.get("numba") == "cold":
            # every cold run gets an empty cache; the first one's is kept for the warm runs
            warm_dir = os.path.join(scratch, "numba-warm")
            if os.path.isdir(warm_dir):
                env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cold-", dir=scratch)
            else:
                os.makedirs(warm_dir)
                env["NUMBA_CACHE_DIR"] = warm_dir
        elif row.get("numba") == "warm":
            warm_dir = os.path.join(scratch, "numba-warm")
            env["NUMBA_CACHE_DIR"] = warm_dir
            if i == 0 and not (os.path.isdir(warm_dir) and os.listdir(warm_dir)):
                # fill the cache once (untimed) so that every timed run finds it
                print("  ranx: filling the numba cache (untimed run) ...", flush=True)
                fill = run_child(row["cmd"], env, timeout)
                if fill["returncode"] != 0:
                    row["error"] = describe_failure(fill)
                    print(f"  {row['label']}: FAILED: {row['error']}", flush=True)
                    return
        res = run_child(row["cmd"], env, timeout)
        if res["returncode"] != 0:
            row["error"] = describe_failure(res)
            if row["tool"] == "rankwise-cli":
                row["error"] = "not available (" + row["error"] + ")"
            print(f"  {row['label']}: FAILED: {row['error']}", flush=True)
            return
        if row.get("parse") == "trec_eval":
            payload: dict[str, Any] = {"means": parse_trec_eval(res["stdout"])}
        elif row.get("parse") == "cli":
            payload = {"means": parse_cli_output(res["stdout"], RW_MEASURES)}
            if not payload["means"]:
                row["cli_stdout_head"] = res["stdout"][:500]
        else:
            payload = tagged_result(res["stdout"]) or {}
            if "means" not in payload:
                row["error"] = "no result printed: " + describe_failure(res)
                print(f"  {row['label']}: FAILED: {row['error']}", flush=True)
                return
        res.pop("stdout")
        stderr = res.pop("stderr").strip()
        if stderr:
            res["stderr_tail"] = stderr.splitlines()[-3:]
        res.update(payload)
        row["runs"].append(res)
        extra = ""
        if "eval_best_s" in payload:
            n = len(payload["eval_times_s"])
            extra = (
                f"  [load {payload['load_s']:.3f} s, first eval "
                f"{payload['warmup_eval_s']:.3f} s, eval best of {n}"
                f" {payload['eval_best_s']:.3f} s]"
            )
        print(
            f"  {row['label']}: run {i + 1}/{repeat}: {res['wall_s']:.3f} s, "
            f"{res['peak_rss_mib']:.0f} MB{extra}",
            flush=True,
        )


def summarise(row: dict[str, Any]) -> None:
    runs = row.get("runs") or []
    if not runs:
        return
    best = min(runs, key=lambda r: r["wall_s"])
    row["wall_best_s"] = best["wall_s"]
    row["wall_all_s"] = [r["wall_s"] for r in runs]
    row["peak_rss_max_mib"] = max(r["peak_rss_mib"] for r in runs)
    row["means"] = best.get("means", {})
    if "eval_best_s" in best:
        row["eval_best_s"] = min(r["eval_best_s"] for r in runs)
        row["load_best_s"] = min(r["load_s"] for r in runs)
        row["read_qrels_best_s"] = min(r["read_qrels_s"] for r in runs)
        row["read_run_best_s"] = min(r["read_run_s"] for r in runs)
        row["import_best_s"] = min(r["import_s"] for r in runs)
        row["warmup_eval_best_s"] = min(r["warmup_eval_s"] for r in runs)
        row["extra_means"] = best.get("extra_means", {})
        row["c_modules"] = best.get("c_modules")


# ---------------------------------------------------------------------------
# reporting
# ---------------------------------------------------------------------------

# cross-check rows: (label, required to agree?, {row label prefix: measure key})
CROSS = [
    (
        "map",
        True,
        {
            "trec_eval": "map",
            "pytrec_eval": "map",
            "ranx (warm": "map",
            "ranx (cold": "map",
            "rankwise rw": "map",
            "rankwise load": "map",
            "rankwise CLI": "map",
        },
    ),
    (
        "P@10",
        True,
        {
            "trec_eval": "P_10",
            "pytrec_eval": "P_10",
            "ranx (warm": "precision@10",
            "ranx (cold": "precision@10",
            "rankwise rw": "P@10",
            "rankwise load": "P@10",
            "rankwise CLI": "P@10",
        },
    ),
    (
        "recall@1000",
        True,
        {
            "trec_eval": "recall_1000",
            "pytrec_eval": "recall_1000",
            "ranx (warm": "recall@1000",
            "ranx (cold": "recall@1000",
            "rankwise rw": "recall@1000",
            "rankwise load": "recall@1000",
            "rankwise CLI": "recall@1000",
        },
    ),
    (
        "ndcg@10 linear gain",
        False,
        {
            "trec_eval": "ndcg_cut_10",
            "pytrec_eval": "ndcg_cut_10",
            "ranx (warm": "ndcg@10",
            "ranx (cold": "ndcg@10",
            "rankwise load": "extra:ndcg@10(gain=linear)",
        },
    ),
    (
        "ndcg@10 exp gain",
        False,
        {"rankwise rw": "ndcg@10", "rankwise load": "ndcg@10", "rankwise CLI": "ndcg@10"},
    ),
    (
        "mrr@10",
        False,
        {
            "ranx (warm": "mrr@10",
            "ranx (cold": "mrr@10",
            "rankwise rw": "mrr@10",
            "rankwise load": "mrr@10",
            "rankwise CLI": "mrr@10",
        },
    ),
    (
        "RR, no cutoff",
        False,
        {"trec_eval": "recip_rank", "pytrec_eval": "recip_rank", "rankwise load": "extra:mrr"},
    ),
]
TOLERANCE = 5e-5  # "agree to 4 decimals" (trec_eval itself prints only 4)
ROUNDED = {"trec_eval", "trec_eval-O3", "rw-cli"}  # tools whose output has 4 decimals only


def short(label: str) -> str:
    return {
        "trec_eval (C reference)": "trec_eval",
        "trec_eval -O3 (C reference)": "trec_eval-O3",
        "ranx (cold numba cache)": "ranx-cold",
        "ranx (warm numba cache)": "ranx-warm",
        "rankwise rw.evaluate(paths)": "rankwise",
        "rankwise load + eval (1 process)": "rw-eval",
        "rankwise CLI (python -m rankwise eval)": "rw-cli",
    }.get(label, label)


def lookup(row: dict[str, Any], key: str) -> float | None:
    if key.startswith("extra:"):
        value = (row.get("extra_means") or {}).get(key[len("extra:") :])
    else:
        value = (row.get("means") or {}).get(key)
    return None if value is None else float(value)


def cross_check(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    checks = []
    for label, required, keys in CROSS:
        values: dict[str, float] = {}
        for row in rows:
            for prefix, key in keys.items():
                if row["label"].startswith(prefix):
                    value = lookup(row, key)
                    if value is not None:
                        values[short(row["label"])] = value
        if not values:
            continue
        spread = max(values.values()) - min(values.values())
        status = "n/a" if len(values) < 2 else ("OK" if spread <= TOLERANCE + 1e-12 else "MISMATCH")
        full = [v for n, v in values.items() if n not in ROUNDED]
        full_spread = max(full) - min(full) if len(full) >= 2 else None
        checks.append(
            {
                "measure": label,
                "required": required,
                "values": values,
                "max_abs_diff": spread,
                "max_abs_diff_full_precision": full_spread,
                "status": status,
            }
        )
    return checks


def ratio_lines(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by = {short(r["label"]): r for r in rows if "wall_best_s" in r}
    out = []

    def add(name: str, value: float | None, target: str, ok: bool | None, unit: str = "x") -> None:
        out.append({"name": name, "value": value, "unit": unit, "target": target, "met": ok})

    rw = by.get("rankwise")
    cli = by.get("rw-cli")
    peers = (
        ("trec_eval", 10.0),
        ("trec_eval-O3", 10.0),
        ("ranx-warm", 25.0),
        ("ranx-cold", 25.0),
        ("pytrec_eval", None),
    )
    for peer, target in peers:
        if peer in by and rw:
            r = by[peer]["wall_best_s"] / rw["wall_best_s"]
            add(
                f"{peer} time / rankwise time (end to end)",
                r,
                f">= {target:g}x" if target else "",
                None if target is None else r >= target,
            )
    for peer, target in peers:
        if peer in by and cli and target is not None:
            r = by[peer]["wall_best_s"] / cli["wall_best_s"]
            add(f"{peer} time / rankwise CLI time", r, f">= {target:g}x", r >= target)
    ev = by.get("rw-eval")
    if ev:
        add(
            "rankwise evaluation alone (loaded data, best)",
            ev["eval_best_s"],
            "< 0.5 s",
            ev["eval_best_s"] < 0.5,
            " s",
        )
        add("rankwise load alone (read_qrels + read_run)", ev["load_best_s"], "", None, " s")
    te = by.get("trec_eval")
    if te:
        for name in ("rankwise", "rw-eval", "rw-cli"):
            if name in by:
                r = by[name]["peak_rss_max_mib"] / te["peak_rss_max_mib"]
                add(f"{name} peak RSS / trec_eval peak RSS", r, "<= 1.00x", r <= 1.0)
    return out


def fmt(value: float | None, digits: int = 6) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def report(
    rows: list[dict[str, Any]], checks: list[dict[str, Any]], ratios: list[dict[str, Any]]
) -> None:
    print()
    print("=" * 100)
    print("TIME AND MEMORY (wall time of the whole process, best run; peak RSS, max over runs)")
    print("=" * 100)
    print(f"{'tool':42s} {'runs':>4s} {'wall s':>9s} {'peak RSS MB':>12s}  all runs (s)")
    for row in rows:
        if "wall_best_s" in row:
            runs = " ".join(f"{w:.2f}" for w in row["wall_all_s"])
            print(
                f"{row['label']:42s} {len(row['runs']):4d} {row['wall_best_s']:9.3f} "
                f"{row['peak_rss_max_mib']:12.1f}  {runs}"
            )
        else:
            why = row.get("skip") or row.get("error") or "no result"
            why = why if len(why) <= 110 else why[:107] + "..."
            print(f"{row['label']:42s} {'-':>4s} {'-':>9s} {'-':>12s}  {why}")
        if "eval_best_s" in row:
            print(f"{'    import rankwise':42s} {'':4s} {row['import_best_s']:9.3f}")
            print(f"{'    read_qrels':42s} {'':4s} {row['read_qrels_best_s']:9.3f}")
            print(f"{'    read_run':42s} {'':4s} {row['read_run_best_s']:9.3f}")
            print(f"{'    first evaluate (warm-up)':42s} {'':4s} {row['warmup_eval_best_s']:9.3f}")
            print(
                f"{'    evaluate, best of N after warm-up':42s} {'':4s} {row['eval_best_s']:9.3f}"
            )
            built = {True: "yes", False: "NO (not built, or RANKWISE_NO_C set): pyarrow paths"}
            print(f"{'    C modules used':42s} {'':4s} {built.get(row.get('c_modules'), '?')}")
    print()
    print("RATIOS")
    for r in ratios:
        mark = "" if r["met"] is None else ("  met" if r["met"] else "  MISSED")
        value = (
            "-"
            if r["value"] is None
            else (f"{r['value']:.2f}x" if r["unit"] == "x" else f"{r['value']:.3f} s")
        )
        target = f"(target {r['target']})" if r["target"] else ""
        print(f"  {r['name']:52s} {value:>10s} {target:18s}{mark}")
    print()
    print("CROSS-CHECK OF MEANS (status: all within 5e-5, i.e. agree to 4 decimals; trec_eval and")
    print("the rankwise CLI print 4 decimals; 'full-prec' = max |diff| among the other tools)")
    names = []
    for c in checks:
        for n in c["values"]:
            if n not in names:
                names.append(n)
    print(
        f"  {'measure':20s} "
        + " ".join(f"{n:>11s}" for n in names)
        + f" {'max|diff|':>10s} {'full-prec':>10s}  status"
    )
    for c in checks:
        cells = " ".join(
            f"{fmt(c['values'].get(n)):>11s}" if n in c["values"] else f"{'-':>11s}" for n in names
        )
        status = c["status"] + ("" if c["required"] or c["status"] == "n/a" else " (info)")
        full = c["max_abs_diff_full_precision"]
        full_text = "-" if full is None else f"{full:.2e}"
        print(f"  {c['measure']:20s} {cells} {c['max_abs_diff']:10.2e} {full_text:>10s}  {status}")
    print()
    print("NOTES")
    print("  * trec_eval/pytrec_eval recip_rank has no cutoff (RR over the whole ranking); it is")
    print("    compared with rankwise 'mrr' (no cutoff), not with mrr@10; ranx and rankwise both")
    print("    compute mrr@10.")
    print("  * ndcg gain: trec_eval/pytrec_eval ndcg_cut and ranx 'ndcg' (Jarvelin) use linear")
    print("    gain (gain = grade); rankwise 'ndcg@10' uses exponential gain (2^grade - 1), so")
    print("    it is compared with them as ndcg@10(gain=linear) (computed untimed in rw-eval).")
    print("    For timing the gain makes no difference.")
    print("  * ranx compiles its numba kernels on its first call and caches them on disk:")
    print("    'cold' is a user's first run (empty NUMBA_CACHE_DIR), 'warm' every later run.")
    print("  * rw-eval's wall time includes the warm-up and the repeated evaluations; its")
    print("    figures of interest are the load and evaluation lines above.")


def environment_info(qrels: str, run: str) -> dict[str, Any]:
    from importlib import metadata

    versions = {}
    for dist in ("ranx", "pytrec-eval-terrier", "pytrec_eval", "numba", "numpy", "pyarrow"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[dist] = metadata.version(dist)
    try:
        commit = subprocess.run(
            ["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "-C", REPO, "status", "--porcelain", "--", "src"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
        )
    except OSError:
        commit, dirty = "", False
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg_at_start": list(os.getloadavg()),
        "versions": versions,
        "git_commit": commit,
        "src_modified": dirty,
        "qrels": qrels,
        "run": run,
        "qrels_bytes": os.path.getsize(qrels),
        "run_bytes": os.path.getsize(run),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--data-dir",
        default=DEFAULT_DATA_DIR,
        help="where the generated data lives / is generated (default benchmarks/.data)",
    )
    ap.add_argument(
        "--generator",
        default=os.environ.get("RANKWISE_BENCH_GEN", DEFAULT_GENERATOR),
        help="gen_msmarco_like.py (default $RANKWISE_BENCH_GEN or %(default)s)",
    )
    ap.add_argument("--qrels", help="use this qrels file instead of the generated one")
    ap.add_argument("--run", help="use this run file instead of the generated one")
    ap.add_argument("--trec-eval", help="trec_eval executable (default $TREC_EVAL, then PATH)")
    ap.add_argument(
        "--trec-eval-o3",
        metavar="PATH",
        help="a second trec_eval, built with -O3 (trec_eval's Makefile builds without "
        "optimisation): measured too, and the 10x target is checked against it as well",
    )
    ap.add_argument("--python", default=sys.executable, help="interpreter for the Python tools")
    ap.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="best of N runs for every tool (default: 1 for peers, 3 for rankwise)",
    )
    ap.add_argument(
        "--inner-repeat",
        type=int,
        default=5,
        help="timed rw.evaluate calls on loaded data, after one warm-up (default 5)",
    )
    ap.add_argument(
        "--only", default=",".join(TOOLS), help="comma-separated subset of: " + ", ".join(TOOLS)
    )
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run (default 1800)")
    ap.add_argument("--json", dest="json_out", help="save all figures to this JSON file")
    args = ap.parse_args(argv)

    args.only = [t.strip() for t in args.only.split(",") if t.strip()]
    unknown = [t for t in args.only if t not in TOOLS]
    if unknown:
        ap.error(f"unknown tool(s) {unknown}; choose from {TOOLS}")
    if args.repeat is not None and args.repeat < 1:
        ap.error("--repeat must be >= 1")
    if args.inner_repeat < 1:
        ap.error("--inner-repeat must be >= 1")

    qrels, run = ensure_data(args)
    info = environment_info(qrels, run)
    print(f"data: {run} ({info['run_bytes'] / 1e6:.0f} MB), {qrels}")
    print(
        f"python {info['python']}, {info['cpus']} CPUs, load average at start "
        + " ".join(f"{x:.2f}" for x in info["loadavg_at_start"])
    )
    prime_page_cache(qrels, run)

    rows = plan(args, qrels, run)
    with tempfile.TemporaryDirectory(prefix="rankwise-bench-") as scratch:
        for row in rows:
            repeat = args.repeat or (1 if row["tool"] in PEERS else 3)
            print(f"{row['label']} ...", flush=True)
            execute(row, repeat, args.timeout, scratch)
            summarise(row)

    checks = cross_check(rows)
    ratios = ratio_lines(rows)
    report(rows, checks, ratios)
    if args.json_out:
        saved = {
            "environment": info,
            "measures": RW_MEASURES,
            "rows": [
                {k: v for k, v in row.items() if k not in ("cmd",)}
                | {
                    "command": [
                        c if len(c) < 200 else "<inline program>" for c in row.get("cmd", [])
                    ]
                }
                for row in rows
            ],
            "cross_check": checks,
            "ratios": ratios,
        }
        with open(args.json_out, "w") as f:
            json.dump(saved, f, indent=2)
        print(f"\nsaved {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
