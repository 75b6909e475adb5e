// The live canvas of `nib serve`. Every picture is drawn by nib (/api/render: the same renderer
// as get_screenshot); this script only places the frame images, hit-tests the laid-out boxes
// (/api/document) and keeps up with the server's change events (/api/events).
"use strict";

const MIN_ZOOM = 1 / 64;
const MAX_ZOOM = 64;
// Frame images are fetched at a power-of-two scale, so that zooming by small steps reuses them.
const MIN_IMAGE_SCALE = 1 / 16;
const MAX_IMAGE_SCALE = 8;
// A press that moves less than this many CSS pixels is a click, not a drag.
const DRAG_THRESHOLD = 4;
// Nodes whose properties the panel fetches for one selection; the others are listed by name.
const DETAILED_NODES = 12;
// How a claimed node is drawn: an agent of `nib serve` is working on it.
const CLAIM_COLOR = "#d97706";

const $ = (id) => document.getElementById(id);
const canvas = $("canvas");
const ctx = canvas.getContext("2d");
const viewport = $("viewport");

const state = {
  root: "",
  files: [],
  file: null,
  doc: null,
  nodes: [],          // every box, in paint order (parents before children)
  byId: new Map(),
  problems: new Map(), // node id -> problems
  selection: [],
  zoom: 1,
  panX: 0,
  panY: 0,
  images: new Map(),   // root id -> {key, bitmap, pending}
  hover: null,
  press: null,
  space: false,
  loading: false,
  stale: false,
  drawnRevision: null,
  claims: [],          // every claim in force: {file, nodeId, name, holder, until, endsAt}
};

// ---- server requests ----

async function request(path, options) {
  const response = await fetch(path, options);
  const type = response.headers.get("content-type") || "";
  const body = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const message = typeof body === "string" ? body : body.error + (body.hint ? " — " + body.hint : "");
    throw new Error(message);
  }
  return body;
}

const post = (path, body) =>
  request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const query = (params) => new URLSearchParams(params).toString();

function status(message, bad) {
  const empty = $("empty");
  empty.hidden = !message;
  empty.textContent = message || "";
  empty.classList.toggle("bad", !!bad);
}

// ---- documents ----

