//! A document as text for `git diff`: one line per node, indented by depth, `type 'Name' (id)`
//! and then the node's properties in a fixed order with compact values; the document-level keys
//! (version, imports, themes, variables) come first, one line each. A changed property changes
//! exactly one line, and the line says which node it is.
//!
//! The text depends only on what the document says: no paths, no times, the same for every run;
//! the order keys happen to have in the file does not show (Pen's own order, or another
//! tool's, gives the same outline). Instance overrides are lines under their instance (`~ path:`)
//! with the nodes they put in, and very long values (path data, long texts) are shortened with
//! their length and a hash, so that a change still shows.

use std::fmt::Write;

use crate::doc::values::{Variable, VariableValue};
use crate::doc::{Document, Key, NodeTree, Props, Value};

use super::diff::header::themed_values;
use super::values::{compact, shorten};
use crate::printable::one_line;

/// Between two properties on a line.
const SEPARATOR: &str = " · ";

/// The outline of `document`; every line ends with a newline.
pub fn outline(document: &Document) -> String {
    let mut out = String::with_capacity(document.node_count() * 120 + 256);
    if let Some(version) = document.version() {
        let _ = writeln!(out, "version {version}");
    }
    for (alias, path) in sorted(document.imports().map(|i| i.iter().collect()).unwrap_or_default()) {
        let _ = writeln!(out, "import {alias} {}", shorten(&compact(&path.to_owned())));
    }
    for (axis, values) in sorted(document.themes().map(|t| t.iter().collect()).unwrap_or_default()) {
        let _ = writeln!(
            out,
            "theme {}: {}",
            one_line(axis),
            values.iter().map(|v| one_line(v)).collect::<Vec<_>>().join(", ")
        );
    }
    for (name, variable) in sorted(document.variables().map(|v| v.iter().collect()).unwrap_or_default()) {
        let _ = writeln!(out, "variable {} {}", one_line(name), variable_text(variable));
    }
    for (key, value) in sorted(document.unknown_keys().iter().map(|(k, v)| (k.as_str(), v)).collect()) {
        let _ = writeln!(out, "document {} {}", one_line(key), shorten(&compact(value)));
    }
    for key in document.tree().walk() {
        let node = document.tree().node(key);
        write_node(&mut out, &node.props, document.tree().depth(key));
    }
    out
}

