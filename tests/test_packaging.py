"""What the package's metadata promises, and what an installed rankwise carries (issue 41).

One version, written in ``src/rankwise/_version.py``; the MIT licence as an SPDX
expression with its text in the sdist and the wheel; the Python versions the
classifiers claim are those the wheels are built for and CI tests
(``.ci/packaging`` reads them from the classifiers). CI runs these tests against
the installed wheel and sdist too (``.ci/test_installed.py``), where the last
test reads the installed metadata.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

import rankwise

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib", reason="Python 3.10 reads no TOML without tomli")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _claimed_pythons(project: dict) -> list[tuple[int, int]]:
    prefix = "Programming Language :: Python :: 3."
    return sorted((3, int(c[len(prefix):])) for c in project["classifiers"]
                  if c.startswith(prefix) and c[len(prefix):].isdigit())


def test_the_version_is_written_once() -> None:
    data = _pyproject()
    assert "version" not in data["project"]
    assert data["project"]["dynamic"] == ["version"]
    assert data["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "rankwise._version.__version__"}
    # (a drop-in may state its peer's version: compat/ir_measures says ir_measures')
    ours = re.compile(rf"^__version__\s*=\s*[\"']{re.escape(rankwise.__version__)}[\"']", re.M)
    written = [path.name for path in (ROOT / "src" / "rankwise").rglob("*.py")
               if ours.search(path.read_text(encoding="utf-8"))]
    assert written == ["_version.py"]
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", rankwise.__version__)


def test_the_licence_is_mit_with_its_text() -> None:
    project = _pyproject()["project"]
    assert project["license"] == "MIT"
    assert project["license-files"][0] == "LICENSE"
    for name in project["license-files"]:
        assert (ROOT / name).is_file(), name
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) the rankwise developers\n")
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in text
    # PEP 639: the SPDX expression replaces the licence classifiers
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]


def test_the_metadata_says_what_a_package_index_shows() -> None:
    project = _pyproject()["project"]
    assert set(project["urls"]) == {"Homepage", "Documentation", "Source", "Issues", "Changelog"}
    assert (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").startswith("# Changelog\n")
    assert "Typing :: Typed" in project["classifiers"]
    assert (ROOT / "src" / "rankwise" / "py.typed").is_file()
    assert len(project["keywords"]) >= 5


def test_the_python_versions_claimed_are_those_built_and_tested() -> None:
    data = _pyproject()
    claimed = _claimed_pythons(data["project"])
    assert claimed, "no Python version classifier"
    # contiguous, from the lowest version requires-python admits
    assert claimed == [(3, minor) for minor in range(claimed[0][1], claimed[-1][1] + 1)]
    assert data["project"]["requires-python"] == f">={claimed[0][0]}.{claimed[0][1]}"
    # cibuildwheel builds (and tests) a wheel for each of them, and for no other
    built = data["tool"]["cibuildwheel"]["build"].split()
    assert built == [f"cp3{minor}-*" for _, minor in claimed]


def test_the_installed_metadata(tmp_path: Path) -> None:
    """Against an installed wheel or sdist (CI): the metadata and the licence file it carries."""
    try:
        dist = metadata.distribution("rankwise")
    except metadata.PackageNotFoundError:
        pytest.skip("rankwise is not installed (run from a checkout)")
    init = Path(str(dist.locate_file("rankwise/__init__.py")))
    if dist.read_text("WHEEL") is None or not init.is_file() or not init.samefile(
            rankwise.__file__):
        pytest.skip("the rankwise imported is not an installed one (a checkout, or editable)")
    meta = dist.metadata
    assert dist.version == rankwise.__version__
    assert meta["License-Expression"] == "MIT"
    assert sorted(meta.get_all("License-File") or []) == sorted(
        ["LICENSE", "src/rankwise/demo_data/NOTICE.md"])
    files = {str(f) for f in dist.files or ()}
    licence = next(f for f in files if f.endswith(".dist-info/licenses/LICENSE"))
    assert Path(str(dist.locate_file(licence))).read_text(encoding="utf-8").startswith(
        "MIT License")
    assert "rankwise/engines/spark/java/RanksPass.java" in files
    assert "rankwise/demo_data/NOTICE.md" in files