async function loadFiles() {
  const answer = await request("/api/files");
  state.root = answer.root;
  state.files = answer.files;
  const select = $("file");
  select.replaceChildren(...answer.files.map((file) => new Option(file, file)));
  const wanted = decodeURIComponent(location.hash.replace(/^#file=/, ""));
  if (!state.file) {
    const first = answer.files.includes(wanted) ? wanted : answer.files.includes(answer.current) ? answer.current : answer.files[0];
    if (first) openFile(first);
    else status("No .pen files under " + answer.root + ". An agent can create one: open_document with new:desktop.");
  } else if (!answer.files.includes(state.file)) {
    select.append(new Option(state.file, state.file));
  }
  select.value = state.file || "";
}

function openFile(file) {
  state.file = file;
  showClaims();
  state.doc = null;
  state.images.clear();
  state.selection = [];
  history.replaceState(null, "", "#file=" + encodeURIComponent(file));
  $("file").value = file;
  reload(true);
}

// Reloads the current document's boxes; a reload asked for while one runs happens after it.
async function reload(fit) {
  if (!state.file) return;
  if (state.loading) { state.stale = true; return; }
  state.loading = true;
  try {
    const doc = await request("/api/document?" + query({ file: state.file }));
    if (doc.file !== state.file) return;
    adopt(doc);
    status(state.nodes.length ? "" : "This document has no visible nodes yet.");
    if (fit) fitAll();
    draw();
    showSelection();
    lint(doc.file, doc.revision);
  } catch (error) {
    state.doc = null;
    state.nodes = [];
    status(state.file + ": " + error.message, true);
    draw();
  } finally {
    state.loading = false;
    if (state.stale) { state.stale = false; reload(false); }
  }
}

function adopt(doc) {
  state.doc = doc;
  state.nodes = [];
  state.byId = new Map();
  const walk = (list, parent, depth) => {
    for (const node of list) {
      const box = { node, parent, depth, x: node.absoluteX, y: node.absoluteY, w: node.width, h: node.height };
      state.nodes.push(box);
      state.byId.set(node.id, box);
      if (Array.isArray(node.children)) walk(node.children, box, depth + 1);
    }
  };
  walk(doc.nodes || [], null, 0);
  state.problems = new Map();
  for (const problem of doc.problems || []) {
    if (!state.problems.has(problem.node)) state.problems.set(problem.node, []);
    state.problems.get(problem.node).push(problem);
  }
  const kept = state.selection.filter((id) => state.byId.has(id));
  state.selection = doc.selection && doc.selection.length ? doc.selection.filter((id) => state.byId.has(id)) : kept;
  if (Array.isArray(doc.claims)) adoptClaims(doc.claims, doc.file);
  $("revision").textContent = "revision " + doc.revision;
  $("undo").disabled = !doc.canUndo;
  $("redo").disabled = !doc.canRedo;
  showProblems();
}

// ---- view ----

function resize() {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(viewport.clientWidth * ratio));
  canvas.height = Math.max(1, Math.round(viewport.clientHeight * ratio));
  draw();
}

const roots = () => state.nodes.filter((box) => !box.parent);

function fitAll() {
  const list = roots();
  if (!list.length) return;
  const left = Math.min(...list.map((b) => b.x)), top = Math.min(...list.map((b) => b.y));
  const right = Math.max(...list.map((b) => b.x + b.w)), bottom = Math.max(...list.map((b) => b.y + b.h));
  const margin = 24;
  const width = Math.max(1, viewport.clientWidth - 2 * margin), height = Math.max(1, viewport.clientHeight - 2 * margin);
  state.zoom = clamp(Math.min(width / Math.max(1, right - left), height / Math.max(1, bottom - top), 1), MIN_ZOOM, MAX_ZOOM);
  state.panX = margin + (width - (right - left) * state.zoom) / 2 - left * state.zoom;
  state.panY = margin + (height - (bottom - top) * state.zoom) / 2 - top * state.zoom;
  draw();
}

function zoomAt(factor, screenX, screenY) {
  const zoom = clamp(state.zoom * factor, MIN_ZOOM, MAX_ZOOM);
  const x = screenX ?? viewport.clientWidth / 2, y = screenY ?? viewport.clientHeight / 2;
  state.panX = x - ((x - state.panX) * zoom) / state.zoom;
  state.panY = y - ((y - state.panY) * zoom) / state.zoom;
  state.zoom = zoom;
  draw();
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
const toScreen = (x, y) => [x * state.zoom + state.panX, y * state.zoom + state.panY];
const toCanvas = (x, y) => [(x - state.panX) / state.zoom, (y - state.panY) / state.zoom];

function imageScale() {
  const wanted = state.zoom * (window.devicePixelRatio || 1);
  return clamp(2 ** Math.ceil(Math.log2(wanted)), MIN_IMAGE_SCALE, MAX_IMAGE_SCALE);
}

// Fetches the image of a top-level node at the current revision and zoom, unless it has it.
function wantImage(box) {
  const key = state.doc.revision + "@" + imageScale();
  let entry = state.images.get(box.node.id);
  if (!entry) { entry = { key: null, bitmap: null, pending: null }; state.images.set(box.node.id, entry); }
  if (entry.key === key || entry.pending === key) return;
  entry.pending = key;
  const file = state.file;
  const url = "/api/render?" + query({ file, node: box.node.id, scale: imageScale() });
  fetch(url)
    .then((r) => (r.ok ? r.blob() : Promise.reject(new Error("render failed"))))
    .then((blob) => createImageBitmap(blob))
    .then((bitmap) => {
      if (file !== state.file || entry.pending !== key) return;
      entry.bitmap = bitmap;
      entry.key = key;
      entry.pending = null;
      draw();
    })
    .catch(() => { if (entry.pending === key) entry.pending = null; });
}

let frame = 0;
function draw() {
  if (!frame) frame = requestAnimationFrame(paint);
}

function paint() {
  frame = 0;
  const ratio = window.devicePixelRatio || 1;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  $("zoom-level").textContent = Math.round(state.zoom * 100) + " %";
  if (!state.doc) return;
  const width = viewport.clientWidth, height = viewport.clientHeight;
  let complete = true;
  ctx.font = "12px system-ui, sans-serif";
  for (const box of roots()) {
    const [x, y] = toScreen(box.x, box.y);
    const w = box.w * state.zoom, h = box.h * state.zoom;
    if (x > width || y > height || x + w < 0 || y + h < 0) continue;
    wantImage(box);
    const entry = state.images.get(box.node.id);
    if (entry && entry.bitmap) ctx.drawImage(entry.bitmap, x, y, w, h);
    if (!entry || entry.key !== state.doc.revision + "@" + imageScale()) complete = false;
    label(box.node.name || box.node.id, x, y - 5, w);
  }
  for (const [id] of state.problems) outline(state.byId.get(id), "#dc2626", 1.5, [5, 3]);
  if (state.hover && !state.selection.includes(state.hover.node.id)) outline(state.hover, "#60a5fa", 1, []);
  for (const id of state.selection) outline(state.byId.get(id), "#2563eb", 2, []);
  for (const claim of liveClaims()) drawClaim(claim);
  const press = state.press;
  if (press && press.mode === "marquee") {
    ctx.fillStyle = "rgba(37, 99, 235, 0.12)";
    ctx.strokeStyle = "#2563eb";
    ctx.lineWidth = 1;
    const [x, y, w, h] = rect(press.startX, press.startY, press.x, press.y);
    ctx.fillRect(x, y, w, h);
    ctx.strokeRect(x + 0.5, y + 0.5, w, h);
  }
  if (complete) state.drawnRevision = state.doc.revision;
}

// A frame's name above it, cut to the frame's width so that neighbours' names do not overlap.
function label(text, x, y, width) {
  if (width < 24) return;
  let shown = text;
  while (shown.length > 1 && ctx.measureText(shown).width > width) shown = shown.slice(0, -2) + "…";
  ctx.fillStyle = "#52525b";
  ctx.fillText(shown, x, y);
}

// ---- claims ----

// Takes the claims the server sent (all of them, or those of `file` only), each ending
// `endsInMs` from now by this page's clock.
function adoptClaims(list, file) {
  const now = performance.now();
  const received = list.map((claim) => ({ ...claim, endsAt: now + claim.endsInMs }));
  state.claims = file === undefined ? received : state.claims.filter((c) => c.file !== file).concat(received);
  showClaims();
  draw();
}

let claimTimer = 0;
// The claims on the shown document that have not ended; a redraw is due when the next one ends.
function liveClaims() {
  const now = performance.now();
  const live = state.claims.filter((claim) => claim.file === state.file && claim.endsAt > now);
  clearTimeout(claimTimer);
  if (live.length) {
    const next = Math.min(...live.map((claim) => claim.endsAt)) - now;
    claimTimer = setTimeout(() => { showClaims(); draw(); }, next + 50);
  }
  return live;
}

const clock = (iso) => new Date(iso).toLocaleTimeString();

// A claimed node: a dashed orange outline, and who holds it until when, in a tag at its top.
function drawClaim(claim) {
  const box = state.byId.get(claim.nodeId);
  if (!box) return;
  outline(box, CLAIM_COLOR, 2, [6, 3]);
  const [x, y] = toScreen(box.x, box.y);
  const text = claim.holder + " · until " + clock(claim.until);
  const width = Math.min(ctx.measureText(text).width + 10, Math.max(0, box.w * state.zoom));
  if (width < 24) return;
  ctx.fillStyle = CLAIM_COLOR;
  ctx.fillRect(x, y, width, 17);
  let shown = text;
  while (shown.length > 1 && ctx.measureText(shown).width > width - 10) shown = shown.slice(0, -2) + "…";
  ctx.fillStyle = "#fff";
  ctx.fillText(shown, x + 5, y + 13);
}

function showClaims() {
  const list = $("claims");
  const claims = liveClaims();
  $("claim-count").textContent = claims.length ? "(" + claims.length + ")" : "";
  if (!claims.length) {
    list.innerHTML = '<li class="muted">None. Agents claim the frames they work on (the claim tool, Claim() in execute).</li>';
    return;
  }
  list.replaceChildren(...claims.map((claim) => {
    const item = document.createElement("li");
    const id = document.createElement("code");
    id.textContent = claim.nodeId;
    item.append(id, " " + (claim.name ? claim.name + " — " : "— ") + claim.holder + ", until " + clock(claim.until));
    item.addEventListener("click", () => select([claim.nodeId]));
    return item;
  }));
}

function outline(box, color, width, dash) {
  if (!box) return;
  const [x, y] = toScreen(box.x, box.y);
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.strokeRect(x, y, box.w * state.zoom, box.h * state.zoom);
  ctx.setLineDash([]);
}

const rect = (x1, y1, x2, y2) => [Math.min(x1, x2), Math.min(y1, y2), Math.abs(x2 - x1), Math.abs(y2 - y1)];

// ---- selecting ----

// The deepest node under a point: the last box in paint order that contains it.
function hit(screenX, screenY) {
  const [x, y] = toCanvas(screenX, screenY);
  for (let i = state.nodes.length - 1; i >= 0; i--) {
    const box = state.nodes[i];
    if (x >= box.x && y >= box.y && x <= box.x + box.w && y <= box.y + box.h) return box;
  }
  return null;
}

// The outermost nodes inside a screen rectangle.
function inside(x1, y1, x2, y2) {
  const [a, b] = toCanvas(Math.min(x1, x2), Math.min(y1, y2));
  const [c, d] = toCanvas(Math.max(x1, x2), Math.max(y1, y2));
  const within = (box) => box.x >= a && box.y >= b && box.x + box.w <= c && box.y + box.h <= d;
  return state.nodes.filter((box) => within(box) && !(box.parent && within(box.parent))).map((box) => box.node.id);
}

async function select(ids) {
  state.selection = ids;
  draw();
  showSelection();
  try {
    const answer = await post("/api/select", { file: state.file, ids });
    state.selection = answer.selection;
  } catch (error) {
    status(error.message, true);
  }
  draw();
}

function showSelection() {
  const panel = $("selection");
  if (!state.selection.length) {
    panel.innerHTML = '<p class="muted">Click a node to select it; drag to select an area; Shift adds. Agents see the selection in get_editor_state.</p>';
    return;
  }
  panel.replaceChildren(...state.selection.map((id, index) => nodeSection(id, index < DETAILED_NODES)));
}

function nodeSection(id, detailed) {
  const box = state.byId.get(id);
  const section = document.createElement("div");
  section.className = "node";
  const title = document.createElement("h3");
  title.textContent = (box && box.node.name ? box.node.name + " · " : "") + (box ? box.node.type : "");
  section.append(title);
  const facts = [["id", id]];
  if (box) {
    facts.push(["box", `x ${box.node.x}, y ${box.node.y}, ${box.w} × ${box.h}`]);
    facts.push(["on canvas", `x ${box.x}, y ${box.y}`]);
  }
  for (const problem of state.problems.get(id) || []) facts.push(["problem", problem.message, "bad"]);
  const list = definitions(facts);
  section.append(list);
  if (detailed) {
    const file = state.file;
    request("/api/node?" + query({ file, id }))
      .then((answer) => {
        const node = (answer.nodes || [])[0];
        if (!node || file !== state.file) return;
        const props = Object.entries(node).filter(([key]) => !["id", "children"].includes(key));
        list.append(...definitions(props.map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)])).childNodes);
      })
      .catch(() => {});
  }
  return section;
}

