//! The components and pages spelled as TSX: elements with their Tailwind classes, instances as
//! `<Component …props />`.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

use super::icons::Icons;
use super::names::{Names, identifier};
use super::props::{Props, Usage, is_text_width, own};
use super::svg;
use super::{Axis, Component, Screen};
use crate::export::html::tailwind::{self, PAGE_CLASS, classes_of};
use crate::export::html::tree::{self, Content, Element, Rules, Sizing};

/// A JavaScript string literal.
pub(super) fn js_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

pub(super) struct Writer<'w> {
    pub(super) components: &'w HashMap<&'w str, &'w Component>,
    pub(super) props: &'w HashMap<&'w str, Props>,
    pub(super) usages: &'w HashMap<String, Option<Usage>>,
    pub(super) axes: &'w [Axis],
    /// Elements carry `data-pen-id` and components take `penId` (`--ids`).
    pub(super) ids: bool,
    /// The icon components.
    pub(super) icons: &'w Icons,
}

/// Where an element is written: a page, or the component whose relative ids and props apply.
#[derive(Clone, Copy)]
pub(super) enum Place<'p> {
    Page,
    Component { root: &'p str, props: &'p Props },
}

impl Writer<'_> {
    pub(super) fn component_file(&self, component: &Component) -> String {
        let props = &self.props[component.id.as_str()];
        let mut used = BTreeSet::new();
        for child in &component.tree.children {
            collect_used(child, self, &mut used);
        }
        let mut out = String::new();
        if !props.slots.is_empty() || !props.drawings.is_empty() {
            out.push_str("import type { ReactNode } from \"react\";\n\n");
        }
        let _ = writeln!(out, "export interface {}Props {{", component.name);
        out.push_str("  /** Where the instance sits: its position and size classes. */\n  className?: string;\n");
        if self.ids {
            out.push_str("  /** The node id the elements carry (data-pen-id). */\n  penId?: string;\n");
        }
        for ((_, name), axis) in props.themes.iter().zip(self.axes) {
            let values: Vec<String> = axis.values.iter().map(|v| js_string(v)).collect();
            let _ = writeln!(
                out,
                "  /** The {} theme (the page's when not given). */\n  {name}?: {};",
                comment(&axis.name),
                values.join(" | ")
            );
        }
        for (name, _) in props.text_order.iter().map(|rel| &props.texts[rel]) {
            let _ = writeln!(out, "  {name}?: string;");
        }
        for name in props.shown.values() {
            let _ = writeln!(out, "  {name}?: boolean;");
        }
        for (rel, (name, _)) in &props.drawings {
            let icon = super::props::find(&component.tree, &component.tree.id, rel).and_then(|p| self.icons.name_of(p));
            let _ = match icon {
                Some(icon) => writeln!(
                    out,
                    "  /** The icon drawn here (`<{icon} className=\"…\" />` by default). */\n  {name}?: ReactNode;"
                ),
                None => writeln!(
                    out,
                    "  /** What the drawing shows inside its <svg> (its size and colour stay the part's). */\n  {name}?: ReactNode;"
                ),
            };
        }
        for name in props.slots.values() {
            let _ = writeln!(out, "  /** What the slot shows instead of its own content. */\n  {name}?: ReactNode;");
        }
        for (name, _, _) in props.images.values() {
            let _ =
                writeln!(out, "  /** The image's URL (the fill keeps its size and position). */\n  {name}?: string;");
        }
        for name in props.styles.values() {
            let _ = writeln!(
                out,
                "  /** Classes added to the part's own (an instance's restyling). */\n  {name}?: string;"
            );
        }
        out.push_str("}\n\n");
        let mut defaults = vec!["className = \"\"".to_owned()];
        if self.ids {
            defaults.push(format!("penId = {}", js_string(&component.id)));
        }
        defaults.extend(props.themes.iter().map(|(_, name)| name.clone()));
        defaults.extend(
            props
                .text_order
                .iter()
                .map(|rel| &props.texts[rel])
                .map(|(name, text)| format!("{name} = {}", js_string(text))),
        );
        defaults.extend(props.shown.values().map(|name| format!("{name} = true")));
        defaults.extend(props.drawings.values().map(|(name, _)| name.clone()));
        defaults.extend(props.slots.values().cloned());
        defaults.extend(props.styles.values().map(|name| format!("{name} = \"\"")));
        defaults.extend(props.images.values().map(|(name, url, _)| format!("{name} = {}", js_string(url))));
        let _ = writeln!(
            out,
            "export function {}({{ {} }}: {}Props) {{\n  return (",
            component.name,
            defaults.join(", "),
            component.name
        );
        let place = Place::Component { root: &component.tree.id, props };
        self.element(&mut out, &component.tree, place, 2, true);
        out.push_str("  );\n}\n");
        self.file_start(&used, "./", &out) + &out
    }

    pub(super) fn screen_file(&self, screen: &Screen) -> String {
        let mut used = BTreeSet::new();
        collect_used(&screen.tree, self, &mut used);
        let mut out = String::new();
        // The page's theme is a prop whose default is the theme the design draws it in, so the
        // same page shows in any theme of the document.
        // Where the page sits is the app's: the design's size by default, `className` may
        // size it otherwise (`w-full`, `flex-1`).
        let themes = theme_props(&screen.tree, self.axes);
        let _ = writeln!(out, "export interface {}Props {{", screen.name);
        out.push_str(
            "  /** Where the page sits: its size is the design's unless these classes say otherwise. */\n  className?: string;\n",
        );
        for (axis, name, _) in &themes {
            let values: Vec<String> = axis.values.iter().map(|v| js_string(v)).collect();
            let _ = writeln!(out, "  /** The {} theme. */\n  {name}?: {};", comment(&axis.name), values.join(" | "));
        }
        let mut defaults = vec!["className = \"\"".to_owned()];
        defaults.extend(themes.iter().map(|(_, name, value)| format!("{name} = {}", js_string(value))));
        let _ = writeln!(
            out,
            "}}\n\nexport function {}({{ {} }}: {}Props) {{\n  return (",
            screen.name,
            defaults.join(", "),
            screen.name
        );
        self.element(&mut out, &screen.tree, Place::Page, 2, true);
        out.push_str("  );\n}\n");
        self.file_start(&used, "../components/", &out) + &out
    }

    /// The start of a written file: what it is, and the imports of the components `used` (from
    /// `folder`, relative to the file) and of the icons its `body` draws.
    fn file_start(&self, used: &BTreeSet<String>, folder: &str, body: &str) -> String {
        let mut out = String::from("// Written by nib from the design: edit the design and export again.\n\n");
        for name in used {
            let _ = writeln!(out, "import {{ {name} }} from \"{folder}{name}\";");
        }
        let icons: Vec<&str> = self
            .icons
            .names()
            .filter(|name| body.contains(&format!("<{name} ")) || body.contains(&format!("<{name}>")))
            .collect();
        if !icons.is_empty() {
            let _ = writeln!(out, "import {{ {} }} from \"../icons\";", icons.join(", "));
        }
        if !used.is_empty() || !icons.is_empty() {
            out.push('\n');
        }
        out
    }

    /// Writes `element` as JSX at `depth`; `root` is the file's outermost element.
    fn element(&self, out: &mut String, element: &Element, place: Place<'_>, depth: usize, root: bool) {
        let indent = "  ".repeat(depth);
        if let Place::Component { root: component_root, props } = place
            && !root
            && let Some(prop) = props.shown.get(own(&element.id, component_root))
        {
            let _ = writeln!(out, "{indent}{{{prop} && (");
            self.element_shown(out, element, place, depth + 1, root);
            let _ = writeln!(out, "{indent})}}");
            return;
        }
        self.element_shown(out, element, place, depth, root);
    }

    fn element_shown(&self, out: &mut String, element: &Element, place: Place<'_>, depth: usize, root: bool) {
        let indent = "  ".repeat(depth);
        // An instance its component can show with props.
        if let Some(reference) = &element.instance
            && let Some(component) = self.components.get(reference.as_str())
            && let Some(Some(usage)) = self.usages.get(&element.id)
            && !(root && matches!(place, Place::Component { .. }))
        {
            let props = &self.props[component.id.as_str()];
            let mut classes = placement_over(element, &component.tree);
            // What the instance's parts set over the component's, as utilities that win (Tailwind's
            // important modifier): the root's in `className`, the others' in their class props.
            let winning = |declarations: &Vec<(&'static str, String)>| -> Vec<String> {
                let classes = classes_of(&Rules { main: declarations.clone(), ..Rules::default() });
                classes.into_iter().map(|class| format!("{class}!")).collect()
            };
            if let Some(root_style) = usage.styles.get("") {
                classes.extend(winning(root_style));
            }
            let mut attributes = Vec::new();
            // The outer component's class prop for this instance (its instances restyle it).
            let outer_class = match place {
                Place::Component { root: outer_root, props: outer_props } => {
                    outer_props.styles.get(own(&element.id, outer_root))
                }
                Place::Page => None,
            };
            match outer_class {
                Some(name) => attributes
                    .push(format!("className={{[{}, {name}].join(\" \").trim()}}", js_string(&classes.join(" ")))),
                None if !classes.is_empty() => attributes.push(format!("className={}", js_string(&classes.join(" ")))),
                None => {}
            }
            // Inside a component, a part of this instance the outer component has a prop for
            // takes that prop: what the outer component's own instances say reaches it.
            let outer = |rel: &str| match place {
                Place::Component { root: outer_root, props: outer_props } => {
                    Some((outer_props, format!("{}/{rel}", own(&element.id, outer_root))))
                }
                Place::Page => None,
            };
            for (rel, (name, _, _)) in &props.images {
                if let Some((outer_name, _, _)) = outer(rel).and_then(|(o, rel)| o.images.get(&rel)) {
                    attributes.push(format!("{name}={{{outer_name}}}"));
                } else if let Some(url) = usage.images.get(rel) {
                    attributes.push(format!("{name}={}", js_string(url)));
                }
            }
            for (rel, name) in &props.styles {
                let own_classes = usage.styles.get(rel).map(|declarations| winning(declarations).join(" "));
                match (outer(rel).and_then(|(o, rel)| o.styles.get(&rel)), own_classes) {
                    (Some(outer_name), Some(classes)) => attributes
                        .push(format!("{name}={{[{}, {outer_name}].join(\" \").trim()}}", js_string(&classes))),
                    (Some(outer_name), None) => attributes.push(format!("{name}={{{outer_name}}}")),
                    (None, Some(classes)) => attributes.push(format!("{name}={}", js_string(&classes))),
                    (None, None) => {}
                }
            }
            if self.ids {
                attributes.push(format!("penId={}", self.pen_id(element, place)));
            }
            for (attribute, value) in &element.themes {
                if let Some((_, name)) = props.themes.iter().find(|(a, _)| a == attribute) {
                    attributes.push(format!("{name}={}", js_string(value)));
                }
            }
            for (rel, (name, _)) in props.text_order.iter().map(|rel| (rel, &props.texts[rel])) {
                if let Some((outer_name, _)) = outer(rel).and_then(|(o, rel)| o.texts.get(&rel)) {
                    attributes.push(format!("{name}={{{outer_name}}}"));
                } else if let Some(text) = usage.texts.get(rel) {
                    attributes.push(format!("{name}={{{}}}", js_string(text)));
                }
            }
            for (rel, name) in &props.shown {
                if usage.hidden.contains(rel) {
                    attributes.push(format!("{name}={{false}}"));
                } else if let Some(outer_name) = outer(rel).and_then(|(o, rel)| o.shown.get(&rel)) {
                    attributes.push(format!("{name}={{{outer_name}}}"));
                }
            }
            for (rel, (name, _)) in &props.drawings {
                if let Some((outer_name, _)) = outer(rel).and_then(|(o, rel)| o.drawings.get(&rel)) {
                    attributes.push(format!("{name}={{{outer_name}}}"));
                } else if let Some(part) = usage.drawings.get(rel) {
                    let is_icon = super::props::find(&component.tree, &component.tree.id, rel)
                        .is_some_and(|p| self.icons.name_of(p).is_some());
                    if is_icon {
                        // The whole icon, as the instance draws it.
                        let mut jsx = String::new();
                        self.element(&mut jsx, part, place, depth + 2, false);
                        attributes.push(format!("{name}={{\n{jsx}{indent}  }}"));
                    } else if let Content::Svg { markup, .. } = &part.content {
                        let drawing = svg::jsx_of(markup, &format!("{indent}    "));
                        attributes.push(format!("{name}={{<>\n{drawing}{indent}  </>}}"));
                    }
                }
            }
            // What the instance gives its slots: `children` between the tags, named slots as
            // fragments in attributes; written where the instance is (in a component, their ids
            // follow its `penId`).
            let mut children = None;
            for (rel, name) in &props.slots {
                let Some(content) = usage.slots.get(rel) else { continue };
                let between = name == "children";
                let mut jsx = String::new();
                for child in content {
                    self.element(&mut jsx, child, place, depth + if between { 1 } else { 2 }, false);
                }
                if between {
                    children = Some(jsx);
                } else {
                    attributes.push(format!("{name}={{<>\n{jsx}{indent}  </>}}"));
                }
            }
            let attributes: String = attributes.iter().map(|a| format!(" {a}")).collect();
            match children {
                Some(jsx) => {
                    let _ = writeln!(out, "{indent}<{}{attributes}>", component.name);
                    out.push_str(&jsx);
                    let _ = writeln!(out, "{indent}</{}>", component.name);
                }
                None => {
                    let _ = writeln!(out, "{indent}<{}{attributes} />", component.name);
                }
            }
            return;
        }
        let tag = element.tag.name();
        let is_prop = match place {
            Place::Component { root: component_root, props } => {
                props.texts.contains_key(own(&element.id, component_root))
            }
            Place::Page => false,
        };
        let image = match place {
            Place::Component { root: component_root, props } => props.images.get(own(&element.id, component_root)),
            Place::Page => None,
        };
        let rules = Rules {
            main: element
                .rules
                .main
                .iter()
                .filter(|(p, _)| !(is_prop && is_text_width(element, p) || image.is_some() && *p == "background"))
                .cloned()
                .collect(),
            ..element.rules.clone()
        };
        let classes = classes_of(&rules);
        let class_attribute = match place {
            _ if root => {
                // The component (or page) stands alone: nib's box model starts at its root, and
                // it has its own size; the usage decides where it sits and may size it otherwise.
                let mut own = vec![PAGE_CLASS.to_owned()];
                own.extend(classes_of(&Rules { main: own_size(element), ..Rules::default() }));
                own.extend(classes_of(&Rules {
                    main: rules.main[rules.placed.min(rules.main.len())..].to_vec(),
                    ..rules.clone()
                }));
                format!(" className={{[{}, className].join(\" \").trim()}}", js_string(&own.join(" ")))
            }
            Place::Component { root: component_root, props }
                if props.styles.contains_key(own(&element.id, component_root)) =>
            {
                let prop = &props.styles[own(&element.id, component_root)];
                format!(" className={{[{}, {prop}].join(\" \").trim()}}", js_string(&classes.join(" ")))
            }
            _ if classes.is_empty() => String::new(),
            _ => format!(" className={}", js_string(&classes.join(" "))),
        };
        // The start tag's attributes after its name.
        let mut start = class_attribute;
        if self.ids {
            let _ = write!(start, " data-pen-id={}", self.pen_id(element, place));
        }
        // An image prop: the only value a class cannot hold, so the fill is a style.
        if let Some((name, _, rest)) = image {
            let _ = write!(start, " style={{{{ background: `url(${{JSON.stringify({name})}}) {rest}` }}}}");
        }
        match place {
            // The component's root takes its themes from its props (the page's when not given),
            // not from where the component happens to be drawn on the canvas.
            Place::Component { props, .. } if root => {
                for (attribute, name) in &props.themes {
                    let _ = write!(start, " {attribute}={{{name}}}");
                }
            }
            Place::Page if root => {
                for (axis, name, _) in theme_props(element, self.axes) {
                    let _ = write!(start, " {}={{{name}}}", axis.attribute);
                }
            }
            _ => {
                for (attribute, value) in &element.themes {
                    let _ = write!(start, " {attribute}={}", js_string(value));
                }
            }
        }
        if let Some(icon) = self.icons.name_of(element) {
            // One component draws an icon at every size: its own size unless told otherwise.
            start.push_str(&self.icons.size_of(element));
            let prop = match place {
                Place::Component { root: component_root, props } => {
                    props.drawings.get(own(&element.id, component_root)).map(|(name, _)| name)
                }
                Place::Page => None,
            };
            match prop {
                // An icon an instance changes: the icon it gives, else the design's.
                Some(name) => {
                    let _ = writeln!(out, "{indent}{{{name} ?? <{icon}{start} />}}");
                }
                None => {
                    let _ = writeln!(out, "{indent}<{icon}{start} />");
                }
            }
            return;
        }
        let _ = write!(out, "{indent}<{tag}{start}");
        match &element.content {
            Content::Svg { width, height, markup } => {
                let prop = match place {
                    Place::Component { root: component_root, props } => {
                        props.drawings.get(own(&element.id, component_root)).map(|(name, _)| name)
                    }
                    Place::Page => None,
                };
                let _ = writeln!(out, "{}>", tree::svg_attributes(*width, *height));
                match prop {
                    // A drawing an instance changes: what it gives, else the design's.
                    Some(name) => {
                        let drawing = svg::jsx_of(markup, &format!("{indent}      "));
                        let _ = writeln!(
                            out,
                            "{indent}  {{{name} ?? (\n{indent}    <>\n{drawing}{indent}    </>\n{indent}  )}}"
                        );
                    }
                    None => out.push_str(&svg::jsx_of(markup, &format!("{indent}  "))),
                }
                let _ = writeln!(out, "{indent}</svg>");
                return;
            }
            Content::Text(text) => {
                let value = match place {
                    Place::Component { root: component_root, props } => props
                        .texts
                        .get(own(&element.id, component_root))
                        .map_or_else(|| format!("{{{}}}", js_string(text)), |(name, _)| format!("{{{name}}}")),
                    Place::Page => format!("{{{}}}", js_string(text)),
                };
                let value = if element.rules.lines.is_empty() {
                    value
                } else {
                    let lines: Vec<String> =
                        element.rules.lines.iter().flat_map(|(p, v)| tailwind::utilities(p, v)).collect();
                    format!("<span className={}>{value}</span>", js_string(&lines.join(" ")))
                };
                let _ = writeln!(out, ">{value}</{tag}>");
                return;
            }
            Content::None => {}
        }
        let slot = match place {
            Place::Component { root: component_root, props } => props.slots.get(own(&element.id, component_root)),
            Place::Page => None,
        };
        match slot {
            // A slot an instance fills: the prop, else the slot's own children.
            Some(prop) if element.children.is_empty() => {
                let _ = writeln!(out, ">\n{indent}  {{{prop}}}\n{indent}</{tag}>");
            }
            Some(prop) => {
                let _ = writeln!(out, ">\n{indent}  {{{prop} ?? (\n{indent}    <>");
                for child in &element.children {
                    self.element(out, child, place, depth + 3, false);
                }
                let _ = writeln!(out, "{indent}    </>\n{indent}  )}}\n{indent}</{tag}>");
            }
            None if element.children.is_empty() => {
                let _ = writeln!(out, " />");
            }
            None => {
                out.push_str(">\n");
                for child in &element.children {
                    self.element(out, child, place, depth + 1, false);
                }
                let _ = writeln!(out, "{indent}</{tag}>");
            }
        }
    }

    /// The `data-pen-id` of `element`: its id on a page; in a component, the id under the
    /// `penId` prop, so each instance's elements carry the ids the design gives them.
    fn pen_id(&self, element: &Element, place: Place<'_>) -> String {
        match place {
            Place::Page => js_string(&element.id),
            Place::Component { root, .. } => match own(&element.id, root) {
                "" => "{penId}".to_owned(),
                rel => format!("{{penId + {}}}", js_string(&format!("/{rel}"))),
            },
        }
    }
}

