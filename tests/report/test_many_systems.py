"""The report with many systems: Tukey letters and ANOVA, discriminative power and ASL curves."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from rankwise.design import discriminative_power_results
from rankwise.exceptions import InvalidParameterError
from rankwise.reporting import build_report

MEASURES = ["ndcg@10", "map"]


def test_tukey_letters_and_anova_in_the_report(synthetic: Any, mpl: Any) -> None:
    qrels, runs = synthetic(60, 4)
    report = build_report(qrels, runs, MEASURES, test="tukey", seed=0, max_k=5)
    comparison = report.comparison
    assert comparison.test == "tukey" and comparison.correction == "none"
    html = report.to_html()
    shown = re.findall(r'<sup class="cld"[^>]*>([^<]*)</sup>', html)
    expected = [comparison.letters(m)[s] for s in report.systems for m in MEASURES]
    assert shown == expected
    assert 'id="anova"' in html and "two-way ANOVA (system × query) F(3, 177)" in html
    assert report.settings["test"] == "tukey"


def test_discriminative_power_in_the_report(synthetic: Any, mpl: Any) -> None:
    qrels, runs = synthetic(50, 3)
    report = build_report(qrels, runs, MEASURES, seed=3, max_k=5)
    power = report.discrimination
    assert power is not None and power.method == "bootstrap" and power.n_resamples == 1000
    again = discriminative_power_results(report.results, MEASURES, seed=3, n_resamples=1000)
    for measure in MEASURES:
        np.testing.assert_array_equal(power.p_values[measure], again.p_values[measure])
    html = report.to_html()
    assert 'id="discriminative-power"' in html and 'data-plot="asl"' in html
    assert f"{power.fraction('map'):.0%}" in html
    assert "discriminative power" in report.settings
    none = build_report(qrels, runs, MEASURES, seed=3, max_k=5, discriminative_power=None)
    assert none.discrimination is None and 'id="discriminative-power"' not in none.to_html()
    two = build_report(qrels, dict(list(runs.items())[:2]), MEASURES, seed=3, max_k=5)
    assert two.discrimination is None  # one pair: no curve to speak of
    with pytest.raises(InvalidParameterError, match="discriminative_power"):
        build_report(qrels, runs, MEASURES, discriminative_power="t-test")
