//! Indexes the embedded lucide icon set (assets/icons/lucide) at build time: each icon's name
//! and where its elements lie in the JSON text, sorted by name, and the former names of renamed
//! icons. Indexing the 432 KB file at run time (a map of the whole file through serde_json)
//! took a millisecond of every process that draws one lucide icon; the generated tables cost
//! nothing to open, and an icon's elements are still parsed only when it is first drawn.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::value::RawValue;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let lucide = manifest.join("../../assets/icons/lucide");
    let read = |name: &str| {
        let path = lucide.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    };
    let (icons, brands, aliases) = (read("icon-nodes.json"), read("brand-icon-nodes.json"), read("aliases.json"));

    // Name → (which text, the byte range of its elements there): lucide's own icons first, and
    // the brand icons lucide 1.x dropped where no icon has their name.
    let mut index: BTreeMap<&str, (u8, usize, usize)> = BTreeMap::new();
    for (source, text) in [(1u8, &brands), (0u8, &icons)] {
        let map: BTreeMap<&str, &RawValue> =
            serde_json::from_str(text).unwrap_or_else(|e| panic!("the lucide file {source} is not JSON: {e}"));
        for (name, elements) in map {
            let start = elements.get().as_ptr() as usize - text.as_ptr() as usize;
            index.insert(name, (source, start, start + elements.get().len()));
        }
    }
    let aliases: BTreeMap<&str, &str> =
        serde_json::from_str(&aliases).unwrap_or_else(|e| panic!("aliases.json is not JSON: {e}"));

    let mut out = String::new();
    writeln!(out, "/// The number of icons in [`ICON_INDEX`].").unwrap();
    writeln!(out, "pub(crate) const ICON_COUNT: usize = {};", index.len()).unwrap();
    writeln!(out, "/// (name, text: 0 lucide's icons / 1 the brand icons, start, end), sorted by name.").unwrap();
    writeln!(out, "pub(crate) static ICON_INDEX: [(&str, u8, u32, u32); ICON_COUNT] = [").unwrap();
    for (name, (source, start, end)) in &index {
        writeln!(out, "    ({name:?}, {source}, {start}, {end}),").unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(out, "/// (former name, current name), sorted by former name.").unwrap();
    writeln!(out, "pub(crate) static ALIAS_INDEX: &[(&str, &str)] = &[").unwrap();
    for (former, current) in &aliases {
        writeln!(out, "    ({former:?}, {current:?}),").unwrap();
    }
    writeln!(out, "];").unwrap();

    let target = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("lucide_index.rs");
    // Written only when different, so that nothing rebuilds for an unchanged set.
    if std::fs::read_to_string(&target).is_ok_and(|old| old == out) {
        return;
    }
    std::fs::write(&target, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
}
