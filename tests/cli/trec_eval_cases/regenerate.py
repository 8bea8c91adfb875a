"""Regenerate the expected outputs of these cases with a trec_eval 10.0 binary.

    python tests/cli/trec_eval_cases/regenerate.py /path/to/trec_eval

For each case of cases.json it runs trec_eval in this folder, writes stdout to
expected/<id>.out and the exit status to expected/status.json. The inputs are
small files written for these cases (see README.md); the outputs are what the
reference build printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main(binary: str) -> None:
    cases = json.loads((HERE / "cases.json").read_text())
    out_dir = HERE / "expected"
    out_dir.mkdir(exist_ok=True)
    statuses = {}
    for case in cases:
        stdin = (HERE / case["stdin"]).read_bytes() if case.get("stdin") else None
        done = subprocess.run([binary, *case["args"]], cwd=HERE, input=stdin,
                              capture_output=True, check=False)
        statuses[case["id"]] = done.returncode
        if case.get("compare_stdout", True):
            (out_dir / f"{case['id']}.out").write_bytes(done.stdout)
    (out_dir / "status.json").write_text(json.dumps(statuses, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
