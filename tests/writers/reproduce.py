#!/usr/bin/env python3
"""Many writers on one document: how many acknowledged writes are still in the file at the end.

Each writer inserts rectangles named after itself and its step (`w3-17`); a write counts as
acknowledged when its command exited 0 or its tool call answered without an error. At the end
every acknowledged name must be in the file. Scenarios (loopback only, bounded):

  cli      N `nib apply` loops on one file
  exec     N `nib exec` loops on one file
  serve    `nib serve` with S HTTP MCP sessions writing while a CLI `apply` loop writes too
  mcp      a `nib mcp` session writing while a CLI `apply` loop writes too
  mixed    all of the above at once (the held-out reproduction's shape)

    python3 tests/writers/reproduce.py target/release/nib [scenario ...] [--runs N]

Prints one line per scenario and run: writes tried, acknowledged, lost. Exits 1 when any
acknowledged write was lost.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "pen", "LIU9293__cirrus__design.pen")


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.tried = 0
        self.acknowledged = []

    def add(self, name, ok):
        with self.lock:
            self.tried += 1
            if ok:
                self.acknowledged.append(name)


def insert_script(name):
    return 'r=I(document, {type: "rectangle", name: "%s", width: 4, height: 4, x: -500, y: -500})' % name


def cli_apply(nib, path, who, steps, tally):
    for step in range(steps):
        name = "%s-%d" % (who, step)
        run = subprocess.run([nib, "apply", path, "-"], input=insert_script(name).encode(),
                             capture_output=True, env=dict(os.environ, NIB_IMAGES="offline"))
        tally.add(name, run.returncode == 0)


def cli_exec(nib, path, who, steps, tally):
    for step in range(steps):
        name = "%s-%d" % (who, step)
        snippet = 'Insert(document, {type: "rectangle", name: "%s", width: 4, height: 4, x: -500, y: -500});' % name
        run = subprocess.run([nib, "exec", path, "-"], input=snippet.encode(), capture_output=True,
                             env=dict(os.environ, NIB_IMAGES="offline"))
        tally.add(name, run.returncode == 0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpSession:
    """A minimal MCP client over streamable HTTP."""

    def __init__(self, url, client):
        self.url = url
        self.session = None
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                    "clientInfo": {"name": client, "version": "1"}})
        self.notify("notifications/initialized")

    def post(self, body):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(request, timeout=120) as response:
            self.session = response.headers.get("Mcp-Session-Id") or self.session
            text = response.read().decode()
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                return json.loads(line[5:])
        return json.loads(text) if text.strip() else None

    def request(self, method, params):
        self.next_id += 1
        return self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})

    def notify(self, method):
        self.post({"jsonrpc": "2.0", "method": method})

    def call(self, tool, arguments):
        answer = self.request("tools/call", {"name": tool, "arguments": arguments})
        result = (answer or {}).get("result") or {}
        return not result.get("isError", True) and "error" not in (answer or {})


def http_writer(url, path, who, steps, tally):
    session = HttpSession(url, who)
    for step in range(steps):
        name = "%s-%d" % (who, step)
        try:
            ok = session.call("batch_design", {"filePath": path, "operations": insert_script(name)})
        except Exception:
            ok = False
        tally.add(name, ok)


def stdio_writer(nib, root, path, who, steps, tally):
    child = subprocess.Popen([nib, "mcp", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=dict(os.environ, NIB_IMAGES="offline"))

    def send(message):
        child.stdin.write((json.dumps(message) + "\n").encode())
        child.stdin.flush()

    def answer(wanted):
        while True:
            line = child.stdout.readline()
            if not line:
                return None
            message = json.loads(line)
            if message.get("id") == wanted:
                return message

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": who, "version": "1"}}})
    answer(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for step in range(steps):
        name = "%s-%d" % (who, step)
        send({"jsonrpc": "2.0", "id": step + 1, "method": "tools/call",
              "params": {"name": "batch_design", "arguments": {"filePath": path, "operations": insert_script(name)}}})
        message = answer(step + 1) or {}
        result = message.get("result") or {}
        tally.add(name, "error" not in message and not result.get("isError", True))
    child.stdin.close()
    child.wait(timeout=60)


def names_in(path):
    with open(path) as f:
        document = json.load(f)
    found = set()
    stack = list(document.get("children", []))
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "name" in node:
                found.add(node["name"])
            stack.extend(node.get("children", []) or [])
    return found


def scenario(nib, kind, folder):
    path = os.path.join(folder, "design.pen")
    shutil.copy(FIXTURE, path)
    os.chmod(path, 0o644)
    tally = Tally()
    threads = []
    server = None

    def start(target, *args):
        thread = threading.Thread(target=target, args=args)
        thread.start()
        threads.append(thread)

    if kind in ("cli", "mixed"):
        for w in range(4 if kind == "cli" else 2):
            start(cli_apply, nib, path, "apply%d" % w, 50 if kind == "cli" else 25, tally)
    if kind in ("exec", "mixed"):
        for w in range(2):
            start(cli_exec, nib, path, "exec%d" % w, 30 if kind == "exec" else 15, tally)
    if kind in ("serve", "mixed"):
        port = free_port()
        server = subprocess.Popen([nib, "serve", "--root", folder, "--listen", "127.0.0.1:%d" % port],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env=dict(os.environ, NIB_IMAGES="offline"))
        url = "http://127.0.0.1:%d/mcp" % port
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        for w in range(4 if kind == "serve" else 2):
            start(http_writer, url, "design.pen", "http%d" % w, 40 if kind == "serve" else 25, tally)
        if kind == "serve":
            start(cli_apply, nib, path, "apply", 80, tally)
    if kind in ("mcp", "mixed"):
        start(stdio_writer, nib, folder, "design.pen", "stdio", 60 if kind == "mcp" else 30, tally)
        if kind == "mcp":
            start(cli_apply, nib, path, "apply", 60, tally)
    for thread in threads:
        thread.join()
    if server:
        server.terminate()
        server.wait(timeout=30)
    present = names_in(path)
    lost = [name for name in tally.acknowledged if name not in present]
    return tally.tried, len(tally.acknowledged), lost


def main():
    args = sys.argv[1:]
    runs = 1
    if "--runs" in args:
        at = args.index("--runs")
        runs = int(args[at + 1])
        del args[at:at + 2]
    nib = os.path.abspath(args[0])
    kinds = args[1:] or ["cli", "exec", "serve", "mcp", "mixed"]
    any_lost = False
    for kind in kinds:
        for run in range(runs):
            with tempfile.TemporaryDirectory() as folder:
                started = time.time()
                tried, acknowledged, lost = scenario(nib, kind, folder)
                any_lost |= bool(lost)
                print("%-6s run %d: %d writes, %d acknowledged, %d lost (%.0f s)%s" % (
                    kind, run + 1, tried, acknowledged, len(lost), time.time() - started,
                    " e.g. " + ", ".join(lost[:5]) if lost else ""), flush=True)
    return 1 if any_lost else 0


if __name__ == "__main__":
    sys.exit(main())
