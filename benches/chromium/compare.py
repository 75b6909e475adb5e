#!/usr/bin/env python3
"""How nib's render time compares with a warm headless Chromium painting the same frames.

Thirteen corpus frames (FRAMES below: the heavy ones named in the notes, Gleaner S2x2C, cirrus
TBCqR and hhC2R, pomodear 91XPP, the Apple-style landing page Qm8KM, and eight more, one per
corpus file). Each frame becomes one static HTML page: every node an absolutely positioned
<div> at the box `nib layout --json` gives it (so Chromium does no flexbox work beyond that),
painted from the .pen properties (solid and linear-gradient fills, corner radius, strokes as
inset box-shadows, shadows, background blur, opacity, clip, text with its font, size, weight,
color, alignment, line height, letter spacing). Fonts are nib's own (assets/fonts, via
@font-face file:// URLs); lucide icons are inline SVG from nib's assets/icons/lucide data. The
pages are stand-ins (instances, images and rich text are approximated), fair on cost, not on
pixels.

Per frame, wall-clock medians:
  Chromium warm  one long-lived Chromium driven over --remote-debugging-pipe (DevTools
                 protocol): Page.reload + load event + fonts ready + Page.captureScreenshot
                 + PNG decoded and written (RUNS runs after one dropped)
  nib            `nib render FILE --node ID --timings`: the in-process time from
                 reading the file to the PNG written, as --timings says it (process start and
                 exit left out), and each stage of it (RUNS runs after one dropped)
Each frame's nib runs start once the last frame's Chromium and all its processes have exited
(before, they shared the machine with a browser tearing down: agent-swarm iqC4U measured 11-16
ms there, 8.5 ms after). The bench prints the ratio Chromium / nib per frame, the geometric mean
and the worst frame, then the per-stage table (median of each stage over the runs).

Run from anywhere:  python3 benches/chromium/compare.py [RUNS]   (Python 3.11 stdlib only;
needs target/release/nib, `cargo build --release`, and /usr/bin/chromium)
Writes /tmp/nib-compare/{ID.html, ID-chromium.png, ID-nib.png}.
"""

import base64, fcntl, html, json, math, os, shutil, statistics, subprocess, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests/fixtures/pen"
# (file, top-level frame): the four heaviest frames of the notes, Qm8KM, and eight more from
# other files (a dashboard, design-system pages, landing pages, app screens).
FRAMES = [
    ("ChenNima__Gleaner__design.pen", "S2x2C"),
    ("LIU9293__cirrus__design.pen", "TBCqR"),
    ("LIU9293__cirrus__design.pen", "hhC2R"),
    ("Katsari__pomodear__designs__design.pen", "91XPP"),
    ("Changan-Su__Apple-Style-Website-Editor__PinS.pen", "Qm8KM"),
    ("Achelous1__smalti__docs__design__design.pen", "ErC6W"),
    ("BenSpex__agent-swarm-workshop__design.pen", "iqC4U"),
    ("nopointt__nospace__design__harkly__harkly-ui.pen", "0LyfQ"),
    ("Pregum__pencil_viewer__public__samples__dashboard.pen", "dash"),
    ("Changan-Su__Apple-Style-Website-Editor__pencil-shadcn.pen", "6LMCW"),
    ("SaraHan774__pale-blue-dot__pencil-new.pen", "7BZec"),
    ("alshyra__pixxiden__design-system.pen", "9EXws"),
    ("narehk__Rocktober__design-system-v2.pen", "afGRD"),
]
NIB = REPO / "target/release/nib"
CHROMIUM = "/usr/bin/chromium"
OUT = Path("/tmp/nib-compare")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
LUCIDE = REPO / "assets/icons/lucide"


