//! Values a snippet passed that JSON cannot carry (NaN, Infinity, undefined, a function, a
//! BigInt, half of a UTF-16 pair): the API sends each as a marker (api.js, `__NOT_JSON`) so
//! the call can be refused naming the property, instead of JSON turning NaN into null (which
//! removes a property) or dropping an undefined one without a word.

use serde_json::Value;

use crate::doc::json::escape_pointer_token;

/// The key of the marker object the API puts where such a value was (api.js `__NOT_JSON`).
const NOT_JSON: &str = "\u{0}nib:not-json";

/// One value that is not JSON: where it is and what it was.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NotJson {
    /// The argument it is in (0-based).
    pub(super) argument: usize,
    /// JSON pointer inside that argument (`/children/0/width`; empty for the argument itself).
    pub(super) pointer: String,
    /// As a snippet would write it: `properties.children[0].width`.
    pub(super) path: String,
    /// What it was: `NaN`, `Infinity`, `undefined`, `a function`…
    pub(super) what: String,
}

/// Every value in `arguments` of `function` that the API marked, in order.
pub(super) fn find(function: &str, arguments: &[Value]) -> Vec<NotJson> {
    let names = argument_names(function);
    let mut found = Vec::new();
    for (index, argument) in arguments.iter().enumerate() {
        let name = names.get(index).copied().unwrap_or("an argument");
        walk(argument, index, String::new(), name.to_owned(), &mut found);
    }
    found
}

fn walk(value: &Value, argument: usize, pointer: String, path: String, found: &mut Vec<NotJson>) {
    match value {
        Value::Object(map) => {
            if let (1, Some(Value::String(what))) = (map.len(), map.get(NOT_JSON)) {
                found.push(NotJson { argument, pointer, path, what: what.clone() });
                return;
            }
            for (key, member) in map {
                let shown = if is_identifier(key) { format!("{path}.{key}") } else { format!("{path}[{key:?}]") };
                walk(member, argument, format!("{pointer}/{}", escape_pointer_token(key)), shown, found);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, argument, format!("{pointer}/{i}"), format!("{path}[{i}]"), found);
            }
        }
        _ => {}
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The names of a function's arguments, as the skill's table writes them.
fn argument_names(function: &str) -> &'static [&'static str] {
    match function {
        "Insert" => &["parent", "node"],
        "Copy" => &["source", "parent", "overrides"],
        "Update" => &["node", "properties"],
        "Replace" => &["node", "replacement"],
        "Move" => &["node", "parent", "index"],
        "Delete" => &["node"],
        "Generate" => &["node", "kind", "prompt"],
        "SetVariables" => &["variables", "options"],
        "Get" => &["nodes", "options"],
        "Get(visitor)" => &["node", "options"],
        "FindEmptySpace" => &["options"],
        "TakeScreenshot" => &["node", "options"],
        "Export" => &["nodes", "format", "options"],
        "Claim" => &["nodes", "options"],
        "Release" => &["nodes"],
        _ => &[],
    }
}

/// What is wrong with one value, as a phrase: `properties.opacity is NaN`.
pub(super) fn phrase(value: &NotJson) -> String {
    match value.what.as_str() {
        "NaN" | "Infinity" | "-Infinity" => format!("{} is {}, not a finite number", value.path, value.what),
        what => format!("{} is {what}", value.path),
    }
}

/// The refusal of a call that passed `found` (not empty): every value named, and what to do
/// about the first.
pub(super) fn refusal(function: &str, found: &[NotJson]) -> (String, String) {
    let phrases: Vec<String> = found.iter().map(phrase).collect();
    let message = format!("{function}: {}", phrases.join("; "));
    let first = found.first().map_or("", |v| v.what.as_str());
    let hint = match first {
        "NaN" | "Infinity" | "-Infinity" => {
            "NaN and Infinity come from arithmetic on a missing or non-numeric value (undefined * 2, 1 / 0, parseFloat(\"auto\")): check what it was computed from and pass a number"
        }
        "undefined" => {
            "a variable or property it was read from has no value: give one, or leave the key out (null removes a property)"
        }
        "a function" | "a symbol" => "pass a value: call the function, or leave the key out",
        what if what.starts_with("a BigInt") => "pass a Number: Number(value)",
        _ => {
            "a snippet cannot write half of a UTF-16 pair (nib keeps those a file holds, but writes none of its own): remove the stray \\uD800–\\uDFFF escape or write the whole character"
        }
    };
    (message, hint.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mark(what: &str) -> Value {
        json!({ NOT_JSON: what })
    }

    #[test]
    fn marked_values_are_named_by_their_place() {
        let arguments = vec![
            json!("f"),
            json!({ "opacity": mark("NaN"), "children": [{ "width": mark("Infinity") }], "my key": mark("undefined") }),
        ];
        let found = find("Insert", &arguments);
        let phrases: Vec<String> = found.iter().map(phrase).collect();
        assert_eq!(
            phrases,
            [
                "node.children[0].width is Infinity, not a finite number",
                "node[\"my key\"] is undefined",
                "node.opacity is NaN, not a finite number",
            ]
        );
        assert_eq!(found[0].pointer, "/children/0/width");
        assert_eq!(find("Move", &[json!("a"), json!("b"), mark("NaN")])[0].path, "index");
        assert!(find("Update", &[json!("a"), json!({ "opacity": 0.5, "name": "\u{0}" })]).is_empty());
    }
}
