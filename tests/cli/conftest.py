from __future__ import annotations

import io
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from rankwise.cli import main


@dataclass
class Outcome:
    status: int
    out: bytes
    err: str

    @property
    def text(self) -> str:
        return self.out.decode("utf-8")


class _Stdin:
    """A stand-in for sys.stdin with a binary buffer."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def read(self) -> str:
        return self.buffer.read().decode()


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
        ) -> Callable[..., Outcome]:
    """Run ``rankwise.cli.main(argv)`` in-process; return status, stdout bytes, stderr text."""

    def run(argv: Sequence[str], *, stdin: bytes | None = None, cwd: Path | None = None) -> Outcome:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", _Stdin(stdin))
        capsysbinary.readouterr()
        status = main([str(a) for a in argv])
        captured = capsysbinary.readouterr()
        return Outcome(status, captured.out, captured.err.decode("utf-8", "replace"))

    return run