def font_faces():
    rules = []
    # Inter is Google's variable slices (crates/nib-fonts/src/table.rs has their ranges; Latin is
    # enough for these pages).
    for style in ("normal", "italic"):
        for part in ("latin-ext", "latin"):  # the last declared face wins a character: Latin
            rules.append(f"@font-face{{font-family:'Inter';font-weight:100 900;font-style:{style};"
                         f"src:url('file://{REPO}/assets/fonts/inter/inter-{part}-wght-{style}.woff2')}}")
    for name, weight in (("Regular", 400), ("Bold", 700)):
        rules.append(f"@font-face{{font-family:'NibNoto';font-weight:{weight};"
                     f"src:url('file://{REPO}/assets/fonts/noto/NotoSans-{name}.ttf')}}")
    return "\n".join(rules)


def as_list(v):
    return [] if v is None else v if isinstance(v, list) else [v]


def enabled(v):
    return not (isinstance(v, dict) and v.get("enabled") is False)


def weight(v):
    return {"normal": 400, "bold": 700}.get(str(v), v) if v is not None else 400


def color_of(fill):
    """A solid fill's CSS color (#RGB, #RRGGBB and #RRGGBBAA are valid CSS as they are)."""
    if isinstance(fill, str):
        return fill
    if isinstance(fill, dict) and fill.get("type") in (None, "color"):
        return fill.get("color")
    if isinstance(fill, dict) and fill.get("colors"):
        return fill["colors"][0]["color"]
    return None


def linear_gradient(g, w, h):
    """nib's linear gradient (crates/nib-scene/src/display/paint.rs) as a CSS linear-gradient: nib runs it in
    the unit box between center -/+ e, e = (0, -size.height/2) turned by the rotation, then
    scales to pixels; CSS needs an angle and positions on its own gradient line."""
    cx, cy = (g.get("center") or {}).get("x", 0.5), (g.get("center") or {}).get("y", 0.5)
    sh = (g.get("size") or {}).get("height", 1.0)
    r = math.radians(g.get("rotation", 0))
    ex, ey = -sh / 2 * math.sin(r), -sh / 2 * math.cos(r)
    sx, sy = (cx - ex) * w, (cy - ey) * h
    dx, dy = 2 * ex * w, 2 * ey * h
    length = math.hypot(dx, dy) or 1e-9
    theta = math.atan2(dx, -dy)  # CSS: 0deg points up, clockwise
    css_len = abs(w * math.sin(theta)) + abs(h * math.cos(theta)) or 1e-9
    ux, uy = dx / length, dy / length
    base = ((sx - w / 2) * ux + (sy - h / 2) * uy) / css_len + 0.5
    stops = ", ".join(f"{s['color']} {100 * (base + s.get('position', 0) * length / css_len):.3f}%"
                      for s in sorted(g["colors"], key=lambda s: s.get("position", 0)))
    return f"linear-gradient({math.degrees(theta):.3f}deg, {stops})"


def backgrounds(fills, w, h):
    layers = []
    for f in as_list(fills):
        if not enabled(f):
            continue
        if isinstance(f, dict) and f.get("type") == "gradient":
            if f.get("gradientType", "linear") == "linear":
                layers.append(linear_gradient(f, w, h))
            else:  # radial / angular: rough stand-ins (none in this frame)
                stops = ", ".join(f"{s['color']} {100 * s.get('position', 0)}%" for s in f["colors"])
                layers.append(f"radial-gradient({stops})" if f.get("gradientType") == "radial"
                              else f"conic-gradient({stops})")
        elif color_of(f):
            c = color_of(f)
            layers.append(f"linear-gradient({c},{c})")
    return ", ".join(reversed(layers))  # CSS paints its first layer on top


