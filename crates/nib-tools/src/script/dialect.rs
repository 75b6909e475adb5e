//! The other form agents send: `operations` as an array of objects, as a published agent skill
//! for Pen teaches (`[{"type": "insert", "targetId": "…", "node": {…}}, …]`). Each object is
//! turned into the statement it stands for, so the call runs as one script in one transaction,
//! and the answer can show the agent the script form to use next time.

use serde_json::{Map, Value};

/// Why an object of the array form could not be turned into a statement.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("operations[{index}]: {message}")]
pub(crate) struct DialectError {
    /// The position of the object in the array, from 0.
    pub index: usize,
    /// What is wrong with it.
    pub message: String,
    /// The script form of the operation the object seems to mean, or of all of them.
    pub hint: String,
}

/// What every operation looks like in the script form, for errors.
const SCRIPT_FORMS: &str = "operations is a script, one statement per line: b=I(parent, {node}) inserts, \
C(source, parent, {overrides}) copies, U(id, {props}) updates, R(id, {node}) replaces, \
M(id, parent, index) moves, D(id) deletes, G(id, \"ai\"|\"stock\", \"prompt\") adds an image; \
e.g. card=I(\"screen\", {type: \"frame\", layout: \"vertical\"})\\nU(card, {gap: 12})";

/// The script the objects stand for, one statement per line.
pub(crate) fn to_script(operations: &[Value]) -> Result<String, DialectError> {
    let mut bindings: Vec<String> = Vec::new();
    let mut lines = Vec::with_capacity(operations.len());
    for (index, operation) in operations.iter().enumerate() {
        let fail = |message: String| DialectError { index, message, hint: SCRIPT_FORMS.to_owned() };
        let Value::Object(fields) = operation else {
            return Err(fail(format!(
                "expected an object such as {{\"type\": \"insert\", …}}, found {}",
                kind(operation)
            )));
        };
        let statement = Statement { fields, bindings: &bindings, index };
        let line = statement.to_line()?;
        if let Some(binding) = statement.binding()? {
            bindings.push(binding);
        }
        lines.push(line);
    }
    Ok(lines.join("\n"))
}

/// One object of the array.
struct Statement<'a> {
    fields: &'a Map<String, Value>,
    /// Bindings made by earlier objects: a target that names one is the binding, not an id.
    bindings: &'a [String],
    index: usize,
}

