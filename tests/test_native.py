"""The optional C modules: built wherever a C compiler is, and switchable off."""

from __future__ import annotations

import shutil
import sysconfig

import pytest

from rankwise.data import _dicts as dicts
from rankwise.io import _fast, frames
from rankwise.kernels import subtopics
from rankwise.ranking import _counted, _join


def test_the_c_modules_are_built_where_a_compiler_is() -> None:
    """pip builds them as optional extensions: a failed build must not pass unnoticed here."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}): rankwise runs without its C modules")
    assert _fast._ctrec is not None, "rankwise.io._ctrec was not built"
    assert _join._cjoin is not None, "rankwise.ranking._cjoin was not built"
    assert frames._ccolumns is not None, "rankwise.data._ccolumns was not built"
    assert _counted._crank is not None, "rankwise.ranking._crank was not built"
    from rankwise._compiled import load

    assert load("rankwise.ranking._cdict") is not None, "rankwise.ranking._cdict was not built"
    assert load("rankwise.ranking._cpairs") is not None, "rankwise.ranking._cpairs was not built"

    assert load("rankwise.fusion._cfuse") is not None, "rankwise.fusion._cfuse was not built"
    assert load("rankwise.kernels._cgreedy") is not None, "rankwise.kernels._cgreedy was not built"


def test_the_environment_variable_turns_them_off(monkeypatch: pytest.MonkeyPatch) -> None:
    import rankwise as rw
    from rankwise.io import trec

    monkeypatch.setenv("RANKWISE_NO_C", "1")
    assert not _fast.available()
    assert _join._native() is None
    assert dicts._native() is None
    assert frames._native() is None
    monkeypatch.setattr(_fast, "parse_block", None)  # the C reader must not be called
    monkeypatch.setattr(_fast, "parse_file_ranges", None)
    assert trec.read_trec_run(b"q Q0 d 1 1 r\n").to_dict() == rw.Run.from_dict(
        {"q": {"d": 1.0}}).to_dict()
    assert subtopics._cgreedy() is None


@pytest.mark.parametrize("seed", range(12))
def test_the_greedy_ideal_is_the_same_with_and_without_c(seed: int, monkeypatch) -> None:
    import numpy as np
    from strategies import diversity_collection

    import rankwise as rw

    if subtopics._cgreedy() is None:
        pytest.skip("rankwise.kernels._cgreedy is not built")
    qrels, run = diversity_collection(seed, ties=True, negative=True)
    alpha = [0.5, 0.3, 0.9, 1.0][seed % 4]
    names = [f"alpha_ndcg@10(alpha={alpha})", f"nerr_ia(alpha={alpha})",
             f"nnrbp(alpha={alpha},beta=0.9)", "alpha_ndcg(rel=2)"]
    with_c = rw.evaluate(qrels, run, names, unjudged="bounds")
    monkeypatch.setenv("RANKWISE_NO_C", "1")
    without = rw.evaluate(qrels, run, names, unjudged="bounds")
    for name in with_c:
        np.testing.assert_array_equal(with_c[name], without[name], err_msg=name)
        np.testing.assert_array_equal(with_c.unjudged.high[name], without.unjudged.high[name])