function definitions(pairs) {
  const list = document.createElement("dl");
  list.className = "props";
  for (const [term, value, kind] of pairs) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value;
    if (kind) dd.className = kind;
    list.append(dt, dd);
  }
  return list;
}

function showProblems() {
  const list = $("problems");
  const problems = (state.doc && state.doc.problems) || [];
  const more = (state.doc && state.doc.moreProblems) || 0;
  $("problem-count").textContent = problems.length ? "(" + (problems.length + more) + ")" : "";
  if (!problems.length) {
    list.innerHTML = '<li class="muted">None.</li>';
    return;
  }
  list.replaceChildren(...problems.map((problem) => {
    const item = document.createElement("li");
    const id = document.createElement("code");
    id.textContent = problem.node;
    item.append(id, " " + problem.message);
    item.addEventListener("click", () => select([problem.node]));
    return item;
  }));
}

// The design lint of the document at this revision: fetched after the boxes, since it draws the
// frames to measure contrast; an answer for an older revision or another file is dropped.
async function lint(file, revision) {
  const list = $("lint");
  try {
    const answer = await request("/api/lint?" + query({ file }));
    if (!state.doc || state.doc.file !== file || state.doc.revision !== revision) return;
    const findings = answer.findings || [];
    $("lint-count").textContent = findings.length ? "(" + findings.length + ")" : "";
    if (!findings.length) {
      list.innerHTML = '<li class="muted">None.</li>';
      return;
    }
    list.replaceChildren(...findings.map((finding) => {
      const item = document.createElement("li");
      const rule = document.createElement("code");
      rule.textContent = finding.rule;
      const id = document.createElement("code");
      id.textContent = finding.node || "";
      item.append(rule, " ", id, " " + finding.message + (finding.fix ? " — " + finding.fix : ""));
      if (finding.node) item.addEventListener("click", () => select([finding.node]));
      return item;
    }));
  } catch (error) {
    list.innerHTML = "";
    const item = document.createElement("li");
    item.className = "muted";
    item.textContent = "Lint: " + error.message;
    list.append(item);
  }
}

