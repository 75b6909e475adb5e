//! React components from a design (`--format react`): one `.tsx` per reusable component of the
//! document, with typed props for what its instances change — the texts, the parts they hide,
//! the drawings they change, the images they show, the children they give a frame (slots), the
//! parts they restyle —
//! a `.tsx` per frame that uses them, `theme.css` (the variables per theme), the Tailwind input
//! and an `index.ts`. Elements are the page tree's, spelled as JSX with the same Tailwind
//! classes as html-tailwind.
//!
//! An instance becomes `<Component …props />` when it differs from its component only in what
//! props say and where it sits; otherwise it is written out in place, and the run says where it
//! first differs.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write;

use super::tailwind::{PAGE_CLASS, classes_of};
use super::tree::{Content, Element, Rules};
use crate::diagnostic::Diagnostic;

/// A component of the document as the React files write it.
pub(crate) struct Component {
    /// The component's node id (what instances name in `ref`).
    pub id: String,
    /// Its identifier (`PrimaryButton`).
    pub name: String,
    pub tree: Element,
}

/// A theme axis of the document: its attribute (`data-mode`), name (`Mode`) and values.
pub(crate) struct Axis {
    pub attribute: String,
    pub name: String,
    pub values: Vec<String>,
}

/// A frame written as a page component.
pub(crate) struct Screen {
    pub name: String,
    pub tree: Element,
}

/// What a component's instances may change, by the component's relative node id.
#[derive(Default)]
struct Props {
    /// A prop per theme axis (`mode?: "Light" | "Dark"`): the theme the component is drawn
    /// under, inherited from the page when not given.
    themes: Vec<(String, String)>,
    /// Texts: relative id → (prop, its default).
    texts: BTreeMap<String, (String, String)>,
    /// Parts some instance hides: relative id → prop.
    shown: BTreeMap<String, String>,
    /// Drawings (icons, shapes) some instance draws otherwise: relative id → (prop, default
    /// SVG markup).
    drawings: BTreeMap<String, (String, String)>,
    /// Slots some instance fills: relative id → prop (`children` when the component has one,
    /// else named after the layer), a `ReactNode` shown instead of the slot's own children.
    slots: BTreeMap<String, String>,
    /// Parts below the root some instance restyles: relative id → their class prop
    /// (`titleClassName`), added to the part's classes.
    styles: BTreeMap<String, String>,
    /// Image fills some instance shows another image in: relative id → (prop, the default
    /// image's URL, the rest of the `background` layer after the URL).
    images: BTreeMap<String, (String, String, String)>,
}

