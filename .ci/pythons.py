"""The Python versions rankwise claims, and where to find each on this machine.

Usage:
  python .ci/pythons.py claimed      the X.Y of each "Programming Language :: Python :: X.Y"
                                     classifier of pyproject.toml, one a line
  python .ci/pythons.py find X.Y     the path of a Python X.Y interpreter with venv; exit 1
                                     when there is none (pythonX.Y on PATH, pyenv's versions,
                                     /usr/bin, /usr/local/bin)

.ci/packaging tests each claimed version: the claim and the test cannot drift apart.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def claimed() -> list[str]:
    """The X.Y versions of the classifiers (read from pyproject.toml's text: no TOML parser)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.findall(r'"Programming Language :: Python :: (\d+\.\d+)"', text)


def _is(path: str, version: str) -> bool:
    try:
        done = subprocess.run(
            [path, "-c", "import sys, venv, ensurepip; "
             "print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=60, check=False,
        )
    except OSError:
        return False
    return done.returncode == 0 and done.stdout.strip() == version


def find(version: str) -> str | None:
    """A Python *version* interpreter that can make virtual environments, or None."""
    name = f"python{version}"
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = [shutil.which(name) or "",
                  *sorted(glob.glob(f"{pyenv}/versions/{version}.*/bin/{name}"), reverse=True),
                  f"/usr/bin/{name}", f"/usr/local/bin/{name}"]
    for path in candidates:
        if path and os.path.exists(path) and "/shims/" not in path and _is(path, version):
            return path
    return None


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["claimed"]:
            print("\n".join(claimed()))
        case ["find", version]:
            found = find(version)
            if found is None:
                sys.exit(f"pythons: no Python {version} here")
            print(found)
        case _:
            sys.exit(__doc__)