// ---- input ----

function local(event) {
  const r = viewport.getBoundingClientRect();
  return [event.clientX - r.left, event.clientY - r.top];
}

viewport.addEventListener("pointerdown", (event) => {
  viewport.focus();
  const [x, y] = local(event);
  const pan = event.button === 1 || (event.button === 0 && state.space);
  if (event.button !== 0 && !pan) return;
  viewport.setPointerCapture(event.pointerId);
  state.press = { mode: pan ? "pan" : "press", startX: x, startY: y, x, y, shift: event.shiftKey };
  viewport.classList.toggle("panning", pan);
  event.preventDefault();
});

viewport.addEventListener("pointermove", (event) => {
  const [x, y] = local(event);
  const press = state.press;
  if (!press) {
    const box = hit(x, y);
    if (box !== state.hover) { state.hover = box; draw(); }
    return;
  }
  if (press.mode === "pan") {
    state.panX += x - press.x;
    state.panY += y - press.y;
  } else if (press.mode === "press" && Math.hypot(x - press.startX, y - press.startY) > DRAG_THRESHOLD) {
    press.mode = "marquee";
  }
  press.x = x;
  press.y = y;
  draw();
});

viewport.addEventListener("pointerup", (event) => {
  const press = state.press;
  state.press = null;
  viewport.classList.remove("panning");
  if (!press || !state.doc) { draw(); return; }
  if (press.mode === "press") {
    const box = hit(press.startX, press.startY);
    const id = box && box.node.id;
    if (press.shift && id) select(state.selection.includes(id) ? state.selection.filter((s) => s !== id) : [...state.selection, id]);
    else select(id ? [id] : []);
  } else if (press.mode === "marquee") {
    const ids = inside(press.startX, press.startY, press.x, press.y);
    select(press.shift ? [...new Set([...state.selection, ...ids])] : ids);
  }
  draw();
});