impl Statement<'_> {
    fn to_line(&self) -> Result<String, DialectError> {
        let kind = self
            .text(&["type", "op", "operation"])?
            .ok_or_else(|| self.error("has no \"type\": use insert, copy, update, replace, move, delete or image"))?;
        let call = match kind.to_ascii_lowercase().as_str() {
            "insert" | "i" => {
                format!("I({}, {})", self.target(&["targetId", "parentId", "parent"])?, self.object("node")?)
            }
            "copy" | "c" => {
                let source = self.target(&["sourceId", "targetId", "source"])?;
                let parent = self.target(&["parentId", "parent"])?;
                match self.optional_object(&["overrides", "props"])? {
                    Some(overrides) => format!("C({source}, {parent}, {overrides})"),
                    None => format!("C({source}, {parent})"),
                }
            }
            "update" | "u" => format!("U({}, {})", self.target(&["targetId", "id"])?, self.object("props")?),
            "replace" | "r" => format!("R({}, {})", self.target(&["targetId", "id"])?, self.object("node")?),
            "move" | "m" => {
                let node = self.target(&["targetId", "id"])?;
                let parent = self.optional_target(&["parentId", "parent"])?;
                let index = self.index_argument()?;
                match (parent, index) {
                    (Some(parent), Some(index)) => format!("M({node}, {parent}, {index})"),
                    (Some(parent), None) => format!("M({node}, {parent})"),
                    (None, Some(index)) => format!("M({node}, undefined, {index})"),
                    (None, None) => format!("M({node})"),
                }
            }
            "delete" | "d" => format!("D({})", self.target(&["targetId", "id"])?),
            "image" | "g" => {
                let node = self.target(&["targetId", "id"])?;
                let source = self.text(&["kind", "source", "imageType", "service"])?.unwrap_or("ai".into());
                let prompt = self
                    .text(&["prompt"])?
                    .ok_or_else(|| self.error("an image needs \"prompt\", what the picture should show"))?;
                format!("G({node}, {}, {})", quote(&source), quote(&prompt))
            }
            other => {
                return Err(self.error(&format!(
                    "unknown type {other:?}: use insert, copy, update, replace, move, delete or image"
                )));
            }
        };
        Ok(match self.binding()? {
            Some(binding) => format!("{binding}={call}"),
            None => call,
        })
    }

    /// The binding this object names its result with (`"binding": "card"`).
    fn binding(&self) -> Result<Option<String>, DialectError> {
        let Some(name) = self.text(&["binding", "bind", "as"])? else { return Ok(None) };
        let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(self.error(&format!("the binding {name:?} is not a name (letters, digits, _)")));
        }
        Ok(Some(name))
    }

    /// The node a field names: a binding of an earlier object, `document`, or an id (quoted).
    fn target(&self, keys: &[&str]) -> Result<String, DialectError> {
        self.optional_target(keys)?
            .ok_or_else(|| self.error(&format!("needs \"{}\", the id of the node it works on", keys[0])))
    }

    fn optional_target(&self, keys: &[&str]) -> Result<Option<String>, DialectError> {
        Ok(self.text(keys)?.map(|target| {
            if target == "document" || self.bindings.contains(&target) { target } else { quote(&target) }
        }))
    }

    fn object(&self, key: &str) -> Result<String, DialectError> {
        self.optional_object(&[key])?.ok_or_else(|| self.error(&format!("needs \"{key}\", an object")))
    }

    fn optional_object(&self, keys: &[&str]) -> Result<Option<String>, DialectError> {
        let Some((key, value)) = keys.iter().find_map(|k| self.fields.get(*k).map(|v| (*k, v))) else {
            return Ok(None);
        };
        match value {
            // JSON is a JavaScript object literal: the script's grammar reads it as it is.
            Value::Object(_) => Ok(Some(value.to_string())),
            other => Err(self.error(&format!("\"{key}\" must be an object, found {}", kind(other)))),
        }
    }

    fn index_argument(&self) -> Result<Option<String>, DialectError> {
        match self.fields.get("index") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(other) => Err(self.error(&format!("\"index\" must be a number, found {}", kind(other)))),
        }
    }

    /// The first of `keys` that is present, as text.
    fn text(&self, keys: &[&str]) -> Result<Option<String>, DialectError> {
        for key in keys {
            match self.fields.get(*key) {
                None | Some(Value::Null) => continue,
                Some(Value::String(text)) => return Ok(Some(text.clone())),
                Some(other) => {
                    return Err(self.error(&format!("\"{key}\" must be a string, found {}", kind(other))));
                }
            }
        }
        Ok(None)
    }

    fn error(&self, message: &str) -> DialectError {
        DialectError { index: self.index, message: message.to_owned(), hint: SCRIPT_FORMS.to_owned() }
    }
}

/// A string as a script string literal (JSON's escapes are the script's).
fn quote(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_operation_of_the_published_form_becomes_its_statement() {
        let script = to_script(
            json!([
                {"type": "insert", "targetId": "screen", "node": {"type": "frame", "name": "Card"}, "binding": "card"},
                {"type": "update", "targetId": "card", "props": {"gap": 12}},
                {"type": "copy", "sourceId": "btn", "parentId": "card", "overrides": {"name": "Copy"}},
                {"type": "replace", "targetId": "old", "node": {"type": "text", "content": "Hi \"you\""}},
                {"type": "move", "targetId": "old", "parentId": "document", "index": 0},
                {"type": "delete", "targetId": "gone"},
                {"type": "image", "targetId": "hero", "kind": "stock", "prompt": "a quiet lake"}
            ])
            .as_array()
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            script,
            [
                r#"card=I("screen", {"name":"Card","type":"frame"})"#,
                r#"U(card, {"gap":12})"#,
                r#"C("btn", card, {"name":"Copy"})"#,
                r#"R("old", {"content":"Hi \"you\"","type":"text"})"#,
                r#"M("old", document, 0)"#,
                r#"D("gone")"#,
                r#"G("hero", "stock", "a quiet lake")"#,
            ]
            .join("\n")
        );
    }

    #[test]
    fn unknown_shapes_are_corrected_with_the_script_form() {
        let error =
            to_script(json!([{"type": "insert", "targetId": "a", "node": {}}, {"kind": "x"}]).as_array().unwrap())
                .unwrap_err();
        assert_eq!(error.index, 1);
        assert!(error.message.contains("has no \"type\""), "{}", error.message);
        assert!(error.hint.contains("b=I(parent, {node})"), "{}", error.hint);
        let error =
            to_script(json!([{"type": "update", "targetId": "a", "props": "gap: 4"}]).as_array().unwrap()).unwrap_err();
        assert_eq!(error.message, "\"props\" must be an object, found a string");
        assert!(to_script(json!(["U(a, {})"]).as_array().unwrap()).is_err());
    }
}
