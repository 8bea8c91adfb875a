"""Write the tools' own per-query values on the dialect fixture to tests/data/dialects.

    python tests/dialects/make_fixtures.py [--tools lightgbm xgboost ...] [--queries 1000]

The fixture (``strategies.dialect_collection(1040, seed=17)``: ties, queries
whose grades are all 0, grades -2..4, lists shorter than the cutoffs, scores
equal in float32, judged documents not retrieved, queries on one side only)
is written to ``fixture.json.gz``; each tool's values (``tools.TOOLS``,
Spark through ``spark-shell``, gdeval.pl through perl where ``RANKWISE_GDEVAL``
names it) to ``<tool>.csv.gz``: one row per query, one
column per rankwise measure, the tool's value (empty where it gives none).
``provenance.json`` records the tool versions and the command. The tests
compare rankwise with these files everywhere, and with the tools themselves
where they are installed. Rerun after changing the fixture or a tool version.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data" / "dialects"
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from strategies import dialect_collection  # noqa: E402
from tools import KS, MEANS, TOOLS, Values, version_of  # noqa: E402

SEED = 17


def write_fixture(n_queries: int) -> tuple[dict, dict]:
    qrels, run = dialect_collection(n_queries, SEED)
    text = json.dumps({"seed": SEED, "queries": n_queries, "qrels": qrels, "run": run})
    with gzip.GzipFile(DATA / "fixture.json.gz", "wb", mtime=0) as out:  # same bytes each run
        out.write(text.encode("utf-8"))
    return qrels, run


def write_values(name: str, values: Values) -> int:
    measures = sorted(values)
    queries = sorted({q for per in values.values() for q in per})
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["query_id", *measures])
    for query in queries:
        row = [query]
        for measure in measures:
            value = values[measure].get(query, math.nan)
            row.append("" if math.isnan(value) else repr(float(value)))
        writer.writerow(row)
    with gzip.GzipFile(DATA / f"{name}.csv.gz", "wb", mtime=0) as out:
        out.write(text.getvalue().encode("utf-8"))
    return len(queries)


_SCALA = r"""
import org.apache.spark.mllib.evaluation.RankingMetrics
val ks = Seq(%(ks)s)
def ids(s: String) = if (s.isEmpty) Array.empty[String] else s.split(" ")
def row(name: String, m: RankingMetrics[String]) = (Seq(name, m.meanAveragePrecision.toString) ++
  ks.flatMap(k => Seq(m.ndcgAt(k), m.precisionAt(k), m.recallAt(k),
                      m.meanAveragePrecisionAt(k)).map(_.toString))).mkString("\t")
val lines = scala.io.Source.fromFile("%(inp)s").getLines().toList
val pairs = lines.map { line => val f = line.split("\t", -1); (f(0), (ids(f(1)), ids(f(2)))) }
val out = new java.io.PrintWriter("%(out)s")
out.println(row("*mean*", new RankingMetrics(sc.parallelize(pairs.map(_._2), 2))))
for ((name, pair) <- pairs.take(%(per_query)d)) {
  out.println(row(name, new RankingMetrics(sc.parallelize(Seq(pair), 1))))
}
out.close()
System.exit(0)
"""


def spark_values(qrels: dict, run: dict, per_query: int) -> tuple[Values, dict[str, float]]:
    """Spark MLlib's RankingMetrics, one query per RDD, in one spark-shell (Scala).

    The ranked ids are the run's documents by score descending, ties in input
    order; the ground truth, the documents with grade >= 1. PySpark would
    compute the same (it drops only the relevance array, not used here), one
    Python job per value, which is much slower. Also Spark's own means over
    every judged query (a query not retrieved has an empty ranking). One
    Spark job per value: only the first *per_query* queries get theirs.
    """
    import pyspark

    shell = Path(pyspark.__file__).parent / "bin" / "spark-shell"
    with tempfile.TemporaryDirectory() as work:
        inp, out, script = (os.path.join(work, n) for n in ("in.tsv", "out.tsv", "m.scala"))
        with open(inp, "w", encoding="utf-8") as handle:
            for query in qrels:
                ranking = run.get(query, {})
                docs = list(ranking)
                order = sorted(range(len(docs)), key=lambda i: -ranking[docs[i]])  # stable
                relevant = [d for d, g in qrels[query].items() if g >= 1]
                handle.write(f"{query}\t{' '.join(docs[i] for i in order)}\t"
                             f"{' '.join(relevant)}\n")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(_SCALA % {"ks": ",".join(map(str, KS)), "inp": inp, "out": out,
                                   "per_query": per_query})
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
        subprocess.run(
            [str(shell), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
             "--conf", "spark.driver.host=127.0.0.1", "-i", script],
            check=True, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        values: Values = {}
        with open(out, encoding="utf-8") as handle:
            for line in handle:
                fields = line.rstrip("\n").split("\t")
                query, numbers = fields[0], [float(x) for x in fields[1:]]
                values.setdefault("map(dialect=spark)", {})[query] = numbers[0]
                for i, k in enumerate(KS):
                    ndcg, precision, recall, ap = numbers[1 + 4 * i: 5 + 4 * i]
                    values.setdefault(f"ndcg@{k}(dialect=spark)", {})[query] = ndcg
                    values.setdefault(f"P@{k}(dialect=spark)", {})[query] = precision
                    values.setdefault(f"recall@{k}(dialect=spark)", {})[query] = recall
                    values.setdefault(f"map@{k}(dialect=spark)", {})[query] = ap
    means = {measure: per.pop("*mean*") for measure, per in values.items()}
    return values, means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", nargs="*", default=[*TOOLS, "spark"])
    parser.add_argument("--queries", type=int, default=1040)
    parser.add_argument("--spark-queries", type=int, default=400,
                        help="queries Spark evaluates one by one (a Spark job per value)")
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    qrels, run = write_fixture(args.queries)
    provenance_path = DATA / "provenance.json"
    provenance = json.loads(provenance_path.read_text()) if provenance_path.exists() else {}
    provenance["fixture"] = {"function": "tests/strategies.py dialect_collection",
                             "queries": args.queries, "seed": SEED}
    for tool in args.tools:
        start = time.perf_counter()
        if tool == "spark":
            import pyspark

            (values, means), version = (spark_values(qrels, run, args.spark_queries),
                                        pyspark.__version__)
        else:
            values, version = TOOLS[tool][1](qrels, run), version_of(tool)
            means = MEANS[tool](qrels, run) if tool in MEANS else None
        rows = write_values(tool, values)
        if means is not None:
            (DATA / f"{tool}.means.json").write_text(
                json.dumps({m: means[m] for m in sorted(means)}, indent=1) + "\n")
        seconds = time.perf_counter() - start
        if provenance_path.exists():  # another run may have written meanwhile
            provenance = json.loads(provenance_path.read_text())
        provenance[tool] = {
            "version": version, "queries": rows, "measures": len(values),
            "generated": date.today().isoformat(), "seconds": round(seconds, 1),
            "python": platform.python_version(),
            "command": ("RANKWISE_GDEVAL=gdeval.pl (its printf widened from %.5f to %.17g) "
                        if tool == "gdeval" else "")
                       + f"python tests/dialects/make_fixtures.py --tools {tool} "
                       f"--queries {args.queries}"
                       + (f" --spark-queries {args.spark_queries}" if tool == "spark" else ""),
        }
        provenance_path.write_text(json.dumps(provenance, indent=1, sort_keys=True) + "\n")
        print(f"{tool} {version}: {rows} queries, {len(values)} measures, {seconds:.0f} s",
              flush=True)


if __name__ == "__main__":
    main()
