//! Merging the document-level keys: imports by alias, theme axes by name, variables by name.

use crate::doc::convert::{OrderedMap, ToJson};
use crate::doc::{Document, Transaction};

use super::{Conflict, Pick, three_way};
use crate::review::values::{compact, same};

/// One keyed entry theirs changed and ours did not: the key and theirs' value (`None`: removed).
type Taken<V> = Vec<(String, Option<V>)>;

/// Merges imports, themes and variables into `tx`; returns how many entries were taken from
/// theirs. Unknown document-level keys theirs changed are conflicts: nib keeps them verbatim
/// but cannot edit them.
pub(super) fn merge_header(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    tx: &mut Transaction<'_>,
    conflicts: &mut Vec<Conflict>,
) -> usize {
    let imports = merge_map("import", base.imports(), ours.imports(), theirs.imports(), conflicts);
    let themes = merge_map("theme", base.themes(), ours.themes(), theirs.themes(), conflicts);
    let variables = merge_map("variable", base.variables(), ours.variables(), theirs.variables(), conflicts);
    for (key, value) in theirs.unknown_keys() {
        let find =
            |document: &Document| document.unknown_keys().iter().find(|(k, _)| k == key).map(|(_, v)| compact(v));
        let (b, o, t) = (find(base), find(ours), Some(compact(value)));
        if three_way(b.as_deref(), o.as_deref(), t.as_deref(), |a, b| a == b) == Pick::Theirs {
            conflicts.push(unknown_key_conflict(key, b, o, t));
        }
    }
    for (key, value) in base.unknown_keys() {
        let gone = !theirs.unknown_keys().iter().any(|(k, _)| k == key);
        let in_ours = ours.unknown_keys().iter().find(|(k, _)| k == key).map(|(_, v)| compact(v));
        if gone && in_ours.is_some() {
            conflicts.push(unknown_key_conflict(key, Some(compact(value)), in_ours, None));
        }
    }
    let taken = imports.len() + themes.len() + variables.len();
    if taken > 0 {
        tx.edit_header(|header| {
            // Only maps theirs changed are touched: asking for one creates it.
            if !imports.is_empty() {
                apply(header.imports(), imports, theirs.imports());
            }
            if !themes.is_empty() {
                apply(header.themes(), themes, theirs.themes());
            }
            if !variables.is_empty() {
                apply(header.variables(), variables, theirs.variables());
            }
        });
    }
    taken
}

fn get<'a, V>(map: Option<&'a OrderedMap<V>>, key: &str) -> Option<&'a V> {
    map.and_then(|m| m.get(key))
}

fn unknown_key_conflict(key: &str, base: Option<String>, ours: Option<String>, theirs: Option<String>) -> Conflict {
    Conflict {
        place: "document".into(),
        id: None,
        property: Some(key.to_owned()),
        reason: "theirs changed a document key nib does not know; merge it by hand".into(),
        base,
        ours,
        theirs,
    }
}

/// The entries of a keyed map theirs changed and ours did not; conflicts for those both
/// changed differently.
fn merge_map<V: Clone + PartialEq + ToJson>(
    what: &str,
    base: Option<&OrderedMap<V>>,
    ours: Option<&OrderedMap<V>>,
    theirs: Option<&OrderedMap<V>>,
    conflicts: &mut Vec<Conflict>,
) -> Taken<V> {
    let mut keys: Vec<&str> = Vec::new();
    for map in [theirs, base].into_iter().flatten() {
        for (key, _) in map.iter() {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    let mut taken = Vec::new();
    for key in keys {
        let (b, o, t) = (get(base, key), get(ours, key), get(theirs, key));
        match three_way(b, o, t, |a, b| same(a, b)) {
            Pick::Ours => {}
            Pick::Theirs => taken.push((key.to_owned(), t.cloned())),
            Pick::Conflict => conflicts.push(Conflict {
                place: format!("{what} {key}"),
                id: None,
                property: None,
                reason: "changed on both sides".into(),
                base: b.map(compact),
                ours: o.map(compact),
                theirs: t.map(compact),
            }),
        }
    }
    taken
}

/// Writes theirs' entries into `map`: changed ones in place, new ones after the entry that
/// precedes them in theirs (or first), removed ones dropped.
fn apply<V>(map: &mut OrderedMap<V>, taken: Taken<V>, theirs: Option<&OrderedMap<V>>) {
    for (key, value) in taken {
        let at = map.entries.iter().position(|(k, _)| *k == key);
        match (at, value) {
            (Some(at), Some(value)) => map.entries[at].1 = value,
            (Some(at), None) => {
                map.entries.remove(at);
            }
            (None, Some(value)) => {
                let preceding = theirs.and_then(|t| {
                    let index = t.entries.iter().position(|(k, _)| *k == key)?;
                    t.entries[..index].iter().rev().find_map(|(k, _)| map.entries.iter().position(|(m, _)| m == k))
                });
                map.entries.insert(preceding.map_or(0, |p| p + 1), (key, value));
            }
            (None, None) => {}
        }
    }
}
