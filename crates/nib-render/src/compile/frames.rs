//! The top-level frames of a document, each rendered on its own and in parallel: what `nib render
//! --all`, `nib diff` and `nib snapshot` show and compare.

use rayon::prelude::*;
use tiny_skia::Pixmap;

use crate::display::pictures::Pictures;
use crate::host::Host;
use crate::layout::Layout;
use crate::render::{RenderOptions, RenderTarget, render};
use crate::resolve::{Scene, SceneKey};
use crate::text::TextEngine;

/// A visible top-level node of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Its id.
    pub id: String,
    /// Its name, or its id when it has none.
    pub name: String,
    /// Its place among the visible top-level nodes, from 0.
    pub index: usize,
    /// Its node.
    pub key: SceneKey,
}

impl Frame {
    /// `NN-name`: a file name that sorts in canvas order and says what it shows.
    pub fn file_stem(&self, count: usize) -> String {
        let width = count.to_string().len().max(2);
        format!("{:0width$}-{}", self.index + 1, safe_name(&self.name))
    }
}

/// A frame and its render.
#[derive(Debug)]
pub struct FrameRender {
    /// The frame.
    pub frame: Frame,
    /// The pixels, or why there are none.
    pub image: Result<Pixmap, crate::render::RenderError>,
    /// Every pixel is opaque, as the render knew it ([`crate::render::encode_painted`] then
    /// skips looking).
    pub opaque: bool,
    /// What could not be drawn as written.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
    /// How long drawing it took.
    pub time: std::time::Duration,
}

/// The visible top-level nodes of a laid-out Scene, in canvas order.
pub fn frames(scene: &Scene, layout: &Layout) -> Vec<Frame> {
    scene
        .roots()
        .into_iter()
        .filter(|key| layout.node_box(*key).is_some())
        .enumerate()
        .map(|(index, key)| {
            let node = scene.node(key);
            let name = node.props.name().filter(|n| !n.trim().is_empty()).unwrap_or(&node.id).to_owned();
            Frame { id: node.id.clone(), name, index, key }
        })
        .collect()
}

/// Renders `frames` on all cores, in their order; `done` is called after each (for progress).
pub fn render_frames(
    host: &dyn Host,
    scene: &Scene,
    layout: &Layout,
    text: &TextEngine,
    options: &RenderOptions,
    frames: Vec<Frame>,
    done: &(dyn Fn(&FrameRender) + Sync),
) -> Vec<FrameRender> {
    render_frames_into(host, scene, layout, text, options, frames, &|render| {
        done(&render);
        render
    })
}

/// Renders `frames` on all cores and hands each render to `each` on the thread that drew it,
/// returning what `each` made of them in the frames' order. Whatever `each` does not keep is
/// dropped at once, so a document with many large frames holds only a few images at a time.
pub fn render_frames_into<T: Send>(
    host: &dyn Host,
    scene: &Scene,
    layout: &Layout,
    text: &TextEngine,
    options: &RenderOptions,
    frames: Vec<Frame>,
    each: &(dyn Fn(FrameRender) -> T + Sync),
) -> Vec<T> {
    map_with_engines(host, text, frames, &|text, pictures, frame| {
        let started = std::time::Instant::now();
        let rendered = render(scene, layout, text, pictures, RenderTarget::Node(frame.key), options);
        let time = started.elapsed();
        each(match rendered {
            Ok(rendered) => FrameRender {
                frame,
                image: Ok(rendered.pixmap),
                opaque: rendered.opaque,
                warnings: rendered.warnings,
                time,
            },
            Err(error) => FrameRender { frame, image: Err(error), opaque: false, warnings: Vec::new(), time },
        })
    })
}

/// Runs `each` over `items` on all cores, in their order: each thread gets its own text engine
/// (forked from `text`, so it names the faces the layout was shaped with) and the host's images.
pub fn map_with_engines<I: Send, T: Send>(
    host: &dyn Host,
    text: &TextEngine,
    items: Vec<I>,
    each: &(dyn Fn(&mut TextEngine, &mut dyn Pictures, I) -> T + Sync),
) -> Vec<T> {
    items
        .into_par_iter()
        .map_init(|| (text.fork(), host.pictures()), |(text, pictures), item| each(text, pictures.as_mut(), item))
        .collect()
}

