// The functions an `execute` snippet calls. Each one reaches nib through __nib_host and throws
// an Error (with a `hint`) when nib refuses; the work itself is done by nib's operations.
//
// JSON.stringify would write NaN and ±Infinity as null (which removes a property), drop
// undefined and functions, and write half of a UTF-16 pair that no file can hold: each such
// value is sent as a marker instead, which nib refuses naming the property. An argument left
// out (undefined at the top) is null, as JSON has it.
const __NOT_JSON = "\u0000nib:not-json";
const __mark = (what) => ({ [__NOT_JSON]: what });
function __encode(key, value) {
  switch (typeof value) {
    case "number": return Number.isFinite(value) ? value : __mark(String(value));
    case "undefined": return __mark("undefined");
    case "function": return __mark("a function");
    case "symbol": return __mark("a symbol");
    case "bigint": return __mark(`a BigInt (${value}n)`);
    case "string": return value.isWellFormed() ? value : __mark("a string with half of a UTF-16 pair (a lone surrogate)");
    case "object":
      return value !== null && !Array.isArray(value) && Object.keys(value).some((k) => !k.isWellFormed())
        ? __mark("an object with a property name that holds half of a UTF-16 pair (a lone surrogate)")
        : value;
    default: return value;
  }
}
const __nib = (name, args) => {
  let text;
  try {
    text = JSON.stringify(args.map((a) => (a === undefined ? null : a)), __encode);
  } catch (cause) {
    const error = new Error(`${name}: the arguments cannot be sent to nib: ${cause.message}`);
    error.hint = "pass plain data: an object that holds itself (a circular reference) cannot be sent; copy the properties you need into a new object";
    throw error;
  }
  const answer = JSON.parse(__nib_host(name, text, new Error().stack));
  if (answer.error) {
    const error = new Error(answer.error.message);
    if (answer.error.hint) error.hint = answer.error.hint;
    throw error;
  }
  return answer.ok;
};
// A node argument: an id or path, the `document` root, or a node object read by Get.
const __ref = (node) => (node !== null && typeof node === "object" && typeof node.id === "string" ? node.id : node);
const document = Object.freeze({ id: "document", type: "document" });
const root = document;
function Insert(parent, node) { return __nib("Insert", [__ref(parent), node]); }
function Copy(source, parent, overrides) { return __nib("Copy", [__ref(source), __ref(parent), overrides]); }
function Update(node, properties) { return __nib("Update", [__ref(node), properties]); }
function Replace(node, replacement) { return __nib("Replace", [__ref(node), replacement]); }
function Move(node, parent, index) { return __nib("Move", [__ref(node), __ref(parent), index]); }
function Delete(node) { return __nib("Delete", [__ref(node)]); }
function Generate(node, kind, prompt) { return __nib("Generate", [__ref(node), kind, prompt]); }
function SetVariables(variables, options) { return __nib("SetVariables", [variables, options]); }
// Claims (nib serve): other sessions' changes inside a claimed node are refused until it ends.
const __nodes = (nodes) => (nodes === undefined || nodes === null ? null : (Array.isArray(nodes) ? nodes : [nodes]).map(__ref));
function Claim(nodes, options) { return __nib("Claim", [__nodes(nodes), options]); }
function Release(nodes) { return __nib("Release", [__nodes(nodes)]); }
function GetVariables() { return __nib("GetVariables", []); }
function FindEmptySpace(options) { return __nib("FindEmptySpace", [options]); }
// TakeScreenshot(node?, {scale?, theme?, outputPath?}): {width, height, bytes}, the picture sent
// with the answer; with outputPath (a .png in the workspace) written there instead, and `path`.
// Export(nodes?, format, {scale?, quality?, theme?, outputPath?}): format is png, jpeg, webp,
// pdf, svg, html-css, html-tailwind, react, tokens-css, tokens-json or tailwind.
function TakeScreenshot(node, options) { return __nib("TakeScreenshot", [__ref(node), options]); }
function Export(nodes, format, options) {
  const list = nodes === undefined || nodes === null ? null : (Array.isArray(nodes) ? nodes : [nodes]).map(__ref);
  return __nib("Export", [list, format, options]);
}
// Print shows values as text: a string as it is, anything else as JSON where it can be
// (NaN, undefined and a circular object as JavaScript writes them). Half of a UTF-16 pair is
// shown as U+FFFD, which the answer says.
const __printable = (v) => {
  if (typeof v === "string") return v;
  if (v === undefined || typeof v === "number" || typeof v === "bigint" || typeof v === "symbol" || typeof v === "function") return String(v);
  try { return JSON.stringify(v); } catch (e) { return String(v); }
};
function Print(...values) {
  const texts = values.map(__printable);
  const repaired = texts.filter((t) => !t.isWellFormed()).length;
  __nib("Print", [texts.map((t) => t.toWellFormed()), repaired]);
}
const console = Object.freeze({ log: Print, info: Print, warn: Print, error: Print });
// Get(): the top-level nodes; Get(node or [nodes], options): nodes as saved (null for a missing
// one); Get(visitor, options) or Get(node, visitor, options): walks the tree, calling
// visitor(context) for each node, and answers what the visitor returned (undefined left out).
function Get(target, visitor, options) {
  if (typeof target === "function") return Get(null, target, visitor);
  if (typeof visitor !== "function") {
    options = visitor;
    const many = Array.isArray(target);
    const nodes = __nib("Get", [target === undefined || target === null ? null : (many ? target : [target]).map(__ref), options]);
    return target === undefined || target === null || many ? nodes : nodes[0];
  }
  const tree = __nib("Get(visitor)", [target === undefined || target === null ? null : __ref(target), options]);
  const found = [];
  const visit = (entry, parentCtx, depth, index) => {
    let skip = false;
    const ctx = {
      node: entry.node, parentCtx, depth, index, bounds: entry.bounds, problems: entry.problems,
      skipChildren() { skip = true; },
    };
    const answer = visitor(ctx);
    if (answer !== undefined) found.push(answer);
    if (!skip) (entry.children || []).forEach((child, i) => visit(child, ctx, depth + 1, i));
  };
  tree.forEach((entry, i) => visit(entry, null, 0, i));
  return found;
}
