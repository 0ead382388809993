"""Open an HTML file in headless Chromium and report what a reader would see: whether it
loaded, its images (decoded or broken), its console errors and uncaught exceptions.

Drives Chromium over the DevTools protocol (a websocket to the page target), so that it
observes the page itself rather than guessing from Chromium's log.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.sync.client import connect


def chromium() -> str | None:
    """The Chromium executable (Debian's `chromium`), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Page:
    title: str = ""
    images: list[dict[str, Any]] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    text: str = ""


def open_page(path: Path, timeout: float = 60.0) -> Page:
    """Load ``path`` in a fresh headless Chromium and report on it."""
    exe = chromium()
    assert exe is not None, "no chromium"
    # Chromium's helper processes may still be writing the profile when the main process
    # has been killed: they run in its own session (killed together), and what they
    # leave behind does not fail the test.
    with tempfile.TemporaryDirectory(prefix="flitsim-chromium-", ignore_cleanup_errors=True) as profile:
        proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-port=0",
             f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + timeout
            while not (port_file.exists() and port_file.read_text().strip()):
                assert time.monotonic() < deadline, "Chromium did not start"
                assert proc.poll() is None, f"Chromium exited with {proc.returncode}"
                time.sleep(0.1)
            port = int(port_file.read_text().split()[0])
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
            page = next(t for t in targets if t["type"] == "page")
            return _inspect(page["webSocketDebuggerUrl"], path.resolve().as_uri(), deadline)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


def _inspect(url: str, file_uri: str, deadline: float) -> Page:
    out = Page()
    with connect(url, max_size=None, open_timeout=10) as ws:
        ids = iter(range(1, 1_000_000))

        def send(method: str, **params: Any) -> int:
            i = next(ids)
            ws.send(json.dumps({"id": i, "method": method, "params": params}))
            return i

        def until(pred: Any) -> dict[str, Any]:
            while True:
                left = deadline - time.monotonic()
                assert left > 0, "timed out waiting for Chromium"
                msg = json.loads(ws.recv(timeout=left))
                method = msg.get("method")
                if method == "Runtime.consoleAPICalled" and msg["params"]["type"] in ("error", "assert"):
                    out.console_errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in msg["params"]["args"]))
                elif method == "Runtime.exceptionThrown":
                    out.console_errors.append(msg["params"]["exceptionDetails"].get("text", "exception"))
                elif method == "Log.entryAdded" and msg["params"]["entry"]["level"] == "error":
                    out.console_errors.append(msg["params"]["entry"].get("text", ""))
                if pred(msg):
                    return msg

        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            i = send(method)
            until(lambda m: m.get("id") == i)
        send("Page.navigate", url=file_uri)
        until(lambda m: m.get("method") == "Page.loadEventFired")
        # Each image's ink, the fraction of its pixels that are not white, and colour, the
        # fraction that are not grey either, read back from a canvas it is drawn on (the
        # data: URIs of the reports are same-origin).
        probe = """JSON.stringify({
            title: document.title,
            text: document.body ? document.body.innerText : "",
            images: Array.from(document.images).map(i => {
                let ink = null, colour = null;
                if (i.complete && i.naturalWidth > 0) {
                    const c = document.createElement("canvas");
                    c.width = i.naturalWidth; c.height = i.naturalHeight;
                    const g = c.getContext("2d");
                    g.drawImage(i, 0, 0);
                    const d = g.getImageData(0, 0, c.width, c.height).data;
                    let dark = 0, hue = 0;
                    for (let p = 0; p < d.length; p += 4) {
                        if (d[p] < 240 || d[p + 1] < 240 || d[p + 2] < 240) dark++;
                        if (Math.max(d[p], d[p + 1], d[p + 2]) - Math.min(d[p], d[p + 1], d[p + 2]) > 40) hue++;
                    }
                    ink = dark / (d.length / 4);
                    colour = hue / (d.length / 4);
                }
                return {alt: i.alt, complete: i.complete, width: i.naturalWidth, height: i.naturalHeight, ink: ink, colour: colour};
            })
        })"""
        i = send("Runtime.evaluate", expression=probe, returnByValue=True)
        reply = until(lambda m: m.get("id") == i)
        found = json.loads(reply["result"]["result"]["value"])
        # Let late console messages arrive (there should be none).
        i = send("Runtime.evaluate", expression="1")
        until(lambda m: m.get("id") == i)
    out.title = found["title"]
    out.text = found["text"]
    out.images = found["images"]
    return out
