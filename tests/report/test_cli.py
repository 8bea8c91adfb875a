"""``rankwise report`` and ``rankwise plot``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rankwise.cli import main

SRC = Path(__file__).parents[2] / "src"
HEAVY = ("pyarrow", "pandas", "scipy", "polars", "matplotlib", "pyspark", "sklearn")


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def files(trec_files: dict[str, Path]) -> list[Path]:
    return [trec_files["qrels"], trec_files["standard"], trec_files["noisy"]]


def test_report_command(capsys: pytest.CaptureFixture[str], files: list[Path],
                        tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    status, out, err = run(capsys, "report", *files, "-m", "ndcg@10", "map,P@10",
                           "--baseline", "noisy", "--seed", "3", "--max-k", "20",
                           "--title", "My runs", "-o", target)
    assert status == 0, err
    assert out == ""
    assert f"wrote {target}" in err and "2 systems, 3 queries" in err
    html = target.read_text()
    assert "<title>My runs</title>" in html
    assert 'noisy <span class="tag">baseline</span>' in html
    assert ">seed</dt><dd>3</dd>" in html and "k = 1 .. 20" in html


def test_report_with_topics_documents_and_list_depth(
        capsys: pytest.CaptureFixture[str], files: list[Path], tmp_path: Path) -> None:
    """--topics (and --topic-field), --documents and --list-depth reach the explorer's data."""
    import base64
    import json

    from rankwise.report.explorer_data import unpack

    topics = tmp_path / "topics.txt"
    topics.write_text("".join(f"<top>\n<num> Number: {q}\n<title> title {q}\n<desc> "
                              f"Description:\nabout {q}\n</top>\n" for q in (301, 302, 303)))
    docs = sorted({line.split()[2] for line in files[1].read_text().splitlines()})
    collection = tmp_path / "collection.tsv"
    collection.write_text("".join(f"{doc}\ttext of {doc}\n" for doc in docs))

    def data(*extra: object) -> tuple[dict, dict]:
        target = tmp_path / "r.html"
        status, _, err = run(capsys, "report", *files, "-m", "P@10", "--max-k", "5",
                             "--quiet", "-o", target, *extra)
        assert status == 0, err
        html = target.read_text()
        start = html.index('id="rankwise-data">') + len('id="rankwise-data">')
        meta = json.loads(html[start:html.index("</script>", start)])
        return meta, unpack(meta["layout"], base64.b64decode(meta["data"]))

    def texts(arrays: dict, name: str) -> list[str]:
        ends = arrays[f"{name}.len"].cumsum()
        body = arrays[f"{name}.utf8"].tobytes()
        return [body[int(a):int(b)].decode() for a, b in zip([0, *ends[:-1]], ends)]

    meta, arrays = data("--topics", topics, "--documents", collection, "--list-depth", "5")
    assert meta["depth"] == 5 and meta["texts"] and meta["doctexts"]
    assert texts(arrays, "qtext") == ["title 301", "title 302", "title 303"]
    assert set(arrays["cnt"].tolist()) == {5}
    # the documents of the lists, and the relevant ones (those never retrieved: no text)
    assert all(text == (f"text of {doc}" if doc in docs else "") for doc, text in
               zip(texts(arrays, "did"), texts(arrays, "dtext")))
    meta, arrays = data("--topics", topics, "--topic-field", "description")
    assert texts(arrays, "qtext") == ["about 301", "about 302", "about 303"]
    assert meta["depth"] == 20 and not meta["doctexts"]
    meta, _ = data("--list-depth", "0")
    assert meta["depth"] == 0 and not meta["texts"]


def test_report_quiet(capsys: pytest.CaptureFixture[str], files: list[Path],
                      tmp_path: Path) -> None:
    status, out, err = run(capsys, "report", *files, "-m", "P@10", "--max-k", "5",
                           "--quiet", "-o", tmp_path / "r.html")
    assert (status, out, err) == (0, "", "")


@pytest.mark.parametrize(("arguments", "message"), [
    (["--baseline", "nosy"], "baseline 'nosy' is not one of the runs ['STANDARD', 'noisy']; "
                             "did you mean 'noisy'?"),
    (["-m", "ndgc@10"], "unknown measure 'ndgc@10'; did you mean 'ndcg@10'?"),
])
def test_report_errors(capsys: pytest.CaptureFixture[str], files: list[Path], tmp_path: Path,
                       arguments: list[str], message: str) -> None:
    target = tmp_path / "r.html"
    status, _, err = run(capsys, "report", *files, *arguments, "-o", target)
    assert status == 1
    assert err == f"rankwise: error: {message}\n"
    assert not target.exists()


