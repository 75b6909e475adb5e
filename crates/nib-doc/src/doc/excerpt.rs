//! Which top-level nodes a document excerpt reads (see [`super::Document::load_excerpt`]).
//!
//! Drawing a node needs its top-level node (its part), and the parts holding the components
//! its instances copy, and theirs in turn: `ref` is the only link between parts (variables and
//! themes are document-level and always read; a component's inner nodes are found inside the
//! component's own part). Both are told from the names the first pass notes
//! ([`super::json::outline_with_names`]), without reading any node.

use hashbrown::HashMap;

use super::json::{Name, NameKind};

/// For each top-level node (by its byte span in the text, in file order), whether drawing the
/// nodes `ids` (ids, or instance paths such as `card/title`) needs it; `None` when an id is
/// held by no top-level node, so that everything is read and the caller says "not found" as
/// after a full read.
///
/// Every part holding a string `id` equal to a wanted one is kept, so a repeated id keeps all
/// its holders in file order, as a full read meets them.
pub(crate) fn parts_to_read(spans: &[(u32, u32)], names: &[Name<'_>], ids: &[String]) -> Option<Vec<bool>> {
    let part_of = |offset: u32| {
        let index = spans.partition_point(|(start, _)| *start <= offset).checked_sub(1)?;
        (offset < spans[index].1).then_some(index)
    };
    // Every id of a large file: sized once, hashed with foldhash (seeded, as quick on short
    // keys as FNV) instead of SipHash, which with the table's growth took a tenth of the read.
    let mut holders: HashMap<&str, Vec<usize>> = HashMap::with_capacity(names.len());
    let mut uses: Vec<Vec<&str>> = vec![Vec::new(); spans.len()];
    for name in names {
        let Some(part) = part_of(name.offset) else { continue };
        match name.kind {
            NameKind::Id => {
                let parts = holders.entry(&name.value).or_default();
                if parts.last() != Some(&part) {
                    parts.push(part);
                }
            }
            NameKind::Ref => uses[part].push(&name.value),
        }
    }
    let mut keep = vec![false; spans.len()];
    let mut todo = Vec::new();
    for id in ids {
        let first = id.split('/').next().unwrap_or(id);
        want(holders.get(first)?, &mut keep, &mut todo);
    }
    // A reference found in no part is left to the resolver: an imported component
    // ("alias:id") or a missing one, which a full read would not find either.
    while let Some(part) = todo.pop() {
        for reference in std::mem::take(&mut uses[part]) {
            if let Some(parts) = holders.get(reference) {
                want(parts, &mut keep, &mut todo);
            }
        }
    }
    Some(keep)
}

/// Marks `parts` kept, queueing those not kept yet for the components they use.
fn want(parts: &[usize], keep: &mut [bool], todo: &mut Vec<usize>) {
    for &part in parts {
        if !std::mem::replace(&mut keep[part], true) {
            todo.push(part);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::json::{Items, outline_with_names};

    /// The spans of the top-level nodes of `text` and its names.
    fn parts(text: &str) -> (Vec<(u32, u32)>, Vec<Name<'_>>) {
        let (outline, names) = outline_with_names(text, usize::MAX).unwrap();
        let children = text.find("\"children\": [").unwrap() as u32 + 12;
        let mut items = Items::new(text, &outline, children);
        let mut spans = Vec::new();
        while let Some(item) = items.next() {
            spans.push((item.unwrap().offset, items.position()));
        }
        (spans, names)
    }

    const DOC: &str = r#"{"version": "2.20", "children": [
      {"type": "frame", "id": "page", "children": [{"type": "ref", "id": "b1", "ref": "Button"}]},
      {"type": "frame", "id": "lib", "children": [
        {"type": "frame", "id": "Button", "reusable": true, "children": [{"type": "ref", "id": "i", "ref": "Icon"}]}
      ]},
      {"type": "frame", "id": "Icon", "reusable": true},
      {"type": "frame", "id": "other", "children": [{"type": "text", "id": "t\u0031"}]},
      {"type": "ref", "id": "remote", "ref": "ds:Card"},
      {"type": "frame", "id": "dup"},
      {"type": "frame", "id": "x", "children": [{"type": "frame", "id": "dup"}]}
    ]}"#;

    fn kept(ids: &[&str]) -> Option<Vec<bool>> {
        let (spans, names) = parts(DOC);
        parts_to_read(&spans, &names, &ids.iter().map(|id| id.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn a_part_is_read_with_the_parts_of_the_components_it_uses_transitively() {
        assert_eq!(kept(&["page"]), Some(vec![true, true, true, false, false, false, false]));
        assert_eq!(kept(&["b1"]), kept(&["page"]));
        assert_eq!(kept(&["Icon"]), Some(vec![false, false, true, false, false, false, false]));
    }

    #[test]
    fn ids_are_compared_as_a_full_read_decodes_them() {
        assert_eq!(kept(&["t1"]), Some(vec![false, false, false, true, false, false, false]));
    }

    #[test]
    fn instance_paths_name_their_first_node_and_imported_components_stay_with_the_resolver() {
        assert_eq!(kept(&["b1/i"]), kept(&["page"]));
        assert_eq!(kept(&["remote"]), Some(vec![false, false, false, false, true, false, false]));
    }

    #[test]
    fn a_repeated_id_keeps_every_part_holding_it() {
        assert_eq!(kept(&["dup"]), Some(vec![false, false, false, false, false, true, true]));
    }

    #[test]
    fn an_id_no_part_holds_reads_everything() {
        assert_eq!(kept(&["page", "nowhere"]), None);
        assert_eq!(kept(&["version"]), None);
    }
}