/// How an instance uses its component: its texts, hidden parts, drawings and slot contents by
/// relative id, and the declarations its root sets over the component's.
#[derive(Default)]
struct Usage {
    texts: BTreeMap<String, String>,
    hidden: BTreeSet<String>,
    drawings: BTreeMap<String, String>,
    slots: BTreeMap<String, Vec<Element>>,
    /// Image fills showing another image: relative id → its URL.
    images: BTreeMap<String, String>,
    /// Declarations of a part that the component's part has otherwise or not at all (a fill, a
    /// text colour, a padding): given to the component as utilities that win, the root's in
    /// `className`, another part's in its own class prop.
    styles: BTreeMap<String, Vec<(&'static str, String)>>,
}

/// The files of the React output (`components/`, `pages/`, `index.ts`), and what could not be
/// said with props.
pub(crate) fn write(
    components: &[Component],
    screens: &[Screen],
    axes: &[Axis],
) -> (Vec<(String, Vec<u8>)>, Vec<Diagnostic>) {
    let by_id: HashMap<&str, &Component> = components.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut warnings = Vec::new();
    // First every instance is compared with its component, so the component knows its props.
    let mut usages: HashMap<String, Option<Usage>> = HashMap::new();
    let mut hidden_anywhere: HashMap<&str, BTreeSet<String>> = HashMap::new();
    let mut drawn_anywhere: HashMap<&str, BTreeSet<String>> = HashMap::new();
    let mut filled_anywhere: HashMap<&str, BTreeSet<String>> = HashMap::new();
    let mut imaged_anywhere: HashMap<&str, BTreeSet<String>> = HashMap::new();
    let mut styled_anywhere: HashMap<&str, BTreeSet<String>> = HashMap::new();
    let mut instances = Vec::new();
    for screen in screens {
        collect_instances(&screen.tree, &mut instances);
    }
    for component in components {
        for child in &component.tree.children {
            collect_instances(child, &mut instances);
        }
    }
    for instance in instances {
        let Some(reference) = &instance.instance else { continue };
        let Some(component) = by_id.get(reference.as_str()) else {
            // An imported component is not in this document's Scene: nothing to write it from.
            let message = format!(
                "instance '{}' of '{reference}' is written out in place: its component is not one this document draws (an imported component)",
                instance.id
            );
            warnings.push(Diagnostic::note("export", message).at_node(&instance.id));
            continue;
        };
        let mut usage = Usage::default();
        let fits = compare(&component.tree, instance, &component.tree.id, &instance.id, true, &mut usage);
        if let Err(difference) = fits {
            warnings.push(
                Diagnostic::note(
                    "export",
                    format!(
                        "instance '{}' of '{}' differs from its component beyond what props say ({difference}): it is written out in place",
                        instance.id, component.name
                    ),
                )
                .at_node(&instance.id),
            );
            usages.insert(instance.id.clone(), None);
        } else {
            hidden_anywhere.entry(component.id.as_str()).or_default().extend(usage.hidden.iter().cloned());
            drawn_anywhere.entry(component.id.as_str()).or_default().extend(usage.drawings.keys().cloned());
            filled_anywhere.entry(component.id.as_str()).or_default().extend(usage.slots.keys().cloned());
            imaged_anywhere.entry(component.id.as_str()).or_default().extend(usage.images.keys().cloned());
            styled_anywhere.entry(component.id.as_str()).or_default().extend(usage.styles.keys().cloned());
            usages.insert(instance.id.clone(), Some(usage));
        }
    }
    let props: HashMap<&str, Props> = components
        .iter()
        .map(|c| {
            let changed = Changed {
                hidden: hidden_anywhere.get(c.id.as_str()),
                drawn: drawn_anywhere.get(c.id.as_str()),
                filled: filled_anywhere.get(c.id.as_str()),
                imaged: imaged_anywhere.get(c.id.as_str()),
                styled: styled_anywhere.get(c.id.as_str()),
            };
            (c.id.as_str(), props_of(c, axes, changed))
        })
        .collect();
    let writer = Writer { components: &by_id, props: &props, usages: &usages, axes };
    let mut files = Vec::new();
    let mut index = String::from("// The components and pages of the design, as nib wrote them.\n");
    for component in components {
        let text = writer.component_file(component);
        files.push((format!("components/{}.tsx", component.name), text.into_bytes()));
        let _ = writeln!(index, "export {{ {0} }} from \"./components/{0}\";", component.name);
        let _ = writeln!(index, "export type {{ {0}Props }} from \"./components/{0}\";", component.name);
    }
    for screen in screens {
        let text = writer.screen_file(screen);
        files.push((format!("pages/{}.tsx", screen.name), text.into_bytes()));
        let _ = writeln!(index, "export {{ {0} }} from \"./pages/{0}\";", screen.name);
        if !theme_props(&screen.tree, axes).is_empty() {
            let _ = writeln!(index, "export type {{ {0}Props }} from \"./pages/{0}\";", screen.name);
        }
    }
    files.push(("index.ts".to_owned(), index.into_bytes()));
    (files, warnings)
}

/// Every element below (and at) `element` that is an instance, outermost first.
fn collect_instances<'e>(element: &'e Element, out: &mut Vec<&'e Element>) {
    if element.instance.is_some() {
        out.push(element);
        return;
    }
    for child in &element.children {
        collect_instances(child, out);
    }
}

/// The relative id of an instance's element `id` under the instance `prefix` (`cta/label` under
/// `cta` is `label`; the instance itself is `""`).
fn relative<'i>(id: &'i str, prefix: &str) -> Option<&'i str> {
    if id == prefix {
        return Some("");
    }
    id.strip_prefix(prefix)?.strip_prefix('/')
}

