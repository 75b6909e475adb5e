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
    by_drawing: HashMap<Drawing, usize>,
    /// Name, markup and size of each, in the order first drawn.
    list: Vec<(String, String, f32, f32)>,
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
    /// The icons drawn in `trees`, named after their icons (`check` → `CheckIcon`), numbered
    /// where one icon is drawn in several ways (another size or colour).
    /// `components` are the names taken by the design's components.
    pub(super) fn of<'e, 'n>(
        trees: impl IntoIterator<Item = &'e Element>,
        components: impl IntoIterator<Item = &'n str>,
    ) -> Icons {
        let mut icons = Icons::default();
        let mut names = Names::reserving(true, components);
        let mut stack: Vec<&Element> = trees.into_iter().collect();
        stack.reverse();
        while let Some(element) = stack.pop() {
            if let (Some(drawing), Content::Svg { width, height, markup }) = (drawing_of(element), &element.content)
                && !icons.by_drawing.contains_key(&drawing)
            {
                let base = identifier(&drawing.name, true);
                let name = names.unique(&format!("{}Icon", base.trim_end_matches("Icon")));
                icons.by_drawing.insert(drawing, icons.list.len());
                icons.list.push((name, markup.clone(), *width, *height));
            }
            stack.extend(element.children.iter().rev());
        }
        icons
    }

    /// The component that draws `element`, when it is an icon.
    pub(super) fn name_of(&self, element: &Element) -> Option<&str> {
        let index = *self.by_drawing.get(&drawing_of(element)?)?;
        Some(&self.list[index].0)
    }

    /// No icon drawn.
    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The names, in the order first drawn.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|(name, ..)| name.as_str())
    }

    /// `icons.tsx`: each icon a component taking an `<svg>`'s props (`className` sizes and
    /// colours it).
    pub(super) fn file(&self) -> String {
        let mut out = String::from(
            "// Written by nib from the design: edit the design and export again.\n\nimport type { SVGProps } from \"react\";\n",
        );
        for (name, markup, width, height) in &self.list {
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
