//! Laying out the real corpus: every file lays out, top-level frames keep the sizes the files
//! state, and nib's positions agree with the positions Pencil itself computed and wrote into
//! instance overrides.

use crate::common::{Fixtures, fixtures, load_with_imports};
use nib::doc::values::Sizing;
use nib::doc::{Document, Key, NodeType, Value, VarOr};
use nib::layout::Layout;
use nib::resolve::{Scene, SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, TextEngine};

fn corpus() -> Vec<(String, Document, Fixtures)> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .expect("fixtures")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".pen"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 44);
    names
        .into_iter()
        .map(|name| {
            let (document, imports) = load_with_imports(&name);
            (name, document, imports)
        })
        .collect()
}

fn laid_out(document: &Document, library: &Fixtures, engine: &mut TextEngine) -> (Scene, Layout) {
    let scene = build_scene(document, library, SceneOptions::FULL);
    let layout = Layout::compute(&scene, engine);
    (scene, layout)
}

#[test]
fn every_file_lays_out_and_top_level_frames_keep_their_fixed_sizes() {
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let mut checked = 0;
    for (name, document, library) in corpus() {
        let (scene, layout) = laid_out(&document, &library, &mut engine);
        assert_eq!(layout.parts().len(), document.tree().roots().len(), "{name}");
        for root in scene.roots() {
            let node = scene.node(root);
            let Some(found) = layout.node_box(root) else { continue };
            for (key, got) in [(Key::Width, found.width), (Key::Height, found.height)] {
                assert!(got.is_finite() && got >= 0.0, "{name}: {} {got}", node.id);
                if let Some(Value::Size(VarOr::Value(Sizing::Fixed(want)))) = node.props.get(&key) {
                    assert_eq!(f64::from(got), want.max(0.0), "{name}: {} {}", node.id, key.name());
                    checked += 1;
                }
            }
        }
        for key in scene.walk() {
            if let Some(b) = layout.node_box(key) {
                assert!(
                    b.left.is_finite() && b.top.is_finite() && b.width.is_finite() && b.height.is_finite(),
                    "{name}"
                );
            }
        }
    }
    assert!(checked > 300, "{checked} fixed sizes checked");
}

/// Pencil writes the x/y it computed into instance overrides, even for nodes in flex layouts:
/// hundreds of positions computed by Pencil itself.
#[test]
fn positions_agree_with_the_ones_pencil_wrote_into_overrides() {
    let mut engine = TextEngine::new(FontBook::new(FontOptions::default()));
    let (mut total, mut same) = (0, 0);
    let mut misses = Vec::new();
    for (name, document, library) in corpus() {
        let (scene, layout) = laid_out(&document, &library, &mut engine);
        for key in document.tree().walk() {
            let node = document.tree().node(key);
            if node.node_type() != NodeType::Ref {
                continue;
            }
            let Some(Value::Descendants(descendants)) = node.props.get(&Key::Descendants) else { continue };
            for (path, tree) in descendants.0.iter() {
                let number = |k: &Key| match tree.props.get(k) {
                    Some(Value::Number(VarOr::Value(n))) => Some(*n as f32),
                    _ => None,
                };
                let (Some(x), Some(y)) = (number(&Key::X), number(&Key::Y)) else { continue };
                if tree.is_replacement() {
                    continue;
                }
                let Some(found) = scene.node_by_id(&format!("{}/{path}", node.id())).and_then(|k| layout.node_box(k))
                else {
                    continue;
                };
                total += 1;
                if (found.x - x).abs() <= 0.5 && (found.y - y).abs() <= 0.5 {
                    same += 1;
                } else {
                    misses.push(format!("{name}: {}/{path}: nib {},{} Pencil {x},{y}", node.id(), found.x, found.y));
                }
            }
        }
    }
    let rate = same as f64 / total.max(1) as f64;
    println!("{same} of {total} positions agree ({:.1}%)", rate * 100.0);
    for miss in misses.iter().take(40) {
        println!("  {miss}");
    }
    assert!(total > 200, "{total} positions compared");
    assert!(rate >= 0.97, "{same} of {total} positions agree");
}
