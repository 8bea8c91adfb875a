"""trec_eval parameters rankwise refuses where trec_eval gives another measure's number.

docs/cli.md, differences 16 and 17: negative grades and a grade given twice in a gain
map, a negative set_F parameter, and two '=' in one pair (trec_eval's own error).
"""

from __future__ import annotations

import pytest

from rankwise.exceptions import MeasureSyntaxError
from rankwise.measures.trec_names import parse_trec


@pytest.mark.parametrize("name, words", [
    ("dcg.-1=5", "a gain for grade -1"),
    ("ndcg.-2=5,1=3", "a gain for grade -2"),
    ("G.1=2,1=5", "grade 1 is given two gains"),
    ("Rndcg.2=1,+2=3", "grade 2 is given two gains"),
    ("set_F.-1", "beta squared, 0 or more"),
    ("ndcg.1=2=3", "expected name=value pairs, got '1=2=3'"),
    ("rbp.p=0.5=1", "expected name=value pairs"),
])
def test_refused_with_the_reason(name: str, words: str) -> None:
    with pytest.raises(MeasureSyntaxError, match=words):
        parse_trec(name)


def test_what_is_still_read() -> None:
    # a key that is not an integer is skipped, as trec_eval skips it; rbp's p given
    # twice: the last, as trec_eval's loop over the pairs leaves it
    (dcg,) = (entry.measure for entry in parse_trec("dcg.x=5,1=3"))
    assert dcg is not None and dict(dcg.param("gains")) == {1.0: 3.0}
    (rbp,) = (entry.measure for entry in parse_trec("rbp.p=0.5,p=0.7"))
    assert rbp is not None and rbp.param("p") == 0.7
    (f,) = (entry.measure for entry in parse_trec("set_F.0"))
    assert f is not None and f.param("beta") == 0.0


def test_the_command_exits_2(cli, tmp_path) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 r\n")
    outcome = cli(["trec-eval", "-m", "G.1=2,1=5", "q", "r"], cwd=tmp_path)
    assert outcome.status == 2 and outcome.text == ""
    assert "grade 1 is given two gains" in outcome.err