def test_report_refuses_stdin(capsys: pytest.CaptureFixture[str], files: list[Path],
                              tmp_path: Path) -> None:
    status, _, err = run(capsys, "report", files[0], "-", "-o", tmp_path / "r.html")
    assert status == 1 and "'-' (standard input) is not supported" in err


def test_report_needs_output(capsys: pytest.CaptureFixture[str], files: list[Path]) -> None:
    status, _, err = run(capsys, "report", *files)
    assert status == 2 and "-o/--output" in err


@pytest.mark.parametrize(("kind", "suffix", "magic"), [
    ("curves", ".png", b"\x89PNG"), ("distribution", ".svg", b"<?xml"),
    ("differences", ".pdf", b"%PDF"),
])
def test_plot_command(capsys: pytest.CaptureFixture[str], files: list[Path], tmp_path: Path,
                      kind: str, suffix: str, magic: bytes, mpl: object) -> None:
    target = tmp_path / f"figure{suffix}"
    status, out, err = run(capsys, "plot", *files, "--kind", kind, "--max-k", "10",
                           "-o", target)
    assert (status, out) == (0, "")
    assert err.startswith(f"rankwise: wrote {target} (")  # the rule of every command that writes
    assert target.read_bytes().startswith(magic)


def test_plot_curves_of_chosen_families(capsys: pytest.CaptureFixture[str], files: list[Path],
                                        tmp_path: Path, mpl: object) -> None:
    target = tmp_path / "c.svg"
    status, _, err = run(capsys, "plot", *files, "-m", "ndcg@10(gain=linear)", "P(rel=2)",
                         "--max-k", "10", "-o", target)
    assert status == 0, err
    svg = target.read_text()
    assert "ndcg@k(gain=linear)" in svg and "P@k(rel=2)" in svg


@pytest.mark.parametrize(("arguments", "message"), [
    (["-o", "figure.gif"], "cannot tell the figure format of 'figure.gif': expected a file "
                           "name ending in .png, .svg, .pdf, got '.gif'"),
    (["--kind", "curves", "-m", "bpref", "-o", "x.png"], "'bpref' takes no cutoff"),
])
def test_plot_errors(capsys: pytest.CaptureFixture[str], files: list[Path], tmp_path: Path,
                     arguments: list[str], message: str, mpl: object,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, "plot", *files, *arguments)
    assert status == 1
    assert err.startswith(f"rankwise: error: {message}")
    assert list(tmp_path.iterdir()) == []


def test_plot_differences_needs_two_runs(capsys: pytest.CaptureFixture[str], files: list[Path],
                                         tmp_path: Path, mpl: object) -> None:
    status, _, err = run(capsys, "plot", files[0], files[1], "--kind", "differences",
                         "-o", tmp_path / "d.png")
    assert status == 1 and "needs two runs or more" in err


