//! What a component's instances change, found by comparing each instance's tree with its
//! component's: the props each component takes and how each instance uses them.

use std::collections::{BTreeMap, BTreeSet};

use super::names::{Names, identifier, names_the_part, part_name};
use super::{Axis, Component};
use crate::export::html::tree::{Content, Element, Rules, Tag};

/// What a component's instances may change, by the component's relative node id.
#[derive(Default)]
pub(super) struct Props {
    /// A prop per theme axis (`mode?: "Light" | "Dark"`): the theme the component is drawn
    /// under, inherited from the page when not given.
    pub(super) themes: Vec<(String, String)>,
    /// Texts: relative id → (prop, its default).
    pub(super) texts: BTreeMap<String, (String, String)>,
    /// The texts' relative ids in the order the component shows them (how the props are listed).
    pub(super) text_order: Vec<String>,
    /// Parts some instance hides: relative id → prop.
    pub(super) shown: BTreeMap<String, String>,
    /// Drawings (icons, shapes) some instance draws otherwise: relative id → (prop, default
    /// SVG markup).
    pub(super) drawings: BTreeMap<String, (String, String)>,
    /// Slots some instance fills: relative id → prop (`children` when the component has one,
    /// else named after the layer), a `ReactNode` shown instead of the slot's own children.
    pub(super) slots: BTreeMap<String, String>,
    /// Parts below the root some instance restyles: relative id → their class prop
    /// (`titleClassName`), added to the part's classes.
    pub(super) styles: BTreeMap<String, String>,
    /// Image fills some instance shows another image in: relative id → (prop, the default
    /// image's URL, the rest of the `background` layer after the URL).
    pub(super) images: BTreeMap<String, (String, String, String)>,
}

/// How an instance uses its component: its texts, hidden parts, drawings and slot contents by
/// relative id, and the declarations its root sets over the component's.
#[derive(Default)]
pub(super) struct Usage {
    pub(super) texts: BTreeMap<String, String>,
    pub(super) hidden: BTreeSet<String>,
    /// Drawings the instance draws otherwise: relative id → the instance's part.
    pub(super) drawings: BTreeMap<String, Element>,
    pub(super) slots: BTreeMap<String, Vec<Element>>,
    /// Image fills showing another image: relative id → its URL.
    pub(super) images: BTreeMap<String, String>,
    /// Declarations of a part that the component's part has otherwise or not at all (a fill, a
    /// text colour, a padding): given to the component as utilities that win, the root's in
    /// `className`, another part's in its own class prop.
    pub(super) styles: BTreeMap<String, Vec<(&'static str, String)>>,
}

/// The relative id of an instance's element `id` under the instance `prefix` (`cta/label` under
/// `cta` is `label`; the instance itself is `""`).
pub(super) fn relative<'i>(id: &'i str, prefix: &str) -> Option<&'i str> {
    if id == prefix {
        return Some("");
    }
    id.strip_prefix(prefix)?.strip_prefix('/')
}

/// The relative id of a component's element `id` (the component's root is `""`): the nodes of a
/// component keep their own ids (and paths through the instances inside it), which is what its
/// instances append to their own id.
pub(super) fn own<'i>(id: &'i str, root: &str) -> &'i str {
    if id == root { "" } else { id }
}

/// Where an instance first differs from its component beyond what props say, for the run's
/// note (the part's id relative to the component, `""` for its root).
#[derive(Debug)]
pub(super) enum Difference {
    /// The part is another element, or another part stands there.
    Element(String),
    /// The part's style differs (a fill, a size inside, a stroke…): the first declaration.
    Style { part: String, declaration: String },
    /// Its content is of another kind.
    Content(String),
    /// It has children the component's part does not have (content given to the instance).
    Children(String),
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let part = |p: &str| if p.is_empty() { "its root".to_owned() } else { format!("'{p}'") };
        match self {
            Difference::Element(p) => write!(f, "{} is another element", part(p)),
            Difference::Style { part: p, declaration } => write!(f, "{} has {declaration}", part(p)),
            Difference::Content(p) => write!(f, "{} has other content", part(p)),
            Difference::Children(p) => write!(f, "{} has children of its own", part(p)),
        }
    }
}

