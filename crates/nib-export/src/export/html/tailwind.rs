//! HTML with Tailwind classes (Pen's `html-tailwind`): the same page tree as the HTML/CSS
//! export, each element's declarations spelled as Tailwind v4 utilities — `flex flex-col gap-3
//! p-4 bg-(--primary) rounded-lg` — and, for a value no utility names, Tailwind's arbitrary
//! values (`w-[123.5px]`, `shadow-[0_4px_8px_rgba(0,0,0,0.25)]`) or arbitrary properties
//! (`[transform:matrix(…)]`). Nothing is written as an inline style.
//!
//! Lengths use Tailwind's spacing scale (4 px a step) where they fall on a half step (every
//! 2 px: `gap-3` is 12 px, `p-2.5` 10 px), arbitrary pixels elsewhere; font sizes, weights and
//! radii use the names Tailwind has for exactly that value. The classes are compiled by
//! Tailwind itself (`tailwind.css`, written beside the pages, is its input).

use std::fmt::Write;

use super::tree::{Element, Rules};
use crate::export::svg::escape;
use crate::export::svg::number_with;

/// What the written elements carry besides their classes (Pen's export options).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailwindOptions {
    /// A whole document (`<!DOCTYPE html>`, head with the stylesheet), not only the elements.
    pub scaffold: bool,
    /// Each element's layer name as `data-name`.
    pub layer_names: bool,
    /// Each element's node id as `data-pen-id`.
    pub layer_ids: bool,
}

impl Default for TailwindOptions {
    /// A whole page whose elements carry their ids (what a design review maps back), without
    /// names.
    fn default() -> TailwindOptions {
        TailwindOptions { scaffold: true, layer_names: false, layer_ids: true }
    }
}

/// The stylesheet the pages link: Tailwind's output, compiled from `tailwind.css`.
pub const COMPILED_CSS: &str = "styles.css";

/// The Tailwind input written beside the pages.
pub const TAILWIND_INPUT: &str = "tailwind.css";

/// The class every page's root carries: the base rules of [`base_css`] apply inside it.
pub const PAGE_CLASS: &str = "pen-page";

/// What Tailwind's preflight does not already set: the box model nib lays out with (items never
/// shrink below their size, children are placed against their parent), in Tailwind's base
/// layer, so every utility overrides it.
pub(crate) fn base_css() -> String {
    format!(
        "@layer base {{\n  :where(.{PAGE_CLASS}, .{PAGE_CLASS} *:not(svg *)) {{ position: relative; flex-shrink: 0; min-width: 0; min-height: 0; }}\n  :where(svg.{PAGE_CLASS}, .{PAGE_CLASS} svg) {{ display: block; overflow: visible; }}\n  :where(p.{PAGE_CLASS}, .{PAGE_CLASS} p) {{ white-space: pre; }}\n}}\n"
    )
}

/// Writes a page's elements with their Tailwind classes.
pub(crate) struct TailwindWriter {
    pub html: String,
    options: TailwindOptions,
}

impl TailwindWriter {
    pub fn new(options: TailwindOptions) -> TailwindWriter {
        TailwindWriter { html: String::new(), options }
    }

    /// `element` and its children; `root` gets the page class.
    pub fn write(&mut self, element: &Element, root: bool) {
        let tag = element.tag.name();
        let mut classes = if root { vec![PAGE_CLASS.to_owned()] } else { Vec::new() };
        classes.extend(classes_of(&element.rules));
        let _ = write!(self.html, "<{tag} class=\"{}\"", classes.join(" "));
        if self.options.layer_ids {
            let _ = write!(self.html, " data-pen-id=\"{}\"", escape(&element.id));
        }
        if self.options.layer_names {
            let _ = write!(self.html, " data-name=\"{}\"", escape(&element.name));
        }
        let lines: Vec<String> = element.rules.lines.iter().flat_map(|(p, v)| utilities(p, v)).collect();
        element.write_rest(&mut self.html, &format!(" class=\"{}\"", lines.join(" ")));
        for child in &element.children {
            self.write(child, false);
        }
        let _ = write!(self.html, "</{tag}>");
    }
}

/// The classes of an element's declarations, in their order, then its stroke's (`after:`).
pub(crate) fn classes_of(rules: &Rules) -> Vec<String> {
    let mut classes = Vec::new();
    for (property, value) in &rules.main {
        classes.extend(utilities(property, value));
    }
    if !rules.stroke.is_empty() {
        for (property, value) in &rules.stroke {
            let utilities =
                if *property == "content" { vec!["content-['']".to_owned()] } else { utilities(property, value) };
            classes.extend(utilities.into_iter().map(|u| format!("after:{u}")));
        }
    }
    classes
}

