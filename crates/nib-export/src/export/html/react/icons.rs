//! One React component per icon the design draws (`icons.tsx`: `CheckIcon`, `ZapIcon`), so a
//! component or page writes `<CheckIcon className="…" />` where the icon is, and an app can use
//! the same icons. An icon is painted in `currentColor` where the design gives it one colour
//! (its element's `color`: the variable, or the value), so a class colours it.

use std::collections::HashMap;
use std::fmt::Write;

use super::names::{Names, identifier};
use super::props::unprefixed;
use super::svg;
use crate::export::html::tree::{self, Content, Element};

/// The icon components of an export: by what they draw, their name.
#[derive(Default)]
pub(super) struct Icons {
    /// Every drawing seen: the component that draws it.
    by_drawing: HashMap<Drawing, usize>,
    /// By the icon's name in its set: its components.
    by_icon: HashMap<String, Vec<usize>>,
    /// Each component in the order first drawn.
    list: Vec<Icon>,
}

/// One icon component: its name, the markup it draws (at the size first drawn, which its
/// `viewBox` keeps, so another size is the same drawing scaled) and that size.
struct Icon {
    name: String,
    markup: String,
    unprefixed: String,
    width: f32,
    height: f32,
}

/// What makes two icons one component: their set's name for it, what they draw (without a
/// page's definition prefix) and their size.
#[derive(PartialEq, Eq, Hash)]
struct Drawing {
    name: String,
    markup: String,
    size: (u32, u32),
}

fn drawing_of(element: &Element) -> Option<Drawing> {
    let (Some(name), Content::Svg { width, height, markup }) = (&element.icon, &element.content) else { return None };
    Some(Drawing { name: name.clone(), markup: unprefixed(markup), size: (width.to_bits(), height.to_bits()) })
}

impl Icons {
    /// The icons drawn in `trees`, named after their icons (`check` → `CheckIcon`): one
    /// component per icon, whatever the sizes it is drawn at (an icon scales with its box, its
    /// lines too), numbered only where one icon is drawn otherwise (another weight, colours
    /// of its own). `components` are the names taken by the design's components.
    pub(super) fn of<'e, 'n>(
        trees: impl IntoIterator<Item = &'e Element>,
        components: impl IntoIterator<Item = &'n str>,
    ) -> Icons {
        let mut icons = Icons::default();
        let mut names = Names::reserving(true, components);
        let mut stack: Vec<&Element> = trees.into_iter().collect();
        stack.reverse();
        while let Some(element) = stack.pop() {
            stack.extend(element.children.iter().rev());
            let (Some(drawing), Content::Svg { width, height, markup }) = (drawing_of(element), &element.content)
            else {
                continue;
            };
            if icons.by_drawing.contains_key(&drawing) {
                continue;
            }
            let same = icons.by_icon.get(&drawing.name).and_then(|list| {
                list.iter().copied().find(|&index| {
                    let icon = &icons.list[index];
                    scaled_alike((&icon.unprefixed, icon.width, icon.height), (&drawing.markup, *width, *height))
                })
            });
            let index = match same {
                Some(index) => index,
                None => {
                    let base = identifier(&drawing.name, true);
                    let name = names.unique(&format!("{}Icon", base.trim_end_matches("Icon")));
                    icons.by_icon.entry(drawing.name.clone()).or_default().push(icons.list.len());
                    icons.list.push(Icon {
                        name,
                        markup: markup.clone(),
                        unprefixed: drawing.markup.clone(),
                        width: *width,
                        height: *height,
                    });
                    icons.list.len() - 1
                }
            };
            icons.by_drawing.insert(drawing, index);
        }
        icons
    }

    /// The component that draws `element`, when it is an icon.
    pub(super) fn name_of(&self, element: &Element) -> Option<&str> {
        let index = *self.by_drawing.get(&drawing_of(element)?)?;
        Some(&self.list[index].name)
    }

    /// The attributes that draw `element` with its component at its own size when that is not
    /// the component's (` width="24" height="24"`): empty at the component's size.
    pub(super) fn size_of(&self, element: &Element) -> String {
        let (Some(index), Content::Svg { width, height, .. }) =
            (drawing_of(element).and_then(|d| self.by_drawing.get(&d)), &element.content)
        else {
            return String::new();
        };
        let icon = &self.list[*index];
        if icon.width.to_bits() == width.to_bits() && icon.height.to_bits() == height.to_bits() {
            return String::new();
        }
        use crate::export::svg::number;
        format!(" width=\"{}\" height=\"{}\"", number(*width), number(*height))
    }

