"""``rankwise --help`` and ``rankwise eval --help`` import no heavy module."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).parents[2] / "src"
HEAVY = ("pyarrow", "pandas", "scipy", "polars", "matplotlib", "pyspark", "sklearn")

PROBE = """
import sys
from rankwise.cli import main
try:
    status = main(sys.argv[1:])
finally:
    sys.stdout.flush()
heavy = sorted(m for m in {heavy!r} if m in sys.modules)
sys.stderr.write("HEAVY=" + ",".join(heavy) + "\\n")
"""


@pytest.mark.parametrize("arguments", [
    ["--help"], ["eval", "--help"], ["trec-eval", "--help"], ["demo", "--help"],
    ["measures", "--help"], ["--version"], ["measures"],
])
def test_help_imports_nothing_heavy(arguments: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *arguments],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout
    assert done.stderr.strip().splitlines()[-1] == "HEAVY="


def test_python_dash_m_help_import_time() -> None:
    """The -X importtime log of ``python -m rankwise --help`` lists no heavy module."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "rankwise", "--help"],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0
    assert "usage: rankwise" in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "rankwise.cli.app" in imported
    assert not {name for name in imported if name.split(".")[0] in HEAVY}


def test_python_dash_m_works_like_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rankwise", "measures", "--trec"],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0
    assert done.stdout.startswith("trec_eval name")


