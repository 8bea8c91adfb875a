"""adjust_pvalues: hand values, scipy's Benjamini-Hochberg, properties."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from rankwise.exceptions import InvalidParameterError
from rankwise.options import CompareOptions
from rankwise.stats import adjust_pvalues, resolve_correction

P = [0.01, 0.04, 0.03, 0.005, 0.2]


def test_bonferroni() -> None:
    assert adjust_pvalues(P, "bonferroni").tolist() == pytest.approx([0.05, 0.2, 0.15, 0.025, 1.0])


def test_holm_by_hand() -> None:
    # sorted: .005*5=.025, .01*4=.04, .03*3=.09, .04*2=.08 -> max so far .09, .2*1=.2
    expected = [0.04, 0.09, 0.09, 0.025, 0.2]
    assert adjust_pvalues(P, "holm").tolist() == pytest.approx(expected, rel=1e-14)


def test_benjamini_hochberg_by_hand_and_like_scipy() -> None:
    # sorted .005 .01 .03 .04 .2 -> m/i * p: .025 .025 .05 .05 .2, then running min from the top
    expected = [0.025, 0.05, 0.05, 0.025, 0.2]
    for name in ("benjamini-hochberg", "bh", "fdr_bh", "BH"):
        adjusted = adjust_pvalues(P, name)
        assert adjusted.tolist() == pytest.approx(expected, rel=1e-14)
    np.testing.assert_allclose(adjusted, scipy.stats.false_discovery_control(P), rtol=1e-14)


def test_none_and_nan() -> None:
    assert adjust_pvalues(P, "none").tolist() == P
    assert adjust_pvalues(P, None).tolist() == P
    adjusted = adjust_pvalues([0.01, np.nan, 0.02], "bonferroni")
    assert adjusted[0] == 0.02 and np.isnan(adjusted[1]) and adjusted[2] == 0.04  # m = 2


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_properties(p: list[float]) -> None:
    raw = np.array(p)
    holm = adjust_pvalues(raw, "holm")
    bonferroni = adjust_pvalues(raw, "bonferroni")
    bh = adjust_pvalues(raw, "bh")
    for adjusted in (holm, bonferroni, bh):
        assert (adjusted >= raw - 1e-15).all() and (adjusted <= 1).all()
        order = np.argsort(raw, kind="stable")
        assert (np.diff(adjusted[order]) >= -1e-15).all()  # ranks are kept
    assert (holm <= bonferroni + 1e-15).all()
    assert (bh <= holm + 1e-15).all()
    np.testing.assert_allclose(bh, scipy.stats.false_discovery_control(raw), rtol=1e-12,
                               atol=1e-15)


def test_names_and_errors() -> None:
    assert resolve_correction("Holm") == "holm"
    assert resolve_correction("FDR_BH") == "benjamini-hochberg"
    message = (r"^correction must be one of 'holm', 'bonferroni', 'benjamini-hochberg', 'none' "
               r"\(or an alias: 'holm-bonferroni', 'bh', 'fdr-bh', 'fdr'\) or None, got 'hlm' "
               r"\(str\); did you mean 'holm'\?$")
    with pytest.raises(InvalidParameterError, match=message):
        resolve_correction("hlm")
    with pytest.raises(InvalidParameterError, match="between 0 and 1"):
        adjust_pvalues([1.5])
    with pytest.raises(InvalidParameterError, match="1-D"):
        adjust_pvalues([[0.1]])


@pytest.mark.parametrize(("name", "said"), [
    ("hochberg", "Hochberg's step-up procedure is not available"),
    ("fdr_by", "the Benjamini-Yekutieli procedure is not available"),
    ("Holm-Sidak", "that procedure is not available"),
])
def test_another_librarys_procedure_is_named_not_a_near_name_suggested(name: str,
                                                                       said: str) -> None:
    """'hochberg' suggested 'benjamini-hochberg', a procedure with another guarantee."""
    for call in (lambda: adjust_pvalues([0.01, 0.02], name),
                 lambda: CompareOptions(correction=name)):
        with pytest.raises(InvalidParameterError) as caught:
            call()
        assert said in str(caught.value) and "did you mean" not in str(caught.value)
