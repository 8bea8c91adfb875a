"""Differential test against Microsoft Recommenders on random inputs (optional oracle).

Set ``RANKWISE_RECOMMENDERS_PYTHON`` to a Python that has ``recommenders``
(1.2.x, with pandas 2: under pandas 3 its diversity and serendipity change,
see docs/recommenders.md); the test is skipped without it. Random judgments,
predictions with many tied scores, training interactions, and
recommendations with the training items excluded (Recommenders refuses them).
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.recommenders import beyond
from rankwise.recommenders.inputs import Interactions, Lists, Vocabulary

PYTHON = os.environ.get("RANKWISE_RECOMMENDERS_PYTHON")
pytestmark = pytest.mark.skipif(
    not PYTHON, reason="set RANKWISE_RECOMMENDERS_PYTHON to a Python with recommenders")
KS = [1, 3, 5, 10]

SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np, pandas as pd
    from recommenders.evaluation import python_evaluation as pe
    warnings.filterwarnings("ignore")
    inp = json.load(open(sys.argv[1]))
    t, p = pd.DataFrame(inp["true"]), pd.DataFrame(inp["pred"])
    tr, rc = pd.DataFrame(inp["train"]), pd.DataFrame(inp["reco"])
    feats = pd.DataFrame({"itemID": inp["feature_items"],
                          "features": [np.asarray(v) for v in inp["features"]]})
    out = {}
    for k in inp["ks"]:
        for fn in ("precision_at_k", "recall_at_k", "ndcg_at_k", "map", "map_at_k"):
            out[f"{fn}@{k}"] = float(getattr(pe, fn)(t, p, k=k))
    out["catalog_coverage"] = float(pe.catalog_coverage(tr, rc))
    out["distributional_coverage"] = float(pe.distributional_coverage(tr, rc))
    out["novelty"] = float(pe.novelty(tr, rc))
    out["diversity"] = float(pe.diversity(tr, rc))
    out["diversity_features"] = float(pe.diversity(
        tr, rc, item_feature_df=feats, item_sim_measure="item_feature_vector"))
    out["serendipity"] = float(pe.serendipity(tr, rc, col_relevance="rel"))
    out["serendipity_features"] = float(pe.serendipity(
        tr, rc, item_feature_df=feats, item_sim_measure="item_feature_vector",
        col_relevance="rel"))
    json.dump(out, open(sys.argv[2], "w"))
""")


def _data(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n_users, n_items = 25, 40
    true_u, true_i, pred_u, pred_i, pred_s = [], [], [], [], []
    for u in range(n_users):
        for i in rng.choice(n_items, int(rng.integers(1, 12)), replace=False):
            true_u.append(u)
            true_i.append(int(i))
        if u % 7 != 6:  # some users have no predictions
            for i in rng.choice(n_items, int(rng.integers(1, 20)), replace=False):
                pred_u.append(u)
                pred_i.append(int(i))
                pred_s.append(float(rng.integers(0, 5)))  # many ties
    seen = rng.random((n_users, n_items)) < 0.2
    train = {"userID": np.nonzero(seen)[0].tolist(), "itemID": np.nonzero(seen)[1].tolist()}
    reco_u, reco_i, reco_r = [], [], []
    for u in range(n_users):
        unseen = np.flatnonzero(~seen[u])
        for i in rng.choice(unseen, min(6, len(unseen)), replace=False):
            reco_u.append(u)
            reco_i.append(int(i))
            reco_r.append(float(rng.integers(0, 2)))
    features = rng.integers(0, 2, size=(n_items, 6)).astype(float)
    features[features.sum(axis=1) == 0, 0] = 1  # Recommenders divides by zero on a zero vector
    features = features.tolist()
    return {"true": {"userID": true_u, "itemID": true_i, "rating": [1.0] * len(true_u)},
            "pred": {"userID": pred_u, "itemID": pred_i, "prediction": pred_s},
            "train": train, "reco": {"userID": reco_u, "itemID": reco_i, "rel": reco_r},
            "feature_items": list(range(n_items)), "features": features, "ks": KS}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_inputs_against_recommenders(seed: int, tmp_path: Path) -> None:
    data = _data(seed)
    (tmp_path / "in.json").write_text(json.dumps(data))
    (tmp_path / "run.py").write_text(SCRIPT)
    subprocess.run([str(PYTHON), str(tmp_path / "run.py"), str(tmp_path / "in.json"),
                    str(tmp_path / "out.json")], check=True, timeout=600)
    want = json.loads((tmp_path / "out.json").read_text())
    cols = {"user": "userID", "item": "itemID", "score": "prediction"}
    try:
        rw.parse("map@10(dialect=recommenders)")
        capped = True
    except rw.RankwiseError:
        capped = False
    for k in KS:
        names = [f"P@{k}", f"recall@{k}", f"map@{k}"] + (
            [f"map@{k}(dialect=recommenders)"] if capped else [])
        r = rw.evaluate_recommendations(data["true"], data["pred"], names, columns=cols)
        assert r.mean[f"P@{k}"] == pytest.approx(want[f"precision_at_k@{k}"], abs=1e-12)
        assert r.mean[f"recall@{k}"] == pytest.approx(want[f"recall_at_k@{k}"], abs=1e-12)
        assert r.mean[f"map@{k}"] == pytest.approx(want[f"map@{k}"], abs=1e-12)
        if capped:
            assert r.mean[f"map@{k}(dialect=recommenders)"] == pytest.approx(
                want[f"map_at_k@{k}"], abs=1e-12)
        n = rw.evaluate_recommendations(data["true"], data["pred"], [f"ndcg@{k}"],
                                        columns=cols, missing="zero")
        assert n.mean[f"ndcg@{k}"] == pytest.approx(want[f"ndcg_at_k@{k}"], abs=1e-12)
    features = dict(zip(data["feature_items"], data["features"]))
    b = rw.evaluate_recommendations(None, data["reco"], [
        "coverage", "entropy", "novelty(dialect=recommenders)", "ild"], train=data["train"],
        columns=cols)
    assert b.mean["coverage"] == pytest.approx(want["catalog_coverage"], abs=1e-12)
    assert b.mean["entropy"] == pytest.approx(want["distributional_coverage"], abs=1e-12)
    assert b.mean["novelty(dialect=recommenders)"] == pytest.approx(want["novelty"], abs=1e-12)
    assert b.mean["ild"] == pytest.approx(want["diversity"], abs=1e-12)
    f = rw.evaluate_recommendations(None, data["reco"], ["ild"], features=features,
                                    columns=cols)
    assert f.mean["ild"] == pytest.approx(want["diversity_features"], abs=1e-12)
    # serendipity: the kernel with Recommenders' relevance column
    users, items = Vocabulary("user"), Vocabulary("item")
    lists = Lists.read(data["reco"], users, items, columns=cols)
    train = Interactions.read(data["train"], users, items, columns=cols, rating=False)
    items.encode(data["feature_items"])
    relevance = np.asarray(data["reco"]["rel"])  # lists keep the rows' order (no score)
    from scipy import sparse

    cooc = sparse.csr_matrix((np.ones(len(train.users)), (train.items, train.users)),
                             shape=(len(items), len(users)))
    dense = np.zeros((len(items), 6))
    dense[items.lookup(data["feature_items"])] = data["features"]
    for vectors, key in ((cooc, "serendipity"), (dense, "serendipity_features")):
        per_user = beyond.history_serendipity(lists, train, vectors, relevance, len(users))[1]
        assert float(np.nanmean(per_user)) == pytest.approx(want[key], abs=1e-12)