/// The utilities of one declaration.
pub(crate) fn utilities(property: &str, value: &str) -> Vec<String> {
    let one = |class: String| vec![class];
    match (property, value) {
        ("display", "flex") => one("flex".into()),
        ("flex-direction", "column") => one("flex-col".into()),
        ("position", "absolute") => one("absolute".into()),
        ("position", "relative") => one("relative".into()),
        ("gap", v) => one(length("gap", v)),
        ("left", v) => one(length("left", v)),
        ("top", v) => one(length("top", v)),
        ("width", "fit-content") => one("w-fit".into()),
        ("height", "fit-content") => one("h-fit".into()),
        ("width", "auto") => one("w-auto".into()),
        ("height", "auto") => one("h-auto".into()),
        ("width", v) => one(length("w", v)),
        ("height", v) => one(length("h", v)),
        ("min-width", v) => one(length("min-w", v)),
        ("min-height", v) => one(length("min-h", v)),
        ("margin-left", v) => one(length("ml", v)),
        ("margin-top", v) => one(length("mt", v)),
        ("margin-right", v) => one(length("mr", v)),
        ("margin-bottom", v) => one(length("mb", v)),
        ("padding", v) => padding(v),
        ("padding-top", v) => one(length("pt", v)),
        ("padding-right", v) => one(length("pr", v)),
        ("padding-bottom", v) => one(length("pb", v)),
        ("padding-left", v) => one(length("pl", v)),
        ("flex", "none") => one("flex-none".into()),
        ("flex", "1 0 0px") => vec!["grow".into(), "shrink-0".into(), "basis-0".into()],
        ("align-self", "stretch") => one("self-stretch".into()),
        ("align-self", "auto") => one("self-auto".into()),
        ("justify-content", v) => match v {
            "center" => one("justify-center".into()),
            "flex-end" => one("justify-end".into()),
            "space-between" => one("justify-between".into()),
            "space-around" => one("justify-around".into()),
            _ => one(arbitrary_property(property, value)),
        },
        ("align-items", v) => match v {
            "flex-start" => one("items-start".into()),
            "center" => one("items-center".into()),
            "flex-end" => one("items-end".into()),
            _ => one(arbitrary_property(property, value)),
        },
        ("opacity", v) => one(opacity(v)),
        ("transform-origin", "0 0") => one("origin-top-left".into()),
        ("filter", v) => {
            one(function_of("blur", v).map_or_else(|| arbitrary_property(property, value), |b| format!("blur-[{b}]")))
        }
        ("backdrop-filter", v) => one(function_of("blur", v)
            .map_or_else(|| arbitrary_property(property, value), |b| format!("backdrop-blur-[{b}]"))),
        ("background-color", v) => one(color("bg", v)),
        ("color", v) => one(color("text", v)),
        ("mix-blend-mode", v) => one(format!("mix-blend-{v}")),
        ("border-radius", v) => one(radius(v)),
        ("overflow", "hidden") => one("overflow-hidden".into()),
        ("box-shadow", v) => one(format!("shadow-[{}]", arbitrary(v))),
        ("outline", v) => outline(v).unwrap_or_else(|| one(arbitrary_property(property, value))),
        ("outline-offset", v) => one(pixels("outline-offset", v)),
        ("font-size", v) => one(font_size(v)),
        ("font-weight", v) => one(font_weight(v)),
        ("font-style", "italic") => one("italic".into()),
        ("letter-spacing", v) => one(format!("tracking-[{}]", arbitrary(v))),
        ("line-height", v) => one(format!("leading-[{}]", arbitrary(v))),
        ("text-align", v) => one(format!("text-{v}")),
        ("white-space", "pre-wrap") => one("whitespace-pre-wrap".into()),
        ("white-space", "pre") => one("whitespace-pre".into()),
        ("background-clip", "text") => one("bg-clip-text".into()),
        ("-webkit-background-clip", _) => Vec::new(),
        ("text-decoration", "underline") => one("underline".into()),
        ("text-decoration", "line-through") => one("line-through".into()),
        ("inset", v) => one(length("inset", v)),
        ("pointer-events", "none") => one("pointer-events-none".into()),
        ("border-style", v @ ("solid" | "dashed")) => one(format!("border-{v}")),
        ("border-color", v) => one(color("border", v)),
        _ => one(arbitrary_property(property, value)),
    }
}

/// `prefix` with a length: a step of the spacing scale (`gap-3`, `-ml-2`) when the value is
/// whole pixels on a half step, `0` for zero, otherwise the length as an arbitrary value.
fn length(prefix: &str, value: &str) -> String {
    if value == "0" || value == "0px" {
        return format!("{prefix}-0");
    }
    if let Some(pixels) = value.strip_suffix("px").and_then(|n| n.parse::<f64>().ok()) {
        let steps = pixels.abs() / 4.0;
        if (steps * 2.0).fract() == 0.0 && steps <= 96.0 {
            let sign = if pixels < 0.0 { "-" } else { "" };
            return format!("{sign}{prefix}-{}", number_with(steps as f32, 4));
        }
    }
    format!("{prefix}-[{}]", arbitrary(value))
}