viewport.addEventListener("pointerleave", () => { state.hover = null; draw(); });

viewport.addEventListener("wheel", (event) => {
  event.preventDefault();
  const [x, y] = local(event);
  if (event.ctrlKey || event.metaKey) zoomAt(Math.exp(-event.deltaY * 0.01), x, y);
  else { state.panX -= event.deltaX; state.panY -= event.deltaY; draw(); }
}, { passive: false });

window.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement) return;
  const mod = event.ctrlKey || event.metaKey;
  if (mod && event.key.toLowerCase() === "z") { event.preventDefault(); step(event.shiftKey ? "redo" : "undo"); return; }
  if (mod) return;
  switch (event.key) {
    case "+": case "=": zoomAt(1.25); break;
    case "-": case "_": zoomAt(0.8); break;
    case "0": zoomAt(1 / state.zoom); break;
    case "1": fitAll(); break;
    case "Escape": select([]); break;
    case " ": state.space = true; break;
    case "ArrowLeft": state.panX += 40; draw(); break;
    case "ArrowRight": state.panX -= 40; draw(); break;
    case "ArrowUp": state.panY += 40; draw(); break;
    case "ArrowDown": state.panY -= 40; draw(); break;
    default: return;
  }
  event.preventDefault();
});
window.addEventListener("keyup", (event) => { if (event.key === " ") state.space = false; });

