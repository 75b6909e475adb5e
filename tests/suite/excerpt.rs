//! `nib render --node` reads only the top-level parts it draws (`Document::load_excerpt`): a
//! frame drawn from such an excerpt must be the frame drawn from the whole file, byte for byte.
//! The pixels are compared with those `corpus_pixels` records for the whole file, for every
//! frame whose instances copy components from other top-level parts (where leaving out a part
//! that is needed would show) and the first frame of every file.

use std::path::Path;

use crate::common::{fixtures, load_with_imports};
use crate::corpus_pixels::hash;
use nib::doc::{Document, Key};
use nib::host::FolderImages;
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, render};
use nib::resolve::{SceneOptions, part_root, update_scene_of};
use nib::text::{FontBook, FontOptions, TextEngine};

/// The recorded frames of the corpus, file by file, in order: (frame id, the recorded line).
fn recorded() -> Vec<(String, Vec<(String, String)>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus-pixels.txt");
    let text = std::fs::read_to_string(path).expect("tests/fixtures/corpus-pixels.txt");
    let mut files: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in text.lines() {
        let mut words = line.split(' ');
        let (Some(name), Some(id)) = (words.next(), words.next()) else { continue };
        if files.last().is_none_or(|(last, _)| last != name) {
            files.push((name.to_owned(), Vec::new()));
        }
        files.last_mut().expect("pushed").1.push((id.to_owned(), line.to_owned()));
    }
    files
}

#[test]
fn a_frame_drawn_from_an_excerpt_has_the_pixels_of_the_whole_file() {
    let mut text = TextEngine::new(FontBook::new(FontOptions::default()));
    let (mut compared, mut across_parts) = (0, 0);
    for (name, frames) in recorded() {
        let source = std::fs::read_to_string(fixtures().join(&name)).expect("read");
        let (whole, imports) = load_with_imports(&name);
        for (index, (id, line)) in frames.iter().enumerate() {
            // Frames whose instances copy components of other top-level parts are where a part
            // left out would show (told from the whole file, not from the code under test); one
            // plain frame per file checks the rest.
            let frame = whole.node_by_id(id).expect("a recorded frame");
            let uses_other_parts = whole.tree().subtree(frame).any(|key| {
                let reference = whole.tree().node(key).props.text(&Key::Ref);
                reference.and_then(|r| whole.node_by_id(r)).is_some_and(|c| whole.tree().root_of(c) != frame)
            });
            if !uses_other_parts && index > 0 {
                continue;
            }
            let ids = [id.clone()];
            let excerpt = Document::load_excerpt(&source, &ids).expect("an excerpt loads").document;
            let parts = excerpt.tree().roots().len();
            assert_eq!(excerpt.is_excerpt(), parts < whole.tree().roots().len(), "{name} {id}");
            across_parts += usize::from(uses_other_parts);
            let root = part_root(&excerpt, id).expect("the frame is in its excerpt");
            let scene = update_scene_of(None, &excerpt, &imports, SceneOptions::FULL, &[root]);
            let layout = Layout::compute(&scene, &mut text);
            let key = scene.node_by_id(id).expect("the frame is in the scene");
            let mut images = FolderImages::new(Some(fixtures()), None);
            let now = match render(
                &scene,
                &layout,
                &mut text,
                &mut images,
                RenderTarget::Node(key),
                &RenderOptions::default(),
            ) {
                Ok(rendered) => {
                    let pixmap = &rendered.pixmap;
                    format!("{name} {id} {}x{} {:016x}", pixmap.width(), pixmap.height(), hash(pixmap.data()))
                }
                Err(error) => format!("{name} {id} error: {error}"),
            };
            assert_eq!(&now, line, "drawn from an excerpt of {parts} parts");
            compared += 1;
        }
    }
    assert!(compared > 40, "{compared} frames compared");
    assert!(across_parts > 10, "only {across_parts} frames use components of other parts");
}

#[test]
fn an_excerpt_is_never_saved_and_a_syntax_error_anywhere_is_still_found() {
    let text = r#"{"version": "2.20", "children": [
      {"type": "frame", "id": "a", "width": 10, "height": 10},
      {"type": "frame", "id": "b", "width": 10, "height": 10}
    ]}"#;
    let excerpt = Document::load_excerpt(text, &["a".to_owned()]).expect("loads").document;
    assert!(excerpt.is_excerpt());
    assert!(excerpt.node_by_id("a").is_some() && excerpt.node_by_id("b").is_none());
    let folder = tempfile::tempdir().expect("temp");
    let path = folder.path().join("a.pen");
    std::fs::write(&path, text).expect("write");
    let error = nib::doc::io::save_file(&excerpt, &path).expect_err("an excerpt is refused");
    assert!(error.to_string().contains("read in part"), "{error}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), text, "the file is untouched");
    // Every part asked for: the whole document, which saves.
    let whole = Document::load_excerpt(text, &["a".to_owned(), "b".to_owned()]).expect("loads").document;
    assert!(!whole.is_excerpt());
    // An id no part holds: the whole document, so the caller's "not found" is a full read's.
    assert!(!Document::load_excerpt(text, &["zz".to_owned()]).expect("loads").document.is_excerpt());
    // A syntax error in a part left out is the error a full read gives.
    let broken = text.replace(r#""id": "b", "width": 10"#, r#""id": "b" "width": 10"#);
    let excerpt_error = Document::load_excerpt(&broken, &["a".to_owned()]).expect_err("a syntax error");
    let full_error = Document::load(&broken).expect_err("a syntax error");
    assert_eq!(excerpt_error.to_string(), full_error.to_string());
}