/// A name usable as a file name on every system: letters, digits, `-` and `_`, at most 64
/// characters; `node` when nothing is left.
pub fn safe_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let cleaned: String = cleaned.chars().take(64).collect();
    if cleaned.is_empty() { "node".to_owned() } else { cleaned }
}

/// Two nodes asked for in one run whose files would have the same name: [`safe_name`] makes
/// `a-b`, `a b`, `a_b`… or `..` and `.` alike, and macOS and Windows keep `A.png` and `a.png` as
/// one file. Writing both would leave one picture where two were listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.sentence())]
pub struct NameClash {
    /// The node asked for first.
    pub first: String,
    /// The node whose file would replace the first one's.
    pub second: String,
    /// The file both would be written to.
    pub file: String,
}

impl NameClash {
    fn sentence(&self) -> String {
        if self.first == self.second {
            return format!("node '{}' is asked for twice; each node is written once, to {}", self.first, self.file);
        }
        format!(
            "nodes '{}' and '{}' would both be written to {} (file names are made of an id's letters, digits, - and _, and compared without letter case, as macOS and Windows compare them); export them in separate runs, each with its own output name",
            self.first, self.second, self.file
        )
    }
}

/// The file stem of each of `ids` ([`safe_name`]), in order, refused when two would name the
/// same `.{extension}` file on a system that ignores letter case.
pub fn node_file_stems<'a>(ids: impl IntoIterator<Item = &'a str>, extension: &str) -> Result<Vec<String>, NameClash> {
    let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    let mut stems = Vec::new();
    for id in ids {
        let stem = safe_name(id);
        if let Some(first) = seen.insert(stem.to_lowercase(), id) {
            let file = format!("{}.{extension}", safe_name(first));
            return Err(NameClash { first: first.to_owned(), second: id.to_owned(), file });
        }
        stems.push(stem);
    }
    Ok(stems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_files_are_unique_without_letter_case() {
        assert_eq!(node_file_stems(["hero", "card/title", "Ünï"], "png").unwrap(), ["hero", "card-title", "Ünï"]);
        for (a, b) in [("a-b", "a b"), ("a b", "a.b"), ("..", "."), ("A", "a"), ("ünï", "ÜNÏ"), ("x", "x")] {
            let clash = node_file_stems([a, "other", b], "svg").unwrap_err();
            assert_eq!((clash.first.as_str(), clash.second.as_str()), (a, b));
            let said = clash.to_string();
            assert!(said.contains(&format!("{}.svg", safe_name(a))), "{said}");
        }
        assert!(node_file_stems(["a_b", "a-b"], "png").is_ok(), "_ and - are kept apart");
    }
    use crate::doc::Document;
    use crate::host::MemoryHost;
    use crate::resolve::{NoImports, SceneOptions, build_scene};
    use crate::text::{FontBook, FontOptions};

    #[test]
    fn every_visible_top_level_frame_is_rendered_in_canvas_order() {
        let document = Document::load(
            r##"{"version": "2.8", "children": [
                {"type": "frame", "id": "a", "name": "Home / Hero", "width": 30, "height": 20, "fill": "#FF0000"},
                {"type": "frame", "id": "hidden", "enabled": false, "width": 10, "height": 10},
                {"type": "frame", "id": "b", "x": 50, "width": 10, "height": 40, "fill": "#0000FF"}
            ]}"##,
        )
        .unwrap()
        .document;
        let scene = build_scene(&document, &NoImports, SceneOptions::FULL);
        let mut text = TextEngine::new(FontBook::new(FontOptions::default()));
        let layout = Layout::compute(&scene, &mut text);
        let found = frames(&scene, &layout);
        assert_eq!(found.iter().map(|f| f.file_stem(found.len())).collect::<Vec<_>>(), ["01-Home-Hero", "02-b"]);
        let renders =
            render_frames(&MemoryHost::new(), &scene, &layout, &text, &RenderOptions::default(), found, &|_| {});
        let sizes: Vec<(u32, u32)> =
            renders.iter().map(|r| r.image.as_ref().map(|p| (p.width(), p.height())).unwrap()).collect();
        assert_eq!(sizes, [(30, 20), (10, 40)]);
    }
}
