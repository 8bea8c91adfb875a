"""Every number rankwise computes on the conformance files, exactly, to compare two installs.

Usage:
  python .ci/same_numbers.py dump OUT.json DATA...   evaluate, write every value (float.hex)
  python .ci/same_numbers.py compare A.json B.json   count the values, list any that differ

``dump`` runs with the Python of one install (the compiled wheel, the pure sdist):
for each DATA folder it knows (trec_eval's test vectors, and tests/data's gdeval,
ndeval, cwl and compat folders), it reads each judgments/run pair as TREC text
(the C reader or pyarrow) and as dicts (the C dict reader or Python), and evaluates
every measure family of the catalog (without a cutoff, at 5 and 10, as each takes
them) under four option sets, per query. A measure an input cannot give records its
error message, which must match too. ``compare`` exits 1 when any value or message
differs, or when the two dumps do not hold the same keys.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# folder name -> (judgments, run, judgments read as diversity judgments)
PAIRS = {
    "trec_eval": [
        ("qrels.test", "results.test", False),
        ("qrels.test.with-comments", "results.test", False),
        ("qrels.test", "results.trunc", False),
        ("qrels.rel_level", "results.test", False),
        ("qrels.comment.test", "results.comment.test", False),
    ],
    "compat": [("compat.qrels", "compat.run", False)],
    "cwl": [("qrel_file", "result_file", False)],
    "gdeval": [
        ("gdeval_test.qrels", "gdeval_test.run", False),
        ("qrels.web.151-200.txt.gz", "results-2012-rm-cata-filtered.txt.gz", False),
    ],
    "ndeval": [
        ("pyndeval_test.qrels", "pyndeval_test.run", True),
        ("pyndeval_basic.qrels", "pyndeval_basic.run", True),
        ("edge.qrels", "edge.run", True),
        ("qrels.web.201-250.ndeval.txt.gz", "run.web.201-250.synth16.gz", True),
        ("qrels.web.251-300.ndeval.txt.gz", "run.web.251-300.synth16.gz", True),
    ],
}
OPTIONS: dict[str, dict[str, Any]] = {
    "default": {},
    "missing=zero": {"missing": "zero"},
    "ties=average": {"ties": "average"},
    "rel=2": {"rel": 2},
}


def measure_names() -> list[str]:
    """Every family of the catalog, without a cutoff and at 5 and 10 as it takes them."""
    from rankwise.measures import FAMILIES

    names = []
    for name, family in FAMILIES.items():
        if family.cutoff != "required":
            names.append(name)
        if family.cutoff != "none":
            names += [f"{name}@5", f"{name}@10"]
    return names


def _values(results: Any, name: str) -> list[str]:
    return [v if isinstance(v, str) else float(v).hex() for v in results[name].tolist()]


def evaluate_all(qrels: Any, run: Any, names: list[str], options: dict[str, Any]) -> dict:
    """Measure -> per-query values (float.hex) keyed by query, or the error's message."""
    import rankwise as rw

    out: dict[str, Any] = {}
    try:
        batches = [(names, rw.evaluate(qrels, run, names, **options))]
    except rw.RankwiseError:  # one measure the input cannot give: each on its own
        batches = []
        for name in names:
            try:
                batches.append(([name], rw.evaluate(qrels, run, [name], **options)))
            except rw.RankwiseError as error:
                out[name] = f"error: {type(error).__name__}: {error}"
    for batch, results in batches:
        queries = [str(q) for q in results.query_ids]
        for name, key in zip(batch, results.measures):
            out[name] = dict(zip(queries, _values(results, str(key))))
    return out


def dump(target: Path, folders: list[Path]) -> int:
    """Evaluate every pair of *folders* with this Python's rankwise; write *target*."""
    import warnings

    import rankwise as rw

    warnings.simplefilter("ignore", rw.RankwiseWarning)
    names = measure_names()
    found: dict[str, Any] = {}
    for folder in folders:
        for qrels_name, run_name, diversity in PAIRS.get(folder.name, []):
            qrels = rw.read_qrels(folder / qrels_name, fmt="diversity" if diversity else "trec")
            run = rw.read_run(folder / run_name, fmt="trec")
            forms = {"trec": (qrels, run)}
            if not diversity:
                forms["dicts"] = (qrels.to_dict(), run.to_dict())
            for form, (q, r) in forms.items():
                for label, options in OPTIONS.items():
                    key = f"{folder}/{qrels_name} {run_name} [{form}, {label}]"
                    found[key] = evaluate_all(q, r, names, options)
    if not found:
        sys.exit(f"same_numbers: no conformance files in {', '.join(map(str, folders))}")
    target.write_text(json.dumps(found, sort_keys=True), encoding="utf-8")
    return 0


def _count(tree: Any) -> int:
    if isinstance(tree, dict):
        return sum(_count(v) for v in tree.values())
    return 1


def compare(first: Path, second: Path) -> int:
    """Count the values of two dumps and print those that differ; 1 when any does."""
    a = json.loads(first.read_text(encoding="utf-8"))
    b = json.loads(second.read_text(encoding="utf-8"))
    differ = []

    def walk(x: Any, y: Any, where: str) -> None:
        if isinstance(x, dict) and isinstance(y, dict):
            for key in sorted(set(x) | set(y)):
                if key not in x or key not in y:
                    side = "the first" if key in x else "the second"
                    differ.append(f"{where} {key}: only in {side}")
                else:
                    walk(x[key], y[key], f"{where} {key}")
        elif x != y:
            differ.append(f"{where}: {x!r} != {y!r}")

    walk(a, b, "")
    errors = sum(isinstance(v, str) for runs in a.values() for v in runs.values())
    print(f"same_numbers: {_count(a)} values compared ({len(a)} input and option sets, {errors} "
          f"measure errors among them), {len(differ)} differ")
    for line in differ[:20]:
        print("  " + line)
    return 1 if differ else 0


if __name__ == "__main__":
    command, *rest = sys.argv[1:] or ["help"]
    if command == "dump" and len(rest) >= 2:
        sys.exit(dump(Path(rest[0]), [Path(p) for p in rest[1:]]))
    if command == "compare" and len(rest) == 2:
        sys.exit(compare(Path(rest[0]), Path(rest[1])))
    sys.exit(__doc__)