def stroke_shadows(stroke):
    # Files before 2.14 may write the stroke as a bare colour (or a list of them): a 1 px line.
    if isinstance(stroke, list):
        stroke = stroke[0] if stroke else None
    if isinstance(stroke, str):
        stroke = {"fill": stroke, "thickness": 1}
    if not isinstance(stroke, dict):
        return []
    c, t = color_of(stroke.get("fill")), stroke.get("thickness", 1)
    if not stroke or not enabled(stroke) or c is None:
        return []
    align = stroke.get("align", "inside")
    if isinstance(t, dict):  # per side, drawn inside
        sides = {"top": "0 {}px", "bottom": "0 -{}px", "left": "{}px 0", "right": "-{}px 0"}
        return [f"inset {sides[k].format(v)} 0 0 {c}" for k, v in t.items() if v]
    if align == "outside":
        return [f"0 0 0 {t}px {c}"]
    if align == "center":
        return [f"inset 0 0 0 {t / 2}px {c}", f"0 0 0 {t / 2}px {c}"]
    return [f"inset 0 0 0 {t}px {c}"]


def lucide_svg(name, color):
    nodes = json.loads((LUCIDE / "icon-nodes.json").read_text())
    name = json.loads((LUCIDE / "aliases.json").read_text()).get(name, name)
    parts = "".join(f"<{tag} " + " ".join(f'{k}="{html.escape(v)}"' for k, v in attrs.items()) + "/>"
                    for tag, attrs in nodes.get(name, [["rect", {"x": "2", "y": "2", "width": "20", "height": "20"}]]))
    return (f'<svg viewBox="0 0 24 24" width="100%" height="100%" fill="none" stroke="{color}" '
            f'stroke-width="2" stroke-linecap="round" stroke-linejoin="round">{parts}</svg>')


def element(node, box):
    if node.get("enabled") is False:
        return ""
    w, h = box["width"], box["height"]
    css = [f"left:{box['x']}px", f"top:{box['y']}px", f"width:{w}px", f"height:{h}px"]
    if "opacity" in node:
        css.append(f"opacity:{node['opacity']}")
    inner = ""
    kind = node.get("type")
    if kind == "text":
        content = node.get("content", "")
        if isinstance(content, list):  # styled runs: plain text only
            content = "".join(r.get("content", "") for r in content)
        lines = content.count("\n") + 1
        size = node.get("fontSize", 14)
        lh = node.get("lineHeight")
        css += [f"color:{color_of(node.get('fill')) or '#000'}",
                f"font-family:'{node.get('fontFamily', 'Inter')}','NibNoto'",
                f"font-size:{size}px", f"font-weight:{weight(node.get('fontWeight'))}",
                f"font-style:{node.get('fontStyle', 'normal')}",
                f"line-height:{lh * size if lh else h / lines}px",
                f"letter-spacing:{node.get('letterSpacing', 0)}px",
                f"text-align:{node.get('textAlign', 'left')}",
                "white-space:" + ("pre-wrap" if node.get("textGrowth") == "fixed-width" else "pre")]
        inner = html.escape(content)
    elif kind == "icon_font":
        inner = lucide_svg(node.get("iconFontName", ""), color_of(node.get("fill")) or "#000")
    else:
        bg = backgrounds(node.get("fill"), w, h)
        if bg:
            css.append(f"background:{bg}")
        r = node.get("cornerRadius")
        if kind == "ellipse":
            css.append("border-radius:50%")
        elif r:
            css.append("border-radius:" + " ".join(f"{v}px" for v in as_list(r)))
        shadows = stroke_shadows(node.get("stroke"))
        for e in as_list(node.get("effect")):
            if not enabled(e):
                continue
            if e.get("type") == "shadow":
                o = e.get("offset", {})
                shadows.append(f"{'inset ' if e.get('shadowType') == 'inner' else ''}{o.get('x', 0)}px "
                               f"{o.get('y', 0)}px {e.get('blur', 0)}px {e.get('spread', 0)}px {e.get('color', '#00000040')}")
            elif e.get("type") == "background_blur":  # nib: sigma = radius / 2
                css.append(f"backdrop-filter:blur({e.get('radius', 0) / 2}px)")
            elif e.get("type") == "blur":
                css.append(f"filter:blur({e.get('radius', 0) / 2}px)")
        if shadows:
            css.append("box-shadow:" + ", ".join(shadows))
        if node.get("clip"):
            css.append("overflow:hidden")
        kids = {k["id"]: k for k in box.get("children", [])}
        inner = "".join(element(c, kids[c["id"]]) for c in node.get("children", []) if c.get("id") in kids)
    return f'<div style="{";".join(css)}">{inner}</div>'