/// Whether `instance` shows `component` as props can say it (same elements, classes and
/// drawings; texts may differ, parts may be missing), with what it changes added to `usage`;
/// else where it first differs.
pub(super) fn compare(
    component: &Element,
    instance: &Element,
    c_root: &str,
    i_root: &str,
    root: bool,
    usage: &mut Usage,
) -> Result<(), Difference> {
    let c_rel = own(&component.id, c_root);
    let Some(i_rel) = relative(&instance.id, i_root) else { return Err(Difference::Element(c_rel.to_owned())) };
    // The component's root carries the themes in force where it is drawn; the instance's are
    // its page's.
    if c_rel != i_rel || component.tag != instance.tag || (!root && component.themes != instance.themes) {
        return Err(Difference::Element(c_rel.to_owned()));
    }
    // A text's `min-width` is nib's width of its own characters: a text prop leaves it out.
    let appearance = |rules: &Rules| {
        let own = if root { &rules.main[rules.placed..] } else { &rules.main[..] };
        own.iter().filter(|(property, _)| !is_text_width(component, property)).cloned().collect::<Vec<_>>()
    };
    let (mut mine, mut theirs) = (appearance(&component.rules), appearance(&instance.rules));
    // Another image in the same place of the same fill is an image prop, not a restyling.
    if let (Some(a), Some(b)) = (&component.rules.image, &instance.rules.image)
        && a.rest == b.rest
        && a.href != b.href
    {
        usage.images.insert(c_rel.to_owned(), b.href.clone());
        mine.retain(|(property, _)| *property != "background");
        theirs.retain(|(property, _)| *property != "background");
    }
    // A part may set what the component's part sets otherwise, or more (a class prop says it),
    // but not leave out what the component sets.
    let restyled = mine.iter().all(|(property, _)| theirs.iter().any(|(p, _)| p == property));
    if restyled && mine != theirs {
        let added = theirs.iter().filter(|declaration| !mine.contains(declaration)).cloned().collect();
        usage.styles.insert(c_rel.to_owned(), added);
    }
    if (mine != theirs && !restyled)
        || component.rules.stroke != instance.rules.stroke
        || component.rules.lines != instance.rules.lines
    {
        let differing = theirs
            .iter()
            .find(|declaration| !mine.contains(declaration))
            .or_else(|| instance.rules.stroke.iter().find(|d| !component.rules.stroke.contains(d)))
            .map_or_else(|| "fewer declarations".to_owned(), |(property, value)| format!("{property}: {value}"));
        return Err(Difference::Style { part: c_rel.to_owned(), declaration: differing });
    }
    match (&component.content, &instance.content) {
        (Content::None, Content::None) => {}
        (Content::Text(a), Content::Text(b)) => {
            if a != b {
                usage.texts.insert(c_rel.to_owned(), b.clone());
            }
        }
        (Content::Svg { markup: a, .. }, Content::Svg { markup: b, .. }) => {
            if unprefixed(a) != unprefixed(b) {
                usage.drawings.insert(c_rel.to_owned(), instance.clone());
            }
        }
        _ => return Err(Difference::Content(c_rel.to_owned())),
    }
    // Children the instance gives the part in place of the component's (Pen's `children`
    // override; a frame marked `slot` asks for it, any frame takes it): a slot prop.
    let component_child = |element: &Element| {
        relative(&element.id, i_root).is_some_and(|rel| component.children.iter().any(|c| own(&c.id, c_root) == rel))
    };
    if component.tag == Tag::Div && !instance.children.iter().all(component_child) {
        usage.slots.insert(c_rel.to_owned(), instance.children.clone());
        return Ok(());
    }
    // The instance's children are the component's, in order, some perhaps hidden.
    let mut shown = instance.children.iter().peekable();
    for child in &component.children {
        let rel = own(&child.id, c_root);
        match shown.peek() {
            Some(next) if relative(&next.id, i_root) == Some(rel) => {
                compare(child, next, c_root, i_root, false, usage)?;
                shown.next();
            }
            _ => {
                usage.hidden.insert(rel.to_owned());
            }
        }
    }
    match shown.next() {
        None => Ok(()),
        Some(_) => Err(Difference::Children(c_rel.to_owned())),
    }
}