async function step(name) {
  if (!state.file) return;
  try {
    await post("/api/" + name, { file: state.file });
  } catch (error) {
    status(error.message, true);
    setTimeout(() => status(""), 4000);
  }
}

$("undo").addEventListener("click", () => step("undo"));
$("redo").addEventListener("click", () => step("redo"));
$("zoom-in").addEventListener("click", () => zoomAt(1.25));
$("zoom-out").addEventListener("click", () => zoomAt(0.8));
$("zoom-level").addEventListener("click", () => zoomAt(1 / state.zoom));
$("zoom-fit").addEventListener("click", fitAll);
$("file").addEventListener("change", (event) => openFile(event.target.value));
new ResizeObserver(resize).observe(viewport);

// ---- live updates ----

let filesTimer = 0;
function listen() {
  const events = new EventSource("/api/events");
  events.addEventListener("ready", () => {
    $("live").classList.add("on");
    reload(false); // changes made while disconnected
  });
  events.addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    if (change.file === state.file) reload(false);
    if (!state.files.includes(change.file)) {
      clearTimeout(filesTimer);
      filesTimer = setTimeout(loadFiles, 200);
    }
  });
  events.addEventListener("claims", (event) => adoptClaims(JSON.parse(event.data)));
  events.addEventListener("lagged", () => { reload(false); loadFiles(); });
  events.onerror = () => $("live").classList.remove("on");
}

// For tests and the curious: the page's state, and where a node is on the screen.
window.nibPage = {
  state,
  screenPoint(id) {
    const box = state.byId.get(id);
    if (!box) return null;
    const r = viewport.getBoundingClientRect();
    const [x, y] = toScreen(box.x + box.w / 2, box.y + box.h / 2);
    return { x: r.left + x, y: r.top + y };
  },
  // Where a node's top-left corner is on the screen.
  screenCorner(id) {
    const box = state.byId.get(id);
    if (!box) return null;
    const r = viewport.getBoundingClientRect();
    const [x, y] = toScreen(box.x, box.y);
    return { x: r.left + x, y: r.top + y };
  },
};

loadFiles().catch((error) => status(error.message, true));
listen();
