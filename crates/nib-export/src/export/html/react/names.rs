//! Names a developer types: identifiers from layer names, unique within their scope.

use std::collections::{HashMap, HashSet};

/// `name` as a JavaScript identifier: words joined in camelCase (PascalCase when `capital`),
/// starting with a letter, never a reserved word.
pub(crate) fn identifier(name: &str, capital: bool) -> String {
    let mut out = String::new();
    let mut upper = capital;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if out.is_empty() && c.is_ascii_digit() {
                out.push(if capital { 'N' } else { 'n' });
            }
            if upper {
                out.push(c.to_ascii_uppercase());
            } else if out.is_empty() {
                out.push(if capital { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() });
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = !out.is_empty() || capital;
        }
        if out.len() >= 40 {
            break;
        }
    }
    if out.is_empty() {
        out.push_str(if capital { "Part" } else { "text" });
    }
    const RESERVED: &[&str] = &[
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "let",
        "static",
        "children",
        "key",
        "ref",
    ];
    if RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// What a part is called in a prop name, in words: its layer name without a last word that
/// only says its kind (`Perk Text` → `Perk`). A layer named after its kind alone (`text`,
/// `Frame`) or with a phrase (a copy of some text: `0 of 5 row(s) selected`, `Frame 12`) says
/// nothing about the part: it is named after its role, the nearest part around it whose name
/// does (`role`), with the kind after it (`Footer` → `Footer text`); else the kind alone.
pub(crate) fn part_name(layer: &str, kind: &str, role: Option<&str>) -> String {
    if names_the_part(layer) {
        let words: Vec<&str> = layer.split_whitespace().collect();
        return match words.split_last() {
            Some((last, rest)) if !rest.is_empty() && last.eq_ignore_ascii_case(kind) => rest.join(" "),
            _ => layer.to_owned(),
        };
    }
    match role.filter(|r| names_the_part(r)) {
        Some(role) => format!("{} {kind}", part_name(role, kind, None)),
        None => kind.to_owned(),
    }
}

/// True when a layer name says what the part is: a few words of letters, not a node kind and
/// not a phrase with numbers or punctuation (the text it once held, a generated name).
pub(crate) fn names_the_part(layer: &str) -> bool {
    const KINDS: &[&str] = &[
        "text",
        "frame",
        "rectangle",
        "ellipse",
        "group",
        "icon_font",
        "path",
        "line",
        "polygon",
        "ref",
        "note",
        "image",
    ];
    let words = layer.split_whitespace().count();
    (1..=3).contains(&words)
        && layer.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '-' || c == '_')
        && !KINDS.iter().any(|kind| layer.trim().eq_ignore_ascii_case(kind))
}

/// Names handed out once each: `base`, or `base2`, `base3`… when taken. Each base remembers
/// the next number it tries, so 10,000 parts of one name cost 10,000 steps, not 50 million.
pub(crate) struct Names {
    /// The names given, as compared (lowercase when letter case is ignored).
    pub(super) taken: HashSet<String>,
    /// The number each base tries next (1: the base itself).
    pub(super) next: HashMap<String, usize>,
    /// Compare without letter case: component names are file names (`Card.tsx` and
    /// `CARD.tsx` are one file on macOS and Windows, and TypeScript refuses the pair).
    pub(super) ignore_case: bool,
}

impl Names {
    /// No name taken yet.
    pub(crate) fn new(ignore_case: bool) -> Names {
        Names { taken: HashSet::new(), next: HashMap::new(), ignore_case }
    }

    /// Names that are taken from the start (React's own props).
    pub(super) fn reserving<'n>(ignore_case: bool, reserved: impl IntoIterator<Item = &'n str>) -> Names {
        let mut names = Names::new(ignore_case);
        for name in reserved {
            let key = names.key(name);
            names.taken.insert(key);
        }
        names
    }

    fn key(&self, name: &str) -> String {
        if self.ignore_case { name.to_lowercase() } else { name.to_owned() }
    }

    /// `base`, or `base` and the first number that makes it a name not given yet; it is taken.
    pub(crate) fn unique(&mut self, base: &str) -> String {
        let base_key = self.key(base);
        let mut number = self.next.get(&base_key).copied().unwrap_or(1);
        loop {
            let candidate = if number == 1 { base.to_owned() } else { format!("{base}{number}") };
            let key = self.key(&candidate);
            number += 1;
            if self.taken.insert(key) {
                self.next.insert(base_key, number);
                return candidate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_named_for_what_they_are() {
        assert_eq!(part_name("Perk Text", "text", Some("Perk")), "Perk");
        assert_eq!(part_name("Price", "text", None), "Price");
        assert_eq!(part_name("0 of 5 row(s) selected", "text", Some("Table Footer")), "Table Footer text");
        assert_eq!(part_name("Text", "text", Some("Frame 3")), "text");
        assert_eq!(identifier(&part_name("Badge", "frame", None), true), "Badge");
    }
}
