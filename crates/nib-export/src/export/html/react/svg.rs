//! A drawing's SVG markup (what nib's SVG writer puts inside an `<svg>`) spelled as JSX, so a
//! component draws it as React elements instead of injecting markup: attribute names as React
//! names them (`stroke-width` → `strokeWidth`, `xml:space` → `xmlSpace`), a `style` as an
//! object, text as string expressions. The markup is nib's own, well formed; what does not read
//! as an element is kept as text, never as markup.

use super::jsx::js_string;

/// `markup` as JSX elements, one per line at `indent`.
pub(super) fn jsx_of(markup: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut rest = markup;
    while !rest.is_empty() {
        let Some(start) = rest.find('<') else {
            text(&mut out, rest, indent, depth);
            break;
        };
        text(&mut out, &rest[..start], indent, depth);
        rest = &rest[start..];
        let Some(end) = tag_end(rest) else {
            text(&mut out, rest, indent, depth);
            break;
        };
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            depth = depth.saturating_sub(1);
            out.push_str(&format!("{indent}{}</{}>\n", "  ".repeat(depth), name.trim()));
            continue;
        }
        let closed = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, attributes) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        let mut element = format!("{indent}{}<{name}", "  ".repeat(depth));
        for (attribute, value) in attributes_of(attributes) {
            element.push(' ');
            element.push_str(&attribute_jsx(attribute, value));
        }
        element.push_str(if closed { " />\n" } else { ">\n" });
        out.push_str(&element);
        if !closed {
            depth += 1;
        }
    }
    out
}

/// Where the tag starting `rest` ends (its `>`, outside quoted values).
fn tag_end(rest: &str) -> Option<usize> {
    let mut quoted = false;
    for (i, c) in rest.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '>' if !quoted => return Some(i),
            _ => {}
        }
    }
    None
}

/// Characters between elements, as a string expression (entities read back to characters).
fn text(out: &mut String, text: &str, indent: &str, depth: usize) {
    if text.trim().is_empty() {
        return;
    }
    let decoded = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    out.push_str(&format!("{indent}{}{{{}}}\n", "  ".repeat(depth), js_string(&decoded)));
}

/// The `name="value"` pairs of a start tag.
fn attributes_of(mut rest: &str) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    loop {
        rest = rest.trim_start();
        let Some(equals) = rest.find("=\"") else { break };
        let name = rest[..equals].trim();
        let after = &rest[equals + 2..];
        let Some(close) = after.find('"') else { break };
        pairs.push((name, &after[..close]));
        rest = &after[close + 1..];
    }
    pairs
}

/// One attribute as JSX: React's name for it, its value as written (JSX reads entities in
/// attribute strings as HTML does), a `style` as an object.
fn attribute_jsx(name: &str, value: &str) -> String {
    if name == "style" {
        let entries: Vec<String> = value
            .split(';')
            .filter_map(|declaration| declaration.split_once(':'))
            .map(|(property, value)| format!("{}: {}", react_name(property.trim()), js_string(value.trim())))
            .collect();
        return format!("style={{{{ {} }}}}", entries.join(", "));
    }
    format!("{}=\"{value}\"", react_name(name))
}

/// React's name of an SVG attribute: `class` → `className`, `xml:space` → `xmlSpace`,
/// `stroke-width` → `strokeWidth`; `data-…` and `aria-…` as written.
fn react_name(name: &str) -> String {
    if name == "class" {
        return "className".to_owned();
    }
    if name.starts_with("data-") || name.starts_with("aria-") {
        return name.to_owned();
    }
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '-' || c == ':' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_becomes_react_elements() {
        let jsx = jsx_of(
            "<defs><clipPath id=\"s1-c0\"><path d=\"M0 0Z\"/></clipPath></defs><g clip-path=\"url(#s1-c0)\"><path d=\"M1 1L2 2\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" stroke-linecap=\"round\"/></g><text xml:space=\"preserve\" style=\"font-feature-settings: 'liga' 0\">a &lt; b</text>",
            "",
        );
        assert_eq!(
            jsx,
            "<defs>\n  <clipPath id=\"s1-c0\">\n    <path d=\"M0 0Z\" />\n  </clipPath>\n</defs>\n<g clipPath=\"url(#s1-c0)\">\n  <path d=\"M1 1L2 2\" fill=\"none\" stroke=\"currentColor\" strokeWidth=\"2\" strokeLinecap=\"round\" />\n</g>\n<text xmlSpace=\"preserve\" style={{ fontFeatureSettings: \"'liga' 0\" }}>\n  {\"a < b\"}\n</text>\n"
        );
    }
}