def find(nodes, node_id):
    for n in nodes:
        if n.get("id") == node_id:
            return n
        hit = find(n.get("children", []), node_id)
        if hit:
            return hit
    return None


def build_html(pen, node):
    """The page of `node` and its size."""
    doc = json.loads(pen.read_text())
    lay = json.loads(subprocess.run([NIB, "layout", pen, "--node", node, "--depth", "99", "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    root_box = dict(lay["nodes"][0], x=0, y=0)
    w, h = math.ceil(root_box["width"]), math.ceil(root_box["height"])
    body = element(find(doc["children"], node), root_box)
    page = (f"<!doctype html><html><head><meta charset='utf-8'><style>{font_faces()}\n"
            f"html,body{{margin:0;width:{w}px;height:{h}px;overflow:hidden}}"
            f"div{{position:absolute;box-sizing:border-box}}</style></head><body>{body}</body></html>")
    return page, w, h


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000


class Pipe:
    """A minimal DevTools-protocol client over --remote-debugging-pipe (fd 3 in, fd 4 out, NUL-framed)."""

    def __init__(self, profile):
        to_chrome, self.w = os.pipe()
        self.r, from_chrome = os.pipe()
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome, from_chrome)]
        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(high[0], 3), os.dup2(high[1], 4)),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        for fd in (to_chrome, from_chrome, *high):
            os.close(fd)
        self.buf, self.next_id, self.events = b"", 0, []

    def _read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]
            self.events.append(m)

    def wait_event(self, method):
        while True:
            m = self.events.pop(0) if self.events else self._read()
            if m.get("method") == method:
                return m


def warm(url, w, h, shot_to, runs=20):
    profile = tempfile.mkdtemp(prefix="nib-cdp-")
    pipe = Pipe(profile)
    try:
        targets = pipe.call("Target.getTargets")["targetInfos"]
        page = next(t["targetId"] for t in targets if t["type"] == "page")
        s = pipe.call("Target.attachToTarget", {"targetId": page, "flatten": True})["sessionId"]
        pipe.call("Page.enable", session=s)
        pipe.call("Emulation.setDeviceMetricsOverride",
                  {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False}, session=s)
        pipe.call("Page.navigate", {"url": url}, session=s)
        pipe.wait_event("Page.loadEventFired")

        def shot(path):
            data = pipe.call("Page.captureScreenshot", {"format": "png"}, session=s)["data"]
            path.write_bytes(base64.b64decode(data))

        reload_ms, capture_ms = [], []
        for i in range(runs + 1):  # the first run warms caches and is dropped
            pipe.events.clear()
            t = time.perf_counter()
            pipe.call("Page.reload", session=s)
            pipe.wait_event("Page.loadEventFired")
            pipe.call("Runtime.evaluate", {"expression": "document.fonts.ready.then(() => 1)",
                                           "awaitPromise": True}, session=s)
            shot(shot_to)
            if i:
                reload_ms.append((time.perf_counter() - t) * 1000)
        for i in range(runs):
            t = time.perf_counter()
            shot(shot_to)
            capture_ms.append((time.perf_counter() - t) * 1000)
        pipe.call("Browser.close")
        return statistics.median(reload_ms), statistics.median(capture_ms)
    finally:
        gone(pipe.proc)
        shutil.rmtree(profile, ignore_errors=True)


