//! Decodes the bundled WOFF2 files into the TrueType/OpenType faces nib draws with, once, at
//! build time. Decoding at run time cost the first picture of a document up to 40 ms (Noto Sans
//! Symbols 2, 1.2 MB of outlines out of 380 KB, 11 ms alone; all 945 files 0.39 s), paid by
//! whichever text first needed a face; embedded decoded, a face costs nothing to open and its
//! pages are shared by every nib process. The binary grows by what WOFF2 saved (17.6 → 36.8 MB).
//! The repository keeps the WOFF2 files as published (assets/fonts/refresh.py); the table
//! embeds the other files (OpenType, TrueType) as they are.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let fonts = manifest.join("../../assets/fonts");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed={}", fonts.display());
    let mut files = Vec::new();
    collect(&fonts, &fonts, &mut files);
    files.sort();
    let workers = std::thread::available_parallelism().map_or(1, usize::from).min(8);
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let (files, fonts, out) = (&files, &fonts, &out);
            scope.spawn(move || {
                for relative in files.iter().skip(worker).step_by(workers) {
                    write_face(&fonts.join(relative), &out.join(format!("{relative}.sfnt")));
                }
            });
        }
    });
}

/// The font files under `folder`, as paths relative to `root` with `/` between parts.
fn collect(root: &Path, folder: &Path, files: &mut Vec<String>) {
    let entries = std::fs::read_dir(folder).unwrap_or_else(|e| panic!("cannot list {}: {e}", folder.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", folder.display())).path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "woff2") {
            let relative = path.strip_prefix(root).expect("under the root");
            files.push(relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
        }
    }
}

/// Writes the face of the WOFF2 file `source` to `target`, decoded.
fn write_face(source: &Path, target: &Path) {
    let bytes = std::fs::read(source).unwrap_or_else(|e| panic!("cannot read {}: {e}", source.display()));
    let face = wuff::decompress_woff2(&bytes)
        .unwrap_or_else(|e| panic!("{} is not a WOFF2 file nib can decode: {e:?}", source.display()));
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
    }
    // Written only when different: an unchanged face keeps its time, so nothing rebuilds.
    if std::fs::read(target).is_ok_and(|old| old == face) {
        return;
    }
    std::fs::write(target, face).unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
}