/// The size a component's root has by default: its width and height as the design gives them
/// (a hugging width is the content's, `fit-content`: a flex box would otherwise take its
/// parent's whole width); where it sits is its usage's.
fn own_size(root: &Element) -> Vec<(&'static str, String)> {
    let mut size: Vec<(&'static str, String)> = root.rules.main[..root.rules.placed]
        .iter()
        .filter(|(property, _)| matches!(*property, "width" | "height"))
        .cloned()
        .collect();
    if root.sizing[0] == Sizing::Hug {
        size.insert(0, ("width", "fit-content".to_owned()));
    }
    size
}

/// The classes that place an instance of `component` where `instance` is: its position as
/// written, and its size where it differs from the component's own, as utilities that win
/// (`w-[320px]!`, `w-auto!` where it fills its parent, `w-fit!` where it hugs a fixed one).
fn placement_over(instance: &Element, component: &Element) -> Vec<String> {
    let default = own_size(component);
    let mut placed = Vec::new();
    let mut winning = Vec::new();
    for declaration in &instance.rules.main[..instance.rules.placed] {
        match declaration.0 {
            "width" | "height" if default.contains(declaration) => {}
            "width" | "height" => winning.push(declaration.clone()),
            _ => placed.push(declaration.clone()),
        }
    }
    for (index, property) in ["width", "height"].into_iter().enumerate() {
        if instance.rules.main[..instance.rules.placed].iter().any(|(p, _)| *p == property) {
            continue;
        }
        let value = match (instance.sizing[index], default.iter().any(|(p, _)| *p == property)) {
            (_, false) => continue,
            (Sizing::Fill, true) => "auto",
            (_, true) if component.sizing[index] == Sizing::Hug => continue,
            (_, true) => "fit-content",
        };
        winning.push((property, value.to_owned()));
    }
    let mut classes = classes_of(&Rules { main: placed, ..Rules::default() });
    classes.extend(classes_of(&Rules { main: winning, ..Rules::default() }).into_iter().map(|c| format!("{c}!")));
    classes
}

/// The theme props of a page whose root is `root`: each axis the root sets, its prop's name
/// and the value the design draws the page in (the prop's default).
pub(super) fn theme_props<'a>(root: &Element, axes: &'a [Axis]) -> Vec<(&'a Axis, String, String)> {
    let mut taken = Names::reserving(false, []);
    axes.iter()
        .filter_map(|axis| {
            let (_, value) = root.themes.iter().find(|(attribute, _)| *attribute == axis.attribute)?;
            Some((axis, taken.unique(&identifier(&axis.name, false)), value.clone()))
        })
        .collect()
}

/// Text for a `/** … */` comment: a document's name cannot close it or leave its line.
pub(super) fn comment(text: &str) -> String {
    text.replace("*/", "* /").replace(['\n', '\r'], " ")
}

/// The components a page uses as components.
pub(super) fn collect_used(element: &Element, writer: &Writer<'_>, used: &mut BTreeSet<String>) {
    if let Some(reference) = &element.instance
        && let Some(component) = writer.components.get(reference.as_str())
        && let Some(Some(usage)) = writer.usages.get(&element.id)
    {
        used.insert(component.name.clone());
        for child in usage.slots.values().flatten() {
            collect_used(child, writer, used);
        }
        return;
    }
    for child in &element.children {
        collect_used(child, writer, used);
    }
}