/// `prefix` with a length in whole pixels, as the utilities that count pixels take it
/// (`outline-offset-2`, `-outline-offset-1`), else the length as an arbitrary value.
fn pixels(prefix: &str, value: &str) -> String {
    match value.strip_suffix("px").and_then(|n| n.parse::<f64>().ok()) {
        Some(pixels) if pixels.fract() == 0.0 => {
            let sign = if pixels < 0.0 { "-" } else { "" };
            format!("{sign}{prefix}-{}", number_with(pixels.abs() as f32, 4))
        }
        _ if value == "0" => format!("{prefix}-0"),
        _ => format!("{prefix}-[{}]", arbitrary(value)),
    }
}

/// Padding from its CSS shorthand: `p-4`, `px-4 py-2`, or one utility per side.
fn padding(value: &str) -> Vec<String> {
    let sides: Vec<&str> = value.split(' ').collect();
    match sides.as_slice() {
        [all] => vec![length("p", all)],
        [vertical, horizontal] => vec![length("py", vertical), length("px", horizontal)],
        [top, right, bottom, left] => {
            vec![length("pt", top), length("pr", right), length("pb", bottom), length("pl", left)]
        }
        _ => vec![arbitrary_property("padding", value)],
    }
}

/// A color: a variable through Tailwind's shorthand (`bg-(--primary)`), `transparent`, or the
/// color as an arbitrary value (`bg-[#1e293b]`).
fn color(prefix: &str, value: &str) -> String {
    if let Some(property) = value.strip_prefix("var(").and_then(|v| v.strip_suffix(')')) {
        return format!("{prefix}-({property})");
    }
    if value == "transparent" {
        return format!("{prefix}-transparent");
    }
    format!("{prefix}-[{}]", arbitrary(value))
}

/// Opacity as Tailwind's percent utility when it is a whole percent.
fn opacity(value: &str) -> String {
    match value.parse::<f64>() {
        Ok(o) if ((o * 100.0).round() - o * 100.0).abs() < 1e-6 => format!("opacity-{}", (o * 100.0).round()),
        _ => format!("opacity-[{}]", arbitrary(value)),
    }
}

/// The named radii of Tailwind v4, by pixels.
const RADII: &[(f64, &str)] =
    &[(2.0, "xs"), (4.0, "sm"), (6.0, "md"), (8.0, "lg"), (12.0, "xl"), (16.0, "2xl"), (24.0, "3xl"), (32.0, "4xl")];

fn radius(value: &str) -> String {
    if let Some(pixels) = value.strip_suffix("px").and_then(|n| n.parse::<f64>().ok())
        && let Some((_, name)) = RADII.iter().find(|(px, _)| *px == pixels)
    {
        return format!("rounded-{name}");
    }
    if value == "0" {
        return "rounded-none".into();
    }
    format!("rounded-[{}]", arbitrary(value))
}

/// The font sizes Tailwind names (v4), by pixels.
const FONT_SIZES: &[(f64, &str)] = &[
    (12.0, "xs"),
    (14.0, "sm"),
    (16.0, "base"),
    (18.0, "lg"),
    (20.0, "xl"),
    (24.0, "2xl"),
    (30.0, "3xl"),
    (36.0, "4xl"),
    (48.0, "5xl"),
    (60.0, "6xl"),
    (72.0, "7xl"),
    (96.0, "8xl"),
    (128.0, "9xl"),
];

/// A font size: its name when Tailwind has one (the line height is always set after it, with
/// `leading-…`, which wins over the name's own), else an arbitrary length.
fn font_size(value: &str) -> String {
    if let Some(pixels) = value.strip_suffix("px").and_then(|n| n.parse::<f64>().ok())
        && let Some((_, name)) = FONT_SIZES.iter().find(|(px, _)| *px == pixels)
    {
        return format!("text-{name}");
    }
    format!("text-[length:{}]", arbitrary(value))
}

fn font_weight(value: &str) -> String {
    let name = match value {
        "100" => "thin",
        "200" => "extralight",
        "300" => "light",
        "400" => "normal",
        "500" => "medium",
        "600" => "semibold",
        "700" => "bold",
        "800" => "extrabold",
        "900" => "black",
        other => return format!("font-[{}]", arbitrary(other)),
    };
    format!("font-{name}")
}

