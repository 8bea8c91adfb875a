"""Where the C modules are missing, rankwise says so once (issue 41, item 4).

``rankwise --version`` lists each speed-up as compiled or pure; the first large
evaluation on the pure path says how to get the compiled build (a warning for
Python callers, one ``note:`` line on the command line, nothing under
``--quiet``). A machine without the C modules is made by a ``sitecustomize``
that makes them absent: importing them fails, as where no compiler built them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import rankwise as rw
from rankwise import _compiled
from rankwise.cli import main

SRC = Path(__file__).resolve().parents[1] / "src"
DEMO = SRC / "rankwise" / "demo_data"
ROWS = 1500  # results.test: 3 topics x 500 documents

_HIDE = textwrap.dedent("""
    import sys

    for name in {names!r}:
        sys.modules[name] = None
""")

# the same process evaluates twice (the note comes once), with "large" lowered to 1,000 rows
_TWICE = textwrap.dedent("""
    import sys
    import rankwise._compiled
    from rankwise.cli import main

    rankwise._compiled.LARGE_RUN_ROWS = {large}
    for _ in range(2):
        status = main(sys.argv[1:])
        sys.stdout.flush()
        sys.stderr.write(f"STATUS={{status}}\\n")
""")


def _without_c(tmp_path: Path, code: list[str], env: dict[str, str] | None = None,
               cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run Python *code* where no C module of rankwise was built."""
    (tmp_path / "sitecustomize.py").write_text(
        _HIDE.format(names=sorted(_compiled.SPEEDUPS)), encoding="utf-8")
    path = os.pathsep.join([str(tmp_path), str(SRC)])
    return subprocess.run([sys.executable, *code], capture_output=True, text=True, check=False,
                          env={**os.environ, **(env or {}), "PYTHONPATH": path}, cwd=cwd,
                          timeout=300)


def _notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "C speed-ups are not built" in line]


def _compiled_here() -> None:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None or any(
            state == "pure (not built)" for state in _compiled.status().values()):
        pytest.skip("the C modules are not built here (test_native says whether they should)")


# ---------------------------------------------------------------------------------------------
# rankwise --version
# ---------------------------------------------------------------------------------------------

def _speedup_lines(text: str) -> dict[str, str]:
    """Module name -> state, from the lines of ``rankwise --version``."""
    found = {}
    for line in text.splitlines()[2:]:
        match = re.fullmatch(r"  (.+?)\s+(rankwise\.[a-z_.]+)\s+(compiled|pure.*)", line)
        assert match, line
        found[match.group(2)] = match.group(3)
    return found


def _version(capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["--version"]) == 0
    return capsys.readouterr().out


def test_version_lists_each_speedup_as_compiled(capsys: pytest.CaptureFixture[str]) -> None:
    _compiled_here()
    text = _version(capsys)
    first = text.splitlines()[0]
    assert first == f"rankwise {rw.__version__} (Python {sys.version.split()[0]})"
    assert _speedup_lines(text) == dict.fromkeys(
        ["rankwise.io._ctrec", "rankwise.data._ccolumns", "rankwise.ranking._cjoin",
         "rankwise.ranking._crank", "rankwise.ranking._cdict", "rankwise.ranking._cpairs",
         "rankwise.kernels._cgreedy", "rankwise.fusion._cfuse", "rankwise.stats._cflip"],
        "compiled")


