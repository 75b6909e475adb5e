//! Every top-level frame of the corpus renders at scale 1 without an error or a panic, what
//! cannot be drawn (missing images, unknown icons) comes back as warnings naming the node, and
//! the pixels, hashed, are the ones recorded in `tests/fixtures/corpus-pixels.txt`: a change of the rendering pipeline
//! that should change nothing (issue 27, the display list) must give the same bytes for all 458
//! frames. After a deliberate change of the pictures, `NIB_BLESS=1 cargo test --test suite
//! corpus_pixels` records the new hashes (and the diff of that file shows which frames moved).

use std::fmt::Write as _;
use std::path::Path;

use crate::common::{fixtures, load_with_imports};
use nib::host::FolderImages;
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, render};
use nib::resolve::{SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, TextEngine};

/// A 64-bit hash of the pixel bytes, eight at a time (FNV-1a's prime on words: fast enough in a
/// debug build for 2 GB of pixels, and any change of a byte changes it).
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let words = bytes.chunks_exact(8);
    let rest = words.remainder();
    for word in words {
        hash = (hash ^ u64::from_le_bytes(word.try_into().expect("eight bytes"))).wrapping_mul(0x100_0000_01b3);
    }
    for byte in rest {
        hash = (hash ^ u64::from(*byte)).wrapping_mul(0x100_0000_01b3);
    }
    hash
}

/// One line per frame: file, frame id, size and hash of the pixels; and the warnings given.
fn record() -> (String, usize) {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .expect("fixtures")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pen"))
        .collect();
    names.sort();
    let mut text = TextEngine::new(FontBook::new(FontOptions::default()));
    let mut lines = String::new();
    let mut warnings = 0;
    for name in names {
        let (document, imports) = load_with_imports(&name);
        let scene = build_scene(&document, &imports, SceneOptions::FULL);
        let layout = Layout::compute(&scene, &mut text);
        let mut images = FolderImages::new(Some(fixtures()), None);
        let options = RenderOptions::default();
        for root in scene.roots() {
            if layout.node_box(root).is_none() {
                continue;
            }
            let id = &scene.node(root).id;
            match render(&scene, &layout, &mut text, &mut images, RenderTarget::Node(root), &options) {
                Ok(rendered) => {
                    assert!(
                        rendered.warnings.iter().all(|w| w.node.is_some() && w.to_string().starts_with("node '")),
                        "{name}: {:?}",
                        rendered.warnings
                    );
                    warnings += rendered.warnings.len();
                    let pixmap = &rendered.pixmap;
                    let _ = writeln!(
                        lines,
                        "{name} {id} {}x{} {:016x}",
                        pixmap.width(),
                        pixmap.height(),
                        hash(pixmap.data())
                    );
                }
                Err(error) => {
                    let _ = writeln!(lines, "{name} {id} error: {error}");
                }
            }
        }
    }
    (lines, warnings)
}

#[test]
fn every_corpus_frame_renders_with_its_warnings_to_the_recorded_pixels() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus-pixels.txt");
    let (now, warnings) = record();
    assert!(warnings > 0, "the corpus has missing images and remote ones: they must be reported");
    if std::env::var_os("NIB_BLESS").is_some() {
        std::fs::write(&path, &now).expect("write the hashes");
        return;
    }
    let recorded = std::fs::read_to_string(&path).expect("tests/fixtures/corpus-pixels.txt (NIB_BLESS=1 records it)");
    let changed: Vec<String> = recorded
        .lines()
        .zip(now.lines())
        .filter(|(was, is)| was != is)
        .map(|(was, is)| format!("was {was}\n   is {is}"))
        .collect();
    assert_eq!(recorded.lines().count(), now.lines().count(), "the number of frames changed");
    assert!(recorded.lines().count() > 400);
    assert!(changed.is_empty(), "{} of {} frames changed:\n{}", changed.len(), now.lines().count(), changed.join("\n"));
}
