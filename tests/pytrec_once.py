"""pytrec_eval's bpref, where it is the process's only evaluate().

pytrec_eval (pytrec-eval-terrier 0.5.x) reads freed memory when it computes
bpref after an earlier ``evaluate()`` in the same process (valgrind:
``te_calc_bpref``, m_bpref.c:50, a block freed by ``te_form_res_rels_cleanup``);
a test process that calls it many times segfaults now and then. Tests compare
bpref through :func:`evaluate_once` instead: a fresh interpreter, one call.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable

from strategies import random_collection

FRESH_PROCESS_MEASURES = frozenset({"bpref"})
"""The measures pytrec_eval computes reliably only in its process's first evaluate()."""

_ONE_EVALUATE = """
import json, sys
import pytrec_eval
qrels, run, measures, options = json.load(sys.stdin)
print(json.dumps(pytrec_eval.RelevanceEvaluator(qrels, set(measures), **options).evaluate(run)))
"""


def evaluate_once(qrels: dict, run: dict, measures: Iterable[str], **options: object) -> dict:
    """``pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(run)``, alone in
    a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _ONE_EVALUATE], capture_output=True, text=True, check=False,
        input=json.dumps([qrels, run, sorted(measures), options]),
    )
    if done.returncode != 0:
        raise RuntimeError(f"pytrec_eval in a fresh process failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def merged_collections(keys: Iterable[tuple[int, bool]]) -> tuple[dict, dict]:
    """The :func:`random_collection` of each (seed, ties) as one, query ids prefixed by key."""
    qrels: dict = {}
    run: dict = {}
    for seed, ties in keys:
        seed_qrels, seed_run = random_collection(seed, ties=ties)
        prefix = f"{seed}{'t' if ties else 'u'}-"
        qrels.update({prefix + query: docs for query, docs in seed_qrels.items()})
        run.update({prefix + query: docs for query, docs in seed_run.items()})
    return qrels, run