/// The relative id of a component's element `id` (the component's root is `""`): the nodes of a
/// component keep their own ids (and paths through the instances inside it), which is what its
/// instances append to their own id.
fn own<'i>(id: &'i str, root: &str) -> &'i str {
    if id == root { "" } else { id }
}

/// Where an instance first differs from its component beyond what props say, for the run's
/// note (the part's id relative to the component, `""` for its root).
#[derive(Debug)]
enum Difference {
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
fn compare(
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
                usage.drawings.insert(c_rel.to_owned(), b.clone());
            }
        }
        _ => return Err(Difference::Content(c_rel.to_owned())),
    }
    // Children the instance gives the part in place of the component's (Pen's `children`
    // override; a frame marked `slot` asks for it, any frame takes it): a slot prop.
    let component_child = |element: &Element| {
        relative(&element.id, i_root).is_some_and(|rel| component.children.iter().any(|c| own(&c.id, c_root) == rel))
    };
    if component.tag == super::tree::Tag::Div && !instance.children.iter().all(component_child) {
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
fn is_text_width(element: &Element, property: &str) -> bool {
    matches!(element.content, Content::Text(_)) && property == "min-width"
}

/// SVG markup without the per-page prefix of its definitions' ids (`s3-g0`).
fn unprefixed(markup: &str) -> String {
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
struct Changed<'c> {
    hidden: Option<&'c BTreeSet<String>>,
    drawn: Option<&'c BTreeSet<String>>,
    filled: Option<&'c BTreeSet<String>>,
    imaged: Option<&'c BTreeSet<String>>,
    styled: Option<&'c BTreeSet<String>>,
}

/// The props of `component`: a string for each text, a boolean for each part an instance
/// hides, the markup of each drawing an instance changes, a `ReactNode` for each slot an
/// instance fills; names from the layer names, made identifiers and unique.
fn props_of(component: &Component, axes: &[Axis], changed: Changed<'_>) -> Props {
    let Changed { hidden, drawn, filled, imaged, styled } = changed;
    let mut props = Props::default();
    let mut taken = Names::reserving(false, ["className", "penId", "children"]);
    // One slot is the component's `children`; several are named after their layers.
    let filled: Vec<&String> = filled.into_iter().flatten().collect();
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
    let mut texts = Vec::new();
    collect_texts(&component.tree, &mut texts);
    for element in texts {
        let rel = own(&element.id, &component.tree.id);
        let Content::Text(text) = &element.content else { continue };
        let name = taken.unique(&identifier(&element.name, false));
        props.texts.insert(rel.to_owned(), (name, text.clone()));
    }
    for rel in drawn.into_iter().flatten() {
        let Some(element) = find(&component.tree, &component.tree.id, rel) else { continue };
        let Content::Svg { markup, .. } = &element.content else { continue };
        let name = taken.unique(&format!("{}Svg", identifier(&element.name, false)));
        props.drawings.insert(rel.clone(), (name, markup.clone()));
    }
    for rel in imaged.into_iter().flatten() {
        let Some(element) = find(&component.tree, &component.tree.id, rel) else { continue };
        let Some(image) = &element.rules.image else { continue };
        let (url, rest) = (image.href.clone(), image.rest.clone());
        let name = taken.unique(&format!("{}Image", identifier(&element.name, false)));
        props.images.insert(rel.clone(), (name, url, rest));
    }
    // The root's restyling goes into `className`; another part gets a class prop.
    for rel in styled.into_iter().flatten().filter(|rel| !rel.is_empty()) {
        let element = find(&component.tree, &component.tree.id, rel);
        let base = element.map_or_else(|| "part".to_owned(), |e| identifier(&e.name, false));
        props.styles.insert(rel.clone(), taken.unique(&format!("{base}ClassName")));
    }
    for rel in hidden.into_iter().flatten() {
        let element = find(&component.tree, &component.tree.id, rel);
        let base = element.map_or_else(|| "part".to_owned(), |e| identifier(&e.name, true));
        props.shown.insert(rel.clone(), taken.unique(&format!("show{base}")));
    }
    props
}

fn collect_texts<'e>(element: &'e Element, out: &mut Vec<&'e Element>) {
    if matches!(element.content, Content::Text(_)) {
        out.push(element);
    }
    for child in &element.children {
        collect_texts(child, out);
    }
}