def test_version_says_pure_when_switched_off(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _compiled_here()
    monkeypatch.setenv("RANKWISE_NO_C", "1")
    states = _speedup_lines(_version(capsys))
    assert set(states.values()) == {"pure (RANKWISE_NO_C=1)"} and len(states) == 9


def test_version_says_pure_where_nothing_was_built(tmp_path: Path) -> None:
    done = _without_c(tmp_path, ["-m", "rankwise", "--version"])
    assert done.returncode == 0, done.stderr
    states = _speedup_lines(done.stdout)
    assert states == dict.fromkeys(_compiled.SPEEDUPS, "pure (not built)")
    assert len(states) == 9


# ---------------------------------------------------------------------------------------------
# the first large evaluation on the pure path
# ---------------------------------------------------------------------------------------------

def test_the_command_line_notes_the_pure_path_once(tmp_path: Path) -> None:
    arguments = ["eval", str(DEMO / "qrels.test"), str(DEMO / "results.test"), "-m", "map"]
    done = _without_c(tmp_path, ["-c", _TWICE.format(large=1000), *arguments])
    assert done.stderr.count("STATUS=0") == 2, done.stderr
    notes = _notes(done.stderr)
    assert len(notes) == 1, done.stderr  # two evaluations, one note
    note = notes[0]
    assert note.startswith("rankwise: note: rankwise's C speed-ups are not built in this "
                           "install (rankwise.io._ctrec, rankwise.data._ccolumns, "
                           "rankwise.ranking._cjoin, rankwise.ranking._crank)")
    assert f"this run of {ROWS:,} rows" in note
    assert "pip install --force-reinstall --no-deps --no-binary rankwise rankwise" in note
    # the numbers are trec_eval's (out.test: map 0.1785), as with the C modules
    assert done.stdout.count("STANDARD  0.1785") == 2, done.stdout


def test_quiet_says_nothing(tmp_path: Path) -> None:
    arguments = ["eval", str(DEMO / "qrels.test"), str(DEMO / "results.test"), "-m", "map",
                 "--quiet"]
    done = _without_c(tmp_path, ["-c", _TWICE.format(large=1000), *arguments])
    assert done.stderr.count("STATUS=0") == 2, done.stderr
    assert _notes(done.stderr) == []


def test_a_small_run_is_not_worth_a_word(tmp_path: Path) -> None:
    arguments = ["eval", str(DEMO / "qrels.test"), str(DEMO / "results.test"), "-m", "map"]
    done = _without_c(tmp_path, ["-c", _TWICE.format(large=ROWS + 1), *arguments])
    assert done.stderr.count("STATUS=0") == 2, done.stderr
    assert _notes(done.stderr) == []


def test_trec_eval_notes_it_and_prints_trec_eval_bytes(tmp_path: Path) -> None:
    data = Path(__file__).resolve().parent / "data" / "trec_eval"
    done = _without_c(tmp_path, ["-c", _TWICE.format(large=1000), "trec-eval", "qrels.test",
                                 "results.test"], cwd=data)
    assert done.stderr.count("STATUS=0") == 2, done.stderr
    notes = _notes(done.stderr)
    assert len(notes) == 1 and notes[0].startswith("rankwise trec-eval: note: "), done.stderr
    assert done.stdout == 2 * (data / "out.test").read_text()


def test_python_callers_get_one_warning(tmp_path: Path) -> None:
    code = textwrap.dedent(f"""
        import warnings
        import rankwise as rw
        import rankwise._compiled

        rankwise._compiled.LARGE_RUN_ROWS = 1000
        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as caught:
            for _ in range(2):
                rw.evaluate({str(DEMO / "qrels.test")!r}, {str(DEMO / "results.test")!r}, ["map"])
        for warning in caught:
            print(warning.category.__name__, issubclass(warning.category, rw.RankwiseWarning))
    """)
    done = _without_c(tmp_path, ["-c", code])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["PurePathWarning True"]


def test_no_word_with_the_c_modules_or_when_switched_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _compiled_here()
    monkeypatch.setattr(_compiled, "LARGE_RUN_ROWS", 10)
    monkeypatch.setattr(_compiled, "_said", False)
    for switched_off in ("0", "1"):
        monkeypatch.setenv("RANKWISE_NO_C", switched_off)
        assert _compiled.pure_path_note(ROWS) is None
        main(["eval", str(DEMO / "qrels.test"), str(DEMO / "results.test"), "-m", "map",
              "-o", os.devnull])  # the engine asks as it evaluates: nothing is said either
    assert _compiled._said is False


def test_the_note_is_given_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_compiled, "_said", False)
    monkeypatch.setattr(_compiled, "load", lambda name: None)  # as if nothing was built
    monkeypatch.delenv("RANKWISE_NO_C", raising=False)
    assert _compiled.pure_path_note(_compiled.LARGE_RUN_ROWS - 1) is None
    first = _compiled.pure_path_note(_compiled.LARGE_RUN_ROWS)
    assert first is not None and f"{_compiled.LARGE_RUN_ROWS:,} rows" in first
    assert _compiled.pure_path_note(10 * _compiled.LARGE_RUN_ROWS) is None