/// True for the declaration of a text's measured width (a hugging text's `min-width`), which
/// follows its characters.
pub(super) fn is_text_width(element: &Element, property: &str) -> bool {
    matches!(element.content, Content::Text(_)) && property == "min-width"
}

/// SVG markup without the per-page prefix of its definitions' ids (`s3-g0`).
pub(super) fn unprefixed(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    let bytes = markup.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b's' && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit() || **b == b'x').count();
            if digits > 0 && bytes.get(i + 1 + digits) == Some(&b'-') {
                i += digits + 2;
                continue;
            }
        }
        out.push(bytes[i] as char);
        i += 1;
    }
    out
}

/// What some instance of a component changes, by the component's relative ids.
#[derive(Default, Clone)]
pub(super) struct Changed {
    pub(super) hidden: BTreeSet<String>,
    pub(super) drawn: BTreeSet<String>,
    pub(super) filled: BTreeSet<String>,
    pub(super) imaged: BTreeSet<String>,
    pub(super) styled: BTreeSet<String>,
}

impl Changed {
    /// Adds what `usage` changes.
    pub(super) fn add(&mut self, usage: &Usage) {
        self.hidden.extend(usage.hidden.iter().cloned());
        self.drawn.extend(usage.drawings.keys().cloned());
        self.filled.extend(usage.slots.keys().cloned());
        self.imaged.extend(usage.images.keys().cloned());
        self.styled.extend(usage.styles.keys().cloned());
    }

    /// The changes below the part `prefix` (a component instance inside the component), by
    /// that instance's relative ids; its own root's restyling stays the outer component's.
    pub(super) fn under(&self, prefix: &str) -> Changed {
        let below = |set: &BTreeSet<String>| -> BTreeSet<String> {
            set.iter()
                .filter_map(|rel| relative(rel, prefix))
                .filter(|rel| !rel.is_empty())
                .map(str::to_owned)
                .collect()
        };
        Changed {
            hidden: below(&self.hidden),
            drawn: below(&self.drawn),
            filled: below(&self.filled),
            imaged: below(&self.imaged),
            styled: below(&self.styled),
        }
    }

    /// Adds `other`'s changes; true when that added any.
    pub(super) fn merge(&mut self, other: Changed) -> bool {
        let before = self.len();
        self.hidden.extend(other.hidden);
        self.drawn.extend(other.drawn);
        self.filled.extend(other.filled);
        self.imaged.extend(other.imaged);
        self.styled.extend(other.styled);
        self.len() != before
    }

    fn len(&self) -> usize {
        self.hidden.len() + self.drawn.len() + self.filled.len() + self.imaged.len() + self.styled.len()
    }
}

