// The functions an `execute` snippet calls. Each one reaches nib through __nib_host and throws
// an Error (with a `hint`) when nib refuses; the work itself is done by nib's operations.
const __nib = (name, args) => {
  const text = JSON.stringify(args, (key, value) => (value === undefined ? null : value));
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
function Insert(parent, node) { return __nib("insert", [__ref(parent), node]); }
function Copy(source, parent, overrides) { return __nib("copy", [__ref(source), __ref(parent), overrides]); }
function Update(node, properties) { return __nib("update", [__ref(node), properties]); }
function Replace(node, replacement) { return __nib("replace", [__ref(node), replacement]); }
function Move(node, parent, index) { return __nib("move", [__ref(node), __ref(parent), index]); }
function Delete(node) { return __nib("delete", [__ref(node)]); }
function Generate(node, kind, prompt) { return __nib("generate", [__ref(node), kind, prompt]); }
function SetVariables(variables, options) { return __nib("setVariables", [variables, options]); }
function GetVariables() { return __nib("getVariables", []); }
function FindEmptySpace(options) { return __nib("findEmptySpace", [options]); }
function TakeScreenshot(node, options) { return __nib("screenshot", [__ref(node), options]); }
function Export(nodes, format, options) {
  const list = nodes === undefined || nodes === null ? null : (Array.isArray(nodes) ? nodes : [nodes]).map(__ref);
  return __nib("export", [list, format, options]);
}
function Print(...values) {
  __nib("print", [values.map((v) => (typeof v === "string" ? v : JSON.stringify(v)))]);
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
    const nodes = __nib("get", [target === undefined || target === null ? null : (many ? target : [target]).map(__ref), options]);
    return target === undefined || target === null || many ? nodes : nodes[0];
  }
  const tree = __nib("tree", [target === undefined || target === null ? null : __ref(target), options]);
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
