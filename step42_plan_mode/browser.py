"""Headless Chromium driven over its DevTools pipe: open a page, read what it logged and fetched.

No package and no browser download: Debian's `chromium` runs with
`--remote-debugging-pipe`, and the DevTools protocol travels as JSON messages,
each ended by a NUL byte, on file descriptors 3 (to the browser) and 4 (from
it). The session page's tests use it to see an exported page as a browser
does (console errors, exceptions, every request it tried, what a script
would have set), and step42_plan_mode/page_screen.py to draw the README's
picture of the lesson's page.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
         "--disable-background-networking", "--disable-component-update", "--no-first-run",
         "--disable-sync", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
         "--force-color-profile=srgb", "--font-render-hinting=none"]
TIMEOUT_SECONDS = 30.0


class BrowserMissing(RuntimeError):
    """No chromium on PATH (Debian: apt-get install chromium)."""


def chromium() -> str:
    """The chromium binary on PATH."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise BrowserMissing("chromium is not installed (Debian: apt-get install -y chromium)")
    return found


@dataclass
class PageVisit:
    """What the browser saw while a page loaded: its log, its exceptions, its requests."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


class Browser:
    """One headless Chromium with one tab, for `with Browser() as browser:`."""

    def __init__(self, width: int = 1100, height: int = 900):
        self.width, self.height = width, height
        self._profile = tempfile.TemporaryDirectory(prefix="stepagent-chromium-",
                                                    ignore_cleanup_errors=True)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []

    def __enter__(self) -> "Browser":
        to_browser, self._send_end = os.pipe()
        self._receive_end, from_browser = os.pipe()

        def wire() -> None:
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self._process = subprocess.Popen([chromium(), *FLAGS, f"--user-data-dir={self._profile.name}",
                                          "about:blank"], pass_fds=(3, 4), preexec_fn=wire,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.call(f"{domain}.enable", session=True)
        self._viewport(self.width, self.height)
        return self

    @contextmanager
    def sized(self, width: int, height: int) -> Iterator["Browser"]:
        """The tab's viewport at width × height for a `with` block, then at the browser's own size."""
        self._viewport(width, height)
        try:
            yield self
        finally:
            self._viewport(self.width, self.height)

    def _viewport(self, width: int, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1, "mobile": False},
                  session=True)

    def __exit__(self, *exc: object) -> None:
        try:
            self.call("Browser.close")  # lets it end its own helper processes and leave its profile
            self._process.wait(timeout=10)
        except (OSError, RuntimeError, TimeoutError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        os.close(self._send_end)
        os.close(self._receive_end)
        self._profile.cleanup()

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        """Send one command and wait for its answer; a protocol error raises RuntimeError."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        os.write(self._send_end, json.dumps(message).encode() + b"\0")
        answer = self._receive(lambda m: m.get("id") == message["id"])
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def _receive(self, wanted: Any) -> dict[str, Any]:
        """The first message `wanted` accepts, kept ones first; the rest are kept as events."""
        for index, kept in enumerate(self._events):
            if wanted(kept):
                return self._events.pop(index)
        deadline = time.monotonic() + TIMEOUT_SECONDS
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                if wanted(message):
                    return message
                self._events.append(message)
            ready, _, _ = select.select([self._receive_end], [], [], max(deadline - time.monotonic(), 0))
            chunk = os.read(self._receive_end, 1 << 20) if ready else b""
            if not chunk:
                raise TimeoutError("chromium did not answer in time" if not ready else "chromium exited")
            self._buffer += chunk

    def open(self, path: Path) -> PageVisit:
        """Load a file and wait for its load event; what it logged and requested on the way."""
        return self.go(path.resolve().as_uri())

    def go(self, url: str) -> PageVisit:
        """Load `url` and wait for its load event, then for one frame to be drawn."""
        self._events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        self._receive(lambda m: m.get("method") == "Page.loadEventFired")
        self.evaluate("new Promise(done => requestAnimationFrame(() => setTimeout(done, 50)))")
        visit = PageVisit()
        for event in self._events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Log.entryAdded" and params["entry"]["level"] == "error":
                visit.errors.append(params["entry"]["text"])
            elif method == "Runtime.consoleAPICalled" and params["type"] in {"error", "assert"}:
                visit.errors.append(" ".join(str(arg.get("value", "")) for arg in params["args"]))
            elif method == "Runtime.exceptionThrown":
                visit.errors.append(params["exceptionDetails"].get("text", "exception"))
            elif method == "Network.requestWillBeSent":
                visit.requests.append(params["request"]["url"])
        return visit

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        answer = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['exceptionDetails'].get('text')}")
        return answer["result"].get("value")

    def screenshot(self) -> bytes:
        """A PNG of the viewport as it is now."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"])
