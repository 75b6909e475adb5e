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

use std::collections::HashMap;
use std::fmt::Write;

mod icons;
mod jsx;
mod names;
mod props;
mod scaffold;
mod svg;

/// The packages the React export's app pins: `(name, version, needed at run time)`.
pub use scaffold::PACKAGES as APP_PACKAGES;
pub(crate) use scaffold::{MAIN_START as APP_MAIN_START, files as app_files};

use super::tree::Element;
use crate::diagnostic::Diagnostic;
use jsx::Writer;
pub(crate) use names::{Names, identifier};
use props::{Changed, Props, Usage, compare, props_of};

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

/// The files of the React output (`components/`, `pages/`, `index.ts`), and what could not be
/// said with props.
pub(crate) fn write(
    components: &[Component],
    screens: &[Screen],
    axes: &[Axis],
    ids: bool,
) -> (Vec<(String, Vec<u8>)>, Vec<Diagnostic>) {
    let by_id: HashMap<&str, &Component> = components.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut warnings = Vec::new();
    // First every instance is compared with its component, so the component knows its props.
    let mut usages: HashMap<String, Option<Usage>> = HashMap::new();
    let mut changed: HashMap<&str, Changed> = HashMap::new();
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
            // No component of this document to write it as: the ref names an import's component
            // (`kit:button`), or a node of this document that is not reusable.
            let message = match reference.split_once(':') {
                Some((alias, _)) => format!(
                    "instance '{}' of '{reference}' is written out in place: its component is in the import '{alias}', and this export writes only the document's own components",
                    instance.id
                ),
                None => format!(
                    "instance '{}' refers to '{reference}', a node that is not a component (it is not reusable): it is written out in place, not as a React component; set reusable: true on '{reference}' to export it as one with props",
                    instance.id
                ),
            };
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
            changed.entry(component.id.as_str()).or_default().add(&usage);
            usages.insert(instance.id.clone(), Some(usage));
        }
    }
    pass_down(components, &by_id, &usages, &mut changed);
    let unchanged = Changed::default();
    let props: HashMap<&str, Props> = components
        .iter()
        .map(|c| (c.id.as_str(), props_of(c, axes, changed.get(c.id.as_str()).unwrap_or(&unchanged))))
        .collect();
    let trees = components.iter().map(|c| &c.tree).chain(screens.iter().map(|s| &s.tree));
    let icons = icons::Icons::of(trees, components.iter().map(|c| c.name.as_str()));
    let writer = Writer { components: &by_id, props: &props, usages: &usages, axes, ids, icons: &icons };
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
        let _ = writeln!(index, "export type {{ {0}Props }} from \"./pages/{0}\";", screen.name);
    }
    if !icons.is_empty() {
        files.push(("icons.tsx".to_owned(), icons.file().into_bytes()));
        let _ = writeln!(index, "export {{ {} }} from \"./icons\";", icons.names().collect::<Vec<_>>().join(", "));
    }
    files.push(("index.ts".to_owned(), index.into_bytes()));
    (files, warnings)
}

/// What an outer component's instances change inside a component instance it holds becomes a
/// change of that inner component too, so the inner one has a prop the outer one passes its
/// own prop to (`<Button label={ctaLabel} />`); repeated until nothing is added, for deeper
/// nesting. Texts need nothing: every text is a prop.
fn pass_down<'c>(
    components: &'c [Component],
    by_id: &HashMap<&str, &'c Component>,
    usages: &HashMap<String, Option<Usage>>,
    changed: &mut HashMap<&'c str, Changed>,
) {
    for _ in 0..components.len() {
        let mut added = false;
        for outer in components {
            let Some(outer_changed) = changed.get(outer.id.as_str()).cloned() else { continue };
            let mut nested = Vec::new();
            for child in &outer.tree.children {
                collect_instances(child, &mut nested);
            }
            for instance in nested {
                let Some(Some(_)) = usages.get(&instance.id) else { continue };
                let Some(inner) = instance.instance.as_deref().and_then(|id| by_id.get(id)) else { continue };
                let inside = outer_changed.under(&instance.id);
                added |= changed.entry(inner.id.as_str()).or_default().merge(inside);
            }
        }
        if !added {
            break;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::props::unprefixed;
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
