//! Rendering against golden images: every feature document of snapshots/documents and several
//! real corpus frames, compared by decoded pixels with a small tolerance. A failure writes the
//! actual image and a diff (differences in red over the golden, greyed) into
//! target/snapshot-diffs/.
//!
//! After a deliberate change, look at the new images and bless them:
//! `NIB_BLESS=1 cargo test --test suite render_snapshots`.

use std::path::{Path, PathBuf};

use nib::doc::io::read_file;
use nib::host::FolderImages;
use nib::layout::Layout;
use nib::render::{RenderOptions, RenderTarget, encode_png, render};
use nib::resolve::{NoImports, SceneOptions, build_scene};
use nib::text::{FontBook, FontOptions, TextEngine};

/// A channel may differ by this much without counting (rounding across platforms).
const CHANNEL_TOLERANCE: u8 = 8;

/// At most this share of the pixels may differ beyond the channel tolerance.
const PIXEL_TOLERANCE: f64 = 0.001;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// (golden name, document, frame id or canvas)
fn cases() -> Vec<(String, PathBuf, Option<&'static str>)> {
    let mut cases: Vec<(String, PathBuf, Option<&'static str>)> = [
        "shapes",
        "fills",
        "strokes",
        "strokes_213",
        "effects",
        "text",
        "icons",
        "layout",
        "annotations",
        "components",
        "showcase",
        "current_220",
    ]
    .iter()
    .map(|name| (format!("feature-{name}"), root().join(format!("snapshots/documents/{name}.pen")), None))
    .collect();
    let corpus = |file: &str| root().join("tests/fixtures/pen").join(file);
    for (name, file, frame) in [
        ("corpus-landing-page", "Changan-Su__Apple-Style-Website-Editor__PinS.pen", "Qm8KM"),
        ("corpus-file-page", "ChenNima__Gleaner__design.pen", "gbN1N"),
        ("corpus-skills-dialog", "LIU9293__cirrus__design.pen", "TBCqR"),
        ("corpus-creatorflow", "mahirocoko__mahirocoko__design-system.pen", "BrFWV"),
        ("corpus-dashboard", "Pregum__pencil_viewer__public__samples__dashboard.pen", "dash"),
        ("corpus-dark-editor", "Achelous1__smalti__docs__design__design.pen", "PEZED"),
    ] {
        cases.push((name.to_owned(), corpus(file), Some(frame)));
    }
    cases
}

fn render_case(document: &Path, frame: Option<&str>) -> Vec<u8> {
    let document_text = read_file(document).unwrap_or_else(|e| panic!("{}: {e}", document.display())).document;
    let scene = build_scene(&document_text, &NoImports, SceneOptions::FULL);
    let mut text = TextEngine::new(FontBook::new(FontOptions::default()));
    let layout = Layout::compute(&scene, &mut text);
    let target = match frame {
        Some(id) => {
            RenderTarget::Node(scene.node_by_id(id).unwrap_or_else(|| panic!("{}: no frame {id}", document.display())))
        }
        None => RenderTarget::Canvas,
    };
    let options = RenderOptions { scale: 1.0, background: Some([255, 255, 255, 255]), ..RenderOptions::default() };
    let mut images = FolderImages::new(document.parent().map(Path::to_owned), None);
    let rendered = render(&scene, &layout, &mut text, &mut images, target, &options).expect("renders");
    encode_png(&rendered.pixmap)
}

fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8() | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().expect("a png");
    let mut buffer = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buffer).expect("a frame");
    buffer.truncate(info.buffer_size());
    (info.width, info.height, buffer)
}

fn encode(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgba);
    let mut writer = encoder.write_header().expect("header");
    writer.write_image_data(rgba).expect("data");
    drop(writer);
    bytes
}

/// Where `actual` differs from `golden`: the share of pixels beyond tolerance and a diff image.
fn compare(golden: &[u8], actual: &[u8]) -> Result<(), (String, Option<Vec<u8>>)> {
    let (gw, gh, g) = decode(golden);
    let (aw, ah, a) = decode(actual);
    if (gw, gh) != (aw, ah) {
        return Err((format!("size {aw} × {ah}, golden {gw} × {gh}"), None));
    }
    let mut diff = Vec::with_capacity(g.len());
    let mut differing = 0usize;
    for (gp, ap) in g.chunks_exact(4).zip(a.chunks_exact(4)) {
        let worst = gp.iter().zip(ap).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
        if worst > CHANNEL_TOLERANCE {
            differing += 1;
            diff.extend_from_slice(&[255, 0, 0, 255]);
        } else {
            let grey = ((u32::from(gp[0]) + u32::from(gp[1]) + u32::from(gp[2])) / 3 / 2 + 128) as u8;
            diff.extend_from_slice(&[grey, grey, grey, 255]);
        }
    }
    let share = differing as f64 / (f64::from(gw) * f64::from(gh));
    if share > PIXEL_TOLERANCE {
        return Err((format!("{differing} pixels ({:.3}%) differ", share * 100.0), Some(encode(gw, gh, &diff))));
    }
    Ok(())
}

#[test]
fn renders_match_their_golden_images() {
    let bless = std::env::var_os("NIB_BLESS").is_some();
    let diffs = root().join("target/snapshot-diffs");
    let mut failures = Vec::new();
    for (name, document, frame) in cases() {
        let actual = render_case(&document, frame);
        let golden_path = root().join("snapshots").join(format!("{name}.png"));
        if bless {
            std::fs::write(&golden_path, &actual).expect("write golden");
            continue;
        }
        let Ok(golden) = std::fs::read(&golden_path) else {
            failures.push(format!("{name}: no golden image at {} (bless with NIB_BLESS=1)", golden_path.display()));
            continue;
        };
        if let Err((why, diff)) = compare(&golden, &actual) {
            std::fs::create_dir_all(&diffs).expect("diff folder");
            std::fs::write(diffs.join(format!("{name}.actual.png")), &actual).expect("write actual");
            if let Some(diff) = diff {
                std::fs::write(diffs.join(format!("{name}.diff.png")), diff).expect("write diff");
            }
            failures.push(format!("{name}: {why} (see {}/{name}.*.png)", diffs.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_same_document_renders_to_the_same_bytes() {
    let document = root().join("snapshots/documents/showcase.pen");
    assert_eq!(render_case(&document, None), render_case(&document, None));
}
