"""Fixtures of the report tests: small runs, synthetic data, matplotlib, headless Chromium."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import shutil
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

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
                   seed: int = 0, distinct_ids: bool = False) -> tuple[Any, dict[str, Any]]:
    """Judgments and runs of *n_systems* systems of increasing quality (Qrels, {name: Run}).

    Documents are ``d0`` .. in every query, or with *distinct_ids* numbers of 7
    digits no two queries share (as MS MARCO's passages).
    """
    import pyarrow as pa

    from rankwise.io import as_qrels, as_run

    rng = np.random.default_rng(seed)
    queries = np.repeat(np.arange(n_queries), depth)
    docs = np.tile(np.arange(depth), n_queries)
    qid = np.char.add("q", queries.astype(str))
    did = np.char.add("d", docs.astype(str))
    if distinct_ids:
        did = (1_000_000 + np.random.default_rng(seed + 1).permutation(len(qid))).astype(str)
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

    # -- pages: open one, read it, act on it as a user would --------------------------

    def open(self, page: Path, *, width: int = 1280, height: int = 900,
             offline: bool = True, fragment: str = "") -> str:
        """Open *page* (a file; ``#fragment`` after it) in a new tab; its session once loaded.

        The network is emulated offline and no host name resolves, so a request
        that leaves the page fails; :meth:`problems` lists every request sent.
        """
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        if offline:
            self.send("Network.emulateNetworkConditions",
                      {"offline": True, "latency": 0, "downloadThroughput": -1,
                       "uploadThroughput": -1}, session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=session)
        url = page.as_uri() + (f"#{fragment}" if fragment else "")
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_for("Page.loadEventFired", session)
        self.drain(0.3)  # late console messages
        return session

    def evaluate(self, session: str, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                               "awaitPromise": True}, session=session)
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            raise RuntimeError(f"{expression[:80]!r} threw: "
                               f"{details.get('exception', {}).get('description', details)}")
        return reply["result"].get("value")

    def wait_until(self, session: str, expression: str, seconds: float = 20.0) -> Any:
        """Poll *expression* until it is truthy; its value (a timeout is an error)."""
        deadline = time.monotonic() + seconds
        while True:
            value = self.evaluate(session, expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression!r} still false after {seconds:.0f} s")
            self.drain(0.05)

    def problems(self, session: str) -> tuple[list[str], list[str]]:
        """Errors (exceptions, console errors, log errors, dialogs) and the requests sent."""
        errors, requests = [], []
        for event in self.events:
            if event.get("sessionId") != session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                errors.append(json.dumps(params.get("exceptionDetails", {}))[:300])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error",
                                                                                "assert"):
                errors.append(json.dumps(params.get("args", []))[:300])
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append(f"{params['entry'].get('source')}: {params['entry'].get('text')}")
            elif method == "Page.javascriptDialogOpening":
                errors.append(f"a dialog opened: {params.get('message')!r}")
            elif method == "Network.requestWillBeSent":
                requests.append(params["request"]["url"])
        return errors, requests

    def screenshot(self, session: str, path: Path, *, selector: str | None = None,
                   full: bool = False) -> tuple[int, int]:
        """A PNG of the viewport, of the element *selector*, or of the whole page."""
        params: dict[str, Any] = {"format": "png"}
        if selector is not None:
            box = self.evaluate(session, f"""(() => {{
                const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();
                return [r.x + scrollX, r.y + scrollY, r.width, r.height]; }})()""")
            params.update(captureBeyondViewport=True, clip={
                "x": box[0], "y": box[1], "width": max(box[2], 1),
                "height": max(min(box[3], 12_000), 1), "scale": 1})
        elif full:  # the window as tall as the page: no scroll bar
            metrics = self.send("Page.getLayoutMetrics", session=session)
            view = self.evaluate(session, "[innerWidth, innerHeight]")
            height = int(min(metrics["cssContentSize"]["height"], 16_000))
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": view[0], "height": height, "deviceScaleFactor": 1,
                       "mobile": False}, session=session)
            params["captureBeyondViewport"] = True
        shot = self.send("Page.captureScreenshot", params, session=session)
        data = base64.b64decode(shot["data"])
        path.write_bytes(data)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", data[16:24])
        shots = os.environ.get("RANKWISE_SCREENSHOTS")  # a folder to look at them in
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(shots) / path.name)
        return width, height

    def center(self, session: str, selector: str) -> tuple[float, float]:
        """The viewport coordinates of the centre of *selector*, scrolled into view."""
        x, y = self.evaluate(session, f"""(() => {{
            const e = document.querySelector({json.dumps(selector)});
            e.scrollIntoView({{block: "center", behavior: "instant"}});
            const r = e.getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
        return float(x), float(y)

    def mouse(self, session: str, x: float, y: float, *, click: bool = True) -> None:
        """Move the mouse to viewport ``(x, y)`` and (by default) click there, as a user does."""
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y},
                  session=session)
        if click:
            for kind in ("mousePressed", "mouseReleased"):
                self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                                       "button": "left", "clickCount": 1},
                          session=session)
        self.drain(0.05)

    _KEYS: ClassVar[dict[str, tuple[int, str]]] = {
        "Enter": (13, "\r"), "Tab": (9, ""), "Escape": (27, ""), " ": (32, " "),
        "ArrowDown": (40, ""), "ArrowUp": (38, ""), "ArrowRight": (39, ""),
        "ArrowLeft": (37, ""), "Home": (36, ""), "End": (35, "")}

    def key(self, session: str, key: str, *, shift: bool = False) -> None:
        """Press and release *key* (``Enter``, ``Tab``, ``" "``, ``ArrowDown``, ...)."""
        code, text = self._KEYS[key]
        common = {"key": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code,
                  "code": "Space" if key == " " else key, "modifiers": 8 if shift else 0}
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", "text": text, **common},
                  session=session)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **common}, session=session)
        self.drain(0.05)

    def type_text(self, session: str, text: str) -> None:
        """Type *text* into the focused element."""
        self.send("Input.insertText", {"text": text}, session=session)
        self.drain(0.05)

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