fn sorted<T>(mut entries: Vec<(&str, T)>) -> Vec<(&str, T)> {
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// `(color) Mode=Light "#2563EB" · Mode=Dark "#60A5FA"`, or `(number) 8`.
fn variable_text(variable: &Variable) -> String {
    let var_type = variable.var_type.map_or("untyped", |t| t.as_str());
    let values = match &variable.value {
        None => "(no value)".to_owned(),
        Some(VariableValue::Plain(scalar)) => shorten(&compact(scalar)),
        Some(value @ VariableValue::Themed(_)) => themed_values(value)
            .into_iter()
            .map(|(theme, value)| format!("{} {}", one_line(&theme), shorten(&value)))
            .collect::<Vec<_>>()
            .join(SEPARATOR),
    };
    format!("({var_type}) {values}")
}

/// One node line, then its override lines.
fn write_node(out: &mut String, props: &Props, depth: usize) {
    indent(out, depth);
    out.push_str(props.node_type().map_or("node", |t| t.as_str()));
    if let Some(name) = props.name() {
        let _ = write!(out, " '{}'", one_line(name));
    }
    if let Some(id) = props.id() {
        let _ = write!(out, " ({})", one_line(id));
    }
    let mut first = true;
    for (key, value) in ordered(props) {
        if matches!(key, Key::Type | Key::Id | Key::Name | Key::Children | Key::Descendants) {
            continue;
        }
        out.push_str(if first { " " } else { SEPARATOR });
        first = false;
        let _ = write!(out, "{} {}", one_line(key.name()), shorten(&compact(value)));
    }
    out.push('\n');
    if let Some(Value::Descendants(descendants)) = props.get(&Key::Descendants) {
        let mut paths: Vec<(&str, &NodeTree)> = descendants.0.iter().collect();
        paths.sort_by(|a, b| a.0.cmp(b.0));
        for (path, tree) in paths {
            write_override(out, path, tree, depth + 1);
        }
    }
}

/// `~ path: key value · …`, `~ path: replaced by` or `~ path: children`, with the nodes an
/// override puts in on the lines below.
fn write_override(out: &mut String, path: &str, tree: &NodeTree, depth: usize) {
    indent(out, depth);
    let _ = write!(out, "~ {}:", one_line(path));
    if tree.is_replacement() {
        out.push_str(" replaced by\n");
        write_tree(out, tree, depth + 1);
        return;
    }
    let mut first = true;
    for (key, value) in ordered(&tree.props) {
        if *key == Key::Children {
            continue;
        }
        out.push_str(if first { " " } else { SEPARATOR });
        first = false;
        let _ = write!(out, "{} {}", one_line(key.name()), shorten(&compact(value)));
    }
    if tree.props.contains(&Key::Children) {
        out.push_str(if first { " children" } else { " · children" });
    }
    out.push('\n');
    for child in &tree.children {
        write_tree(out, child, depth + 1);
    }
}

fn write_tree(out: &mut String, tree: &NodeTree, depth: usize) {
    write_node(out, &tree.props, depth);
    for child in &tree.children {
        write_tree(out, child, depth + 1);
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// The properties in a fixed order: known keys in the order of the key table, then unknown keys
/// by name.
fn ordered(props: &Props) -> Vec<(&Key, &Value)> {
    let mut entries: Vec<(&Key, &Value)> = props.iter().collect();
    entries.sort_by(|(a, _), (b, _)| rank(a).cmp(&rank(b)).then_with(|| a.name().cmp(b.name())));
    entries
}

fn rank(key: &Key) -> usize {
    Key::KNOWN.iter().position(|name| *name == key.name()).unwrap_or(Key::KNOWN.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCUMENT: &str = r##"{"version": "2.11", "themes": {"Mode": ["Light", "Dark"]},
        "variables": {"--radius": {"type": "number", "value": 8},
                      "--primary": {"type": "color", "value": [{"value": "#2563EB", "theme": {"Mode": "Light"}}, {"value": "#60A5FA", "theme": {"Mode": "Dark"}}]}},
        "children": [
            {"type": "frame", "id": "a1b2c", "name": "Hero", "width": 100, "padding": 32, "children": [
                {"type": "text", "id": "t1", "content": "Hello\nworld", "fill": "$--primary"},
                {"type": "ref", "id": "i1", "ref": "btn", "descendants": {"label": {"content": "Go"}, "icon": {"type": "text", "id": "n", "content": "x"}}}
            ]}
        ]}"##;

    #[test]
    fn one_line_per_node_with_properties_in_a_fixed_order() {
        let document = Document::load(DOCUMENT).unwrap().document;
        assert_eq!(
            outline(&document),
            [
                "version 2.11",
                "theme Mode: Light, Dark",
                "variable --primary (color) Mode=Light \"#2563EB\" · Mode=Dark \"#60A5FA\"",
                "variable --radius (number) 8",
                "frame 'Hero' (a1b2c) width 100 · padding 32",
                "  text (t1) fill \"$--primary\" · content \"Hello\\nworld\"",
                "  ref (i1) ref \"btn\"",
                "    ~ icon: replaced by",
                "      text (n) content \"x\"",
                "    ~ label: content \"Go\"",
                "",
            ]
            .join("\n")
        );
    }

    #[test]
    fn key_order_in_the_file_does_not_change_the_outline() {
        let a = Document::load(
            r##"{"version": "2.11", "children": [{"type": "frame", "id": "a", "width": 1, "fill": "#fff"}]}"##,
        );
        let b = Document::load(
            r##"{"children": [{"fill": "#fff", "id": "a", "width": 1, "type": "frame"}], "version": "2.11"}"##,
        );
        assert_eq!(outline(&a.unwrap().document), outline(&b.unwrap().document));
    }

    #[test]
    fn a_changed_property_changes_one_line() {
        let old = Document::load(DOCUMENT).unwrap().document;
        let new = Document::load(&DOCUMENT.replace("\"padding\": 32", "\"padding\": 48")).unwrap().document;
        let (old, new) = (outline(&old), outline(&new));
        let changed: Vec<(&str, &str)> = old.lines().zip(new.lines()).filter(|(a, b)| a != b).collect();
        assert_eq!(
            changed,
            [("frame 'Hero' (a1b2c) width 100 · padding 32", "frame 'Hero' (a1b2c) width 100 · padding 48")]
        );
    }
}