fn find<'e>(element: &'e Element, root: &str, rel: &str) -> Option<&'e Element> {
    if own(&element.id, root) == rel {
        return Some(element);
    }
    element.children.iter().find_map(|child| find(child, root, rel))
}

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

/// Names handed out once each: `base`, or `base2`, `base3`… when taken. Each base remembers
/// the next number it tries, so 10,000 parts of one name cost 10,000 steps, not 50 million.
pub(crate) struct Names {
    /// The names given, as compared (lowercase when letter case is ignored).
    taken: HashSet<String>,
    /// The number each base tries next (1: the base itself).
    next: HashMap<String, usize>,
    /// Compare without letter case: component names are file names (`Card.tsx` and
    /// `CARD.tsx` are one file on macOS and Windows, and TypeScript refuses the pair).
    ignore_case: bool,
}

impl Names {
    /// No name taken yet.
    pub(crate) fn new(ignore_case: bool) -> Names {
        Names { taken: HashSet::new(), next: HashMap::new(), ignore_case }
    }

    /// Names that are taken from the start (React's own props).
    fn reserving<'n>(ignore_case: bool, reserved: impl IntoIterator<Item = &'n str>) -> Names {
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

/// A JavaScript string literal.
fn js_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

struct Writer<'w> {
    components: &'w HashMap<&'w str, &'w Component>,
    props: &'w HashMap<&'w str, Props>,
    usages: &'w HashMap<String, Option<Usage>>,
    axes: &'w [Axis],
}

/// Where an element is written: a page, or the component whose relative ids and props apply.
#[derive(Clone, Copy)]
enum Place<'p> {
    Page,
    Component { root: &'p str, props: &'p Props },
}

