"""Compact letter display: sharing a letter means not significantly different, and R agrees."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import significance_matrices

from rankwise.exceptions import InvalidParameterError
from rankwise.stats import compact_letters
from rankwise.stats.letters import letter_names


def shares(a: str, b: str) -> bool:
    return bool(set(a) & set(b))


@settings(max_examples=150, deadline=None)
@given(significance_matrices())
def test_two_systems_share_a_letter_iff_they_do_not_differ(case) -> None:
    means, flags = case
    letters = compact_letters(means, flags)
    m = len(means)
    assert len(letters) == m and all(letters)
    for i in range(m):
        for j in range(i + 1, m):
            assert shares(letters[i], letters[j]) == (not flags[i, j]), (letters, i, j)
    # "a" goes to the group of the best mean
    best = int(np.lexsort((np.arange(m), -means))[0])
    assert "a" in letters[best]
    # letters are used in order: a, b, c, ... with none skipped
    used = sorted(set("".join(letters)))
    assert used == letter_names(len(used))


def test_examples() -> None:
    none = np.zeros((3, 3), dtype=bool)
    assert compact_letters([0.3, 0.2, 0.1], none) == ["a", "a", "a"]
    every = ~np.eye(3, dtype=bool)
    assert compact_letters([0.1, 0.3, 0.2], every) == ["c", "a", "b"]
    # a chain: 1 differs from 3 only
    chain = np.zeros((3, 3), dtype=bool)
    chain[0, 2] = chain[2, 0] = True
    assert compact_letters([0.3, 0.2, 0.1], chain) == ["a", "ab", "b"]
    assert compact_letters([], np.zeros((0, 0), dtype=bool)) == []
    with pytest.raises(InvalidParameterError, match="symmetric"):
        compact_letters([1, 2], [[False, True], [False, False]])
    with pytest.raises(InvalidParameterError, match="square"):
        compact_letters([1, 2, 3], np.zeros((2, 2), dtype=bool))


def test_many_letters_are_joined_by_commas() -> None:
    m = 60  # every pair differs: 60 groups, more than the 52 single letters
    letters = compact_letters(np.arange(m, dtype=float), ~np.eye(m, dtype=bool))
    assert letters[-1] == "a" and letters[0] == "h2"
    assert len(set(letters)) == m


_R_LETTERS = r"""
lines <- readLines(file("stdin"))
sig <- as.logical(strsplit(lines[2], ",")[[1]])
names(sig) <- strsplit(lines[1], ",")[[1]]
out <- multcompView::multcompLetters(sig)$Letters
cat(paste(names(out), out, sep="=", collapse=" "), "\n")
"""


@pytest.mark.parametrize("seed", range(6))
def test_groups_equal_r_multcompview(seed: int, tmp_path: Path) -> None:
    rscript = os.environ.get("RANKWISE_RSCRIPT") or shutil.which("Rscript")
    if rscript is None:
        pytest.skip("R is not installed (set RANKWISE_RSCRIPT or put Rscript on the PATH)")
    check = subprocess.run([rscript, "-e", "library(multcompView)"], capture_output=True)
    if check.returncode:
        pytest.skip("R package multcompView is not installed")
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 8))
    means = np.sort(rng.random(m))[::-1]
    # significance as a real test would give it: pairs far enough apart differ
    flags = np.abs(means[:, None] - means[None, :]) > rng.uniform(0.1, 0.4)
    names = [f"S{i}" for i in range(m)]
    labels, values = [], []
    for i in range(m):
        for j in range(i + 1, m):
            labels.append(f"{names[i]}-{names[j]}")
            values.append("TRUE" if flags[i, j] else "FALSE")
    script = tmp_path / "letters.R"
    script.write_text(_R_LETTERS, encoding="utf-8")
    out = subprocess.run([rscript, str(script)], input=",".join(labels) + "\n"
                         + ",".join(values) + "\n", capture_output=True, text=True,
                         check=True).stdout.split()
    r_letters = dict(item.split("=") for item in out)
    ours = dict(zip(names, compact_letters(means, flags)))

    def groups(letters: dict[str, str]) -> set[frozenset[str]]:
        found: dict[str, set[str]] = {}
        for name, text in letters.items():
            for letter in text:
                found.setdefault(letter, set()).add(name)
        return {frozenset(group) for group in found.values()}

    assert groups(ours) == groups(r_letters)  # the same groups; only their names may differ