/// The props of `component`: a string for each text, a boolean for each part an instance
/// hides, the markup of each drawing an instance changes, a `ReactNode` for each slot an
/// instance fills; names from the layer names, made identifiers and unique.
pub(super) fn props_of(component: &Component, axes: &[Axis], changed: &Changed) -> Props {
    let Changed { hidden, drawn, filled, imaged, styled } = changed;
    let mut props = Props::default();
    let mut taken = Names::reserving(false, ["className", "penId", "children"]);
    // One slot is the component's `children`; several are named after their layers.
    let filled: Vec<&String> = filled.iter().collect();
    for rel in &filled {
        let name = if filled.len() == 1 {
            "children".to_owned()
        } else {
            let element = find(&component.tree, &component.tree.id, rel);
            taken.unique(&element.map_or_else(|| "slot".to_owned(), |e| identifier(&e.name, false)))
        };
        props.slots.insert((*rel).clone(), name);
    }
    for axis in axes {
        props.themes.push((axis.attribute.clone(), taken.unique(&identifier(&axis.name, false))));
    }
    // Texts are named for what they are; parts of one name are numbered in the order shown
    // (`perk1`, `perk2`, `perk3`).
    let mut texts = Vec::new();
    named_texts(&component.tree, None, &mut texts);
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for (_, base) in &texts {
        *count.entry(base.clone()).or_default() += 1;
    }
    let mut numbered: BTreeMap<String, usize> = BTreeMap::new();
    for (element, base) in texts {
        let rel = own(&element.id, &component.tree.id);
        let Content::Text(text) = &element.content else { continue };
        let name = if count[&base] > 1 {
            let number = numbered.entry(base.clone()).or_insert(0);
            *number += 1;
            taken.unique(&format!("{base}{number}"))
        } else {
            taken.unique(&base)
        };
        props.texts.insert(rel.to_owned(), (name, text.clone()));
        props.text_order.push(rel.to_owned());
    }
    for rel in drawn {
        let Some(element) = find(&component.tree, &component.tree.id, rel) else { continue };
        let Content::Svg { markup, .. } = &element.content else { continue };
        let base = identifier(&element.name, false);
        let base = if base.to_lowercase().ends_with("icon") { base } else { format!("{base}Icon") };
        let name = taken.unique(&base);
        props.drawings.insert(rel.clone(), (name, markup.clone()));
    }
    for rel in imaged {
        let Some(element) = find(&component.tree, &component.tree.id, rel) else { continue };
        let Some(image) = &element.rules.image else { continue };
        let (url, rest) = (image.href.clone(), image.rest.clone());
        let name = taken.unique(&format!("{}Image", identifier(&element.name, false)));
        props.images.insert(rel.clone(), (name, url, rest));
    }
    // The root's restyling goes into `className`; another part gets a class prop.
    for rel in styled.iter().filter(|rel| !rel.is_empty()) {
        let element = find(&component.tree, &component.tree.id, rel);
        let base = element.map_or_else(|| "part".to_owned(), |e| identifier(&e.name, false));
        props.styles.insert(rel.clone(), taken.unique(&format!("{base}ClassName")));
    }
    for rel in hidden {
        let element = find(&component.tree, &component.tree.id, rel);
        let base = element.map_or_else(|| "Part".to_owned(), |e| identifier(&what_it_is(e), true));
        props.shown.insert(rel.clone(), taken.unique(&format!("show{base}")));
    }
    props
}

/// The texts under `element` in the order shown, each with the words of its prop's name (see
/// [`part_name`]); `role` is the nearest part around with a name that says what it is.
fn named_texts<'e>(element: &'e Element, role: Option<&'e str>, out: &mut Vec<(&'e Element, String)>) {
    if matches!(element.content, Content::Text(_)) {
        out.push((element, identifier(&part_name(&element.name, "text", role), false)));
    }
    let role = if names_the_part(&element.name) { Some(element.name.as_str()) } else { role };
    for child in &element.children {
        named_texts(child, role, out);
    }
}

/// What a part is, in words, for a prop that shows or hides it: its layer name when that says
/// it, else what a text says (`New` → `showNew`), else its kind.
fn what_it_is(element: &Element) -> String {
    if names_the_part(&element.name) {
        return element.name.clone();
    }
    match &element.content {
        Content::Text(text) if names_the_part(text) => text.clone(),
        Content::Text(_) => "text".to_owned(),
        Content::Svg { .. } => "drawing".to_owned(),
        Content::None => "part".to_owned(),
    }
}

pub(super) fn find<'e>(element: &'e Element, root: &str, rel: &str) -> Option<&'e Element> {
    if own(&element.id, root) == rel {
        return Some(element);
    }
    element.children.iter().find_map(|child| find(child, root, rel))
}