    /// No icon drawn.
    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The names, in the order first drawn.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|icon| icon.name.as_str())
    }

    /// `icons.tsx`: each icon a component taking an `<svg>`'s props (`className` sizes and
    /// colours it).
    pub(super) fn file(&self) -> String {
        let mut out = String::from(
            "// Written by nib from the design: edit the design and export again.\n\nimport type { SVGProps } from \"react\";\n",
        );
        for Icon { name, markup, width, height, .. } in &self.list {
            let attributes = tree::svg_attributes(*width, *height);
            let _ = write!(
                out,
                "\nexport function {name}(props: SVGProps<SVGSVGElement>) {{\n  return (\n    <svg{attributes} {{...props}}>\n{}    </svg>\n  );\n}}\n",
                svg::jsx_of(markup, "      ")
            );
        }
        out
    }
}

/// A piece of an icon's markup: text, or a number (a coordinate, a width, an opacity).
#[derive(PartialEq)]
enum Piece<'m> {
    Text(&'m str),
    Number(f64),
}

/// `markup` as text and numbers; a colour (`#16A34A`) is text.
fn pieces(markup: &str) -> Vec<Piece<'_>> {
    let bytes = markup.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut text) = (0, 0);
    while i < bytes.len() {
        let starts_number = bytes[i].is_ascii_digit()
            || (matches!(bytes[i], b'-' | b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
            || (bytes[i] == b'-' && bytes.get(i + 1) == Some(&b'.'));
        if bytes[i] == b'#' {
            i += 1 + bytes[i + 1..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        } else if starts_number {
            let end = i + 1 + bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit() || **b == b'.').count();
            if let Ok(value) = markup[i..end].parse::<f64>() {
                out.push(Piece::Text(&markup[text..i]));
                out.push(Piece::Number(value));
                text = end;
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out.push(Piece::Text(&markup[text..]));
    out
}

/// True when drawing `b` (markup, width, height) is drawing `a` scaled to its size: the same
/// markup but for numbers, each the same or scaled by the sizes' ratio (to the 0.001 px nib
/// writes them with), at the same aspect.
fn scaled_alike(a: (&str, f32, f32), b: (&str, f32, f32)) -> bool {
    let ((a, aw, ah), (b, bw, bh)) = (a, b);
    if !(aw > 0.0 && ah > 0.0 && bw > 0.0 && bh > 0.0) {
        return false;
    }
    let scale = f64::from(bw) / f64::from(aw);
    if (f64::from(bh) - f64::from(ah) * scale).abs() > 0.01 {
        return false;
    }
    let (a, b) = (pieces(a), pieces(b));
    let tolerance = 0.001 * (1.0 + scale);
    a.len() == b.len()
        && a.iter().zip(&b).all(|pair| match pair {
            (Piece::Text(x), Piece::Text(y)) => x == y,
            (Piece::Number(x), Piece::Number(y)) => x == y || (y - x * scale).abs() <= tolerance,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_icon_at_another_size_is_the_same_drawing_scaled() {
        let small = r#"<path d="M13.333 4L6 11.333L2.667 8" stroke-width="1.333" stroke="currentColor"/>"#;
        let large = r#"<path d="M20 6L9 17L4 12" stroke-width="2" stroke="currentColor"/>"#;
        assert!(scaled_alike((small, 16.0, 16.0), (large, 24.0, 24.0)));
        // Another aspect, another weight, another colour: other drawings.
        assert!(!scaled_alike((small, 16.0, 16.0), (large, 24.0, 20.0)));
        let bold = r#"<path d="M20 6L9 17L4 12" stroke-width="3" stroke="currentColor"/>"#;
        assert!(!scaled_alike((small, 16.0, 16.0), (bold, 24.0, 24.0)));
        let red = small.replace("currentColor", "#FF0000");
        let blue = small.replace("currentColor", "#0000FF");
        assert!(!scaled_alike((&red, 16.0, 16.0), (&blue, 16.0, 16.0)));
        // Numbers that do not scale (an opacity) may stay.
        let faint = |d: &str| format!(r#"<path d="{d}" opacity="0.5"/>"#);
        assert!(scaled_alike((&faint("M8 8L16 16"), 24.0, 24.0), (&faint("M4 4L8 8"), 12.0, 12.0)));
        assert!(!scaled_alike((small, 0.0, 16.0), (large, 24.0, 24.0)));
    }
}