def test_eval_of_small_trec_files_imports_only_what_it_needs(tmp_path: Path) -> None:
    """Issue 13, item 21: TREC files need no frame or dict reader, no JSON, nothing heavy.

    (Start-up time itself is measured by benchmarks/bench_startup.py, not here.)
    """
    from rankwise.io import _fast

    if not _fast.available():  # an install without the C modules (CI's sdist stage)
        pytest.skip("without the C reader, TREC text is read through pyarrow")
    data = SRC / "rankwise" / "demo_data"
    probe = PROBE.replace("heavy = sorted(m for m in {heavy!r} if m in sys.modules)",
                          "heavy = sorted(m for m in {heavy!r} if m in sys.modules)\n"
                          "heavy += sorted(m for m in {light!r} if m in sys.modules)")
    # (rankwise.data._ccolumns is loaded: its name codes join the pieces' query ids)
    light = ("json", "rankwise.io.frames", "rankwise.io.dicts",
             "rankwise.ranking.from_dict", "rankwise.ranking._cdict",
             # nor the other commands' modules, logging, difflib, the tie-average kernels
             "rankwise.cli.commands.compare", "rankwise.cli.commands.trec_eval",
             "rankwise.cli.commands.report", "logging", "difflib",
             "rankwise.kernels.tie_average")
    done = subprocess.run(
        [sys.executable, "-c", probe.format(heavy=HEAVY, light=light), "eval",
         str(data / "qrels.test"), str(data / "results.test"), "-m", "map", "ndcg@10"],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0, done.stderr
    assert "STANDARD" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "HEAVY="


def test_a_misspelt_command_still_gets_a_suggestion() -> None:
    """Only a known command's parser is built; anything else still sees every command."""
    done = subprocess.run(
        [sys.executable, "-m", "rankwise", "evl", "q", "r"],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 2
    assert "eval" in done.stderr and "compare" in done.stderr


# -- Ctrl-C while the command starts (issue 33, item 13) -------------------------------------

INTERRUPTED_IMPORT = """
import runpy, signal, sys

class Interrupt:
    \"\"\"Ctrl-C arriving while {module} is imported.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            signal.raise_signal(signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["rankwise", "eval", {qrels!r}, {run!r}, "-m", "map"]
runpy.run_module("rankwise", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("module", [
    "rankwise.cli",  # python -m rankwise's own import of the command line
    "rankwise.cli.commands.eval",  # the command's parser
    "rankwise.engines",  # what its options list
    "rankwise.options",  # the options of the evaluation
    "rankwise.io.coerce",  # the command itself, reading
])
def test_ctrl_c_during_start_up_exits_quietly_with_130(module: str) -> None:
    data = SRC / "rankwise" / "demo_data"
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IMPORT.format(
            module=module, qrels=str(data / "qrels.test"), run=str(data / "results.test"))],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert (done.returncode, done.stderr) == (130, "\nrankwise: interrupted\n")
    assert done.stdout == ""


def test_an_interrupt_wrapped_by_python_is_still_an_interrupt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankwise.cli import app

    def building(only: str | None = None) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as error:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance") from error

    monkeypatch.setattr(app, "build_parser", building)
    assert app.main(["eval", "q", "r"]) == 130
    assert capsys.readouterr().err == "\nrankwise: interrupted\n"


def test_other_errors_at_start_up_are_not_taken_for_an_interrupt(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    from rankwise.cli import app

    def building(only: str | None = None) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(app, "build_parser", building)
    with pytest.raises(RuntimeError, match="a bug"):
        app.main(["eval", "q", "r"])


# -- numpy's BLAS threads (issue 40): one unless the user chose ------------------------------

BLAS_PROBE = """
import ctypes, glob, os, sys
from rankwise.cli import main
status = main(sys.argv[1:])
import numpy
# the thread count of numpy's own OpenBLAS (the wheels' scipy-openblas), where it is found
libs = glob.glob(os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs",
                              "*scipy_openblas*"))
threads = "?"
for path in libs:
    get = getattr(ctypes.CDLL(path), "scipy_openblas_get_num_threads64_", None)
    if get is not None:
        threads = str(get())
sys.stderr.write(f"ENV={{os.environ.get('OPENBLAS_NUM_THREADS')}} THREADS={{threads}}\\n")
# whether numpy asks for huge pages (the setter returns the setting it replaces)
try:
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:  # numpy 1.x
    from numpy.core.multiarray import _set_madvise_hugepage
huge = _set_madvise_hugepage(False)
sys.stderr.write(f"HUGE_ENV={{os.environ.get('NUMPY_MADVISE_HUGEPAGE')}} HUGE={{int(huge)}}\\n")
sys.exit(status)
"""


def numpy_probe(chosen: dict[str, str]) -> list[str]:
    """The probe's two lines: OpenBLAS's threads, and whether numpy asks for huge pages."""
    data = SRC / "rankwise" / "demo_data"
    env = {"PYTHONPATH": str(SRC)} | chosen
    done = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE.format(), "eval", str(data / "qrels.test"),
         str(data / "results.test"), "-m", "map"],
        capture_output=True, text=True, check=False, env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "STANDARD" in done.stdout
    return done.stderr.strip().splitlines()[-2:]


@pytest.mark.parametrize("chosen", [None, "2"])
def test_the_command_runs_numpy_on_one_blas_thread_unless_told(chosen: str | None) -> None:
    """On a small input OpenBLAS's idle threads cost more CPU than the evaluation."""
    line = numpy_probe({} if chosen is None else {"OPENBLAS_NUM_THREADS": chosen})[0]
    want = chosen or "1"
    assert line.startswith(f"ENV={want} THREADS=")
    threads = line.rsplit("=", 1)[1]
    assert threads in ("?", want)  # "?": another BLAS build, not checked


@pytest.mark.parametrize("chosen", [None, "1"])
def test_the_command_keeps_numpy_off_huge_pages_unless_told(chosen: str | None) -> None:
    """A fresh huge page costs more than it saves where memory goes back to the host."""
    line = numpy_probe({} if chosen is None else {"NUMPY_MADVISE_HUGEPAGE": chosen})[1]
    want = chosen or "0"
    assert line == f"HUGE_ENV={want} HUGE={want}"


@pytest.mark.skipif(sys.platform != "linux", reason="numpy asks for huge pages on Linux only")
def test_numpy_asks_for_huge_pages_by_default() -> None:
    """What the command changes is numpy's default (else the test above shows nothing)."""
    code = ("import numpy\n"
            "try:\n    from numpy._core.multiarray import _set_madvise_hugepage\n"
            "except ImportError:\n    from numpy.core.multiarray import _set_madvise_hugepage\n"
            "print(int(_set_madvise_hugepage(False)))")
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env)
    assert done.stdout.strip() == "1"  # on Linux 4.6 or later


def test_a_process_that_imported_numpy_keeps_its_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """main() called from Python, numpy imported: BLAS started already; nothing is set."""
    import numpy  # noqa: F401

    from rankwise.cli import main

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    assert main(["--version"]) == 0
    capsys.readouterr()
    import os

    assert "OPENBLAS_NUM_THREADS" not in os.environ
    assert "NUMPY_MADVISE_HUGEPAGE" not in os.environ