def session_members(sid):
    """The running processes of session `sid` (Chromium's browser, renderers, GPU and utility
    processes); zombies have already let go of their memory and are left out, since a container
    whose first process reaps nothing keeps them for good."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            # Fields 3 and 6 are the state and the session; the name in field 2 may hold
            # spaces, so count from its ")".
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z" and int(fields[3]) == sid:
                members.append(int(entry))
    return members


def gone(proc):
    """Waits until Chromium and every process it started have exited (killed after 10 s, given
    up on a second later), so the next frame's nib runs do not share the machine with a browser
    tearing down its memory."""
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait()
    deadline = time.monotonic() + 10
    while session_members(proc.pid) and time.monotonic() < deadline + 1:
        if time.monotonic() > deadline:
            try:
                os.killpg(proc.pid, 9)
            except ProcessLookupError:
                break
        time.sleep(0.01)


def nib_timings(pen, node, out):
    """One `nib render --node --timings` run: {stage: ms} with "paint" and "total", read from the
    table on stderr (without --json, which reads the whole file for its font report, the
    render reads only the frame's part of the file, as `nib render --node` does)."""
    run = subprocess.run([NIB, "render", pen, "--node", node, "--timings", "-o", out],
                         check=True, capture_output=True, text=True)
    table = run.stderr[run.stderr.index("timings for"):].splitlines()[1:]
    stages, parent = {}, None
    for line in table:
        name, ms = line.split()[0], float(line.split()[1])
        nested = line.startswith("    ")
        parent = parent if nested else name
        stages[f"paint.{name}" if nested else name] = ms
    return stages


def main():
    import sys
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    OUT.mkdir(exist_ok=True)
    rows = []
    for file, node in FRAMES:
        pen = CORPUS / file
        page, w, h = build_html(pen, node)
        html_file = OUT / f"{node}.html"
        html_file.write_text(page)
        # One run dropped, as Chromium's first is: the binary's pages come into memory.
        nib_runs = [nib_timings(pen, node, OUT / f"{node}-nib.png") for _ in range(runs + 1)][1:]
        nib = {k: statistics.median(r[k] for r in nib_runs) for k in nib_runs[0]}
        try:
            chromium, _ = warm(html_file.as_uri(), w, h, OUT / f"{node}-chromium.png", runs)
        except Exception as e:  # noqa: BLE001 - report, keep the other frames
            print(f"{node}: Chromium warm skipped ({e})")
            chromium = float("nan")
        rows.append((file.split("__")[1], node, w, h, chromium, nib))
        print(f"{node}: Chromium {chromium:.1f} ms, nib {nib['total']:.1f} ms", flush=True)
    print()
    print(f"| frame | size | Chromium warm ms | nib ms | ratio |")
    print(f"|---|---|---:|---:|---:|")
    ratios = []
    for project, node, w, h, chromium, nib in rows:
        ratio = chromium / nib["total"]
        ratios.append(ratio)
        print(f"| {project} `{node}` | {w}x{h} | {chromium:.1f} | {nib['total']:.1f} | {ratio:.1f}x |")
    ok = [r for r in ratios if r == r]
    geomean = math.exp(sum(math.log(r) for r in ok) / len(ok))
    worst = min(zip(ok, [r[1] for r in rows if r[4] == r[4]]))
    print(f"\ngeometric mean {geomean:.1f}x, worst {worst[0]:.1f}x ({worst[1]})\n")
    stages = [k for k in rows[0][5] if k not in ("paint", "total")]
    order = ["read", "resolve", "text", "layout", "display", "paint.text", "paint.blur", "paint.shadows",
             "paint.images", "paint.gradients", "paint.other", "encode"]
    stages = [k for k in order if k in stages]
    print("| frame | " + " | ".join(stages) + " | total |")
    print("|---|" + "---:|" * (len(stages) + 1))
    for _, node, _, _, _, nib in rows:
        print(f"| `{node}` | " + " | ".join(f"{nib[k]:.2f}" for k in stages) + f" | {nib['total']:.2f} |")


if __name__ == "__main__":
    main()
