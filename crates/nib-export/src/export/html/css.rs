//! Writing a page's elements as HTML with a class each, and the classes' CSS: identical nodes
//! share a class, named after the node. With how CSS values are spelled (pixels, a number
//! variable as a length, a remote address), which the builder uses too.

use std::collections::HashMap;
use std::fmt::Write;

use super::tree::{Element, Rules};
use crate::export::svg::{escape, number};

/// Writes a page's elements as HTML with a class each, and the classes' CSS.
#[derive(Default)]
pub(super) struct CssWriter {
    pub(super) html: String,
    /// Class name → its rules, so that identical nodes share a class.
    classes: HashMap<String, String>,
    pub(super) css: String,
}

impl CssWriter {
    /// `element` and its children, each with its class (made in document order).
    pub(super) fn write(&mut self, element: &Element) {
        let class = self.class_for(&element.name, &element.rules);
        let tag = element.tag.name();
        let _ = write!(self.html, "<{tag} class=\"{class}\" data-pen-id=\"{}\"", escape(&element.id));
        element.write_rest(&mut self.html, "");
        for child in &element.children {
            self.write(child);
        }
        let _ = write!(self.html, "</{tag}>");
    }

    /// A class for a node called `name` with `rules`: the name as an identifier, shared with
    /// an earlier node that has the very same rules, numbered when another one took it.
    fn class_for(&mut self, name: &str, rules: &Rules) -> String {
        let block = |selector: &str| {
            let mut css = format!(".{selector} {{\n");
            for (property, value) in &rules.main {
                let _ = writeln!(css, "  {property}: {value};");
            }
            css.push_str("}\n");
            if !rules.stroke.is_empty() {
                let _ = writeln!(css, ".{selector}::after {{");
                for (property, value) in &rules.stroke {
                    let _ = writeln!(css, "  {property}: {value};");
                }
                css.push_str("}\n");
            }
            if !rules.lines.is_empty() {
                let _ = writeln!(css, ".{selector} > span {{");
                for (property, value) in &rules.lines {
                    let _ = writeln!(css, "  {property}: {value};");
                }
                css.push_str("}\n");
            }
            css
        };
        let base = class_name(name);
        let mut candidate = base.clone();
        let mut n = 2;
        loop {
            let css = block(&candidate);
            match self.classes.get(&candidate) {
                Some(existing) if *existing == css => return candidate,
                Some(_) => {
                    candidate = format!("{base}-{n}");
                    n += 1;
                }
                None => {
                    self.css.push_str(&css);
                    self.classes.insert(candidate.clone(), css);
                    return candidate;
                }
            }
        }
    }
}

/// A class name from a node's name: lower-case words joined by `-`, starting with a letter.
fn class_name(name: &str) -> String {
    let mut class = String::new();
    let mut dash = false;
    for c in name.chars() {
        if c.is_alphanumeric() {
            if dash && !class.is_empty() {
                class.push('-');
            }
            class.extend(c.to_lowercase());
            dash = false;
        } else {
            dash = true;
        }
        if class.len() >= 40 {
            break;
        }
    }
    if class.is_empty() || class.starts_with(|c: char| c.is_ascii_digit()) {
        class.insert_str(0, "n-");
    }
    class
}

/// A number variable's custom property (`--gap`, unitless) as a length in pixels.
pub(super) fn variable_pixels(property: &str) -> String {
    format!("calc(var({property}) * 1px)")
}

/// Pixels as CSS writes them.
pub(super) fn px(value: f32) -> String {
    let n = number(value);
    if n == "0" { n } else { format!("{n}px") }
}

/// A remote address spelled as the browser requests it: a space, `"`, `<`, `>` and the other
/// control characters percent-encoded, tabs and line breaks dropped (the URL parser removes
/// them), everything else as written. Html-tailwind writes a value's spaces as `_`, which
/// Tailwind turns back into spaces everywhere but inside `url(…)`: a space left there reached
/// the browser as `_`, another address.
pub(super) fn browser_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '\t' | '\n' | '\r' => {}
            ' ' | '"' | '<' | '>' | '\u{0}'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_addresses_are_spelled_as_the_browser_requests_them() {
        assert_eq!(
            browser_url("https://example.com/my photo.png?a=\"b\""),
            "https://example.com/my%20photo.png?a=%22b%22"
        );
        assert_eq!(browser_url("https://example.com/a%20b_c.png\n"), "https://example.com/a%20b_c.png");
    }

    #[test]
    fn class_names_read_like_the_node_names() {
        assert_eq!(class_name("Hero / Title"), "hero-title");
        assert_eq!(class_name("2 columns"), "n-2-columns");
        assert_eq!(class_name("★"), "n-");
        assert_eq!(px(12.0), "12px");
        assert_eq!(px(0.0), "0");
    }
}
