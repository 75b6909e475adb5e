//! What Pen writes for a node an agent sends, rule by rule, so that a node nib inserts is the
//! node Pen would have inserted (`tests/suite/pencil_conformance.rs` checks each rule against
//! Pencil's recorded answers in `tests/fixtures/session`).
//!
//! Every rule keeps the meaning of the node; it only changes how it is written:
//! - a frame's missing `width` / `height` is written `"fit_content(0)"`, and `"fit_content"`
//!   gets its explicit fallback `"fit_content(0)"` (a frame hugs its content by default);
//! - a frame's `layout: "horizontal"` and `gap: 0` are left out (they are the defaults);
//! - a text node without `fontWeight` gets `"normal"`;
//! - per-side stroke widths leave out the sides that are 0, and are written as one number when
//!   nothing else is left (`{bottom: 0}` → `0`).
//!
//! Pen also drops a stroke's `dashPattern` when a node is inserted; nib keeps it, since that
//! loses what the agent asked for (DECISIONS.md, Pencil-exact).

use crate::doc::json::{Json, JsonValue, Member};

/// Applies the rules to a node tree an agent wrote for I() or R(): the node and its children.
pub fn new_node(json: &mut Json) {
    let JsonValue::Object(members) = &mut json.value else { return };
    let node_type = members.iter().find(|m| m.key == "type").and_then(|m| m.value.as_str()).map(str::to_owned);
    match node_type.as_deref() {
        Some("frame") => frame(members),
        Some("text") => text(members),
        _ => {}
    }
    values(members);
    for member in members.iter_mut() {
        if member.key == "children"
            && let JsonValue::Array(children) = &mut member.value.value
        {
            children.iter_mut().for_each(new_node);
        }
    }
}

/// Applies the rules that concern values alone to the properties of U() or C()'s overrides.
pub fn properties(json: &mut Json) {
    if let JsonValue::Object(members) = &mut json.value {
        values(members);
    }
}

fn frame(members: &mut Vec<Member>) {
    members.retain(|m| {
        let default = match m.key.as_str() {
            "layout" => m.value.as_str() == Some("horizontal"),
            "gap" => matches!(m.value.value, JsonValue::Number(n) if n == 0.0),
            _ => false,
        };
        !default
    });
    for key in ["width", "height"] {
        match members.iter_mut().find(|m| m.key == key) {
            Some(member) if member.value.as_str() == Some("fit_content") => {
                member.value = Json::new(JsonValue::String("fit_content(0)".into()));
            }
            Some(_) => {}
            None => members.push(member(key, JsonValue::String("fit_content(0)".into()))),
        }
    }
}

fn text(members: &mut Vec<Member>) {
    if !members.iter().any(|m| m.key == "fontWeight") {
        members.push(member("fontWeight", JsonValue::String("normal".into())));
    }
}

/// Rules on values, wherever the node type.
fn values(members: &mut [Member]) {
    for member in members.iter_mut() {
        match member.key.as_str() {
            "strokeWidth" => sides(&mut member.value),
            "stroke" => {
                if let JsonValue::Object(stroke) = &mut member.value.value
                    && let Some(thickness) = stroke.iter_mut().find(|m| m.key == "thickness")
                {
                    sides(&mut thickness.value);
                }
            }
            _ => {}
        }
    }
}

/// `{top: 0, right: 0, bottom: 1, left: 0}` → `{bottom: 1}`; `{bottom: 0}` → `0`. Sides that
/// are variables or anything but a plain 0 stay.
fn sides(value: &mut Json) {
    let JsonValue::Object(members) = &mut value.value else { return };
    members.retain(|m| !matches!(m.value.value, JsonValue::Number(n) if n == 0.0));
    if members.is_empty() {
        value.value = JsonValue::Number(0.0);
    }
}

fn member(key: &str, value: JsonValue) -> Member {
    Member { key: key.to_owned(), key_offset: 0, value: Json::new(value) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::json::{JsonWriter, parse};

    fn normalised(text: &str) -> String {
        let mut json = parse(text).expect("json").value.expect("a value");
        new_node(&mut json);
        let mut w = JsonWriter::compact();
        json.write(&mut w);
        w.finish()
    }

    #[test]
    fn a_frame_is_written_with_its_sizes_and_without_its_defaults() {
        assert_eq!(
            normalised(r#"{"type":"frame","layout":"horizontal","gap":0,"width":"fit_content"}"#),
            r#"{"type":"frame","width":"fit_content(0)","height":"fit_content(0)"}"#
        );
        assert_eq!(
            normalised(r#"{"type":"frame","layout":"vertical","gap":8,"width":10,"height":"fill_container"}"#),
            r#"{"type":"frame","layout":"vertical","gap":8,"width":10,"height":"fill_container"}"#
        );
    }

    #[test]
    fn text_gets_a_normal_weight_and_children_follow_the_rules() {
        assert_eq!(
            normalised(r#"{"type":"frame","width":1,"height":1,"children":[{"type":"text","content":"a"}]}"#),
            r#"{"type":"frame","width":1,"height":1,"children":[{"type":"text","content":"a","fontWeight":"normal"}]}"#
        );
    }

    #[test]
    fn zero_sides_of_a_stroke_are_left_out() {
        assert_eq!(
            normalised(r#"{"type":"rectangle","stroke":{"thickness":{"top":0,"right":0,"bottom":1,"left":0}}}"#),
            r#"{"type":"rectangle","stroke":{"thickness":{"bottom":1}}}"#
        );
        assert_eq!(
            normalised(
                r#"{"type":"rectangle","stroke":{"thickness":{"bottom":0}},"strokeWidth":{"left":"$w","top":0}}"#
            ),
            r#"{"type":"rectangle","stroke":{"thickness":0},"strokeWidth":{"left":"$w"}}"#
        );
    }
}