impl Writer<'_> {
    fn component_file(&self, component: &Component) -> String {
        let props = &self.props[component.id.as_str()];
        let mut used = BTreeSet::new();
        for child in &component.tree.children {
            collect_used(child, self, &mut used);
        }
        let mut out = file_start(&used, "./");
        if !props.slots.is_empty() {
            out.push_str("import type { ReactNode } from \"react\";\n\n");
        }
        let _ = writeln!(out, "export interface {}Props {{", component.name);
        out.push_str("  /** Where the instance sits: its position and size classes. */\n  className?: string;\n");
        out.push_str("  /** The node id the elements carry (data-pen-id). */\n  penId?: string;\n");
        for ((_, name), axis) in props.themes.iter().zip(self.axes) {
            let values: Vec<String> = axis.values.iter().map(|v| js_string(v)).collect();
            let _ = writeln!(
                out,
                "  /** The {} theme (the page's when not given). */\n  {name}?: {};",
                comment(&axis.name),
                values.join(" | ")
            );
        }
        for (name, _) in props.texts.values() {
            let _ = writeln!(out, "  {name}?: string;");
        }
        for name in props.shown.values() {
            let _ = writeln!(out, "  {name}?: boolean;");
        }
        for (name, _) in props.drawings.values() {
            let _ =
                writeln!(out, "  /** The drawing's SVG markup (what goes inside its <svg>). */\n  {name}?: string;");
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
        let mut defaults = vec!["className = \"\"".to_owned(), format!("penId = {}", js_string(&component.id))];
        defaults.extend(props.themes.iter().map(|(_, name)| name.clone()));
        defaults.extend(props.texts.values().map(|(name, text)| format!("{name} = {}", js_string(text))));
        defaults.extend(props.shown.values().map(|name| format!("{name} = true")));
        defaults.extend(props.drawings.values().map(|(name, markup)| format!("{name} = {}", js_string(markup))));
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
        out
    }

    fn screen_file(&self, screen: &Screen) -> String {
        let mut used = BTreeSet::new();
        collect_used(&screen.tree, self, &mut used);
        let mut out = file_start(&used, "../components/");
        // The page's theme is a prop whose default is the theme the design draws it in, so the
        // same page shows in any theme of the document.
        let themes = theme_props(&screen.tree, self.axes);
        if themes.is_empty() {
            let _ = writeln!(out, "export function {}() {{\n  return (", screen.name);
        } else {
            let _ = writeln!(out, "export interface {}Props {{", screen.name);
            for (axis, name, _) in &themes {
                let values: Vec<String> = axis.values.iter().map(|v| js_string(v)).collect();
                let _ = writeln!(out, "  /** The {} theme. */\n  {name}?: {};", comment(&axis.name), values.join(" | "));
            }
            let defaults: Vec<String> =
                themes.iter().map(|(_, name, value)| format!("{name} = {}", js_string(value))).collect();
            let _ = writeln!(
                out,
                "}}\n\nexport function {}({{ {} }}: {}Props) {{\n  return (",
                screen.name,
                defaults.join(", "),
                screen.name
            );
        }
        self.element(&mut out, &screen.tree, Place::Page, 2, true);
        out.push_str("  );\n}\n");
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
            let mut classes =
                classes_of(&Rules { main: element.rules.main[..element.rules.placed].to_vec(), ..Rules::default() });
            // What the instance's parts set over the component's, as utilities that win (Tailwind's
            // important modifier): the root's in `className`, the others' in their class props.
            let winning = |declarations: &Vec<(&'static str, String)>| -> Vec<String> {
                let classes = classes_of(&Rules { main: declarations.clone(), ..Rules::default() });
                classes.into_iter().map(|class| format!("{class}!")).collect()
            };
            if let Some(root_style) = usage.styles.get("") {
                classes.extend(winning(root_style));
            }
            let mut attributes = vec![format!("className={}", js_string(&classes.join(" ")))];
            for (rel, (name, _, _)) in &props.images {
                if let Some(url) = usage.images.get(rel) {
                    attributes.push(format!("{name}={}", js_string(url)));
                }
            }
            for (rel, name) in &props.styles {
                if let Some(declarations) = usage.styles.get(rel) {
                    attributes.push(format!("{name}={}", js_string(&winning(declarations).join(" "))));
                }
            }
            attributes.push(format!("penId={}", self.pen_id(element, place)));
            for (attribute, value) in &element.themes {
                if let Some((_, name)) = props.themes.iter().find(|(a, _)| a == attribute) {
                    attributes.push(format!("{name}={}", js_string(value)));
                }
            }
            for (rel, (name, _)) in &props.texts {
                if let Some(text) = usage.texts.get(rel) {
                    attributes.push(format!("{name}={{{}}}", js_string(text)));
                }
            }
            for (rel, name) in &props.shown {
                if usage.hidden.contains(rel) {
                    attributes.push(format!("{name}={{false}}"));
                }
            }
            for (rel, (name, _)) in &props.drawings {
                if let Some(markup) = usage.drawings.get(rel) {
                    attributes.push(format!("{name}={{{}}}", js_string(markup)));
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
            match children {
                Some(jsx) => {
                    let _ = writeln!(out, "{indent}<{} {}>", component.name, attributes.join(" "));
                    out.push_str(&jsx);
                    let _ = writeln!(out, "{indent}</{}>", component.name);
                }
                None => {
                    let _ = writeln!(out, "{indent}<{} {} />", component.name, attributes.join(" "));
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
        let mut classes = classes_of(&rules);
        let class_attribute = match place {
            Place::Component { .. } if root => {
                // The usage decides where the component sits.
                let appearance = classes_of(&Rules {
                    main: rules.main[rules.placed.min(rules.main.len())..].to_vec(),
                    ..rules.clone()
                });
                format!("className={{[{}, className].join(\" \")}}", js_string(&appearance.join(" ")))
            }
            Place::Page if root => {
                classes.insert(0, PAGE_CLASS.to_owned());
                format!("className={}", js_string(&classes.join(" ")))
            }
            Place::Component { root: component_root, props }
                if props.styles.contains_key(own(&element.id, component_root)) =>
            {
                let prop = &props.styles[own(&element.id, component_root)];
                format!("className={{[{}, {prop}].join(\" \")}}", js_string(&classes.join(" ")))
            }
            _ => format!("className={}", js_string(&classes.join(" "))),
        };
        let _ = write!(out, "{indent}<{tag} {class_attribute} data-pen-id={}", self.pen_id(element, place));
        // An image prop: the only value a class cannot hold, so the fill is a style.
        if let Some((name, _, rest)) = image {
            let _ = write!(out, " style={{{{ background: `url(${{JSON.stringify({name})}}) {rest}` }}}}");
        }
        match place {
            // The component's root takes its themes from its props (the page's when not given),
            // not from where the component happens to be drawn on the canvas.
            Place::Component { props, .. } if root => {
                for (attribute, name) in &props.themes {
                    let _ = write!(out, " {attribute}={{{name}}}");
                }
            }
            Place::Page if root => {
                for (axis, name, _) in theme_props(element, self.axes) {
                    let _ = write!(out, " {}={{{name}}}", axis.attribute);
                }
            }
            _ => {
                for (attribute, value) in &element.themes {
                    let _ = write!(out, " {attribute}={}", js_string(value));
                }
            }
        }
        match &element.content {
            Content::Svg { width, height, markup } => {
                let inner = match place {
                    Place::Component { root: component_root, props } => props
                        .drawings
                        .get(own(&element.id, component_root))
                        .map_or_else(|| js_string(markup), |(name, _)| name.clone()),
                    Place::Page => js_string(markup),
                };
                let _ = writeln!(
                    out,
                    "{} dangerouslySetInnerHTML={{{{ __html: {inner} }}}} />",
                    super::tree::svg_attributes(*width, *height)
                );
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
                        element.rules.lines.iter().flat_map(|(p, v)| super::tailwind::utilities(p, v)).collect();
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

/// The theme props of a page whose root is `root`: each axis the root sets, its prop's name
/// and the value the design draws the page in (the prop's default).
fn theme_props<'a>(root: &Element, axes: &'a [Axis]) -> Vec<(&'a Axis, String, String)> {
    let mut taken = Names::reserving(false, []);
    axes.iter()
        .filter_map(|axis| {
            let (_, value) = root.themes.iter().find(|(attribute, _)| *attribute == axis.attribute)?;
            Some((axis, taken.unique(&identifier(&axis.name, false)), value.clone()))
        })
        .collect()
}

/// The start of a written file: what it is, and the imports of the components `used` (from
/// `folder`, relative to the file).
fn file_start(used: &BTreeSet<String>, folder: &str) -> String {
    let mut out = String::from("// Written by nib from the design: edit the design and export again.\n\n");
    for name in used {
        let _ = writeln!(out, "import {{ {name} }} from \"{folder}{name}\";");
    }
    if !used.is_empty() {
        out.push('\n');
    }
    out
}

/// Text for a `/** … */` comment: a document's name cannot close it or leave its line.
fn comment(text: &str) -> String {
    text.replace("*/", "* /").replace(['\n', '\r'], " ")
}

/// The components a page uses as components.
fn collect_used(element: &Element, writer: &Writer<'_>, used: &mut BTreeSet<String>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_identifiers() {
        assert_eq!(identifier("Primary button", true), "PrimaryButton");
        assert_eq!(identifier("card title", false), "cardTitle");
        assert_eq!(identifier("2 columns", true), "N2Columns");
        assert_eq!(identifier("class", false), "class_");
        assert_eq!(identifier("★", false), "text");
        let mut taken = Names::new(false);
        assert_eq!((taken.unique("title"), taken.unique("title")), ("title".into(), "title2".into()));
        assert_eq!(taken.unique("Title"), "Title", "props keep letter case apart");
        let mut files = Names::new(true);
        let given: Vec<String> = ["Card", "CARD", "Card2", "card"].iter().map(|n| files.unique(n)).collect();
        assert_eq!(given, ["Card", "CARD2", "Card22", "card3"]);
    }

    #[test]
    fn svg_markup_compares_without_its_page_prefix() {
        assert_eq!(
            unprefixed("<defs><g id=\"s3-g0\"/></defs><use href=\"#s3-g0\"/>"),
            unprefixed("<defs><g id=\"s12-g0\"/></defs><use href=\"#s12-g0\"/>")
        );
        assert_ne!(unprefixed("<path d=\"M0 0\"/>"), unprefixed("<path d=\"M1 0\"/>"));
    }
}