/// An outline `2px solid #000` as its width, style and color utilities.
fn outline(value: &str) -> Option<Vec<String>> {
    let mut parts = value.splitn(3, ' ');
    let (width, style, color_value) = (parts.next()?, parts.next()?, parts.next()?);
    let width = match width.strip_suffix("px").and_then(|n| n.parse::<f64>().ok()) {
        Some(w) if w.fract() == 0.0 => format!("outline-{}", number_with(w as f32, 4)),
        _ => format!("outline-[length:{}]", arbitrary(width)),
    };
    Some(vec![width, format!("outline-{style}"), color("outline", color_value)])
}

/// The argument of `name(…)` when `value` is that one function.
fn function_of<'v>(name: &str, value: &'v str) -> Option<&'v str> {
    value.strip_prefix(name)?.strip_prefix('(')?.strip_suffix(')')
}

/// A declaration no utility names, as an arbitrary property: `[transform:matrix(1,0,0,1,0,0)]`.
fn arbitrary_property(property: &str, value: &str) -> String {
    format!("[{property}:{}]", arbitrary(value))
}

/// A CSS value as Tailwind reads an arbitrary value inside a class: spaces become `_` (a real
/// `_` is escaped), double quotes single (a single quote escaped), `<` and `>` percent-encoded,
/// so the class stays one word in an HTML attribute and cannot open an element.
fn arbitrary(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            ' ' => out.push('_'),
            '_' => out.push_str("\\_"),
            // Strings are written double-quoted; single-quoted here, with their own single quotes
            // escaped, so the class stays one HTML attribute word and the string stays whole.
            '"' => out.push('\''),
            '\'' => out.push_str("\\'"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(pairs: &[(&'static str, &str)]) -> Vec<String> {
        classes_of(&Rules { main: pairs.iter().map(|(p, v)| (*p, (*v).to_owned())).collect(), ..Rules::default() })
    }

    #[test]
    fn lengths_take_the_spacing_scale_on_its_half_steps_and_pixels_elsewhere() {
        assert_eq!(of(&[("gap", "12px"), ("padding", "10px 16px")]), ["gap-3", "py-2.5", "px-4"]);
        assert_eq!(
            of(&[("width", "123.5px"), ("height", "13px"), ("left", "0")]),
            ["w-[123.5px]", "h-[13px]", "left-0"]
        );
        assert_eq!(of(&[("margin-left", "-8px"), ("margin-top", "-3px")]), ["-ml-2", "mt-[-3px]"]);
        assert_eq!(of(&[("padding", "1px 2px 3px 4px")]), ["pt-[1px]", "pr-0.5", "pb-[3px]", "pl-1"]);
    }

    #[test]
    fn named_values_are_used_only_where_they_are_exact() {
        assert_eq!(
            of(&[("font-size", "14px"), ("font-size", "15px"), ("font-weight", "600"), ("font-weight", "650")]),
            ["text-sm", "text-[length:15px]", "font-semibold", "font-[650]"]
        );
        assert_eq!(of(&[("border-radius", "8px"), ("border-radius", "50%")]), ["rounded-lg", "rounded-[50%]"]);
        assert_eq!(of(&[("opacity", "0.5"), ("opacity", "0.333")]), ["opacity-50", "opacity-[0.333]"]);
    }

    #[test]
    fn variables_and_colors_keep_their_names_and_values() {
        assert_eq!(
            of(&[("background-color", "var(--primary)"), ("color", "#1e293b"), ("color", "transparent")]),
            ["bg-(--primary)", "text-[#1e293b]", "text-transparent"]
        );
        assert_eq!(
            of(&[("outline", "2px solid rgba(0, 0, 0, 0.5)"), ("outline-offset", "-2px")]),
            ["outline-2", "outline-solid", "outline-[rgba(0,_0,_0,_0.5)]", "-outline-offset-2"]
        );
    }

    #[test]
    fn what_no_utility_names_is_an_arbitrary_property_that_stays_one_word() {
        assert_eq!(
            of(&[("transform", "matrix(1, 0, 0, 1, 2, 3)"), ("font-family", "\"Open Sans\", \"my_font\", sans-serif")]),
            ["[transform:matrix(1,_0,_0,_1,_2,_3)]", "[font-family:'Open_Sans',_'my\\_font',_sans-serif]"]
        );
        assert_eq!(
            of(&[("font-family", "\"Rock 'n' Roll\", sans-serif")]),
            ["[font-family:'Rock_\\'n\\'_Roll',_sans-serif]"]
        );
        let stroke = Rules {
            stroke: vec![("content", "\"\"".into()), ("border-width", "1px 2px 1px 2px".into())],
            ..Rules::default()
        };
        assert_eq!(classes_of(&stroke), ["after:content-['']", "after:[border-width:1px_2px_1px_2px]"]);
    }
}
