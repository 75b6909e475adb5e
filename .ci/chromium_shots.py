#!/usr/bin/env python3
"""Screenshots and element boxes of many HTML pages in one headless Chromium session.

Usage: chromium_shots.py MANIFEST.json [JOBS]

MANIFEST is a list of {"html": path, "width": px, "height": px, "png": path, "boxes": path}.
For each page the viewport is set to width x height, the page is loaded and its fonts awaited,
the viewport is written as a PNG to "png" and the boxes of every [data-pen-id] element
(getBoundingClientRect, CSS pixels) to "boxes" as {"id": [x, y, width, height]}.

Chromium is driven over --remote-debugging-pipe (the DevTools protocol on file descriptors 3
and 4, messages ended by NUL), so nothing beyond the Python standard library is needed and no
port is opened. The flags are the ones this machine's closed network needs.
"""

import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

# Seconds one DevTools answer may take before the run is given up (a page that never loads).
ANSWER_TIMEOUT = 60

# Times a browser that dies mid-run (headless Chromium now and then closes its DevTools pipe on
# a loaded CI machine) is started again for the pages it had left, before the run fails.
RESTARTS = 2


class BrowserGone(Exception):
    """Chromium closed its end of the DevTools pipe."""

BOXES_SCRIPT = """JSON.stringify(Object.fromEntries(Array.from(document.querySelectorAll('[data-pen-id]'))
  .map(e => { const r = e.getBoundingClientRect(); return [e.dataset.penId, [r.x, r.y, r.width, r.height]]; })))"""


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("chromium_shots: no chromium on PATH (apt-get install chromium)")


class Browser:
    def __init__(self, profile):
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        # Move the child's ends above 10 so that dup2 into 3 and 4 cannot clobber them.
        high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
        high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def wire():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        args = [
            chromium_binary(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1",
            "--font-render-hinting=none", "--allow-file-access-from-files",
            "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank",
        ]
        self.process = subprocess.Popen(args, close_fds=False, preexec_fn=wire,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(high_r)
        os.close(high_w)
        self.writer = os.fdopen(to_child_w, "wb", buffering=0)
        self.reader = os.fdopen(from_child_r, "rb", buffering=0)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read_message(self):
        while b"\0" not in self.buffer:
            chunk = self.reader.read(1 << 16)
            if not chunk:
                raise BrowserGone("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.writer.write(json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read_message()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    sys.exit(f"chromium_shots: {method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def wait_event(self, method, session):
        while True:
            for i, event in enumerate(self.events):
                if event["method"] == method and event.get("sessionId") == session:
                    del self.events[i]
                    return event
            self.events.append(self._read_message())

    def close(self):
        try:
            self.send("Browser.close")
        except (SystemExit, BrowserGone, OSError):
            pass
        try:
            self.process.wait(timeout=ANSWER_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        pages = json.load(f)
    jobs = max(1, int(sys.argv[2])) if len(sys.argv) == 3 else 1
    # JOBS browsers at once, each with every JOBS-th page: a page is mostly one core's work.
    failures = []

    def run(chunk):
        try:
            shoot(chunk)
        except BaseException as error:  # noqa: BLE001 - reported after every browser ended
            failures.append(error)

    threads = [threading.Thread(target=run, args=(pages[i::jobs],)) for i in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def shoot(pages):
    """Shoots `pages` in one browser; a browser that dies is started again for the page it was
    on and the rest, at most RESTARTS times."""
    done = 0
    for attempt in range(RESTARTS + 1):
        try:
            done += shoot_in_one_browser(pages[done:])
            return
        except BrowserGone as gone:
            finished = getattr(gone, "finished", 0)
            done += finished
            if attempt == RESTARTS:
                sys.exit(f"chromium_shots: {gone} (restarted {RESTARTS} times; {len(pages) - done} pages left)")
            print(f"chromium_shots: {gone} after {done} of {len(pages)} pages; starting it again",
                  file=sys.stderr, flush=True)


def shoot_in_one_browser(pages):
    """Shoots `pages` in a new browser; the number shot. A BrowserGone carries how many were
    finished before it."""
    profile = tempfile.mkdtemp(prefix="nib-chromium-")
    browser = Browser(profile)
    finished = 0
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Page.enable", session=session)
        for page in pages:
            browser.send("Emulation.setDeviceMetricsOverride", {
                "width": page["width"], "height": page["height"], "deviceScaleFactor": 1, "mobile": False,
            }, session)
            browser.send("Page.navigate", {"url": "file://" + os.path.abspath(page["html"])}, session)
            browser.wait_event("Page.loadEventFired", session)
            browser.send("Runtime.evaluate", {"expression": "document.fonts.ready.then(() => 1)",
                                              "awaitPromise": True}, session)
            shot = browser.send("Page.captureScreenshot", {"format": "png"}, session)
            with open(page["png"], "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            boxes = browser.send("Runtime.evaluate", {"expression": BOXES_SCRIPT, "returnByValue": True}, session)
            with open(page["boxes"], "w") as f:
                f.write(boxes["result"]["value"])
            finished += 1
        return finished
    except BrowserGone as gone:
        gone.finished = finished
        raise
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
