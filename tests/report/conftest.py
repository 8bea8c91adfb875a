"""Fixtures of the report tests: small runs, synthetic data, matplotlib, headless Chromium."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

TREC_EVAL = Path(__file__).parents[1] / "data" / "trec_eval"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


# ----------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def trec_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """trec_eval's qrels.test and results.test, and two runs made by perturbing its scores."""
    folder = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(7)
    lines = (TREC_EVAL / "results.test").read_text().splitlines()
    files = {"qrels": TREC_EVAL / "qrels.test", "standard": TREC_EVAL / "results.test"}
    for name, noise in (("noisy", 0.3), ("shuffled", 1.5)):
        path = folder / f"{name}.run"
        with path.open("w") as stream:
            for line in lines:
                qid, it, doc, rank, score, _ = line.split()
                stream.write(f"{qid} {it} {doc} {rank} "
                             f"{float(score) + rng.normal() * noise:.6f} {name}\n")
        files[name] = path
    return files


def make_synthetic(n_queries: int, n_systems: int, depth: int = 100,
                   seed: int = 0) -> tuple[Any, dict[str, Any]]:
    """Judgments and runs of *n_systems* systems of increasing quality (Qrels, {name: Run})."""
    import pyarrow as pa

    from rankwise.io import as_qrels, as_run

    rng = np.random.default_rng(seed)
    queries = np.repeat(np.arange(n_queries), depth)
    docs = np.tile(np.arange(depth), n_queries)
    qid = np.char.add("q", queries.astype(str))
    did = np.char.add("d", docs.astype(str))
    grade = (rng.random(len(qid)) < 0.08) * rng.integers(1, 4, len(qid))
    qrels = as_qrels(pa.table({"query_id": qid, "doc_id": did, "relevance": grade}))
    runs = {}
    for s in range(n_systems):
        score = grade * (0.3 + 0.25 * s) + rng.normal(size=len(qid))
        runs[f"sys{s}"] = as_run(pa.table({"query_id": qid, "doc_id": did, "score": score}),
                                 name=f"sys{s}")
    return qrels, runs


@pytest.fixture(scope="session")
def synthetic() -> Callable[..., tuple[Any, dict[str, Any]]]:
    return make_synthetic


# ----------------------------------------------------------------------------
# matplotlib
# ----------------------------------------------------------------------------


@pytest.fixture
def mpl() -> Iterator[Any]:
    """matplotlib with the Agg backend; figures of pyplot closed after the test."""
    matplotlib = pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield matplotlib
    plt.close("all")


# ----------------------------------------------------------------------------
# headless Chromium, driven over the DevTools protocol on a pipe
# ----------------------------------------------------------------------------


def find_chromium() -> str | None:
    """The Chromium executable ($RANKWISE_CHROMIUM, else the first on PATH), or None."""
    explicit = os.environ.get("RANKWISE_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class DevTools:
    """A minimal DevTools protocol client over ``--remote-debugging-pipe`` (no websocket).

    Chromium reads NUL-terminated JSON commands on its file descriptor 3 and
    writes replies and events on descriptor 4.
    """

    def __init__(self, executable: str, user_data_dir: str, *, timeout: float = 60.0) -> None:
        self.timeout = timeout
        to_child_read, self._to_child = os.pipe()
        self._from_child, from_child_write = os.pipe()
        arguments = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", "--disable-default-apps",
            "--mute-audio", "--no-default-browser-check", "--disable-dev-shm-usage",
            "--host-resolver-rules=MAP * ~NOTFOUND",  # no name resolves: no network at all
            "--remote-debugging-pipe", f"--user-data-dir={user_data_dir}", "about:blank",
        ]
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()

        def wire() -> None:  # in the child before exec: the pipes become fds 3 and 4
            import fcntl

            high_read = fcntl.fcntl(to_child_read, fcntl.F_DUPFD, 64)
            high_write = fcntl.fcntl(from_child_write, fcntl.F_DUPFD, 64)
            os.dup2(high_read, 3)  # inheritable, unlike the other descriptors
            os.dup2(high_write, 4)

        self.process = subprocess.Popen(
            arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr,
            close_fds=False, preexec_fn=wire,
        )
        os.close(to_child_read)
        os.close(from_child_write)
        self._next_id = 0
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_child, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._messages.put(None)
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                self._messages.put(json.loads(raw))

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        """Send a command; wait for its reply, keeping the events that come meanwhile."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        try:
            os.write(self._to_child, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise RuntimeError(f"Chromium is gone before {method}: {self._stderr_tail()}") from None
        deadline = time.monotonic() + self.timeout
        while True:
            item = self._get(deadline, method)
            if item.get("id") == self._next_id:
                if "error" in item:
                    raise RuntimeError(f"{method}: {item['error']}")
                return item.get("result", {})
            self.events.append(item)

    def wait_for(self, method: str, session: str | None = None) -> dict[str, Any]:
        """Wait for the event *method* (or return it if it came already)."""
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        deadline = time.monotonic() + self.timeout
        while True:
            item = self._get(deadline, method)
            self.events.append(item)
            if item.get("method") == method and item.get("sessionId") == session:
                return item

    def drain(self, seconds: float) -> None:
        """Collect the events of the next *seconds*."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                item = self._messages.get(timeout=left)
            except queue.Empty:
                return
            if item is None:
                return
            self.events.append(item)

    def _get(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        left = deadline - time.monotonic()
        try:
            item = self._messages.get(timeout=max(left, 0.01))
        except queue.Empty:
            raise TimeoutError(f"no answer from Chromium to {waiting_for} in "
                               f"{self.timeout:.0f} s") from None
        if item is None:
            raise RuntimeError(f"Chromium exited while waiting for {waiting_for}: "
                               f"{self._stderr_tail()}")
        return item

    def _stderr_tail(self) -> str:
        self.stderr.seek(0)
        lines = self.stderr.read().decode(errors="replace").splitlines()
        useful = [line for line in lines if "dbus" not in line]  # no D-Bus in containers
        return f"exit status {self.process.poll()}; " + "\n".join(useful[-20:])

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.send("Browser.close")
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()  # only the process this fixture started
            self.process.wait(timeout=15)
        os.close(self._to_child)
        self.stderr.close()


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[DevTools]:
    """Headless Chromium on a fresh profile; skipped when it is not installed."""
    executable = find_chromium()
    if executable is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium; "
                    "or set RANKWISE_CHROMIUM to its path)")
    browser = DevTools(executable, str(tmp_path / "profile"))
    try:
        yield browser
    finally:
        browser.close()
