"""Student's t critical value without scipy (rankwise.stats._student), against scipy."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.stats._student import t_critical
from rankwise.stats.intervals import t_interval

special = pytest.importorskip("scipy.special")
# scipy's stdtrit is exact to about 1e-16 from 1.16 on; before (1.15, the last for Python 3.10)
# it is off by up to 1e-11 (checked against mpmath's root of the regularised incomplete beta,
# where t_critical is within 1e-15): there it is a reference to 1e-10 only
_SCIPY = tuple(int(part) for part in __import__("scipy").__version__.split(".")[:2])
REL = 1e-12 if _SCIPY >= (1, 16) else 1e-10

CONFIDENCES = [0.01, 0.3, 0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999]


@pytest.mark.parametrize("df", [*range(1, 80), 99, 100, 101, 999, 1000, 1001, 1002, 2_500,
                                6_999, 10**5, 10**5 + 1, 10**9])
def test_matches_scipy(df: int) -> None:
    for confidence in CONFIDENCES:
        expected = special.stdtrit(df, 0.5 + confidence / 2)
        assert t_critical(df, confidence) == pytest.approx(expected, rel=REL, abs=1e-300), (
            df, confidence)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5_000), st.floats(0.01, 0.999))
def test_matches_scipy_anywhere(df: int, confidence: float) -> None:
    expected = special.stdtrit(df, 0.5 + confidence / 2)
    assert t_critical(df, confidence) == pytest.approx(expected, rel=max(REL, 1e-11))


@pytest.mark.parametrize(("df", "confidence"), [(2.5, 0.95), (10, 0.9999), (10, 0.99999999)])
def test_outside_the_checked_range_scipy_answers(df: float, confidence: float) -> None:
    assert t_critical(df, confidence) == special.stdtrit(df, 0.5 + confidence / 2)


def test_interval_is_the_scipy_interval() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(5)
    for n in (2, 3, 30, 7_000):
        x = rng.normal(size=n)
        low, high = t_interval(x, 0.95)
        expected = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=stats.sem(x))
        assert (low, high) == pytest.approx(expected, rel=REL)


def test_no_scipy_for_an_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)  # import scipy fails
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    low, high = t_interval([0.2, 0.4, 0.6, 0.8], 0.95)
    assert (round(low, 4), round(high, 4)) == (0.0891, 0.9109)