def test_missing_matplotlib(capsys: pytest.CaptureFixture[str], files: list[Path],
                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    status, _, err = run(capsys, "plot", *files, "-o", tmp_path / "p.png")
    assert status == 1
    assert err == ("rankwise: error: rankwise plot needs matplotlib, which is not "
                   "installed: pip install 'rankwise[plot]'\n")
    # the HTML report and SVG figures are drawn by rankwise itself
    for command, target in (("report", "r.html"), ("plot", "p.svg")):
        status, _, err = run(capsys, command, *files, "-m", "map", "--max-k", "5", "--quiet",
                             "-o", tmp_path / target)
        assert (status, err) == (0, ""), command
        assert (tmp_path / target).read_text().count("<svg") >= 1


def test_report_never_imports_matplotlib(files: list[Path], tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    arguments = ["report", *map(str, files), "-m", "map", "--max-k", "5", "--seed", "0",
                 "--quiet", "-o", str(target)]
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *arguments],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0, done.stderr
    heavy = done.stderr.strip().splitlines()[-1].removeprefix("HEAVY=").split(",")
    assert "matplotlib" not in heavy and "scipy" not in heavy, heavy
    # comparison, curves, differences, distributions, and the scatter of the second run
    assert target.read_text().count("<svg") == 5


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


@pytest.mark.parametrize("arguments", [["--help"], ["report", "--help"], ["plot", "--help"]])
def test_help_imports_nothing_heavy(arguments: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *arguments],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "HEAVY="
    assert "usage: rankwise" in done.stdout
    if arguments == ["--help"]:
        assert "report" in done.stdout and "plot" in done.stdout


def test_importing_the_package_does_not_import_matplotlib() -> None:
    code = ("import sys, rankwise, rankwise.report; "
            "print(sorted(m for m in ('matplotlib', 'scipy') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={"PYTHONPATH": str(SRC)})
    assert done.stdout.strip() == "[]"


# ----------------------------------------------------------------------------
# issue 13, items 24 and 33
# ----------------------------------------------------------------------------

HOSTILE_IDS = ["$\\foo$", "$x^$", "<script>", "long" + "z" * 300]


@pytest.fixture
def hostile_runs(trec_files: dict[str, Path], tmp_path: Path) -> list[Path]:
    """The standard run under run ids matplotlib would read as math (or as markup)."""
    lines = trec_files["standard"].read_text().splitlines()
    paths = []
    for index, name in enumerate(HOSTILE_IDS):
        path = tmp_path / f"run{index}.txt"
        shift = 0.01 * index
        path.write_text("".join(
            f"{q} {i} {d} {r} {float(s) + shift * (hash(d) % 7):.4f} {name}\n"
            for q, i, d, r, s, _ in (line.split() for line in lines)
        ))
        paths.append(path)
    return paths


@pytest.mark.parametrize("kind", ["curves", "distribution", "differences"])
@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_plot_with_hostile_run_ids(capsys: pytest.CaptureFixture[str],
                                   trec_files: dict[str, Path], hostile_runs: list[Path],
                                   tmp_path: Path, kind: str, suffix: str, mpl: object) -> None:
    target = tmp_path / f"figure{suffix}"
    status, _, err = run(capsys, "plot", trec_files["qrels"], *hostile_runs, "--kind", kind,
                         "--max-k", "10", "--baseline", "$x^$", "-o", target)
    assert status == 0 and err.startswith(f"rankwise: wrote {target} (")
    if suffix == ".svg":
        text = target.read_text()
        assert "$x^$" in text and "&lt;script&gt;" in text and "<script>" not in text


def test_report_with_hostile_run_ids(capsys: pytest.CaptureFixture[str],
                                     trec_files: dict[str, Path], hostile_runs: list[Path],
                                     tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    status, _, err = run(capsys, "report", trec_files["qrels"], *hostile_runs, "-m", "map",
                         "--max-k", "5", "--seed", "0", "-o", target)
    assert status == 0, err
    html = target.read_text()
    assert "<script>" not in html and "$\\foo$" in html and "$x^$" in html


@pytest.mark.parametrize("command", ["report", "plot"])
def test_nothing_is_written_when_drawing_fails(capsys: pytest.CaptureFixture[str],
                                               files: list[Path], tmp_path: Path,
                                               command: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("drawing failed")

    if command == "report":
        from rankwise.report.svg import Canvas

        monkeypatch.setattr(Canvas, "svg", broken)
    else:
        pytest.importorskip("matplotlib")
        from matplotlib.figure import Figure

        monkeypatch.setattr(Figure, "savefig", broken)
    target = tmp_path / ("out.html" if command == "report" else "out.png")
    target.write_bytes(b"the previous output")
    with pytest.raises(RuntimeError, match="drawing failed"):
        run(capsys, command, *files, "-m", "map", "--max-k", "5", "-o", target)
    assert target.read_bytes() == b"the previous output"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary file


def test_report_of_process_substitutions(trec_files: dict[str, Path], tmp_path: Path) -> None:
    import hashlib
    import shutil

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    target = tmp_path / "r.html"
    qrels, noisy = trec_files["qrels"], trec_files["noisy"]
    command = (f"{sys.executable} -m rankwise report <(cat '{qrels}') <(cat '{noisy}') "
               f"'{trec_files['standard']}' -m map --max-k 5 --seed 0 -o '{target}'")
    done = subprocess.run([bash, "-c", command], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC), "MPLBACKEND": "Agg"})
    assert done.returncode == 0, done.stderr
    html = target.read_text()
    for path in (qrels, noisy):
        data = path.read_bytes()
        assert hashlib.sha256(data).hexdigest() in html and f"({len(data):,} B)" in html
    assert "/dev/fd/" in html and "a pipe: size and SHA-256 of the bytes read" in html
    assert "in memory" not in html
