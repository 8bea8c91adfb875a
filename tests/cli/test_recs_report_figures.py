"""``rankwise recs TEST A B --html``: the report has the measure@k curves and the segment panels."""

from __future__ import annotations

import re
from pathlib import Path


def test_the_compared_models_report_has_curves_and_segment_panels(cli, tmp_path: Path) -> None:
    (tmp_path / "test.csv").write_text("user,item\n1,a\n2,b\n3,a\n4,c\n")
    (tmp_path / "train.csv").write_text("user,item\n1,z\n2,z\n3,c\n")
    (tmp_path / "a.csv").write_text("user,item\n1,z\n1,a\n2,b\n2,a\n3,c\n3,a\n4,c\n4,b\n")
    (tmp_path / "b.csv").write_text("user,item\n1,b\n1,a\n2,a\n2,b\n3,a\n3,b\n4,b\n4,c\n")
    (tmp_path / "seg.csv").write_text("user,segment\n1,x\n2,x\n3,y\n4,y\n")
    outcome = cli(["recs", "test.csv", "a.csv", "b.csv", "-m", "P@2", "recall@2",
                   "--exclude", "train.csv", "-k", "2", "--baseline", "a", "--segments",
                   "seg.csv", "--test", "t-test", "--html", "r.html"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    page = (tmp_path / "r.html").read_text()
    curves = re.search(r'<section id="curves".*?</section>', page, re.S)
    assert curves is not None
    titles = re.findall(r'data-title="([^"]+)"', curves.group(0))
    assert titles == ["recall@k", "P@k"]
    # one line per model in each panel; k = 1..2 (the cut)
    assert len(re.findall(r'class="series" data-name="a"', curves.group(0))) == 2
    assert len(re.findall(r'class="series" data-name="b"', curves.group(0))) == 2
    assert "k from 1 to 2" in curves.group(0)
    panels = re.search(r'<figure[^>]*data-plot="segment-panels".*?</figure>', page, re.S)
    assert panels is not None
    assert re.findall(r'data-segment="([^"]+)"', panels.group(0)) == [
        "x (2 users)", "y (2 users)"]
    # P@2 (the main measure: the first asked for) by hand, a's lists after the seen items
    # are excluded: user 1 a, user 2 b a, user 3 a (c seen), user 4 c b: one held-out item
    # each, over k = 2
    means = re.findall(r'data-model="([ab])" data-mean="([^"]+)"', panels.group(0))
    assert [(model, float(mean)) for model, mean in means if model == "a"] == [
        ("a", 0.5), ("a", 0.5)]
